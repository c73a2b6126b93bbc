//! What brings each agent back after its session ends: per agent name, the
//! command line it was started with, its folder, its program's description
//! and the conversation its program holds, and where its pane was. Kept in
//! the shared folder under the session's name (which a resurrected session
//! keeps), written as it changes, so a crash loses nothing written before.
//! Plain state: the plugin fills it in and acts on it (`work/keeping.rs`).

use std::collections::{BTreeMap, VecDeque};
use std::fs;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use zellij_mcp_protocol::agent_programs::Programs;
use zellij_mcp_protocol::launcher;
use zellij_mcp_protocol::ops::ProcessMark;
use zellij_mcp_protocol::PaneRef;

use crate::host::files::read_capped;

/// The most bytes the file is read to (256 agents of long command lines).
const KEPT_BYTES: u64 = 2 * 1024 * 1024;

/// How long kept agents wait for their panes after a restart before those
/// not brought back are given up.
pub const BACK_WITHIN: Duration = Duration::from_secs(10);
/// Agents are started one at a time: the next when this one's screen tells
/// a state, or after this long.
pub const NEXT_AFTER: Duration = Duration::from_secs(3);
/// How long an agent waits for its leftover processes to be ended (the
/// bridge gives them 3 s to exit before killing them, and 2 s more to go).
pub const ENDING_WITHIN: Duration = Duration::from_secs(10);
/// How often an agent pane's conversation is looked up while it or its
/// processes are not known, and once both are.
const LOOK_UNKNOWN: Duration = Duration::from_secs(2);
const LOOK_KNOWN: Duration = Duration::from_secs(10);
/// Most panes whose command lines are kept from when they were opened.
const MOST_LAUNCHED: usize = 256;

/// Keeping the agents: the file, and the work under way on it.
#[derive(Debug, Default)]
pub struct Keeping {
    pub kept: Kept,
    /// Where the bridge that finds conversations is named (`hello` says).
    pub bridge_file: PathBuf,
    /// Off: agents come back as Zellij brings them (`resume_agents false`).
    pub resume_on: bool,
    /// On (unless `relay false`): commands start under the relay unless a
    /// call says not to.
    pub relay_on: bool,
    /// Since when the agents of an ended session are being brought back.
    pub restarting: Option<Instant>,
    /// Agents to start again, one at a time: their names and held panes.
    pub queue: VecDeque<(String, PaneRef)>,
    /// The pane started last, and when.
    pub starting: Option<(PaneRef, Instant)>,
    /// Agents whose processes left from before are being ended, since when:
    /// each is started only once that is done.
    pub ending: BTreeMap<String, Instant>,
    /// When each pane's conversation was last looked up.
    looked: BTreeMap<PaneRef, Instant>,
    /// Command lines and folders of panes opened with one, newest last.
    launched: VecDeque<(PaneRef, Vec<String>, Option<String>)>,
}

impl Keeping {
    pub fn new(kept: PathBuf, bridge_file: PathBuf, resume_on: bool) -> Keeping {
        Keeping {
            kept: Kept::open(kept),
            bridge_file,
            resume_on,
            ..Keeping::default()
        }
    }

    /// Notes the command line `pane` was opened with: what resumes it.
    pub fn launched(&mut self, pane: PaneRef, argv: Vec<String>, cwd: Option<String>) {
        if self.launched.len() >= MOST_LAUNCHED {
            self.launched.pop_front();
        }
        self.launched.push_back((pane, argv, cwd));
    }

    /// The command line and folder `pane` was opened with, when known.
    pub fn launch_of(&self, pane: PaneRef) -> Option<(Vec<String>, Option<String>)> {
        let found = self.launched.iter().rev().find(|(p, _, _)| *p == pane);
        found.map(|(_, argv, cwd)| (argv.clone(), cwd.clone()))
    }

    /// Whether `pane`'s conversation is due to be looked up (and notes
    /// that it is).
    pub fn look_due(&mut self, pane: PaneRef, known: bool, now: Instant) -> bool {
        let every = if known { LOOK_KNOWN } else { LOOK_UNKNOWN };
        let due = self.looked.get(&pane).is_none_or(|at| now >= *at + every);
        if due {
            self.looked.insert(pane, now);
        }
        due
    }

    /// Makes `pane`'s conversation due to be looked up at once.
    pub fn look_now(&mut self, pane: PaneRef) {
        self.looked.remove(&pane);
    }

    /// Forgets the looks of panes no agent has.
    pub fn looked_only(&mut self, panes: &[PaneRef]) {
        self.looked.retain(|pane, _| panes.contains(pane));
    }

    /// `argv` started through `zellij-mcp launch`, which gives its program
    /// zellij-mcp's hooks where its description gives it any, and runs it
    /// under the relay where `relay` (else the setting) asks, or where it
    /// is recorded (to `record_to`); as it is when it needs none of these
    /// or the bridge is not known.
    pub fn launch_line(
        &self,
        argv: Vec<String>,
        programs: &Programs,
        relay: Option<bool>,
        record_to: Option<String>,
    ) -> Vec<String> {
        let relay = relay.unwrap_or(self.relay_on) || record_to.is_some();
        let program = launcher::read(&argv).ok().map(|l| l.name());
        let described = program.and_then(|p| programs.for_program(&p));
        let given = described.and_then(|d| d.hooks.as_ref());
        let hooks = given.is_some_and(|h| h.per_launch());
        match self.bridge() {
            Some(bridge) if hooks || relay => {
                let relayed = relay.then(|| launcher::WITH_RELAY.to_owned());
                let recorded = record_to.map(|to| [launcher::RECORD.to_owned(), to]);
                let launch = [bridge, launcher::LAUNCH.into()].into_iter().chain(relayed);
                let options = launch.chain(recorded.into_iter().flatten());
                options.chain(["--".into()]).chain(argv).collect()
            }
            _ => argv,
        }
    }

    /// The bridge's executable, as the last `hello` named it.
    pub fn bridge(&self) -> Option<String> {
        read_capped(&self.bridge_file, 4096).filter(|b| b.starts_with('/'))
    }

    /// Notes the bridge a `hello` names, when it is another.
    pub fn hello_from(&self, bridge: Option<&str>) {
        let Some(bridge) = bridge.filter(|b| b.starts_with('/')) else {
            return;
        };
        if self.bridge().as_deref() != Some(bridge) {
            let _ = fs::write(&self.bridge_file, bridge);
        }
    }
}

/// One agent, as kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeptAgent {
    /// Its pane, in the server that wrote the file.
    pub pane: PaneRef,
    #[serde(default)]
    pub lines: bool,
    /// The description its program is told by (`codex`).
    pub description: String,
    /// Its command line as it was started (never one that resumed it).
    pub argv: Vec<String>,
    #[serde(default)]
    pub cwd: Option<String>,
    /// The conversation its program holds, once its record names one.
    #[serde(default)]
    pub conversation: Option<String>,
    /// When its record last changed (Unix ms).
    #[serde(default)]
    pub record_changed_ms: u64,
    /// Where its pane was: its tab's position, then its row and column,
    /// which order it among the panes Zellij brings back.
    pub at: (usize, usize, usize),
    /// `false`: a person turned resuming off for it.
    #[serde(default = "yes")]
    pub resume: bool,
    /// How it came back after its session ended, or why it did not.
    #[serde(default)]
    pub back: Option<String>,
    /// Its program's processes, as last looked up: those still running
    /// after its session ended are ended before it is resumed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub processes: Vec<ProcessMark>,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct KeptFile {
    /// The Zellij server that wrote it: another one means the session
    /// ended and came back.
    server: u32,
    agents: BTreeMap<String, KeptAgent>,
}

#[derive(Debug, Default)]
pub struct Kept {
    path: Option<PathBuf>,
    file: KeptFile,
    /// What was last written, so only a change is written.
    written: String,
}

/// A pane Zellij brought back held ("Waiting to run"), as a restarted
/// session shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct HeldPane {
    pub pane: PaneRef,
    /// What it runs (see [`runs_command`]).
    pub runs: String,
    /// Its tab's position, row and column.
    pub at: (usize, usize, usize),
}

impl Kept {
    /// The kept agents at `path`, as the last server wrote them.
    pub fn open(path: PathBuf) -> Kept {
        let text = read_capped(&path, KEPT_BYTES).unwrap_or_default();
        let file = serde_json::from_str(&text).unwrap_or_default();
        Kept {
            path: Some(path),
            file,
            written: text,
        }
    }

    /// Whether the agents were kept by another server (the session ended
    /// and came back) than `server`.
    pub fn kept_by_another_server(&self, server: u32) -> bool {
        self.file.server != server && !self.file.agents.is_empty()
    }

    /// Takes the file over for `server`.
    pub fn now_kept_by(&mut self, server: u32) {
        self.file.server = server;
    }

    pub fn agents(&self) -> &BTreeMap<String, KeptAgent> {
        &self.file.agents
    }

    pub fn get_mut(&mut self, name: &str) -> Option<&mut KeptAgent> {
        self.file.agents.get_mut(name)
    }

    pub fn of_pane(&self, pane: PaneRef) -> Option<(&String, &KeptAgent)> {
        self.file.agents.iter().find(|(_, a)| a.pane == pane)
    }

    /// Keeps `agent` under `name` (as it comes now).
    pub fn keep(&mut self, name: &str, agent: KeptAgent) {
        self.file.agents.insert(name.to_owned(), agent);
    }

    /// A restart begins: no agent is back yet.
    pub fn restart(&mut self) {
        for agent in self.file.agents.values_mut() {
            agent.back = None;
        }
    }

    /// The panes agents came back in so far.
    pub fn taken_panes(&self) -> Vec<PaneRef> {
        let back = self.file.agents.values().filter(|a| a.back.is_some());
        back.map(|a| a.pane).collect()
    }

    /// Forgets the agents that did not come back.
    pub fn retain_back(&mut self) {
        self.file.agents.retain(|_, a| a.back.is_some());
    }

    /// Forgets every agent but those `keep` names.
    pub fn retain(&mut self, keep: impl Fn(&str) -> bool) {
        self.file.agents.retain(|name, _| keep(name));
    }

    /// The file again, as another instance may have written it.
    pub fn reload(&mut self) {
        if let Some(path) = self.path.clone() {
            *self = Kept::open(path);
        }
    }

    /// Claims bringing the agents back for `server`, once across the
    /// plugin's instances (a file made with `create_new`).
    pub fn claim_restart(&self, server: u32) -> bool {
        let Some(path) = &self.path else { return false };
        let claim = path.with_extension(format!("back-{server}"));
        fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(claim)
            .is_ok()
    }

    /// Writes the file when it changed, then renames, so a reader never
    /// sees half of it.
    pub fn save(&mut self) {
        let Some(path) = &self.path else { return };
        let Ok(text) = serde_json::to_string(&self.file) else {
            return;
        };
        if text == self.written {
            return;
        }
        let temp = path.with_extension("tmp");
        let written = fs::write(&temp, &text).and_then(|()| fs::rename(&temp, path));
        match written {
            Ok(()) => self.written = text,
            Err(e) => eprintln!("zellij-mcp: cannot keep the agents: {e}"),
        }
    }

    /// Which held pane each kept agent not back yet comes back in: among
    /// the panes of its tab that run its program, in the order of their
    /// places (Zellij brings a tab back in its shape, maybe at another
    /// size). Agents with no such pane are left out.
    pub fn match_held(&self, held: &[HeldPane]) -> Vec<(String, PaneRef)> {
        let mut groups: BTreeMap<(usize, String), (Vec<_>, Vec<_>)> = BTreeMap::new();
        let waiting = self.file.agents.iter().filter(|(_, a)| a.back.is_none());
        for (name, agent) in waiting {
            let key = (agent.at.0, runs(&agent.argv));
            groups.entry(key).or_default().0.push((agent.at, name));
        }
        for pane in held {
            let key = (pane.at.0, pane.runs.clone());
            if let Some((_, panes)) = groups.get_mut(&key) {
                panes.push((pane.at, pane.pane));
            }
        }
        let mut matched = Vec::new();
        for (_, (mut agents, mut panes)) in groups {
            agents.sort();
            panes.sort();
            let pairs = agents.into_iter().zip(panes);
            matched.extend(pairs.map(|((_, name), (_, pane))| (name.clone(), pane)));
        }
        matched
    }
}

/// The program `argv` runs, read past its launchers; `None` when the line
/// cannot be read for sure.
pub fn program_of(argv: &[String]) -> Option<String> {
    launcher::read(argv).ok().map(|launch| launch.name())
}

/// What `argv` runs, as agents and held panes are matched by: its
/// program's name, or the whole line when it cannot be read for sure (such
/// an agent takes its name back in its pane, and is not started).
fn runs(argv: &[String]) -> String {
    program_of(argv).unwrap_or_else(|| argv.join(" "))
}

/// [`runs`] of a command line as Zellij tells it (its words joined).
pub fn runs_command(command: &str) -> String {
    match launcher::read_command(command) {
        Ok(launch) => launch.name(),
        Err(_) => command.split_whitespace().collect::<Vec<_>>().join(" "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(argv: &[&str], at: (usize, usize, usize)) -> KeptAgent {
        KeptAgent {
            pane: PaneRef::terminal(9),
            lines: false,
            description: "codex".into(),
            argv: argv.iter().map(|a| a.to_string()).collect(),
            cwd: None,
            conversation: Some("c".into()),
            record_changed_ms: 0,
            at,
            resume: true,
            back: None,
            processes: Vec::new(),
        }
    }

    #[test]
    fn a_look_up_is_due_at_its_pace_and_at_once_when_asked() {
        let mut keeping = Keeping::default();
        let (pane, t0) = (PaneRef::terminal(9), Instant::now());
        assert!(keeping.look_due(pane, true, t0), "the first look is due");
        assert!(!keeping.look_due(pane, false, t0 + LOOK_UNKNOWN / 2));
        assert!(keeping.look_due(pane, false, t0 + LOOK_UNKNOWN));
        let t1 = t0 + LOOK_UNKNOWN;
        assert!(!keeping.look_due(pane, true, t1 + LOOK_UNKNOWN));
        keeping.look_now(pane);
        assert!(keeping.look_due(pane, true, t1 + LOOK_UNKNOWN));
        assert!(keeping.look_due(pane, true, t1 + LOOK_UNKNOWN + LOOK_KNOWN));
    }

    fn held(id: u32, program: &str, at: (usize, usize, usize)) -> HeldPane {
        HeldPane {
            pane: PaneRef::terminal(id),
            runs: runs_command(program),
            at,
        }
    }

    #[test]
    fn agents_come_back_in_the_held_panes_of_their_program_in_their_places() {
        let dir = crate::fake::shared_dir("kept");
        let mut kept = Kept::open(dir.join("kept.json"));
        kept.keep("top", agent(&["env", "A=1", "/bin/codex", "-a"], (0, 0, 0)));
        kept.keep("bottom", agent(&["codex"], (0, 30, 0)));
        kept.keep("gem", agent(&["node", "/x/gemini.js"], (1, 0, 0)));
        kept.keep("gone", agent(&["opencode"], (2, 0, 0)));
        // Brought back at another size; a shell's held command is no agent.
        let panes = [
            held(4, "codex", (0, 20, 0)),
            held(3, "codex", (0, 0, 0)),
            held(5, "gemini", (1, 0, 0)),
            held(6, "cargo", (2, 0, 0)),
        ];
        let mut matched = kept.match_held(&panes);
        matched.sort();
        let expected = [
            ("bottom", PaneRef::terminal(4)),
            ("gem", PaneRef::terminal(5)),
            ("top", PaneRef::terminal(3)),
        ];
        let expected: Vec<(String, PaneRef)> =
            expected.iter().map(|(n, p)| (n.to_string(), *p)).collect();
        assert_eq!(matched, expected);
    }

    #[test]
    fn the_file_is_written_on_a_change_only_and_read_back_by_the_next_server() {
        let dir = crate::fake::shared_dir("kept");
        let path = dir.join("kept.json");
        let mut kept = Kept::open(path.clone());
        kept.now_kept_by(10);
        kept.keep("a", agent(&["codex"], (0, 0, 0)));
        kept.save();
        let written = fs::metadata(&path).unwrap().modified().unwrap();
        kept.save();
        assert_eq!(fs::metadata(&path).unwrap().modified().unwrap(), written);
        let again = Kept::open(path);
        assert!(again.kept_by_another_server(11));
        assert!(!again.kept_by_another_server(10));
        assert_eq!(again.agents()["a"].conversation.as_deref(), Some("c"));
    }

    #[test]
    fn commands_start_through_the_bridges_launch_for_the_relay_and_hooks() {
        let dir = crate::fake::shared_dir("hooked");
        let mut keeping = Keeping::new(dir.join("kept.json"), dir.join("bridge"), true);
        let programs = Programs::built_in();
        let argv = |words: &[&str]| words.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        let claude = argv(&["env", "A=1", "claude", "-c"]);
        let line = |k: &Keeping, argv: &[String], relay| {
            k.launch_line(argv.to_vec(), &programs, relay, None)
        };
        assert_eq!(line(&keeping, &claude, None), claude, "no bridge known yet");
        fs::write(dir.join("bridge"), "/b/zellij-mcp").unwrap();
        let launched = line(&keeping, &claude, None);
        assert_eq!(launched[..3], argv(&["/b/zellij-mcp", "launch", "--"]));
        assert_eq!(launched[3..], claude);
        assert_eq!(
            program_of(&launched).as_deref(),
            Some("claude"),
            "read past it"
        );
        let relayed = line(&keeping, &claude, Some(true));
        assert_eq!(
            relayed[..4],
            argv(&["/b/zellij-mcp", "launch", "--relay", "--"])
        );
        assert_eq!(
            program_of(&relayed).as_deref(),
            Some("claude"),
            "read past it"
        );
        let gemini = argv(&["gemini"]);
        assert_eq!(line(&keeping, &gemini, None), gemini, "given no hooks");
        assert_eq!(
            line(&keeping, &gemini, Some(true))[4..],
            gemini,
            "asked for"
        );
        keeping.relay_on = true;
        assert_eq!(line(&keeping, &gemini, None)[4..], gemini, "the relay on");
        assert_eq!(line(&keeping, &gemini, Some(false)), gemini, "refused");
        // Recorded: under the relay, whatever else was asked.
        let to = Some("/r/a.cast".to_owned());
        let recorded = keeping.launch_line(gemini.clone(), &programs, Some(false), to);
        let options = [
            "/b/zellij-mcp",
            "launch",
            "--relay",
            "--record",
            "/r/a.cast",
            "--",
        ];
        assert_eq!(recorded[..6], argv(&options));
        assert_eq!(program_of(&recorded).as_deref(), Some("gemini"));
    }
}
