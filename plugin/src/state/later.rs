//! Requests answered later, held here: those whose work runs from the next
//! timer (outside `pipe()`), and those answered once the session shows a
//! change (a new tab, a closed pane) or at a deadline with the state as it
//! is then; and the one timer armed for the earliest of them. What a
//! request's whole life looks like is in [`crate::work::lifecycle`].

use std::time::{Duration, Instant};

use zellij_mcp_protocol::envelope::client_of;
use zellij_mcp_protocol::{ErrorBody, JsonText, PaneRef};
use zellij_tile::prelude::{PaneInfo, TabInfo};

use crate::host::Host;
use crate::state::session::SessionView;

/// How long a reply waits for Zellij to show a change before answering anyway.
pub const SETTLE_TIME: Duration = Duration::from_secs(2);
/// How often requests waiting to be shown look at the session again.
pub const SHOWN_LOOK_EVERY: Duration = Duration::from_millis(250);
/// Timers fire a little early or late; a moment this close counts as now.
pub const TIMER_SLACK: Duration = Duration::from_millis(10);
/// A timer this late never comes: Zellij drops the events of an instance
/// whose client left while another client's instance loaded. Another is
/// armed (one more timer event costs nothing; none stops every deadline).
pub const TIMER_LOST: Duration = Duration::from_secs(1);

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

    /// When to look at the view again for the requests waiting to be shown:
    /// a view Zellij stopped feeding changes only when looked at.
    pub fn next_look(&self, now: Instant) -> Option<Instant> {
        let deadline = self.next_deadline()?;
        Some(deadline.min(now + SHOWN_LOOK_EVERY))
    }

    /// How long a new timer should run to fire at `due`; `None` when one
    /// armed already fires in time.
    pub fn timer_for(&mut self, due: Instant, now: Instant) -> Option<Duration> {
        let armed = |wake: Instant| wake <= due + TIMER_SLACK && now < wake + TIMER_LOST;
        if self.next_wake.is_some_and(armed) {
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
        // The timer for 800 never fired: one is armed again once it is lost.
        assert_eq!(
            later.timer_for(at(2_000), at(1_500)),
            None,
            "late, not lost"
        );
        assert_eq!(
            later.timer_for(at(2_000), at(1_900)),
            Some(Duration::from_millis(100)),
            "lost"
        );
    }
}
