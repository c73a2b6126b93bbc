//! Messages between agents in panes.

#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::PaneRef;

/// Largest message text, in bytes.
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024;
/// How long a message is retried by default, and at most (seconds).
pub const DEFAULT_MESSAGE_TTL_S: u64 = 600;
pub const MAX_MESSAGE_TTL_S: u64 = 86_400;
/// How long `send_message` waits for delivery by default, and at most (ms).
pub const DEFAULT_DELIVERY_WAIT_MS: u64 = 2_000;
pub const MAX_DELIVERY_WAIT_MS: u64 = 600_000;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct SendMessageArgs {
    /// A pane id, an agent name, or "parent".
    pub to: String,
    pub text: String,
    /// Sender shown in the header. Default: the caller's agent name, else its pane.
    pub from: Option<String>,
    /// Seconds to keep retrying (default 600, max 86400).
    pub ttl_s: Option<u64>,
    /// Wait up to this long for delivery (default 2000, max 600000).
    pub wait_ms: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum DeliveryStatus {
    /// Typed into the target and submitted.
    Delivered,
    /// Not yet: the target is missing, exited or busy; retried until the TTL.
    Queued,
    /// The TTL passed before delivery.
    Failed,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct SendMessageResult {
    /// Session-wide, strictly increasing.
    pub seq: u64,
    pub status: DeliveryStatus,
    pub attempts: u32,
    /// The pane it went to, once delivered.
    pub pane_id: Option<PaneRef>,
}
