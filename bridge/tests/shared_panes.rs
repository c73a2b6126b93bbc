//! Panes people and agents share, with real programs in them: Claude Code
//! (the newest version tested and the first supported) in default
//! permission mode against the stand-in model API. What is checked is what
//! the program did: the model API's requests, a file a command makes, the
//! screen as Zellij has it.

mod common;

use std::time::{Duration, Instant};

use common::claude::{open_claude, until_sent, ModelApi, FIRST, NEWEST};
use common::{
    delivered_after, listed_state, logged, mcp, screen, session, times_sent, until_state,
};
use serde_json::{json, Value};
use zellij_mcp_harness::{wait_for, Mcp, Session};

#[test]
fn the_newest_claude_code_keeps_its_dialogs_and_drafts_to_the_person() {
    dialogs_and_drafts_stay_the_persons(NEWEST);
}

#[test]
fn the_first_claude_code_supported_keeps_its_dialogs_and_drafts_to_the_person() {
    dialogs_and_drafts_stay_the_persons(FIRST);
}

fn send(mcp: &Mcp, text: &str, wait_ms: u64) -> Value {
    let args = json!({"to": "worker", "text": text, "from": "lead", "wait_ms": wait_ms});
    mcp.ok("zellij_send_message", args)
}

fn dialogs_and_drafts_stay_the_persons(fixture: &str) {
    let s: Session = session(&format!("shared-{}", fixture.len()));
    let (_client, _) = s.attach_and_wait();
    let mcp = mcp(&s, "socket");
    let work = s.sandbox().work();
    let api = ModelApi::start(&s.sandbox().root().join("requests.jsonl"));
    let pane = open_claude(&s, &mcp, &api, fixture, "worker");
    until_state(&mcp, &pane, "idle");
    assert_eq!(listed_state(&mcp, &pane), "idle");

    // A person's draft: a message does not send it, and waits.
    mcp.ok(
        "zellij_write",
        json!({"pane_id": pane, "text": "my own draft"}),
    );
    until_state(&mcp, &pane, "draft");
    let sent = send(&mcp, "first note", 1500);
    assert_eq!(
        (&sent["status"], &sent["held_because"]),
        (&json!("held"), &json!("draft")),
        "{sent}"
    );
    assert!(screen(&mcp, &pane).contains("my own draft"));
    assert_eq!(times_sent(&api, "first note"), 0);
    // The person clears it: the message arrives, alone.
    let cleared = Instant::now();
    mcp.ok("zellij_write", json!({"pane_id": pane, "keys": ["Ctrl u"]}));
    let texts = until_sent(&api, "first note");
    eprintln!(
        "{fixture}: the held message reached the model API {:?} after the draft was cleared",
        cleared.elapsed()
    );
    let turn = texts.iter().find(|t| t.contains("first note")).unwrap();
    assert!(!turn.contains("my own draft"), "{turn}");
    // Its turn over: what is typed next starts a turn, not a queued one.
    until_state(&mcp, &pane, "idle");

    // A turn under way: the program queues what is typed.
    let release = work.join("release");
    let hold = format!("HOLD {}", release.display());
    mcp.ok(
        "zellij_write",
        json!({"pane_id": pane, "text": hold, "submit": true}),
    );
    until_sent(&api, "HOLD");
    until_state(&mcp, &pane, "working");
    let sent = send(&mcp, "while working", 10000);
    assert_eq!(sent["status"], "delivered", "{sent}");
    std::fs::write(&release, "").unwrap();
    until_sent(&api, "while working");
    until_state(&mcp, &pane, "idle");

    // A permission dialog: a message is held and does not approve it.
    let made = work.join("made.txt");
    let bash = format!("BASH touch {}", made.display());
    mcp.ok(
        "zellij_write",
        json!({"pane_id": pane, "text": bash, "submit": true}),
    );
    until_state(&mcp, &pane, "asking");
    let sent = send(&mcp, "after the dialog", 1000);
    assert_eq!(
        (&sent["status"], &sent["held_because"]),
        (&json!("held"), &json!("asking")),
        "{sent}"
    );
    let held_message = sent["seq"].clone();
    let refused = mcp.err("zellij_write", json!({"pane_id": pane, "keys": ["Enter"]}));
    assert!(refused.starts_with("asking"), "{refused}");
    wait_for("the asking event", Duration::from_secs(5), || {
        let asking = logged(&mcp, "asking");
        asking.iter().any(|e| e["pane_id"] == pane).then_some(())
    });
    // No fixed wait here for nothing to answer the dialog: that is checked
    // once the Esc below has been read (see there).
    assert!(!made.exists(), "the command ran: the dialog was answered");
    assert_eq!(times_sent(&api, "after the dialog"), 0);
    // Answered on purpose (Esc declines): the message then arrives once.
    let esc = json!({"pane_id": pane, "keys": ["Esc"], "answer": true});
    let answered = Instant::now();
    mcp.ok("zellij_write", esc);
    until_sent(&api, "after the dialog");
    eprintln!(
        "{fixture}: the held message reached the model API {:?} after the dialog was answered",
        answered.elapsed()
    );
    until_state(&mcp, &pane, "idle");
    assert_eq!(times_sent(&api, "after the dialog"), 1);
    // The Esc has been read, after anything the write's submit left in
    // the program's input (it reads in order): nothing answered Yes before
    // it, and the held message was typed only after the answer.
    assert!(!made.exists(), "declined, the command never ran");
    let answered = logged(&mcp, "answered");
    assert_eq!(answered.len(), 1, "{answered:?}");
    delivered_after(&mcp, &held_message, &answered[0]);
    let held = logged(&mcp, "held");
    let reasons: Vec<&Value> = held.iter().map(|e| &e["why"]).collect();
    assert_eq!(reasons, [&json!("draft"), &json!("asking")], "{held:?}");
}
