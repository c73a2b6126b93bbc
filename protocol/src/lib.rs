//! The wire contract between the zellij-mcp bridge and the zellij-mcp plugin.
//!
//! Both halves depend on this crate, so a change here is a change to both.
//! It is plain serde with no Zellij dependency and is tested natively.
//!
//! Every pipe message named [`PIPE_NAME`] carries one [`Request`] as JSON.
//! The plugin answers with one or more newline-terminated lines on the pipe's
//! output: either a whole [`Reply`], or, when the reply is larger than
//! [`MAX_FRAME_BYTES`], a sequence of [`Frame::Part`]s that [`Assembler`]
//! joins back together. Every line names the request id, so a reader can drop
//! lines that belong to another (stale or duplicated) request.

pub mod cursor;
pub mod envelope;
pub mod frames;
pub mod fresh;
pub mod keys;
pub mod matching;
pub mod ops;
pub mod pane_id;
pub mod tab_ref;
pub mod text;

#[cfg(test)]
mod properties;

pub use cursor::Cursor;
pub use envelope::{ErrorBody, ErrorCode, Reply, Request};
pub use frames::{encode_reply, Assembler, Frame, MAX_FRAME_BYTES};
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
];

/// The pipe name the plugin listens on. Messages with any other name are ignored.
pub const PIPE_NAME: &str = "zellij-mcp";
