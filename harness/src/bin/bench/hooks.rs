//! Hooks against screens: from the model's last byte to the board telling
//! the agent idle and to `zellij_ask`'s reply, for Claude Code, Codex CLI,
//! Gemini CLI, opencode and Qwen Code started by `zellij_new_pane` (with
//! their hooks, for that launch; Gemini CLI with those setup adds to its
//! settings) and by a shell, as a person starts them (no hooks: their
//! screens tell); the board again with the pane scrolled up while the turn
//! ends, where the program keeps lines in Zellij's scrollback; and what one
//! `zellij-mcp hook` call adds to a turn.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::json;
use zellij_mcp_harness::programs::{scroll_up, ModelApi, Program};
use zellij_mcp_harness::{repo_layout, workspace_root, AttachedClient, Mcp, Sandbox, Session};

use crate::channel::Channel;
use crate::table::{measure, Table};

/// Rounds per program and source: each is a turn of the program's own.
const MOST_ROUNDS: usize = 20;

pub fn hooks(table: &mut Table, bridge: &Path, rounds: usize) {
    table.section("hooks against screens: from the model's last byte, a client attached");
    let session = Sandbox::new().start_session("bench-hooks", &repo_layout(), true);
    let (mut client, _) = session.attach_and_wait();
    let mcp = Mcp::start(bridge, session.sandbox(), &[]);
    let channel = Channel::socket(&session);
    let api = ModelApi::start(&session.sandbox().root().join("requests.jsonl"));
    let turns = rounds.min(MOST_ROUNDS);
    let programs = [
        Program::ClaudeCode,
        Program::Codex,
        Program::GeminiCli,
        Program::Opencode,
        Program::QwenCode,
    ];
    let only = std::env::var("BENCH_PROGRAMS").unwrap_or_default();
    for program in programs {
        if !only.is_empty() && !only.split(',').any(|p| format!("{program:?}") == p) {
            continue;
        }
        if !program.installed() {
            let why = "run `make test-deps`";
            table.figure(&format!("{program:?}"), "not installed", why);
            continue;
        }
        for hooked in [true, false] {
            let how = match hooked {
                true => "hooks (zellij_new_pane)",
                false => "screen (started by a shell)",
            };
            let pane = open(&session, &mcp, &api, program, hooked, bridge);
            let label = format!("{program:?}-{hooked}");
            let board = Board {
                mcp: &mcp,
                channel: &channel,
                api: &api,
                pane: &pane,
                label: &label,
            };
            let what = format!("{program:?}, {how}: the board's idle");
            table.timed(&what, board.in_view(turns), "target ≤ 100 ms from hooks");
            let asks = crate::replies::last_byte_to_reply(&mcp, &api, &pane, program, turns);
            let what = format!("{program:?}, {how}: zellij_ask's reply");
            table.timed(&what, asks, "target ≤ 100 ms from hooks");
            let what = format!("{program:?}, {how}: the board's idle, the pane scrolled up");
            match board.scrolled(&session, &mut client, turns) {
                Ok(times) => {
                    table.timed(&what, times, "target: as in view");
                }
                Err((figure, why)) => table.figure(&what, figure, why),
            }
        }
    }
    hook_call(table, &session, &mcp, bridge, rounds);
}

/// `program` in a tab of its own, idle: opened by `zellij_new_pane`, which
/// gives it hooks (Gemini CLI, which takes none so: by those `zellij-mcp
/// setup` adds to its settings), or (`hooked` false) by a shell that execs
/// it.
fn open(
    session: &Session,
    mcp: &Mcp,
    api: &ModelApi,
    program: Program,
    hooked: bool,
    bridge: &Path,
) -> String {
    let name = format!("{program:?}-{hooked}").to_lowercase();
    let work = session.sandbox().work().join(&name);
    let tab = mcp.ok("zellij_new_tab", json!({"name": name}))["tab_id"].clone();
    let mut command = program.command(session, api, &work);
    if hooked && program == Program::GeminiCli {
        setup_hooks(session, bridge, "gemini-cli");
    }
    if !hooked {
        let shell = ["sh", "-c", "exec \"$@\"", "sh"].map(String::from);
        command.splice(0..0, shell);
    }
    let args = json!({"command": command, "cwd": work, "tab": tab});
    let pane = mcp.ok("zellij_new_pane", args)["pane_id"]
        .as_str()
        .expect("pane id")
        .to_owned();
    crate::programs::until_idle(mcp, &pane);
    pane
}

/// `zellij-mcp setup --yes` as the person whose home is the sandbox's
/// `FIXTURE-home`, with the program of `fixture` installed: its settings
/// get zellij-mcp's hooks.
fn setup_hooks(session: &Session, bridge: &Path, fixture: &str) {
    let root = session.sandbox().root();
    let home = root.join(format!("{fixture}-home"));
    let bin = workspace_root().join(format!("bridge/tests/fixtures/{fixture}/node_modules/.bin"));
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let done = Command::new(bridge)
        .args(["setup", "--yes"])
        .envs(session.sandbox().env())
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("PATH", path)
        .stdin(Stdio::null())
        .output()
        .expect("zellij-mcp setup");
    assert!(done.status.success(), "setup: {done:?}");
}

/// One agent's turns, timed from the model's last byte (as the stand-in
/// logged it) to the `agents` op (the board's rows) telling it idle.
struct Board<'a> {
    mcp: &'a Mcp,
    channel: &'a Channel,
    api: &'a ModelApi,
    pane: &'a str,
    label: &'a str,
}

impl Board<'_> {
    /// Each turn's time, the pane in view.
    fn in_view(&self, turns: usize) -> Vec<Duration> {
        let most = Duration::from_secs(120);
        (0..turns)
            .map(|turn| {
                let text = format!("SAY {}-board-{turn}", self.label);
                self.send(&text);
                let took = self.idle_after(&text, most, false);
                took.unwrap_or_else(|| panic!("{} never idle after {text}", self.pane))
            })
            .collect()
    }

    fn send(&self, text: &str) {
        let args = json!({"to": self.pane, "text": text, "from": "bench", "wait_ms": 10000});
        let sent = self.mcp.ok("zellij_send_message", args);
        assert_eq!(sent["status"], "delivered", "{sent}");
    }

    /// Each turn's time from the model's last byte to the board telling
    /// the pane idle, the turn ended while the client has the pane
    /// scrolled up (Zellij then holds its output); else why not: the board
    /// did not tell it within 10 s (a screen alone cannot), or the pane
    /// cannot be scrolled up.
    fn scrolled(
        &self,
        session: &Session,
        client: &mut AttachedClient,
        turns: usize,
    ) -> Result<Vec<Duration>, (&'static str, &'static str)> {
        let (mcp, pane) = (self.mcp, self.pane);
        // A long reply first, so that there is a page to scroll up to.
        let long = json!({"to": pane, "text": "LONG", "from": "bench", "timeout_s": 120});
        mcp.ok("zellij_ask", long);
        let mut times = Vec::new();
        for turn in 0..turns {
            let release = session
                .sandbox()
                .work()
                .join(format!("release-{}-{turn}", self.label));
            let said = format!("{}-scrolled-{turn}", self.label);
            let text = format!("HOLD {} SAY {said}", release.display());
            self.send(&text);
            until(|| self.api.user_texts().iter().any(|t| t.contains(&text)));
            // A page up (the message no longer in view); the turn ends
            // meanwhile.
            let scrolled = scroll_up(session, client, mcp, pane, &said);
            std::fs::write(&release, "").expect("the release file");
            if !scrolled {
                crate::programs::until_idle(mcp, pane);
                return Err(("no scrollback", "the program keeps no lines in Zellij's scrollback: its pane cannot be scrolled up"));
            }
            // A view scrolled up may show an older idle: only an idle told
            // since the model's last byte counts.
            let told = self.idle_after(&text, Duration::from_secs(10), true);
            // Ctrl c in scroll mode: the view back at the bottom.
            client.type_keys(b"\x03");
            let early = told.is_none() && self.idle_since().is_some();
            match told {
                Some(took) => times.push(took),
                None if early => {
                    crate::programs::until_idle(mcp, pane);
                    return Err((
                        "told early",
                        "idle before the model's last byte: the view scrolled up read as idle",
                    ));
                }
                None => {
                    crate::programs::until_idle(mcp, pane);
                    return Err(("not told", "within 10 s of the model's last byte"));
                }
            }
        }
        Ok(times)
    }

    /// The time from the model's last byte for `text` to the board telling
    /// the pane idle (`since` that byte: idle since no earlier), asked
    /// every 5 ms, within `most` of that byte.
    fn idle_after(&self, text: &str, most: Duration, since: bool) -> Option<Duration> {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            assert!(
                Instant::now() < deadline,
                "{} never answered {text}",
                self.pane
            );
            let finished = self.api.finished_at(text);
            let idle_since = self.idle_since();
            let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
            if let Some(finished) = finished {
                let idle = idle_since.is_some_and(|ms| !since || ms / 1000.0 >= finished);
                let took = now.saturating_sub(Duration::from_secs_f64(finished));
                if idle {
                    return Some(took);
                }
                if took > most {
                    return None;
                }
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Since when (Unix ms) the board tells the pane idle, if it does.
    fn idle_since(&self) -> Option<f64> {
        let rows = self.channel.call("agents", json!({}));
        let rows = rows["agents"].as_array().cloned().unwrap_or_default();
        rows.iter()
            .find(|row| row["pane_id"] == self.pane && row["state"] == "idle")
            .and_then(|row| row["since_ms"].as_f64())
    }
}

/// Waits, every 5 ms, until `done` (two minutes at most).
fn until(done: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while !done() {
        assert!(Instant::now() < deadline, "timed out");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// What a program waits for when it runs the hook: `zellij-mcp hook` with
/// a turn's end, for a shell pane, to its return.
fn hook_call(table: &mut Table, session: &Session, mcp: &Mcp, bridge: &Path, rounds: usize) {
    let listed = mcp.ok("zellij_list_panes", json!({}));
    let shell = listed["panes"].as_array().and_then(|panes| {
        let pane = panes.iter().find(|p| p["tab_id"] == 0)?;
        pane["pane_id"]
            .as_str()?
            .strip_prefix("terminal_")
            .map(String::from)
    });
    let shell = shell.expect("the layout's shell pane");
    let payload = json!({
        "hook_event_name": "Stop",
        "session_id": "bench",
        "last_assistant_message": "a turn's last words",
    })
    .to_string();
    let took = measure(rounds, || {
        let mut hook = Command::new(bridge)
            .arg("hook")
            .env("ZELLIJ_SESSION_NAME", session.name())
            .env("ZELLIJ_PANE_ID", &shell)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("zellij-mcp hook");
        let mut stdin = hook.stdin.take().expect("its stdin");
        stdin.write_all(payload.as_bytes()).expect("the payload");
        drop(stdin);
        assert!(hook.wait().expect("its exit").success());
    });
    let what = "`zellij-mcp hook`, a turn's end told, as the program waits for it";
    table.timed(what, took, "target ≤ 20 ms p95");
}
