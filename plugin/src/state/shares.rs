//! What the plugin caps, and each client's share of it. A client is one
//! MCP session (see `client_of` in the protocol's envelope); it may use at
//! most its share of a cap, so one client at its cap (a looping agent, say)
//! leaves the others room. The totals bound the plugin's memory.

use zellij_mcp_protocol::{Error, ErrorBody};

/// A cap on something the plugin holds, in all and per client.
#[derive(Debug, Clone, Copy)]
pub struct Cap {
    pub total: usize,
    pub per_client: usize,
    /// What is counted, in the plural.
    pub what: &'static str,
    /// How to make room.
    pub hint: &'static str,
}

/// Waits (`wait_for`, `run`) under way.
pub const WAITS: Cap = Cap {
    total: 48,
    per_client: 16,
    what: "waits",
    hint: "wait for one of them to end, or cancel one, then retry",
};

/// Requests under way (waits, queued writes, replies waiting for Zellij).
pub const REQUESTS: Cap = Cap {
    total: 512,
    per_client: 64,
    what: "requests",
    hint: "retry once some of them have answered, or cancel waits",
};

/// How to make room for messages.
const MESSAGES_HINT: &str =
    "wait for their targets to appear, or cancel some with zellij_cancel_messages";

/// Messages waiting for delivery.
pub const MESSAGES: Cap = Cap {
    total: 1024,
    per_client: 256,
    what: "queued messages",
    hint: MESSAGES_HINT,
};

/// The text of messages waiting for delivery, in bytes.
pub const MESSAGE_BYTES: Cap = Cap {
    total: 512 * 1024,
    per_client: 128 * 1024,
    what: "bytes of queued messages",
    hint: MESSAGES_HINT,
};

impl Cap {
    /// `busy` unless `adding` more fits beside what the client holds
    /// (`mine`) and what all clients hold (`total`).
    pub fn room(&self, total: usize, mine: usize, adding: usize) -> Result<(), ErrorBody> {
        let (cap, held, whose) = if mine + adding > self.per_client {
            (self.per_client, mine, "this client has")
        } else if total + adding > self.total {
            (self.total, total, "all clients have")
        } else {
            return Ok(());
        };
        Err(ErrorBody::from(Error::Busy {
            problem: format!("{whose} {held} {} already, of at most {cap}", self.what),
            fix: self.hint.into(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zellij_mcp_protocol::ErrorCode;

    #[test]
    fn a_client_at_its_share_is_busy_while_others_have_room() {
        assert!(WAITS.room(16, 15, 1).is_ok());
        let mine = WAITS.room(16, 16, 1).unwrap_err();
        assert_eq!(mine.code, ErrorCode::Busy);
        assert!(mine.message.contains("this client has 16 waits"), "{mine}");
        assert!(WAITS.room(16, 0, 1).is_ok());
        let all = WAITS.room(48, 0, 1).unwrap_err();
        assert!(all.message.contains("all clients have 48"), "{all}");
    }
}
