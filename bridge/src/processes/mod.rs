//! What this machine's process table tells about a process, one source per
//! platform behind [`ProcessTable`]: Linux reads `/proc` ([`linux`]), macOS
//! asks the kernel through libproc ([`macos`]), and where neither applies
//! (or `ZELLIJ_MCP_PROCESS_TABLE=none` says so, as a test does) nothing is
//! told ([`Unknowing`]). Pane states ([`pane_state`]), shell runs and
//! the server's own pane are built on these facts alone, and each platform
//! tells what it can: a fact it cannot tell is `None`, never a guess.

pub mod leftovers;
pub mod linux;
pub mod macos;
pub mod pane_state;

use std::collections::HashMap;
use std::sync::OnceLock;

use zellij_mcp_protocol::ops::PaneState;

/// The setting that turns the process table off (`none`), so that a test
/// sees every answer a platform that tells nothing gives.
pub const TABLE_SETTING: &str = "ZELLIJ_MCP_PROCESS_TABLE";

/// What the table says of one process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Process {
    /// Its program's short name (`comm`): a shell's is `bash`, `zsh`, `fish`.
    pub name: String,
    pub parent: u32,
    pub group: i32,
    /// The foreground process group of its terminal; 0 or less: it has
    /// no terminal.
    pub terminal_group: i32,
    /// Exited, not yet reaped.
    pub zombie: bool,
    /// When it started (in the platform's own unit): a pid taken by
    /// another process later has another.
    pub started: u64,
}

impl Process {
    /// Whether its own group holds its terminal's foreground.
    pub fn in_foreground(&self) -> bool {
        self.terminal_group > 0 && self.terminal_group == self.group
    }
}

/// A process looked up by pid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    Found(Process),
    /// Not in the table: it ended (or never ran on this machine).
    Gone,
    /// This platform's table cannot be read.
    CannotTell,
}

/// The facts the bridge reads from processes, as one platform tells them.
pub trait ProcessTable: Send + Sync {
    /// The platform's name, for answers that say what it cannot tell.
    fn platform(&self) -> &'static str;

    fn process(&self, pid: u32) -> Lookup;

    /// Whether `pid` is blocked reading its terminal; `None` when the
    /// platform cannot tell (macOS keeps no `wchan`).
    fn reads_terminal(&self, pid: u32) -> Option<bool>;

    /// Whether the shell `pid` waits in its line editor for a command: in
    /// the foreground, its editor reading keys. Stricter than `prompt`,
    /// which a shell also is between two commands, while what is typed
    /// would still be echoed raw by the terminal. `None`: cannot tell.
    fn at_line_editor(&self, pid: u32) -> Option<bool>;

    /// Whether a pane's `state` can be this one when told from processes.
    fn tells(&self, state: PaneState) -> bool;

    /// `pid` and the processes it started, and theirs (each program keeps
    /// its record from a process of its own); `None` when the platform
    /// cannot tell.
    fn tree(&self, _pid: u32) -> Option<Vec<u32>> {
        None
    }

    /// The files `pid` holds open; `None` when the platform cannot tell.
    fn open_files(&self, _pid: u32) -> Option<Vec<std::path::PathBuf>> {
        None
    }

    /// The environment `pid` started with (where its program keeps its
    /// files); `None` when the platform cannot tell.
    fn environment(&self, _pid: u32) -> Option<HashMap<String, String>> {
        None
    }

    /// The words `pid` was started with; `None` when the platform cannot
    /// tell.
    fn command_line(&self, _pid: u32) -> Option<Vec<String>> {
        None
    }

    /// This boot of the machine, where [`Process::started`] counts from
    /// boot (so that a process of an earlier boot is never taken for one of
    /// this one); `""` where it is counted from a fixed time.
    fn boot(&self) -> Option<String> {
        None
    }

    /// `pid` and its ancestors, nearest first, or `None` when the table
    /// cannot tell them.
    fn ancestors(&self, pid: u32) -> Option<Vec<u32>> {
        let mut chain = vec![pid];
        loop {
            let last = *chain.last()?;
            let parent = match self.process(last) {
                Lookup::Found(process) => process.parent,
                Lookup::Gone => return Some(chain),
                Lookup::CannotTell => return None,
            };
            if parent <= 1 || chain.contains(&parent) {
                return Some(chain);
            }
            chain.push(parent);
        }
    }
}

/// A table that tells nothing: a platform without one, or the table
/// turned off.
pub struct Unknowing(pub &'static str);

impl ProcessTable for Unknowing {
    fn platform(&self) -> &'static str {
        self.0
    }

    fn process(&self, _: u32) -> Lookup {
        Lookup::CannotTell
    }

    fn reads_terminal(&self, _: u32) -> Option<bool> {
        None
    }

    fn at_line_editor(&self, _: u32) -> Option<bool> {
        None
    }

    fn tells(&self, _: PaneState) -> bool {
        false
    }
}

/// This machine's process table, shared by every caller of the bridge.
pub fn table() -> &'static dyn ProcessTable {
    static TABLE: OnceLock<Box<dyn ProcessTable>> = OnceLock::new();
    TABLE.get_or_init(this_platform).as_ref()
}

fn this_platform() -> Box<dyn ProcessTable> {
    if std::env::var(TABLE_SETTING).is_ok_and(|v| v == "none") {
        return Box::new(Unknowing("this machine (its process table turned off)"));
    }
    #[cfg(target_os = "linux")]
    return Box::new(linux::Procfs::at(std::path::Path::new("/proc")));
    #[cfg(target_os = "macos")]
    return Box::new(macos::this_mac());
    #[allow(unreachable_code)]
    Box::new(Unknowing(std::env::consts::OS))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_that_tells_nothing_says_nothing_wrong() {
        let none = Unknowing("nowhere");
        assert_eq!(
            crate::processes::pane_state::state_of(&none, std::process::id()),
            None
        );
        assert_eq!(none.ancestors(std::process::id()), None);
        assert_eq!(none.at_line_editor(1), None);
        assert_eq!(none.process(1), Lookup::CannotTell);
    }
}
