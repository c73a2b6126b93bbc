//! Per-pane FIFO of writes, so that concurrent submits never interleave.
//!
//! A write types its bytes at once. A *submit* then waits `delay` and sends a
//! lone CR from a timer: Ink-based TUIs take a CR as Return only when it
//! arrives as its own read, some time after the text. Its request is answered
//! after the CR. While a pane has a write in progress, later writes to it wait
//! their turn. Where the caller looks at what the pane shows ([`Shows`]), a
//! CR also waits until the text shows as a draft: at most [`MOST_CR_WAIT`]
//! where the screen is not told, [`MOST_UNREAD_WAIT`] where it is told
//! without the text (the program has not read it yet).
//! Only where the look says a CR may go again ([`Shows::Draft`]'s `again`:
//! the composer holds this very text, and its program is described as one
//! that takes a CR soon after a paste as a new line, as Gemini CLI does
//! within 40 ms of handling it) does the CR go again, up to [`MOST_CRS`],
//! while the text is still there a delay after the last one, the rest of
//! the screen has not changed for a delay (a program just started or
//! resumed may still be drawing when the first CR goes) and the program
//! has drawn its screen anew since the last CR, or [`MOST_CR_WAIT`] passed
//! (a CR taken as a new line draws one; a program a loaded machine stalls
//! shows the same screen with the CR unread, and would read both CRs as
//! two submits; one just resumed may drop a CR and draw nothing): a CR
//! the program kept in its input could answer its next question. Such a write is
//! answered as soon as the pane no longer shows the text; one whose text
//! still shows [`MOST_UNREAD_WAIT`] after its last CR ends [`Step::Unsent`]
//! (the program took its CR as a new line: nothing was sent). No CR goes
//! while the pane shows a dialog.
//!
//! The order holds across the plugin's instances too: a write starts only
//! once this instance holds the pane's claim ([`PaneClaims`]), which another
//! instance keeps while it finishes what it took before the lease moved (a
//! submit's CR follows its text with nothing between).
//!
//! This module is plain state: it returns [`Step`]s for the caller to carry
//! out, so it is tested without Zellij.

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use zellij_mcp_protocol::agent_programs::AgentScreen;
use zellij_mcp_protocol::agent_programs::Delivery;
use zellij_mcp_protocol::agent_screen::Shown;
use zellij_mcp_protocol::{Error, ErrorBody, PaneRef};

use crate::state::later::{Asker, TIMER_SLACK};

/// Writes queued for one pane at most; more are `busy`.
const MOST_QUEUED_WRITES: usize = 64;
/// How long a CR waits for its pane to show the text, after its delay.
pub const MOST_CR_WAIT: Duration = Duration::from_secs(2);
/// How long a CR waits for a pane whose screen is told, but without the
/// text yet (its program has not read it); and how long the text may stay
/// after the last CR before it counts as left unsent.
pub const MOST_UNREAD_WAIT: Duration = Duration::from_secs(10);
/// How often a waiting CR's pane is looked at.
const CR_LOOK_EVERY: Duration = Duration::from_millis(20);
/// Most CRs one submit sends, where its pane is looked at.
pub const MOST_CRS: u8 = 3;
/// How often a write asks again for a pane another instance holds.
const CLAIM_AGAIN_EVERY: Duration = Duration::from_millis(20);

/// Which instance types into a pane: one at a time, each finishing what it
/// took before another starts.
pub trait PaneClaims: std::fmt::Debug {
    /// Claims `pane` for this instance's next write (again, when it holds
    /// it); false while another instance holds it.
    fn claim(&mut self, pane: PaneRef) -> bool;
    /// Lets `pane` go: this instance has nothing more to type into it.
    fn release(&mut self, pane: PaneRef);
}

/// One instance alone: every claim is granted.
#[derive(Debug, Default)]
pub struct Alone;

impl PaneClaims for Alone {
    fn claim(&mut self, _: PaneRef) -> bool {
        true
    }

    fn release(&mut self, _: PaneRef) {}
}

/// What a submit's pane shows, where the caller looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shows {
    /// Not looked at: the CR goes once, after its delay.
    Unlooked,
    /// The composer holds a draft: `ours` when it is this write's own text;
    /// `again` when, besides, its program takes a further CR
    /// ([`Delivery::cr_again`]); `around`, a fingerprint of the rest of the
    /// screen; `drawn`, of the whole screen as drawn (blank rows and the
    /// cursor too).
    ///
    /// [`Delivery::cr_again`]: zellij_mcp_protocol::agent_programs::Delivery::cr_again
    Draft {
        ours: bool,
        again: bool,
        around: u64,
        drawn: u64,
    },
    /// A dialog: a CR would answer it.
    Dialog,
    /// A screen told, without the text: an empty composer, or the program
    /// working.
    Clear,
    /// A screen not told (a program redrawing): no sign either way.
    Other,
}

impl Shows {
    /// What `shown` (`None`: the screen could not be read) means to the CR
    /// of a write whose text starts with `own`, into a program that takes
    /// messages as `delivery` says.
    pub fn of(shown: Option<&Shown>, delivery: Delivery, own: &str) -> Shows {
        match shown.and_then(|s| Some((s.agent?, s.composer.as_ref()))) {
            Some((AgentScreen::Draft, composer)) => {
                let ours = composer.is_some_and(|c| !own.is_empty() && c.draft.contains(own));
                Shows::Draft {
                    ours,
                    again: ours && delivery.cr_again,
                    around: composer.map_or(0, |c| c.around),
                    drawn: composer.map_or(0, |c| c.drawn),
                }
            }
            Some((AgentScreen::Asking, _)) => Shows::Dialog,
            Some((AgentScreen::Idle | AgentScreen::Working | AgentScreen::Busy, _)) => Shows::Clear,
            None => Shows::Other,
        }
    }
}

/// One write request waiting for, or in, its turn.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingWrite {
    /// What its end means.
    pub done: WriteDone,
    pub pane: PaneRef,
    pub tab_id: Option<usize>,
    pub bytes: Vec<u8>,
    /// `Some` for a submit: the pause before the CR.
    pub submit_delay: Option<Duration>,
}

impl PendingWrite {
    pub fn bytes_written(&self) -> usize {
        self.bytes.len() + usize::from(self.submit_delay.is_some())
    }
}

/// Whom a finished write tells.
#[derive(Debug, Clone, PartialEq)]
pub enum WriteDone {
    /// The request that asked for it.
    Answer(Asker),
    /// The message with this seq is delivered.
    Delivered(u64),
    /// The line of shell run `token` (it answers when its exit is
    /// reported).
    Typed(String),
}

/// What the plugin must do, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Write(PaneRef, Vec<u8>),
    /// The lone CR that ends a submit.
    WriteCr(PaneRef),
    /// Start a timer for this long.
    ArmTimer(Duration),
    /// The write is done: answer its request.
    Reply(PendingWrite),
    /// The write is over, but its text stays in the composer after its CRs:
    /// typed, not sent.
    Unsent(PendingWrite),
}

#[derive(Debug, Default)]
struct PaneQueue {
    items: VecDeque<PendingWrite>,
    /// The head is a submit whose CR is due then.
    cr_due: Option<Instant>,
    /// When its CR was first due (a CR that waits for the pane to show the
    /// text waits at most [`MOST_CR_WAIT`] from then).
    cr_first_due: Option<Instant>,
    /// The CRs the head has sent, and when the last one went.
    crs_sent: u8,
    last_cr: Option<Instant>,
    /// The screen as drawn when the last CR went, where it showed the
    /// draft: a CR goes again only once the program has drawn anew (one
    /// it has not read yet, on a loaded machine, would be read with the
    /// next as two submits), or [`MOST_CR_WAIT`] passed (one it dropped).
    drawn_at_cr: Option<u64>,
    /// The rest of the screen as last seen around the text, and since when
    /// it is so: a CR goes again only once the screen is still.
    steady: Option<(u64, Instant)>,
    /// After a submit CR the pane gets no input until then: an Ink app that
    /// gets text right after Return may merge it into the old value.
    quiet_until: Option<Instant>,
    /// Whether this instance holds the pane's claim.
    claimed: bool,
    /// Another instance held the pane: its claim is asked for again then.
    claim_again: Option<Instant>,
    /// When a write last left text without a CR: its program may not have
    /// drawn it yet (see [`WriteQueue::text_left`]).
    text_left: Option<Instant>,
}

impl PaneQueue {
    fn is_idle(&self, now: Instant) -> bool {
        self.items.is_empty() && self.cr_due.is_none() && self.quiet_until.is_none_or(|t| t <= now)
    }

    fn text_left_within(&self, now: Instant) -> bool {
        self.text_left.is_some_and(|at| now < at + MOST_CR_WAIT)
    }
}

#[derive(Debug)]
pub struct WriteQueue {
    panes: BTreeMap<PaneRef, PaneQueue>,
    claims: Box<dyn PaneClaims>,
}

impl Default for WriteQueue {
    fn default() -> Self {
        WriteQueue {
            panes: BTreeMap::new(),
            claims: Box::new(Alone),
        }
    }
}

impl WriteQueue {
    /// Types only into panes `claims` grants.
    pub fn shared(claims: Box<dyn PaneClaims>) -> Self {
        WriteQueue {
            claims,
            ..WriteQueue::default()
        }
    }

    /// Queues a write; starts it at once when its pane is idle.
    pub fn push(&mut self, write: PendingWrite, now: Instant) -> Vec<Step> {
        let pane = write.pane;
        let queue = self.panes.entry(pane).or_default();
        queue.items.push_back(write);
        let mut steps = Vec::new();
        let quiet = queue.quiet_until.is_some_and(|t| t > now);
        if queue.items.len() == 1 && queue.cr_due.is_none() && !quiet {
            queue.quiet_until = None;
            run_from_head(self.claims.as_mut(), queue, now, &mut steps);
        }
        self.forget_idle(now);
        steps
    }

    /// Called on every timer event: sends due submit CRs, as what `look`
    /// says each pane shows allows (see the module's doc), and resumes
    /// panes whose quiet time after a CR is over. Never early: a CR a few
    /// ms short of its delay may reach an Ink app with the text. Another
    /// timer landing just before the moment arms one for it, in case its own
    /// came early.
    pub fn on_timer(&mut self, now: Instant, look: impl Fn(&PendingWrite) -> Shows) -> Vec<Step> {
        let mut steps = Vec::new();
        let claims = self.claims.as_mut();
        for (pane, queue) in self.panes.iter_mut() {
            if is_due(queue.cr_due, now, &mut steps) {
                let Some(head) = queue.items.front() else {
                    queue.cr_due = None;
                    continue;
                };
                let settle = head.submit_delay.unwrap_or_default();
                let first_due = *queue.cr_first_due.get_or_insert(now);
                let shows = look(head);
                let again = |after| (Some(now + after), Step::ArmTimer(after));
                // The text still shows, the last CR a submit delay ago.
                let stays = queue.last_cr.is_some_and(|at| now >= at + settle);
                let since_cr = |wait| queue.last_cr.is_some_and(|at| now < at + wait);
                if let Shows::Draft { around, .. } = shows {
                    if queue.steady.is_none_or(|(seen, _)| seen != around) {
                        queue.steady = Some((around, now));
                    }
                }
                let still = queue.steady.is_some_and(|(_, since)| now >= since + settle);
                let drawn = match shows {
                    Shows::Draft { drawn, .. } => Some(drawn),
                    _ => None,
                };
                // Drawn anew since the last CR (a new line), or the same
                // screen for long: a program just started or resumed may
                // drop a CR and draw nothing, where one a loaded machine
                // stalls reads it soon.
                let drawn_anew = queue.drawn_at_cr.is_none_or(|at_cr| drawn != Some(at_cr))
                    || !since_cr(MOST_CR_WAIT);
                let mut unsent = false;
                let next = match (queue.crs_sent, shows) {
                    (0, Shows::Other) if now < first_due + MOST_CR_WAIT => {
                        Some(again(CR_LOOK_EVERY))
                    }
                    // Told, and the text not shown yet: the program has not
                    // read it, and a CR now would reach it with the text, in
                    // one read (a new line, not Return) on a loaded machine.
                    (0, Shows::Clear) if now < first_due + MOST_UNREAD_WAIT => {
                        Some(again(CR_LOOK_EVERY))
                    }
                    // A screen not told after the CR says nothing of the
                    // text: looked at again, for as long as before the CR.
                    (1.., Shows::Other) if since_cr(MOST_CR_WAIT) => Some(again(CR_LOOK_EVERY)),
                    (0, Shows::Draft { .. } | Shows::Other | Shows::Clear) => {
                        steps.push(Step::WriteCr(*pane));
                        (queue.crs_sent, queue.last_cr, queue.drawn_at_cr) = (1, Some(now), drawn);
                        Some(again(CR_LOOK_EVERY))
                    }
                    (1..MOST_CRS, Shows::Draft { again: true, .. })
                        if stays && still && drawn_anew =>
                    {
                        steps.push(Step::WriteCr(*pane));
                        queue.crs_sent += 1;
                        (queue.last_cr, queue.drawn_at_cr) = (Some(now), drawn);
                        Some(again(CR_LOOK_EVERY))
                    }
                    // Sent: answered as soon as the pane no longer shows the text.
                    (1.., Shows::Draft { .. }) if !stays => Some(again(CR_LOOK_EVERY)),
                    // Its own text still there: the program may not have
                    // read the CR yet, on a loaded machine.
                    (1.., Shows::Draft { ours: true, .. }) if since_cr(MOST_UNREAD_WAIT) => {
                        Some(again(CR_LOOK_EVERY))
                    }
                    (1.., Shows::Draft { ours: true, .. }) => {
                        unsent = true;
                        None
                    }
                    (0, Shows::Unlooked) => {
                        steps.push(Step::WriteCr(*pane));
                        None
                    }
                    _ => None,
                };
                if let Some((due, timer)) = next {
                    queue.cr_due = due;
                    steps.push(timer);
                    continue;
                }
                (queue.cr_due, queue.cr_first_due, queue.crs_sent) = (None, None, 0);
                (queue.last_cr, queue.steady, queue.drawn_at_cr) = (None, None, None);
                if let Some(done) = queue.items.pop_front() {
                    steps.push(match unsent {
                        true => Step::Unsent(done),
                        false => Step::Reply(done),
                    });
                    queue.quiet_until = Some(now + settle);
                    steps.push(Step::ArmTimer(settle));
                }
            } else if is_due(queue.quiet_until, now, &mut steps) {
                queue.quiet_until = None;
                run_from_head(claims, queue, now, &mut steps);
            } else if is_due(queue.claim_again, now, &mut steps) {
                queue.claim_again = None;
                run_from_head(claims, queue, now, &mut steps);
            }
        }
        self.forget_idle(now);
        steps
    }

    /// Writes waiting or in progress, over all panes.
    pub fn pending(&self) -> usize {
        self.panes.values().map(|q| q.items.len()).sum()
    }

    /// Whether the last write to `pane` left text without a CR less than
    /// [`MOST_CR_WAIT`] ago: a screen that shows no draft may not show it
    /// yet, and a message typed now would join it.
    pub fn text_left(&self, pane: PaneRef, now: Instant) -> bool {
        self.panes
            .get(&pane)
            .is_some_and(|q| q.text_left_within(now))
    }

    /// `busy` when the pane has [`MOST_QUEUED_WRITES`] queued.
    pub fn room(&self, pane: PaneRef) -> Result<(), ErrorBody> {
        let queued = self.panes.get(&pane).map_or(0, |q| q.items.len());
        if queued < MOST_QUEUED_WRITES {
            return Ok(());
        }
        Err(ErrorBody::from(Error::Busy {
            problem: format!("{MOST_QUEUED_WRITES} writes to {pane} are queued already"),
            fix: "wait for them to be typed (each submit takes its delay), then retry".into(),
        }))
    }

    fn forget_idle(&mut self, now: Instant) {
        let claims = self.claims.as_mut();
        self.panes.retain(|pane, q| {
            let idle = q.is_idle(now);
            if idle && q.claimed {
                claims.release(*pane);
                q.claimed = false;
            }
            !idle || q.text_left_within(now)
        });
    }
}

/// Starts queued writes until one needs a timer or the queue is empty;
/// while another instance holds the pane, asks for it again later.
fn run_from_head(
    claims: &mut dyn PaneClaims,
    queue: &mut PaneQueue,
    now: Instant,
    steps: &mut Vec<Step>,
) {
    while let Some(head) = queue.items.front() {
        if !claims.claim(head.pane) {
            queue.claim_again = Some(now + CLAIM_AGAIN_EVERY);
            steps.push(Step::ArmTimer(CLAIM_AGAIN_EVERY));
            return;
        }
        queue.claimed = true;
        if !head.bytes.is_empty() {
            steps.push(Step::Write(head.pane, head.bytes.clone()));
        }
        let left = head.submit_delay.is_none() && leaves_text(&head.bytes);
        queue.text_left = left.then_some(now);
        if let Some(delay) = head.submit_delay {
            queue.cr_due = Some(now + delay);
            steps.push(Step::ArmTimer(delay));
            return;
        }
        if let Some(done) = queue.items.pop_front() {
            steps.push(Step::Reply(done));
        }
    }
}

/// Whether `bytes` leave text on a line: printable, no key sequence, no
/// line end.
fn leaves_text(bytes: &[u8]) -> bool {
    let printable = bytes.iter().any(|b| *b >= b' ' && *b != 0x7f);
    let ends_line = bytes.ends_with(b"\r") || bytes.ends_with(b"\n");
    printable && !ends_line && !bytes.contains(&0x1b)
}

/// Whether the moment `at` has come; one only moments away gets a timer
/// of its own, since the timer that fired may not be the one armed for it.
fn is_due(at: Option<Instant>, now: Instant, steps: &mut Vec<Step>) -> bool {
    match at {
        Some(at) if at <= now => true,
        Some(at) if at <= now + TIMER_SLACK => {
            steps.push(Step::ArmTimer(at - now));
            false
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(id: &str, pane: u32, text: &str, submit_ms: Option<u64>) -> PendingWrite {
        PendingWrite {
            done: WriteDone::Answer(Asker {
                pipe_id: format!("pipe-{id}"),
                request_id: id.to_owned(),
                caller: None,
            }),
            pane: PaneRef::terminal(pane),
            tab_id: Some(0),
            bytes: text.as_bytes().to_vec(),
            submit_delay: submit_ms.map(Duration::from_millis),
        }
    }

    fn replied(steps: &[Step]) -> Vec<String> {
        steps
            .iter()
            .filter_map(|s| match s {
                Step::Reply(PendingWrite {
                    done: WriteDone::Answer(asker),
                    ..
                }) => Some(asker.request_id.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn text_left_without_a_cr_stands_for_a_while_and_a_submit_or_a_key_ends_it() {
        let (pane, start) = (PaneRef::terminal(1), Instant::now());
        let mut q = WriteQueue::default();
        q.push(write("a", 1, "my own", None), start);
        assert!(q.text_left(pane, start + MOST_CR_WAIT / 2));
        assert!(
            !q.text_left(pane, start + MOST_CR_WAIT),
            "not drawn by then: gone"
        );
        assert!(!q.text_left(PaneRef::terminal(2), start));
        q.push(write("b", 1, "more", None), start);
        q.push(write("c", 1, "\x1b[D", None), start);
        assert!(!q.text_left(pane, start), "a key");
        q.push(write("d", 1, "line\r", None), start);
        assert!(!q.text_left(pane, start), "a line sent");
        q.push(write("e", 1, "more", None), start);
        q.push(write("f", 1, "sent", Some(10)), start);
        let steps = q.on_timer(start + Duration::from_millis(10), |_| Shows::Unlooked);
        assert!(steps.contains(&Step::WriteCr(pane)));
        assert!(!q.text_left(pane, start), "a submit");
    }

    #[test]
    fn a_plain_write_is_written_and_answered_at_once() {
        let mut q = WriteQueue::default();
        let steps = q.push(write("a", 1, "ls", None), Instant::now());
        assert_eq!(steps[0], Step::Write(PaneRef::terminal(1), b"ls".to_vec()));
        assert_eq!(replied(&steps), ["a"]);
        assert_eq!(q.pending(), 0);
    }

    #[test]
    fn a_submit_answers_only_after_the_timed_cr() {
        let t0 = Instant::now();
        let mut q = WriteQueue::default();
        let steps = q.push(write("a", 1, "hi", Some(150)), t0);
        assert_eq!(
            steps,
            [
                Step::Write(PaneRef::terminal(1), b"hi".to_vec()),
                Step::ArmTimer(Duration::from_millis(150))
            ]
        );
        assert!(q
            .on_timer(t0 + Duration::from_millis(50), |_| Shows::Unlooked)
            .is_empty());
        let steps = q.on_timer(t0 + Duration::from_millis(151), |_| Shows::Unlooked);
        assert_eq!(steps[0], Step::WriteCr(PaneRef::terminal(1)));
        assert_eq!(replied(&steps), ["a"]);
        assert_eq!(q.pending(), 0);
    }

    #[test]
    fn a_timer_just_before_the_cr_is_due_sends_nothing_and_arms_one_for_it() {
        let t0 = Instant::now();
        let mut q = WriteQueue::default();
        q.push(write("a", 1, "hi", Some(150)), t0);
        let early = t0 + Duration::from_millis(145);
        assert_eq!(
            q.on_timer(early, |_| Shows::Unlooked),
            [Step::ArmTimer(Duration::from_millis(5))]
        );
        let steps = q.on_timer(t0 + Duration::from_millis(150), |_| Shows::Unlooked);
        assert_eq!(steps[0], Step::WriteCr(PaneRef::terminal(1)));
    }

    #[test]
    fn a_write_right_after_a_submit_waits_for_the_quiet_time() {
        let t0 = Instant::now();
        let mut q = WriteQueue::default();
        q.push(write("a", 1, "hi", Some(150)), t0);
        let t1 = t0 + Duration::from_millis(150);
        q.on_timer(t1, |_| Shows::Unlooked);
        assert!(q.push(write("b", 1, "next", None), t1).is_empty());
        let steps = q.on_timer(t1 + Duration::from_millis(150), |_| Shows::Unlooked);
        assert_eq!(
            steps[0],
            Step::Write(PaneRef::terminal(1), b"next".to_vec())
        );
        assert_eq!(replied(&steps), ["b"]);
        // Once quiet, a pane takes writes at once.
        let later = t1 + Duration::from_millis(400);
        assert_eq!(replied(&q.push(write("c", 1, "x", None), later)), ["c"]);
    }

    #[test]
    fn concurrent_submits_to_one_pane_never_interleave() {
        let t0 = Instant::now();
        let mut q = WriteQueue::default();
        q.push(write("a", 1, "first", Some(100)), t0);
        // Queued behind "a": nothing is typed yet.
        assert!(q.push(write("b", 1, "second", Some(100)), t0).is_empty());
        assert!(q.push(write("c", 1, "x", None), t0).is_empty());
        let t1 = t0 + Duration::from_millis(100);
        let steps = q.on_timer(t1, |_| Shows::Unlooked);
        assert_eq!(
            steps,
            [
                Step::WriteCr(PaneRef::terminal(1)),
                Step::Reply(write("a", 1, "first", Some(100))),
                Step::ArmTimer(Duration::from_millis(100)),
            ],
            "the pane stays quiet for a while after the CR"
        );
        let t2 = t1 + Duration::from_millis(100);
        assert_eq!(
            q.on_timer(t2, |_| Shows::Unlooked),
            [
                Step::Write(PaneRef::terminal(1), b"second".to_vec()),
                Step::ArmTimer(Duration::from_millis(100)),
            ]
        );
        let steps = q.on_timer(t2 + Duration::from_millis(100), |_| Shows::Unlooked);
        assert_eq!(replied(&steps), ["b"]);
        let steps = q.on_timer(t2 + Duration::from_millis(200), |_| Shows::Unlooked);
        assert_eq!(replied(&steps), ["c"]);
        assert_eq!(q.pending(), 0);
    }

    #[test]
    fn panes_do_not_wait_for_each_other() {
        let t0 = Instant::now();
        let mut q = WriteQueue::default();
        q.push(write("a", 1, "slow", Some(1000)), t0);
        let steps = q.push(write("b", 2, "fast", None), t0);
        assert_eq!(replied(&steps), ["b"]);
        assert_eq!(q.pending(), 1);
    }

    #[test]
    fn a_looked_at_cr_waits_for_its_draft_goes_again_only_where_told_and_never_into_a_dialog() {
        let mut q = WriteQueue::default();
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let cr = |pane| Step::WriteCr(PaneRef::terminal(pane));
        // Its own text, drawn anew `drawn` times since it showed.
        let ours_drawn = |drawn| Shows::Draft {
            ours: true,
            again: true,
            around: 1,
            drawn,
        };
        let ours = ours_drawn(0);
        q.push(write("a", 1, "hi", Some(150)), t0);
        let steps = q.on_timer(t0 + ms(150), |_| Shows::Other);
        assert_eq!(steps, [Step::ArmTimer(CR_LOOK_EVERY)], "not shown yet");
        let steps = q.on_timer(t0 + ms(200), |_| ours);
        assert_eq!(steps, [cr(1), Step::ArmTimer(CR_LOOK_EVERY)], "shown");
        let steps = q.on_timer(t0 + ms(250), |_| ours);
        assert_eq!(steps, [Step::ArmTimer(CR_LOOK_EVERY)], "not taken yet");
        let steps = q.on_timer(t0 + ms(350), |_| ours);
        assert_eq!(steps, [Step::ArmTimer(CR_LOOK_EVERY)], "not read yet");
        let steps = q.on_timer(t0 + ms(370), |_| ours_drawn(1));
        assert_eq!(
            steps,
            [cr(1), Step::ArmTimer(CR_LOOK_EVERY)],
            "a new line, not Return"
        );
        let steps = q.on_timer(t0 + ms(400), |_| Shows::Other);
        assert_eq!(
            steps,
            [Step::ArmTimer(CR_LOOK_EVERY)],
            "not told: no sign of it"
        );
        let steps = q.on_timer(t0 + ms(450), |_| Shows::Clear);
        assert!(!steps.contains(&cr(1)));
        assert_eq!(replied(&steps), ["a"], "taken: answered at once");
        // Never shown: the CR goes once after the longest wait.
        let t1 = t0 + ms(1000);
        q.push(write("b", 2, "hi", Some(150)), t1);
        let mut at = t1 + ms(150);
        while at < t1 + ms(150) + MOST_CR_WAIT {
            assert!(!q.on_timer(at, |_| Shows::Other).contains(&cr(2)));
            at += CR_LOOK_EVERY;
        }
        assert_eq!(q.on_timer(at, |_| Shows::Other)[0], cr(2));
        let after_cr = at;
        at += CR_LOOK_EVERY;
        while at < after_cr + MOST_CR_WAIT {
            assert!(replied(&q.on_timer(at, |_| Shows::Other)).is_empty());
            at += CR_LOOK_EVERY;
        }
        assert_eq!(replied(&q.on_timer(at, |_| Shows::Other)), ["b"]);
        // Its own text that stays, drawn anew after each CR (a new line),
        // gets MOST_CRS in all; text that is not its own, a program not
        // described so, a screen that keeps changing around it, or one
        // not drawn anew within MOST_CR_WAIT (its CR not read yet), gets
        // the one CR; a screen that changed and then stood still, all of
        // them.
        let t2 = t1 + ms(5000);
        for (pane, shows, crs) in [
            (3, ours, MOST_CRS),
            (
                4,
                Shows::Draft {
                    ours: true,
                    again: false,
                    around: 1,
                    drawn: 0,
                },
                1,
            ),
            (5, ours, 1),
            (6, ours, MOST_CRS),
            (7, ours, 1),
        ] {
            q.push(write("c", pane, "hi", Some(150)), t2);
            let mut sent = 0;
            for i in 3..40 {
                // Pane 5's screen keeps changing around the text; pane
                // 6's changes once, after the first CR.
                let around = match pane {
                    5 => i,
                    6 => u64::from(i > 4),
                    _ => 1,
                };
                let drawn = match pane {
                    7 => 0,
                    _ => sent,
                };
                let now_shows = match shows {
                    Shows::Draft { ours, again, .. } => Shows::Draft {
                        ours,
                        again,
                        around,
                        drawn,
                    },
                    _ => shows,
                };
                let steps = q.on_timer(t2 + ms(50 * i), |_| now_shows);
                sent += steps.iter().filter(|s| **s == cr(pane)).count() as u64;
            }
            assert_eq!(sent, u64::from(crs), "pane {pane}");
        }
        // Never drawn anew: the CR goes again once MOST_CR_WAIT passed (a
        // program just resumed may have dropped it).
        let mut at = t2 + ms(50 * 40);
        while !q.on_timer(at, |_| ours).contains(&cr(7)) {
            assert!(at < t2 + ms(150) + MOST_CR_WAIT + ms(200), "no CR again");
            at += CR_LOOK_EVERY;
        }
        assert!(at >= t2 + ms(150) + MOST_CR_WAIT, "again too soon");
        // A dialog: the write ends without a CR.
        let mut q = WriteQueue::default();
        let t3 = t2 + ms(5000);
        q.push(write("d", 6, "hi", Some(150)), t3);
        let steps = q.on_timer(t3 + ms(150), |_| Shows::Dialog);
        assert!(!steps.contains(&cr(6)));
        assert_eq!(replied(&steps), ["d"]);
    }

    #[test]
    fn its_own_text_left_in_the_composer_ends_unsent_and_another_draft_does_not() {
        let ms = Duration::from_millis;
        let draft = |ours| Shows::Draft {
            ours,
            again: false,
            around: 1,
            drawn: 1,
        };
        for (pane, ours) in [(1, true), (2, false)] {
            let mut q = WriteQueue::default();
            let t0 = Instant::now();
            q.push(write("a", pane, "hi", Some(150)), t0);
            let steps = q.on_timer(t0 + ms(150), |_| draft(true));
            assert_eq!(steps[0], Step::WriteCr(PaneRef::terminal(pane)));
            let mut at = t0 + ms(170);
            let mut ended = Vec::new();
            while ended.is_empty() && at < t0 + MOST_UNREAD_WAIT * 2 {
                let steps = q.on_timer(at, |_| draft(ours));
                let end = |s: &Step| matches!(s, Step::Reply(_) | Step::Unsent(_));
                ended.extend(steps.into_iter().filter(end).map(|s| (s, at)));
                at += CR_LOOK_EVERY;
            }
            let [(step, at)] = &ended[..] else {
                panic!("pane {pane} ended {ended:?}")
            };
            let took = at.duration_since(t0 + ms(150));
            match ours {
                true => {
                    assert!(matches!(step, Step::Unsent(_)), "{step:?}");
                    assert!(took >= MOST_UNREAD_WAIT, "ended after {took:?}");
                }
                false => {
                    assert!(matches!(step, Step::Reply(_)), "{step:?}");
                    assert!(took < ms(400), "ended after {took:?}");
                }
            }
        }
    }

    /// Claims another instance holds while `other` is set; what this one
    /// claimed and let go.
    #[derive(Debug, Default)]
    struct Shared(std::rc::Rc<std::cell::RefCell<SharedState>>);

    #[derive(Debug, Default)]
    struct SharedState {
        other: bool,
        released: Vec<PaneRef>,
    }

    impl PaneClaims for Shared {
        fn claim(&mut self, _: PaneRef) -> bool {
            !self.0.borrow().other
        }

        fn release(&mut self, pane: PaneRef) {
            self.0.borrow_mut().released.push(pane);
        }
    }

    #[test]
    fn writes_wait_in_order_while_another_instance_holds_the_pane() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let state = std::rc::Rc::new(std::cell::RefCell::new(SharedState {
            other: true,
            ..SharedState::default()
        }));
        let mut q = WriteQueue::shared(Box::new(Shared(state.clone())));
        let steps = q.push(write("a", 1, "first", None), t0);
        assert_eq!(steps, [Step::ArmTimer(CLAIM_AGAIN_EVERY)]);
        assert!(q
            .push(write("b", 1, "second", Some(150)), t0 + ms(5))
            .is_empty());
        let steps = q.on_timer(t0 + CLAIM_AGAIN_EVERY, |_| Shows::Unlooked);
        assert_eq!(steps, [Step::ArmTimer(CLAIM_AGAIN_EVERY)]);
        // The other instance let go: both go, in the order they came.
        state.borrow_mut().other = false;
        let t1 = t0 + CLAIM_AGAIN_EVERY * 2;
        let steps = q.on_timer(t1, |_| Shows::Unlooked);
        let pane = PaneRef::terminal(1);
        assert_eq!(steps[0], Step::Write(pane, b"first".to_vec()));
        assert_eq!(steps[2], Step::Write(pane, b"second".to_vec()));
        assert_eq!(replied(&steps), ["a"]);
        assert!(state.borrow().released.is_empty());
        // Let go once the submit's CR and its quiet time are over.
        let steps = q.on_timer(t1 + ms(150), |_| Shows::Unlooked);
        assert_eq!(replied(&steps), ["b"]);
        assert!(state.borrow().released.is_empty());
        q.on_timer(t1 + ms(300), |_| Shows::Unlooked);
        assert_eq!(state.borrow().released, [pane]);
        assert_eq!(q.pending(), 0);
    }
}
