//! The work the plugin does on its own, from its timers and events rather
//! than from one request: a request's life after its handler, typing
//! messages, watching waited-on panes, and keeping agents across the
//! session's end.

pub mod delivery;
pub mod keeping;
pub mod lifecycle;
pub mod watching;
