//! Command lines run in shell panes (`run_in_pane`): per pane one at a
//! time, in the order asked, so two callers' lines never mix. The head of a
//! pane's queue is typed; it ends when the shell's exit report comes (its
//! pipe is then held until the bridge has read the output, or a moment).
//! The next run then has its turn: it is answered `turn`, and typed when
//! its bridge, having seen the shell back at its prompt, sends it again.
//! A run whose timeout passes is answered but stays at the head until its
//! report comes: its command still runs. A report that never comes (its
//! script never ran, or the report was lost) is settled by the next run
//! whose bridge saw the shell back at its prompt well after the line was
//! typed (see [`ShellRuns::settle_unreported`]). Plain state.

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use zellij_mcp_protocol::ops::RUN_TURN_WAIT_MS;
use zellij_mcp_protocol::{ErrorBody, PaneRef};

use crate::state::later::Asker;
use crate::state::shares;

/// Longest a reported exit's pipe is held for the bridge's `release`: long
/// enough for a loaded machine's read of the output, short enough that a
/// bridge gone away leaves its shell waiting only a moment.
pub const HOLD_REPORT: Duration = Duration::from_secs(10);

/// How long a run answered `turn` waits to be sent again.
pub const TURN_WAIT: Duration = Duration::from_millis(RUN_TURN_WAIT_MS);

/// How long after a run's line was written its shell must be seen at its
/// prompt before its report is taken as lost: a shell reads a paste within
/// milliseconds of Zellij writing it, and sources the report's script
/// before its prompt comes back.
pub const REPORT_LOST_AFTER: Duration = Duration::from_secs(2);

/// Command lines under way or queued, one queue per pane.
pub const RUNS: shares::Cap = shares::Cap {
    total: 64,
    per_client: 16,
    what: "runs in shell panes",
    hint: "wait for one of them to end, then retry",
};

/// One command line for a pane's shell.
#[derive(Debug)]
pub struct ShellRun {
    pub token: String,
    /// `None` once answered (its timeout passed, or its turn came).
    pub asker: Option<Asker>,
    pub pane: PaneRef,
    pub tab_id: Option<usize>,
    /// What to type: the line and the exit report's suffix, until typed
    /// (a queued run's is sent again on its turn).
    pub text: String,
    pub deadline: Instant,
    /// Typed into its pane (else queued, or given its turn).
    typed: bool,
    /// When its line was written to the pane (its write may wait in the
    /// pane's write queue after it is typed).
    written_at: Option<Instant>,
    client: String,
}

impl ShellRun {
    pub fn new(
        asker: Asker,
        pane: PaneRef,
        tab_id: Option<usize>,
        token: String,
        text: String,
        deadline: Instant,
    ) -> Self {
        ShellRun {
            client: asker.client().to_owned(),
            token,
            asker: Some(asker),
            pane,
            tab_id,
            text,
            deadline,
            typed: false,
            written_at: None,
        }
    }

    /// What to type; the text is not kept after (nothing big stays).
    fn typing(&mut self) -> Typing {
        self.typed = true;
        Typing {
            token: self.token.clone(),
            pane: self.pane,
            tab_id: self.tab_id,
            text: std::mem::take(&mut self.text),
        }
    }
}

/// A run's text to type into its pane now.
#[derive(Debug, Clone, PartialEq)]
pub struct Typing {
    pub token: String,
    pub pane: PaneRef,
    pub tab_id: Option<usize>,
    pub text: String,
}

/// A run to answer, and how.
#[derive(Debug)]
pub struct Answer {
    pub asker: Asker,
    pub pane: PaneRef,
    pub tab_id: Option<usize>,
    pub how: Ending,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Its timeout passed while it ran (it runs on).
    TimedOut,
    /// Its timeout passed before it was typed: nothing was.
    NeverTyped,
    /// The runs before it are over: it may be sent again.
    Turn,
}

/// What is due now: answers, and held report pipes to let go.
#[derive(Debug, Default)]
pub struct Due {
    pub answers: Vec<Answer>,
    pub released: Vec<String>,
}

/// Exit reports' pipes held for `release`.
#[derive(Debug)]
struct Held {
    token: String,
    pipe_id: String,
    pane: PaneRef,
    until: Instant,
}

#[derive(Debug, Default)]
pub struct ShellRuns {
    queues: BTreeMap<PaneRef, VecDeque<ShellRun>>,
    held: Vec<Held>,
}

impl ShellRuns {
    /// `busy` unless `client` may queue one more run.
    pub fn room(&self, client: &str) -> Result<(), ErrorBody> {
        let all = self.queues.values().flatten();
        let total = all.clone().count();
        let mine = all.filter(|run| run.client == client).count();
        RUNS.room(total, mine, 1)
    }

    /// Whether a run is under way or queued in `pane`, or its shell is
    /// still held after one.
    pub fn busy(&self, pane: PaneRef) -> bool {
        let queued = self.queues.get(&pane).is_some_and(|q| !q.is_empty());
        queued || self.held.iter().any(|h| h.pane == pane)
    }

    /// Whether run `token` sent for `pane` would be typed now: the pane has
    /// no other run, or this one's turn came (see [`ShellRuns::push`]).
    pub fn types_now(&self, pane: PaneRef, token: &str) -> bool {
        let head = self.queues.get(&pane).and_then(VecDeque::front);
        !self.busy(pane) || head.is_some_and(|run| run.token == token && !run.typed)
    }

    /// Queues `run`, or takes it as the run whose turn it is; what to type
    /// when it is the pane's to run now.
    pub fn push(&mut self, mut run: ShellRun) -> Option<Typing> {
        let idle = !self.busy(run.pane);
        let queue = self.queues.entry(run.pane).or_default();
        match queue.front_mut() {
            Some(head) if head.token == run.token && !head.typed => {
                *head = run;
                Some(head.typing())
            }
            _ if idle => {
                let typing = run.typing();
                queue.push_back(run);
                Some(typing)
            }
            _ => {
                // Sent again on its turn: its text need not wait here.
                run.text = String::new();
                queue.push_back(run);
                None
            }
        }
    }

    /// The shell reported `token`'s exit on `pipe_id`: its run ends. The
    /// pipe is held until `release` (or [`HOLD_REPORT`]) when someone waits
    /// to read the output; else the next run has its turn now.
    pub fn reported(
        &mut self,
        token: &str,
        pipe_id: &str,
        now: Instant,
    ) -> Option<(ShellRun, Vec<Answer>)> {
        let pane = *self
            .queues
            .iter()
            .find(|(_, q)| q.front().is_some_and(|run| run.token == token && run.typed))?
            .0;
        let run = self.queues.get_mut(&pane)?.pop_front()?;
        if run.asker.is_some() {
            self.held.push(Held {
                token: token.to_owned(),
                pipe_id: pipe_id.to_owned(),
                pane,
                until: now + HOLD_REPORT,
            });
            return Some((run, Vec::new()));
        }
        Some((run, self.next_turn(pane, now)))
    }

    /// `token`'s line is written to its pane now.
    pub fn written(&mut self, token: &str, now: Instant) {
        let heads = self.queues.values_mut().filter_map(VecDeque::front_mut);
        if let Some(run) = heads.into_iter().find(|run| run.token == token) {
            run.written_at = Some(now);
        }
    }

    /// The run under way in `pane` whose report is lost, taken off its
    /// queue, and the answers of the pane's next turn: a bridge saw the
    /// shell at its prompt `now`, [`REPORT_LOST_AFTER`] or more after the
    /// run's line was written, so the line and its report's script are
    /// over, and the report will not come.
    pub fn settle_unreported(
        &mut self,
        pane: PaneRef,
        now: Instant,
    ) -> Option<(ShellRun, Vec<Answer>)> {
        let queue = self.queues.get_mut(&pane)?;
        let written = queue.front()?.written_at?;
        if now.saturating_duration_since(written) < REPORT_LOST_AFTER {
            return None;
        }
        let run = queue.pop_front()?;
        Some((run, self.next_turn(pane, now)))
    }

    /// Whether `token`'s run was typed by this instance and not reported:
    /// only this instance can answer its report, whoever acts now.
    pub fn awaits_report(&self, token: &str) -> bool {
        let heads = self.queues.values().filter_map(VecDeque::front);
        heads.into_iter().any(|run| run.token == token && run.typed)
    }

    /// Whether this instance holds the report pipe of `token`'s run: only
    /// it can let that shell go on, whoever acts now.
    pub fn holds(&self, token: &str) -> bool {
        self.held.iter().any(|h| h.token == token)
    }

    /// Whether this instance holds any report pipe.
    pub fn holds_any(&self) -> bool {
        !self.held.is_empty()
    }

    /// Lets the shell of `token`'s run go on: its held pipe, and the
    /// answers of the pane's next turn.
    pub fn release(&mut self, token: &str, now: Instant) -> Option<(String, Vec<Answer>)> {
        let at = self.held.iter().position(|h| h.token == token)?;
        let held = self.held.swap_remove(at);
        Some((held.pipe_id, self.next_turn(held.pane, now)))
    }

    /// The pane's next run, when nothing runs there: answered `turn`, then
    /// waiting [`TURN_WAIT`] to be sent again.
    fn next_turn(&mut self, pane: PaneRef, now: Instant) -> Vec<Answer> {
        let Some(queue) = self.queues.get_mut(&pane) else {
            return Vec::new();
        };
        let Some(head) = queue.front_mut().filter(|run| !run.typed) else {
            if queue.is_empty() {
                self.queues.remove(&pane);
            }
            return Vec::new();
        };
        let Some(asker) = head.asker.take() else {
            return Vec::new();
        };
        head.deadline = now + TURN_WAIT;
        vec![Answer {
            asker,
            pane,
            tab_id: head.tab_id,
            how: Ending::Turn,
        }]
    }

    /// Runs whose timeout passed are answered (a typed one stays at its
    /// head, running); turns not taken in time are dropped; held pipes
    /// whose moment is over are let go.
    pub fn due(&mut self, now: Instant) -> Due {
        let mut due = Due::default();
        let mut free = Vec::new();
        for (pane, queue) in &mut self.queues {
            queue.retain_mut(|run| {
                if run.deadline > now {
                    return true;
                }
                let Some(asker) = run.asker.take() else {
                    // A turn not taken: the next run's turn.
                    free.push(*pane);
                    return run.typed;
                };
                let how = match run.typed {
                    true => Ending::TimedOut,
                    false => Ending::NeverTyped,
                };
                due.answers.push(Answer {
                    asker,
                    pane: run.pane,
                    tab_id: run.tab_id,
                    how,
                });
                run.typed
            });
        }
        let (over, held): (Vec<_>, Vec<_>) = self.held.drain(..).partition(|h| h.until <= now);
        self.held = held;
        for held in over {
            due.released.push(held.pipe_id);
            free.push(held.pane);
        }
        for pane in free {
            if !self.held.iter().any(|h| h.pane == pane) {
                due.answers.extend(self.next_turn(pane, now));
            }
        }
        self.queues.retain(|_, q| !q.is_empty());
        due
    }

    /// When something here is next due.
    pub fn next_due(&self) -> Option<Instant> {
        let deadlines = self.queues.values().flatten();
        let deadlines = deadlines
            .filter(|run| run.asker.is_some() || !run.typed)
            .map(|run| run.deadline);
        let holds = self.held.iter().map(|h| h.until);
        deadlines.chain(holds).min()
    }

    /// Runs under way or queued.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.queues.values().map(VecDeque::len).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(pane: u32, token: &str, client: &str, deadline: Instant) -> ShellRun {
        let asker = Asker {
            pipe_id: format!("pipe-{token}"),
            request_id: format!("{client}-1"),
            caller: None,
        };
        let text = format!("echo {token}");
        ShellRun::new(
            asker,
            PaneRef::terminal(pane),
            Some(0),
            token.into(),
            text,
            deadline,
        )
    }

    #[test]
    fn runs_in_one_pane_go_one_at_a_time_in_order_each_on_its_turn() {
        let t0 = Instant::now();
        let later = t0 + Duration::from_secs(30);
        let mut runs = ShellRuns::default();
        assert!(
            runs.push(run(1, "a", "c1", later)).is_some(),
            "typed at once"
        );
        assert!(
            runs.push(run(1, "b", "c2", later)).is_none(),
            "queued behind a"
        );
        assert!(
            runs.push(run(2, "c", "c1", later)).is_some(),
            "another pane"
        );
        assert!(
            runs.reported("b", "p", t0).is_none(),
            "b has not been typed"
        );
        let (done, turns) = runs.reported("a", "pipe-a", t0).unwrap();
        assert_eq!(done.token, "a");
        assert!(turns.is_empty(), "b waits for a's shell to be released");
        assert!(runs.busy(PaneRef::terminal(1)));
        let (pipe, turns) = runs.release("a", t0).unwrap();
        assert_eq!(pipe, "pipe-a");
        assert_eq!(turns.len(), 1);
        assert_eq!(turns[0].how, Ending::Turn);
        assert_eq!(turns[0].asker.request_id, "c2-1");
        assert!(runs.release("a", t0).is_none());
        // Sent again once its shell is at its prompt: typed.
        let typing = runs.push(run(1, "b", "c2", later)).unwrap();
        assert_eq!(typing.text, "echo b");
        assert_eq!(runs.len(), 2);
    }

    #[test]
    fn a_timed_out_run_is_answered_but_holds_its_pane_until_its_report() {
        let t0 = Instant::now();
        let mut runs = ShellRuns::default();
        runs.push(run(1, "a", "c1", t0 + Duration::from_secs(1)));
        runs.push(run(1, "b", "c1", t0 + Duration::from_secs(60)));
        assert_eq!(runs.next_due(), Some(t0 + Duration::from_secs(1)));
        let due = runs.due(t0 + Duration::from_secs(2));
        assert_eq!(due.answers.len(), 1);
        assert_eq!(due.answers[0].how, Ending::TimedOut);
        assert!(
            runs.due(t0 + Duration::from_secs(3)).answers.is_empty(),
            "answered once"
        );
        let (done, turns) = runs
            .reported("a", "pipe-a", t0 + Duration::from_secs(5))
            .unwrap();
        assert!(done.asker.is_none());
        assert!(runs.release("a", t0).is_none(), "no one waits to read it");
        assert_eq!(turns.len(), 1, "b's turn at once");
    }

    #[test]
    fn turns_not_taken_and_runs_never_typed_end_in_time() {
        let t0 = Instant::now();
        let mut runs = ShellRuns::default();
        runs.push(run(1, "a", "c1", t0 + Duration::from_secs(60)));
        runs.push(run(1, "b", "c2", t0 + Duration::from_secs(60)));
        runs.push(run(1, "c", "c3", t0 + Duration::from_secs(5)));
        runs.reported("a", "pipe-a", t0);
        let due = runs.due(t0 + Duration::from_secs(6));
        assert_eq!(due.answers.len(), 1);
        assert_eq!(
            due.answers[0].how,
            Ending::NeverTyped,
            "c's timeout passed in the queue"
        );
        let due = runs.due(t0 + HOLD_REPORT);
        assert_eq!(due.released, ["pipe-a"]);
        assert_eq!(due.answers.len(), 1, "b's turn");
        assert_eq!(due.answers[0].how, Ending::Turn);
        assert_eq!(runs.len(), 1);
        let due = runs.due(t0 + HOLD_REPORT + TURN_WAIT);
        assert!(due.answers.is_empty(), "no one left to have a turn");
        assert_eq!(runs.len(), 0, "b did not take its turn");
        assert!(!runs.busy(PaneRef::terminal(1)));
    }

    #[test]
    fn a_run_whose_report_is_lost_is_settled_once_its_shell_is_seen_at_its_prompt() {
        let t0 = Instant::now();
        let pane = PaneRef::terminal(1);
        let mut runs = ShellRuns::default();
        runs.push(run(1, "a", "c1", t0 + Duration::from_secs(60)));
        runs.push(run(1, "b", "c2", t0 + Duration::from_secs(60)));
        assert!(
            runs.settle_unreported(pane, t0 + REPORT_LOST_AFTER)
                .is_none(),
            "its line is not written yet"
        );
        runs.written("a", t0);
        let soon = t0 + REPORT_LOST_AFTER / 2;
        assert!(
            runs.settle_unreported(pane, soon).is_none(),
            "the shell may not have read the line yet"
        );
        let (lost, turns) = runs
            .settle_unreported(pane, t0 + REPORT_LOST_AFTER)
            .unwrap();
        assert_eq!(lost.token, "a");
        assert_eq!(turns.len(), 1, "b's turn");
        assert_eq!(turns[0].how, Ending::Turn);
        assert!(
            !runs.awaits_report("a"),
            "a report coming late is not taken"
        );
        assert!(runs
            .settle_unreported(pane, t0 + REPORT_LOST_AFTER)
            .is_none());
        assert!(runs
            .push(run(1, "b", "c2", t0 + Duration::from_secs(60)))
            .is_some());
    }

    #[test]
    fn clients_have_shares() {
        let t0 = Instant::now();
        let mut runs = ShellRuns::default();
        for n in 0..RUNS.per_client {
            runs.push(run(
                1,
                &format!("r{n}"),
                "greedy",
                t0 + Duration::from_secs(60),
            ));
        }
        assert!(runs.room("greedy").is_err());
        assert!(runs.room("other").is_ok());
    }
}
