//! Safety: a read-only server, the audit log, and the protection of the
//! server's own pane, found even when the MCP client strips the environment.

mod common;

use std::time::Duration;

use common::*;
use serde_json::{json, Value};
use zellij_mcp_harness::{text_of, wait_for, Mcp};

#[test]
fn a_read_only_server_lists_and_runs_only_tools_that_change_nothing() {
    let s = session("readonly");
    let mcp = Mcp::start(&bridge(), s.sandbox(), &["--read-only"]);
    let tools = mcp.list_tools();
    let names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    assert_eq!(names.len(), 8, "{names:?}");
    for tool in &tools {
        let read_only = tool.annotations.as_ref().and_then(|a| a.read_only_hint);
        assert_eq!(read_only, Some(true), "{} is listed", tool.name);
    }
    let pane = shell_pane(&mcp);
    let marker = s.sandbox().work().join("typed");
    let line = format!("touch {}", marker.display());
    let refused = mcp.err(
        "zellij_write",
        json!({"pane_id": pane, "text": line, "keys": ["Enter"]}),
    );
    assert!(
        refused.starts_with("read_only:") && refused.contains("Fix:"),
        "{refused}"
    );
    let refused = mcp.err("zellij_close", json!({"pane_id": pane, "force": true}));
    assert!(refused.starts_with("read_only:"), "{refused}");
    // The shell got nothing: a write from another server shows alone.
    let writer = common::mcp(&s, "socket");
    let after = screen_after_marker(&writer, &pane, "typed-last");
    assert!(!after.contains("touch"), "{after}");
    assert!(!marker.exists());

    // `notify` passes the same policy.
    let mut notify = std::process::Command::new(bridge());
    notify
        .args(["--read-only", "--zellij"])
        .arg(s.sandbox().zellij_path())
        .args(["notify", "--to", &pane, "--wait-ms", "0", "hi"])
        .envs(s.sandbox().env())
        .env_remove("ZELLIJ_SESSION_NAME")
        .env_remove("ZELLIJ_PANE_ID");
    let out = notify.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("read_only:"), "{stderr}");
    let logged = mcp.ok("zellij_read_events", json!({}));
    assert_eq!(logged["events"], json!([]), "nothing was queued");
}

#[test]
fn the_audit_log_records_each_change_without_the_typed_text() {
    let s = session("audit");
    let log = s.sandbox().work().join("audit.jsonl");
    let log_arg = log.display().to_string();
    let mcp = Mcp::start(&bridge(), s.sandbox(), &["--audit-log", &log_arg]);
    let pane = shell_pane(&mcp);
    let secret = "echo s3cr3t-value";
    mcp.ok(
        "zellij_write",
        json!({"pane_id": pane, "text": secret, "keys": ["Enter"]}),
    );
    mcp.ok("zellij_read", json!({"pane_id": pane}));
    mcp.err("zellij_close", json!({"pane_id": "terminal_99"}));
    let lines = wait_for("two audit lines", Duration::from_secs(10), || {
        let text = std::fs::read_to_string(&log).ok()?;
        (text.lines().count() >= 2).then_some(text)
    });
    assert!(
        !lines.contains("s3cr3t"),
        "the typed text is not in the log: {lines}"
    );
    let entries: Vec<Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(entries.len(), 2, "reads are not recorded: {lines}");
    let write = &entries[0];
    assert_eq!(write["tool"], "zellij_write");
    assert_eq!(write["target"]["pane_id"], json!(pane));
    assert_eq!(write["outcome"], "ok");
    assert_eq!(write["arguments"]["text"]["bytes"], secret.len());
    assert_eq!(
        write["arguments"]["text"]["sha256"].as_str().unwrap().len(),
        64
    );
    assert_eq!(write["left"]["pane_id"], json!(pane));
    assert!(write["time_ms"].as_u64().unwrap() > 0);
    let close = &entries[1];
    assert_eq!(
        (
            close["tool"].clone(),
            close["outcome"].clone(),
            close["error"].clone()
        ),
        (
            json!("zellij_close"),
            json!("error"),
            json!("pane_not_found")
        )
    );

    // What the server writes is the user's own: the audit log, and the
    // plugin's folder (event logs with message text, agent names, leases).
    let mode = |path: &std::path::Path| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    };
    assert_eq!(mode(&log), 0o600, "{}", log.display());
    let url = s.sandbox().plugin_url();
    let folder = s
        .sandbox()
        .root()
        .join("cache/zellij")
        .join(&url)
        .join("plugin_cache");
    assert_eq!(mode(&folder), 0o700, "{}", folder.display());
    let kept = std::fs::read_dir(&folder).unwrap().count();
    assert!(
        kept > 0,
        "the plugin keeps its files in {}",
        folder.display()
    );
}

#[test]
fn the_own_pane_is_found_and_protected_when_the_client_strips_the_environment() {
    let s = session("ownpane");
    let outside = mcp(&s, "socket");
    let work = s.sandbox().work();
    let (to_bridge, from_bridge) = (work.join("to-bridge"), work.join("from-bridge"));
    for fifo in [&to_bridge, &from_bridge] {
        let made = std::process::Command::new("mkfifo").arg(fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    }
    // As an MCP client with a default environment would start it: no ZELLIJ_*
    // variables. (The sandbox's socket folder stands in for the default one.)
    let socket_dir = s.sandbox().root().join("s");
    let script = format!(
        "exec env -i HOME={home} PATH={path} SHELL=/bin/sh TERM=xterm ZELLIJ_SOCKET_DIR={sockets} \
         {bridge} --zellij {zellij} < {to} > {from}",
        home = s.sandbox().root().join("home").display(),
        path = std::env::var("PATH").unwrap(),
        sockets = socket_dir.display(),
        bridge = bridge().display(),
        zellij = s.sandbox().zellij_path().display(),
        to = to_bridge.display(),
        from = from_bridge.display(),
    );
    let started = outside.ok(
        "zellij_new_pane",
        json!({"command": ["sh", "-c", script], "placement": "tiled", "name": "agent"}),
    );
    let own = started["pane_id"].clone();
    let inside = Mcp::over_fifos(&to_bridge, &from_bridge);

    // Without clients, the plugin lists a new pane after a moment.
    let selves = wait_for(
        "the pane to be listed as is_self",
        Duration::from_secs(10),
        || {
            let listed = inside.ok("zellij_list_panes", json!({}));
            let panes = listed["panes"].as_array().unwrap().clone();
            panes.iter().any(|p| p["pane_id"] == own).then(|| {
                panes
                    .into_iter()
                    .filter(|p| p["is_self"] == true)
                    .collect::<Vec<Value>>()
            })
        },
    );
    assert_eq!(selves.len(), 1, "{selves:?}");
    assert_eq!(selves[0]["pane_id"], own);
    let info = inside.ok("zellij_session_info", json!({}));
    assert_eq!(info["own_pane_id"], own, "{info}");

    for (tool, args) in [
        ("zellij_write", json!({"pane_id": own, "text": "x"})),
        (
            "zellij_signal",
            json!({"pane_id": own, "signal": "interrupt"}),
        ),
        ("zellij_close", json!({"pane_id": own})),
    ] {
        let refused = inside.err(tool, args);
        assert!(
            refused.starts_with("bad_request:") && refused.contains("Fix:"),
            "{tool}: {refused}"
        );
    }
    // The pane is still there, as Zellij lists it.
    let mut list = s.sandbox().zellij();
    list.args(["--session", s.name(), "action", "list-panes"]);
    let listed = String::from_utf8(list.output().unwrap().stdout).unwrap();
    assert!(listed.contains(own.as_str().unwrap()), "{listed}");
    let forced = inside.call(
        "zellij_write",
        json!({"pane_id": own, "text": "", "keys": ["Space"], "force": true}),
    );
    assert_ne!(forced.is_error, Some(true), "{}", text_of(&forced));
}
