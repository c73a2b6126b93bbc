//! No call may hurt another caller: oversized requests, costly patterns,
//! one caller at its caps, escape sequences and forged senders in
//! messages. Each runs against a live session while another bridge keeps
//! working.

mod common;

use std::time::{Duration, Instant};

use common::*;
use serde_json::{json, Value};
use zellij_mcp_harness::{wait_for, Mcp};

/// A pane that prints a numbered line every 50 ms, forever.
fn printing_pane(mcp: &Mcp) -> String {
    let script = "i=0; while true; do i=$((i+1)); echo \"line $i abcdefghijklmnopqrstuvwxyz\"; sleep 0.05; done";
    let pane = mcp.ok(
        "zellij_new_pane",
        // Not relayed: the plugin's waits are what is tested.
        json!({"command": ["sh", "-c", script], "placement": "floating", "relay": false}),
    );
    pane["pane_id"].as_str().unwrap().to_owned()
}

/// How long the slowest of `count` screen reads of `pane` took.
fn slowest_read(mcp: &Mcp, pane: &str, count: usize) -> Duration {
    (0..count)
        .map(|_| {
            let started = Instant::now();
            mcp.ok("zellij_read", json!({"pane_id": pane}));
            started.elapsed()
        })
        .max()
        .unwrap_or_default()
}

#[test]
fn an_oversized_request_is_refused_before_it_is_decoded_and_the_plugin_goes_on() {
    let s = session("oversized");
    let first = mcp(&s, "socket");
    let other = mcp(&s, "socket");
    let pane = shell_pane(&other);
    let huge = "x".repeat(3 * 1024 * 1024);

    // Through a bridge: refused there, naming the field and its cap.
    let error = first.err("zellij_list_panes", json!({"title": huge}));
    assert!(
        error.starts_with("bad_request:") && error.contains("`title`") && error.contains("4096"),
        "{error}"
    );

    // Straight to the plugin, as any `zellij pipe` user could send it.
    let request = json!({"v": 1, "id": "raw-1", "op": "list_panes", "args": {"title": huge}});
    let line = format!("{request}\n").into_bytes();
    let url = s.sandbox().plugin_url();
    let out = s
        .pipe_lines(&url, line, Duration::from_secs(60))
        .expect("zellij pipe finished");
    let reply = String::from_utf8_lossy(&out.stdout);
    assert!(
        reply.contains("\"bad_request\"") && reply.contains("at most 1048576"),
        "the plugin refused it by size: {reply}"
    );

    // Every caller goes on: the plugin did not run out of memory.
    let listed = other.ok("zellij_list_panes", json!({}));
    assert!(listed["panes"].as_array().is_some_and(|p| !p.is_empty()));
    first.ok("zellij_read", json!({"pane_id": pane}));
}

#[test]
fn costly_patterns_are_refused_or_bounded_and_other_readers_stay_fast() {
    let s = session("patterns");
    let waiter = mcp(&s, "socket");
    let reader = mcp(&s, "socket");
    let pane = printing_pane(&waiter);
    let quiet = shell_pane(&reader);
    let stop =
        |count: usize| -> Vec<String> { (0..count).map(|i| format!(r"\w{{20}}{i}")).collect() };

    let error = waiter.err(
        "zellij_wait_for",
        json!({"pane_id": pane, "stop": stop(24), "timeout_ms": 3000}),
    );
    assert!(error.contains("at most 16"), "{error}");
    let error = waiter.err(
        "zellij_wait_for",
        json!({"pane_id": pane, "pattern": r"(?u)\w{20}0", "timeout_ms": 3000}),
    );
    assert!(
        error.starts_with("bad_request:") && error.contains("simplify"),
        "{error}"
    );

    // The most patterns a wait takes, each alone costly for a backtracking
    // or lazy engine, on a pane that never stops printing.
    let before = slowest_read(&reader, &quiet, 10);
    let (waited, during) = std::thread::scope(|scope| {
        let waiting = scope.spawn(|| {
            let started = Instant::now();
            let args = json!({"pane_id": pane, "stop": stop(15), "pattern": "never printed", "timeout_ms": 3000});
            let result = waiter.ok("zellij_wait_for", args);
            (started.elapsed(), result)
        });
        until_waiting(&reader, 1);
        let during = slowest_read(&reader, &quiet, 20);
        (waiting.join().unwrap(), during)
    });
    let (elapsed, result) = waited;
    assert_eq!(result["outcome"], "timeout", "{result}");
    assert!(
        elapsed < Duration::from_secs(8),
        "a 3 s wait took {elapsed:?}"
    );
    assert!(
        during < Duration::from_secs(1),
        "reads of another pane took up to {during:?} during the wait (before: {before:?})"
    );
    reader.ok("zellij_list_panes", json!({}));
}

#[test]
fn one_caller_at_its_wait_cap_leaves_another_room() {
    let s = session("wait-shares");
    let greedy = mcp(&s, "socket");
    let other = mcp(&s, "socket");
    let pane = shell_pane(&other);
    let never = json!({"pane_id": pane, "pattern": "never printed", "timeout_ms": 6000});
    let results = std::thread::scope(|scope| {
        let greedy_calls = scope.spawn(|| {
            let calls = (0..17)
                .map(|_| ("zellij_wait_for", never.clone()))
                .collect();
            greedy.call_concurrently(calls)
        });
        wait_for("the greedy waits", Duration::from_secs(20), || {
            let info = other.ok("zellij_session_info", json!({}));
            (info["active_waits"] == 16).then_some(())
        });
        // Another caller's wait still starts, and sees what it waits for.
        let started = Instant::now();
        let own = scope.spawn(|| {
            other.ok(
                "zellij_wait_for",
                json!({"pane_id": pane, "pattern": "theirs-\\d+", "timeout_ms": 20000}),
            )
        });
        until_waiting(&other, 17);
        type_line(&other, &pane, "echo theirs-$((40+2))");
        let own = own.join().unwrap();
        assert_eq!(own["outcome"], "matched", "{own}");
        assert!(
            started.elapsed() < Duration::from_secs(6),
            "it did not queue"
        );
        greedy_calls.join().unwrap()
    });
    let busy: Vec<String> = results
        .iter()
        .filter(|r| r.is_error == Some(true))
        .map(zellij_mcp_harness::text_of)
        .collect();
    assert_eq!(busy.len(), 1, "exactly one over the share: {busy:?}");
    assert!(
        busy[0].starts_with("busy:") && busy[0].contains("this client has 16 waits"),
        "{busy:?}"
    );
}

#[test]
fn a_message_with_escapes_and_a_forged_sender_arrives_as_plain_text_from_its_real_sender() {
    let s = session("forged");
    let outside = mcp(&s, "socket");
    let shell = shell_pane(&outside);
    let out = s.sandbox().work().join("received.jsonl");
    std::fs::create_dir_all(s.sandbox().work()).unwrap();
    let ink = ink_pane(&outside, &out);
    let sender = Mcp::start_in_pane(&bridge(), s.sandbox(), s.name(), pane_number(&shell));

    let text = "hello\u{1b}[Z\rworld";
    let sent = sender.ok(
        "zellij_send_message",
        json!({"to": ink, "text": text, "from": "zellij-mcp", "wait_ms": 10000}),
    );
    assert_eq!(sent["status"], "delivered", "{sent}");
    assert_eq!(sent["from"], shell, "{sent}");
    let seq = sent["seq"].as_u64().unwrap();
    // The app got one submission, plain: no escape, and no early submit.
    let expected = format!("[#{seq} from {shell}] hello[Zworld");
    let received = file_lines(&out, 1);
    assert_eq!(received, [json!(expected).to_string()]);
    let catv = ink;

    // A caller outside any pane may name itself, but not as the server
    // or as an agent.
    for from in ["zellij-mcp", "outside"] {
        let error = outside.err(
            "zellij_send_message",
            json!({"to": catv, "text": "x", "from": from}),
        );
        assert!(error.contains("reserved"), "{from}: {error}");
    }
    // Nor may a message go to the sender's own pane.
    let error = sender.err("zellij_send_message", json!({"to": shell, "text": "me"}));
    assert!(error.contains("own pane"), "{error}");
    let error = sender.err(
        "zellij_arrange_pane",
        json!({"pane_id": shell, "floating": true}),
    );
    assert!(error.contains("own pane"), "{error}");

    // The plugin itself refuses a caller's own pane, whoever sends the request.
    let raw = json!({"v": 1, "id": "raw-own", "op": "write", "caller": shell,
                     "args": {"pane_id": shell, "text": "typed-by-raw"}});
    let reply = raw_request(&s, &raw).join("\n");
    assert!(reply.contains("own pane"), "{reply}");
    let after = screen_after_marker(&outside, &shell, "typed-last");
    assert!(!after.contains("typed-by-raw"), "{after}");
}

#[test]
fn a_caller_cancels_its_own_queued_messages_and_no_one_elses() {
    let s = session("cancel");
    let first = mcp(&s, "socket");
    let other = mcp(&s, "socket");
    let queue = |mcp: &Mcp, text: &str| -> u64 {
        let sent = mcp.ok(
            "zellij_send_message",
            json!({"to": "nobody-yet", "text": text, "from": "ci", "wait_ms": 0}),
        );
        assert_eq!(sent["status"], "queued", "{sent}");
        sent["seq"].as_u64().unwrap()
    };
    let (a, b) = (queue(&first, "one"), queue(&first, "two"));
    let theirs = queue(&other, "three");
    let error = first.err("zellij_cancel_messages", json!({"seq": theirs}));
    assert!(error.starts_with("bad_request:"), "{error}");
    let cancelled = first.ok("zellij_cancel_messages", json!({}));
    assert_eq!(cancelled["cancelled"], json!([a, b]));
    let events = other.ok("zellij_read_events", json!({}));
    let cancelled_in_log: Vec<Value> = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["event"] == "cancelled")
        .map(|e| e["message"].clone())
        .collect();
    assert_eq!(cancelled_in_log, [json!(a), json!(b)]);
}

fn pane_number(pane: &str) -> u32 {
    pane.trim_start_matches("terminal_").parse().unwrap()
}
