//! Tools that read, type into, wait on, run in and signal panes.

use std::time::Duration;

use rmcp::model::JsonObject;
use rmcp::service::RequestContext;
use rmcp::Json;
use rmcp::{tool, tool_router, RoleServer};
use zellij_mcp_protocol::ops::{
    check_max_bytes, op, CancelMessagesArgs, CancelMessagesResult, Op, PaneResult, PaneState,
    ReadArgs, ReadEventsArgs, ReadEventsResult, ReadResult, RunArgs, RunCommand, RunResult,
    SendMessageArgs, SendMessageResult, SignalArgs, WaitForArgs, WaitForResult, WriteArgs,
    WriteResult, DEFAULT_DELIVERY_WAIT_MS, DEFAULT_SUBMIT_DELAY_MS, DEFAULT_WAIT_MS,
    MAX_DELIVERY_WAIT_MS,
};
use zellij_mcp_protocol::text::shape_read;

use super::relayed::{recording_place, RelayedWait};
use super::schema::{events_output, input, output_in_session as output};
use super::{bad_request, parse, paths, FromSession, InSession, OnRequest, ToolResult, ZellijMcp};
use crate::processes::pane_state::pane_state;

#[tool_router(router = io_tools, vis = "pub(super)")]
impl ZellijMcp {
    #[tool(
        name = "zellij_read",
        description = "A pane's text without ANSI: its screen, scrollback, the lines after a cursor, or an agent's last reply. On: pane_id. Focus: none. After: unchanged. Don't: poll it to wait (use zellij_wait_for). Needs: a pane id.",
        input_schema = input::<ReadArgs>(),
        output_schema = output::<ReadResult>(),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn read(&self, args: JsonObject) -> ToolResult<ReadResult> {
        let p: InSession<ReadArgs> = parse(args)?;
        if p.args.reply {
            return self.read_reply(p.session.as_deref(), &p.args).await;
        }
        let session = self.client.resolve_session(p.session.as_deref()).await?;
        if let Some(read) = self.read_relayed(&session, &p.args).await? {
            return Ok(read);
        }
        if !p.args.needs_scrollback() {
            let Json(mut read) = self
                .send::<op::Read>(Some(&session), &p.args, Duration::ZERO)
                .await?;
            let processes = pane_state(read.result.pid);
            read.result.state = PaneState::of(read.result.state, read.result.line_draft, processes);
            read.result.line_draft = false;
            return Ok(Json(read));
        }
        let (max_bytes, since) = p.args.checked()?;
        let pane = p.args.pane_id;
        // Without `since`, one row more than `tail_lines` tells whether lines were cut.
        let tail = p
            .args
            .tail_lines
            .filter(|_| since.is_none())
            .map(|n| n.saturating_add(1));
        let (located, rows) = tokio::join!(
            self.locate(&session, pane, true),
            self.client.rows(&session, pane, tail)
        );
        let (session, located) = located?;
        let rows = rows?;
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        let shaped = shape_read(&rows, since.as_ref(), p.args.tail_lines, max_bytes);
        let mut result = ReadResult::new(pane, located.tab_id, shaped);
        result.pid = located.pid;
        result.state = PaneState::of(located.state, located.line_draft, pane_state(located.pid));
        Ok(Json(FromSession { session, result }))
    }

    #[tool(
        name = "zellij_write",
        description = "Type text, then keys (submit: then a lone CR, Ink-safe). On: a terminal pane_id. Focus: none. After: typed. Don't: end text with \\r when submitting; answer a dialog (state asking) unless meant (answer). Needs: a live pane, not its own (allow_exited, force).",
        input_schema = input::<WriteArgs>(),
        output_schema = output::<WriteResult>(),
        annotations(destructive_hint = false, open_world_hint = false)
    )]
    async fn write(&self, args: JsonObject) -> ToolResult<WriteResult> {
        let (session, args) = self.guarded(args, |a: &WriteArgs| a.force).await?;
        // A submit waits for its CR, and maybe for earlier writes to the pane.
        let delay = match args.submit {
            true => 2 * args.submit_delay_ms.unwrap_or(DEFAULT_SUBMIT_DELAY_MS),
            false => 0,
        };
        let extra = Duration::from_millis(delay);
        self.send::<op::Write>(Some(&session), &args, extra).await
    }

    #[tool(
        name = "zellij_wait_for",
        description = "Wait for pattern, idle_ms of quiet, the exit, or until_state; stop patterns end it early. Sends progress; cancellable. On: a terminal pane_id. Focus: none. After: unchanged. Don't: loop zellij_read instead. Needs: a terminal pane.",
        input_schema = input::<WaitForArgs>(),
        output_schema = output::<WaitForResult>(),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn wait_for(
        &self,
        args: JsonObject,
        context: RequestContext<RoleServer>,
    ) -> ToolResult<WaitForResult> {
        let p: InSession<WaitForArgs> = parse(args)?;
        let session = self.client.resolve_session(p.session.as_deref()).await?;
        if let Some(state) = p.args.until_state {
            return Ok(Json(self.wait_for_state(&session, p.args, state).await?));
        }
        let on = OnRequest::default();
        let work = async {
            let mut args = p.args;
            match self.wait_relayed(&session, &args).await? {
                RelayedWait::Over(result) => Ok(result),
                RelayedWait::NotRelayed(waited) => {
                    if let Some(timeout) = &mut args.timeout_ms {
                        *timeout = timeout.saturating_sub(waited.as_millis() as u64);
                    }
                    self.wait_in_rounds(&session, args, &on).await
                }
            }
        };
        let result = self.waiting(&session, op::WaitFor::NAME, &on, &context, work);
        Ok(Json(result.await?))
    }

    #[tool(
        name = "zellij_run",
        description = "Run a command in a new hidden pane, or in pane_id's bash/zsh/fish; returns the exit code and output (a shell run's exit after a timeout is a run_exited event). On: a tab or pane_id. Focus: none. After: a new pane stays unless close_on_exit; a shell is back at its prompt. Don't: pass a string without pane_id. Needs: cwd exists; the shell at an empty prompt (else draft).",
        input_schema = input::<RunArgs>(),
        output_schema = output::<RunResult>(),
        annotations(destructive_hint = false)
    )]
    async fn run(
        &self,
        args: JsonObject,
        context: RequestContext<RoleServer>,
    ) -> ToolResult<RunResult> {
        let p: InSession<RunArgs> = parse(args)?;
        let max_bytes = check_max_bytes(p.args.max_bytes)?;
        let session = self.client.resolve_session(p.session.as_deref()).await?;
        if let Some(pane) = p.args.pane_id {
            let RunCommand::Line(line) = &p.args.command else {
                return Err(bad_request(
                    "with pane_id, command is one command line for the pane's shell",
                    "pass command as a string, e.g. \"make test\"",
                ));
            };
            if p.args.record {
                return Err(bad_request(
                    "record records the new pane a run opens",
                    "drop pane_id, or record that pane's relay with `zellij-mcp record PANE`",
                ));
            }
            let ran = self.run_in_shell(&session, &p.args, line, pane, max_bytes, &context);
            return Ok(Json(ran.await?));
        }
        let cwd = paths::cwd(p.args.cwd.clone())?;
        let record_to = recording_place(&session, p.args.record, true, p.args.relay)?;
        let args = RunArgs {
            cwd,
            record_to,
            ..p.args
        };
        let waits = args.wait != Some(false);
        let extra = match waits {
            false => Duration::ZERO,
            true => Duration::from_millis(args.timeout_ms.unwrap_or(DEFAULT_WAIT_MS)),
        };
        let on = OnRequest::default();
        let sent = self.send_noted::<op::Run>(&session, &args, extra, &on);
        let (session, mut result) = self
            .waiting(&session, op::Run::NAME, &on, &context, sent)
            .await?;
        if waits {
            self.add_run_output(&session, &mut result, max_bytes, args.close_on_exit)
                .await;
        }
        result.recording = args.record_to;
        Ok(Json(FromSession { session, result }))
    }

    #[tool(
        name = "zellij_send_message",
        description = "Type [#seq from sender] text into an agent's empty composer and submit it (Ink-safe), in seq order per target, held while it cannot take it (held_because). On: the target. Focus: none. After: queued or delivered (status). Don't: use zellij_write for agents. Needs: an agent's pane, text up to 64 KiB.",
        input_schema = input::<SendMessageArgs>(),
        output_schema = output::<SendMessageResult>(),
        annotations(destructive_hint = false, open_world_hint = false)
    )]
    pub(super) async fn send_message(&self, args: JsonObject) -> ToolResult<SendMessageResult> {
        let p: InSession<SendMessageArgs> = parse(args)?;
        let wait = p.args.wait_ms.unwrap_or(DEFAULT_DELIVERY_WAIT_MS);
        let extra = Duration::from_millis(wait.min(MAX_DELIVERY_WAIT_MS));
        self.send::<op::SendMessage>(p.session.as_deref(), &p.args, extra)
            .await
    }

    #[tool(
        name = "zellij_cancel_messages",
        description = "Cancel this server's queued messages. On: its undelivered messages. Focus: none. After: they are never typed. Don't: expect it to stop one being typed. Needs: a queued seq.",
        input_schema = input::<CancelMessagesArgs>(),
        output_schema = output::<CancelMessagesResult>(),
        annotations(destructive_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn cancel_messages(&self, args: JsonObject) -> ToolResult<CancelMessagesResult> {
        self.forward::<op::CancelMessages>(args).await
    }

    #[tool(
        name = "zellij_read_events",
        description = "Event log after since_seq: messages (queued, held, retry, delivered, expired, cancelled), agents (registered, asking, answered, replied, stalled, exited, closed), run_exited. On: the session. Focus: none. After: unchanged; pass last_seq next (more: another page). Don't: poll; subscribe to zellij://<session>/events. Needs: the plugin.",
        input_schema = input::<ReadEventsArgs>(),
        output_schema = events_output(),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn read_events(&self, args: JsonObject) -> ToolResult<ReadEventsResult> {
        self.forward::<op::ReadEvents>(args).await
    }

    #[tool(
        name = "zellij_signal",
        description = "Ctrl-C (interrupt), or sigint or sigkill to the pane's process. On: a terminal pane_id. Focus: none. After: signalled. Don't: assume it stopped; follow with zellij_wait_for. Needs: a running pane, not its own (or force).",
        input_schema = input::<SignalArgs>(),
        output_schema = output::<PaneResult>(),
        annotations(destructive_hint = true, open_world_hint = false)
    )]
    async fn signal(&self, args: JsonObject) -> ToolResult<PaneResult> {
        let (session, args) = self.guarded(args, |a: &SignalArgs| a.force).await?;
        self.send::<op::Signal>(Some(&session), &args, Duration::ZERO)
            .await
    }
}
