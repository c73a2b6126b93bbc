//! Replies kept for a while, so a request whose `zellij pipe` client died
//! before the reply arrived can be answered again on a new pipe (`replay`),
//! instead of being sent, and carried out, twice.

use std::collections::{BTreeSet, HashMap, VecDeque};

use zellij_mcp_protocol::Reply;

/// Replies kept for replay.
const KEPT: usize = 64;

#[derive(Debug, Default)]
pub struct Replies {
    done: VecDeque<Reply>,
    /// Requests answered later (their pipe is blocked meanwhile).
    in_flight: BTreeSet<String>,
    /// Replays waiting for an in-flight request: (pipe id, replay request id).
    waiting: HashMap<String, Vec<(String, String)>>,
}

/// What the plugin knows of a request.
#[derive(Debug, PartialEq)]
pub enum Known<'a> {
    Answered(&'a Reply),
    InFlight,
    Unknown,
}

impl Replies {
    pub fn started(&mut self, request_id: &str) {
        self.in_flight.insert(request_id.to_owned());
    }

    pub fn lookup(&self, request_id: &str) -> Known<'_> {
        if let Some(reply) = self.done.iter().rev().find(|r| r.id == request_id) {
            Known::Answered(reply)
        } else if self.in_flight.contains(request_id) {
            Known::InFlight
        } else {
            Known::Unknown
        }
    }

    /// Answers `request_id` on another pipe too, once it is answered.
    pub fn also_send_to(&mut self, request_id: &str, pipe_id: &str, replay_id: &str) {
        self.waiting
            .entry(request_id.to_owned())
            .or_default()
            .push((pipe_id.to_owned(), replay_id.to_owned()));
    }

    /// Keeps `reply`; returns the replays waiting for it.
    pub fn record(&mut self, reply: &Reply) -> Vec<(String, String)> {
        self.in_flight.remove(&reply.id);
        if !reply.id.is_empty() {
            self.done.push_back(reply.clone());
            if self.done.len() > KEPT {
                self.done.pop_front();
            }
        }
        self.waiting.remove(&reply.id).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn knows_answered_in_flight_and_unknown_requests() {
        let mut replies = Replies::default();
        replies.started("a");
        assert_eq!(replies.lookup("a"), Known::InFlight);
        replies.also_send_to("a", "pipe-2", "a-replay");
        let waiting = replies.record(&Reply::ok("a", json!(1)));
        assert_eq!(waiting, [("pipe-2".to_owned(), "a-replay".to_owned())]);
        assert!(matches!(replies.lookup("a"), Known::Answered(r) if r.id == "a"));
        assert_eq!(replies.lookup("b"), Known::Unknown);
        for n in 0..KEPT {
            replies.record(&Reply::ok(n.to_string(), json!(n)));
        }
        assert_eq!(
            replies.lookup("a"),
            Known::Unknown,
            "old replies are dropped"
        );
    }
}
