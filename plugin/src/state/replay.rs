//! Replies kept for a while, so a request whose `zellij pipe` client died
//! before the reply arrived can be answered again on a new pipe (`replay`),
//! instead of being sent, and carried out, twice.
//!
//! Everything here is bounded: small replies are kept up to a total size; of
//! a large or older reply only its id is kept, and its replay is an error
//! that says the reply is gone. A request is in flight from the moment it
//! arrives until its reply is sent. Replies are kept as the line of JSON
//! that was sent: a copy, where a tree of values would cost the interpreter
//! a deep clone per reply and several times the memory.

use std::collections::{BTreeSet, HashMap, VecDeque};

/// Total size of the replies kept.
const KEPT_BYTES: usize = 256 * 1024;
/// A reply larger than this is not kept.
const LARGEST_KEPT: usize = 16 * 1024;
/// Most replies kept, and most ids remembered of replies no longer kept.
const KEPT_REPLIES: usize = 256;
const LOST_IDS: usize = 1024;
/// Most replays waiting on one request.
const REPLAYS_PER_REQUEST: usize = 4;

#[derive(Debug, Default)]
pub struct Replies {
    /// Recent replies by request id, each as the one line sent.
    done: VecDeque<(String, String)>,
    done_bytes: usize,
    /// Requests answered whose reply is no longer kept.
    lost: VecDeque<String>,
    /// Requests not answered yet.
    in_flight: BTreeSet<String>,
    /// Replays waiting for an in-flight request: (pipe id, replay request id).
    waiting: HashMap<String, Vec<(String, String)>>,
}

/// What the plugin knows of a request.
#[derive(Debug, PartialEq)]
pub enum Known<'a> {
    /// Answered: the reply's line of JSON.
    Answered(&'a str),
    /// Answered, but the reply is no longer kept.
    Lost,
    InFlight,
    Unknown,
}

impl Replies {
    /// A request arrived; it is in flight until [`Self::record`] sees its reply.
    pub fn started(&mut self, request_id: &str) {
        if !request_id.is_empty() {
            self.in_flight.insert(request_id.to_owned());
        }
    }

    pub fn lookup(&self, request_id: &str) -> Known<'_> {
        if let Some((_, line)) = self.done.iter().rev().find(|(id, _)| id == request_id) {
            Known::Answered(line)
        } else if self.in_flight.contains(request_id) {
            Known::InFlight
        } else if self.lost.iter().any(|id| id == request_id) {
            Known::Lost
        } else {
            Known::Unknown
        }
    }

    /// Answers `request_id` on another pipe too, once it is answered;
    /// false when enough replays wait already.
    pub fn also_send_to(&mut self, request_id: &str, pipe_id: &str, replay_id: &str) -> bool {
        let waiting = self.waiting.entry(request_id.to_owned()).or_default();
        if waiting.len() >= REPLAYS_PER_REQUEST {
            return false;
        }
        waiting.push((pipe_id.to_owned(), replay_id.to_owned()));
        true
    }

    /// Notes the reply to `id`, as the `lines` sent; returns the replays
    /// waiting for it.
    pub fn record(&mut self, id: &str, lines: &[String]) -> Vec<(String, String)> {
        self.in_flight.remove(id);
        if !id.is_empty() {
            match lines {
                [line] if line.len() <= LARGEST_KEPT => {
                    self.done_bytes += line.len();
                    self.done.push_back((id.to_owned(), line.clone()));
                }
                _ => self.forget(id.to_owned()),
            }
            while self.done_bytes > KEPT_BYTES || self.done.len() > KEPT_REPLIES {
                let Some((old, line)) = self.done.pop_front() else {
                    break;
                };
                self.done_bytes -= line.len();
                self.forget(old);
            }
        }
        self.waiting.remove(id).unwrap_or_default()
    }

    fn forget(&mut self, id: String) {
        self.lost.push_back(id);
        if self.lost.len() > LOST_IDS {
            self.lost.pop_front();
        }
    }

    /// Requests in flight from `client` (ids `<client>-<n>`).
    pub fn in_flight_of(&self, client: &str) -> usize {
        let prefix = format!("{client}-");
        self.in_flight
            .range(prefix.clone()..)
            .take_while(|id| id.starts_with(&prefix))
            .count()
    }

    /// Replies kept, their total size, and requests in flight.
    pub fn sizes(&self) -> (usize, usize, usize) {
        (self.done.len(), self.done_bytes, self.in_flight.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use zellij_mcp_protocol::{encode_reply, Reply};

    fn record(replies: &mut Replies, reply: Reply) -> Vec<(String, String)> {
        replies.record(&reply.id, &encode_reply(&reply))
    }

    #[test]
    fn knows_answered_in_flight_and_unknown_requests() {
        let mut replies = Replies::default();
        replies.started("a");
        assert_eq!(replies.lookup("a"), Known::InFlight);
        assert!(replies.also_send_to("a", "pipe-2", "a-replay"));
        let waiting = record(&mut replies, Reply::ok("a", json!(1)));
        assert_eq!(waiting, [("pipe-2".to_owned(), "a-replay".to_owned())]);
        let Known::Answered(line) = replies.lookup("a") else {
            panic!("a was answered");
        };
        let kept: Reply = serde_json::from_str(line).unwrap();
        assert_eq!(kept, Reply::ok("a", json!(1)));
        assert_eq!(replies.lookup("b"), Known::Unknown);
    }

    #[test]
    fn an_answered_request_is_never_in_flight_again_even_once_forgotten() {
        let mut replies = Replies::default();
        replies.started("a");
        record(&mut replies, Reply::ok("a", json!(1)));
        for n in 0..KEPT_REPLIES {
            replies.started(&n.to_string());
            record(&mut replies, Reply::ok(n.to_string(), json!(n)));
        }
        assert_eq!(replies.lookup("a"), Known::Lost);
        assert_eq!(replies.sizes().2, 0, "nothing stays in flight");
    }

    #[test]
    fn large_replies_are_not_kept_and_the_total_is_bounded() {
        let mut replies = Replies::default();
        let big = Reply::ok("big", json!("x".repeat(LARGEST_KEPT)));
        record(&mut replies, big);
        assert_eq!(replies.lookup("big"), Known::Lost);
        for n in 0..100 {
            record(
                &mut replies,
                Reply::ok(n.to_string(), json!("y".repeat(10_000))),
            );
        }
        let (kept, bytes, _) = replies.sizes();
        assert!(
            bytes <= KEPT_BYTES && kept < 100,
            "{kept} replies, {bytes} bytes"
        );
        assert!(matches!(replies.lookup("99"), Known::Answered(_)));
    }

    #[test]
    fn replays_of_one_request_are_bounded() {
        let mut replies = Replies::default();
        replies.started("a");
        for n in 0..REPLAYS_PER_REQUEST {
            assert!(replies.also_send_to("a", &n.to_string(), "r"));
        }
        assert!(!replies.also_send_to("a", "one-more", "r"));
    }
}
