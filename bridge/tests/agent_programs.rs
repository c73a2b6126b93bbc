//! Codex CLI, Gemini CLI, opencode and Qwen Code, each from npm, and aider
//! from PyPI, at the versions the docs name, and askbot, a home-made agent
//! described only in the person's `agents.kdl`, each in a Zellij pane
//! opened without an agent name, against the project's stand-in for its
//! model API, in the mode where it asks before a shell command. Each is
//! told by its own description: its states, a message to its idle composer
//! (several lines, as one message), a message held by a person's draft and
//! by a permission dialog (which it never answers), one sent while it
//! works, and a message whose turn ends in a dialog: no keystroke of its
//! submit is left to answer that. What is checked is what the program did:
//! the model API's requests, the file a command makes. Each, Claude Code
//! too, takes every message after a long answer at 80, 120 and 200 columns.

mod common;

use std::time::{Duration, Instant};

use common::claude::{open_claude, until_sent, ModelApi, NEWEST};
use common::{
    agent_row, bridge, delivered_after, listed_state, logged, mcp, screen, session, times_sent,
    until_state,
};
use serde_json::{json, Value};
use zellij_mcp_harness::programs::{Program, ASKBOT};
use zellij_mcp_harness::{wait_for, AttachedClient, Mcp, Session};

#[test]
fn codex_is_a_peer() {
    a_peer(Program::Codex);
}

#[test]
fn gemini_cli_is_a_peer() {
    a_peer(Program::GeminiCli);
}

#[test]
fn opencode_is_a_peer() {
    a_peer(Program::Opencode);
}

#[test]
fn qwen_code_is_a_peer() {
    a_peer(Program::QwenCode);
}

#[test]
fn aider_is_a_peer() {
    a_peer(Program::Aider);
}

#[test]
fn an_agent_described_in_the_persons_file_is_a_peer() {
    a_peer(Program::Askbot);
}

/// Claude Code's peer scenario is in `messages.rs` and `asking.rs`; here,
/// its long answers at every width, as for the programs above.
#[test]
fn claude_code_takes_each_message_after_a_long_answer_at_every_width() {
    let s: Session = session("widths-claude");
    let (client, _) = s.attach_and_wait();
    let mcp = mcp(&s, "socket");
    let api = ModelApi::start(&s.sandbox().root().join("requests.jsonl"));
    let pane = open_claude(&s, &mcp, &api, NEWEST, "worker");
    until_state(&mcp, &pane, "idle");
    long_answers_at_every_width(&s, &client, &mcp, &pane, &api);
}

fn send(mcp: &Mcp, pane: &str, text: &str, wait_ms: u64) -> Value {
    let args = json!({"to": pane, "text": text, "from": "lead", "wait_ms": wait_ms});
    mcp.ok("zellij_send_message", args)
}

/// Waits until the model API was sent `text`; else fails with the pane's
/// screen and what the model API was sent.
fn sent_or_show(mcp: &Mcp, pane: &str, api: &ModelApi, text: &str) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        let texts = api.user_texts();
        if texts.iter().any(|t| t.contains(text)) {
            return texts;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let all = std::fs::read_to_string(&api.requests).unwrap_or_default();
    panic!(
        "{text:?} never reached the model API:\n{}\nrequests:\n{all}",
        screen(mcp, pane)
    );
}

fn held(sent: &Value, why: &str) {
    assert_eq!(
        (&sent["status"], &sent["held_because"]),
        (&json!("held"), &json!(why)),
        "{sent}"
    );
}

/// The description `zellij-mcp agents` says told `pane`'s state (its rows
/// come from a look up to half a second old, which may predate the state).
fn described_by(s: &Session, pane: &str) -> Value {
    wait_for("the pane in `agents`", Duration::from_secs(10), || {
        let described_by = agent_row(s, pane)?["described_by"].clone();
        described_by.is_string().then_some(described_by)
    })
}

/// Qwen Code, after a few turns, stands its suggested next prompt dim in
/// the empty composer, the cursor at its start: that is no draft, and a
/// message goes (typed over it). A person's draft is still held, also once
/// they moved its cursor back to its start.
fn suggestions_are_no_draft(s: &Session, mcp: &Mcp, pane: &str, api: &ModelApi) {
    wait_for("a suggestion", Duration::from_secs(60), || {
        screen(mcp, pane)
            .contains("STANDIN-SUGGESTION")
            .then_some(())
    });
    assert_eq!(listed_state(mcp, pane), "idle");
    let sent = send(mcp, pane, "over the suggestion", 20000);
    assert_eq!(sent["status"], "delivered", "{sent}");
    let texts = until_sent(api, "over the suggestion");
    let turn = texts
        .iter()
        .find(|t| t.contains("over the suggestion"))
        .unwrap();
    assert!(!turn.contains("STANDIN-SUGGESTION"), "{turn}");
    until_state(mcp, pane, "idle");
    wait_for("a suggestion", Duration::from_secs(60), || {
        screen(mcp, pane)
            .contains("STANDIN-SUGGESTION")
            .then_some(())
    });
    let draft = json!({"pane_id": pane, "text": "my own words"});
    mcp.ok("zellij_write", draft);
    // Once the plugin has looked at the draft, the person moves to its start.
    wait_for("the draft seen", Duration::from_secs(10), || {
        (agent_row(s, pane)?["state"] == "draft").then_some(())
    });
    mcp.ok("zellij_write", json!({"pane_id": pane, "keys": ["Home"]}));
    held(&send(mcp, pane, "not into words", 1500), "draft");
    assert!(screen(mcp, pane).contains("my own words"));
    assert_eq!(times_sent(api, "not into words"), 0);
    mcp.ok(
        "zellij_write",
        json!({"pane_id": pane, "keys": ["End", "Ctrl u"]}),
    );
    let texts = until_sent(api, "not into words");
    let turn = texts.iter().find(|t| t.contains("not into words")).unwrap();
    assert!(!turn.contains("my own words"), "{turn}");
    until_state(mcp, pane, "idle");
}

/// `zellij_ask` of a long reply (of a short one, for a program whose
/// reply is read from its screen, which shows only its last rows).
fn asked_for_a_reply(mcp: &Mcp, pane: &str, api: &ModelApi, program: Program) {
    let on_screen = matches!(program, Program::Askbot | Program::Aider);
    let (prompt, expected) = match on_screen {
        true => ("SAY screen-reply", "STANDIN-SAID screen-reply".to_owned()),
        false => ("LONG please", long_reply()),
    };
    let args = json!({"to": pane, "text": prompt, "from": "lead", "timeout_s": 120});
    let asked = mcp.ok("zellij_ask", args);
    eprintln!("{program:?}: asked in {} ms", asked["elapsed_ms"]);
    assert_eq!(asked["state"], "idle", "{asked}");
    let reply = asked["reply"].as_str().unwrap();
    match on_screen {
        true => {
            assert_eq!(asked["source"], "screen", "{asked}");
            assert!(reply.contains(&expected), "{asked}");
        }
        false => {
            // Or its hooks' last message, where they told no tool call.
            let source = asked["source"].as_str();
            assert!(matches!(source, Some("transcript" | "hook")), "{asked}");
            assert_eq!(reply, expected, "{program:?}");
        }
    }
    assert_eq!(times_sent(api, prompt), 1);

    // A turn a person began, read afterwards.
    let read = json!({"pane_id": pane, "reply": true});
    if on_screen {
        let refused = mcp.err("zellij_read", read);
        assert!(refused.starts_with("unsupported"), "{refused}");
        return;
    }
    let typed = json!({"pane_id": pane, "text": "SAY by-hand", "submit": true});
    mcp.ok("zellij_write", typed);
    until_sent(api, "SAY by-hand");
    let read = wait_for("the person's turn read", Duration::from_secs(30), || {
        let read = mcp.ok("zellij_read", read.clone());
        (read["text"] == "STANDIN-SAID by-hand").then_some(read)
    });
    assert_eq!(read["prompt"], "SAY by-hand", "{read}");
    until_state(mcp, pane, "idle");
}

/// In its pane 80, 120 and 200 columns wide (whole in its tab, the
/// client's window resized), a reply longer than the pane, then three
/// asks: each delivered at once, whatever the program draws beside its
/// composer (opencode's side panel, past 120 columns). Last: the pane is
/// left so.
fn long_answers_at_every_width(
    s: &Session,
    client: &AttachedClient,
    mcp: &Mcp,
    pane: &str,
    api: &ModelApi,
) {
    let columns = || {
        let listed = mcp.ok("zellij_list_panes", json!({"details": true}));
        let panes = listed["panes"].as_array().unwrap().clone();
        let this = panes.into_iter().find(|p| p["pane_id"] == pane);
        this.and_then(|p| p["geometry"]["cols"].as_u64())
    };
    mcp.ok(
        "zellij_arrange_pane",
        json!({"pane_id": pane, "fullscreen": true}),
    );
    for cols in [80u64, 120, 200] {
        client.resize(cols as u16, 50);
        let seen = std::cell::Cell::new(None);
        let asked = std::cell::Cell::new(Instant::now());
        let rows = std::cell::Cell::new(50);
        let sized = zellij_mcp_harness::poll_for(Duration::from_secs(30), || {
            seen.set(columns());
            // Once in a CI run, Zellij kept the tab's old width after a
            // resize; the window resized again, a row taller or shorter,
            // is a new size it lays the tab out for.
            if asked.get().elapsed() > Duration::from_secs(5) {
                rows.set(101 - rows.get());
                client.resize(cols as u16, rows.get());
                asked.set(Instant::now());
            }
            (seen.get()? == cols).then_some(())
        });
        assert!(
            sized.is_some(),
            "{pane} {cols} columns: {:?}\n{}\n{}",
            seen.get(),
            client.screen(),
            zellij_log_lines(s, "tiled_panes")
        );
        let ask = |text: &str| {
            let args = json!({"to": pane, "text": text, "from": "lead", "timeout_s": 60});
            let asked = mcp.ok("zellij_ask", args);
            assert_eq!(asked["state"], "idle", "{cols} columns, {text}: {asked}");
            assert!(
                asked.get("held_because").is_none(),
                "{cols} columns: {asked}"
            );
            assert_eq!(times_sent(api, text), 1, "{cols} columns");
        };
        // The long answer itself: sent, and over once the pane is idle (a
        // reply read from the screen is not whole once it scrolls).
        let long = format!("LONG at {cols}");
        let sent = send(mcp, pane, &long, 20000);
        assert_eq!(
            sent["status"],
            "delivered",
            "{cols} columns: {sent}\n{}",
            screen(mcp, pane)
        );
        until_sent(api, &long);
        until_state(mcp, pane, "idle");
        for n in 1..=3 {
            ask(&format!("SAY after-long-{cols}-{n}"));
        }
    }
}

/// The lines of Zellij's log that name `module`.
fn zellij_log_lines(s: &Session, module: &str) -> String {
    let log = s.sandbox().zellij_log();
    let lines = log.lines().filter(|line| line.contains(module));
    lines.collect::<Vec<_>>().join("\n")
}

/// The stand-in's long reply (`fixtures/long-reply.md`).
fn long_reply() -> String {
    let path = zellij_mcp_harness::workspace_root().join("bridge/tests/fixtures/long-reply.md");
    std::fs::read_to_string(path).unwrap()
}

/// What `zellij-mcp agents --explain` prints for `pane`.
fn explain(s: &Session, pane: &str) -> String {
    let mut explain = std::process::Command::new(bridge());
    explain
        .args(["agents", "--explain", pane])
        .envs(s.sandbox().env());
    let out = explain.output().unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

fn a_peer(program: Program) {
    let s: Session = session(&format!("peer-{program:?}").to_lowercase());
    if program == Program::Askbot {
        let file = s.sandbox().agents_file();
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, ASKBOT).unwrap();
    }
    let (client, _) = s.attach_and_wait();
    let mcp = mcp(&s, "socket");
    let work = s.sandbox().work();
    let api = ModelApi::start(&s.sandbox().root().join("requests.jsonl"));
    let command = program.command(&s, &api, &work);
    let opened = mcp.ok(
        "zellij_new_pane",
        json!({"command": command, "cwd": work, "placement": "tiled"}),
    );
    let pane = opened["pane_id"].as_str().unwrap().to_owned();
    until_state(&mcp, &pane, "idle");
    assert_eq!(listed_state(&mcp, &pane), "idle");
    let description = match program {
        Program::Askbot => "askbot (agents.kdl:2)",
        program => program.description(),
    };
    assert_eq!(described_by(&s, &pane), description);
    // How its description reads the screen, for a person writing one.
    let explained = explain(&s, &pane);
    assert!(
        explained.contains(&format!("state: idle (told by {description})")),
        "{explained}"
    );
    assert!(explained.contains("  composer: rows "), "{explained}");

    // An idle composer: a message of several lines arrives once, whole.
    let sent = send(&mcp, &pane, "note one\nline two", 20000);
    assert_eq!(sent["status"], "delivered", "{sent}");
    let texts = sent_or_show(&mcp, &pane, &api, "note one");
    let turn = texts.iter().find(|t| t.contains("note one")).unwrap();
    assert!(turn.contains("note one\nline two"), "one message: {turn:?}");
    until_state(&mcp, &pane, "idle");
    assert_eq!(times_sent(&api, "note one"), 1);

    // Asked: the reply to the turn the message started, whole, from the
    // program's own record; from its screen where none is known.
    asked_for_a_reply(&mcp, &pane, &api, program);
    let replied = logged(&mcp, "replied");
    let event = replied.iter().find(|e| e["pane_id"] == pane.as_str());
    let first_line = event.expect("a replied event")["first_line"].clone();
    assert!(
        first_line.as_str().is_some_and(|l| !l.is_empty()),
        "{replied:?}"
    );
    let row = agent_row(&s, &pane).expect("its row");
    assert_eq!(row["last_reply"]["first_line"], first_line, "{row}");

    // A person's draft: a message does not send it, and waits.
    let draft = json!({"pane_id": pane, "text": "my own draft"});
    mcp.ok("zellij_write", draft);
    until_state(&mcp, &pane, "draft");
    held(&send(&mcp, &pane, "first note", 1500), "draft");
    assert!(screen(&mcp, &pane).contains("my own draft"));
    assert_eq!(times_sent(&api, "first note"), 0);
    let cleared = Instant::now();
    mcp.ok("zellij_write", json!({"pane_id": pane, "keys": ["Ctrl u"]}));
    let texts = until_sent(&api, "first note");
    eprintln!(
        "{program:?}: a message held by a draft reached the model API {:?} after it was cleared",
        cleared.elapsed()
    );
    let turn = texts.iter().find(|t| t.contains("first note")).unwrap();
    assert!(!turn.contains("my own draft"), "{turn}");
    until_state(&mcp, &pane, "idle");

    // A turn under way: queued by the program, or held until it ends.
    let release = work.join("release");
    let hold = format!("HOLD {}", release.display());
    mcp.ok(
        "zellij_write",
        json!({"pane_id": pane, "text": hold, "submit": true}),
    );
    until_sent(&api, "HOLD");
    until_state(&mcp, &pane, "working");
    let sent = send(&mcp, &pane, "while working", 3000);
    match program.holds_while_working() {
        true => held(&sent, "working"),
        false => assert_eq!(sent["status"], "delivered", "{sent}"),
    }
    std::fs::write(&release, "").unwrap();
    until_sent(&api, "while working");
    until_state(&mcp, &pane, "idle");
    assert_eq!(times_sent(&api, "while working"), 1);

    if program == Program::QwenCode {
        suggestions_are_no_draft(&s, &mcp, &pane, &api);
    }

    // A message whose turn ends in a permission dialog: nothing of its
    // submit is left in the program's input to answer it (a CR that
    // waited there would approve: Enter is Yes in every one of them), and
    // no message or write answers it.
    let made = work.join("made.txt");
    let bash = format!("BASH touch {}", made.display());
    let args = json!({"to": pane, "text": bash, "from": "lead", "timeout_s": 60});
    let asked = mcp.ok("zellij_ask", args);
    assert_eq!(asked["state"], "asking", "{asked}");
    until_state(&mcp, &pane, "asking");
    // Asked while the dialog waits: told at once, the message held.
    let args = json!({"to": pane, "text": "after the dialog", "from": "lead", "timeout_s": 120});
    let asked = mcp.ok("zellij_ask", args);
    assert_eq!(
        (&asked["state"], &asked["held_because"]),
        (&json!("asking"), &json!("asking")),
        "{asked}"
    );
    let held_message = asked["seq"].clone();
    for keys in [
        json!({"keys": ["Enter"]}),
        json!({"text": "y"}),
        json!({"text": "1"}),
    ] {
        let mut write = keys.clone();
        write["pane_id"] = json!(pane);
        let refused = mcp.err("zellij_write", write);
        assert!(refused.starts_with("asking"), "{keys}: {refused}");
    }
    wait_for("the asking event", Duration::from_secs(5), || {
        let asking = logged(&mcp, "asking");
        asking.iter().any(|e| e["pane_id"] == pane).then_some(())
    });
    // No fixed wait here for nothing to answer the dialog: that is checked
    // once the decline below has been read (see there).
    assert!(!made.exists(), "the command ran: the dialog was answered");
    assert_eq!(times_sent(&api, "after the dialog"), 0);
    // Declined on purpose (Esc; aider: n): the message then arrives once.
    let answered = Instant::now();
    let mut decline = match program {
        Program::Aider => json!({"text": "n", "submit": true}),
        _ => json!({"keys": ["Esc"]}),
    };
    decline["pane_id"] = json!(pane);
    decline["answer"] = json!(true);
    mcp.ok("zellij_write", decline);
    until_sent(&api, "after the dialog");
    eprintln!(
        "{program:?}: a message held by a dialog reached the model API {:?} after it was declined",
        answered.elapsed()
    );
    until_state(&mcp, &pane, "idle");
    assert_eq!(times_sent(&api, "after the dialog"), 1);
    // The decline has been read, after anything the ask's submit left in
    // the program's input (it reads in order): nothing answered Yes before
    // it, and the held message was typed only after the answer.
    assert!(!made.exists(), "declined, the command never ran");
    let answered = logged(&mcp, "answered");
    assert_eq!(answered.len(), 1, "{answered:?}");
    delivered_after(&mcp, &held_message, &answered[0]);
    if program == Program::Aider {
        // Each CR it read took a line: an empty one would leave a bare
        // prompt row behind (and one waiting would answer its question).
        let full = mcp.ok("zellij_read", json!({"pane_id": pane, "full": true}));
        let text = full["text"].as_str().unwrap();
        let bare = text.lines().filter(|row| row.trim() == "diff>").count();
        assert_eq!(bare, 1, "empty submissions:\n{text}");
    }
    if program != Program::Askbot {
        long_answers_at_every_width(&s, &client, &mcp, &pane, &api);
    }
}
