//! The MCP server's own concerns, beside its tools ([`crate::tools`]): how
//! it is served, where it runs, and what it leaves on disk.
//!
//! - [`http`]: `serve --http`, the server over streamable HTTP with a token.
//! - [`own_pane`]: which pane this server runs in.
//! - [`private`]: what the server writes stays the user's own.

pub mod http;
pub mod own_pane;
pub mod private;
