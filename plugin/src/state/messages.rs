//! Messages between agents. Each gets a session-wide, strictly increasing
//! `seq` from the event log ([`crate::state::event_log`], which also keeps them
//! across reloads), and is typed into its target's pane through the write
//! queue, one at a time per target and in `seq` order. A target that is
//! missing or has exited is tried again, with backoff, until the message's
//! TTL. Plain state: finding the target's pane and typing are the plugin's.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use zellij_mcp_protocol::ops::{
    DeliveryStatus, Happened, HoldReason, LoggedEvent, SendMessageResult,
};
use zellij_mcp_protocol::{Error, ErrorBody, PaneRef};

use crate::state::event_log::{EventLog, Settled};
use crate::state::later::Asker;
use crate::state::shares;

/// The first retry comes after this, then each after twice as long, up to
/// [`LONGEST_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(250);
const LONGEST_BACKOFF: Duration = Duration::from_secs(5);
/// A held message's target is looked at again this often, so the message
/// goes within a second of the target taking it.
pub const HELD_LOOK: Duration = Duration::from_millis(250);
/// A submitted message counts as delivered when its pane was there, and had
/// not exited, when its CR was written; else it is typed again. When Zellij
/// does not answer whether the pane is there, it is asked again after this,
/// [`CONFIRM_TRIES`] times at most.
const CONFIRM_RETRY: Duration = Duration::from_millis(50);
const CONFIRM_TRIES: u32 = 20;

/// Where a message goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recipient {
    Pane(PaneRef),
    Agent(String),
}

impl Recipient {
    /// As the log writes it: the pane id or the name.
    pub fn label(&self) -> String {
        match self {
            Recipient::Pane(pane) => pane.to_string(),
            Recipient::Agent(name) => name.clone(),
        }
    }

    fn from_label(label: &str) -> Self {
        label
            .parse()
            .map_or_else(|_| Recipient::Agent(label.to_owned()), Recipient::Pane)
    }
}

#[derive(Debug)]
pub struct Message {
    pub seq: u64,
    pub to: Recipient,
    /// What is typed: the header, then the text.
    pub typed: String,
    /// The sender the header names.
    from: String,
    /// The client that sent it: its share of the queue, and who may cancel it.
    pub client: String,
    pub expires: Instant,
    pub attempts: u32,
    next_try: Instant,
    /// Being typed into this pane.
    sending: Option<PaneRef>,
    /// Submitted: delivered if its pane is still there at this time.
    confirm_at: Option<Instant>,
    confirm_tries: u32,
    /// The request waiting for delivery, and until when it waits.
    waiter: Option<(Asker, Instant)>,
    /// Why its target's pane cannot take it now, when it is there.
    held: Option<HoldReason>,
}

impl Message {
    /// A message queued at `now`, to expire `ttl` later.
    pub fn new(
        seq: u64,
        to: Recipient,
        from: &str,
        text: &str,
        ttl: Duration,
        now: Instant,
    ) -> Self {
        Message {
            seq,
            to,
            typed: format!("[#{seq} from {from}] {text}"),
            from: from.to_owned(),
            client: String::new(),
            expires: now + ttl,
            attempts: 0,
            next_try: now,
            sending: None,
            confirm_at: None,
            confirm_tries: 0,
            waiter: None,
            held: None,
        }
    }

    /// A new message, logged as queued in `log` (which gives it its seq),
    /// from `client`.
    #[allow(clippy::too_many_arguments)]
    pub fn queued(
        log: &mut EventLog,
        at_ms: u64,
        now: Instant,
        to: Recipient,
        from: &str,
        text: &str,
        ttl: Duration,
        client: &str,
    ) -> Result<Self, ErrorBody> {
        let seq = log
            .append(at_ms, |seq| Happened::Queued {
                message: seq,
                to: to.label(),
                from: from.to_owned(),
                text: text.to_owned(),
                expires_at_ms: at_ms + ttl.as_millis() as u64,
                client: client.to_owned(),
            })
            .map_err(|e| {
                ErrorBody::from(Error::Internal {
                    problem: format!("cannot log the message: {e}"),
                    fix: Some("check that the plugin's cache folder is writable".into()),
                })
            })?;
        Ok(Message::new(seq, to, from, text, ttl, now).sent_by(client))
    }

    /// A message the log has as pending, with the time left of its TTL.
    pub fn from_log(event: &LoggedEvent, now_ms: u64, now: Instant) -> Option<Self> {
        let Happened::Queued {
            to,
            from,
            text,
            expires_at_ms,
            client,
            ..
        } = &event.what
        else {
            return None;
        };
        let ttl = Duration::from_millis(expires_at_ms.saturating_sub(now_ms));
        let message = Message::new(event.seq, Recipient::from_label(to), from, text, ttl, now);
        Some(message.sent_by(client))
    }

    /// The message came from `client`.
    pub fn sent_by(mut self, client: &str) -> Self {
        self.client = client.to_owned();
        self
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

    /// The result with `status`; one not delivered yet is `held` while
    /// its target shows something it must not be typed into.
    fn result(&self, status: DeliveryStatus) -> SendMessageResult {
        let held_because = self.held.filter(|_| status == DeliveryStatus::Queued);
        SendMessageResult {
            seq: self.seq,
            status: match held_because {
                Some(_) => DeliveryStatus::Held,
                None => status,
            },
            attempts: self.attempts,
            pane_id: self.sending,
            from: self.from.clone(),
            held_because,
        }
    }
}

/// A reply for a request waiting on a message.
pub type Answer = (Asker, SendMessageResult);

/// A message that expired: its seq and attempts.
pub type Expired = (u64, u32);

/// How often an instance that does not deliver reads the log for the
/// messages its requests wait on.
pub const WATCH_LOOK: Duration = Duration::from_millis(100);

/// A request waiting on a message another instance delivers.
#[derive(Debug)]
struct Watched {
    seq: u64,
    from: String,
    asker: Asker,
    until: Instant,
}

impl Watched {
    fn of(message: &Message, (asker, until): (Asker, Instant)) -> Self {
        Watched {
            seq: message.seq,
            from: message.from.clone(),
            asker,
            until,
        }
    }

    fn result(&self, settled: Option<Settled>) -> SendMessageResult {
        let queued = Settled {
            status: DeliveryStatus::Queued,
            attempts: 0,
            pane_id: None,
            held_because: None,
        };
        let settled = settled.unwrap_or(queued);
        SendMessageResult {
            seq: self.seq,
            status: settled.status,
            attempts: settled.attempts,
            pane_id: settled.pane_id,
            from: self.from.clone(),
            held_because: settled.held_because,
        }
    }
}

#[derive(Debug, Default)]
pub struct Outbox {
    /// Undelivered messages, in `seq` order.
    queue: Vec<Message>,
    /// This instance delivers (it holds the lease) and follows the log.
    pub delivering: bool,
    /// The log's changes (see [`EventLog::changes`]) last followed.
    followed: u64,
    /// Requests waiting on messages another instance delivers: answered as
    /// the log tells their end (see [`Outbox::settle_watched`]).
    watched: Vec<Watched>,
}

impl Outbox {
    /// `busy` unless one more message of `bytes` fits in `client`'s share
    /// of [`shares::MESSAGES`] and [`shares::MESSAGE_BYTES`]. (The log keeps
    /// a second copy, and logs them again when it rotates.)
    pub fn room(&self, bytes: usize, client: &str) -> Result<(), ErrorBody> {
        let size = |m: &Message| m.typed.len();
        let total_bytes: usize = self.queue.iter().map(size).sum();
        let mine = || self.queue.iter().filter(|m| m.client == client);
        shares::MESSAGES.room(self.queue.len(), mine().count(), 1)?;
        shares::MESSAGE_BYTES.room(total_bytes, mine().map(size).sum(), bytes)
    }

    /// Takes out `client`'s messages (only `seq`, when given) that are not
    /// being typed; their seqs, and the requests waiting on them.
    pub fn cancel(&mut self, client: &str, seq: Option<u64>) -> (Vec<u64>, Vec<Answer>) {
        let (mut seqs, mut answers) = (Vec::new(), Vec::new());
        self.queue.retain_mut(|m| {
            let cancel = m.client == client
                && seq.is_none_or(|s| s == m.seq)
                && m.sending.is_none()
                && m.confirm_at.is_none();
            if cancel {
                seqs.push(m.seq);
                if let Some((asker, _)) = m.waiter.take() {
                    answers.push((asker, m.result(DeliveryStatus::Cancelled)));
                }
            }
            !cancel
        });
        (seqs, answers)
    }

    pub fn push(&mut self, message: Message) {
        let at = self.queue.partition_point(|m| m.seq < message.seq);
        if self.queue.get(at).is_none_or(|m| m.seq != message.seq) {
            self.queue.insert(at, message);
        }
    }

    /// Follows the log: takes in messages other instances queued, and
    /// drops those that ended elsewhere (a request waiting on one is
    /// answered as `settled` tells, else `queued`). Requests watched while
    /// another instance delivered wait on their messages again.
    pub fn follow(
        &mut self,
        pending: Vec<Message>,
        changes: u64,
        settled: impl Fn(u64) -> Option<Settled>,
    ) -> Vec<Answer> {
        self.delivering = true;
        self.followed = changes;
        let seqs: BTreeSet<u64> = pending.iter().map(|m| m.seq).collect();
        let mut answers = Vec::new();
        self.queue.retain_mut(|m| {
            let keep = m.sending.is_some() || seqs.contains(&m.seq);
            if let Some(waiter) = m.waiter.take_if(|_| !keep) {
                let watched = Watched::of(m, waiter);
                answers.push((watched.asker.clone(), watched.result(settled(m.seq))));
            }
            keep
        });
        for message in pending {
            self.push(message);
        }
        for watched in std::mem::take(&mut self.watched) {
            match self.queue.iter_mut().find(|m| m.seq == watched.seq) {
                Some(m) if m.waiter.is_none() => m.waiter = Some((watched.asker, watched.until)),
                _ => answers.push((watched.asker.clone(), watched.result(settled(watched.seq)))),
            }
        }
        answers
    }

    /// Whether this instance delivers and has followed the log as far as
    /// its `changes`.
    pub fn follows(&self, changes: u64) -> bool {
        self.delivering && self.followed == changes
    }

    /// This instance stops delivering (the log keeps the messages) but
    /// finishes those it is typing; the requests waiting on the others are
    /// watched (see [`Outbox::settle_watched`]).
    pub fn hand_over(&mut self) {
        self.delivering = false;
        let (typing, others) = std::mem::take(&mut self.queue)
            .into_iter()
            .partition(|m| m.sending.is_some());
        self.queue = typing;
        for mut m in others {
            if let Some(waiter) = m.waiter.take() {
                self.watched.push(Watched::of(&m, waiter));
            }
        }
    }

    /// Answers the watched requests whose message ended, as `settled`
    /// tells, and those whose wait is over (`queued`).
    pub fn settle_watched(
        &mut self,
        now: Instant,
        settled: impl Fn(u64) -> Option<Settled>,
    ) -> Vec<Answer> {
        let mut answers = Vec::new();
        self.watched.retain(|watched| {
            let ended = settled(watched.seq);
            let answer = ended.is_some() || watched.until <= now;
            if answer {
                answers.push((watched.asker.clone(), watched.result(ended)));
            }
            !answer
        });
        answers
    }

    /// Whether requests wait on messages another instance delivers.
    pub fn watching(&self) -> bool {
        !self.watched.is_empty()
    }

    /// When the watched requests are next looked at: soon while there are.
    pub fn next_watch(&self, now: Instant) -> Option<Instant> {
        let until = self.watched.iter().map(|w| w.until).min()?;
        Some(until.min(now + WATCH_LOOK))
    }

    /// Messages waiting for delivery.
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
            message.held = None;
        }
    }

    /// Its target's pane shows something it must not be typed into: it is
    /// looked at again after [`HELD_LOOK`]. Whether the reason is new.
    pub fn hold(&mut self, seq: u64, why: HoldReason, now: Instant) -> bool {
        let Some(message) = self.find(seq) else {
            return false;
        };
        message.next_try = now + HELD_LOOK;
        message.held.replace(why) != Some(why)
    }

    /// Its target's screen could not be read this time: it is looked at
    /// again as a held message is, and stays as it was (held for what was
    /// last seen, if anything).
    pub fn look_again(&mut self, seq: u64, now: Instant) {
        if let Some(message) = self.find(seq) {
            message.next_try = now + HELD_LOOK;
        }
    }

    /// Typed and submitted: to be confirmed now (see [`CONFIRM_RETRY`]).
    pub fn submitted(&mut self, seq: u64, now: Instant) {
        if let Some(message) = self.find(seq) {
            message.confirm_at = Some(now);
        }
    }

    /// Asks again in a moment whether the pane is there; false after
    /// [`CONFIRM_TRIES`].
    pub fn confirm_later(&mut self, seq: u64, now: Instant) -> bool {
        let Some(message) = self.find(seq) else {
            return false;
        };
        message.confirm_tries += 1;
        message.confirm_at = Some(now + CONFIRM_RETRY);
        message.confirm_tries <= CONFIRM_TRIES
    }

    /// Submitted messages due to be confirmed, with their panes.
    pub fn to_confirm(&self, now: Instant) -> Vec<(u64, PaneRef)> {
        self.queue
            .iter()
            .filter(|m| m.confirm_at.is_some_and(|at| at <= now))
            .filter_map(|m| Some((m.seq, m.sending?)))
            .collect()
    }

    /// Its pane went away while it was typed: try again after a backoff.
    pub fn not_delivered(&mut self, seq: u64, now: Instant) {
        if let Some(message) = self.find(seq) {
            message.sending = None;
            message.confirm_at = None;
            message.confirm_tries = 0;
            message.back_off(now);
        }
    }

    /// Another instance is typing it: look again in a moment (the log
    /// soon tells how it ended).
    pub fn typed_elsewhere(&mut self, seq: u64, now: Instant) {
        if let Some(message) = self.find(seq) {
            message.next_try = now + HELD_LOOK;
        }
    }

    /// Its target could not take it now: try again after a backoff, which
    /// it returns with the attempts so far.
    pub fn retry_later(&mut self, seq: u64, now: Instant) -> Option<(u32, Duration)> {
        let message = self.find(seq)?;
        message.attempts += 1;
        message.held = None;
        message.back_off(now);
        Some((message.attempts, message.next_try - now))
    }

    /// The message was typed and submitted; the answer for a request
    /// still waiting on it. Also the attempts it took.
    pub fn delivered(&mut self, seq: u64) -> (Option<Answer>, u32) {
        self.end(seq, DeliveryStatus::Delivered, None)
    }

    /// It was typed, but stayed in its composer as a draft: it ends
    /// `failed`, held because of that draft, and is never typed again.
    pub fn unsent(&mut self, seq: u64) -> (Option<Answer>, u32) {
        self.end(seq, DeliveryStatus::Failed, Some(HoldReason::Draft))
    }

    fn end(
        &mut self,
        seq: u64,
        status: DeliveryStatus,
        held_because: Option<HoldReason>,
    ) -> (Option<Answer>, u32) {
        let Some(index) = self.queue.iter().position(|m| m.seq == seq) else {
            return (None, 0);
        };
        let message = self.queue.remove(index);
        let result = SendMessageResult {
            held_because,
            ..message.result(status)
        };
        (
            message.waiter.map(|(asker, _)| (asker, result)),
            message.attempts,
        )
    }

    /// Answers for requests that waited long enough (queued) or whose
    /// message expired (failed, and dropped); and the messages that expired.
    pub fn answers_due(&mut self, now: Instant) -> (Vec<Answer>, Vec<Expired>) {
        let mut answers = Vec::new();
        let mut expired_now = Vec::new();
        for message in &mut self.queue {
            let expired = message.sending.is_none() && message.expires <= now;
            let waited = message
                .waiter
                .as_ref()
                .is_some_and(|(_, until)| *until <= now);
            if expired {
                expired_now.push((message.seq, message.attempts));
            }
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
        (answers, expired_now)
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
            due = [due, retry, waiter, m.confirm_at, Some(m.expires)]
                .into_iter()
                .flatten()
                .min();
        }
        due
    }

    /// Each message not delivered yet: where it goes, and why it is held.
    pub fn waiting(&self) -> impl Iterator<Item = (&Recipient, Option<HoldReason>)> {
        self.queue.iter().map(|m| (&m.to, m.held))
    }

    /// Who sent message `seq`, as its header names them.
    pub fn sender(&self, seq: u64) -> Option<&str> {
        self.queue
            .iter()
            .find(|m| m.seq == seq)
            .map(|m| m.from.as_str())
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
    fn each_target_gets_one_at_a_time_in_seq_order() {
        let mut outbox = Outbox::default();
        let ttl = Duration::from_secs(60);
        for (seq, target) in [(3, "a"), (1, "a"), (2, "b")] {
            outbox.push(Message::new(
                seq,
                to(target),
                "me",
                "hi",
                ttl,
                Instant::now(),
            ));
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
        let message = Message::new(
            1,
            to("late"),
            "me",
            "hi",
            Duration::from_secs(2),
            Instant::now(),
        )
        .awaited_by(asker("w"), t0 + Duration::from_secs(60));
        outbox.push(message);
        outbox.retry_later(1, t0);
        assert!(outbox.due(t0).is_empty());
        assert_eq!(outbox.due(t0 + FIRST_BACKOFF).len(), 1);
        outbox.retry_later(1, t0);
        assert!(outbox.due(t0 + FIRST_BACKOFF).is_empty(), "twice as long");
        let (answers, expired) = outbox.answers_due(t0 + Duration::from_secs(3));
        assert_eq!(expired, [(1, 2)]);
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
            Instant::now(),
        ));
        outbox.sending(1, PaneRef::terminal(3));
        outbox.submitted(1, t0);
        assert_eq!(outbox.to_confirm(t0), [(1, PaneRef::terminal(3))]);
        assert!(
            outbox.confirm_later(1, t0),
            "Zellij did not answer: ask again"
        );
        assert!(outbox.to_confirm(t0).is_empty());
        assert_eq!(outbox.to_confirm(t0 + CONFIRM_RETRY).len(), 1);
        outbox.not_delivered(1, t0);
        assert!(outbox.to_confirm(t0 + LONGEST_BACKOFF).is_empty());
        assert!(outbox.due(t0).is_empty(), "after a backoff");
        assert_eq!(outbox.due(t0 + LONGEST_BACKOFF), [(1, to("a"))]);
    }

    #[test]
    fn following_the_log_takes_in_new_messages_and_drops_those_done_elsewhere() {
        let mut outbox = Outbox::default();
        let ttl = Duration::from_secs(60);
        let t0 = Instant::now();
        outbox.push(
            Message::new(1, to("a"), "me", "x", ttl, Instant::now())
                .awaited_by(asker("w"), t0 + ttl),
        );
        outbox.push(Message::new(2, to("b"), "me", "y", ttl, Instant::now()));
        let delivered_elsewhere = |seq| {
            (seq == 1).then_some(Settled {
                status: DeliveryStatus::Delivered,
                attempts: 2,
                pane_id: Some(PaneRef::terminal(4)),
                held_because: None,
            })
        };
        let answers = outbox.follow(
            vec![
                Message::new(2, to("b"), "me", "y", ttl, Instant::now()),
                Message::new(5, to("a"), "other", "z", ttl, Instant::now()),
            ],
            1,
            delivered_elsewhere,
        );
        assert_eq!(answers.len(), 1, "#1's waiter is answered");
        assert_eq!(answers[0].1.status, DeliveryStatus::Delivered);
        assert_eq!(answers[0].1.pane_id, Some(PaneRef::terminal(4)));
        assert_eq!(outbox.due(Instant::now()), [(2, to("b")), (5, to("a"))]);
        assert!(outbox.delivering);
        outbox.push(
            Message::new(6, to("c"), "me", "x", ttl, Instant::now())
                .awaited_by(asker("v"), t0 + ttl),
        );
        outbox.push(
            Message::new(7, to("c"), "me", "x", ttl, Instant::now())
                .awaited_by(asker("u"), t0 + ttl),
        );
        outbox.hand_over();
        assert_eq!((outbox.len(), outbox.delivering), (0, false));

        // The waiters are answered as the log tells their message's end.
        let nothing_yet = outbox.settle_watched(t0, |_| None);
        assert!(nothing_yet.is_empty(), "still waiting: {nothing_yet:?}");
        assert_eq!(outbox.next_watch(t0), Some(t0 + WATCH_LOOK));
        let cancelled = |seq| {
            (seq == 6).then_some(Settled {
                status: DeliveryStatus::Cancelled,
                attempts: 0,
                pane_id: None,
                held_because: None,
            })
        };
        let answers = outbox.settle_watched(t0, cancelled);
        assert_eq!(answers.len(), 1);
        assert_eq!(
            (answers[0].1.seq, answers[0].1.status),
            (6, DeliveryStatus::Cancelled)
        );
        // Holding the lease again, #7's waiter waits on its message.
        let pending = vec![Message::new(7, to("c"), "me", "x", ttl, t0)];
        assert!(outbox.follow(pending, 2, |_| None).is_empty());
        let answers = outbox.answers_due(t0 + ttl).0;
        assert_eq!(answers.len(), 1, "answered when its wait is over");
        assert_eq!(outbox.next_watch(t0), None);
    }

    #[test]
    fn a_watched_request_gets_queued_once_its_wait_is_over() {
        let mut outbox = Outbox::default();
        let t0 = Instant::now();
        let wait = Duration::from_secs(2);
        let message = Message::new(3, to("a"), "me", "x", Duration::from_secs(60), t0);
        outbox.push(message.awaited_by(asker("w"), t0 + wait));
        outbox.hand_over();
        assert_eq!(
            outbox.next_watch(t0 + wait / 2),
            Some(t0 + wait / 2 + WATCH_LOOK)
        );
        assert!(outbox.settle_watched(t0 + wait / 2, |_| None).is_empty());
        let answers = outbox.settle_watched(t0 + wait, |_| None);
        assert_eq!(answers[0].1.status, DeliveryStatus::Queued);
        assert_eq!(outbox.next_watch(t0 + wait), None);
    }

    #[test]
    fn a_waiter_gets_queued_once_its_wait_is_over_and_the_message_stays() {
        let mut outbox = Outbox::default();
        let t0 = Instant::now();
        let message = Message::new(
            7,
            to("x"),
            "me",
            "line 1\nline 2",
            Duration::from_secs(60),
            Instant::now(),
        )
        .awaited_by(asker("w"), t0 + Duration::from_millis(100));
        assert_eq!(message.typed, "[#7 from me] line 1\nline 2");
        outbox.push(message);
        let (answers, _) = outbox.answers_due(t0 + Duration::from_millis(150));
        assert_eq!(answers[0].1.status, DeliveryStatus::Queued);
        assert_eq!(outbox.len(), 1);
        outbox.sending(7, PaneRef::terminal(2));
        assert!(outbox.delivered(7).0.is_none(), "nobody waits any more");
        assert_eq!(outbox.len(), 0);
    }
}
