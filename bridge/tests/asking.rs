//! `zellij_ask` with real programs (the other programs are asked in
//! `agent_programs.rs`): Claude Code's reply read whole from its record,
//! with the tool it called, also while a person has its pane scrolled up;
//! four Codex agents in one folder asked at once by one caller, and one
//! Codex agent asked by four callers at once, each caller getting the reply
//! to its own message, also while the person's own prompt hook takes
//! seconds.

mod common;

use std::path::Path;

use common::claude::{open_claude, until_sent, ModelApi, NEWEST};
use common::{mcp, open_agent, session, until_state};
use serde_json::{json, Value};
use zellij_mcp::commands::launch::{codex_trusted_hash, CODEX_HOOK_TIMEOUT_S};
use zellij_mcp_harness::programs::{scroll_up, Program};
use zellij_mcp_harness::{workspace_root, Mcp, Session};

fn long_reply() -> String {
    let path = workspace_root().join("bridge/tests/fixtures/long-reply.md");
    std::fs::read_to_string(path).unwrap()
}

fn ask(to: &str, text: &str, from: &str) -> Value {
    json!({"to": to, "text": text, "from": from, "timeout_s": 120})
}

/// The reply, once the ask ended with the turn: read from the record, or
/// the last message its hooks told where they told the turn had no tool
/// call (its record may write it later).
fn replied(asked: &Value) -> String {
    assert_eq!(asked["state"], "idle", "{asked}");
    let source = asked["source"].as_str();
    assert!(matches!(source, Some("transcript" | "hook")), "{asked}");
    asked["reply"].as_str().unwrap().to_owned()
}

#[test]
fn claude_code_answers_whole_from_its_record_even_while_a_person_scrolls_its_pane() {
    let s: Session = session("ask-claude");
    let (mut client, _) = s.attach_and_wait();
    let mcp = mcp(&s, "socket");
    let api = ModelApi::start(&s.sandbox().root().join("requests.jsonl"));
    let pane = open_claude(&s, &mcp, &api, NEWEST, "worker");
    until_state(&mcp, &pane, "idle");

    // A shell call it runs unasked: the text before and after it, and
    // the tool named between.
    let tools = mcp.ok("zellij_ask", ask("worker", "TOOLTEXT echo hi", "lead"));
    let expected = "STANDIN-BEFORE-TOOL: running it.\n\n[tool: Bash]\n\nSTANDIN-AFTER-TOOL: done.";
    assert_eq!(replied(&tools), expected);
    assert_eq!(tools["source"], "transcript", "a tool called: {tools}");

    // A person scrolls its pane up while the turn goes on. (Claude Code
    // draws its whole screen anew and keeps no lines in Zellij's
    // scrollback: nothing scrolls, and the turn goes on in view. Where a
    // pane scrolls, Zellij holds its output until the view returns, the
    // record does not: Gemini CLI's in the hooks tests.)
    let release = s.sandbox().work().join("release");
    let text = format!("LONG HOLD {}", release.display());
    std::thread::scope(|scope| {
        let asking = scope.spawn(|| {
            let asker = common::mcp(&s, "socket");
            asker.ok("zellij_ask", ask("worker", &text, "lead"))
        });
        until_sent(&api, "HOLD");
        let scrolled = scroll_up(&s, &mut client, &mcp, &pane, "LONG HOLD");
        std::fs::write(&release, "").unwrap();
        let asked = asking.join().unwrap();
        assert_eq!(replied(&asked), long_reply());
        if scrolled {
            client.type_keys(b"\x03");
        }
    });
}

/// Codex agents at `work`, each in a pane of its own, idle.
fn codex_agents(s: &Session, mcp: &Mcp, api: &ModelApi, work: &Path, count: usize) -> Vec<String> {
    (0..count)
        .map(|_| open_agent(mcp, &Program::Codex.command(s, api, work), work, None))
        .collect()
}

/// Each caller's ask of `pane`, all at once: (its text, the answer).
fn asked_at_once(s: &Session, pane: &str, callers: usize) -> Vec<(String, Value)> {
    std::thread::scope(|scope| {
        let askers: Vec<_> = (0..callers)
            .map(|i| {
                scope.spawn(move || {
                    let caller = common::mcp(s, "socket");
                    let text = format!("SAY caller-{i}");
                    let asked = caller.ok("zellij_ask", ask(pane, &text, &format!("c{i}")));
                    (text, asked)
                })
            })
            .collect();
        askers.into_iter().map(|a| a.join().unwrap()).collect()
    })
}

#[test]
fn codex_agents_in_one_folder_asked_at_once_each_answer_their_own_caller() {
    let s: Session = session("ask-codex");
    let (_client, _) = s.attach_and_wait();
    let mcp = mcp(&s, "socket");
    let api = ModelApi::start(&s.sandbox().root().join("requests.jsonl"));
    let work = s.sandbox().work();
    let panes = codex_agents(&s, &mcp, &api, &work, 4);

    // One caller, four agents of one program in one folder, at once.
    let calls = panes
        .iter()
        .enumerate()
        .map(|(i, pane)| ("zellij_ask", ask(pane, &format!("SAY agent-{i}"), "lead")))
        .collect();
    for (i, result) in mcp.call_concurrently(calls).into_iter().enumerate() {
        let asked = result.structured_content.expect("a result");
        assert_eq!(replied(&asked), format!("STANDIN-SAID agent-{i}"));
        assert_eq!(asked["pane_id"], panes[i].as_str());
    }

    // Four callers, one agent: its turns in the order of the messages,
    // each caller the reply to its own.
    let replies = asked_at_once(&s, &panes[0], 4);
    let mut seqs = Vec::new();
    for (text, asked) in &replies {
        let word = text.trim_start_matches("SAY ");
        assert_eq!(replied(asked), format!("STANDIN-SAID {word}"));
        seqs.push(asked["seq"].as_u64().unwrap());
    }
    let order: Vec<String> = api
        .user_texts()
        .into_iter()
        .filter(|t| t.contains("SAY caller-"))
        .collect();
    assert_eq!(order.len(), 4, "{order:?}");
    let mut by_seq: Vec<(u64, &str)> = seqs
        .iter()
        .zip(&replies)
        .map(|(seq, (text, _))| (*seq, text.as_str()))
        .collect();
    by_seq.sort();
    for ((_, text), sent) in by_seq.iter().zip(&order) {
        assert!(sent.contains(text), "turns in seq order: {order:?}");
    }
}

#[test]
fn codex_whose_own_prompt_hook_takes_seconds_answers_callers_at_once_each_their_own() {
    let s: Session = session("ask-codex-slow-hook");
    let (_client, _) = s.attach_and_wait();
    let mcp = mcp(&s, "socket");
    let api = ModelApi::start(&s.sandbox().root().join("requests.jsonl"));
    let work = s.sandbox().work();
    let command = Program::Codex.command(&s, &api, &work);
    // The person's own prompt hook, trusted, takes 2 s. Codex runs it
    // after it cleared its composer, before it draws its working sign: a
    // message typed then would join the turn (Enter steers it).
    let config = s.sandbox().root().join("codex-home/.codex/config.toml");
    let (event, hook) = ("UserPromptSubmit", "sleep 2");
    let own = format!(
        "\n[[hooks.{event}]]\n[[hooks.{event}.hooks]]\ntype = \"command\"\ncommand = \"{hook}\"\ntimeout = {CODEX_HOOK_TIMEOUT_S}\n\n\
         [hooks.state.\"{}:user_prompt_submit:0:0\"]\ntrusted_hash = \"{}\"\n",
        config.display(),
        codex_trusted_hash(event, hook)
    );
    let mut toml = std::fs::read_to_string(&config).unwrap();
    toml.push_str(&own);
    std::fs::write(&config, toml).unwrap();
    let pane = open_agent(&mcp, &command, &work, None);

    let replies = asked_at_once(&s, &pane, 2);
    for (text, asked) in &replies {
        let word = text.trim_start_matches("SAY ");
        assert_eq!(replied(asked), format!("STANDIN-SAID {word}"));
        let took = asked["elapsed_ms"].as_u64().unwrap();
        assert!(took >= 2_000, "the person's hook ran: {asked}");
    }
    let turns: Vec<String> = api
        .user_texts()
        .into_iter()
        .filter(|t| t.contains("SAY caller-"))
        .collect();
    assert_eq!(turns.len(), 2, "a turn each: {turns:?}");
}
