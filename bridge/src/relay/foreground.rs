//! The program in the foreground of the relay's pty, and the file the
//! pane is recorded to, told to the plugin when either changes. Zellij
//! tells a pane's running command (and folder) as its terminal's
//! foreground process's, which for a relayed pane is the relay itself; so
//! the relay looks at its own pty's foreground a moment after the program
//! wrote or was typed to (where a shell starts a command or a program
//! another), and again once that settled, and tells the plugin what runs
//! there, through `zellij-mcp foreground`, one at a time, the latest first.
//! Where that is an agent program a description names, it tells too the
//! state the relay's live screen shows, read by that description as the
//! plugin reads the pane's view: the view is stale while a person has the
//! pane scrolled up, and the live screen is not.

use std::os::fd::{AsRawFd, BorrowedFd};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use zellij_mcp_protocol::agent_programs::{AgentScreen, Programs};
use zellij_mcp_protocol::agent_screen;
use zellij_mcp_protocol::launcher::program_name;

use super::truth::Kept;
use crate::processes;
use crate::setup::agent_file::{self, Stamp};

/// How long after output or typing the foreground is looked at: a burst
/// of either is looked at once.
const SETTLE: Duration = Duration::from_millis(30);
/// How long after the last output or typing it is looked at again: a
/// program started then may print nothing for a while.
const SETTLED: Duration = Duration::from_secs(1);
/// How long after the last output an agent's state is told again, read
/// anew: the plugin then takes a view a person scrolled up just before as
/// stale (its looks may have seen the view change only after the word of
/// the program's last output came).
const QUIET: Duration = Duration::from_millis(300);
/// The most bytes of a command line told (its first words: its program).
const MOST_BYTES: usize = 8 * 1024;

/// What runs in the foreground.
#[derive(Debug, Clone, PartialEq)]
struct Running {
    argv: Vec<String>,
    cwd: Option<String>,
}

/// What the plugin is told of the pane.
#[derive(Debug, Clone, Default, PartialEq)]
struct Told {
    running: Option<Running>,
    /// The file its recording goes to, while one goes on.
    recording: Option<String>,
    /// The state its live screen shows, where it runs an agent program.
    screen: Option<AgentScreen>,
}

/// The latest the relay saw, and how many looks it took: each look reads
/// the screen again. Of them, those once output went quiet.
#[derive(Default)]
struct Latest {
    told: Told,
    looks: u64,
    quiet_looks: u64,
}

/// Tells the plugin what the relay saw last, from a thread of its own: the
/// latest when several changes came while one was told.
#[derive(Clone)]
pub struct Teller(Arc<(Mutex<Latest>, Condvar)>);

impl Teller {
    fn start(kept: Arc<Kept>) -> Teller {
        let teller = Teller(Arc::new((Mutex::new(Latest::default()), Condvar::new())));
        let taken = teller.clone();
        let screen = ScreenReader::new(kept, agent_file::path());
        std::thread::spawn(move || taken.tell_each(screen));
        teller
    }

    fn latest(&self) -> MutexGuard<'_, Latest> {
        self.0 .0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn change(&self, change: impl FnOnce(&mut Latest)) {
        change(&mut self.latest());
        self.0 .1.notify_one();
    }

    /// A recording began (to `file`) or, none, ended.
    pub fn recording(&self, file: Option<String>) {
        self.change(|latest| latest.told.recording = file);
    }

    /// Tells each change, once what runs is known; reads the screen at
    /// each look, off the thread that passes the program's bytes. Once
    /// output went quiet, an agent's screen state is told again, with when it
    /// was read: the plugin takes a view that reads otherwise as stale
    /// sooner where the relay read its screen after the view changed (a
    /// person who scrolled up just before the program went quiet).
    fn tell_each(&self, mut screen: ScreenReader) {
        let Ok(bridge) = std::env::current_exe() else {
            return;
        };
        let (mut told, mut looked, mut quiet) = (Told::default(), 0, 0);
        loop {
            let (mut latest, quiet_again) = {
                let mut latest = self.latest();
                let unchanged = |latest: &Latest| {
                    let seen = (&latest.told.running, &latest.told.recording);
                    latest.looks == looked && seen == (&told.running, &told.recording)
                };
                while latest.told.running.is_none() || unchanged(&latest) {
                    latest = self
                        .0
                         .1
                        .wait(latest)
                        .unwrap_or_else(PoisonError::into_inner);
                }
                looked = latest.looks;
                let again = latest.quiet_looks != quiet;
                quiet = latest.quiet_looks;
                (latest.told.clone(), again)
            };
            let Some(running) = &latest.running else {
                continue;
            };
            let read_ms = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |since| since.as_millis() as u64);
            latest.screen = screen.state(running);
            if latest != told || (quiet_again && latest.screen.is_some()) {
                tell(&bridge, &latest, read_ms);
                told = latest;
            }
        }
    }
}

/// Reads the state an agent program's live screen shows, by the
/// descriptions in force (the person's file over the built-in ones, read
/// again when it changes), as the plugin reads the pane's view.
struct ScreenReader {
    kept: Arc<Kept>,
    /// The person's descriptions.
    file: PathBuf,
    programs: Option<(Stamp, Programs)>,
}

impl ScreenReader {
    fn new(kept: Arc<Kept>, file: PathBuf) -> ScreenReader {
        ScreenReader {
            kept,
            file,
            programs: None,
        }
    }

    /// The state the screen shows, where `running` is an agent program a
    /// description names.
    fn state(&mut self, running: &Running) -> Option<AgentScreen> {
        let program = program_name(&running.argv)?;
        let programs = in_force(&self.file, &mut self.programs);
        programs.for_program(&program)?;
        let (shown, title) = {
            let truth = self.kept.lock();
            (truth.shown(), truth.title().to_owned())
        };
        let telling = programs.telling(Some(&program), false, &title);
        agent_screen::Shown::of(&shown.rows, shown.cursor, Some(telling)).agent
    }
}

/// The descriptions in force, read again when the person's `file` changed.
fn in_force<'a>(file: &Path, programs: &'a mut Option<(Stamp, Programs)>) -> &'a Programs {
    let stamp = agent_file::stamp(file);
    if programs.as_ref().is_some_and(|(seen, _)| *seen != stamp) {
        *programs = None;
    }
    &programs
        .get_or_insert_with(|| (stamp, agent_file::programs_in(file)))
        .1
}

/// The foreground as last looked at, and when to look again.
pub struct Foreground {
    due: Option<Instant>,
    /// The look once output and typing settled.
    settled: Option<Instant>,
    /// The look once output went quiet, its agent state told again.
    quiet: Option<Instant>,
    /// None outside a Zellij pane.
    teller: Option<Teller>,
}

impl Foreground {
    /// Looks at once, and tells where the relay runs in a Zellij pane,
    /// reading the screen `kept`.
    pub fn new(kept: Arc<Kept>) -> Foreground {
        let in_pane = ["ZELLIJ_SESSION_NAME", "ZELLIJ_PANE_ID"]
            .iter()
            .all(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty()));
        Foreground {
            due: Some(Instant::now()),
            settled: None,
            quiet: None,
            teller: in_pane.then(|| Teller::start(kept)),
        }
    }

    /// What tells the plugin, for the recording's changes.
    pub fn teller(&self) -> Option<Teller> {
        self.teller.clone()
    }

    /// The program wrote, or was typed to: look again soon.
    pub fn soon(&mut self) {
        if self.teller.is_some() {
            let now = Instant::now();
            self.due.get_or_insert(now + SETTLE);
            self.settled = Some(now + SETTLED);
            self.quiet = Some(now + QUIET);
        }
    }

    /// How long until the next look, if one is due.
    pub fn within(&self) -> Option<Duration> {
        self.teller.as_ref()?;
        let next = [self.due, self.settled, self.quiet]
            .into_iter()
            .flatten()
            .min()?;
        Some(next.saturating_duration_since(Instant::now()))
    }

    /// Looks, if it is time, and tells what changed.
    pub fn look(&mut self, near: BorrowedFd) {
        let Some(teller) = &self.teller else {
            return;
        };
        let now = Instant::now();
        let passed = |at: &mut Option<Instant>| at.take_if(|at| *at <= now).is_some();
        let (due, settled) = (passed(&mut self.due), passed(&mut self.settled));
        let quiet = passed(&mut self.quiet);
        if !due && !settled && !quiet {
            return;
        }
        let running = running_on(near);
        teller.change(|latest| {
            latest.looks += 1;
            latest.quiet_looks += u64::from(quiet);
            if running.is_some() {
                latest.told.running = running;
            }
        });
    }
}

/// The foreground process group's leader on the pty whose near end is
/// `near`: its command line and folder.
fn running_on(near: BorrowedFd) -> Option<Running> {
    // SAFETY: asks about a descriptor this relay owns.
    let group = unsafe { libc::tcgetpgrp(near.as_raw_fd()) };
    let leader = u32::try_from(group).ok().filter(|&pid| pid > 0)?;
    let mut argv = processes::table().command_line(leader)?;
    let mut bytes = 0;
    argv.retain(|word| {
        bytes += word.len() + 1;
        bytes <= MOST_BYTES
    });
    let cwd = std::fs::read_link(format!("/proc/{leader}/cwd")).ok();
    let cwd = cwd.map(|path| path.display().to_string());
    (!argv.is_empty()).then_some(Running { argv, cwd })
}

/// Tells the plugin, through `zellij-mcp foreground`, what runs, where
/// the pane is recorded to and what its screen showed at `read_ms`.
fn tell(bridge: &std::path::Path, told: &Told, read_ms: u64) {
    let Some(running) = &told.running else {
        return;
    };
    let mut command = Command::new(bridge);
    command.arg("foreground");
    if let Some(cwd) = &running.cwd {
        command.arg("--cwd").arg(cwd);
    }
    if let Some(file) = &told.recording {
        command.arg("--recording").arg(file);
    }
    let screen = told.screen.map(serde_json::to_value);
    if let Some(Ok(serde_json::Value::String(screen))) = screen {
        command.arg("--screen").arg(screen);
        command.arg("--screen-at").arg(read_ms.to_string());
    }
    // Nothing of it reaches the pane.
    let _ = command
        .arg("--")
        .args(&running.argv)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::relay::truth::Truth;

    fn running(argv: &[&str]) -> Running {
        let argv = argv.iter().map(|w| w.to_string()).collect();
        Running { argv, cwd: None }
    }

    #[test]
    fn an_agents_live_screen_is_read_by_its_programs_description_with_its_title() {
        let folder = std::env::temp_dir().join(format!("zmcp-screen-{}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        let file = folder.join("agents.kdl");
        let kept = Arc::new(Kept::new(Truth::new(60, 8)));
        let mut reader = ScreenReader::new(kept.clone(), file.clone());
        let rule = "─".repeat(40);
        kept.lock()
            .feed(format!("{rule}\r\n❯ \r\n{rule}").as_bytes());
        let claude = running(&["node", "/x/node_modules/@anthropic-ai/claude-code/cli.js"]);
        assert_eq!(reader.state(&claude), Some(AgentScreen::Idle));
        // Not an agent's program: nothing read.
        assert_eq!(reader.state(&running(&["bash"])), None);
        // A dialog told by the title alone.
        let codex = running(&["codex"]);
        assert_eq!(reader.state(&codex), None);
        kept.lock()
            .feed(b"\x1b[2J\x1b[H\x1b]0;Action Required\x07\xe2\x80\xba ");
        assert_eq!(reader.state(&codex), Some(AgentScreen::Asking));
        // The person's file, read again when it changes.
        let never = "agent \"codex\" {\n    programs \"codex\"\n    prompt \"⊘\"\n}\n";
        std::fs::write(&file, never).unwrap();
        assert_eq!(reader.state(&codex), None);
        std::fs::remove_file(&file).unwrap();
        assert_eq!(reader.state(&codex), Some(AgentScreen::Asking));
    }
}
