//! The plugin's state, in plain types tested natively on the fake host:
//! none of them knows the plugin that holds them ([`crate::McpPlugin`]).

pub mod agents;
pub mod attention;
pub mod event_log;
pub mod handled;
pub mod hooks;
pub mod kept;
pub mod later;
pub mod lease;
pub mod messages;
pub mod pane_facts;
pub mod programs_file;
pub mod relay_screens;
pub mod replay;
pub mod session;
pub mod shares;
pub mod shell_runs;
pub mod waits;
pub mod writes;
