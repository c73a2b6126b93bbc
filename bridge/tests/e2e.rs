//! End-to-end: real Zellij 0.45.1 sessions in sandboxes, the built plugin,
//! and the built `zellij-mcp` binary driven as an MCP client.

mod common;

use std::time::{Duration, Instant};

use common::*;
use serde_json::{json, Value};
use zellij_mcp_harness::{repo_layout, wait_for, workspace_root, Mcp, Sandbox};

on_both_transports!(
    list_write_read,
    submit_into_ink,
    bad_input_is_a_tool_error_and_changes_nothing
);

fn list_write_read(transport: &str) {
    let s = session(&format!("lwr-{transport}"));
    let mcp = mcp(&s, transport);
    let before = panes(&mcp);
    let plugin = plugin_pane(&mcp, &s);
    assert_eq!(
        plugin["selectable"], false,
        "the plugin stays out of the way"
    );
    assert_eq!(plugin["focused"], Value::Null, "flags are listed when true");
    let pane = shell_pane(&mcp);
    let shell = before.iter().find(|p| p["pane_id"] == json!(pane)).unwrap();
    assert_eq!(shell["focused"], true);
    assert_eq!(shell["tab_name"], "main");
    assert_eq!(shell["is_self"], Value::Null);

    let wrote = mcp.ok(
        "zellij_write",
        json!({"pane_id": pane, "text": "echo e2e-$((6*7))", "keys": ["Enter"]}),
    );
    assert_eq!(wrote["pane_id"], json!(pane));
    assert_eq!(wrote["session"], json!(s.name()));
    assert_eq!(wrote["submitted"], false);
    assert_eq!(wrote["bytes_written"], 18);
    read_until_line(&mcp, &pane, "e2e-42");

    let full = mcp.ok(
        "zellij_read",
        json!({"pane_id": pane, "full": true, "max_bytes": 7}),
    );
    assert_eq!(full["truncated"], true);
    assert!(full["text"].as_str().unwrap().len() <= 7);

    // Nothing else changed: same panes, same focus, no stray plugin copy.
    let after = panes(&mcp);
    let ids = |l: &[Value]| {
        l.iter()
            .map(|p| (p["pane_id"].clone(), p["focused"].clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&before), ids(&after));
}

fn submit_into_ink(transport: &str) {
    let app = workspace_root().join("bridge/tests/fixtures/ink-echo");
    assert!(
        app.join("node_modules/ink").is_dir(),
        "the Ink fixture is not installed: run `make test-deps`"
    );
    let s = session(&format!("ink-{transport}"));
    let mcp = mcp(&s, transport);
    let pane = shell_pane(&mcp);
    let out = s.sandbox().work().join("submitted.jsonl");
    let command = format!("node {} {}", app.join("echo.mjs").display(), out.display());
    mcp.ok(
        "zellij_write",
        json!({"pane_id": pane, "text": command, "keys": ["Enter"]}),
    );
    wait_for("the Ink prompt", Duration::from_secs(30), || {
        screen(&mcp, &pane).contains("READY ·").then_some(())
    });

    let mut expected: Vec<String> = Vec::new();
    for i in 0..4 {
        let text = format!("message {i} via {transport}");
        let start = Instant::now();
        let wrote = mcp.ok(
            "zellij_write",
            json!({"pane_id": pane, "text": text, "submit": true}),
        );
        assert_eq!(wrote["submitted"], true);
        assert!(
            start.elapsed() >= Duration::from_millis(150),
            "the reply comes after the CR"
        );
        expected.push(json!(text).to_string());
    }
    let lines = file_lines(&out, 4);
    assert_eq!(lines, expected, "every submit arrived whole, in order");

    // Concurrent submits to one pane are queued, never interleaved.
    let texts: Vec<String> = (0..3)
        .map(|i| format!("concurrent {i} {}", "x".repeat(40)))
        .collect();
    let results = mcp.call_concurrently(
        texts
            .iter()
            .map(|t| {
                (
                    "zellij_write",
                    json!({"pane_id": pane, "text": t, "submit": true}),
                )
            })
            .collect(),
    );
    assert!(
        results.iter().all(|r| r.is_error != Some(true)),
        "{results:?}"
    );
    let mut got = file_lines(&out, 7)[4..].to_vec();
    let mut want: Vec<String> = texts.iter().map(|t| json!(t).to_string()).collect();
    got.sort();
    want.sort();
    assert_eq!(got, want);
}

fn bad_input_is_a_tool_error_and_changes_nothing(transport: &str) {
    let s = session(&format!("bad-{transport}"));
    let mcp = mcp(&s, transport);
    let pane = shell_pane(&mcp);
    let plugin = plugin_pane(&mcp, &s)["pane_id"].clone();
    let before = screen(&mcp, &pane);

    let cases = [
        (
            "zellij_read",
            json!({"pane_id": "terminal_999"}),
            "pane_not_found",
        ),
        (
            "zellij_write",
            json!({"pane_id": "terminal_999", "text": "x"}),
            "pane_not_found",
        ),
        (
            "zellij_write",
            json!({"pane_id": plugin, "text": "x"}),
            "wrong_pane_kind",
        ),
        (
            "zellij_write",
            json!({"pane_id": pane, "text": "x", "keys": ["Hyper q"]}),
            "bad_request",
        ),
        ("zellij_write", json!({"pane_id": pane}), "bad_request"),
        (
            "zellij_write",
            json!({"pane_id": pane, "text": "x".repeat(300_000)}),
            "bad_request",
        ),
        ("zellij_read", json!({"pane_id": "pane-one"}), "bad_request"),
        ("zellij_read", json!({}), "bad_request"),
        (
            "zellij_read",
            json!({"pane_id": pane, "session": "no-such-session"}),
            "session_not_found",
        ),
    ];
    for (tool, args, code) in cases {
        let text = mcp.err(tool, args.clone());
        assert!(text.starts_with(code), "{tool} {args}: {text}");
        assert!(text.contains("Fix:"), "errors say how to fix them: {text}");
    }
    let after = screen_after_marker(&mcp, &pane, "typed-last");
    assert_eq!(
        trimmed(&after.replace("typed-last", "")),
        trimmed(&before),
        "bad input typed nothing"
    );
}

#[test]
fn with_two_clients_attached_one_instance_acts_and_replies_once() {
    let s = session("clients");
    let mcp = mcp(&s, "socket");
    let pane = shell_pane(&mcp);
    let (mut clients, _) = s.attach_clients_and_wait(2);
    // Each attached client gets its own plugin instance.
    if let Err(seen) = s.wait_for_plugin_instances(2) {
        panic!("both clients' plugin instances load; {seen}");
    }
    let (mut first, mut second) = (clients.remove(0), clients.remove(0));
    assert!(first.is_running() && second.is_running());

    let out = s.sandbox().work().join("marks.txt");
    let mark = |n: usize, client_count: &str| {
        // The raw pipe, as `zellij pipe` users see it: count the replies.
        let payload = json!({
            "v": 1, "id": format!("mark-{n}"), "op": "write",
            "args": {"pane_id": pane, "text": format!("echo mark-{n} >> {}", out.display()), "keys": ["Enter"]}
        });
        let replies = raw_request(&s, &payload);
        assert_eq!(
            replies.len(),
            1,
            "one reply with {client_count} clients: {replies:?}"
        );
    };
    mark(1, "two");
    // And through the bridge.
    mcp.ok(
        "zellij_write",
        json!({"pane_id": pane, "text": format!("echo mark-2 >> {}", out.display()), "keys": ["Enter"]}),
    );
    drop(first);
    wait_for("one client left", Duration::from_secs(20), || {
        (s.client_focus().lines().skip(1).count() == 1).then_some(())
    });
    mark(3, "one of two detached");
    // Writes to a pane are typed in order: once the last shows, a write
    // that ran twice would have shown before it.
    mcp.ok(
        "zellij_write",
        json!({"pane_id": pane, "text": format!("echo mark-end >> {}", out.display()), "keys": ["Enter"]}),
    );
    let lines = file_lines(&out, 4);
    assert_eq!(
        lines,
        ["mark-1", "mark-2", "mark-3", "mark-end"],
        "each write ran exactly once"
    );
    let ours = s
        .zellij_panes()
        .into_iter()
        .filter(|p| p["plugin_url"] == json!(s.sandbox().plugin_url()))
        .count();
    assert_eq!(ours, 1, "no extra plugin pane was launched");
}

#[test]
fn without_the_plugin_calls_fail_fast_with_a_fix() {
    let sandbox = Sandbox::new();
    let layout = sandbox.work().join("plain.kdl");
    std::fs::write(&layout, "layout {\n    pane\n}\n").unwrap();
    let s = sandbox.start_session(&format!("noplugin-{}", std::process::id()), &layout, false);
    for transport in ["socket", "cli"] {
        let mcp = mcp(&s, transport);
        let start = Instant::now();
        let text = mcp.err("zellij_list_panes", json!({}));
        assert!(text.starts_with("plugin_not_loaded"), "{text}");
        assert!(text.contains("zellij-mcp setup"), "{text}");
        assert!(
            start.elapsed() < Duration::from_secs(8),
            "took {:?}",
            start.elapsed()
        );
    }
    // Probing never launched a copy of the plugin.
    let mut cmd = s.sandbox().zellij();
    cmd.args(["--session", s.name(), "action", "list-panes"]);
    let listed = cmd.output().expect("list-panes");
    assert!(!String::from_utf8_lossy(&listed.stdout).contains("zellij-mcp"));
}

#[test]
fn without_a_session_calls_fail_with_the_live_sessions() {
    let sandbox = Sandbox::new();
    let mcp = Mcp::start(&bridge(), &sandbox, &[]);
    let text = mcp.err("zellij_list_panes", json!({}));
    assert!(text.starts_with("session_not_found"), "{text}");
    let s = sandbox.start_session(
        &format!("named-{}", std::process::id()),
        &repo_layout(),
        true,
    );
    let text = mcp.err("zellij_list_panes", json!({"session": "elsewhere"}));
    assert!(
        text.contains(s.name()),
        "the error lists live sessions: {text}"
    );
    // With one live session it is the default.
    mcp.ok("zellij_list_panes", json!({}));
}

#[test]
fn server_identifies_itself_and_publishes_schemas() {
    let sandbox = Sandbox::new();
    let mcp = Mcp::start(&bridge(), &sandbox, &[]);
    let (name, version) = mcp.server_name_and_version();
    assert_eq!(name, "zellij-mcp");
    assert_eq!(version, env!("CARGO_PKG_VERSION"));
    let tools = mcp.list_tools();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "zellij_arrange_pane",
            "zellij_ask",
            "zellij_cancel_messages",
            "zellij_close",
            "zellij_dump_layout",
            "zellij_focus",
            "zellij_list_panes",
            "zellij_list_sessions",
            "zellij_list_tabs",
            "zellij_new_pane",
            "zellij_new_tab",
            "zellij_open_file",
            "zellij_read",
            "zellij_read_events",
            "zellij_register_agent",
            "zellij_rename",
            "zellij_run",
            "zellij_send_message",
            "zellij_session_info",
            "zellij_signal",
            "zellij_wait_for",
            "zellij_write",
        ]
    );
    let size = serde_json::to_string(&tools).unwrap().len();
    eprintln!("tools/list: {} tools, {size} bytes", tools.len());
    assert!(size < 26 * 1024, "tools/list is {size} bytes");
    for tool in &tools {
        assert!(
            tool.output_schema.is_some(),
            "{} has an outputSchema",
            tool.name
        );
        assert!(tool.annotations.is_some(), "{} has annotations", tool.name);
        let description = tool.description.as_deref().unwrap_or_default();
        for part in ["On:", "Focus:", "After:", "Don't:", "Needs:"] {
            assert!(
                description.contains(part),
                "{} states '{part}': {description}",
                tool.name
            );
        }
        let props = tool
            .input_schema
            .get("properties")
            .and_then(Value::as_object)
            .unwrap();
        assert!(
            props.contains_key("session"),
            "{} takes a session",
            tool.name
        );
    }
}

/// The files under `dir`, at any depth.
fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .flat_map(|entry| match entry.file_type() {
            Ok(kind) if kind.is_dir() => files_under(&entry.path()),
            _ => vec![entry.path()],
        })
        .collect()
}

/// The acting instance marks each request it takes (so that, while the
/// lease changes hands, no other instance takes it too) with a new name
/// for a file it has, not a new file: a new file per request cost the
/// Zellij server a quarter of its time on ext4.
#[test]
fn requests_are_marked_taken_with_names_not_new_files() {
    use std::os::unix::fs::MetadataExt;
    let s = session("marks");
    let mcp = mcp(&s, "socket");
    for _ in 0..5 {
        mcp.ok("zellij_list_tabs", json!({}));
    }
    let marks: Vec<_> = files_under(&s.sandbox().root().join("cache"))
        .into_iter()
        .filter(|path| {
            let folder = path.parent().and_then(|p| p.file_name());
            folder.is_some_and(|name| name.to_string_lossy().ends_with(".took"))
        })
        .collect();
    assert!(marks.len() >= 5, "marks: {marks:?}");
    for mark in &marks {
        let links = std::fs::metadata(mark).expect("a mark").nlink();
        assert!(links >= 2, "{} is a file of its own", mark.display());
    }
}
