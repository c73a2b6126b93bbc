//! Request handling against a recording fake host: every request gets exactly
//! one reply and one release of its pipe, whatever the input.

mod keeping;
mod keystrokes;
mod layers;
mod ops;
mod properties;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};
use zellij_mcp_protocol::ops::{op, Op, WaitOutcome};
use zellij_mcp_protocol::{Assembler, PaneRef, Reply};
use zellij_tile::prelude::*;

use crate::fake::Call;
pub use crate::fake::{plugin_in, send, shared_dir, FakeHost};
use crate::host::SessionSnapshot;
use crate::McpPlugin;

/// What was typed into panes, in order.
pub(crate) fn typed(plugin: &McpPlugin<FakeHost>) -> Vec<(PaneRef, String)> {
    let calls = plugin.host.calls.borrow();
    calls
        .iter()
        .filter_map(|c| match c {
            Call::Write(pane, bytes) => Some((*pane, String::from_utf8_lossy(bytes).into_owned())),
            _ => None,
        })
        .collect()
}

/// The names of the files in `dir`, sorted.
pub fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

pub(crate) fn plugin(name: &str) -> McpPlugin<FakeHost> {
    plugin_in(&shared_dir(name), 1)
}

/// The replies on `pipe_id`, asserting the pipe was released after them.
pub fn replies_on(plugin: &McpPlugin<FakeHost>, pipe_id: &str, id: &str) -> Vec<Reply> {
    let calls = plugin.host.calls.borrow();
    let mut asm = Assembler::new(id);
    let mut out = Vec::new();
    let mut released = false;
    for call in calls.iter() {
        match call {
            Call::Output(p, text) if p == pipe_id => {
                assert!(!released, "output after the pipe was released");
                out.extend(text.lines().filter_map(|l| asm.push_line(l)));
            }
            Call::Unblock(p) if p == pipe_id => {
                assert!(!released, "pipe released twice");
                released = true;
            }
            _ => {}
        }
    }
    if !out.is_empty() {
        assert!(released, "a reply must release the pipe");
    }
    out
}

pub(crate) fn only_reply(plugin: &McpPlugin<FakeHost>, pipe_id: &str, id: &str) -> Reply {
    let mut all = replies_on(plugin, pipe_id, id);
    assert_eq!(all.len(), 1, "exactly one reply");
    all.remove(0)
}

/// The message of the one reply in `replies`, when it is an error.
fn error_text(replies: &[Reply]) -> String {
    match replies {
        [reply] => reply.error.as_ref().map(|e| e.message.clone()),
        _ => None,
    }
    .unwrap_or_default()
}

/// A request as the bridge writes it (its fields in the protocol's order).
pub(crate) fn request(id: &str, op: &str, args: Value) -> String {
    let request = zellij_mcp_protocol::Request::new(id, op, args);
    serde_json::to_string(&request).expect("a request")
}

/// The reply's result as `O`'s typed result: fails unless the reply is ok
/// and has the shape the protocol gives `O`'s result.
pub(crate) fn result_of<O: Op>(reply: Reply) -> O::Result {
    let result = reply
        .into_result()
        .unwrap_or_else(|e| panic!("{} failed: {e}", O::NAME));
    serde_json::from_value(result).unwrap_or_else(|e| panic!("{}'s result: {e}", O::NAME))
}

#[test]
fn malformed_input_gets_one_typed_error_and_releases_the_pipe() {
    let cases = [
        ("not json", "", "bad_request"),
        (r#"{"v":1,"id":"a"}"#, "a", "bad_request"),
        (
            r#"{"v":2,"id":"b","op":"hello"}"#,
            "b",
            "unsupported_version",
        ),
        (r#"{"v":1,"id":"c","op":"fly"}"#, "c", "unknown_op"),
        (
            r#"{"v":1,"id":"d","op":"read","args":{"pane_id":"x"}}"#,
            "d",
            "bad_request",
        ),
        (
            r#"{"v":1,"id":"e","op":"read","args":{"pane_id":"terminal_9"}}"#,
            "e",
            "pane_not_found",
        ),
        (
            r#"{"v":1,"id":"f","op":"write","args":{"pane_id":"plugin_5","text":"x"}}"#,
            "f",
            "wrong_pane_kind",
        ),
        (
            r#"{"v":1,"id":"g","op":"write","args":{"pane_id":1,"keys":["Hyper"]}}"#,
            "g",
            "bad_request",
        ),
        (
            r#"{"v":1,"id":"h","op":"write","args":{"pane_id":1}}"#,
            "h",
            "bad_request",
        ),
        (
            r#"{"v":1,"id":"i","op":"read","args":{"pane_id":1,"max_bytes":0}}"#,
            "i",
            "bad_request",
        ),
    ];
    for (n, (payload, id, code)) in cases.iter().enumerate() {
        let mut p = plugin(&format!("bad{n}"));
        send(&mut p, "pipe", Some(payload));
        let reply = only_reply(&p, "pipe", id);
        assert!(!reply.ok, "{payload}");
        assert_eq!(
            serde_json::to_value(reply.error.unwrap().code).unwrap(),
            *code,
            "{payload}"
        );
        let wrote = p
            .host
            .calls
            .borrow()
            .iter()
            .any(|c| matches!(c, Call::Write(..)));
        assert!(!wrote, "bad input must not write: {payload}");
    }
}

#[test]
fn end_of_stream_and_foreign_messages_are_ignored() {
    let mut p = plugin("eos");
    send(&mut p, "pipe", None);
    p.on_pipe(PipeMessage {
        source: PipeSource::Cli("pipe".into()),
        name: "someone-else".into(),
        payload: Some(request("1", "hello", json!({}))),
        args: BTreeMap::new(),
        is_private: false,
    });
    assert!(p.host.calls.borrow().is_empty());
}

#[test]
fn not_ready_until_the_pane_list_arrives() {
    let mut p = plugin("ready");
    p.view.panes = None;
    send(&mut p, "pipe", Some(&request("1", "list_panes", json!({}))));
    let reply = only_reply(&p, "pipe", "1");
    assert_eq!(
        reply.into_result().unwrap_err().code,
        zellij_mcp_protocol::ErrorCode::NotReady
    );
}

#[test]
fn hello_and_list_panes_describe_the_session() {
    let mut p = plugin("hello");
    send(&mut p, "p1", Some(&request("1", "hello", json!({}))));
    let hello = result_of::<op::Hello>(only_reply(&p, "p1", "1"));
    assert_eq!(hello.plugin_url.as_deref(), Some("file:/x/zellij-mcp.wasm"));
    assert_eq!(hello.zellij_pid, 4242);
    let args = json!({"include_plugins": true});
    send(&mut p, "p2", Some(&request("2", "list_panes", args)));
    let list = result_of::<op::ListPanes>(only_reply(&p, "p2", "2")).panes;
    assert_eq!(list[0].pane_id, PaneRef::terminal(1));
    assert_eq!(list[0].tab_id, Some(3));
    assert_eq!(list[1].pane_id, PaneRef::plugin(5));
}

#[test]
fn read_returns_the_screen_and_leaves_scrollbacks_to_the_bridge() {
    let mut p = plugin("read");
    send(
        &mut p,
        "p",
        Some(&request("1", "read", json!({"pane_id": "terminal_1"}))),
    );
    let screen = result_of::<op::Read>(only_reply(&p, "p", "1"));
    assert_eq!(screen.text, "$ echo hi\nhi");
    assert_eq!(screen.lines, 2);
    for (n, args) in [
        json!({"pane_id": 1, "full": true}),
        json!({"pane_id": 1, "since": "1.0"}),
    ]
    .into_iter()
    .enumerate()
    {
        let (pipe, id) = (format!("q{n}"), format!("2-{n}"));
        send(&mut p, &pipe, Some(&request(&id, "read", args)));
        let refused = only_reply(&p, &pipe, &id).into_result().unwrap_err();
        assert_eq!(refused.code, zellij_mcp_protocol::ErrorCode::Unsupported);
    }
}

#[test]
fn locate_names_the_panes_tab() {
    let mut p = plugin("locate");
    send(
        &mut p,
        "p",
        Some(&request("1", "locate", json!({"pane_id": 1}))),
    );
    let found = result_of::<op::Locate>(only_reply(&p, "p", "1"));
    assert_eq!(
        (found.pane_id, found.tab_id),
        (PaneRef::terminal(1), Some(3))
    );
    send(
        &mut p,
        "q",
        Some(&request("2", "locate", json!({"pane_id": 9}))),
    );
    let missing = only_reply(&p, "q", "2").into_result().unwrap_err();
    assert_eq!(missing.code, zellij_mcp_protocol::ErrorCode::PaneNotFound);
}

#[test]
fn a_submit_writes_text_then_a_lone_cr_and_answers_after_it() {
    let mut p = plugin("submit");
    let args = json!({"pane_id": "terminal_1", "text": "hello", "submit": true});
    send(&mut p, "p", Some(&request("1", "write", args)));
    assert!(
        replies_on(&p, "p", "1").is_empty(),
        "no reply before the CR"
    );
    {
        let calls = p.host.calls.borrow();
        assert_eq!(calls[0], Call::Block("p".into()));
        assert_eq!(
            calls[1],
            Call::Write(PaneRef::terminal(1), b"hello".to_vec())
        );
        assert_eq!(calls[2], Call::Timeout(Duration::from_millis(150)));
    }
    p.host.advance(Duration::from_millis(150));
    p.on_timer();
    let reply = result_of::<op::Write>(only_reply(&p, "p", "1"));
    assert!(reply.submitted);
    assert_eq!(reply.bytes_written, 6);
    let writes: Vec<Call> = p
        .host
        .calls
        .borrow()
        .iter()
        .filter(|c| matches!(c, Call::Write(..)))
        .cloned()
        .collect();
    assert_eq!(writes[1], Call::Write(PaneRef::terminal(1), b"\r".to_vec()));
}

#[test]
fn a_plain_write_with_keys_answers_at_once() {
    let mut p = plugin("keys");
    let args = json!({"pane_id": 1, "text": "ls", "keys": ["Enter", "Ctrl c"]});
    send(&mut p, "p", Some(&request("1", "write", args)));
    let reply = result_of::<op::Write>(only_reply(&p, "p", "1"));
    assert_eq!(reply.bytes_written, 4);
    assert!(p
        .host
        .calls
        .borrow()
        .contains(&Call::Write(PaneRef::terminal(1), b"ls\r\x03".to_vec())));
}

#[test]
fn of_two_instances_only_the_lease_holder_answers() {
    let dir = shared_dir("two");
    let mut first = plugin_in(&dir, 1);
    let mut second = plugin_in(&dir, 2);
    for (n, instance) in [&mut first, &mut second].into_iter().enumerate() {
        send(
            instance,
            "p",
            Some(&request(&n.to_string(), "hello", json!({}))),
        );
    }
    assert_eq!(replies_on(&first, "p", "0").len(), 1);
    assert!(
        second.host.calls.borrow().is_empty(),
        "the follower stays silent"
    );
}

pub(crate) fn did(plugin: &McpPlugin<FakeHost>) -> Vec<String> {
    plugin
        .host
        .calls
        .borrow()
        .iter()
        .filter_map(|c| match c {
            Call::Do(what) => Some(what.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_new_background_pane_is_made_in_its_tab_and_never_focused() {
    let mut p = plugin("spawn");
    let args =
        json!({"tab": "main", "command": ["htop"], "name": "top", "placement": "background"});
    send(&mut p, "p", Some(&request("1", "new_pane", args)));
    assert!(
        did(&p).is_empty(),
        "nothing is opened while the pipe is handled"
    );
    p.on_timer();
    let reply = result_of::<op::NewPane>(only_reply(&p, "p", "1"));
    assert_eq!(reply.pane_id, PaneRef::terminal(102));
    assert_eq!(reply.tab_id, Some(3));
    let done = did(&p);
    assert_eq!(done[0], "new_pane_in_tab 3 -> terminal_101");
    assert!(
        done[1].starts_with("replace terminal_101 Command"),
        "{done:?}"
    );
    assert_eq!(
        done[2..],
        ["rename_pane terminal_102 top", "hide terminal_102"]
    );
    assert!(!done.iter().any(|d| d.starts_with("focus")));
}

#[test]
fn closing_the_plugins_own_tab_or_pane_or_nothing_at_all_is_refused_and_changes_nothing() {
    let mut p = plugin("close");
    for (n, args) in [json!({"tab": 3}), json!({"pane_id": "plugin_5"}), json!({})]
        .into_iter()
        .enumerate()
    {
        let id = n.to_string();
        send(&mut p, &id, Some(&request(&id, "close", args)));
        p.on_timer();
        let error = only_reply(&p, &id, &id).into_result().unwrap_err();
        assert_eq!(error.code, zellij_mcp_protocol::ErrorCode::BadRequest);
    }
    assert!(!did(&p).iter().any(|d| d.starts_with("close")));
}

#[test]
fn a_wait_answers_when_the_pane_renders_the_pattern_and_can_be_cancelled() {
    let mut p = plugin("wait");
    *p.host.screen.borrow_mut() = vec!["$ make".into()];
    let args = json!({"pane_id": 1, "pattern": "done in \\d+s"});
    send(&mut p, "w", Some(&request("w1", "wait_for", args.clone())));
    assert!(replies_on(&p, "w", "w1").is_empty(), "waiting");
    p.host.screen.borrow_mut().push("done in 3s".into());
    let rendered = PaneContents {
        viewport: p.host.screen.borrow().clone(),
        ..Default::default()
    };
    p.on_render(HashMap::from([(PaneId::Terminal(1), rendered)]));
    let found = result_of::<op::WaitFor>(only_reply(&p, "w", "w1")).result;
    assert_eq!(
        (found.outcome, found.line.as_deref()),
        (WaitOutcome::Matched, Some("done in 3s"))
    );

    send(&mut p, "x", Some(&request("w2", "wait_for", args)));
    send(
        &mut p,
        "c",
        Some(&request("c1", "cancel", json!({"request_id": "w2"}))),
    );
    assert_eq!(
        result_of::<op::WaitFor>(only_reply(&p, "x", "w2"))
            .result
            .outcome,
        WaitOutcome::Cancelled
    );
    assert!(result_of::<op::Cancel>(only_reply(&p, "c", "c1")).cancelled);
}

#[test]
fn commands_open_in_one_step_where_zellij_allows_it() {
    let mut p = plugin("direct");
    p.view.tabs[0].active = true;
    let hidden = json!({"command": ["make"], "placement": "background"});
    send(&mut p, "a", Some(&request("1", "new_pane", hidden)));
    let tiled = json!({"command": ["make"], "tab": 3});
    send(&mut p, "b", Some(&request("2", "new_pane", tiled)));
    p.on_timer();
    let done = did(&p);
    assert!(done[0].starts_with("open_command Hidden"), "{done:?}");
    assert!(done[1].starts_with("open_command BesidePlugin"), "{done:?}");
    assert_eq!(done.len(), 2, "no replacing, hiding or focusing: {done:?}");
}

#[test]
fn a_replay_answers_an_earlier_request_once_more_and_never_runs_it_again() {
    let mut p = plugin("replay");
    let submit = json!({"pane_id": 1, "text": "hi", "submit": true, "submit_delay_ms": 0});
    send(&mut p, "dead", Some(&request("w", "write", submit)));
    send(
        &mut p,
        "new",
        Some(&request("r1", "replay", json!({"request_id": "w"}))),
    );
    assert!(
        replies_on(&p, "new", "r1").is_empty(),
        "waits for the write"
    );
    p.on_timer();
    let replayed = result_of::<op::Replay>(only_reply(&p, "new", "r1")).unwrap();
    assert_eq!((replayed.id.as_str(), replayed.ok), ("w", true));
    send(
        &mut p,
        "later",
        Some(&request("r2", "replay", json!({"request_id": "w"}))),
    );
    let again = result_of::<op::Replay>(only_reply(&p, "later", "r2")).unwrap();
    assert_eq!(result_of::<op::Write>(again).bytes_written, 3);
    send(
        &mut p,
        "x",
        Some(&request("r3", "replay", json!({"request_id": "never"}))),
    );
    assert_eq!(result_of::<op::Replay>(only_reply(&p, "x", "r3")), None);
    let writes = p
        .host
        .calls
        .borrow()
        .iter()
        .filter(|c| matches!(c, Call::Write(..)))
        .count();
    assert_eq!(writes, 2, "the text and the CR, once");
}

pub(crate) fn error_code(reply: Reply) -> String {
    let code = reply.into_result().unwrap_err().code;
    serde_json::to_value(code)
        .unwrap()
        .as_str()
        .unwrap()
        .to_owned()
}

fn in_flight(p: &McpPlugin<FakeHost>) -> usize {
    p.requests.replies.sizes().2
}

#[test]
fn requests_answered_at_once_leave_nothing_in_flight() {
    let mut p = plugin("inflight");
    *p.host.screen.borrow_mut() = vec!["ready".into()];
    let at_once = [
        ("write", json!({"pane_id": 1, "text": "ls"})),
        (
            "wait_for",
            json!({"pane_id": 1, "pattern": "ready", "include_existing": true}),
        ),
        ("locate", json!({"pane_id": 1})),
        ("read", json!({"pane_id": 9})),
    ];
    for (n, (op, args)) in at_once.into_iter().enumerate() {
        let id = n.to_string();
        send(&mut p, &id, Some(&request(&id, op, args)));
        assert_eq!(replies_on(&p, &id, &id).len(), 1, "{op} answers at once");
    }
    assert_eq!(in_flight(&p), 0);
}

#[test]
fn a_replay_of_a_reply_no_longer_kept_is_a_typed_error_not_a_hang() {
    let mut p = plugin("lost");
    let write = json!({"pane_id": 1, "text": "ls"});
    send(&mut p, "w", Some(&request("w", "write", write)));
    for n in 0..300 {
        let id = format!("h{n}");
        send(
            &mut p,
            &id,
            Some(&request(&id, "locate", json!({"pane_id": 1}))),
        );
    }
    let replay = json!({"request_id": "w"});
    send(&mut p, "r", Some(&request("r", "replay", replay)));
    assert_eq!(error_code(only_reply(&p, "r", "r")), "reply_lost");
}

#[test]
fn waits_are_capped_per_client_and_in_all_with_a_busy_error() {
    let mut p = plugin("waitcap");
    let args = json!({"pane_id": 1, "pattern": "never", "timeout_ms": 60000});
    let wait = |p: &mut McpPlugin<FakeHost>, id: &str| {
        send(p, id, Some(&request(id, "wait_for", args.clone())));
        replies_on(p, id, id)
    };
    for n in 0..16 {
        assert!(wait(&mut p, &format!("a-{n}")).is_empty(), "wait {n} waits");
    }
    let over = wait(&mut p, "a-16");
    assert!(
        error_text(&over).contains("this client has 16 waits"),
        "{over:?}"
    );
    for n in 0..32 {
        let id = format!("c{}-{n}", n % 2);
        assert!(wait(&mut p, &id).is_empty(), "another client's wait starts");
    }
    let over = wait(&mut p, "d-0");
    assert!(
        error_text(&over).contains("all clients have 48"),
        "{over:?}"
    );
    assert_eq!(p.waits.len(), 48);
}

#[test]
fn queued_writes_and_requests_in_flight_are_capped() {
    let mut p = plugin("writecap");
    let submit = json!({"pane_id": 1, "text": "x", "submit": true});
    for n in 0..64 {
        let id = format!("s{n}");
        send(&mut p, &id, Some(&request(&id, "write", submit.clone())));
    }
    send(&mut p, "x", Some(&request("x", "write", submit)));
    assert_eq!(error_code(only_reply(&p, "x", "x")), "busy");
    assert_eq!(p.input.pending(), 64);

    let mut p = plugin("flightcap");
    for n in 0..512 {
        let id = format!("c{}-{n}", n % 8);
        let args = json!({"name": format!("t{n}")});
        send(&mut p, &id, Some(&request(&id, "new_tab", args)));
    }
    send(
        &mut p,
        "x",
        Some(&request("x", "locate", json!({"pane_id": 1}))),
    );
    assert_eq!(error_code(only_reply(&p, "x", "x")), "busy");
    send(&mut p, "y", Some(&request("y", "hello", json!({}))));
    assert!(only_reply(&p, "y", "y").ok, "hello is always answered");
}

#[test]
fn exit_codes_are_kept_for_the_latest_panes_only() {
    let mut p = plugin("exits");
    for pane in 0..1000 {
        p.on_command_exited(pane, Some(0));
    }
    assert_eq!(p.view.exit_codes.len(), 256);
    assert!(p.view.exit_codes.get(999).is_some() && p.view.exit_codes.get(0).is_none());
}

#[test]
fn outside_numbers_never_panic() {
    let mut p = plugin("numbers");
    let arrange = json!({"pane_id": 1, "resize": {"amount": i32::MIN}});
    send(&mut p, "a", Some(&request("a", "arrange_pane", arrange)));
    p.on_timer();
    assert_eq!(error_code(only_reply(&p, "a", "a")), "bad_request");
    let dir = shared_dir("config");
    for (value, expected) in [("99999999999999", 10_000), ("-5", 150), ("fast", 150)] {
        let mut q = McpPlugin::<FakeHost>::default();
        let config = BTreeMap::from([("submit_delay_ms".to_owned(), value.to_owned())]);
        q.start(&dir, config);
        assert_eq!(q.settings.submit_delay_ms, expected, "{value}");
    }
}

#[test]
fn the_pane_of_a_process_is_found_among_terminal_panes() {
    let mut p = plugin("pids");
    let args = json!({"pids": [99, 4321, 1]});
    send(&mut p, "p", Some(&request("1", "pane_of_process", args)));
    let found = result_of::<op::PaneOfProcess>(only_reply(&p, "p", "1"));
    assert_eq!(found.pane_id, Some(PaneRef::terminal(1)));
    send(
        &mut p,
        "q",
        Some(&request("2", "pane_of_process", json!({"pids": [7]}))),
    );
    let none = result_of::<op::PaneOfProcess>(only_reply(&p, "q", "2"));
    assert_eq!(none.pane_id, None);
}

#[test]
fn every_permission_the_protocol_lists_is_one_zellij_knows() {
    assert_eq!(
        crate::permissions().len(),
        zellij_mcp_protocol::PERMISSIONS.len()
    );
}

#[test]
fn a_closed_panes_agent_name_is_free_at_once_while_zellij_still_lists_the_pane() {
    let mut p = plugin("closed-name");
    let args =
        json!({"command": ["sleep", "9"], "agent_name": "worker", "placement": "background"});
    send(&mut p, "a", Some(&request("1", "new_pane", args.clone())));
    p.on_timer();
    let first = result_of::<op::NewPane>(only_reply(&p, "a", "1")).pane_id;
    let close = json!({"pane_id": first.to_string()});
    send(&mut p, "c", Some(&request("2", "close", close)));
    p.on_timer();
    assert!(
        did(&p).contains(&format!("close_pane {first}")),
        "{:?}",
        did(&p)
    );
    send(&mut p, "b", Some(&request("3", "new_pane", args)));
    p.on_timer();
    let second = result_of::<op::NewPane>(only_reply(&p, "b", "3")).pane_id;
    assert_ne!(first, second);
    assert_eq!(
        p.agents.by_pane().get(&second).map(String::as_str),
        Some("worker")
    );
}

/// How many times the plugin asked Zellij `query`.
fn asked(p: &McpPlugin<FakeHost>, query: &str) -> usize {
    p.host
        .queries
        .borrow()
        .iter()
        .filter(|q| *q == query)
        .count()
}

#[test]
fn callers_listing_at_once_cost_zellij_one_lookup_until_something_changes() {
    let mut p = plugin("burst");
    // No pane events: the view comes from the session metadata.
    p.view.fed_ms = 0;
    let shown = SessionSnapshot {
        tabs: p.view.tabs.clone(),
        panes: p.view.panes.clone().unwrap(),
        clients: 1,
    };
    *p.host.snapshot.borrow_mut() = Some(shown);
    let list = |p: &mut McpPlugin<FakeHost>, id: &str| {
        let args = json!({"details": true});
        send(p, id, Some(&request(id, "list_panes", args)));
        let panes = result_of::<op::ListPanes>(only_reply(p, id, id)).panes;
        let details = panes[0].details.as_ref().expect("details");
        assert_eq!(details.cwd.as_deref(), Some("/work"), "{id}");
    };
    for n in 0..5 {
        list(&mut p, &format!("burst-{n}"));
    }
    assert_eq!(asked(&p, "session_snapshot"), 1);
    assert_eq!(asked(&p, "cwd terminal_1"), 1);
    assert_eq!(asked(&p, "running_command terminal_1"), 1);

    // Plain text is typed into what runs already: nothing to ask again.
    let text = json!({"pane_id": "terminal_1", "text": "vim"});
    send(&mut p, "t", Some(&request("t", "write", text)));
    list(&mut p, "after-text");
    assert_eq!(asked(&p, "running_command terminal_1"), 1);
    // Enter may start another program: that pane is asked again.
    let write = json!({"pane_id": "terminal_1", "keys": ["Enter"]});
    send(&mut p, "w", Some(&request("w", "write", write)));
    list(&mut p, "after-write");
    assert_eq!(asked(&p, "running_command terminal_1"), 2);

    // A change the plugin made: the next list takes a new snapshot.
    let rename = json!({"pane_id": "terminal_1", "name": "editor"});
    send(&mut p, "r", Some(&request("r", "rename", rename)));
    p.on_timer();
    list(&mut p, "after-rename");
    assert_eq!(asked(&p, "session_snapshot"), 2);
}

#[test]
fn with_no_client_attached_a_wait_looks_when_told_its_pane_changed_and_rarely_else() {
    use crate::state::waits::{RECHECK, UNRENDERED_RECHECK};
    let told = |p: &mut McpPlugin<FakeHost>, id: &str| {
        let args = json!({"pane_id": 1});
        send(p, id, Some(&request(id, "pane_changed", args)));
        result_of::<op::PaneChanged>(only_reply(p, id, id)).looked
    };
    for (clients, every_look) in [(0, RECHECK), (1, UNRENDERED_RECHECK)] {
        let mut p = plugin("told");
        // No pane events: the view, and the clients, come from the metadata.
        p.view.fed_ms = 0;
        *p.host.snapshot.borrow_mut() = Some(SessionSnapshot {
            tabs: p.view.tabs.clone(),
            panes: p.view.panes.clone().unwrap(),
            clients,
        });
        *p.host.screen.borrow_mut() = vec!["$ make".into()];
        let args = json!({"pane_id": 1, "pattern": "done", "changes_told": true});
        send(&mut p, "w", Some(&request("w1", "wait_for", args)));
        assert_eq!(told(&mut p, "t1"), 1, "the subscription's start");
        let now = p.host.clock.now();
        assert_eq!(p.waits.next_due(now), Some(now + every_look), "{clients}");
        p.host.screen.borrow_mut().push("done".into());
        assert_eq!(told(&mut p, "t2"), 1);
        let found = result_of::<op::WaitFor>(only_reply(&p, "w", "w1")).result;
        assert_eq!(found.outcome, WaitOutcome::Matched, "{clients}");
        assert_eq!(told(&mut p, "t3"), 0, "no wait left");
    }
}

#[test]
fn a_requests_id_is_read_from_the_start_of_a_payload_as_a_bridge_writes_it() {
    use crate::entry::pipe::leading_request_id;
    let payload = request("zmcp-1.2-3", "read", json!({}));
    assert_eq!(leading_request_id(&payload), Some("zmcp-1.2-3"));
    for other in [
        r#"{"id":"a","v":1}"#,
        r#"{"v":1,"id":"a\"b"}"#,
        r#"{"v":1,"id":""}"#,
        r#"{"v":1,"id":"cut"#,
        "",
    ] {
        assert_eq!(leading_request_id(other), None, "{other}");
    }
}
