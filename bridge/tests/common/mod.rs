//! Helpers shared by the end-to-end test files.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};
use zellij_mcp_harness::{repo_layout, wait_for, workspace_root, Mcp, Sandbox, Session};

pub mod claude;

/// Runs a test body once per transport.
#[macro_export]
macro_rules! on_both_transports {
    ($($case:ident),* $(,)?) => {$(
        mod $case {
            #[test]
            fn socket() {
                super::$case("socket");
            }
            #[test]
            fn cli() {
                super::$case("cli");
            }
        }
    )*};
}

pub fn bridge() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_zellij-mcp"))
}

/// A session running the repo's layout, unique to this test and process.
pub fn session(test: &str) -> Session {
    let name = format!("{test}-{}", std::process::id());
    Sandbox::new().start_session(&name, &repo_layout(), true)
}

pub fn mcp(session: &Session, transport: &str) -> Mcp {
    Mcp::start(&bridge(), session.sandbox(), &["--transport", transport])
}

/// Every pane, plugins included.
pub fn panes(mcp: &Mcp) -> Vec<Value> {
    let args = json!({"include_plugins": true, "details": true});
    let list = mcp.ok("zellij_list_panes", args);
    list["panes"].as_array().expect("panes").clone()
}

/// The layout's one shell pane (a run's pane that exited and closes on
/// exit may still be listed a moment).
pub fn shell_pane(mcp: &Mcp) -> String {
    let terminals: Vec<Value> = panes(mcp)
        .into_iter()
        .filter(|p| p["pane_id"].as_str().unwrap().starts_with("terminal_"))
        .filter(|p| p["exited"] != true)
        .collect();
    assert_eq!(
        terminals.len(),
        1,
        "the layout has one shell pane: {terminals:?}"
    );
    terminals[0]["pane_id"].as_str().unwrap().to_owned()
}

pub fn screen(mcp: &Mcp, pane: &str) -> String {
    let read = mcp.ok("zellij_read", json!({"pane_id": pane}));
    read["text"].as_str().unwrap().to_owned()
}

/// Reads the pane until a line equals `line`.
pub fn read_until_line(mcp: &Mcp, pane: &str, line: &str) -> String {
    wait_for(
        &format!("'{line}' in {pane}"),
        Duration::from_secs(20),
        || {
            let text = screen(mcp, pane);
            text.lines().any(|l| l.trim() == line).then_some(text)
        },
    )
}

pub fn file_lines(path: &Path, count: usize) -> Vec<String> {
    wait_for(
        &format!("{count} lines in {}", path.display()),
        Duration::from_secs(20),
        || {
            let text = std::fs::read_to_string(path).ok()?;
            let lines: Vec<String> = text.lines().map(str::to_owned).collect();
            (lines.len() >= count).then_some(lines)
        },
    )
}

/// The zellij-mcp plugin's own pane, as `zellij_list_panes` lists it.
pub fn plugin_pane(mcp: &Mcp, session: &Session) -> Value {
    let url = json!(session.sandbox().plugin_url());
    panes(mcp)
        .into_iter()
        .find(|p| p["plugin_url"] == url)
        .expect("the zellij-mcp plugin pane is listed")
}

/// Types `line` and Enter into `pane`.
pub fn type_line(mcp: &Mcp, pane: &str, line: &str) {
    mcp.ok(
        "zellij_write",
        json!({"pane_id": pane, "text": line, "keys": ["Enter"]}),
    );
}

/// Waits until the plugin has `count` waits under way (`mcp` may be the
/// bridge whose call is waiting: calls on one bridge run side by side).
pub fn until_waiting(mcp: &Mcp, count: usize) {
    wait_for(
        &format!("{count} waits under way"),
        Duration::from_secs(20),
        || {
            let info = mcp.ok("zellij_session_info", json!({}));
            let waits = info["active_waits"].as_u64()?;
            (waits >= count as u64).then_some(())
        },
    )
}

/// Types `marker` (no Enter) into `pane` and reads until it shows; writes
/// to a pane are typed in order, so anything typed before it shows too.
pub fn screen_after_marker(mcp: &Mcp, pane: &str, marker: &str) -> String {
    mcp.ok("zellij_write", json!({"pane_id": pane, "text": marker}));
    wait_for(
        &format!("'{marker}' in {pane}"),
        Duration::from_secs(20),
        || {
            let text = screen(mcp, pane);
            text.contains(marker).then_some(text)
        },
    )
}

/// `screen` without trailing blanks on its lines or at its end.
pub fn trimmed(screen: &str) -> String {
    let lines: Vec<&str> = screen.lines().map(str::trim_end).collect();
    lines.join("\n").trim_end().to_owned()
}

/// The test's Ink app (a composer as agents draw theirs) in a new tiled
/// pane, appending each submission to `out` as a JSON string; its pane id.
pub fn ink_pane(mcp: &Mcp, out: &Path) -> String {
    let app = workspace_root().join("bridge/tests/fixtures/ink-echo");
    assert!(
        app.join("node_modules/ink").is_dir(),
        "the Ink fixture is not installed: run `make test-deps`"
    );
    let command = format!("node {} {}", app.join("echo.mjs").display(), out.display());
    let pane = mcp.ok(
        "zellij_new_pane",
        json!({"command": ["sh", "-c", command], "placement": "tiled"}),
    );
    let pane = pane["pane_id"].as_str().unwrap().to_owned();
    wait_for("the Ink composer", Duration::from_secs(30), || {
        screen(mcp, &pane).contains("READY ·").then_some(())
    });
    pane
}

/// Sends the request `payload` with a raw `zellij pipe` to the plugin, as
/// its users do; the lines of the reply that name its id. A `zellij pipe`
/// client sometimes exits before the reply it was sent: then, as the
/// bridge does, the request is asked for with `replay` (the plugin keeps
/// the reply, exactly once), and sent again only when the plugin never saw
/// it (`null`).
pub fn raw_request(s: &Session, payload: &Value) -> Vec<String> {
    let url = s.sandbox().plugin_url();
    let id = payload["id"].as_str().expect("the request's id");
    let naming = |text: &str| -> Vec<String> {
        let quoted = format!("\"{id}\"");
        text.lines()
            .filter(|l| l.contains(&quoted))
            .map(str::to_owned)
            .collect()
    };
    for attempt in 1..=3 {
        let output = s
            .pipe(Some(&url), &payload.to_string())
            .expect("zellij pipe finished");
        let replies = naming(&String::from_utf8_lossy(&output.stdout));
        if !replies.is_empty() {
            return replies;
        }
        let replay = json!({"v": 1, "id": format!("{id}-replay-{attempt}"), "op": "replay", "args": {"request_id": id}});
        let kept: Value = wait_for("a replay's answer", Duration::from_secs(10), || {
            let out = s.pipe(Some(&url), &replay.to_string())?;
            let line = String::from_utf8_lossy(&out.stdout)
                .lines()
                .next()?
                .to_owned();
            serde_json::from_str(&line).ok()
        });
        eprintln!(
            "zellij pipe exited before its reply ({}); replay said {kept}",
            output.status
        );
        // The replay's answer holds the kept reply, as it was sent.
        if kept["error"].is_object() {
            return vec![kept.to_string()];
        }
        if !kept["result"].is_null() {
            return vec![kept["result"].to_string()];
        }
    }
    panic!("request {id} was never seen by the plugin in 3 tries");
}

/// Waits until the pane is in `state`, as `zellij_wait_for` tells it.
/// An agent of `command` at `work` in a tiled pane, named `name` where
/// given, once it is idle.
pub fn open_agent(mcp: &Mcp, command: &[String], work: &Path, name: Option<&str>) -> String {
    let mut args = json!({"command": command, "cwd": work, "placement": "tiled"});
    if let Some(name) = name {
        args["agent_name"] = json!(name);
    }
    let pane = mcp.ok("zellij_new_pane", args)["pane_id"]
        .as_str()
        .unwrap()
        .to_owned();
    until_state(mcp, &pane, "idle");
    pane
}

pub fn until_state(mcp: &Mcp, pane: &str, state: &str) {
    let waited = mcp.ok(
        "zellij_wait_for",
        json!({"pane_id": pane, "until_state": state, "timeout_ms": 60000}),
    );
    assert_eq!(
        waited["outcome"],
        "state",
        "{pane} {state}: {waited}\n{}",
        screen(mcp, pane)
    );
}

/// The pane's state as `zellij_list_panes` lists it (headless, the list
/// can lag a new pane by a moment).
pub fn listed_state(mcp: &Mcp, pane: &str) -> Value {
    wait_for(&format!("{pane} listed"), Duration::from_secs(20), || {
        let listed = mcp.ok("zellij_list_panes", json!({}));
        let mut panes = listed["panes"].as_array()?.iter();
        Some(panes.find(|p| p["pane_id"] == pane)?["state"].clone())
    })
}

/// How many requests the model API got with `text` in their user turn.
pub fn times_sent(api: &claude::ModelApi, text: &str) -> usize {
    api.user_texts().iter().filter(|t| t.contains(text)).count()
}

/// Logged events named `name`.
pub fn logged(mcp: &Mcp, name: &str) -> Vec<Value> {
    let read = mcp.ok("zellij_read_events", json!({}));
    let events = read["events"].as_array().cloned().unwrap_or_default();
    events.into_iter().filter(|e| e["event"] == name).collect()
}

/// Waits for the `delivered` event of `message` (its seq), logged when its
/// write ends (a while after its program has it), and checks that it
/// comes after the logged event `after`.
pub fn delivered_after(mcp: &Mcp, message: &Value, after: &Value) {
    let what = format!("message {message}'s delivered event");
    let delivered = wait_for(&what, Duration::from_secs(20), || {
        let read = mcp.ok("zellij_read_events", json!({"since_seq": message}));
        let mut events = read["events"].as_array()?.clone().into_iter();
        events.find(|e| e["event"] == "delivered" && e["message"] == *message)
    });
    assert!(
        delivered["seq"].as_u64() > after["seq"].as_u64(),
        "delivered before {after}: {delivered}"
    );
}

/// `pane`'s row in `zellij-mcp agents --json`, from the plugin's own look
/// at it (up to half a second old).
pub fn agent_row(s: &Session, pane: &str) -> Option<Value> {
    let mut agents = std::process::Command::new(bridge());
    agents.args(["agents", "--json"]).envs(s.sandbox().env());
    let rows: Value = serde_json::from_slice(&agents.output().ok()?.stdout).ok()?;
    let mut rows = rows["agents"].as_array()?.iter();
    rows.find(|r| r["pane_id"] == pane).cloned()
}
