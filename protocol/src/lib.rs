//! The wire contract between the zellij-mcp bridge and the zellij-mcp plugin.
//!
//! Both halves depend on this crate, so a change here is a change to both.
//! It is plain serde with no Zellij dependency and is tested natively.
//!
//! ## Wire format
//!
//! Every pipe message named [`PIPE_NAME`] carries one [`Request`] as JSON:
//!
//! ```text
//! {"v":1, "id":"zmcp-41.1-7", "op":"rename", "args":{"pane_id":"terminal_3","name":"build"},
//!  "caller":"terminal_2"}
//! ```
//!
//! - `v` is [`PROTOCOL_VERSION`]; `id` is unique per bridge process, and
//!   what comes before its last `-` names the client (one MCP session),
//!   whose own share of the plugin's caps the request counts against
//!   ([`envelope::client_of`]);
//! - `op` names one of the ops in [`ops::op`], and `args` is that op's
//!   argument type ([`ops::Op::Args`]);
//! - `caller`, when known, is the pane the request comes from (the bridge's
//!   own): new panes go to its tab, and it is not closed by accident.
//!
//! The plugin answers every request exactly once, on the pipe's output:
//! `{"v":1, "id", "ok":true, "result"}` with the op's result type
//! ([`ops::Op::Result`]), or `{"v":1, "id", "ok":false, "error":{"code",
//! "message", "hint"}}` ([`ErrorBody`], made from an [`Error`]); then it releases the pipe. A reply
//! is one newline-terminated line, or, when larger than [`MAX_FRAME_BYTES`],
//! a sequence of [`Frame::Part`]s that [`Assembler`] joins back together.
//! Every line names the request id, so a reader can drop lines that belong
//! to another (stale or duplicated) request. Results do not name their
//! session; the bridge adds it.

pub mod agent_name;
pub mod agent_programs;
pub mod agent_screen;
pub mod board;
pub mod cursor;
pub mod envelope;
pub mod errors;
pub mod frames;
pub mod fresh;
pub mod hooks;
pub mod keys;
pub mod launcher;
pub mod limits;
pub mod matching;
pub mod ops;
pub mod pane_id;
pub mod shell_line;
pub mod tab_ref;
pub mod text;

#[cfg(test)]
mod properties;
#[cfg(any(test, feature = "testing"))]
pub mod testing;

pub use cursor::Cursor;
pub use envelope::{Reply, Request};
pub use errors::{Error, ErrorBody, ErrorCode};
pub use frames::{encode_ok, encode_reply, Assembler, Frame, JsonText, MAX_FRAME_BYTES};
pub use pane_id::{PaneKind, PaneRef};
pub use tab_ref::TabRef;

/// Version of this contract; carried in every request and reply as `v`.
pub const PROTOCOL_VERSION: u32 = 1;

/// The Zellij permissions the plugin asks for (`PermissionType` names).
/// Sessions made for tests grant exactly these.
pub const PERMISSIONS: &[&str] = &[
    "ReadApplicationState",
    "ChangeApplicationState",
    "ReadPaneContents",
    "WriteToStdin",
    "ReadCliPipes",
    "RunCommands",
    "OpenTerminalsOrPlugins",
    "OpenFiles",
    "MessageAndLaunchOtherPlugins",
];

/// The pipe name the plugin listens on. Messages with any other name are ignored.
pub const PIPE_NAME: &str = "zellij-mcp";
