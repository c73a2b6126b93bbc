//! What a terminal pane is doing, told from its processes (see
//! [`crate::processes`]): the bridge runs on the machine the panes run on,
//! and the plugin cannot look there. From the pane's own process (its
//! shell, or its command):
//! - its terminal's foreground process group is the pane's own process:
//!   a shell there is at its `prompt` (bash and fish: `waiting_input` in a
//!   `read` builtin); a command is `running`, or `waiting_input` when
//!   blocked reading the terminal;
//! - another group is in the foreground: `waiting_input` when its leader is
//!   blocked reading the terminal, else `running`;
//! - the process is gone: `exited`.
//!
//! Shells that read the terminal at their prompt (zsh's zle, sh, dash) show
//! `prompt` in a `read` builtin too. A program that waits for input with
//! `poll` (an editor, a TUI) is `running`. Where the platform cannot tell
//! whether a process reads its terminal (macOS), a bash or fish is at its
//! `prompt` only in its line editor, and a program has no state.
//! Costs (Linux): one or two small reads under `/proc` per pane.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use zellij_mcp_protocol::ops::PaneState;
use zellij_mcp_protocol::shell_line::SHELLS;

use crate::processes::linux::POLLING_SHELLS;
use crate::processes::{table, Lookup, ProcessTable};

/// The state of the pane whose own process is `pid`, as `processes` tell
/// it; `None` when they cannot (another machine's pid, no terminal, a
/// platform that cannot tell this one).
pub fn state_of(processes: &dyn ProcessTable, pid: u32) -> Option<PaneState> {
    let own = match processes.process(pid) {
        Lookup::Found(own) => own,
        Lookup::Gone => return Some(PaneState::Exited),
        Lookup::CannotTell => return None,
    };
    if own.zombie {
        return Some(PaneState::Exited);
    }
    if own.terminal_group <= 0 {
        return None;
    }
    let reading = |pid: u32| {
        processes.reads_terminal(pid).map(|reads| match reads {
            true => PaneState::WaitingInput,
            false => PaneState::Running,
        })
    };
    if !own.in_foreground() {
        return reading(own.terminal_group as u32);
    }
    let name = own.name.as_str();
    if !SHELLS.contains(&name) {
        return reading(pid);
    }
    // A shell that reads the terminal at its prompt is at its prompt
    // either way: its terminal read is not looked at (a list reads every
    // pane's processes).
    if !POLLING_SHELLS.contains(&name) {
        return Some(PaneState::Prompt);
    }
    match processes.reads_terminal(pid) {
        Some(true) => Some(PaneState::WaitingInput),
        Some(false) => Some(PaneState::Prompt),
        None => (processes.at_line_editor(pid) == Some(true)).then_some(PaneState::Prompt),
    }
}

/// The state of the pane whose own process is `pid`, on this machine.
pub fn pane_state(pid: Option<u32>) -> Option<PaneState> {
    state_of(table(), pid?)
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
            let pids = pids.unwrap_or_default().into_iter();
            pids.map(|pid| (pid, state_of(table(), pid))).collect()
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
        let now = state_of(table(), me);
        assert_eq!(ahead.len(), 1);
        assert_eq!(ahead.get(&me), Some(&now));
        assert!(listed.read_ahead(None).await.unwrap().is_empty());
        assert!(listed.read_ahead(Some("b")).await.unwrap().is_empty());
    }
}
