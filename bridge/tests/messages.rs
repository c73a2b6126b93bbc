//! Messages between agents on a real session, into a real Ink app
//! (`ink-text-input`): what the app received is what is checked.

mod common;

use std::path::Path;
use std::time::Duration;

use common::*;
use serde_json::{json, Value};
use zellij_mcp_harness::{wait_for, workspace_root, Mcp, Session};

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
        screen(mcp, &pane).contains("READY ·").then_some(())
    });
    pane
}

/// The Ink app drawing a bot's plain prompt (`bot> `) in a new pane, named
/// `name` as an agent that reads lines; the pane's id.
fn line_reader(mcp: &Mcp, out: &Path, name: &str) -> String {
    let app = workspace_root().join("bridge/tests/fixtures/ink-echo/echo.mjs");
    let command = [
        "node",
        app.to_str().unwrap(),
        out.to_str().unwrap(),
        "plain",
    ];
    let args =
        json!({"command": command, "placement": "tiled", "agent_name": name, "reads_lines": true});
    let pane = mcp.ok("zellij_new_pane", args)["pane_id"]
        .as_str()
        .unwrap()
        .to_owned();
    wait_for("the bot's prompt", Duration::from_secs(30), || {
        screen(mcp, &pane).contains("bot ready").then_some(())
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

/// Sends `per_sender` messages to `to` from each of four callers at once
/// (`s0` sends `0-0`, `0-1`, ...).
fn from_four_senders(s: &Session, to: &str, per_sender: usize) {
    let senders: Vec<Mcp> = (0..4).map(|_| mcp(s, "socket")).collect();
    std::thread::scope(|scope| {
        for (k, sender) in senders.iter().enumerate() {
            scope.spawn(move || {
                for i in 0..per_sender {
                    let args = json!({"to": to, "text": format!("{k}-{i}"), "from": format!("s{k}"), "wait_ms": 0});
                    let sent = sender.ok("zellij_send_message", args);
                    assert!(sent["seq"].as_u64().unwrap() > 0, "{sent}");
                }
            });
        }
    });
}

/// The messages `got` came in seq order, and each sender's in its order.
fn arrived_in_order(got: &[String], per_sender: usize) {
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
}

#[test]
fn messages_from_four_senders_arrive_each_as_one_submit_in_seq_order() {
    let s = session("messages");
    let plain = mcp(&s, "socket");
    let out = s.sandbox().work().join("received.jsonl");
    let pane = ink_app(&plain, &out);
    let target = Mcp::start_in_pane(&bridge(), s.sandbox(), s.name(), pane_number(&pane));
    target.ok("zellij_register_agent", json!({"name": "main"}));

    let per_sender = 25;
    from_four_senders(&s, "main", per_sender);
    arrived_in_order(&received(&out, 4 * per_sender), per_sender);

    // A multi-line message is one submission.
    let sent = plain.ok(
        "zellij_send_message",
        json!({"to": "main", "text": "line one\nline two", "from": "ci", "wait_ms": 10000}),
    );
    assert_eq!(sent["status"], "delivered", "{sent}");
    let got = received(&out, 4 * per_sender + 1);
    let (_, _, text) = parse(&got[4 * per_sender]);
    assert_eq!(text, "line one\nline two");
    // Each target takes one message at a time, in seq order: with the
    // last one in, a message typed twice would have come before it.
    assert_eq!(
        got.len(),
        4 * per_sender + 1,
        "nothing lost, nothing doubled"
    );
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
    wait_for("the message to be retried", Duration::from_secs(20), || {
        let events = plain.ok("zellij_read_events", json!({}));
        let events = events["events"].as_array()?.clone();
        let retried = events.iter().any(|e| e["event"] == "retry");
        retried.then_some(())
    });
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
    let cases: [Value; 5] = [
        json!({"to": "has space", "text": "x"}),
        json!({"to": "parent", "text": "x"}),
        json!({"to": pane, "text": "x".repeat(64 * 1024 + 1)}),
        json!({"to": pane, "text": "x", "ttl_s": 0}),
        json!({"to": pane, "text": "x", "ttl_s": 86401}),
    ];
    for args in cases {
        let error = plain.err("zellij_send_message", args.clone());
        assert!(
            error.starts_with("bad_request:") && error.contains("Fix:"),
            "{args}: {error}"
        );
    }
    let error = plain.err("zellij_read_events", json!({"max_bytes": 0}));
    assert!(
        error.starts_with("bad_request:") && error.contains("Fix:"),
        "{error}"
    );
    let after = screen_after_marker(&plain, &pane, "typed-last");
    assert_eq!(
        trimmed(&after.replace("typed-last", "")),
        trimmed(&before),
        "nothing was typed"
    );
    let logged = plain.ok("zellij_read_events", json!({}));
    assert_eq!(logged["events"], json!([]), "nothing was logged");
}

/// `zellij_read_events` from the start: (event, message or name) per line.
fn logged(mcp: &Mcp) -> Vec<(String, String)> {
    let read = mcp.ok("zellij_read_events", json!({"max_bytes": 262144}));
    assert_eq!(read["more"], false, "{read}");
    read["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let what = e
                .get("message")
                .or(e.get("name"))
                .cloned()
                .unwrap_or_default();
            (
                e["event"].as_str().unwrap().to_owned(),
                what.to_string().replace('"', ""),
            )
        })
        .collect()
}

/// The log file of `session`, found where Zellij keeps the plugin's cache.
fn log_file(s: &zellij_mcp_harness::Session) -> std::path::PathBuf {
    let name = format!("events-{}.jsonl", s.name());
    let mut dirs = vec![s.sandbox().root().join("cache")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.file_name().is_some_and(|n| n == name.as_str()) {
                return path;
            }
        }
    }
    panic!("no {name} in the sandbox's cache");
}

#[test]
fn the_log_has_every_transition_and_a_reload_requeues_what_was_pending() {
    let s = session("message-log");
    let plain = mcp(&s, "socket");
    // Zellij 0.45.1 reloads a plugin only for a connected client.
    let _client = s.attach_and_wait();
    let uri = format!("zellij://{}/events", s.name());
    assert!(plain.list_resources().contains(&uri));
    plain.subscribe(&uri);

    let first = plain.ok(
        "zellij_send_message",
        json!({"to": "later", "text": "before the reload", "from": "ci", "wait_ms": 0}),
    );
    assert_eq!(first["status"], "queued", "{first}");
    let first_seq = first["seq"].as_u64().unwrap();
    wait_for("a retry in the log", Duration::from_secs(20), || {
        logged(&plain)
            .contains(&("retry".into(), first_seq.to_string()))
            .then_some(())
    });
    wait_for("resources/updated", Duration::from_secs(20), || {
        plain.updated().contains(&uri).then_some(())
    });

    let mut reload = s.sandbox().zellij();
    reload.args(["--session", s.name(), "action", "start-or-reload-plugin"]);
    reload.arg(s.sandbox().plugin_url());
    assert!(reload.status().unwrap().success());
    wait_for("the reloaded plugin", Duration::from_secs(30), || {
        let result = plain.call("zellij_list_panes", json!({}));
        (result.is_error != Some(true)).then_some(())
    });

    // From a shell in the session, through the same path.
    let notify = format!(
        "{} --zellij {} notify --to later --from hook --wait-ms 0 'after the reload'",
        bridge().display(),
        s.sandbox().zellij_path().display()
    );
    let ran = plain.ok(
        "zellij_run",
        json!({"command": ["sh", "-c", notify], "close_on_exit": true}),
    );
    assert_eq!(ran["exit_code"], 0, "{ran}");
    let run_pane = ran["pane_id"].as_str().unwrap().to_owned();
    let printed = ran["output"].as_str().unwrap().trim().to_owned();
    let (second_seq, status) = printed.split_once(' ').expect(&printed);
    let second_seq: u64 = second_seq.parse().expect(&printed);
    assert_eq!(status, "queued");
    assert!(
        second_seq > first_seq,
        "seq goes on: {second_seq} after {first_seq}"
    );

    let out = s.sandbox().work().join("received.jsonl");
    let pane = ink_app(&plain, &out);
    let target = Mcp::start_in_pane(&bridge(), s.sandbox(), s.name(), pane_number(&pane));
    target.ok("zellij_register_agent", json!({"name": "later"}));
    let got: Vec<(u64, String, String)> = received(&out, 2).iter().map(|m| parse(m)).collect();
    assert_eq!(
        got,
        [
            (first_seq, "ci".into(), "before the reload".into()),
            // A shell in a pane is named by its pane, whatever --from says.
            (second_seq, run_pane, "after the reload".into())
        ]
    );

    let log = wait_for("both deliveries logged", Duration::from_secs(20), || {
        let log = logged(&plain);
        let delivered = log.iter().filter(|(event, _)| event == "delivered").count();
        (delivered == 2).then_some(log)
    });
    let kinds_of = |seq: u64| -> Vec<&str> {
        let seq = seq.to_string();
        let mut kinds: Vec<&str> = log
            .iter()
            .filter(|(_, what)| *what == seq)
            .map(|(event, _)| event.as_str())
            .collect();
        kinds.dedup();
        kinds
    };
    assert_eq!(
        kinds_of(first_seq),
        ["queued", "retry", "delivered"],
        "{log:?}"
    );
    assert_eq!(kinds_of(second_seq)[0], "queued");
    assert_eq!(kinds_of(second_seq).last(), Some(&"delivered"));
    assert!(
        log.contains(&("registered".into(), "later".into())),
        "{log:?}"
    );

    let file = std::fs::read_to_string(log_file(&s)).unwrap();
    for line in file.lines() {
        let event: Value = serde_json::from_str(line).expect(line);
        assert!(event["seq"].as_u64().is_some(), "{line}");
    }
    let resource = plain.read_resource(&uri);
    assert_eq!(resource.lines().count(), log.len(), "{resource}");
}

/// The Ink app in a new pane of its own, named `name` once it is ready (as
/// an agent registers itself); the pane's id and the bridge in it.
fn ink_agent(s: &zellij_mcp_harness::Session, mcp: &Mcp, out: &Path, name: &str) -> (String, Mcp) {
    let pane = ink_pane(mcp, out);
    let agent = Mcp::start_in_pane(&bridge(), s.sandbox(), s.name(), pane_number(&pane));
    agent.ok("zellij_register_agent", json!({"name": name}));
    (pane, agent)
}

#[test]
fn a_target_closed_midway_and_started_again_under_its_name_misses_nothing() {
    let s = session("message-restart");
    let plain = mcp(&s, "socket");
    let first_out = s.sandbox().work().join("first.jsonl");
    let (pane, first) = ink_agent(&s, &plain, &first_out, "worker");

    let total = 30;
    let sent: Vec<u64> = std::thread::scope(|scope| {
        let sender = scope.spawn(|| {
            (0..total)
                .map(|n| {
                    let args = json!({"to": "worker", "text": format!("m{n}"), "from": "ci", "wait_ms": 0});
                    std::thread::sleep(Duration::from_millis(100));
                    plain.ok("zellij_send_message", args)["seq"].as_u64().unwrap()
                })
                .collect()
        });
        received(&first_out, 8);
        plain.ok("zellij_close", json!({"pane_id": pane}));
        sender.join().unwrap()
    });
    drop(first);

    // Started again; it takes the name once its app is ready.
    let second_out = s.sandbox().work().join("second.jsonl");
    let (_, _second) = ink_agent(&s, &plain, &second_out, "worker");
    let before = received(&first_out, 0).len();
    // One more, in seq order after the others: once it is in, a message
    // typed twice would have come before it.
    let last = json!({"to": "worker", "text": "last", "from": "ci", "wait_ms": 0});
    let last = plain.ok("zellij_send_message", last)["seq"]
        .as_u64()
        .unwrap();
    let after = received(&second_out, total - before + 1);
    let all: Vec<u64> = received(&first_out, 0)
        .iter()
        .chain(&after)
        .map(|m| parse(m).0)
        .collect();
    let sent: Vec<u64> = sent.into_iter().chain([last]).collect();
    assert_eq!(
        all,
        sent,
        "every message once, in seq order ({} after the restart)",
        after.len()
    );
}

#[test]
fn an_agent_that_reads_lines_gets_messages_from_four_senders_in_order_never_into_a_draft() {
    let s = session("lines");
    let plain = mcp(&s, "socket");
    let out = s.sandbox().work().join("received.jsonl");
    let pane = line_reader(&plain, &out, "bot");
    // At its empty prompt it is idle (told by its prompt line alone).
    until_state(&plain, &pane, "idle");
    assert_eq!(listed_state(&plain, &pane), "idle");
    let per_sender = 25;
    from_four_senders(&s, "bot", per_sender);
    arrived_in_order(&received(&out, 4 * per_sender), per_sender);

    // A half-typed line holds a message, even one sent before the program
    // has drawn it; several lines go as one.
    plain.ok("zellij_write", json!({"pane_id": pane, "text": "my own"}));
    let args = json!({"to": "bot", "text": "first\nsecond", "from": "ci", "wait_ms": 1500});
    let sent = plain.ok("zellij_send_message", args);
    assert_eq!(
        (&sent["status"], &sent["held_because"]),
        (&json!("held"), &json!("draft")),
        "{sent}"
    );
    // Text after the prompt is no state: it may be the agent's own output.
    assert_eq!(listed_state(&plain, &pane), "unknown");
    // The person sends their line: the message follows, alone.
    plain.ok("zellij_write", json!({"pane_id": pane, "keys": ["Enter"]}));
    let got = received(&out, 4 * per_sender + 2);
    assert_eq!(got[4 * per_sender], "my own");
    let last = &got[4 * per_sender + 1];
    assert!(last.ends_with("] first second"), "{last}");
}
