//! Replies that come later: the whole life of a request the plugin does not
//! answer while handling it.
//!
//! A handler only says what its request waits for ([`Handled`]). [`McpPlugin::hold`]
//! then blocks the pipe and files the request where it waits:
//! - here, for work that must run outside `pipe()` (from the next timer), or
//!   for a change the session has not shown yet (a new tab, a closed pane),
//!   which is answered once the view shows it or at a deadline with the
//!   state as it is then;
//! - with the waits ([`crate::waits`]), answered when the wait ends, times
//!   out or is cancelled;
//! - in its pane's write queue ([`crate::writes`]), answered after its submit;
//! - in the outbox ([`crate::messages`]), answered once its message is
//!   delivered, its wait is over (queued) or its TTL passed (failed);
//! - behind an earlier request (a `replay`), answered with that one.
//!
//! Whatever happens, the request gets exactly one answer, and the pipe is
//! released with it ([`McpPlugin::answer`]). One timer is armed, for the
//! earliest moment anything held here or in the waits is due.

use std::time::{Duration, Instant};

use zellij_mcp_protocol::envelope::client_of;
use zellij_mcp_protocol::{ErrorBody, JsonText, PaneRef};
use zellij_tile::prelude::{PaneInfo, TabInfo};

use crate::handlers::Purpose;
use crate::host::Host;
use crate::messages::Message;
use crate::session::SessionView;
use crate::waits::Wait;
use crate::writes::{PendingWrite, Step, WriteDone};
use crate::McpPlugin;

/// How long a reply waits for Zellij to show a change before answering anyway.
pub const SETTLE_TIME: Duration = Duration::from_secs(2);
/// Timers fire a little early or late; a moment this close counts as now.
pub const TIMER_SLACK: Duration = Duration::from_millis(10);

/// Who asked: where the answer goes, and the pane the request came from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Asker {
    pub pipe_id: String,
    pub request_id: String,
    pub caller: Option<PaneRef>,
}

impl Asker {
    /// The client that asked, whose share of the plugin's caps it uses.
    pub fn client(&self) -> &str {
        client_of(&self.request_id)
    }
}

/// What a handler did with its request.
pub enum Handled {
    /// Answer now with this result.
    Now(JsonText),
    /// Answer once the session shows the change (see [`Settle`]).
    WhenShown(Settle),
    /// Answer when this wait ends.
    Wait(Box<Wait<Purpose>>),
    /// Answer once this write (and any submit) is typed.
    Write(PendingWrite),
    /// Answer once this message is delivered, or its wait or TTL is over.
    Message(Box<Message>),
    /// Another request's answer answers this one too (a `replay`).
    WithEarlier,
}

pub type HandlerResult = Result<Handled, ErrorBody>;

/// Zellij's answer now, for a pane or tab the events may not have shown yet.
pub trait Live {
    fn pane(&self, pane: PaneRef) -> Option<PaneInfo>;
    fn tab(&self, tab_id: usize) -> Option<TabInfo>;
}

impl<H: Host> Live for H {
    fn pane(&self, pane: PaneRef) -> Option<PaneInfo> {
        self.pane_info(pane)
    }

    fn tab(&self, tab_id: usize) -> Option<TabInfo> {
        self.tab_info(tab_id)
    }
}

/// Decides the reply from the view and live lookups; `overdue` is set once
/// the deadline passed, and then it must decide.
pub type Settle =
    Box<dyn FnMut(&SessionView, &dyn Live, bool) -> Option<Result<JsonText, ErrorBody>>>;

/// Work for the next timer, outside `pipe()`.
pub type Task<H> = Box<dyn FnOnce(&mut McpPlugin<H>) -> HandlerResult>;

/// What a request held here waits for.
enum Awaiting<T> {
    NextTick(T),
    Shown { settle: Settle, deadline: Instant },
}

/// Requests held here, and the timer armed for them. `T` is the work a
/// request does from the next timer.
pub struct Later<T> {
    held: Vec<(Asker, Awaiting<T>)>,
    /// The earliest timer armed so far.
    next_wake: Option<Instant>,
}

impl<T> Default for Later<T> {
    fn default() -> Self {
        Later {
            held: Vec::new(),
            next_wake: None,
        }
    }
}

impl<T> Later<T> {
    /// Runs `task` from the next timer.
    pub fn next_tick(&mut self, asker: Asker, task: T) {
        self.held.push((asker, Awaiting::NextTick(task)));
    }

    /// Answers once `settle` accepts the view, or at `deadline`.
    pub fn when_shown(&mut self, asker: Asker, settle: Settle, deadline: Instant) {
        self.held
            .push((asker, Awaiting::Shown { settle, deadline }));
    }

    /// Requests held here.
    pub fn len(&self) -> usize {
        self.held.len()
    }

    /// The work due on this timer.
    pub fn due_tasks(&mut self) -> Vec<(Asker, T)> {
        let (due, rest) = std::mem::take(&mut self.held)
            .into_iter()
            .partition(|(_, awaiting)| matches!(awaiting, Awaiting::NextTick(_)));
        self.held = rest;
        due.into_iter()
            .filter_map(|(asker, awaiting)| match awaiting {
                Awaiting::NextTick(task) => Some((asker, task)),
                Awaiting::Shown { .. } => None,
            })
            .collect()
    }

    /// The answers that the view (or the clock) now allows.
    pub fn settle(
        &mut self,
        view: &SessionView,
        live: &dyn Live,
        now: Instant,
    ) -> Vec<(Asker, Result<JsonText, ErrorBody>)> {
        let mut done = Vec::new();
        self.held.retain_mut(|(asker, awaiting)| {
            let Awaiting::Shown { settle, deadline } = awaiting else {
                return true;
            };
            match settle(view, live, now >= *deadline) {
                Some(outcome) => {
                    done.push((std::mem::take(asker), outcome));
                    false
                }
                None => true,
            }
        });
        done
    }

    /// The earliest deadline held here.
    pub fn next_deadline(&self) -> Option<Instant> {
        self.held
            .iter()
            .filter_map(|(_, awaiting)| match awaiting {
                Awaiting::Shown { deadline, .. } => Some(*deadline),
                Awaiting::NextTick(_) => None,
            })
            .min()
    }

    /// How long a new timer should run to fire at `due`; `None` when one
    /// armed already fires in time.
    pub fn timer_for(&mut self, due: Instant, now: Instant) -> Option<Duration> {
        if self.next_wake.is_some_and(|wake| wake <= due + TIMER_SLACK) {
            return None;
        }
        self.next_wake = Some(due);
        Some(due.saturating_duration_since(now))
    }

    /// A timer fired: the one armed for `next_wake` may be it.
    pub fn timer_fired(&mut self, now: Instant) {
        if self.next_wake.is_some_and(|wake| wake <= now + TIMER_SLACK) {
            self.next_wake = None;
        }
    }
}

impl<H: Host> McpPlugin<H> {
    /// Answers a request now, or files it where it waits.
    pub fn hold(&mut self, asker: Asker, handled: HandlerResult) {
        let handled = match handled {
            Ok(Handled::Now(result)) => return self.answer(&asker, Ok(result)),
            Err(error) => return self.answer(&asker, Err(error)),
            Ok(handled) => handled,
        };
        self.host.block(&asker.pipe_id);
        let now = self.host.now();
        match handled {
            Handled::WhenShown(settle) => {
                let deadline = now + SETTLE_TIME;
                self.requests.later.when_shown(asker, settle, deadline);
                self.after_view_change();
            }
            Handled::Wait(wait) => self.start_wait(*wait),
            Handled::Write(write) => {
                let steps = self.input.push(write, now);
                self.run_steps(steps);
            }
            Handled::Message(message) => {
                self.outbox.push(*message);
                self.pump_messages();
            }
            Handled::Now(_) | Handled::WithEarlier => {}
        }
    }

    /// Runs `task` from the next timer, after `pipe()` has returned: Zellij
    /// reports a new or changed pane or tab id to the `zellij pipe` client of
    /// the message being handled, and that makes the client exit before the
    /// reply arrives.
    pub fn outside_pipe(&mut self, asker: Asker, task: Task<H>) {
        self.host.block(&asker.pipe_id);
        self.requests.later.next_tick(asker, task);
        self.host.set_timeout(Duration::ZERO);
    }

    /// Runs the work due on this timer.
    pub fn run_due_tasks(&mut self) {
        for (asker, task) in self.requests.later.due_tasks() {
            // The pipe is blocked already; `hold` blocks it once more, harmlessly.
            let handled = task(self);
            self.hold(asker, handled);
            // It changed the session: the next request takes a new snapshot.
            self.view.snapshot_at = None;
        }
    }

    /// Answers the requests whose change the session now shows.
    pub fn settle_shown(&mut self) {
        let now = self.host.now();
        let view = &self.view;
        for (asker, outcome) in self.requests.later.settle(view, &self.host, now) {
            self.answer(&asker, outcome);
        }
    }

    /// Carries out a write queue's steps.
    pub fn run_steps(&mut self, steps: Vec<Step>) {
        for step in steps {
            match step {
                Step::Write(pane, bytes) => self.host.write(pane, bytes),
                Step::WriteCr(pane) => self.host.write(pane, b"\r".to_vec()),
                Step::ArmTimer(after) => self.host.set_timeout(after),
                Step::Reply(done) => match &done.done {
                    WriteDone::Answer(asker) => {
                        let result = crate::handlers::to_json(crate::handlers::write_result(&done));
                        self.answer(asker, result);
                    }
                    WriteDone::Delivered(seq) => self.submitted(*seq),
                },
            }
        }
    }

    /// Arms one timer for the earliest moment a wait or a held request is due.
    pub fn arm_wake(&mut self, now: Instant) {
        let due = self.waits.next_due(now).into_iter();
        let due = due.chain(self.requests.later.next_deadline());
        let due = due.chain(self.outbox.next_due()).min();
        let Some(due) = due else { return };
        if let Some(after) = self.requests.later.timer_for(due, now) {
            self.host.set_timeout(after);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Nothing;

    impl Live for Nothing {
        fn pane(&self, _: PaneRef) -> Option<PaneInfo> {
            None
        }
        fn tab(&self, _: usize) -> Option<TabInfo> {
            None
        }
    }

    fn asker(id: &str) -> Asker {
        Asker {
            pipe_id: format!("pipe-{id}"),
            request_id: id.to_owned(),
            caller: None,
        }
    }

    #[test]
    fn settles_when_the_view_allows_or_at_the_deadline() {
        let t0 = Instant::now();
        let mut later = Later::<()>::default();
        let settle = |ready_when_tabs: usize| -> Settle {
            Box::new(move |view: &SessionView, _: &dyn Live, overdue: bool| {
                (view.tabs.len() >= ready_when_tabs || overdue)
                    .then(|| Ok(JsonText::of(&view.tabs.len()).unwrap()))
            })
        };
        let deadline = t0 + Duration::from_secs(1);
        later.when_shown(asker("a"), settle(0), deadline);
        later.when_shown(asker("b"), settle(5), deadline);
        let view = SessionView::default();
        let done = later.settle(&view, &Nothing, t0);
        assert_eq!(done.len(), 1);
        assert_eq!(done[0].0.request_id, "a");
        assert!(later.settle(&view, &Nothing, t0).is_empty());
        assert_eq!(later.next_deadline(), Some(deadline));
        let late = later.settle(&view, &Nothing, t0 + Duration::from_secs(2));
        assert_eq!(late[0].0, asker("b"));
        assert_eq!(later.len(), 0);
    }

    #[test]
    fn work_for_the_next_tick_runs_once_and_in_order() {
        let mut later = Later::<u8>::default();
        later.next_tick(asker("a"), 1);
        let settle: Settle = Box::new(|_: &SessionView, _: &dyn Live, _| None);
        later.when_shown(asker("s"), settle, Instant::now());
        later.next_tick(asker("b"), 2);
        let due: Vec<u8> = later.due_tasks().into_iter().map(|(_, t)| t).collect();
        assert_eq!(due, [1, 2]);
        assert!(later.due_tasks().is_empty());
        assert_eq!(later.len(), 1, "the settling request stays");
    }

    #[test]
    fn one_timer_is_armed_for_the_earliest_moment() {
        let t0 = Instant::now();
        let mut later = Later::<()>::default();
        let at = |ms| t0 + Duration::from_millis(ms);
        assert_eq!(
            later.timer_for(at(500), t0),
            Some(Duration::from_millis(500))
        );
        assert_eq!(later.timer_for(at(800), t0), None, "one fires earlier");
        assert_eq!(later.timer_for(at(495), t0), None, "within the slack");
        assert_eq!(
            later.timer_for(at(100), t0),
            Some(Duration::from_millis(100))
        );
        later.timer_fired(at(100));
        assert_eq!(
            later.timer_for(at(800), at(100)),
            Some(Duration::from_millis(700))
        );
    }
}
