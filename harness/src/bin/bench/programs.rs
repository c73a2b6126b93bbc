//! Agent programs: a message into each one's idle composer beside a
//! `zellij_write` submit of the same text into the same pane, and an ask
//! (Codex CLI, Gemini CLI, opencode and Qwen Code for real, against the
//! stand-in model API); and
//! the `agents` op with 50 agents of the four programs, against 50 of
//! Claude Code alone.

use std::path::Path;
use std::time::Duration;

use serde_json::json;
use zellij_mcp_harness::programs::{ModelApi, Program};
use zellij_mcp_harness::{repo_layout, wait_for, Mcp, Sandbox, Session};

use crate::channel::Channel;
use crate::table::{measure, Stats, Table};

/// Rounds per program: each is a turn of the program's own.
const MOST_ROUNDS: usize = 20;

pub fn deliveries(table: &mut Table, bridge: &Path, rounds: usize) {
    table.section("a message into each agent program's idle composer, a client attached");
    let session = Sandbox::new().start_session("bench-programs", &repo_layout(), true);
    let (_client, _) = session.attach_and_wait();
    let mcp = Mcp::start(bridge, session.sandbox(), &[]);
    let api = ModelApi::start(&session.sandbox().root().join("requests.jsonl"));
    for program in [
        Program::Codex,
        Program::GeminiCli,
        Program::Opencode,
        Program::QwenCode,
    ] {
        if !program.installed() {
            table.figure(
                &format!("{program:?}"),
                "not installed",
                "run `make test-deps`",
            );
            continue;
        }
        let pane = open(&session, &mcp, &api, program);
        let mut turn = 0;
        // Each call's text reaches the model, and the program is idle
        // again, before the next one starts.
        let mut one = |call: &dyn Fn(&str)| {
            turn += 1;
            // Named for the program: the model API serves every program.
            let text = format!("bench {program:?} turn {turn}");
            let took = measure(1, || call(&text))[0];
            wait_for(&text, Duration::from_secs(60), || {
                api.user_texts()
                    .iter()
                    .any(|t| t.contains(&text))
                    .then_some(())
            });
            until_idle(&mcp, &pane);
            took
        };
        let submit = |text: &str| {
            let args = json!({"pane_id": pane, "text": text, "submit": true});
            mcp.ok("zellij_write", args);
        };
        let message = |text: &str| {
            let args = json!({"to": pane, "text": text, "from": "bench", "wait_ms": 10000});
            let sent = mcp.ok("zellij_send_message", args);
            assert_eq!(sent["status"], "delivered", "{sent}");
        };
        let (mut submits, mut messages) = (Vec::new(), Vec::new());
        for _ in 0..rounds.min(MOST_ROUNDS) {
            submits.push(one(&submit));
            messages.push(one(&message));
        }
        let submitted = table.timed(&format!("{program:?}: zellij_write submit"), submits, "");
        let delivered = table.timed(&format!("{program:?}: zellij_send_message"), messages, "");
        table.note(&format!(
            "{:.2}× the submit (target ≤ 1.1×)",
            delivered.p50 / submitted.p50
        ));
        let rounds = rounds.min(MOST_ROUNDS);
        let asks = crate::replies::last_byte_to_reply(&mcp, &api, &pane, program, rounds);
        let what = format!("{program:?}: zellij_ask, the model's last byte to the reply");
        table.timed(&what, asks, "target ≤ 250 ms");
    }
}

/// `program` in a tab of its own, idle.
fn open(session: &Session, mcp: &Mcp, api: &ModelApi, program: Program) -> String {
    let name = format!("{program:?}").to_lowercase();
    let work = session.sandbox().work().join(&name);
    let tab = mcp.ok("zellij_new_tab", json!({"name": name}))["tab_id"].clone();
    let command = program.command(session, api, &work);
    let args = json!({"command": command, "cwd": work, "tab": tab});
    let pane = mcp.ok("zellij_new_pane", args)["pane_id"]
        .as_str()
        .expect("pane id")
        .to_owned();
    until_idle(mcp, &pane);
    pane
}

/// Waits until the program in `pane` is idle; a first start after its
/// install can take a minute on a loaded machine.
pub fn until_idle(mcp: &Mcp, pane: &str) {
    let args = json!({"pane_id": pane, "until_state": "idle", "timeout_ms": 180000});
    let waited = mcp.ok("zellij_wait_for", args);
    if waited["outcome"] != "state" {
        let screen = mcp.ok("zellij_read", json!({"pane_id": pane}));
        panic!(
            "{pane} never idle: {waited}\nits screen:\n{}",
            screen["text"]
        );
    }
}

/// Draws the idle screen of the program named by `$1` (as its panes show
/// it), and again at a new size.
const IDLE_SCREENS: &str = r#"case "$1" in
  claude) screen='\n────────────────────────────────────────\n❯ \n────────────────────────────────────────\n  ? for shortcuts\n' ;;
  codex) screen='\n  >_ OpenAI Codex (v0.169.0)\n     ~/project\n\n\n› Ask Codex to do anything\n\n  standin-model default · ~/project\n  ? for shortcuts\n' ;;
  gemini) screen='\n────────────────────────────────────────\n Shift+Tab to accept edits\n\n >   Type your message or @path/to/file\n\n ~/project      no sandbox      Auto\n' ;;
  opencode) screen='\n  ┃\n  ┃  Ask anything…\n  ┃\n  ┃  Build · Claude Sonnet 4.5 Anthropic\n  ╹▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀\n   ~/project      ctrl+p commands\n' ;;
esac
shown=
trap 'shown=' WINCH
while :; do
  [ -z "$shown" ] && shown=1 && printf "\033[2J\033[H$screen"
  sleep 600 & wait $!
done
"#;

/// The `agents` op with 50 agents of Claude Code, Codex CLI, Gemini CLI and
/// opencode in turn (their idle screens, each pane's process named for its
/// program), beside `claude_50`: its p50 with 50 of Claude Code.
pub fn mixed_agents(table: &mut Table, bridge: &Path, rounds: usize, claude_50: Stats) {
    let session = Sandbox::new().start_session("bench-mixed", &repo_layout(), true);
    let (_client, _) = session.attach_and_wait();
    let mcp = Mcp::start(bridge, session.sandbox(), &[]);
    let channel = Channel::socket(&session);
    let script = session.sandbox().work().join("idle.sh");
    std::fs::create_dir_all(session.sandbox().work()).expect("work folder");
    std::fs::write(&script, IDLE_SCREENS).expect("idle screens");
    let programs = ["claude", "codex", "gemini", "opencode"];
    for n in 0..50 {
        let tab = format!("agents-{}", n / 10);
        if n % 10 == 0 {
            mcp.ok("zellij_new_tab", json!({"name": tab}));
        }
        let program = programs[n % programs.len()];
        // The process is named for its program, as the real one's is.
        let exec = format!("exec -a {program} sh {} {program}", script.display());
        let args = json!({"tab": tab, "command": ["bash", "-c", exec], "placement": "background"});
        mcp.ok("zellij_new_pane", args);
    }
    wait_for("the 50 agents idle", Duration::from_secs(90), || {
        let rows = channel.call("agents", json!({}));
        let idle = rows["agents"].as_array()?.iter();
        (idle.filter(|a| a["state"] == "idle").count() == 50).then_some(())
    });
    let took = measure(rounds, || {
        channel.call("agents", json!({}));
    });
    let mixed = table.timed(
        "`agents` straight to the plugin, 50 agents of 4 programs",
        took,
        "",
    );
    table.note(&format!(
        "{:.2}× 50 of Claude Code (target ≤ 1.25×)",
        mixed.p50 / claude_50.p50
    ));
}
