//! What a terminal pane is doing, told from its processes under `/proc`:
//! the bridge runs on the machine the panes run on, and the plugin cannot
//! look there. From the pane's own process (its shell, or its command):
//! - its terminal's foreground process group (`tpgid` in `stat`) is the
//!   pane's own process: a shell there is at its `prompt`; a command is
//!   `running`, or `waiting_input` when blocked reading the terminal;
//! - another group is in the foreground: `waiting_input` when its leader is
//!   blocked reading the terminal, else `running`;
//! - the process is gone: `exited`.
//!
//! "Blocked reading the terminal" is a sleep in the tty's read (`wchan`
//! `wait_woken`, or `n_tty_read` on older kernels). bash's readline and
//! fish wait in `poll`/`select` at their prompt, so a `read` builtin of
//! theirs shows as `waiting_input`; shells that read the terminal at their
//! prompt (zsh's zle, sh, dash) show `prompt` either way. A program
//! that waits for input with `poll` (an editor, a TUI) is `running`.
//! Costs: one or two small reads under `/proc` per pane, on files kept
//! open (a read of an open file costs a third of opening it anew).

use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock, PoisonError};

use zellij_mcp_protocol::ops::PaneState;
use zellij_mcp_protocol::shell_line::SHELLS;

/// Shells whose prompt waits in `poll`/`select`, so that a blocking read of
/// theirs is a `read` builtin, not the prompt (zsh's prompt reads).
const POLLING_SHELLS: &[&str] = &["bash", "fish"];

/// Process files kept open at most (a list of 200 panes keeps each pane's
/// `stat` and `wchan`); past that, all are closed and opened again as read.
const MOST_OPEN: usize = 400;

/// Where the kernel's process files are (a test may point elsewhere), and
/// the ones read so far, kept open: a process's file read again tells its
/// state now, and fails once the process is gone (so a pid another process
/// takes later is opened anew).
pub struct Procfs {
    root: PathBuf,
    open: Mutex<HashMap<(u32, &'static str), File>>,
}

/// This machine's `/proc`, shared by every caller of the bridge.
pub fn procfs() -> &'static Procfs {
    static PROC: OnceLock<Procfs> = OnceLock::new();
    PROC.get_or_init(|| Procfs::at(std::path::Path::new("/proc")))
}

/// The fields of `/proc/<pid>/stat` this needs.
struct Stat {
    comm: String,
    state: char,
    pgrp: i32,
    tpgid: i32,
}

impl Procfs {
    fn at(root: &std::path::Path) -> Self {
        Procfs {
            root: root.to_path_buf(),
            open: Mutex::default(),
        }
    }

    /// The state of the pane whose own process is `pid`; `None` when it
    /// cannot be told (another machine's pid, no terminal).
    pub fn pane_state(&self, pid: u32) -> Option<PaneState> {
        let Some(own) = self.stat(pid) else {
            return self.is_proc().then_some(PaneState::Exited);
        };
        if own.state == 'Z' {
            return Some(PaneState::Exited);
        }
        if own.tpgid <= 0 {
            return None;
        }
        if own.tpgid == own.pgrp {
            let shell = SHELLS.contains(&own.comm.as_str());
            let polls = POLLING_SHELLS.contains(&own.comm.as_str());
            // A shell that reads the terminal at its prompt is at its
            // prompt either way: its wchan is not read (a list reads
            // every pane's processes).
            let reading = || own.state == 'S' && self.wchan_is(pid as i32, is_terminal_read);
            return Some(match shell {
                true if polls && reading() => PaneState::WaitingInput,
                true => PaneState::Prompt,
                false if reading() => PaneState::WaitingInput,
                false => PaneState::Running,
            });
        }
        let reading = |pid: i32| self.reads_terminal(pid);
        Some(match reading(own.tpgid) {
            true => PaneState::WaitingInput,
            false => PaneState::Running,
        })
    }

    /// The name of process `pid` (`comm`): for a pane's own process, its
    /// shell or command.
    pub fn name_of(&self, pid: u32) -> Option<String> {
        self.stat(pid).map(|stat| stat.comm)
    }

    /// Whether `/proc` is there at all (else a missing pid says nothing).
    fn is_proc(&self) -> bool {
        self.root.join("self").exists()
    }

    fn stat(&self, pid: u32) -> Option<Stat> {
        parse_stat(&self.read(pid, "stat")?)
    }

    /// The text of the process's `file`, read from the start of a file kept
    /// open; `None` when the process is gone or never was.
    fn read(&self, pid: u32, file: &'static str) -> Option<String> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(text) = open.get(&(pid, file)).and_then(read_whole) {
            return Some(text);
        }
        open.remove(&(pid, file));
        let opened = File::open(self.root.join(pid.to_string()).join(file)).ok()?;
        let text = read_whole(&opened)?;
        if open.len() >= MOST_OPEN {
            open.clear();
        }
        open.insert((pid, file), opened);
        Some(text)
    }

    /// Whether `pid` sleeps in a terminal read.
    fn reads_terminal(&self, pid: i32) -> bool {
        self.sleeps_in(pid, is_terminal_read)
    }

    /// Whether the shell `pid` waits in its line editor for a command:
    /// in the foreground, asleep where its editor waits for keys (`poll`
    /// or `select` for bash and fish, a terminal read for zsh). Stricter
    /// than `prompt`, which a shell also is between two commands, while
    /// what is typed would still be echoed raw by the terminal.
    pub fn at_line_editor(&self, pid: u32) -> bool {
        let Some(own) = self.stat(pid) else {
            return false;
        };
        let foreground = own.tpgid > 0 && own.tpgid == own.pgrp;
        let polls = POLLING_SHELLS.contains(&own.comm.as_str());
        let editing = |wchan: &str| match polls {
            true => wchan.contains("poll") || wchan.contains("select"),
            false => is_terminal_read(wchan),
        };
        foreground && own.state == 'S' && self.wchan_is(pid as i32, editing)
    }

    /// Whether `pid` is asleep in a kernel function `wchan` accepts.
    fn sleeps_in(&self, pid: i32, wchan: impl Fn(&str) -> bool) -> bool {
        let asleep = self.stat(pid as u32).is_some_and(|s| s.state == 'S');
        asleep && self.wchan_is(pid, wchan)
    }

    /// Whether the kernel function `pid` waits in passes `test`.
    fn wchan_is(&self, pid: i32, test: impl Fn(&str) -> bool) -> bool {
        let read = u32::try_from(pid)
            .ok()
            .and_then(|pid| self.read(pid, "wchan"));
        read.is_some_and(|w| test(w.trim()))
    }
}

/// A process file's whole text, read from its start (the kernel writes it
/// anew for each read at offset 0).
fn read_whole(file: &File) -> Option<String> {
    let mut text = Vec::new();
    let mut chunk = [0u8; 1024];
    loop {
        let read = file.read_at(&mut chunk, text.len() as u64).ok()?;
        if read == 0 {
            return String::from_utf8(text).ok();
        }
        text.extend_from_slice(&chunk[..read]);
    }
}

fn is_terminal_read(wchan: &str) -> bool {
    matches!(wchan, "wait_woken" | "n_tty_read")
}

/// `pid (comm) S ppid pgrp session tty_nr tpgid ...`; `comm` may hold
/// spaces and parentheses, so the fields are counted after the last `)`.
fn parse_stat(text: &str) -> Option<Stat> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let comm = text.get(open + 1..close)?.to_owned();
    let rest: Vec<&str> = text.get(close + 1..)?.split_whitespace().collect();
    Some(Stat {
        comm,
        state: rest.first()?.chars().next()?,
        pgrp: rest.get(2)?.parse().ok()?,
        tpgid: rest.get(5)?.parse().ok()?,
    })
}

/// The state of the pane whose own process is `pid`, on this machine's
/// `/proc`.
pub fn pane_state(pid: Option<u32>) -> Option<PaneState> {
    procfs().pane_state(pid?)
}

/// Sessions whose last listed processes are remembered, at most.
const MOST_SESSIONS_REMEMBERED: usize = 64;

/// The processes each session's last pane list told the state of. The next
/// list of a session mostly shows the same panes, so their states are read
/// while that list is on its way from the plugin: the reads, a third of a
/// 100-pane list's time, overlap its round trip rather than follow it.
#[derive(Default)]
pub struct LastListed(Mutex<HashMap<Option<String>, Vec<u32>>>);

/// States read ahead, by pid.
pub type ReadAhead = HashMap<u32, Option<PaneState>>;

impl LastListed {
    /// Starts reading the states of the processes `session`'s last list
    /// showed (`None`: the default session).
    pub fn read_ahead(&self, session: Option<&str>) -> tokio::task::JoinHandle<ReadAhead> {
        let pids = self.lock().get(&session.map(str::to_owned)).cloned();
        tokio::task::spawn_blocking(move || {
            let procfs = procfs();
            let pids = pids.unwrap_or_default().into_iter();
            pids.map(|pid| (pid, procfs.pane_state(pid))).collect()
        })
    }

    pub fn remember(&self, session: Option<&str>, pids: Vec<u32>) {
        let mut sessions = self.lock();
        if sessions.len() >= MOST_SESSIONS_REMEMBERED {
            sessions.clear();
        }
        sessions.insert(session.map(str::to_owned), pids);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Option<String>, Vec<u32>>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_sessions_last_listed_processes_are_read_ahead_and_no_others() {
        let listed = LastListed::default();
        let me = std::process::id();
        assert!(listed.read_ahead(Some("a")).await.unwrap().is_empty());
        listed.remember(Some("a"), vec![me]);
        let ahead = listed.read_ahead(Some("a")).await.unwrap();
        let now = crate::pane_state::procfs().pane_state(me);
        assert_eq!(ahead.len(), 1);
        assert_eq!(ahead.get(&me), Some(&now));
        assert!(listed.read_ahead(None).await.unwrap().is_empty());
        assert!(listed.read_ahead(Some("b")).await.unwrap().is_empty());
    }

    /// A fake `/proc` with processes (pid, comm, state, pgrp, tpgid, wchan).
    fn procfs(name: &str, processes: &[(u32, &str, char, i32, i32, &str)]) -> Procfs {
        let root = std::env::temp_dir().join(format!("zmcp-proc-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("self")).unwrap();
        for (pid, comm, state, pgrp, tpgid, wchan) in processes {
            let dir = root.join(pid.to_string());
            std::fs::create_dir_all(&dir).unwrap();
            let stat = format!("{pid} ({comm}) {state} 1 {pgrp} {pgrp} 34817 {tpgid} 0 0 0");
            std::fs::write(dir.join("stat"), stat).unwrap();
            std::fs::write(dir.join("wchan"), wchan).unwrap();
        }
        Procfs::at(&root)
    }

    #[test]
    fn a_shell_in_the_foreground_is_at_its_prompt_or_in_a_read() {
        let p = procfs(
            "shell",
            &[
                (10, "bash", 'S', 10, 10, "poll_schedule_timeout.constprop.0"),
                (20, "bash", 'S', 20, 20, "wait_woken"),
                (30, "dash", 'S', 30, 30, "wait_woken"),
            ],
        );
        assert_eq!(p.pane_state(10), Some(PaneState::Prompt));
        assert_eq!(p.pane_state(20), Some(PaneState::WaitingInput));
        assert_eq!(p.pane_state(30), Some(PaneState::Prompt));
    }

    #[test]
    fn a_foreground_program_runs_or_waits_for_input() {
        let p = procfs(
            "program",
            &[
                (10, "bash", 'S', 10, 11, "do_wait"),
                (11, "sleep", 'S', 11, 11, "hrtimer_nanosleep"),
                (20, "bash", 'S', 20, 21, "do_wait"),
                (21, "cat", 'S', 21, 21, "wait_woken"),
                (30, "vim (x)", 'R', 30, 30, "0"),
                (40, "cat", 'S', 40, 40, "wait_woken"),
            ],
        );
        assert_eq!(p.pane_state(10), Some(PaneState::Running));
        assert_eq!(p.pane_state(20), Some(PaneState::WaitingInput));
        assert_eq!(p.pane_state(30), Some(PaneState::Running), "a command pane");
        assert_eq!(p.pane_state(40), Some(PaneState::WaitingInput));
        assert_eq!(p.pane_state(99), Some(PaneState::Exited), "gone");
    }

    #[test]
    fn a_zombie_has_exited_and_a_process_without_a_terminal_is_unknown() {
        let p = procfs(
            "odd",
            &[
                (10, "sh", 'Z', 10, 10, "0"),
                (20, "daemon", 'S', 20, -1, "0"),
            ],
        );
        assert_eq!(p.pane_state(10), Some(PaneState::Exited));
        assert_eq!(p.pane_state(20), None);
    }

    #[test]
    fn a_file_kept_open_tells_the_process_is_gone() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let proc = Procfs::at(std::path::Path::new("/proc"));
        assert_eq!(proc.name_of(child.id()).as_deref(), Some("sleep"));
        assert_eq!(proc.open.lock().unwrap().len(), 1, "kept open");
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(proc.name_of(child.id()), None, "gone, though kept open");
        assert!(proc.open.lock().unwrap().is_empty());
    }

    #[test]
    fn stat_lines_with_odd_names_parse() {
        let stat = parse_stat("7 (a (b) c) S 1 7 7 34817 9 4194304").unwrap();
        assert_eq!(
            (stat.comm.as_str(), stat.state, stat.pgrp, stat.tpgid),
            ("a (b) c", 'S', 7, 9)
        );
        assert!(parse_stat("garbage").is_none());
    }

    #[test]
    fn a_shell_is_at_its_line_editor_only_asleep_where_its_editor_waits() {
        let p = procfs(
            "editor",
            &[
                (10, "bash", 'S', 10, 10, "poll_schedule_timeout.constprop.0"),
                (11, "bash", 'R', 11, 11, "0"),
                (12, "zsh", 'S', 12, 12, "wait_woken"),
                (13, "bash", 'S', 13, 13, "wait_woken"),
                (14, "fish", 'S', 14, 99, "do_select"),
            ],
        );
        assert!(p.at_line_editor(10), "bash waiting in poll");
        assert!(!p.at_line_editor(11), "bash between two commands");
        assert!(p.at_line_editor(12), "zsh reads the terminal at its prompt");
        assert!(!p.at_line_editor(13), "bash in a read builtin");
        assert!(!p.at_line_editor(14), "not in the foreground");
        assert!(!p.at_line_editor(15), "no such process");
    }
}
