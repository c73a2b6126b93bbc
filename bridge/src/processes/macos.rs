//! macOS: the kernel's record of a process from libproc,
//! `proc_pidinfo(PROC_PIDTBSDINFO)` (a `proc_bsdinfo`: name, parent,
//! process group, its terminal and that terminal's foreground group, run
//! status), and the terminal's own modes.
//!
//! macOS keeps no `wchan`, so where a sleeping process waits cannot be
//! told: a foreground program reading its terminal cannot be told from
//! one working (no `running` or `waiting_input`), nor a bash or fish
//! `read` builtin from its prompt. What is told exactly: a shell waits in
//! its line editor when it holds its terminal's foreground and the
//! terminal is in the editor's mode, line discipline and echo off (bash's
//! readline, zsh's zle and fish all set it while they read a command, and
//! put the terminal back before they run one); a process not in the table
//! has exited.
//!
//! The record is parsed from its bytes, so the parsing is tested on any
//! platform; on macOS, the layout is checked against libc's at compile
//! time.

use std::path::Path;

use zellij_mcp_protocol::ops::PaneState;

use super::{Lookup, Process, ProcessTable};

/// The size of a `proc_bsdinfo` record: fixed, the same on both of
/// macOS's architectures (no pointers).
pub const RECORD_SIZE: usize = 136;

/// Where each field this needs is in the record.
mod at {
    pub const STATUS: usize = 4;
    pub const PPID: usize = 16;
    pub const COMM: usize = 48;
    pub const NAME: usize = 64;
    pub const PGID: usize = 100;
    pub const TDEV: usize = 108;
    pub const TPGID: usize = 112;
    pub const START_SEC: usize = 120;
    pub const START_USEC: usize = 128;
}

/// `pbi_status` of a process that exited and was not reaped yet.
const ZOMBIE: u32 = 5;

/// `e_tdev` of a process without a terminal (`NODEV`).
const NO_TERMINAL: u32 = u32::MAX;

/// A process's record: what the table says of it, and its terminal's
/// device number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub process: Process,
    pub terminal: Option<u32>,
}

/// A `proc_bsdinfo` record's fields, or `None` when it is not one.
pub fn parse_record(bytes: &[u8]) -> Option<Record> {
    if bytes.len() != RECORD_SIZE {
        return None;
    }
    let word = |at: usize| u32::from_ne_bytes(bytes[at..at + 4].try_into().unwrap_or_default());
    let long = |at: usize| u64::from_ne_bytes(bytes[at..at + 8].try_into().unwrap_or_default());
    let text = |at: usize, len: usize| {
        let field = &bytes[at..at + len];
        let end = field.iter().position(|&b| b == 0).unwrap_or(len);
        String::from_utf8_lossy(&field[..end]).into_owned()
    };
    // The name as executed (up to 32 bytes), else the short one (16).
    let name = Some(text(at::NAME, 32))
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| text(at::COMM, 16));
    let terminal = Some(word(at::TDEV)).filter(|&dev| dev != NO_TERMINAL);
    Some(Record {
        process: Process {
            name,
            parent: word(at::PPID),
            group: word(at::PGID) as i32,
            terminal_group: terminal.map_or(0, |_| word(at::TPGID) as i32),
            zombie: word(at::STATUS) == ZOMBIE,
            started: long(at::START_SEC) * 1_000_000 + long(at::START_USEC),
        },
        terminal,
    })
}

/// Whether the terminal at `path` is in a line editor's mode: its line
/// discipline (`ICANON`) and echo off. `None` when it cannot be opened.
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
pub fn terminal_edits_lines(path: &Path) -> Option<bool> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::OpenOptionsExt;
    // Never made this process's controlling terminal, never waited on.
    let terminal = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOCTTY | libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    // SAFETY: termios is plain data, filled by tcgetattr on an open fd.
    let mut modes: libc::termios = unsafe { std::mem::zeroed() };
    let got = unsafe { libc::tcgetattr(terminal.as_raw_fd(), &mut modes) };
    (got == 0).then_some(modes.c_lflag & (libc::ICANON | libc::ECHO) == 0)
}

/// Where the records and terminal modes come from: the kernel, or a
/// test's recordings.
pub trait Source: Send + Sync {
    fn record(&self, pid: u32) -> Result<Record, Lookup>;
    /// Whether terminal device `dev` is in a line editor's mode.
    fn edits_lines(&self, dev: u32) -> Option<bool>;
}

/// macOS's process table, from `Source`'s records.
pub struct Macos<S>(pub S);

impl<S: Source> ProcessTable for Macos<S> {
    fn platform(&self) -> &'static str {
        "macOS"
    }

    fn process(&self, pid: u32) -> Lookup {
        match self.0.record(pid) {
            Ok(record) => Lookup::Found(record.process),
            Err(why) => why,
        }
    }

    fn reads_terminal(&self, _: u32) -> Option<bool> {
        None
    }

    fn at_line_editor(&self, pid: u32) -> Option<bool> {
        let record = match self.0.record(pid) {
            Ok(record) => record,
            Err(Lookup::Gone) => return Some(false),
            Err(_) => return None,
        };
        if !record.process.in_foreground() {
            return Some(false);
        }
        self.0.edits_lines(record.terminal?)
    }

    fn tells(&self, state: PaneState) -> bool {
        matches!(
            state,
            PaneState::Prompt | PaneState::Draft | PaneState::Exited
        )
    }
}

/// The kernel's table on this Mac.
#[cfg(target_os = "macos")]
pub fn this_mac() -> Macos<kernel::Kernel> {
    Macos(kernel::Kernel)
}

#[cfg(target_os = "macos")]
mod kernel {
    use std::ffi::CStr;
    use std::path::PathBuf;
    use std::sync::Mutex;

    use super::{at, parse_record, terminal_edits_lines, Record, Source, RECORD_SIZE};
    use crate::processes::Lookup;

    const _: () = {
        use libc::proc_bsdinfo as Info;
        use std::mem::{offset_of, size_of};
        assert!(size_of::<Info>() == RECORD_SIZE);
        assert!(offset_of!(Info, pbi_status) == at::STATUS);
        assert!(offset_of!(Info, pbi_ppid) == at::PPID);
        assert!(offset_of!(Info, pbi_comm) == at::COMM);
        assert!(offset_of!(Info, pbi_name) == at::NAME);
        assert!(offset_of!(Info, pbi_pgid) == at::PGID);
        assert!(offset_of!(Info, e_tdev) == at::TDEV);
        assert!(offset_of!(Info, e_tpgid) == at::TPGID);
        assert!(offset_of!(Info, pbi_start_tvsec) == at::START_SEC);
        assert!(offset_of!(Info, pbi_start_tvusec) == at::START_USEC);
    };

    /// libproc's `proc_pidinfo` and the terminal devices under `/dev`.
    pub struct Kernel;

    impl Source for Kernel {
        fn record(&self, pid: u32) -> Result<Record, Lookup> {
            let pid = libc::c_int::try_from(pid).map_err(|_| Lookup::Gone)?;
            let mut bytes = [0u8; RECORD_SIZE];
            // SAFETY: the buffer is RECORD_SIZE bytes, as passed.
            let filled = unsafe {
                libc::proc_pidinfo(
                    pid,
                    libc::PROC_PIDTBSDINFO,
                    0,
                    bytes.as_mut_ptr().cast(),
                    RECORD_SIZE as libc::c_int,
                )
            };
            if filled as usize == RECORD_SIZE {
                return parse_record(&bytes).ok_or(Lookup::CannotTell);
            }
            match std::io::Error::last_os_error().raw_os_error() {
                Some(libc::ESRCH) => Err(Lookup::Gone),
                _ => Err(Lookup::CannotTell),
            }
        }

        fn edits_lines(&self, dev: u32) -> Option<bool> {
            terminal_edits_lines(&terminal_path(dev)?)
        }
    }

    /// The path of the terminal device `dev` (`/dev/ttys003`).
    fn terminal_path(dev: u32) -> Option<PathBuf> {
        // devname answers in a buffer of its own: one caller at a time.
        static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
        let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: devname returns a static NUL-terminated name, or null.
        let name = unsafe { libc::devname(dev as libc::dev_t, libc::S_IFCHR) };
        if name.is_null() {
            return None;
        }
        let name = unsafe { CStr::from_ptr(name) }.to_str().ok()?;
        Some(PathBuf::from("/dev").join(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `proc_bsdinfo` record as the kernel fills it (fields this does
    /// not read hold other values, as they would).
    fn record(
        status: u32,
        ppid: u32,
        comm: &str,
        name: &str,
        pgid: u32,
        tdev: u32,
        tpgid: u32,
    ) -> Vec<u8> {
        let mut bytes = vec![0xa5u8; RECORD_SIZE];
        let mut put =
            |at: usize, value: u32| bytes[at..at + 4].copy_from_slice(&value.to_ne_bytes());
        put(at::STATUS, status);
        put(at::PPID, ppid);
        put(at::PGID, pgid);
        put(at::TDEV, tdev);
        put(at::TPGID, tpgid);
        bytes[at::START_SEC..at::START_SEC + 8].copy_from_slice(&1_790_000_000u64.to_ne_bytes());
        bytes[at::START_USEC..at::START_USEC + 8].copy_from_slice(&250_000u64.to_ne_bytes());
        let mut text = |at: usize, len: usize, value: &str| {
            bytes[at..at + len].fill(0);
            bytes[at..at + value.len()].copy_from_slice(value.as_bytes());
        };
        text(at::COMM, 16, comm);
        text(at::NAME, 32, name);
        bytes
    }

    const RUNNING: u32 = 2;

    #[test]
    fn a_shell_in_the_foreground_of_its_terminal() {
        let bytes = record(RUNNING, 812, "zsh", "zsh", 900, 0x1000003, 900);
        let parsed = parse_record(&bytes).unwrap();
        assert_eq!(parsed.terminal, Some(0x1000003));
        assert_eq!(
            parsed.process,
            Process {
                name: "zsh".into(),
                parent: 812,
                group: 900,
                terminal_group: 900,
                zombie: false,
                started: 1_790_000_000_250_000,
            }
        );
        assert!(parsed.process.in_foreground());
    }

    #[test]
    fn a_pipeline_holds_the_foreground_of_its_shells_terminal() {
        let shell = parse_record(&record(RUNNING, 812, "bash", "bash", 900, 7, 905)).unwrap();
        let leader = parse_record(&record(RUNNING, 900, "cat", "cat", 905, 7, 905)).unwrap();
        assert!(!shell.process.in_foreground());
        assert_eq!(shell.process.terminal_group, leader.process.group);
    }

    #[test]
    fn a_long_name_and_a_short_one() {
        let long = "a-program-with-a-long-name";
        let parsed = parse_record(&record(RUNNING, 1, "a-program-with-", long, 9, 7, 9)).unwrap();
        assert_eq!(parsed.process.name, long);
        let parsed = parse_record(&record(RUNNING, 1, "fish", "", 9, 7, 9)).unwrap();
        assert_eq!(parsed.process.name, "fish");
    }

    #[test]
    fn an_exited_process_and_one_without_a_terminal() {
        let zombie = parse_record(&record(ZOMBIE, 1, "sh", "sh", 9, 7, 9)).unwrap();
        assert!(zombie.process.zombie);
        let daemon =
            parse_record(&record(RUNNING, 1, "launchd", "launchd", 1, NO_TERMINAL, 0)).unwrap();
        assert_eq!(daemon.terminal, None);
        assert!(!daemon.process.in_foreground());
    }

    #[test]
    fn a_record_cut_short_is_none() {
        let bytes = record(RUNNING, 1, "sh", "sh", 9, 7, 9);
        assert_eq!(parse_record(&bytes[..100]), None);
    }

    /// A pseudo-terminal pair; the line editor's mode is told from its
    /// other side's path, as a pane's is.
    #[test]
    fn a_terminal_in_a_line_editors_mode_is_told_from_its_path() {
        use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
        // SAFETY: plain libc calls on a descriptor this test owns.
        let leader = unsafe { libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY) };
        assert!(leader >= 0);
        let leader = unsafe { OwnedFd::from_raw_fd(leader) };
        let mut name = [0 as libc::c_char; 128];
        unsafe {
            assert_eq!(libc::grantpt(leader.as_raw_fd()), 0);
            assert_eq!(libc::unlockpt(leader.as_raw_fd()), 0);
            assert_eq!(
                libc::ptsname_r(leader.as_raw_fd(), name.as_mut_ptr(), name.len()),
                0
            );
        }
        let path = unsafe { std::ffi::CStr::from_ptr(name.as_ptr()) };
        let path = std::path::PathBuf::from(path.to_str().unwrap());
        let follower = std::fs::File::options()
            .read(true)
            .write(true)
            .open(&path)
            .unwrap();
        assert_eq!(
            terminal_edits_lines(&path),
            Some(false),
            "a new terminal reads lines"
        );
        let mut modes: libc::termios = unsafe { std::mem::zeroed() };
        unsafe {
            assert_eq!(libc::tcgetattr(follower.as_raw_fd(), &mut modes), 0);
            modes.c_lflag &= !(libc::ICANON | libc::ECHO);
            assert_eq!(
                libc::tcsetattr(follower.as_raw_fd(), libc::TCSANOW, &modes),
                0
            );
        }
        assert_eq!(terminal_edits_lines(&path), Some(true), "readline's mode");
        unsafe {
            modes.c_lflag |= libc::ECHO;
            libc::tcsetattr(follower.as_raw_fd(), libc::TCSANOW, &modes);
        }
        assert_eq!(
            terminal_edits_lines(&path),
            Some(false),
            "`read -n1` echoes"
        );
        assert_eq!(terminal_edits_lines(Path::new("/no/such/tty")), None);
    }

    /// Recorded records by pid, and terminal modes by device.
    struct Recorded {
        records: Vec<(u32, Vec<u8>)>,
        editing: Vec<(u32, bool)>,
    }

    impl Source for Recorded {
        fn record(&self, pid: u32) -> Result<Record, Lookup> {
            let (_, bytes) = self
                .records
                .iter()
                .find(|(at, _)| *at == pid)
                .ok_or(Lookup::Gone)?;
            parse_record(bytes).ok_or(Lookup::CannotTell)
        }

        fn edits_lines(&self, dev: u32) -> Option<bool> {
            self.editing
                .iter()
                .find(|(at, _)| *at == dev)
                .map(|(_, e)| *e)
        }
    }

    #[test]
    fn states_are_told_where_macos_can_tell_them_and_nowhere_else() {
        use crate::processes::pane_state::state_of;
        let mac = Macos(Recorded {
            records: vec![
                (10, record(RUNNING, 1, "zsh", "zsh", 10, 1, 10)),
                (20, record(RUNNING, 1, "bash", "bash", 20, 2, 20)),
                (30, record(RUNNING, 1, "bash", "bash", 30, 3, 30)),
                (40, record(RUNNING, 1, "fish", "fish", 40, 4, 41)),
                (41, record(RUNNING, 40, "cat", "cat", 41, 4, 41)),
                (50, record(RUNNING, 1, "htop", "htop", 50, 5, 50)),
                (60, record(ZOMBIE, 1, "sh", "sh", 60, 6, 60)),
                (70, record(RUNNING, 1, "bash", "bash", 70, 7, 70)),
            ],
            editing: vec![(1, true), (2, true), (3, false), (4, false), (5, true)],
        });
        assert_eq!(state_of(&mac, 10), Some(PaneState::Prompt), "zsh");
        assert_eq!(
            state_of(&mac, 20),
            Some(PaneState::Prompt),
            "bash in readline"
        );
        assert_eq!(
            state_of(&mac, 30),
            None,
            "bash in `read`, or between commands"
        );
        assert_eq!(state_of(&mac, 40), None, "a pipeline: running or reading");
        assert_eq!(state_of(&mac, 50), None, "a program: running or reading");
        assert_eq!(state_of(&mac, 60), Some(PaneState::Exited), "a zombie");
        assert_eq!(state_of(&mac, 99), Some(PaneState::Exited), "gone");
        assert_eq!(state_of(&mac, 70), None, "its terminal cannot be read");
        assert_eq!(mac.at_line_editor(20), Some(true));
        assert_eq!(mac.at_line_editor(30), Some(false));
        assert_eq!(mac.at_line_editor(40), Some(false), "not in the foreground");
        assert_eq!(mac.at_line_editor(70), None, "cannot tell");
        assert_eq!(mac.at_line_editor(99), Some(false), "gone");
        assert_eq!(mac.ancestors(41), Some(vec![41, 40]));
        assert!(!mac.tells(PaneState::WaitingInput) && !mac.tells(PaneState::Running));
    }
}
