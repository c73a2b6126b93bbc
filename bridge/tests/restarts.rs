//! Agents survive their session: real agent programs, each given a turn
//! that names a word, in a session Zellij saves; the session ended by
//! `zellij kill-session`, or its server killed with SIGKILL; then brought
//! back by attaching a client, as a person does. What is checked is what
//! the programs did: each agent's next request to the model API carries
//! the earlier turn (its conversation is back, not a new one), its name
//! reaches it, and a message queued for it before the end comes once; an
//! agent whose program quit reads `exited` and `agents resume` brings it
//! back in its conversation.

mod common;

use std::time::Duration;

use common::claude::{claude_bin, claude_command, until_sent, ModelApi, NEWEST};
use common::{bridge, mcp};
use serde_json::{json, Value};
use zellij_mcp_harness::programs::Program;
use zellij_mcp_harness::{repo_layout, wait_for, Ending, Mcp, Sandbox, Session};

/// A session Zellij saves every second.
fn kept_session(test: &str) -> Session {
    let name = format!("{test}-{}", std::process::id());
    Sandbox::new()
        .keeping_sessions()
        .start_session(&name, &repo_layout(), true)
}

/// A session whose plugin calls an agent `stalled` after 2 s.
fn impatient_session(test: &str) -> Session {
    let name = format!("{test}-{}", std::process::id());
    let sandbox = Sandbox::new();
    let layout = std::fs::read_to_string(repo_layout()).unwrap();
    let plugin = "plugin location=\"file:~/.local/share/zellij-mcp/zellij-mcp.wasm\"";
    assert!(
        layout.contains(plugin),
        "the repo's layout loads the plugin"
    );
    let layout = layout.replace(plugin, &format!("{plugin} {{ stalled_after_s \"2\"; }}"));
    let path = sandbox.root().join("impatient.kdl");
    std::fs::write(&path, layout).unwrap();
    sandbox.start_session(&name, &path, true)
}

/// How a person may launch an agent: each form puts `-u ZELLIJ` in the
/// command's `env` (a variable every pane has) and wraps it otherwise.
#[derive(Clone, Copy, Debug)]
enum Launcher {
    Env,
    Stdbuf,
    Nice,
    ShellExec,
}

impl Launcher {
    fn wrap(self, mut command: Vec<String>) -> Vec<String> {
        assert_eq!(command[0], "env", "{command:?}");
        command.splice(1..1, ["-u".to_owned(), UNSET.to_owned()]);
        let front: &[&str] = match self {
            Launcher::Env => &[],
            Launcher::Stdbuf => &["stdbuf", "-oL"],
            Launcher::Nice => &["nice", "-n", "1"],
            Launcher::ShellExec => {
                let quoted: Vec<String> = command.iter().map(|w| format!("'{w}'")).collect();
                return vec![
                    "bash".into(),
                    "-c".into(),
                    format!("exec {}", quoted.join(" ")),
                ];
            }
        };
        front.iter().map(|w| w.to_string()).chain(command).collect()
    }
}

/// The variable every launcher form unsets.
const UNSET: &str = "ZELLIJ";

/// The pid of agent `name`'s pane's process.
fn agent_pid(s: &Session, name: &str) -> u32 {
    // Listed once Zellij has told the plugin of its pane (its events may
    // come after the agent already answered).
    let pane = wait_for(&format!("{name}'s row"), Duration::from_secs(30), || {
        let rows = agents(s);
        row(&rows, name)?["pane_id"].as_str().map(str::to_owned)
    });
    let mcp = mcp(s, "socket");
    let read = mcp.ok("zellij_read", json!({"pane_id": pane, "tail_lines": 1}));
    read["pid"].as_u64().expect("the pane's pid") as u32
}

/// A process's start (clock ticks after boot), while it runs.
fn started(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = stat
        .get(stat.rfind(')')? + 1..)?
        .split_whitespace()
        .collect();
    (fields.first() != Some(&"Z")).then(|| fields.get(19)?.parse().ok())?
}

/// The processes of agent `name`'s program (its pane's process and those
/// under it that run the same program, as Gemini CLI's relaunched one
/// does), with their starts.
fn program_processes(s: &Session, name: &str) -> (String, Vec<(u32, u64)>) {
    let root = agent_pid(s, name);
    let own = program_of(root).expect("its program");
    let (mut tree, mut at) = (vec![root], 0);
    while at < tree.len() {
        let children = format!("/proc/{}/task/{}/children", tree[at], tree[at]);
        let children = std::fs::read_to_string(children).unwrap_or_default();
        tree.extend(
            children
                .split_whitespace()
                .filter_map(|c| c.parse::<u32>().ok()),
        );
        at += 1;
    }
    let processes = tree
        .into_iter()
        .filter(|p| program_of(*p).as_ref() == Some(&own))
        .filter_map(|p| Some((p, started(p)?)))
        .collect();
    (own, processes)
}

/// The program `pid` runs, as the launcher names it.
fn program_of(pid: u32) -> Option<String> {
    let line = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let words: Vec<String> = line
        .split(|b| *b == 0)
        .filter(|w| !w.is_empty())
        .map(|w| String::from_utf8_lossy(w).into_owned())
        .collect();
    zellij_mcp_protocol::launcher::program_name(&words)
}

/// Processes (pid, start).
type Processes = Vec<(u32, u64)>;

/// The processes now running `program` with a home under `root` (this
/// test's, not another's), with their starts.
fn running(program: &str, root: &std::path::Path) -> Vec<(u32, u64)> {
    let home = format!("HOME={}", root.display());
    let ours = |pid: u32| {
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        environ
            .split(|b| *b == 0)
            .any(|pair| pair.starts_with(home.as_bytes()))
    };
    let all = std::fs::read_dir("/proc").unwrap();
    all.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|p| program_of(*p).as_deref() == Some(program) && ours(*p))
        .filter_map(|p| Some((p, started(p)?)))
        .collect()
}

/// Watches, until `done`, for a moment when a process of an agent's
/// program from before runs beside a new one: what it saw then.
fn overlaps(
    before: &[(String, Vec<(u32, u64)>)],
    root: &std::path::Path,
    done: &std::sync::atomic::AtomicBool,
) -> Vec<(String, Processes, Processes)> {
    let mut seen = Vec::new();
    while !done.load(std::sync::atomic::Ordering::Relaxed) {
        for (program, old) in before {
            let program = program.clone();
            let alive: Vec<(u32, u64)> = old
                .iter()
                .filter(|(pid, start)| started(*pid) == Some(*start))
                .copied()
                .collect();
            let new: Vec<(u32, u64)> = running(&program, root)
                .into_iter()
                .filter(|p| !old.contains(p))
                .collect();
            if !alive.is_empty() && !new.is_empty() {
                seen.push((program, alive, new));
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    seen
}

/// Sets its flag when dropped.
struct DoneOnDrop<'a>(&'a std::sync::atomic::AtomicBool);

impl Drop for DoneOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// The environment of the program in agent `name`'s pane.
fn agent_environment(s: &Session, name: &str) -> std::collections::BTreeMap<String, String> {
    let pid = agent_pid(s, name);
    let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
    environ
        .split(|b| *b == 0)
        .filter_map(|pair| {
            let (k, v) = std::str::from_utf8(pair).ok()?.split_once('=')?;
            Some((k.to_owned(), v.to_owned()))
        })
        .collect()
}

/// An agent of `program` opened as `name` in a tab of its own, idle.
fn open_agent(s: &Session, mcp: &Mcp, api: &ModelApi, program: &str, name: &str) -> String {
    open_agent_as(s, mcp, api, program, name, Launcher::Env).0
}

/// [`open_agent`], launched as `launcher` says; with the variables its
/// command line sets.
fn open_agent_as(
    s: &Session,
    mcp: &Mcp,
    api: &ModelApi,
    program: &str,
    name: &str,
    launcher: Launcher,
) -> (String, Vec<String>) {
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
    let set: Vec<String> = command
        .iter()
        .filter_map(|w| Some(w.split_once('=')?.0.to_owned()))
        .filter(|k| k.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
        .collect();
    let command = launcher.wrap(command);
    // A tab of its own, which it fills: its whole screen is drawn.
    let tab = mcp.ok("zellij_new_tab", json!({"name": name}));
    let args = json!({"command": command, "cwd": work, "placement": "tiled",
        "agent_name": name, "tab": tab["tab_id"]});
    let pane = mcp.ok("zellij_new_pane", args)["pane_id"]
        .as_str()
        .unwrap()
        .to_owned();
    for shell in tab["pane_ids"].as_array().unwrap() {
        mcp.ok("zellij_close", json!({"pane_id": shell}));
    }
    common::until_state(mcp, &pane, "idle");
    (pane, set)
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

/// Waits until agent `name`'s row reads `state`.
fn until_agent_state(s: &Session, name: &str, state: &str) {
    wait_for(&format!("{name} {state}"), Duration::from_secs(60), || {
        (row(&agents(s), name)?["state"] == state).then_some(())
    });
}

/// Waits until every agent's conversation is known.
fn until_conversations_known(s: &Session, names: &[&str]) {
    let known = zellij_mcp_harness::poll_for(Duration::from_secs(60), || {
        let rows = agents(s);
        let known = names
            .iter()
            .all(|n| row(&rows, n).is_some_and(|r| r["conversation"].is_string()));
        known.then_some(())
    });
    assert!(known.is_some(), "conversations not known: {:?}", agents(s));
}

/// Waits until the kept agents' file marks the processes of each of
/// `names`: those are ended if they outlive the session.
fn until_processes_marked(s: &Session, names: &[&str]) {
    let kept = format!("kept-{}.json", s.name());
    let mut seen = Value::Null;
    let marked = zellij_mcp_harness::poll_for(Duration::from_secs(30), || {
        let file = zellij_mcp_harness::file_under(s.sandbox().root(), &|n| n == kept)?;
        seen = serde_json::from_str(&std::fs::read_to_string(file).ok()?).ok()?;
        let marked = |name: &&str| {
            let processes = &seen["agents"][*name]["processes"];
            processes.as_array().is_some_and(|p| !p.is_empty())
        };
        names.iter().all(marked).then_some(())
    });
    assert!(marked.is_some(), "processes not marked: {seen}");
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
    until_all_back(s, &[name], Duration::from_secs(60)).remove(0)
}

/// Waits until every agent of `names` came back `resumed` and reads idle,
/// printing how long each took; their rows, in order. They start one after
/// another, so the last may wait for all the others.
fn until_all_back(s: &Session, names: &[&str], each: Duration) -> Vec<Value> {
    let started = std::time::Instant::now();
    let mut back: Vec<Option<Value>> = vec![None; names.len()];
    zellij_mcp_harness::poll_for(each * names.len() as u32, || {
        let rows = agents(s);
        for (name, seen) in names.iter().zip(back.iter_mut()) {
            let row = row(&rows, name).filter(|r| r["back"] == "resumed" && r["state"] == "idle");
            if let (None, Some(row)) = (&seen, row) {
                eprintln!(
                    "{name} back and idle {:?} after attaching",
                    started.elapsed()
                );
                *seen = Some(row.clone());
            }
        }
        back.iter().all(Option::is_some).then_some(())
    });
    back.into_iter()
        .zip(names)
        .map(|(found, name)| {
            found.unwrap_or_else(|| {
                let rows = agents(s);
                let pane = row(&rows, name).and_then(|r| r["pane_id"].as_str());
                let screen = pane.map(|p| String::from_utf8_lossy(&s.dump_screen(p, false)).into_owned());
                panic!(
                    "{name} did not come back: rows {rows:?}\nits screen:\n{}\npanes {:?}\nlayout {}",
                    screen.unwrap_or_default(),
                    s.zellij_panes(),
                    s.saved_layout()
                )
            })
        })
        .collect()
}

fn ask(mcp: &Mcp, name: &str, text: &str) -> Value {
    let asked = mcp.ok(
        "zellij_ask",
        json!({"to": name, "text": text, "from": "lead", "timeout_s": 120}),
    );
    if asked["state"] != "idle" {
        // What the pane showed then, to tell why.
        let pane = asked["pane_id"].clone();
        let screen = mcp.ok("zellij_read", json!({"pane_id": pane}));
        eprintln!(
            "{name} after {text}: {asked}\n{}",
            screen["text"].as_str().unwrap_or_default()
        );
    }
    asked
}

/// Each program's turn names a word before the end; after it, its
/// conversation carries the word, and a message queued for the first
/// agent while its session was down reaches it once.
fn survive(test: &str, programs: &[(&str, Launcher)], how: Ending) {
    let s = kept_session(test);
    let client = s.attach_and_wait().0;
    let mcp = mcp(&s, "socket");
    let api = ModelApi::start(&s.sandbox().root().join("requests.jsonl"));
    let names: Vec<String> = programs.iter().map(|p| format!("{}-agent", p.0)).collect();
    let mut before = Vec::new();
    for ((program, launcher), name) in programs.iter().zip(&names) {
        let (_, set) = open_agent_as(&s, &mcp, &api, program, name, *launcher);
        let asked = ask(&mcp, name, &format!("SAY REMEMBER-{program}"));
        assert_eq!(asked["state"], "idle", "{name}: {asked}");
        let environment = agent_environment(&s, name);
        assert!(!environment.contains_key(UNSET), "{name}: {environment:?}");
        let set: Vec<(String, Option<String>)> = set
            .into_iter()
            .map(|k| (k.clone(), environment.get(&k).cloned()))
            .collect();
        before.push(set);
    }
    let programs: Vec<&str> = programs.iter().map(|p| p.0).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    until_conversations_known(&s, &names);
    until_processes_marked(&s, &names);
    until_saved(&s, names.len());
    let processes: Vec<(String, Vec<(u32, u64)>)> =
        names.iter().map(|n| program_processes(&s, n)).collect();
    // Codex first: a turn that does not end holds a message for it.
    let release = s.sandbox().work().join("release");
    let hold = format!("LONG HOLD {}", release.display());
    let sent = json!({"to": names[0], "text": hold, "from": "lead"});
    mcp.ok("zellij_send_message", sent);
    until_sent(&api, "HOLD");
    let sent = json!({"to": names[0], "text": "SAY queued-before-end", "from": "lead"});
    let queued = mcp.ok("zellij_send_message", sent);
    assert_eq!(queued["status"], "held", "{queued}");
    drop(mcp);
    drop(client);
    s.end(how);
    std::fs::write(&release, "").unwrap();

    let done = std::sync::atomic::AtomicBool::new(false);
    let (_client, mcp) = std::thread::scope(|scope| {
        // No process of an agent's program from before runs beside the
        // resumed one (Gemini CLI's outlive their session by 20 s and more).
        let watching = scope.spawn(|| overlaps(&processes, s.sandbox().root(), &done));
        // Set on a panic too, so the watch ends and the scope with it.
        let watched = DoneOnDrop(&done);
        let client = s.bring_back();
        let mcp = common::mcp(&s, "socket");
        until_all_back(&s, &names, Duration::from_secs(60));
        drop(watched);
        let seen = watching.join().unwrap();
        assert!(
            seen.is_empty(),
            "processes from before beside new ones: {seen:?}"
        );
        (client, mcp)
    });
    for ((program, name), before) in programs.iter().zip(&names).zip(&before) {
        let row = until_back(&s, name);
        assert!(row["conversation"].is_string(), "{row}");
        // Resumed under one relay, as it was started.
        let id = row["pane_id"]
            .as_str()
            .and_then(|p| p.strip_prefix("terminal_"));
        let id: Option<u64> = id.and_then(|n| n.parse().ok());
        let panes = s.zellij_panes();
        let pane = panes
            .iter()
            .find(|p| p["is_plugin"] == false && p["id"].as_u64() == id);
        let command = pane
            .and_then(|p| p["terminal_command"].as_str())
            .unwrap_or_default();
        assert_eq!(command.matches("--relay").count(), 1, "{name}: {command}");
        // Its environment as its command line made it, unsets included.
        let after = agent_environment(&s, name);
        assert!(!after.contains_key(UNSET), "{name}: {after:?}");
        let set: Vec<(String, Option<String>)> = before
            .iter()
            .map(|(k, _)| (k.clone(), after.get(k).cloned()))
            .collect();
        assert_eq!(&set, before, "{name}'s environment after the restart");
        let asked = ask(&mcp, name, &format!("SAY after-{program}"));
        assert_eq!(asked["state"], "idle", "{asked}");
        let carried = api.carried_by(&format!("SAY after-{program}"));
        assert_eq!(
            carried,
            Some(vec![format!("REMEMBER-{program}")]),
            "{name}'s conversation after the restart"
        );
    }
    // Queued before the end, it came once, before the later message.
    assert_eq!(common::times_sent(&api, "queued-before-end"), 1);
}

#[test]
fn agents_come_back_in_their_conversations_after_kill_session() {
    use Launcher::*;
    let agents = [
        ("codex", ShellExec),
        ("claude", Stdbuf),
        ("gemini", Nice),
        ("opencode", Nice),
    ];
    survive("back-kill", &agents, Ending::KillSession);
}

#[test]
fn agents_come_back_in_their_conversations_after_their_server_is_killed() {
    use Launcher::*;
    let agents = [
        ("codex", Stdbuf),
        ("opencode", ShellExec),
        ("claude", Nice),
        ("gemini", ShellExec),
    ];
    survive("back-crash", &agents, Ending::Crash);
}

/// An agent whose program quits reads `exited`; `agents resume` starts it
/// again in its conversation.
#[test]
fn an_agent_that_quit_is_resumed_in_its_conversation() {
    let s = kept_session("back-quit");
    let _client = s.attach_and_wait().0;
    let mcp = mcp(&s, "socket");
    let api = ModelApi::start(&s.sandbox().root().join("requests.jsonl"));
    let pane = open_agent(&s, &mcp, &api, "codex", "quitter");
    let asked = ask(&mcp, "quitter", "SAY REMEMBER-quitter");
    assert_eq!(asked["state"], "idle", "{asked}");
    until_conversations_known(&s, &["quitter"]);
    mcp.ok(
        "zellij_signal",
        json!({"pane_id": pane, "signal": "sigkill"}),
    );
    until_agent_state(&s, "quitter", "exited");
    let out = std::process::Command::new(bridge())
        .args(["agents", "resume", "quitter"])
        .envs(s.sandbox().env())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    wait_for("quitter back", Duration::from_secs(60), || {
        let rows = agents(&s);
        let row = row(&rows, "quitter")?;
        (row["state"] == "idle" && row["back"] == "resumed").then_some(())
    });
    let asked = ask(&mcp, "quitter", "SAY after-quit");
    assert_eq!(asked["state"], "idle", "{asked}");
    let carried = api.carried_by("SAY after-quit");
    assert_eq!(carried, Some(vec!["REMEMBER-quitter".to_owned()]));
}

/// A model that never answers: after the limit, the agent reads
/// `stalled` and the event log says so; once the answer comes, it works
/// on and ends its turn.
#[test]
fn an_agent_whose_model_never_answers_reads_stalled() {
    let s = impatient_session("stalled");
    let _client = s.attach_and_wait().0;
    let mcp = mcp(&s, "socket");
    let api = ModelApi::start(&s.sandbox().root().join("requests.jsonl"));
    open_agent(&s, &mcp, &api, "codex", "waiter");
    let release = s.sandbox().work().join("release");
    let hold = format!("LONG HOLD {}", release.display());
    mcp.ok(
        "zellij_send_message",
        json!({"to": "waiter", "text": hold, "from": "lead"}),
    );
    until_sent(&api, "HOLD");
    until_agent_state(&s, "waiter", "stalled");
    let stalled = common::logged(&mcp, "stalled");
    assert_eq!(stalled.len(), 1, "{stalled:?}");
    assert_eq!(stalled[0]["name"], "waiter");
    // zellij_list_panes tells it as the board does.
    let listed = mcp.ok("zellij_list_panes", json!({}));
    let waiter = listed["panes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["agent"] == "waiter");
    assert_eq!(
        waiter.map(|p| &p["state"]),
        Some(&json!("stalled")),
        "{listed}"
    );
    std::fs::write(&release, "").unwrap();
    until_agent_state(&s, "waiter", "idle");
}
