//! Messages between agents. Each gets a session-wide, strictly increasing
//! `seq` (kept in the shared folder, so it goes on after a reload), and is
//! typed into its target's pane through the write queue, one at a time per
//! target and in `seq` order. A target that is missing or has exited is
//! tried again, with backoff, until the message's TTL. Plain state: finding
//! the target's pane and typing are the plugin's.

use std::fs;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use zellij_mcp_protocol::ops::{DeliveryStatus, SendMessageResult};
use zellij_mcp_protocol::{ErrorBody, ErrorCode, PaneRef};

use crate::later::Asker;

/// Messages kept undelivered at most; more are `busy`.
const MOST_QUEUED: usize = 1024;
/// The first retry comes after this, then each after twice as long, up to
/// [`LONGEST_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(250);
const LONGEST_BACKOFF: Duration = Duration::from_secs(5);

/// Where a message goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recipient {
    Pane(PaneRef),
    Agent(String),
}

#[derive(Debug)]
pub struct Message {
    pub seq: u64,
    pub to: Recipient,
    /// What is typed: the header, then the text.
    pub typed: String,
    pub expires: Instant,
    pub attempts: u32,
    next_try: Instant,
    /// Being typed into this pane.
    sending: Option<PaneRef>,
    /// The request waiting for delivery, and until when it waits.
    waiter: Option<(Asker, Instant)>,
}

impl Message {
    pub fn new(seq: u64, to: Recipient, from: &str, text: &str, ttl: Duration) -> Self {
        let now = Instant::now();
        Message {
            seq,
            to,
            typed: format!("[#{seq} from {from}] {text}"),
            expires: now + ttl,
            attempts: 0,
            next_try: now,
            sending: None,
            waiter: None,
        }
    }

    /// The request `asker` waits for delivery until `until`.
    pub fn awaited_by(mut self, asker: Asker, until: Instant) -> Self {
        self.waiter = Some((asker, until));
        self
    }

    /// The next try comes twice as late as the one before.
    fn back_off(&mut self, now: Instant) {
        let doublings = self.attempts.saturating_sub(1).min(16);
        let backoff = FIRST_BACKOFF.saturating_mul(1 << doublings);
        self.next_try = now + backoff.min(LONGEST_BACKOFF);
    }

    fn result(&self, status: DeliveryStatus) -> SendMessageResult {
        SendMessageResult {
            seq: self.seq,
            status,
            attempts: self.attempts,
            pane_id: self.sending,
        }
    }
}

/// A reply for a request waiting on a message.
pub type Answer = (Asker, SendMessageResult);

#[derive(Debug, Default)]
pub struct Outbox {
    /// Undelivered messages, in `seq` order.
    queue: Vec<Message>,
    /// Where the next `seq` is kept.
    seq_path: Option<PathBuf>,
}

impl Outbox {
    pub fn new(seq_path: PathBuf) -> Self {
        Outbox {
            queue: Vec::new(),
            seq_path: Some(seq_path),
        }
    }

    /// `busy` when [`MOST_QUEUED`] messages wait.
    pub fn room(&self) -> Result<(), ErrorBody> {
        if self.queue.len() < MOST_QUEUED {
            return Ok(());
        }
        Err(ErrorBody::new(
            ErrorCode::Busy,
            format!("{MOST_QUEUED} messages wait for delivery already"),
        )
        .with_hint("wait for their targets to appear, or for their TTL to pass"))
    }

    /// A new `seq`, one above any given before in this session.
    pub fn next_seq(&mut self) -> Result<u64, ErrorBody> {
        let Some(path) = &self.seq_path else {
            return Ok(self.queue.last().map_or(1, |m| m.seq + 1));
        };
        let last: u64 = fs::read_to_string(path)
            .ok()
            .and_then(|text| text.trim().parse().ok())
            .unwrap_or(0);
        let seq = last + 1;
        fs::write(path, format!("{seq}\n")).map_err(|e| {
            ErrorBody::new(
                ErrorCode::Internal,
                format!("cannot keep the message seq: {e}"),
            )
            .with_hint("check the plugin's cache folder is writable")
        })?;
        Ok(seq)
    }

    pub fn push(&mut self, message: Message) {
        self.queue.push(message);
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Messages to try now: per target, the first one, unless one to that
    /// target is being typed or its retry is not due.
    pub fn due(&self, now: Instant) -> Vec<(u64, Recipient)> {
        let mut seen: Vec<&Recipient> = Vec::new();
        let mut due = Vec::new();
        for message in &self.queue {
            if seen.contains(&&message.to) {
                continue;
            }
            seen.push(&message.to);
            if message.sending.is_none() && message.next_try <= now {
                due.push((message.seq, message.to.clone()));
            }
        }
        due
    }

    /// The message is being typed into `pane`.
    pub fn sending(&mut self, seq: u64, pane: PaneRef) {
        if let Some(message) = self.find(seq) {
            message.attempts += 1;
            message.sending = Some(pane);
        }
    }

    /// The pane the message is being typed into.
    pub fn sending_to(&self, seq: u64) -> Option<PaneRef> {
        self.queue.iter().find(|m| m.seq == seq)?.sending
    }

    /// Its pane went away while it was typed: try again after a backoff.
    pub fn not_delivered(&mut self, seq: u64, now: Instant) {
        if let Some(message) = self.find(seq) {
            message.sending = None;
            message.back_off(now);
        }
    }

    /// Its target could not take it now: try again after a backoff.
    pub fn retry_later(&mut self, seq: u64, now: Instant) {
        if let Some(message) = self.find(seq) {
            message.attempts += 1;
            message.back_off(now);
        }
    }

    /// The message was typed and submitted; the answer for a request
    /// still waiting on it.
    pub fn delivered(&mut self, seq: u64) -> Option<Answer> {
        let index = self.queue.iter().position(|m| m.seq == seq)?;
        let message = self.queue.remove(index);
        let result = message.result(DeliveryStatus::Delivered);
        message.waiter.map(|(asker, _)| (asker, result))
    }

    /// Answers for requests that waited long enough (queued) or whose
    /// message expired (failed, and dropped).
    pub fn answers_due(&mut self, now: Instant) -> Vec<Answer> {
        let mut answers = Vec::new();
        for message in &mut self.queue {
            let expired = message.sending.is_none() && message.expires <= now;
            let waited = message
                .waiter
                .as_ref()
                .is_some_and(|(_, until)| *until <= now);
            if expired || waited {
                if let Some((asker, _)) = message.waiter.take() {
                    let status = match expired {
                        true => DeliveryStatus::Failed,
                        false => DeliveryStatus::Queued,
                    };
                    answers.push((asker, message.result(status)));
                }
            }
        }
        self.queue
            .retain(|m| m.sending.is_some() || m.expires > now);
        answers
    }

    /// The earliest moment something here is due: a retry of the first
    /// message of a target (the others wait behind it), a wait, a TTL.
    pub fn next_due(&self) -> Option<Instant> {
        let mut heads: Vec<&Recipient> = Vec::new();
        let mut due = None;
        for m in &self.queue {
            let head = !heads.contains(&&m.to);
            if head {
                heads.push(&m.to);
            }
            let retry = (head && m.sending.is_none()).then_some(m.next_try);
            let waiter = m.waiter.as_ref().map(|(_, until)| *until);
            due = [due, retry, waiter, Some(m.expires)]
                .into_iter()
                .flatten()
                .min();
        }
        due
    }

    /// What the message types.
    pub fn typed(&self, seq: u64) -> Option<String> {
        self.queue
            .iter()
            .find(|m| m.seq == seq)
            .map(|m| m.typed.clone())
    }

    fn find(&mut self, seq: u64) -> Option<&mut Message> {
        self.queue.iter_mut().find(|m| m.seq == seq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asker(id: &str) -> Asker {
        Asker {
            pipe_id: id.into(),
            request_id: id.into(),
            caller: None,
        }
    }

    fn to(name: &str) -> Recipient {
        Recipient::Agent(name.into())
    }

    #[test]
    fn seq_goes_on_where_it_was_and_each_target_gets_one_at_a_time_in_order() {
        let dir = crate::tests::shared_dir("outbox-seq");
        let mut outbox = Outbox::new(dir.join("lease-1.seq"));
        let seqs: Vec<u64> = (0..3).map(|_| outbox.next_seq().unwrap()).collect();
        assert_eq!(seqs, [1, 2, 3]);
        let mut reloaded = Outbox::new(dir.join("lease-1.seq"));
        assert_eq!(
            reloaded.next_seq().unwrap(),
            4,
            "seq continues after a reload"
        );

        let ttl = Duration::from_secs(60);
        for (seq, target) in [(1, "a"), (2, "b"), (3, "a")] {
            outbox.push(Message::new(seq, to(target), "me", "hi", ttl));
        }
        let now = Instant::now();
        assert_eq!(outbox.due(now), [(1, to("a")), (2, to("b"))]);
        outbox.sending(1, PaneRef::terminal(4));
        assert_eq!(outbox.due(now), [(2, to("b"))], "a's next waits for #1");
        outbox.sending(2, PaneRef::terminal(5));
        assert!(
            outbox
                .next_due()
                .is_some_and(|due| due > now + Duration::from_secs(30)),
            "messages waiting behind others are not due (no timer spins for them)"
        );
        outbox.delivered(1);
        assert_eq!(
            outbox.due(now),
            [(3, to("a"))],
            "b's #2 is still being typed"
        );
    }

    #[test]
    fn a_missing_target_is_retried_with_backoff_and_expires_failed() {
        let mut outbox = Outbox::default();
        let t0 = Instant::now();
        let message = Message::new(1, to("late"), "me", "hi", Duration::from_secs(2))
            .awaited_by(asker("w"), t0 + Duration::from_secs(60));
        outbox.push(message);
        outbox.retry_later(1, t0);
        assert!(outbox.due(t0).is_empty());
        assert_eq!(outbox.due(t0 + FIRST_BACKOFF).len(), 1);
        outbox.retry_later(1, t0);
        assert!(outbox.due(t0 + FIRST_BACKOFF).is_empty(), "twice as long");
        let answers = outbox.answers_due(t0 + Duration::from_secs(3));
        assert_eq!(answers[0].1.status, DeliveryStatus::Failed);
        assert_eq!(answers[0].1.attempts, 2);
        assert_eq!(outbox.len(), 0);
    }

    #[test]
    fn a_message_whose_pane_went_away_while_typed_is_tried_again() {
        let mut outbox = Outbox::default();
        let t0 = Instant::now();
        outbox.push(Message::new(
            1,
            to("a"),
            "me",
            "hi",
            Duration::from_secs(60),
        ));
        outbox.sending(1, PaneRef::terminal(3));
        assert_eq!(outbox.sending_to(1), Some(PaneRef::terminal(3)));
        outbox.not_delivered(1, t0);
        assert_eq!(outbox.sending_to(1), None);
        assert!(outbox.due(t0).is_empty(), "after a backoff");
        assert_eq!(outbox.due(t0 + LONGEST_BACKOFF), [(1, to("a"))]);
    }

    #[test]
    fn a_waiter_gets_queued_once_its_wait_is_over_and_the_message_stays() {
        let mut outbox = Outbox::default();
        let t0 = Instant::now();
        let message = Message::new(7, to("x"), "me", "line 1\nline 2", Duration::from_secs(60))
            .awaited_by(asker("w"), t0 + Duration::from_millis(100));
        assert_eq!(message.typed, "[#7 from me] line 1\nline 2");
        outbox.push(message);
        let answers = outbox.answers_due(t0 + Duration::from_millis(150));
        assert_eq!(answers[0].1.status, DeliveryStatus::Queued);
        assert_eq!(outbox.len(), 1);
        outbox.sending(7, PaneRef::terminal(2));
        assert!(outbox.delivered(7).is_none(), "nobody waits any more");
        assert_eq!(outbox.len(), 0);
    }
}
