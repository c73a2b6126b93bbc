//! The commands for people: each runs from a shell, prints for a person
//! (or `--json` for a script) and ends with an exit code. `setup` has a
//! folder of its own ([`crate::setup`]), as do `tmux` and `claude`
//! ([`crate::tmux`]).
//!
//! - [`agents`]: `agents` and `board`, the session's agents as the board
//!   shows them.
//! - [`call`]: `call` and `tools`, any tool from a shell.
//! - [`doctor`]: what is wrong and how to fix it.
//! - [`notify`]: a message from a shell.
//! - [`record`]: a recording of a relayed pane begun or ended.
//! - [`hook`]: what an agent program's hook tells (run by the program).
//! - [`launch`]: an agent program started with its hooks (run by the
//!   plugin, and for `tmux` panes).

pub mod agents;
pub mod call;
pub mod doctor;
pub mod hook;
pub mod launch;
pub mod notify;
pub mod record;
