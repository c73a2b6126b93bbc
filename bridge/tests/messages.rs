//! Messages between agents on a real session, into a real Ink app
//! (`ink-text-input`): what the app received is what is checked.

mod common;

use std::path::Path;
use std::time::Duration;

use common::*;
use serde_json::{json, Value};
use zellij_mcp_harness::{wait_for, workspace_root, Mcp};

/// The Ink app in the layout's shell pane, appending each submission to
/// `out` as a JSON string; the pane's id.
fn ink_app(mcp: &Mcp, out: &Path) -> String {
    let app = workspace_root().join("bridge/tests/fixtures/ink-echo");
    assert!(
        app.join("node_modules/ink").is_dir(),
        "the Ink fixture is not installed: run `make test-deps`"
    );
    let pane = shell_pane(mcp);
    let command = format!("node {} {}", app.join("echo.mjs").display(), out.display());
    mcp.ok(
        "zellij_write",
        json!({"pane_id": pane, "text": command, "keys": ["Enter"]}),
    );
    wait_for("the Ink prompt", Duration::from_secs(30), || {
        screen(mcp, &pane).contains("READY>").then_some(())
    });
    pane
}

fn pane_number(pane: &str) -> u32 {
    pane.trim_start_matches("terminal_").parse().unwrap()
}

/// The first `count` submissions the app received, decoded; each message
/// takes its submit delay and a quiet time after it.
fn received(out: &Path, count: usize) -> Vec<String> {
    let lines = wait_for(
        &format!("{count} submissions"),
        Duration::from_secs(120),
        || {
            let text = std::fs::read_to_string(out).ok()?;
            let lines: Vec<String> = text.lines().map(str::to_owned).collect();
            (lines.len() >= count).then_some(lines)
        },
    );
    lines
        .iter()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// `[#seq from sender] text` → (seq, sender, text).
fn parse(message: &str) -> (u64, String, String) {
    let rest = message.strip_prefix("[#").expect(message);
    let (seq, rest) = rest.split_once(" from ").expect(message);
    let (from, text) = rest.split_once("] ").expect(message);
    (seq.parse().unwrap(), from.to_owned(), text.to_owned())
}

#[test]
fn messages_from_four_senders_arrive_each_as_one_submit_in_seq_order() {
    let s = session("messages");
    let plain = mcp(&s, "socket");
    let out = s.sandbox().work().join("received.jsonl");
    let pane = ink_app(&plain, &out);
    let target = Mcp::start_in_pane(&bridge(), s.sandbox(), s.name(), pane_number(&pane));
    target.ok("zellij_register_agent", json!({"name": "main"}));

    let senders: Vec<Mcp> = (0..4).map(|_| mcp(&s, "socket")).collect();
    let per_sender = 25;
    std::thread::scope(|scope| {
        for (k, sender) in senders.iter().enumerate() {
            scope.spawn(move || {
                for i in 0..per_sender {
                    let args = json!({"to": "main", "text": format!("{k}-{i}"), "from": format!("s{k}"), "wait_ms": 0});
                    let sent = sender.ok("zellij_send_message", args);
                    assert!(sent["seq"].as_u64().unwrap() > 0, "{sent}");
                }
            });
        }
    });
    let got = received(&out, 4 * per_sender);
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(
        received(&out, 0).len(),
        4 * per_sender,
        "nothing lost, nothing doubled"
    );
    let parsed: Vec<(u64, String, String)> = got.iter().map(|m| parse(m)).collect();
    let seqs: Vec<u64> = parsed.iter().map(|p| p.0).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "seq order: {seqs:?}");
    for k in 0..4 {
        let texts: Vec<&str> = parsed
            .iter()
            .filter(|p| p.1 == format!("s{k}"))
            .map(|p| p.2.as_str())
            .collect();
        let sent: Vec<String> = (0..per_sender).map(|i| format!("{k}-{i}")).collect();
        assert_eq!(texts, sent, "sender s{k}'s messages, in its order");
    }

    // A multi-line message is one submission.
    let sent = plain.ok(
        "zellij_send_message",
        json!({"to": "main", "text": "line one\nline two", "from": "ci", "wait_ms": 10000}),
    );
    assert_eq!(sent["status"], "delivered", "{sent}");
    let got = received(&out, 4 * per_sender + 1);
    let (_, _, text) = parse(&got[4 * per_sender]);
    assert_eq!(text, "line one\nline two");
}

#[test]
fn a_message_waits_for_a_name_that_appears_later_parent_resolves_and_exits_are_told() {
    let s = session("late-agent");
    let plain = mcp(&s, "socket");
    let out = s.sandbox().work().join("received.jsonl");
    let pane = ink_app(&plain, &out);

    let queued = plain.ok(
        "zellij_send_message",
        json!({"to": "main", "text": "are you there", "from": "ci", "wait_ms": 0}),
    );
    assert_eq!(queued["status"], "queued", "{queued}");
    std::thread::sleep(Duration::from_secs(2));
    let target = Mcp::start_in_pane(&bridge(), s.sandbox(), s.name(), pane_number(&pane));
    target.ok("zellij_register_agent", json!({"name": "main"}));
    let got = received(&out, 1);
    assert_eq!(
        parse(&got[0]),
        (
            queued["seq"].as_u64().unwrap(),
            "ci".into(),
            "are you there".into()
        )
    );

    // A child's "parent" is the agent its name is under.
    let child = plain.ok(
        "zellij_new_pane",
        json!({"command": ["sleep", "300"], "agent_name": "main.kid", "placement": "background"}),
    );
    let kid = Mcp::start_in_pane(
        &bridge(),
        s.sandbox(),
        s.name(),
        pane_number(child["pane_id"].as_str().unwrap()),
    );
    let sent = kid.ok(
        "zellij_send_message",
        json!({"to": "parent", "text": "done", "wait_ms": 10000}),
    );
    assert_eq!(sent["status"], "delivered", "{sent}");
    let got = received(&out, 2);
    assert_eq!(
        parse(&got[1]).1,
        "main.kid",
        "the sender is the child's name"
    );
    assert_eq!(parse(&got[1]).2, "done");

    // A named child's exit is told to its parent.
    let ran = plain.ok(
        "zellij_run",
        json!({"command": ["sh", "-c", "exit 3"], "agent_name": "main.job"}),
    );
    assert_eq!(ran["exit_code"], 3, "{ran}");
    let got = received(&out, 3);
    let (_, from, text) = parse(&got[2]);
    assert_eq!(
        (from.as_str(), text.as_str()),
        ("zellij-mcp", "child main.job exited with code 3")
    );
}

#[test]
fn bad_messages_are_refused_with_a_fix_and_nothing_is_typed() {
    let s = session("bad-messages");
    let plain = mcp(&s, "socket");
    let pane = shell_pane(&plain);
    let before = screen(&plain, &pane);
    let cases: [Value; 4] = [
        json!({"to": "has space", "text": "x"}),
        json!({"to": "parent", "text": "x"}),
        json!({"to": pane, "text": "x".repeat(64 * 1024 + 1)}),
        json!({"to": pane, "text": "x", "ttl_s": 0}),
    ];
    for args in cases {
        let error = plain.err("zellij_send_message", args.clone());
        assert!(
            error.starts_with("bad_request:") && error.contains("Fix:"),
            "{args}: {error}"
        );
    }
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(screen(&plain, &pane), before, "nothing was typed");
}
