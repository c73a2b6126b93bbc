//! Work on whole scrollbacks, done here rather than in the plugin: a
//! scrollback can be megabytes, and the plugin lives in a 16 MiB
//! interpreter. Zellij reads the rows for us (see `transport`); the plugin
//! only says where a pane is and watches screens.
//!
//! - the rows a wait did not see between two looks at the screen, and
//!   Zellij's word that a waited-on pane changed (a subscription);
//! - lines a wait's `last_lines` asks for beyond the screen;
//! - a run's output.

use std::time::Duration;

use zellij_mcp_protocol::fresh::Baseline;
use zellij_mcp_protocol::matching::Patterns;
use zellij_mcp_protocol::ops::{
    op, CloseArgs, LocateArgs, LocateResult, PaneChangedArgs, PaneState, Resume, RunResult, Target,
    WaitForArgs, WaitForResult, WaitOutcome, WaitReply, DEFAULT_LAST_LINES, DEFAULT_WAIT_MS,
    MAX_WAIT_MS,
};
use zellij_mcp_protocol::text::tail_capped;
use zellij_mcp_protocol::{Error, ErrorBody, ErrorCode, PaneRef};

use crate::processes::pane_state::pane_state;
use crate::processes::table;
use crate::relay;

use super::{FromSession, OnRequest, ZellijMcp};

/// Rows enough for an anchor (see `Cursor`) and the growing row.
const ANCHOR_ROWS: usize = 4;

/// How a round of a wait ended.
enum Round {
    Over(WaitForResult),
    GoesOn(Resume),
}

/// How long a wait's pane's changes go untold once the plugin said the pane
/// renders (its render events bring the screen while a client views it).
const UNTOLD_WHILE_RENDERED: Duration = Duration::from_secs(1);

/// How often `until_state` looks at a pane's processes.
pub(super) const STATE_LOOK: Duration = Duration::from_millis(20);

impl ZellijMcp {
    /// The pane's tab, or `pane_not_found`; and the session's name.
    pub(super) async fn locate(
        &self,
        session: &str,
        pane: PaneRef,
        screen: bool,
    ) -> Result<(String, LocateResult), ErrorBody> {
        let args = LocateArgs {
            pane_id: pane,
            screen,
        };
        let how = self.client.sending();
        self.client
            .call::<op::Locate>(Some(session), &args, how)
            .await
    }

    /// `wait_for {until_state}`: the pane's processes (and for states told
    /// from the screen, the plugin) are looked at every [`STATE_LOOK`] until
    /// it is in `state` or the timeout passes.
    pub(super) async fn wait_for_state(
        &self,
        session: &str,
        args: WaitForArgs,
        state: PaneState,
    ) -> Result<FromSession<WaitForResult>, ErrorBody> {
        let mixed = args.pattern.is_some() || args.idle_ms.is_some() || args.exit;
        if mixed || !args.stop.is_empty() {
            return Err(ErrorBody::from(Error::bad_request(
                "until_state waits alone",
                "pass until_state without pattern, stop, idle_ms or exit; or wait for those in a call of their own",
            )));
        }
        let processes = table();
        if !state.is_shown() && !processes.tells(state) {
            return Err(ErrorBody::from(Error::Unsupported {
                problem: format!(
                    "on {}, this server cannot tell when a pane is {}",
                    processes.platform(),
                    serde_json::to_value(state)
                        .ok()
                        .and_then(|name| name.as_str().map(str::to_owned))
                        .unwrap_or_default()
                ),
                fix: "wait for a pattern, idle_ms or exit instead".into(),
            }));
        }
        let timeout =
            Duration::from_millis(args.timeout_ms.unwrap_or(DEFAULT_WAIT_MS).min(MAX_WAIT_MS));
        let started = tokio::time::Instant::now();
        let (session, mut located) = self.locate(session, args.pane_id, true).await?;
        // A shell's `prompt` and the agents' states need the screen: the
        // plugin is asked each time; the processes alone are looked at here.
        let on_screen = state.is_shown() || state == PaneState::Prompt;
        let outcome = loop {
            let now = PaneState::of(located.state, located.line_draft, pane_state(located.pid));
            if now == Some(state) {
                break WaitOutcome::State;
            }
            if started.elapsed() >= timeout {
                break WaitOutcome::Timeout;
            }
            tokio::time::sleep(STATE_LOOK).await;
            if on_screen {
                located = self.locate(&session, args.pane_id, true).await?.1;
            }
        };
        let result = WaitForResult {
            pane_id: args.pane_id,
            tab_id: located.tab_id,
            outcome,
            matched: None,
            line: None,
            exit_status: None,
            elapsed_ms: started.elapsed().as_millis() as u64,
            last_lines: String::new(),
        };
        Ok(FromSession { session, result })
    }

    /// `wait_for` as rounds: the plugin watches the screen; when rows went by
    /// unseen, it hands them over, they are searched here, and the wait
    /// goes on after them unless something was found.
    pub(super) async fn wait_in_rounds(
        &self,
        session: &str,
        mut args: WaitForArgs,
        on: &OnRequest,
    ) -> Result<FromSession<WaitForResult>, ErrorBody> {
        let patterns = Patterns::of(&args)?;
        let pane = args.pane_id;
        args.changes_told = true;
        let rounds = async {
            let mut first_look = None;
            loop {
                let ((session, reply), look) = self.wait_round(session, &args, on).await?;
                first_look = first_look.or(look);
                let round =
                    self.settle_round(&session, &args, &patterns, reply, first_look.as_ref());
                match round.await? {
                    Round::Over(result) => return Ok(FromSession { session, result }),
                    Round::GoesOn(resume) => args.resume = Some(resume),
                }
            }
        };
        tokio::select! {
            over = rounds => over,
            never = self.tell_changes(session, pane) => match never {},
        }
    }

    /// Tells the plugin each time Zellij says the pane changed, one word in
    /// flight at a time, for as long as the wait lasts. With no client
    /// attached Zellij sends the plugin no render events, so without these
    /// a wait could only look at the pane on a timer. While the pane
    /// renders (render events bring the plugin its screen), changes go
    /// untold for a second at a time.
    async fn tell_changes(&self, session: &str, pane: PaneRef) -> std::convert::Infallible {
        let (changed, mut told) = tokio::sync::mpsc::channel(1);
        let watch = self.client.watch_changes(session, pane, changed);
        let tell = async {
            while told.recv().await.is_some() {
                let args = PaneChangedArgs { pane_id: pane };
                let how = self.client.sending();
                let said = self
                    .client
                    .call::<op::PaneChanged>(Some(session), &args, how);
                match said.await {
                    Ok((_, said)) if said.renders => {
                        tokio::time::sleep(UNTOLD_WHILE_RENDERED).await;
                        let _ = told.try_recv();
                    }
                    Ok(_) => {}
                    Err(e) => tracing::debug!("could not tell the plugin {pane} changed: {e}"),
                }
            }
        };
        let (watched, ()) = tokio::join!(watch, tell);
        // The wait goes on, looking at the pane on its timer.
        tracing::debug!(?watched, "stopped watching {pane}");
        std::future::pending().await
    }

    /// One round in the plugin. The first also takes the bridge's own look
    /// at the pane, for when the plugin's screen was empty and gave it
    /// nothing to anchor on.
    async fn wait_round(
        &self,
        session: &str,
        args: &WaitForArgs,
        on: &OnRequest,
    ) -> Result<((String, WaitReply), Option<Baseline>), ErrorBody> {
        let extra = Duration::from_millis(args.timeout_ms.unwrap_or(DEFAULT_WAIT_MS));
        let round = self.send_noted::<op::WaitFor>(session, args, extra, on);
        let first = args.resume.is_none() && !args.include_existing;
        let (round, look) = match first {
            true => {
                let look = self.client.rows(session, args.pane_id, Some(ANCHOR_ROWS));
                let (round, look) = tokio::join!(round, look);
                (round, look.ok())
            }
            false => (round.await, None),
        };
        let (session, reply) = round?;
        tracing::debug!(
            outcome = ?reply.result.outcome,
            goes_on = reply.goes_on,
            unseen = reply.unseen.is_some(),
            short = reply.short,
            "wait_for round on {}",
            args.pane_id
        );
        let look =
            look.map(|rows| Baseline::after(&rows.iter().map(String::as_str).collect::<Vec<_>>()));
        Ok(((session, reply), look))
    }

    /// What a round's reply comes to once its unseen rows are searched and
    /// its `last_lines` filled in from the scrollback.
    async fn settle_round(
        &self,
        session: &str,
        args: &WaitForArgs,
        patterns: &Patterns,
        reply: WaitReply,
        first_look: Option<&Baseline>,
    ) -> Result<Round, ErrorBody> {
        let mut result = reply.result;
        if reply.unseen.is_none() && !reply.short {
            return Ok(Round::Over(result));
        }
        let last_lines = args.last_lines.unwrap_or(DEFAULT_LAST_LINES);
        // Only rows that went by unseen need the whole scrollback.
        let tail = reply.unseen.is_none().then_some(last_lines);
        let rows = match self.client.rows(session, args.pane_id, tail).await {
            Ok(rows) => rows,
            Err(e) if e.code == ErrorCode::PaneNotFound => {
                return Ok(Round::Over(WaitForResult {
                    outcome: WaitOutcome::PaneClosed,
                    matched: None,
                    line: None,
                    ..result
                }))
            }
            // A final result stands without what it could not add.
            Err(_) if !reply.goes_on => return Ok(Round::Over(result)),
            Err(e) => return Err(e),
        };
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        let found = reply.unseen.as_ref().and_then(|unseen| {
            let after = match first_look {
                Some(look) if unseen.cursor.is_start() => look,
                _ => unseen,
            };
            let fresh = after.fresh(&rows);
            patterns.search(&fresh.map_or_else(|| rows.join("\n"), |f| f.text()))
        });
        if let Some(found) = found {
            result.outcome = found.outcome;
            result.matched = Some(found.matched);
            result.line = Some(found.line);
            result.exit_status = None;
        } else if reply.goes_on {
            return Ok(Round::GoesOn(Resume {
                after: Baseline::after(&rows),
                elapsed_ms: result.elapsed_ms,
            }));
        }
        if reply.short {
            result.last_lines = rows[rows.len().saturating_sub(last_lines)..].join("\n");
        }
        Ok(Round::Over(result))
    }

    /// Fills in a finished run's output (from its relay, which has it
    /// whole, else the tail of Zellij's scrollback), and closes its pane
    /// when asked to and it has exited.
    pub(super) async fn add_run_output(
        &self,
        session: &str,
        result: &mut RunResult,
        max_bytes: usize,
        close_on_exit: bool,
    ) {
        let (asked_in, pane, ended) = (session.to_owned(), result.pane_id, result.exited);
        let relayed = tokio::task::spawn_blocking(move || {
            relay::wire::output(&asked_in, pane, max_bytes, ended)
        });
        let rows = match relayed.await {
            Ok(Some(lines)) => Ok((lines.lines, lines.first > 0)),
            _ => self
                .client
                .rows(session, pane, None)
                .await
                .map(|r| (r, false)),
        };
        match rows {
            Ok((rows, earlier_left_out)) => {
                let (output, truncated) = tail_capped(rows.iter().map(String::as_str), max_bytes);
                result.output = output;
                result.truncated = truncated || earlier_left_out;
            }
            Err(e) => tracing::warn!("could not read the output of {pane}: {e}"),
        }
        if close_on_exit && result.exited {
            let close = CloseArgs {
                target: Target {
                    pane_id: Some(pane),
                    tab: None,
                },
                ..Default::default()
            };
            let how = self.client.sending();
            let closed = self
                .client
                .call::<op::Close>(Some(session), &close, how)
                .await;
            result.closed = closed.is_ok();
        }
    }
}
