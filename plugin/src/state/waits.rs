//! Waiting on a pane's output, idleness or exit, driven by events: the plugin
//! calls [`Wait::check`] with the pane's screen when the pane renders, when
//! the pane list changes and when a timer fires. A pane Zellij sends no
//! render events for gets a look every [`UNRENDERED_RECHECK`] instead.
//!
//! A wait looks only at the screen, never at the whole scrollback, so what a
//! check costs does not grow with the pane's history. Each check compares the
//! screen with the one before (see [`Baseline`]). When more rows went by
//! between two checks than the screen holds, the wait notes where it lost
//! track, treats the whole screen as new, and stops for a round (at once, or
//! once the round is [`SHORTEST_ROUND`] old) so the bridge can look for the
//! patterns in the scrollback ([`Finished::goes_on`]).
//! Plain state, tested natively.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use zellij_mcp_protocol::cursor::hash_lines;
use zellij_mcp_protocol::fresh::{Baseline, Fresh};
use zellij_mcp_protocol::matching::{Found, Patterns};
use zellij_mcp_protocol::ops::WaitOutcome;
use zellij_mcp_protocol::{ErrorBody, PaneRef};

use crate::state::later::Asker;
use crate::state::shares;

/// What a wait does once it is over: answer a `wait_for`, or a `run`.
#[derive(Debug)]
pub enum Purpose {
    /// `exit`: a shell run's exit in the pane (one that timed out) ends it.
    WaitFor {
        last_lines: usize,
        exit: bool,
    },
    Run(RunPlan),
}

#[derive(Debug)]
pub struct RunPlan {
    /// The tab the pane was opened in, until the view lists it.
    pub tab_id: usize,
    pub kill_on_timeout: bool,
}

/// Waits look at least this often at a pane that renders: its changes come
/// as render events.
pub const RECHECK: Duration = Duration::from_millis(250);
/// How often a wait looks at a pane that does not render: Zellij sends no
/// render events for hidden panes, unviewed tabs, or when no client is
/// attached. A look reads the screen only, never the scrollback.
pub const UNRENDERED_RECHECK: Duration = Duration::from_millis(20);
/// A pane counts as rendering this long after its last render event.
pub const RENDERS_FOR: Duration = Duration::from_secs(1);
/// A command's last output can land on its pane just after Zellij reports
/// the exit; an exit ends a wait only after this much time.
pub const EXIT_SETTLE: Duration = Duration::from_millis(100);
/// A round of a wait lasts at least this long before it stops for the
/// bridge to check rows that went by unseen: a pane that scrolls or redraws
/// all the time costs the bridge at most a few scrollback reads a second,
/// while a burst after a quiet while is checked at once (before it leaves
/// Zellij's scrollback).
pub const SHORTEST_ROUND: Duration = Duration::from_millis(250);
/// Rows kept from earlier checks, so a pattern spanning several lines still
/// matches when its lines arrive in different checks.
const CONTEXT_ROWS: usize = 32;

/// What ends a wait, besides the pane exiting or closing.
#[derive(Debug, Clone)]
pub struct Conditions {
    pub patterns: Patterns,
    pub idle: Option<Duration>,
    pub deadline: Instant,
}

/// A pane's screen: its rows without padding, and its height in rows.
#[derive(Debug, Clone, Copy)]
pub struct Screen<'a> {
    pub rows: &'a [&'a str],
    pub height: usize,
}

impl Screen<'_> {
    /// Output reaches the bottom row: rows may have scrolled off the top.
    fn is_full(&self) -> bool {
        !self.rows.is_empty() && self.rows.len() + 1 >= self.height
    }
}

/// The pane as Zellij shows it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PaneState {
    Running,
    Exited(Option<i32>),
    Closed,
}

/// How a wait (or one round of it) ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Finished {
    pub outcome: WaitOutcome,
    pub found: Option<Found>,
    pub exit_status: Option<i32>,
    /// Rows went by unseen after this baseline.
    pub unseen: Option<Baseline>,
    /// Only this round is over: the bridge checks `unseen`, then resumes.
    pub goes_on: bool,
}

impl Finished {
    pub fn plain(outcome: WaitOutcome) -> Self {
        Finished {
            outcome,
            found: None,
            exit_status: None,
            unseen: None,
            goes_on: false,
        }
    }
}

/// The screen as last seen, and the new rows around it.
#[derive(Debug)]
struct Watch {
    baseline: Baseline,
    /// New rows since the wait began: the last few checks' worth.
    window: VecDeque<String>,
    /// The window's last row is the growing row, and may grow on.
    tail_open: bool,
    /// Where track was first lost, and when.
    lost: Option<(Baseline, Instant)>,
}

impl Watch {
    /// Takes in the screen; true when it shows anything new.
    fn advance(&mut self, screen: Screen<'_>, now: Instant) -> bool {
        let rows = screen.rows;
        // With nothing to anchor on, new output on a full screen may have
        // scrolled rows off it too.
        let blind =
            |fresh: &Fresh| self.baseline.cursor.is_start() && screen.is_full() && fresh.has_new();
        let fresh = match self.baseline.fresh(rows).filter(|f| !blind(f)) {
            Some(fresh) => fresh,
            None => {
                // Rows went by unseen, or the screen was cleared or redrawn:
                // all of it is new, and the scrollback gets a look later.
                self.lost.get_or_insert((self.baseline.clone(), now));
                self.tail_open = false;
                Fresh {
                    rows: rows.to_vec(),
                    continues: false,
                }
            }
        };
        self.baseline = Baseline::after(rows);
        let mut new_rows = fresh.rows.into_iter();
        let Some(first) = new_rows.next() else {
            return false;
        };
        let grew = !first.is_empty() || new_rows.len() > 0;
        match self.window.back_mut() {
            Some(last) if self.tail_open && fresh.continues => last.push_str(first),
            _ => self.window.push_back(first.to_owned()),
        }
        self.window.extend(new_rows.map(str::to_owned));
        self.tail_open = true;
        grew
    }

    fn text(&self) -> String {
        let rows: Vec<&str> = self.window.iter().map(String::as_str).collect();
        rows.join("\n")
    }

    /// Keeps only the context later checks need.
    fn forget_old_rows(&mut self) {
        while self.window.len() > CONTEXT_ROWS {
            self.window.pop_front();
        }
    }
}

/// The waits under way.
#[derive(Debug)]
pub struct Waits<P> {
    items: Vec<Wait<P>>,
    /// Screens read for waits (not brought by render events), in all.
    pub looks: u64,
}

impl<P> Default for Waits<P> {
    fn default() -> Self {
        Waits {
            items: Vec::new(),
            looks: 0,
        }
    }
}

impl<P> Waits<P> {
    /// `busy` when `client` has its share of [`shares::WAITS`] under way,
    /// or all clients have them all.
    pub fn room(&self, client: &str) -> Result<(), ErrorBody> {
        let mine = self
            .items
            .iter()
            .filter(|w| w.asker.client() == client)
            .count();
        shares::WAITS.room(self.items.len(), mine, 1)
    }

    pub fn push(&mut self, wait: Wait<P>) {
        self.items.push(wait);
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn get(&self, index: usize) -> &Wait<P> {
        &self.items[index]
    }

    pub fn get_mut(&mut self, index: usize) -> &mut Wait<P> {
        &mut self.items[index]
    }

    pub fn swap_remove(&mut self, index: usize) -> Wait<P> {
        self.items.swap_remove(index)
    }

    /// The waits on `pane`.
    pub fn on_pane_mut(&mut self, pane: PaneRef) -> impl Iterator<Item = &mut Wait<P>> {
        self.items.iter_mut().filter(move |wait| wait.pane == pane)
    }

    /// Whether any wait watches `pane`.
    pub fn on_pane(&self, pane: PaneRef) -> bool {
        self.items.iter().any(|wait| wait.pane == pane)
    }

    /// Takes out the wait of request `request_id`.
    pub fn take(&mut self, request_id: &str) -> Option<Wait<P>> {
        let index = self
            .items
            .iter()
            .position(|w| w.asker.request_id == request_id)?;
        Some(self.items.swap_remove(index))
    }

    /// The earliest moment a wait needs a look: its deadline, its idle or
    /// exit time, unseen rows, and its next look at the pane.
    pub fn next_due(&self, now: Instant) -> Option<Instant> {
        self.items
            .iter()
            .flat_map(|w| {
                [
                    Some(w.deadline()),
                    w.idle_due(),
                    w.exit_due(),
                    w.unseen_due(),
                    Some(w.look_due(now)),
                ]
            })
            .flatten()
            .min()
    }
}

/// One waiting request, for `wait_for` (watching output) or `run` (exit only).
#[derive(Debug)]
pub struct Wait<P> {
    pub asker: Asker,
    pub pane: PaneRef,
    /// When the wait began, earlier rounds included.
    pub started: Instant,
    /// When this round began.
    round_started: Instant,
    /// The pane has been listed once (a new pane takes a moment to appear).
    pub seen: bool,
    /// What the request does once the wait is over.
    pub purpose: P,
    conditions: Conditions,
    /// `None` for waits that need no output (`run`).
    watch: Option<Watch>,
    last_change: Instant,
    last_hash: Option<u64>,
    exited_at: Option<Instant>,
    /// When the wait last looked at the screen (a new wait looks at once).
    last_look: Option<Instant>,
    /// When the pane last sent a render event.
    rendered_at: Option<Instant>,
    /// The bridge's subscription said the pane changed since the last look.
    change_told: bool,
    /// The bridge tells the plugin of the pane's changes.
    changes_told: bool,
    /// No client is attached, as of the last check: the bridge then hears
    /// of every change, so a told wait looks as rarely as on a rendered pane.
    headless: bool,
}

/// Where a wait starts watching output from.
pub enum Start<'a> {
    /// Output after this screen counts (`None`: the screen counts too).
    Screen(Option<&'a [&'a str]>),
    /// Output after this baseline counts (a resumed wait).
    After(Baseline),
    /// Output does not matter, only the pane's state.
    Ignore,
}

impl<P> Wait<P> {
    pub fn new(
        asker: Asker,
        pane: PaneRef,
        conditions: Conditions,
        start: Start<'_>,
        purpose: P,
        now: Instant,
    ) -> Self {
        let baseline = match start {
            Start::Screen(rows) => Some(Baseline::after(rows.unwrap_or_default())),
            Start::After(baseline) => Some(baseline),
            Start::Ignore => None,
        };
        Wait {
            asker,
            pane,
            started: now,
            round_started: now,
            seen: false,
            purpose,
            conditions,
            watch: baseline.map(|baseline| Watch {
                baseline,
                window: VecDeque::new(),
                tail_open: false,
                lost: None,
            }),
            last_change: now,
            last_hash: None,
            exited_at: None,
            last_look: None,
            rendered_at: None,
            change_told: false,
            changes_told: false,
            headless: false,
        }
    }

    /// A wait whose pane's changes the bridge tells (`told`).
    pub fn changes_told(mut self, told: bool) -> Self {
        self.changes_told = told;
        self
    }

    /// Counts `elapsed` (earlier rounds) into the wait's elapsed time.
    pub fn waited_before(mut self, elapsed: Duration) -> Self {
        self.started = self.started.checked_sub(elapsed).unwrap_or(self.started);
        self
    }

    /// Whether checks need the pane's screen.
    pub fn watches_output(&self) -> bool {
        self.watch.is_some()
    }

    pub fn deadline(&self) -> Instant {
        self.conditions.deadline
    }

    /// When the idle condition would hold if nothing changes.
    pub fn idle_due(&self) -> Option<Instant> {
        self.conditions.idle.map(|idle| self.last_change + idle)
    }

    /// When a seen exit ends the wait.
    pub fn exit_due(&self) -> Option<Instant> {
        self.exited_at.map(|at| at + EXIT_SETTLE)
    }

    /// When the wait should next read the pane's screen (for waits that do
    /// not watch output, look at the pane's state): soon for a pane that
    /// does not render, since nothing would tell the wait it changed.
    pub fn look_due(&self, now: Instant) -> Instant {
        if self.watch.is_none() {
            return now + RECHECK;
        }
        let Some(last) = self.last_look else {
            return now;
        };
        if self.change_told {
            return now;
        }
        let slow = self.renders(now) || (self.changes_told && self.headless);
        last + if slow { RECHECK } else { UNRENDERED_RECHECK }
    }

    /// Whether render events bring the pane's screen.
    pub fn renders(&self, now: Instant) -> bool {
        self.rendered_at
            .is_some_and(|at| now.saturating_duration_since(at) < RENDERS_FOR)
    }

    /// Whether no client is attached, as the plugin last knew.
    pub fn set_headless(&mut self, headless: bool) {
        self.headless = headless;
    }

    /// The bridge's subscription says the pane changed. A pane that renders
    /// needs no look: its render events bring its screen. True when the
    /// wait should look now.
    pub fn told_changed(&mut self, now: Instant) -> bool {
        self.change_told = self.watches_output() && !self.renders(now);
        self.change_told
    }

    /// Notes a look at the screen; `rendered` when a render event brought it.
    pub fn looked(&mut self, now: Instant, rendered: bool) {
        self.last_look = Some(now);
        self.change_told = false;
        if rendered {
            self.rendered_at = Some(now);
        }
    }

    /// When lost rows are due for a look in the scrollback.
    pub fn unseen_due(&self) -> Option<Instant> {
        let (_, at) = self.watch.as_ref()?.lost.as_ref()?;
        Some((*at).max(self.round_started + SHORTEST_ROUND))
    }

    /// Looks at the pane now (its screen without padding, when the wait
    /// watches output); `Some` when the wait, or this round of it, is over.
    /// Stop patterns win over the pattern, output over exit.
    pub fn check(
        &mut self,
        screen: Option<Screen<'_>>,
        state: PaneState,
        now: Instant,
    ) -> Option<Finished> {
        if let Some(found) = screen.and_then(|screen| self.look(screen, now)) {
            return Some(self.finish(found.outcome, Some(found)));
        }
        match state {
            PaneState::Exited(status) => {
                let exited_at = *self.exited_at.get_or_insert(now);
                if now >= exited_at + EXIT_SETTLE {
                    return Some(Finished {
                        exit_status: status,
                        ..self.finish(WaitOutcome::Exited, None)
                    });
                }
            }
            PaneState::Closed => return Some(Finished::plain(WaitOutcome::PaneClosed)),
            PaneState::Running => {}
        }
        if self.idle_due().is_some_and(|due| now >= due) {
            return Some(self.finish(WaitOutcome::Idle, None));
        }
        if now >= self.conditions.deadline {
            return Some(self.finish(WaitOutcome::Timeout, None));
        }
        if self.unseen_due().is_some_and(|due| now >= due) {
            return Some(Finished {
                goes_on: true,
                ..self.finish(WaitOutcome::Timeout, None)
            });
        }
        None
    }

    /// Takes in a changed screen; what the patterns found in it.
    fn look(&mut self, screen: Screen<'_>, now: Instant) -> Option<Found> {
        let watch = self.watch.as_mut()?;
        let hash = hash_lines(screen.rows);
        if self.last_hash == Some(hash) {
            return None;
        }
        self.last_hash = Some(hash);
        self.last_change = now;
        let found = watch
            .advance(screen, now)
            .then(|| self.conditions.patterns.search(&watch.text()))
            .flatten();
        watch.forget_old_rows();
        found
    }

    /// Ends the wait, handing over any rows that went by unseen: a stop
    /// pattern or an earlier match may be there.
    pub fn finish(&mut self, outcome: WaitOutcome, found: Option<Found>) -> Finished {
        let stopped = outcome == WaitOutcome::Stopped;
        let unseen = match self.watch.as_mut() {
            Some(watch) if !stopped => watch.lost.take().map(|(baseline, _)| baseline),
            _ => None,
        };
        Finished {
            outcome,
            found,
            unseen,
            ..Finished::plain(outcome)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zellij_mcp_protocol::matching::compile;

    fn wait(
        pattern: Option<&str>,
        stop: &[&str],
        idle_ms: Option<u64>,
        start: Start<'_>,
        t0: Instant,
    ) -> Wait<()> {
        let conditions = Conditions {
            patterns: Patterns {
                pattern: pattern.map(|p| compile(p, false).unwrap()),
                stop: stop.iter().map(|p| compile(p, true).unwrap()).collect(),
            },
            idle: idle_ms.map(Duration::from_millis),
            deadline: t0 + Duration::from_secs(5),
        };
        Wait::new(
            Asker::default(),
            PaneRef::terminal(1),
            conditions,
            start,
            (),
            t0,
        )
    }

    const RUNNING: PaneState = PaneState::Running;

    /// A screen of `rows` with room to spare below them.
    fn screen<'a>(rows: &'a [&'a str]) -> Option<Screen<'a>> {
        Some(Screen {
            rows,
            height: rows.len() + 10,
        })
    }

    fn matched_line(finished: Option<Finished>) -> Option<String> {
        finished.and_then(|f| f.found).map(|found| found.line)
    }

    #[test]
    fn matches_only_output_that_appears_after_the_start() {
        let t0 = Instant::now();
        let before = ["done 1", "$ "];
        let mut w = wait(
            Some(r"done \d"),
            &[],
            None,
            Start::Screen(Some(&before)),
            t0,
        );
        assert_eq!(w.check(screen(&before), RUNNING, t0), None);
        let after = ["done 1", "$ echo hi", "hi", "done 2", "$ "];
        let found = w.check(screen(&after), RUNNING, t0).unwrap();
        assert_eq!(found.outcome, WaitOutcome::Matched);
        assert_eq!(found.found.unwrap().matched, "done 2");
    }

    #[test]
    fn the_growing_line_counts_only_for_what_was_added() {
        let t0 = Instant::now();
        let prompt = ["$ "];
        let mut w = wait(Some(r"^\$ "), &[], None, Start::Screen(Some(&prompt)), t0);
        assert_eq!(w.check(screen(&["$ typing"]), RUNNING, t0), None);
        let mut w = wait(Some("typing"), &[], None, Start::Screen(Some(&prompt)), t0);
        let found = w.check(screen(&["$ typ"]), RUNNING, t0);
        assert_eq!(found, None);
        let found = w.check(screen(&["$ typing"]), RUNNING, t0);
        assert_eq!(matched_line(found).as_deref(), Some("typing"));
    }

    #[test]
    fn a_pattern_spanning_two_checks_still_matches() {
        let t0 = Instant::now();
        let mut w = wait(
            Some("step 1\nstep 2"),
            &[],
            None,
            Start::Screen(Some(&["$ "])),
            t0,
        );
        assert_eq!(w.check(screen(&["$ run", "step 1", ""]), RUNNING, t0), None);
        let found = w.check(screen(&["$ run", "step 1", "step 2", ""]), RUNNING, t0);
        assert_eq!(found.unwrap().outcome, WaitOutcome::Matched);
    }

    #[test]
    fn include_existing_matches_what_is_already_there() {
        let t0 = Instant::now();
        let mut w = wait(Some("ready"), &[], None, Start::Screen(None), t0);
        let found = w.check(screen(&["server ready"]), RUNNING, t0);
        assert_eq!(matched_line(found).as_deref(), Some("server ready"));
    }

    #[test]
    fn stop_patterns_win() {
        let t0 = Instant::now();
        let mut w = wait(Some("ok"), &["error[E"], None, Start::Screen(Some(&[])), t0);
        let found = w
            .check(screen(&["ok", "error[E0308]"]), RUNNING, t0)
            .unwrap();
        assert_eq!(found.outcome, WaitOutcome::Stopped);
    }

    #[test]
    fn idle_counts_from_the_last_change() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let mut w = wait(None, &[], Some(300), Start::Screen(Some(&["a"])), t0);
        assert_eq!(w.check(screen(&["a", "b"]), RUNNING, t0 + ms(200)), None);
        assert_eq!(w.check(screen(&["a", "b"]), RUNNING, t0 + ms(400)), None);
        let done = w.check(screen(&["a", "b"]), RUNNING, t0 + ms(500));
        assert_eq!(done.unwrap().outcome, WaitOutcome::Idle);
    }

    #[test]
    fn exit_close_and_timeout_end_the_wait() {
        let t0 = Instant::now();
        let mut w = wait(Some("never"), &[], None, Start::Screen(Some(&[])), t0);
        let exited = PaneState::Exited(Some(3));
        assert_eq!(w.check(screen(&["x"]), exited, t0), None);
        let settled = w.check(screen(&["x"]), exited, t0 + EXIT_SETTLE).unwrap();
        assert_eq!(
            (settled.outcome, settled.exit_status),
            (WaitOutcome::Exited, Some(3))
        );
        let closed = w.check(None, PaneState::Closed, t0).unwrap();
        assert_eq!(closed.outcome, WaitOutcome::PaneClosed);
        let late = t0 + Duration::from_secs(6);
        let timeout = w.check(screen(&["x"]), RUNNING, late).unwrap();
        assert_eq!(
            (timeout.outcome, timeout.goes_on),
            (WaitOutcome::Timeout, false)
        );
    }

    #[test]
    fn a_run_wait_needs_no_screen() {
        let t0 = Instant::now();
        let mut w = wait(None, &[], None, Start::Ignore, t0);
        assert!(!w.watches_output());
        let done = w.check(None, PaneState::Exited(Some(0)), t0 + EXIT_SETTLE);
        assert_eq!(
            done, None,
            "the first sight of the exit starts the settle time"
        );
        let done = w.check(None, PaneState::Exited(Some(0)), t0 + 2 * EXIT_SETTLE);
        assert_eq!(done.unwrap().exit_status, Some(0));
    }

    #[test]
    fn rows_that_went_by_unseen_are_handed_over_once_the_round_is_old_enough() {
        let t0 = Instant::now();
        let first = ["a", "b", "c", "$ "];
        let mut w = wait(Some("never"), &[], None, Start::Screen(Some(&first)), t0);
        // More rows went by than the screen holds: the anchor is gone.
        let later = ["x", "y", "z", "$ "];
        assert_eq!(w.check(screen(&later), RUNNING, t0), None);
        assert_eq!(w.unseen_due(), Some(t0 + SHORTEST_ROUND));
        let round = w
            .check(screen(&later), RUNNING, t0 + SHORTEST_ROUND)
            .unwrap();
        assert!(round.goes_on);
        assert_eq!(round.unseen, Some(Baseline::after(&first)));

        // A burst after a quiet while is handed over at once.
        let mut w = wait(Some("never"), &[], None, Start::Screen(Some(&first)), t0);
        let late = t0 + 2 * SHORTEST_ROUND;
        let round = w.check(screen(&later), RUNNING, late).unwrap();
        assert!(round.goes_on);
    }

    #[test]
    fn a_resumed_wait_goes_on_after_its_baseline() {
        let t0 = Instant::now();
        let base = Baseline::after(&["old", "mark", "$ "]);
        let mut w = wait(Some("new"), &[], None, Start::After(base), t0);
        let now = ["old", "mark", "$ echo new", "new", "$ "];
        let found = w.check(screen(&now), RUNNING, t0).unwrap();
        assert_eq!(found.found.unwrap().line, "echo new");
        assert_eq!(found.unseen, None);
    }

    #[test]
    fn a_wait_that_ends_after_losing_track_hands_the_rows_over() {
        let t0 = Instant::now();
        let mut w = wait(
            None,
            &[],
            Some(100),
            Start::Screen(Some(&["a", "b", "c"])),
            t0,
        );
        assert_eq!(w.check(screen(&["p", "q", "r"]), RUNNING, t0), None);
        let idle = w
            .check(
                screen(&["p", "q", "r"]),
                RUNNING,
                t0 + Duration::from_millis(150),
            )
            .unwrap();
        assert_eq!(idle.outcome, WaitOutcome::Idle);
        assert!(!idle.goes_on);
        assert!(idle.unseen.is_some());
    }

    #[test]
    fn an_empty_screen_that_fills_up_may_have_scrolled() {
        let t0 = Instant::now();
        let mut w = wait(Some("never"), &[], None, Start::Screen(Some(&[])), t0);
        let some = ["1", "2"];
        assert_eq!(w.check(screen(&some), RUNNING, t0), None);
        assert_eq!(
            w.unseen_due(),
            None,
            "a screen with room left scrolled nothing"
        );
        let mut w = wait(Some("never"), &[], None, Start::Screen(Some(&[])), t0);
        let full = Screen {
            rows: &["7", "8", "9"],
            height: 4,
        };
        assert_eq!(w.check(Some(full), RUNNING, t0), None);
        assert!(w.unseen_due().is_some(), "a full screen may have scrolled");
    }

    #[test]
    fn a_one_row_screen_that_does_not_change_loses_nothing() {
        let t0 = Instant::now();
        let prompt = ["#"];
        let tiny = Screen {
            rows: &prompt,
            height: 1,
        };
        let mut w = wait(Some("never"), &[], None, Start::Screen(Some(&prompt)), t0);
        assert_eq!(w.check(Some(tiny), RUNNING, t0), None);
        assert_eq!(w.unseen_due(), None);
        let grown = ["# ls"];
        let tiny = Screen {
            rows: &grown,
            height: 1,
        };
        assert_eq!(w.check(Some(tiny), RUNNING, t0), None);
        assert!(w.unseen_due().is_some(), "new output on a full screen");
    }

    #[test]
    fn a_pane_that_renders_is_looked_at_rarely_one_that_does_not_often() {
        let t0 = Instant::now();
        let mut w = wait(Some("x"), &[], None, Start::Screen(None), t0);
        assert_eq!(w.look_due(t0), t0, "a new wait looks at once");
        w.looked(t0, false);
        assert_eq!(w.look_due(t0), t0 + UNRENDERED_RECHECK);
        w.looked(t0, true);
        assert_eq!(w.look_due(t0), t0 + RECHECK);
        // Render events stopped (the client left): looks come often again.
        let later = t0 + RENDERS_FOR;
        w.looked(later, false);
        assert_eq!(w.look_due(later), later + UNRENDERED_RECHECK);
        let exit_only = wait(None, &[], None, Start::Ignore, t0);
        assert_eq!(exit_only.look_due(t0), t0 + RECHECK);
    }

    #[test]
    fn a_pane_whose_every_change_is_told_is_looked_at_when_told_and_rarely_else() {
        let t0 = Instant::now();
        let mut w = wait(Some("x"), &[], None, Start::Screen(None), t0).changes_told(true);
        w.set_headless(true);
        w.looked(t0, false);
        assert!(w.told_changed(t0), "told: look now");
        assert_eq!(w.look_due(t0), t0);
        w.looked(t0, false);
        assert_eq!(w.look_due(t0), t0 + RECHECK, "quiet and told: rarely");
        // With a client attached, only rendered panes would be told of.
        w.set_headless(false);
        assert_eq!(w.look_due(t0), t0 + UNRENDERED_RECHECK);
        // A pane that renders brings its screen with each render event.
        w.looked(t0, true);
        assert!(!w.told_changed(t0), "render events bring it");
        assert_eq!(w.look_due(t0), t0 + RECHECK);
        let mut untold = wait(Some("x"), &[], None, Start::Screen(None), t0);
        untold.set_headless(true);
        untold.looked(t0, false);
        assert_eq!(
            untold.look_due(t0),
            t0 + UNRENDERED_RECHECK,
            "no word comes"
        );
        let mut exit_only = wait(None, &[], None, Start::Ignore, t0);
        assert!(!exit_only.told_changed(t0), "it needs no screen");
    }

    #[test]
    fn waits_are_bounded_found_by_request_and_due_at_least_every_recheck() {
        let t0 = Instant::now();
        let mut waits = Waits::default();
        for n in 0..crate::state::shares::WAITS.per_client {
            let mut w = wait(Some("x"), &[], None, Start::Screen(None), t0);
            w.asker.request_id = format!("c-{n}");
            waits.push(w);
        }
        let busy = waits.room("c").unwrap_err().code;
        assert_eq!(busy, zellij_mcp_protocol::ErrorCode::Busy);
        assert!(waits.room("d").is_ok(), "another client has room");
        assert_eq!(waits.next_due(t0), Some(t0), "new waits look at once");
        let taken = waits.take("c-7").map(|w| w.asker.request_id);
        assert_eq!(taken.as_deref(), Some("c-7"));
        assert!(waits.take("c-7").is_none());
        assert!(waits.room("c").is_ok() && waits.on_pane(PaneRef::terminal(1)));
    }
}
