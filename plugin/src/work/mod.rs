//! The work the plugin does on its own, from its timers and events rather
//! than from one request: a request's life after its handler, typing
//! messages, and watching waited-on panes.

pub mod delivery;
pub mod lifecycle;
pub mod watching;
