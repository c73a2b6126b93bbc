//! Ops that wait: `wait_for`, `run` (a command pane, then a wait for its
//! exit) and `cancel`. The waits themselves live in [`crate::waits`].
//!
//! Waits look only at a pane's screen. What went by unseen, a run's output
//! and lines beyond the screen are read from the scrollback by the bridge,
//! outside the plugin.

use std::time::{Duration, Instant};

use zellij_mcp_protocol::matching::Patterns;
use zellij_mcp_protocol::ops::{
    check_max_bytes, CancelArgs, CancelResult, Placement, RunArgs, RunResult, Signal, WaitForArgs,
    WaitForResult, WaitOutcome, WaitReply, DEFAULT_LAST_LINES, DEFAULT_WAIT_MS, MAX_WAIT_MS,
};
use zellij_mcp_protocol::{ErrorBody, JsonText, PaneRef};
use zellij_tile::prelude::PaneInfo;

use super::panes::check_argv;
use super::{bad_request, now, to_json};
use super::{Handled, HandlerResult};
use crate::host::{Content, Host};
use crate::later::{Asker, TIMER_SLACK};
use crate::waits::{Conditions, Finished, PaneState, Purpose, RunPlan, Screen, Start, Wait};
use crate::McpPlugin;

fn timeout(ms: Option<u64>) -> Result<Duration, ErrorBody> {
    match ms.unwrap_or(DEFAULT_WAIT_MS) {
        0 => Err(bad_request(
            "timeout_ms is 0",
            "pass a positive timeout_ms, or omit it for 30000",
        )),
        ms if ms > MAX_WAIT_MS => Err(bad_request(
            format!("timeout_ms {ms} is over the cap of {MAX_WAIT_MS} (10 minutes)"),
            "pass a smaller timeout_ms, and call again if you need to wait longer",
        )),
        ms => Ok(Duration::from_millis(ms)),
    }
}

impl<H: Host> McpPlugin<H> {
    pub fn wait_for(&mut self, args: WaitForArgs, asker: &Asker) -> HandlerResult {
        self.waits.room(asker.client())?;
        let timeout = timeout(args.timeout_ms)?;
        let patterns = Patterns::of(&args)?;
        let idle = args.idle_ms.map(Duration::from_millis);
        if idle.is_some_and(|i| i.is_zero() || i > timeout) {
            return Err(bad_request(
                "idle_ms must be positive and below timeout_ms",
                "pass idle_ms between 1 and timeout_ms",
            ));
        }
        if patterns.pattern.is_none() && idle.is_none() && !args.exit {
            return Err(bad_request(
                "nothing to wait for",
                "pass pattern, idle_ms or exit: true",
            ));
        }
        self.require_terminal(args.pane_id)?;
        let at = self.host.now();
        let waited = Duration::from_millis(args.resume.as_ref().map_or(0, |r| r.elapsed_ms));
        let conditions = Conditions {
            patterns,
            idle,
            deadline: at + timeout.saturating_sub(waited),
        };
        let purpose = Purpose::WaitFor {
            last_lines: args.last_lines.unwrap_or(DEFAULT_LAST_LINES),
        };
        let screen = self.screen_of(args.pane_id)?;
        let screen = screen.lines();
        let start = match args.resume {
            Some(resume) => Start::After(resume.after),
            None if args.include_existing => Start::Screen(None),
            None => Start::Screen(Some(&screen)),
        };
        let wait = Wait::new(asker.clone(), args.pane_id, conditions, start, purpose, at);
        Ok(Handled::Wait(Box::new(wait.waited_before(waited))))
    }

    pub fn run(&mut self, args: RunArgs, asker: &Asker) -> HandlerResult {
        self.require_ready()?;
        let timeout = timeout(args.timeout_ms)?;
        check_max_bytes(args.max_bytes)?;
        let argv = check_argv(args.command)?;
        let tab = self.target_tab(args.tab.as_ref(), asker.caller)?;
        let placement = args.placement.unwrap_or(Placement::Background);
        let content = Content::Command {
            argv,
            cwd: args.cwd,
        };
        if args.wait != Some(false) {
            self.waits.room(asker.client())?;
        }
        self.check_new_agent(args.agent_name.as_deref())?;
        let pane = self.spawn(&tab, &content, placement, args.name.as_deref(), false)?;
        self.name_new_agent(args.agent_name.as_deref(), pane)?;
        let started = run_result(pane, Some(tab.tab_id));
        if args.wait == Some(false) {
            let settle = super::once_pane_shows(
                pane,
                move |view, _| RunResult {
                    tab_id: view.tab_id_of(pane).or(started.tab_id),
                    ..started.clone()
                },
                |_| true,
            );
            return Ok(Handled::WhenShown(settle));
        }
        let at = self.host.now();
        let conditions = Conditions {
            patterns: Patterns::default(),
            idle: None,
            deadline: at + timeout,
        };
        let plan = RunPlan {
            tab_id: tab.tab_id,
            kill_on_timeout: args.kill_on_timeout,
        };
        let wait = Wait::new(
            asker.clone(),
            pane,
            conditions,
            Start::Ignore,
            Purpose::Run(plan),
            at,
        );
        Ok(Handled::Wait(Box::new(wait)))
    }

    pub fn cancel(&mut self, args: CancelArgs, _: &Asker) -> HandlerResult {
        let wait = self.waits.take(&args.request_id);
        let cancelled = wait.is_some();
        if let Some(mut wait) = wait {
            let finished = wait.finish(WaitOutcome::Cancelled, None);
            self.finish_wait(wait, finished);
        }
        now(CancelResult { cancelled })
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
        let info = self.pane_now(pane);
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
        let looked = self.screen_of(pane);
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
            Purpose::WaitFor { last_lines } => self.wait_reply(&wait, finished, *last_lines),
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
            _ => self.screen_of(wait.pane).unwrap_or_default().rows,
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
}

/// A run's result before it has waited; the bridge adds the output.
fn run_result(pane_id: PaneRef, tab_id: Option<usize>) -> RunResult {
    RunResult {
        pane_id,
        tab_id,
        exited: false,
        exit_code: None,
        output: String::new(),
        truncated: false,
        elapsed_ms: 0,
        timed_out: false,
        killed: false,
        closed: false,
    }
}
