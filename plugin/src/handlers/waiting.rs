//! Ops that wait: `wait_for` and `run` (a command pane, then a wait for
//! its exit). The waits themselves live in [`crate::state::waits`]; watching them
//! and `cancel`, which ends one, are the plugin's ([`crate::work::watching`]).
//!
//! Waits look only at a pane's screen. What went by unseen, a run's output
//! and lines beyond the screen are read from the scrollback by the bridge,
//! outside the plugin.

use std::time::Duration;

use zellij_mcp_protocol::matching::Patterns;
use zellij_mcp_protocol::ops::{
    check_max_bytes, Placement, RunArgs, RunCommand, RunResult, WaitForArgs, DEFAULT_LAST_LINES,
    DEFAULT_WAIT_MS, MAX_WAIT_MS,
};
use zellij_mcp_protocol::{ErrorBody, PaneRef};

use super::panes::check_argv;
use super::{bad_request, Handled, HandlerResult, Naming, Zellij};
use crate::host::{Content, Host};
use crate::state::later::Asker;
use crate::state::waits::{Conditions, Purpose, RunPlan, Start, Wait, Waits};

pub(super) fn timeout(ms: Option<u64>) -> Result<Duration, ErrorBody> {
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

impl<H: Host> Zellij<'_, H> {
    /// `wait_for`: a wait, checked against the caller's share of `waits`.
    pub fn wait_for(
        &self,
        waits: &Waits<Purpose>,
        args: WaitForArgs,
        asker: &Asker,
    ) -> HandlerResult {
        waits.room(asker.client())?;
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
            exit: args.exit,
        };
        let screen = self.screen_of(args.pane_id)?;
        let screen = screen.lines();
        let start = match args.resume {
            Some(resume) => Start::After(resume.after),
            None if args.include_existing => Start::Screen(None),
            None => Start::Screen(Some(&screen)),
        };
        let wait = Wait::new(asker.clone(), args.pane_id, conditions, start, purpose, at)
            .changes_told(args.changes_told);
        Ok(Handled::Wait(Box::new(wait.waited_before(waited))))
    }

    /// `run`: a command pane (named in `naming` when asked), then a wait
    /// for its exit.
    pub fn run(
        &self,
        naming: &mut Naming,
        waits: &Waits<Purpose>,
        args: RunArgs,
        asker: &Asker,
    ) -> HandlerResult {
        self.require_ready()?;
        let timeout = timeout(args.timeout_ms)?;
        check_max_bytes(args.max_bytes)?;
        let argv = match args.command {
            RunCommand::Argv(argv) if args.pane_id.is_none() => check_argv(argv)?,
            _ => {
                return Err(bad_request(
                    "a run in an existing shell goes through the bridge",
                    "pass argv for a new pane; for a shell pane pass pane_id and one command line to the zellij_run tool",
                ))
            }
        };
        let tab = self.target_tab(args.tab.as_ref(), asker.caller)?;
        let placement = args.placement.unwrap_or(Placement::Background);
        let content = Content::Command {
            argv: naming
                .keeping
                .launch_line(argv, self.programs, args.relay, args.record_to),
            cwd: args.cwd,
        };
        if args.wait != Some(false) {
            waits.room(asker.client())?;
        }
        naming.check_free(self, args.agent_name.as_deref())?;
        let pane = self.spawn(&tab, &content, placement, args.name.as_deref(), false)?;
        naming.name(self, args.agent_name.as_deref(), pane, args.reads_lines)?;
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
}

/// A run's result before it has waited; the bridge adds the output.
pub fn run_result(pane_id: PaneRef, tab_id: Option<usize>) -> RunResult {
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
        cursor: None,
        recording: None,
    }
}
