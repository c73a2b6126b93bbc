//! Linux: `/proc/<pid>/stat` for a process's name, parent, groups and run
//! state, and `wchan` for the kernel function it sleeps in. "Blocked
//! reading the terminal" is a sleep in the tty's read (`wait_woken`, or
//! `n_tty_read` on older kernels); bash's readline and fish wait in
//! `poll`/`select` at their prompt, zsh's zle in a terminal read.
//! Files are kept open: a read of an open file costs a third of opening it
//! anew, and fails once the process is gone (so a pid another process
//! takes later is opened anew).

use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use zellij_mcp_protocol::ops::PaneState;

use super::{Lookup, Process, ProcessTable};

/// Shells whose line editor waits in `poll`/`select`: a terminal read of
/// theirs is a `read` builtin.
pub const POLLING_SHELLS: &[&str] = &["bash", "fish"];

/// Process files kept open at most (a list of 200 panes keeps each pane's
/// `stat` and `wchan`); past that, all are closed and opened again as read.
const MOST_OPEN: usize = 400;

/// Where the kernel's process files are (a test may point elsewhere), and
/// the ones read so far, kept open.
pub struct Procfs {
    root: PathBuf,
    open: Mutex<HashMap<(u32, &'static str), File>>,
}

/// The fields of `/proc/<pid>/stat` this needs.
struct Stat {
    comm: String,
    state: char,
    ppid: u32,
    pgrp: i32,
    tpgid: i32,
    /// `starttime`: clock ticks after boot.
    starttime: u64,
}

impl ProcessTable for Procfs {
    fn platform(&self) -> &'static str {
        "Linux"
    }

    fn process(&self, pid: u32) -> Lookup {
        match self.stat(pid) {
            Some(stat) => Lookup::Found(Process {
                zombie: stat.state == 'Z',
                name: stat.comm,
                parent: stat.ppid,
                group: stat.pgrp,
                terminal_group: stat.tpgid,
                started: stat.starttime,
            }),
            None if self.root.join("self").exists() => Lookup::Gone,
            None => Lookup::CannotTell,
        }
    }

    fn reads_terminal(&self, pid: u32) -> Option<bool> {
        let asleep = self.stat(pid).is_some_and(|s| s.state == 'S');
        Some(asleep && self.wchan_is(pid, is_terminal_read))
    }

    fn at_line_editor(&self, pid: u32) -> Option<bool> {
        let Some(own) = self.stat(pid) else {
            return Some(false);
        };
        let foreground = own.tpgid > 0 && own.tpgid == own.pgrp;
        let polls = POLLING_SHELLS.contains(&own.comm.as_str());
        let editing = |wchan: &str| match polls {
            true => wchan.contains("poll") || wchan.contains("select"),
            false => is_terminal_read(wchan),
        };
        Some(foreground && own.state == 'S' && self.wchan_is(pid, editing))
    }

    fn tree(&self, pid: u32) -> Option<Vec<u32>> {
        let all = std::fs::read_dir(&self.root).ok()?;
        let parents: Vec<(u32, u32)> = all
            .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
            .filter_map(|p: u32| {
                // Read once, not kept open as a watched process's stat is.
                let stat = std::fs::read_to_string(self.root.join(p.to_string()).join("stat"));
                Some((p, parse_stat(&stat.ok()?)?.ppid))
            })
            .collect();
        let mut tree = vec![pid];
        let mut at = 0;
        while at < tree.len() {
            let parent = tree[at];
            tree.extend(
                parents
                    .iter()
                    .filter(|(_, pp)| *pp == parent)
                    .map(|(p, _)| *p),
            );
            at += 1;
        }
        Some(tree)
    }

    fn open_files(&self, pid: u32) -> Option<Vec<PathBuf>> {
        let fds = std::fs::read_dir(self.root.join(pid.to_string()).join("fd")).ok()?;
        Some(
            fds.filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
                .collect(),
        )
    }

    fn environment(&self, pid: u32) -> Option<HashMap<String, String>> {
        // Read anew: unlike stat, it never changes, and is asked rarely.
        let path = self.root.join(pid.to_string()).join("environ");
        let bytes = std::fs::read(path).ok()?;
        let entries = bytes.split(|b| *b == 0).filter_map(|entry| {
            let text = std::str::from_utf8(entry).ok()?;
            let (name, value) = text.split_once('=')?;
            Some((name.to_owned(), value.to_owned()))
        });
        Some(entries.collect())
    }

    fn command_line(&self, pid: u32) -> Option<Vec<String>> {
        let bytes = std::fs::read(self.root.join(pid.to_string()).join("cmdline")).ok()?;
        let words = bytes.split(|b| *b == 0).filter(|w| !w.is_empty());
        Some(
            words
                .map(|w| String::from_utf8_lossy(w).into_owned())
                .collect(),
        )
    }

    fn boot(&self) -> Option<String> {
        let path = self.root.join("sys/kernel/random/boot_id");
        Some(std::fs::read_to_string(path).ok()?.trim().to_owned())
    }

    fn tells(&self, _: PaneState) -> bool {
        true
    }
}

impl Procfs {
    pub fn at(root: &Path) -> Self {
        Procfs {
            root: root.to_path_buf(),
            open: Mutex::default(),
        }
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

    /// Whether the kernel function `pid` waits in passes `test`.
    fn wchan_is(&self, pid: u32, test: impl Fn(&str) -> bool) -> bool {
        self.read(pid, "wchan").is_some_and(|w| test(w.trim()))
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
        ppid: rest.get(1)?.parse().ok()?,
        pgrp: rest.get(2)?.parse().ok()?,
        tpgid: rest.get(5)?.parse().ok()?,
        starttime: rest
            .get(19)
            .and_then(|t| t.parse().ok())
            .unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::processes::pane_state::state_of;

    /// A recorded `/proc` with processes (pid, comm, state, pgrp, tpgid,
    /// wchan), each the child of pid 1.
    pub fn procfs(name: &str, processes: &[(u32, &str, char, i32, i32, &str)]) -> Procfs {
        let root = std::env::temp_dir().join(format!("zmcp-proc-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("self")).unwrap();
        for (pid, comm, state, pgrp, tpgid, wchan) in processes {
            let dir = root.join(pid.to_string());
            std::fs::create_dir_all(&dir).unwrap();
            let stat = format!(
                "{pid} ({comm}) {state} 1 {pgrp} {pgrp} 34817 {tpgid} 0 0 0 0 0 0 0 0 0 20 0 1 0 {pid}0 0"
            );
            std::fs::write(dir.join("stat"), stat).unwrap();
            std::fs::write(dir.join("wchan"), wchan).unwrap();
        }
        Procfs::at(&root)
    }

    /// The panes' processes the tests below look at, in one recorded
    /// `/proc` (each test its own copy, named `name`); pid 99 is gone.
    fn panes(name: &str) -> Procfs {
        procfs(
            name,
            &[
                // Shells in the foreground: at the prompt, or in a read.
                (10, "bash", 'S', 10, 10, "poll_schedule_timeout.constprop.0"),
                (11, "bash", 'R', 11, 11, "0"),
                (12, "zsh", 'S', 12, 12, "wait_woken"),
                (13, "bash", 'S', 13, 13, "wait_woken"),
                (14, "fish", 'S', 14, 98, "do_select"),
                (15, "dash", 'S', 15, 15, "wait_woken"),
                // A shell running a program that sleeps, or reads.
                (20, "bash", 'S', 20, 21, "do_wait"),
                (21, "sleep", 'S', 21, 21, "hrtimer_nanosleep"),
                (30, "bash", 'S', 30, 31, "do_wait"),
                (31, "cat", 'S', 31, 31, "wait_woken"),
                // Command panes.
                (40, "vim (x)", 'R', 40, 40, "0"),
                (50, "cat", 'S', 50, 50, "wait_woken"),
                // A pipeline: its group's leader reads the terminal.
                (60, "bash", 'S', 60, 61, "do_wait"),
                (61, "cat", 'S', 61, 61, "wait_woken"),
                (62, "grep", 'S', 61, 61, "pipe_read"),
                // A zombie, and a process without a terminal.
                (70, "sh", 'Z', 70, 70, "0"),
                (80, "daemon", 'S', 80, -1, "0"),
            ],
        )
    }

    #[test]
    fn a_shell_in_the_foreground_is_at_its_prompt_or_in_a_read() {
        let p = panes("shell");
        assert_eq!(state_of(&p, 10), Some(PaneState::Prompt));
        assert_eq!(state_of(&p, 13), Some(PaneState::WaitingInput));
        assert_eq!(state_of(&p, 15), Some(PaneState::Prompt));
    }

    #[test]
    fn a_foreground_program_runs_or_waits_for_input() {
        let p = panes("program");
        assert_eq!(state_of(&p, 20), Some(PaneState::Running));
        assert_eq!(state_of(&p, 30), Some(PaneState::WaitingInput));
        assert_eq!(state_of(&p, 40), Some(PaneState::Running), "a command pane");
        assert_eq!(state_of(&p, 50), Some(PaneState::WaitingInput));
        assert_eq!(
            state_of(&p, 60),
            Some(PaneState::WaitingInput),
            "a pipeline"
        );
        assert_eq!(state_of(&p, 99), Some(PaneState::Exited), "gone");
    }

    #[test]
    fn a_zombie_has_exited_and_a_process_without_a_terminal_is_unknown() {
        let p = panes("odd");
        assert_eq!(state_of(&p, 70), Some(PaneState::Exited));
        assert_eq!(state_of(&p, 80), None);
    }

    #[test]
    fn without_proc_nothing_is_told() {
        let p = Procfs::at(Path::new("/no/such/proc"));
        assert_eq!(p.process(1), Lookup::CannotTell);
        assert_eq!(state_of(&p, 1), None, "not `exited`");
    }

    #[test]
    fn a_file_kept_open_tells_the_process_is_gone() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let proc = Procfs::at(Path::new("/proc"));
        let Lookup::Found(sleep) = proc.process(child.id()) else {
            panic!("the child is in /proc")
        };
        assert_eq!(sleep.name, "sleep");
        assert_eq!(proc.open.lock().unwrap().len(), 1, "kept open");
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(proc.process(child.id()), Lookup::Gone, "though kept open");
        assert!(proc.open.lock().unwrap().is_empty());
    }

    #[test]
    fn a_process_tree_open_files_and_environment_are_read() {
        let table = Procfs::at(Path::new("/proc"));
        let pid = std::process::id();
        let tree = table.tree(std::process::id()).expect("this process's tree");
        assert_eq!(tree[0], std::process::id());
        let open = table.open_files(pid).expect("its open files");
        assert!(!open.is_empty());
        let started = table.environment(pid).expect("its own environment");
        assert_eq!(started.get("HOME"), std::env::var("HOME").ok().as_ref());
        assert_eq!(table.environment(u32::MAX), None);
    }

    #[test]
    fn stat_lines_with_odd_names_parse() {
        let stat = parse_stat("7 (a (b) c) S 1 7 7 34817 9 4194304").unwrap();
        assert_eq!(
            (
                stat.comm.as_str(),
                stat.state,
                stat.ppid,
                stat.pgrp,
                stat.tpgid
            ),
            ("a (b) c", 'S', 1, 7, 9)
        );
        assert!(parse_stat("garbage").is_none());
    }

    #[test]
    fn this_process_and_its_parents_are_its_ancestors() {
        let proc = Procfs::at(Path::new("/proc"));
        let me = std::process::id();
        let chain = proc.ancestors(me).unwrap();
        assert_eq!(chain[0], me);
        let Lookup::Found(own) = proc.process(me) else {
            panic!("this process is in /proc")
        };
        assert_eq!(chain.get(1).copied(), Some(own.parent).filter(|&p| p > 1));
    }

    #[test]
    fn a_shell_is_at_its_line_editor_only_asleep_where_its_editor_waits() {
        let p = panes("editor");
        assert_eq!(p.at_line_editor(10), Some(true), "bash waiting in poll");
        assert_eq!(p.at_line_editor(11), Some(false), "between two commands");
        assert_eq!(p.at_line_editor(12), Some(true), "zsh reads at its prompt");
        assert_eq!(p.at_line_editor(13), Some(false), "bash in a read builtin");
        assert_eq!(p.at_line_editor(14), Some(false), "not in the foreground");
        assert_eq!(p.at_line_editor(99), Some(false), "no such process");
    }
}
