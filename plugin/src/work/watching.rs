//! Watching waits, the plugin's own work: a new wait's first look, a look
//! at each wait's pane when it renders or when its timer is due, and the
//! answer of a finished one (a `wait_for` round, or a `run` with its exit
//! code); `cancel`, which ends one early; and runs in shell panes: typing
//! each in turn, their exit reports and their timeouts.

use std::time::{Duration, Instant};

use zellij_mcp_protocol::ops::{
    CancelArgs, CancelResult, Happened, PaneChangedArgs, PaneChangedResult, ReleaseArgs,
    ReleaseResult, RunInPaneResult, RunResult, Signal, WaitForResult, WaitOutcome, WaitReply,
    RUN_READ, RUN_TAKEN,
};
use zellij_mcp_protocol::{Error, ErrorBody, JsonText, PaneRef};
use zellij_tile::prelude::PaneInfo;

use crate::handlers::{run_result, to_json, Handled, HandlerResult};
use crate::host::Host;
use crate::state::later::TIMER_SLACK;
use crate::state::shell_runs::{Answer, Ending, Typing};
use crate::state::waits::{Finished, PaneState, Purpose, RunPlan, Screen, Wait};
use crate::state::writes::{PendingWrite, WriteDone};
use crate::McpPlugin;

/// How old a count of the clients attached may be for `pane_changed`
/// (Zellij's own count is up to a second old).
const CLIENTS_COUNTED_FOR: Duration = Duration::from_secs(1);

impl<H: Host> McpPlugin<H> {
    /// `cancel`: ends a wait under way (its MCP call was cancelled).
    pub fn cancel(&mut self, args: CancelArgs) -> HandlerResult {
        let wait = self.waits.take(&args.request_id);
        let cancelled = wait.is_some();
        if let Some(mut wait) = wait {
            let finished = wait.finish(WaitOutcome::Cancelled, None);
            self.finish_wait(wait, finished);
        }
        to_json(CancelResult { cancelled }).map(Handled::Now)
    }

    /// `pane_changed`: a subscription of the bridge saw the pane change.
    /// Waits on it that get no render events look at it now.
    pub fn pane_changed(&mut self, args: PaneChangedArgs) -> HandlerResult {
        self.refresh_if_starved_for(CLIENTS_COUNTED_FOR);
        let now = self.host.now();
        let pane = args.pane_id;
        let mut renders = false;
        let mut looked = 0;
        for wait in self.waits.on_pane_mut(pane) {
            renders |= wait.renders(now);
            looked += usize::from(wait.told_changed(now));
        }
        if looked > 0 {
            self.check_waits(|wait| wait.pane == pane, None);
        }
        to_json(PaneChangedResult { looked, renders }).map(Handled::Now)
    }

    /// Files a new wait and looks at its pane at once.
    pub fn start_wait(&mut self, wait: Wait<Purpose>) {
        let request_id = wait.asker.request_id.clone();
        self.waits.push(wait);
        self.check_waits(|w| w.asker.request_id == request_id, None);
    }

    /// Checks the waits `which` selects (on `screen`, when an event brought
    /// it), answers finished ones, and arms a timer for the earliest
    /// deadline left.
    pub fn check_waits(
        &mut self,
        which: impl Fn(&Wait<Purpose>) -> bool,
        screen: Option<Screen<'_>>,
    ) {
        let now = self.host.now();
        let mut index = 0;
        while index < self.waits.len() {
            if which(self.waits.get(index)) {
                if let Some(finished) = self.check_wait(index, screen, now) {
                    let wait = self.waits.swap_remove(index);
                    self.finish_wait(wait, finished);
                    continue;
                }
            }
            index += 1;
        }
        self.arm_wake(now);
    }

    /// Looks at one wait's pane now; `screen` is the pane's screen when a
    /// render event brought it.
    fn check_wait(
        &mut self,
        index: usize,
        screen: Option<Screen<'_>>,
        now: Instant,
    ) -> Option<Finished> {
        let pane = self.waits.get(index).pane;
        let headless = self.headless();
        self.waits.get_mut(index).set_headless(headless);
        let info = self.zellij().pane_now(pane);
        let state = self.pane_state(pane, info.as_ref(), self.waits.get(index).seen);
        let wait = self.waits.get_mut(index);
        wait.seen |= info.is_some();
        if screen.is_some() {
            wait.looked(now, true);
        }
        // An exit ends a wait only after one more look at its last output.
        let exited = matches!(state, PaneState::Exited(_));
        let look_due = exited || now + TIMER_SLACK >= wait.look_due(now);
        if screen.is_some() || !wait.watches_output() || state == PaneState::Closed || !look_due {
            return wait.check(screen, state, now);
        }
        self.waits.looks += 1;
        let looked = self.zellij().screen_of(pane);
        let wait = self.waits.get_mut(index);
        wait.looked(now, false);
        let Ok(looked) = looked else {
            return wait.check(None, state, now);
        };
        let rows = looked.lines();
        let screen = Screen {
            rows: &rows,
            height: looked.height,
        };
        wait.check(Some(screen), state, now)
    }

    /// Zellij's view of a waited-on pane. A new pane may not be listed yet;
    /// hidden command panes may not show `exited`, and our own
    /// `CommandPaneExited` event fills that in for panes we opened.
    fn pane_state(&self, pane: PaneRef, info: Option<&PaneInfo>, seen: bool) -> PaneState {
        match info {
            Some(info) => {
                let reported = self.view.exit_codes.get(pane.id);
                if info.exited || reported.is_some() {
                    PaneState::Exited(info.exit_status.or(reported.flatten()))
                } else {
                    PaneState::Running
                }
            }
            None if !seen => PaneState::Running,
            None => PaneState::Closed,
        }
    }

    /// Answers a finished wait (or round of one).
    pub fn finish_wait(&mut self, wait: Wait<Purpose>, finished: Finished) {
        let result = match &wait.purpose {
            Purpose::WaitFor { last_lines, .. } => self.wait_reply(&wait, finished, *last_lines),
            Purpose::Run(plan) => self.run_reply(&wait, finished, plan),
        };
        self.answer(&wait.asker, result);
    }

    /// A `wait_for` round's reply, with the screen's last lines.
    fn wait_reply(
        &self,
        wait: &Wait<Purpose>,
        finished: Finished,
        last_lines: usize,
    ) -> Result<JsonText, ErrorBody> {
        let screen = match finished.outcome {
            WaitOutcome::PaneClosed => Vec::new(),
            _ => self.zellij().screen_of(wait.pane).unwrap_or_default().rows,
        };
        let kept = screen.len().min(last_lines);
        // The screen has fewer lines than asked: more may be above it.
        let short = kept < last_lines && !screen.is_empty();
        let found = finished.found;
        to_json(WaitReply {
            result: WaitForResult {
                pane_id: wait.pane,
                tab_id: self.view.tab_id_of(wait.pane),
                outcome: finished.outcome,
                matched: found.as_ref().map(|f| f.matched.clone()),
                line: found.map(|f| f.line),
                exit_status: finished.exit_status,
                elapsed_ms: wait.started.elapsed().as_millis() as u64,
                last_lines: screen[screen.len() - kept..].join("\n"),
            },
            unseen: finished.unseen,
            goes_on: finished.goes_on,
            short,
        })
    }

    /// A run's reply once its wait is over; kills the command on a timeout
    /// when asked to.
    fn run_reply(
        &self,
        wait: &Wait<Purpose>,
        finished: Finished,
        plan: &RunPlan,
    ) -> Result<JsonText, ErrorBody> {
        let timed_out = finished.outcome == WaitOutcome::Timeout;
        let killed = timed_out && plan.kill_on_timeout;
        if killed {
            self.host.signal(wait.pane, Signal::Sigkill);
        }
        to_json(RunResult {
            tab_id: self.view.tab_id_of(wait.pane).or(Some(plan.tab_id)),
            exited: finished.outcome == WaitOutcome::Exited,
            exit_code: finished.exit_status,
            elapsed_ms: wait.started.elapsed().as_millis() as u64,
            timed_out,
            killed,
            ..run_result(wait.pane, None)
        })
    }

    /// Types a shell run's line and its exit report's suffix.
    pub fn type_run(&mut self, typing: Typing) {
        let write = PendingWrite {
            done: WriteDone::Typed(typing.token),
            pane: typing.pane,
            tab_id: typing.tab_id,
            bytes: typing.text.into_bytes(),
            submit_delay: None,
        };
        let steps = self.input.push(write, self.host.now());
        self.run_steps(steps);
    }

    /// A shell's exit report, `<status> <token>`, on pipe `pipe_id`: its
    /// run is answered and the pipe held until `release` (so the shell's
    /// prompt comes after the output is read); a run whose timeout passed
    /// is logged instead, and the pane's next run has its turn.
    pub fn on_shell_exit(&mut self, pipe_id: &str, report: &str) {
        let mut parts = report.split_whitespace();
        let code = parts.next().and_then(|c| c.parse::<i32>().ok());
        let Some(token) = parts.next() else { return };
        let now = self.host.now();
        let Some((run, turns)) = self.shell_runs.reported(token, pipe_id, now) else {
            return;
        };
        self.host.output(pipe_id, &format!("{RUN_TAKEN}\n"));
        match &run.asker {
            Some(asker) => {
                self.host.block(pipe_id);
                let mut screen = self.host.screen(run.pane).unwrap_or_default();
                while screen.last().is_some_and(|row| row.trim().is_empty()) {
                    screen.pop();
                }
                let result = RunInPaneResult {
                    pane_id: run.pane,
                    tab_id: run.tab_id,
                    exit_code: code,
                    timed_out: false,
                    turn: false,
                    screen,
                };
                self.answer(asker, to_json(result));
            }
            None => {
                self.log_event(Happened::RunExited {
                    pane_id: run.pane,
                    code,
                });
                self.end_exit_waits(run.pane, code);
            }
        }
        self.answer_runs(turns);
        self.arm_wake(now);
    }

    /// A bridge saw `pane`'s shell at its prompt: a run there whose report
    /// is lost (see [`crate::state::shell_runs::ShellRuns::settle_unreported`]) is
    /// settled, its exit code unknown, and the pane's next run has its turn.
    pub fn settle_unreported(&mut self, pane: PaneRef) {
        let now = self.host.now();
        let Some((run, turns)) = self.shell_runs.settle_unreported(pane, now) else {
            return;
        };
        log::warn!("the exit report of run {} in {pane} never came", run.token);
        match &run.asker {
            Some(asker) => {
                let lost = Error::ResultUnknown {
                    problem: format!(
                        "the command line ran in {pane} and its shell is back at its prompt, but its exit report never came, so its exit code is not known"
                    ),
                };
                self.answer(asker, Err(ErrorBody::from(lost)));
            }
            None => {
                self.log_event(Happened::RunExited {
                    pane_id: pane,
                    code: None,
                });
                self.end_exit_waits(pane, None);
            }
        }
        self.answer_runs(turns);
        self.arm_wake(now);
    }

    /// A run in `pane` that timed out has ended: the waits there for an
    /// exit end with its code.
    fn end_exit_waits(&mut self, pane: PaneRef, code: Option<i32>) {
        let mut index = 0;
        while index < self.waits.len() {
            let wait = self.waits.get(index);
            let for_exit = matches!(wait.purpose, Purpose::WaitFor { exit: true, .. });
            if wait.pane != pane || !for_exit {
                index += 1;
                continue;
            }
            let mut wait = self.waits.swap_remove(index);
            let finished = Finished {
                exit_status: code,
                ..wait.finish(WaitOutcome::Exited, None)
            };
            self.finish_wait(wait, finished);
        }
    }

    /// `release`: the shell of run `token` may go on to its prompt, and the
    /// pane's next run has its turn.
    pub fn release_run(&mut self, args: ReleaseArgs) -> HandlerResult {
        let now = self.host.now();
        let released = self.shell_runs.release(&args.token, now);
        let result = ReleaseResult {
            released: released.is_some(),
        };
        if let Some((pipe_id, turns)) = released {
            // Said on the report's pipe, so the shell's script need not wait
            // for the bridge itself (it does when the pipe ends without it).
            self.host.output(&pipe_id, &format!("{RUN_READ}\n"));
            self.host.unblock(&pipe_id);
            self.answer_runs(turns);
            self.arm_wake(now);
        }
        to_json(result).map(Handled::Now)
    }

    /// Runs whose timeout passed or whose turn came are answered, and held
    /// exit reports whose moment is over are let go.
    pub fn shell_runs_due(&mut self, now: Instant) {
        let due = self.shell_runs.due(now);
        for pipe_id in due.released {
            self.host.unblock(&pipe_id);
        }
        self.answer_runs(due.answers);
        self.arm_wake(now);
    }

    fn answer_runs(&mut self, answers: Vec<Answer>) {
        for answer in answers {
            let result = RunInPaneResult {
                pane_id: answer.pane,
                tab_id: answer.tab_id,
                exit_code: None,
                timed_out: answer.how == Ending::TimedOut,
                turn: answer.how == Ending::Turn,
                screen: Vec::new(),
            };
            let outcome = match answer.how {
                Ending::NeverTyped => Err(ErrorBody::from(Error::Timeout {
                    problem: format!(
                        "{} was still running earlier command lines when the timeout passed; nothing was typed",
                        answer.pane
                    ),
                })),
                _ => to_json(result),
            };
            self.answer(&answer.asker, outcome);
        }
    }
}
