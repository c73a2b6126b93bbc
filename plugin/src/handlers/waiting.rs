//! Ops that wait: `wait_for`, `run` (a command pane, then a wait for its
//! exit) and `cancel`. The waits themselves live in [`crate::waits`].

use std::time::{Duration, Instant};

use zellij_mcp_protocol::ops::{
    CancelArgs, CancelResult, Placement, RunArgs, RunResult, Signal, WaitForArgs, WaitForResult,
    WaitOutcome, DEFAULT_LAST_LINES, DEFAULT_WAIT_MS, MAX_WAIT_MS,
};
use zellij_mcp_protocol::text::tail_capped;
use zellij_mcp_protocol::{ErrorBody, PaneRef, Reply};

use super::io::check_max_bytes;
use super::panes::check_argv;
use super::{bad_request, now, to_json};
use crate::host::{Content, Host};
use crate::pipe::{Handled, HandlerResult};
use crate::waits::{compile, Conditions, Finished, PaneState, Wait};
use crate::McpPlugin;

/// What a wait does once it is over.
#[derive(Debug)]
pub enum Purpose {
    WaitFor { last_lines: usize },
    Run(RunPlan),
}

#[derive(Debug)]
pub struct RunPlan {
    /// The tab the pane was opened in, until the view lists it.
    tab_id: usize,
    max_bytes: usize,
    kill_on_timeout: bool,
    close_on_exit: bool,
}

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
    pub fn wait_for(&mut self, args: WaitForArgs, pipe: (&str, &str)) -> HandlerResult {
        let timeout = timeout(args.timeout_ms)?;
        let pattern = match &args.pattern {
            Some(p) if p.is_empty() => {
                return Err(bad_request(
                    "pattern is empty",
                    "pass text or a regex to wait for",
                ))
            }
            Some(p) => Some(compile(p, args.literal).map_err(|e| {
                bad_request(
                    e,
                    "fix the regex, or pass literal: true to match the text as is",
                )
            })?),
            None => None,
        };
        let stop = args
            .stop
            .iter()
            .map(|p| compile(p, args.literal))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| bad_request(e, "fix the stop pattern, or pass literal: true"))?;
        let idle = args.idle_ms.map(Duration::from_millis);
        if idle.is_some_and(|i| i.is_zero() || i > timeout) {
            return Err(bad_request(
                "idle_ms must be positive and below timeout_ms",
                "pass idle_ms between 1 and timeout_ms",
            ));
        }
        if pattern.is_none() && idle.is_none() && !args.exit {
            return Err(bad_request(
                "nothing to wait for",
                "pass pattern, idle_ms or exit: true",
            ));
        }
        self.require_terminal(args.pane_id)?;
        let existing = self.screen_lines(args.pane_id, true)?;
        let existing: Vec<&str> = existing.iter().map(String::as_str).collect();
        let at = Instant::now();
        let conditions = Conditions {
            pattern,
            stop,
            idle,
            deadline: at + timeout,
        };
        let purpose = Purpose::WaitFor {
            last_lines: args.last_lines.unwrap_or(DEFAULT_LAST_LINES),
        };
        let baseline = (!args.include_existing).then_some(existing.as_slice());
        let wait = Wait::new(ids(pipe), args.pane_id, conditions, baseline, purpose, at);
        self.start_wait(wait, pipe.0)
    }

    pub fn run(&mut self, args: RunArgs, pipe: (&str, &str)) -> HandlerResult {
        self.require_ready()?;
        let timeout = timeout(args.timeout_ms)?;
        let max_bytes = check_max_bytes(args.max_bytes)?;
        let argv = check_argv(args.command)?;
        let tab = self.target_tab(args.tab.as_ref(), args.caller)?;
        let placement = args.placement.unwrap_or(Placement::Background);
        let content = Content::Command {
            argv,
            cwd: args.cwd,
        };
        let pane = self.spawn(&tab, &content, placement, args.name.as_deref(), false)?;
        if args.wait == Some(false) {
            return self.reply_pane_started(pane, tab.tab_id, pipe);
        }
        let at = Instant::now();
        let conditions = Conditions {
            pattern: None,
            stop: Vec::new(),
            idle: None,
            deadline: at + timeout,
        };
        let plan = RunPlan {
            tab_id: tab.tab_id,
            max_bytes,
            kill_on_timeout: args.kill_on_timeout,
            close_on_exit: args.close_on_exit,
        };
        let wait = Wait::new(ids(pipe), pane, conditions, None, Purpose::Run(plan), at);
        self.start_wait(wait, pipe.0)
    }

    /// `run` with `wait: false`: answers once the pane is listed.
    fn reply_pane_started(
        &mut self,
        pane: PaneRef,
        tab_id: usize,
        pipe: (&str, &str),
    ) -> HandlerResult {
        let settle = super::once_pane_shows(
            pane,
            move |view, _| RunResult {
                session: String::new(),
                pane_id: pane,
                tab_id: view.tab_id_of(pane).or(Some(tab_id)),
                exited: false,
                exit_code: None,
                output: String::new(),
                truncated: false,
                elapsed_ms: 0,
                timed_out: false,
                killed: false,
                closed: false,
            },
            |_| true,
        );
        self.reply_when(pipe.0, pipe.1, settle)
    }

    pub fn cancel(&mut self, args: CancelArgs) -> HandlerResult {
        let found = self
            .waits
            .iter()
            .position(|w| w.request_id == args.request_id);
        if let Some(index) = found {
            let wait = self.waits.swap_remove(index);
            self.finish_wait(wait, Finished::plain(WaitOutcome::Cancelled));
        }
        now(CancelResult {
            cancelled: found.is_some(),
        })
    }

    fn start_wait(&mut self, wait: Wait<Purpose>, pipe_id: &str) -> HandlerResult {
        self.host.block(pipe_id);
        self.waits.push(wait);
        let request_id = self.waits.last().map(|w| w.request_id.clone());
        self.check_waits(|w| Some(&w.request_id) == request_id.as_ref());
        Ok(Handled::Later)
    }

    /// Looks at one wait's pane now.
    pub fn check_wait(&mut self, index: usize, now: Instant) -> Option<Finished> {
        let pane = self.waits[index].pane;
        let state = match self.host.pane_info(pane) {
            Some(info) => {
                self.waits[index].seen = true;
                // Hidden command panes may not show `exited`; our own
                // `CommandPaneExited` event says so for panes we opened.
                let reported = self.exit_codes.get(&pane.id).copied();
                if info.exited || reported.is_some() {
                    PaneState::Exited(info.exit_status.or(reported.flatten()))
                } else {
                    PaneState::Running
                }
            }
            // A new pane may not be listed yet.
            None if !self.waits[index].seen => PaneState::Running,
            None => PaneState::Closed,
        };
        let lines = match state {
            PaneState::Closed => Vec::new(),
            _ => self.screen_lines(pane, true).unwrap_or_default(),
        };
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        self.waits[index].check(&lines, state, now)
    }

    /// Answers a finished wait.
    pub fn finish_wait(&mut self, wait: Wait<Purpose>, finished: Finished) {
        let elapsed_ms = wait.started.elapsed().as_millis() as u64;
        let tab_id = self.view.tab_id_of(wait.pane);
        let lines = if finished.outcome == WaitOutcome::PaneClosed {
            Vec::new()
        } else {
            self.screen_lines(wait.pane, true).unwrap_or_default()
        };
        let result = match &wait.purpose {
            Purpose::WaitFor { last_lines } => to_json(WaitForResult {
                session: String::new(),
                pane_id: wait.pane,
                tab_id,
                outcome: finished.outcome,
                matched: finished.matched,
                line: finished.line,
                exit_status: finished.exit_status,
                elapsed_ms,
                last_lines: lines[lines.len().saturating_sub(*last_lines)..].join("\n"),
            }),
            Purpose::Run(plan) => {
                let timed_out = finished.outcome == WaitOutcome::Timeout;
                let killed = timed_out && plan.kill_on_timeout;
                if killed {
                    self.host.signal(wait.pane, Signal::Sigkill);
                }
                let exited = finished.outcome == WaitOutcome::Exited;
                let closed = plan.close_on_exit && exited;
                if closed {
                    self.host.close_pane(wait.pane);
                }
                let (output, truncated) =
                    tail_capped(lines.iter().map(String::as_str), plan.max_bytes);
                to_json(RunResult {
                    session: String::new(),
                    pane_id: wait.pane,
                    tab_id: tab_id.or(Some(plan.tab_id)),
                    exited,
                    exit_code: finished.exit_status,
                    output,
                    truncated,
                    elapsed_ms,
                    timed_out,
                    killed,
                    closed,
                })
            }
        };
        let reply = match result {
            Ok(value) => Reply::ok(&wait.request_id, value),
            Err(error) => Reply::err(&wait.request_id, error),
        };
        self.reply(&wait.pipe_id, reply);
    }
}

fn ids(pipe: (&str, &str)) -> (String, String) {
    (pipe.0.to_owned(), pipe.1.to_owned())
}
