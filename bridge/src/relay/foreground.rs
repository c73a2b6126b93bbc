//! The program in the foreground of the relay's pty, and the file the
//! pane is recorded to, told to the plugin when either changes. Zellij
//! tells a pane's running command (and folder) as its terminal's
//! foreground process's, which for a relayed pane is the relay itself; so
//! the relay looks at its own pty's foreground a moment after the program
//! wrote or was typed to (where a shell starts a command or a program
//! another), and again once that settled, and tells the plugin what runs
//! there, through `zellij-mcp foreground`, one at a time, the latest first.

use std::os::fd::{AsRawFd, BorrowedFd};
use std::process::{Command, Stdio};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use crate::processes;

/// How long after output or typing the foreground is looked at: a burst
/// of either is looked at once.
const SETTLE: Duration = Duration::from_millis(30);
/// How long after the last output or typing it is looked at again: a
/// program started then may print nothing for a while.
const SETTLED: Duration = Duration::from_secs(1);
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
}

/// Tells the plugin what the relay saw last, from a thread of its own: the
/// latest when several changes came while one was told.
#[derive(Clone)]
pub struct Teller(Arc<(Mutex<Told>, Condvar)>);

impl Teller {
    fn start() -> Teller {
        let teller = Teller(Arc::new((Mutex::new(Told::default()), Condvar::new())));
        let taken = teller.clone();
        std::thread::spawn(move || taken.tell_each());
        teller
    }

    fn latest(&self) -> MutexGuard<'_, Told> {
        self.0 .0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn change(&self, change: impl FnOnce(&mut Told)) {
        change(&mut self.latest());
        self.0 .1.notify_one();
    }

    /// A recording began (to `file`) or, none, ended.
    pub fn recording(&self, file: Option<String>) {
        self.change(|told| told.recording = file);
    }

    /// Tells each change, once what runs is known.
    fn tell_each(&self) {
        let Ok(bridge) = std::env::current_exe() else {
            return;
        };
        let mut told = Told::default();
        loop {
            let latest = {
                let mut latest = self.latest();
                while latest.running.is_none() || *latest == told {
                    latest = self
                        .0
                         .1
                        .wait(latest)
                        .unwrap_or_else(PoisonError::into_inner);
                }
                latest.clone()
            };
            if let Some(running) = &latest.running {
                tell(&bridge, running, latest.recording.as_deref());
            }
            told = latest;
        }
    }
}

/// The foreground as last looked at, and when to look again.
pub struct Foreground {
    due: Option<Instant>,
    /// The look once output and typing settled.
    settled: Option<Instant>,
    /// None outside a Zellij pane.
    teller: Option<Teller>,
}

impl Foreground {
    /// Looks at once, and tells where the relay runs in a Zellij pane.
    pub fn new() -> Foreground {
        let in_pane = ["ZELLIJ_SESSION_NAME", "ZELLIJ_PANE_ID"]
            .iter()
            .all(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty()));
        Foreground {
            due: Some(Instant::now()),
            settled: None,
            teller: in_pane.then(Teller::start),
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
        }
    }

    /// How long until the next look, if one is due.
    pub fn within(&self) -> Option<Duration> {
        self.teller.as_ref()?;
        let next = self.due.into_iter().chain(self.settled).min()?;
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
        if !due && !settled {
            return;
        }
        if let Some(running) = running_on(near) {
            teller.change(|told| told.running = Some(running));
        }
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

/// Tells the plugin, through `zellij-mcp foreground`, what runs and where
/// the pane is recorded to.
fn tell(bridge: &std::path::Path, running: &Running, recording: Option<&str>) {
    let mut command = Command::new(bridge);
    command.arg("foreground");
    if let Some(cwd) = &running.cwd {
        command.arg("--cwd").arg(cwd);
    }
    if let Some(file) = recording {
        command.arg("--recording").arg(file);
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
