//! The one line the plugin's pane shows, when a user shows it (it is
//! hidden by default): which plugin this is and what it is doing.

use std::time::Duration;

use crate::host::Host;
use crate::{build_id, McpPlugin};

/// The least time between two drawings of the status line.
const STATUS_EVERY: Duration = Duration::from_secs(1);

impl<H: Host> McpPlugin<H> {
    /// Whether to draw the status line again: its count changed, and it
    /// was drawn more than a second ago. Each drawing costs Zellij a render
    /// of the session, which a request each time would pay; the heartbeat's
    /// timer brings the count up to date within a second.
    pub fn status_changed(&mut self) -> bool {
        let now = self.host.now();
        let (shown, at) = self.requests.shown;
        let due = at.is_none_or(|at| now.duration_since(at) >= STATUS_EVERY);
        if self.requests.served == shown || !due {
            return false;
        }
        self.requests.shown = (self.requests.served, Some(now));
        true
    }

    /// What the plugin's pane shows.
    pub fn pane_status(&self) -> Status<'static> {
        Status {
            version: env!("CARGO_PKG_VERSION"),
            build_id: build_id(),
            acting: self.acting.holding(),
            served: self.requests.served,
            waits: self.waits.len(),
            queued_messages: self.outbox.len(),
        }
    }
}

/// What the line tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status<'a> {
    pub version: &'a str,
    pub build_id: &'a str,
    /// Whether this instance is the one that acts (one per session does).
    pub acting: bool,
    pub served: u64,
    pub waits: usize,
    pub queued_messages: usize,
}

/// The line, cut to `cols` characters.
pub fn line(status: &Status, cols: usize) -> String {
    let role = if status.acting { "acting" } else { "standby" };
    let text = format!(
        "zellij-mcp {} ({}) · {role} · {} requests served · {} waits · {} messages queued",
        status.version, status.build_id, status.served, status.waits, status.queued_messages
    );
    text.chars().take(cols).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_tells_the_counts_and_fits_the_pane() {
        let status = Status {
            version: "0.1.0",
            build_id: "d2f37fb3a2446ea9",
            acting: true,
            served: 12,
            waits: 2,
            queued_messages: 1,
        };
        assert_eq!(
            line(&status, 200),
            "zellij-mcp 0.1.0 (d2f37fb3a2446ea9) · acting · 12 requests served · 2 waits · 1 messages queued"
        );
        assert_eq!(line(&status, 10), "zellij-mcp");
        assert_eq!(line(&status, 0), "");
    }
}
