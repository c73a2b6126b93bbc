//! Agents survive their session: real agent programs, each given a turn
//! that names a word, in a session Zellij saves; the session ended by
//! `zellij kill-session`, or its server killed with SIGKILL; then brought
//! back by attaching a client, as a person does. What is checked is what
//! the programs did: each agent's next request to the model API carries
//! the earlier turn (its conversation is back, not a new one), its name
//! reaches it, and a message queued for it before the end comes once.

mod common;

use std::time::Duration;

use common::claude::{claude_bin, claude_command, ModelApi, NEWEST};
use common::{bridge, mcp};
use serde_json::{json, Value};
use zellij_mcp_harness::programs::Program;
use zellij_mcp_harness::{repo_layout, wait_for, Ending, Mcp, Sandbox, Session};

/// A session Zellij saves every second, with a client attached.
fn kept_session(test: &str) -> Session {
    let name = format!("{test}-{}", std::process::id());
    Sandbox::new()
        .keeping_sessions()
        .start_session(&name, &repo_layout(), true)
}

/// An agent of `program` opened as `name`, idle.
fn open_agent(s: &Session, mcp: &Mcp, api: &ModelApi, program: &str, name: &str) -> String {
    let work = s.sandbox().work().join(name);
    let command = match program {
        "claude" => {
            let program = [
                claude_bin(NEWEST).display().to_string(),
                "--permission-mode".into(),
                "default".into(),
            ];
            claude_command(s, api, &work, &program)
        }
        "codex" => Program::Codex.command(s, api, &work),
        "gemini" => Program::GeminiCli.command(s, api, &work),
        _ => Program::Opencode.command(s, api, &work),
    };
    let args = json!({"command": command, "cwd": work, "placement": "tiled", "agent_name": name});
    let pane = mcp.ok("zellij_new_pane", args)["pane_id"]
        .as_str()
        .unwrap()
        .to_owned();
    common::until_state(mcp, &pane, "idle");
    pane
}

/// The agents' rows, as `zellij-mcp agents --json` prints them.
fn agents(s: &Session) -> Vec<Value> {
    let out = std::process::Command::new(bridge())
        .args(["agents", "--json", "--session", s.name()])
        .envs(s.sandbox().env())
        .output()
        .expect("zellij-mcp agents");
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    rows["agents"].as_array().cloned().unwrap_or_default()
}

fn row<'a>(rows: &'a [Value], name: &str) -> Option<&'a Value> {
    rows.iter().find(|r| r["name"] == name)
}

/// Waits until every agent's conversation is known.
fn until_conversations_known(s: &Session, names: &[&str]) {
    wait_for("each agent's conversation", Duration::from_secs(60), || {
        let rows = agents(s);
        let known = names
            .iter()
            .all(|n| row(&rows, n).is_some_and(|r| r["conversation"].is_string()));
        known.then_some(())
    });
}

/// Waits until Zellij has saved every agent pane.
fn until_saved(s: &Session, count: usize) {
    wait_for("the session saved", Duration::from_secs(30), || {
        let layout = s.saved_layout();
        (layout.matches("start_suspended").count() >= count).then_some(())
    });
}

/// Waits until agent `name` came back `resumed` and reads idle.
fn until_back(s: &Session, name: &str) -> Value {
    let back = zellij_mcp_harness::poll_for(Duration::from_secs(60), || {
        let rows = agents(s);
        let row = row(&rows, name)?;
        (row["back"] == "resumed" && row["state"] == "idle").then(|| row.clone())
    });
    back.unwrap_or_else(|| {
        panic!(
            "{name} did not come back: rows {:?}\npanes {:?}\nlayout {}",
            agents(s),
            s.zellij_panes(),
            s.saved_layout()
        )
    })
}

fn ask(mcp: &Mcp, name: &str, text: &str) -> Value {
    mcp.ok(
        "zellij_ask",
        json!({"to": name, "text": text, "from": "lead", "timeout_s": 120}),
    )
}

/// Each program's turn names a word before the end; after it, its
/// conversation carries the word.
fn survive(test: &str, programs: &[&str], how: Ending) {
    let s = kept_session(test);
    let client = s.attach_and_wait().0;
    let mcp = mcp(&s, "socket");
    let api = ModelApi::start(&s.sandbox().root().join("requests.jsonl"));
    let names: Vec<String> = programs.iter().map(|p| format!("{p}-agent")).collect();
    for (program, name) in programs.iter().zip(&names) {
        open_agent(&s, &mcp, &api, program, name);
        let asked = ask(&mcp, name, &format!("SAY REMEMBER-{program}"));
        assert_eq!(asked["state"], "idle", "{asked}");
    }
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    until_conversations_known(&s, &names);
    until_saved(&s, names.len());
    drop(mcp);
    drop(client);
    s.end(how);

    let _client = s.bring_back();
    let mcp = common::mcp(&s, "socket");
    for (program, name) in programs.iter().zip(&names) {
        let row = until_back(&s, name);
        assert!(row["conversation"].is_string(), "{row}");
        let asked = ask(&mcp, name, &format!("SAY after-{program}"));
        assert_eq!(asked["state"], "idle", "{asked}");
        let carried = api.carried_by(&format!("SAY after-{program}"));
        assert_eq!(
            carried,
            Some(vec![format!("REMEMBER-{program}")]),
            "{name}'s conversation after the restart"
        );
    }
}

#[test]
fn codex_comes_back_in_its_conversation_after_kill_session() {
    survive("back-kill", &["codex"], Ending::KillSession);
}
