//! `zellij_ask`: a message delivered as `zellij_send_message` delivers it,
//! then the reply to it, read from the program's own record of the
//! conversation (see [`crate::replies`]), or from its screen where no
//! record is known.

use std::time::{Duration, Instant, SystemTime};

use rmcp::model::JsonObject;
use rmcp::service::RequestContext;
use rmcp::Json;
use rmcp::{tool, tool_router, RoleServer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use zellij_mcp_protocol::agent_programs::{Description, Record};
use zellij_mcp_protocol::ops::{
    check_max_bytes, first_line, op, DeliveryStatus, HoldReason, LocateResult, PaneState, ReadArgs,
    ReadEventsArgs, ReadResult, RepliedArgs, SendMessageArgs, SendMessageResult, TurnEnded,
};
use zellij_mcp_protocol::text::shape_read;
use zellij_mcp_protocol::{Error, ErrorBody, PaneRef};

use super::schema::{input, output_in_session as output};
use super::{
    bad_request, parse, FromSession, InSession, OnRequest, ToolFailure, ToolResult, ZellijMcp,
};
use crate::processes::pane_state::pane_state;
use crate::replies::place::Place;
use crate::replies::{alone, screen, Following, Started, Turn};

/// How long an ask waits by default, and at most.
const DEFAULT_TIMEOUT_S: u64 = 600;
const MAX_TIMEOUT_S: u64 = 3600;
/// How often the record and the pane are looked at while a turn goes on.
const LOOK_EVERY: Duration = Duration::from_millis(50);
/// How often the record alone is looked at once the turn's end is near
/// (its hook told it, or the pane is idle): programs write their record a
/// little after their hooks run (Claude Code and Qwen Code 40 to 150 ms),
/// and a file costs less to look at than the pane.
const LOOK_CLOSELY_EVERY: Duration = Duration::from_millis(10);
/// A record changed this recently may still be written to: a turn whose
/// record marks no end is over once the pane is idle and this passed.
const QUIET: Duration = Duration::from_millis(100);
/// Records changed this long before the message are not looked in (clocks
/// of files and of this process may differ a little).
const CLOCK_SLACK: Duration = Duration::from_secs(2);

#[derive(Debug, Deserialize, JsonSchema)]
pub struct AskArgs {
    /// A pane id, an agent name, or "parent".
    pub to: String,
    pub text: String,
    pub from: Option<String>,
    /// Default 600, max 3600.
    pub timeout_s: Option<u64>,
}

/// Where the reply was read: the program's own record of the
/// conversation, or its pane's screen, as the program drew it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReplySource {
    Transcript,
    Screen,
    Hook,
}

/// The agent's state when the ask ended: the turn over (idle); a dialog or
/// question waiting for the person, never answered (asking); exited; still
/// on the turn at the timeout (working); or the message not delivered in
/// time (undelivered, see held_because).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AskState {
    Idle,
    Asking,
    Exited,
    Working,
    Undelivered,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AskResult {
    pub seq: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pane_id: Option<PaneRef>,
    pub state: AskState,
    /// What the model wrote in the turn the message started, as recorded;
    /// tools it called as [tool: name].
    pub reply: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<ReplySource>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub timed_out: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_because: Option<HoldReason>,
    pub elapsed_ms: u64,
}

#[tool_router(router = ask_tools, vis = "pub(super)")]
impl ZellijMcp {
    #[tool(
        name = "zellij_ask",
        description = "Send a message as zellij_send_message does, then return the reply to its turn from the program's record (else its screen), or asking at once if a dialog waits (never answered). On: the target. Focus: none. After: the turn over. Don't: poll zellij_read. Needs: an agent's pane.",
        input_schema = input::<AskArgs>(),
        output_schema = output::<AskResult>(),
        annotations(destructive_hint = false, open_world_hint = false)
    )]
    async fn ask(
        &self,
        args: JsonObject,
        context: RequestContext<RoleServer>,
    ) -> ToolResult<AskResult> {
        let p: InSession<AskArgs> = parse(args)?;
        let timeout_s = p.args.timeout_s.unwrap_or(DEFAULT_TIMEOUT_S);
        if timeout_s == 0 || timeout_s > MAX_TIMEOUT_S {
            let hint = format!("pass timeout_s from 1 to {MAX_TIMEOUT_S}");
            return Err(bad_request(
                format!("timeout_s {timeout_s} is out of range"),
                hint,
            ));
        }
        let session = self.client.resolve_session(p.session.as_deref()).await?;
        let asking = Asking {
            started: Instant::now(),
            since: SystemTime::now() - CLOCK_SLACK,
            deadline: Instant::now() + Duration::from_secs(timeout_s),
        };
        let on = OnRequest::default();
        let work = self.ask_in(&session, p.args, &asking);
        let result = self.waiting(&session, "ask", &on, &context, work).await?;
        Ok(Json(FromSession { session, result }))
    }
}

/// One ask's clock.
struct Asking {
    started: Instant,
    since: SystemTime,
    deadline: Instant,
}

impl Asking {
    fn elapsed_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    fn over(&self) -> bool {
        Instant::now() >= self.deadline
    }
}

impl ZellijMcp {
    /// Delivers the message, then follows the turn it started.
    async fn ask_in(
        &self,
        session: &str,
        args: AskArgs,
        asking: &Asking,
    ) -> Result<AskResult, ErrorBody> {
        let sent = self.deliver(session, &args, asking).await?;
        let mut result = AskResult {
            seq: sent.seq,
            pane_id: sent.pane_id,
            state: AskState::Undelivered,
            reply: String::new(),
            source: None,
            timed_out: false,
            held_because: sent.held_because,
            elapsed_ms: 0,
        };
        if let (DeliveryStatus::Delivered, Some(pane)) = (sent.status, sent.pane_id) {
            let header = format!("[#{} from {}]", sent.seq, sent.from);
            let turn = self
                .follow(session, pane, &header, &args.text, asking)
                .await?;
            result.state = turn.state;
            result.reply = turn.reply;
            result.source = Some(turn.source);
            result.timed_out = turn.state == AskState::Working;
            if turn.state == AskState::Idle {
                self.note_reply(session, pane, sent.seq, &result.reply)
                    .await;
            }
        } else if sent.held_because == Some(HoldReason::Asking) {
            // A dialog waits for the person; the message stays queued.
            result.state = AskState::Asking;
        } else {
            result.timed_out = asking.over();
        }
        result.elapsed_ms = asking.elapsed_ms();
        Ok(result)
    }

    /// Tells the plugin of the reply (the board's last reply, a `replied`
    /// event); the reply stands whether or not it is told.
    async fn note_reply(&self, session: &str, pane: PaneRef, seq: u64, reply: &str) {
        let args = RepliedArgs {
            pane_id: pane,
            seq: Some(seq),
            first_line: first_line(reply),
        };
        let how = self.client.sending();
        let told = self
            .client
            .call::<op::Replied>(Some(session), &args, how)
            .await;
        if let Err(e) = told {
            tracing::debug!("the reply of {pane} was not noted: {e}");
        }
    }

    /// Sends the message and waits for its delivery; a message held while
    /// the agent asks is answered at once.
    async fn deliver(
        &self,
        session: &str,
        args: &AskArgs,
        asking: &Asking,
    ) -> Result<SendMessageResult, ErrorBody> {
        let send = SendMessageArgs {
            to: args.to.clone(),
            text: args.text.clone(),
            from: args.from.clone(),
            ttl_s: Some(
                asking
                    .deadline
                    .saturating_duration_since(Instant::now())
                    .as_secs()
                    .max(1),
            ),
            wait_ms: Some(2000),
        };
        let how = self.sending(session).await.longer(Duration::from_secs(2));
        let (_, mut sent) = self
            .client
            .call::<op::SendMessage>(Some(session), &send, how)
            .await?;
        let mut since_seq = sent.seq.saturating_sub(1);
        while !matches!(
            sent.status,
            DeliveryStatus::Delivered | DeliveryStatus::Failed | DeliveryStatus::Cancelled
        ) && sent.held_because != Some(HoldReason::Asking)
            && !asking.over()
        {
            tokio::time::sleep(LOOK_EVERY * 2).await;
            let read = ReadEventsArgs {
                since_seq: Some(since_seq),
                max_bytes: None,
            };
            let how = self.client.sending();
            let (_, events) = self
                .client
                .call::<op::ReadEvents>(Some(session), &read, how)
                .await?;
            since_seq = events.last_seq;
            for event in &events.events {
                note_event(&mut sent, event);
            }
        }
        Ok(sent)
    }

    /// Follows the turn the message with `header` started until it ends,
    /// the agent asks or exits, or the time is up.
    async fn follow(
        &self,
        session: &str,
        pane: PaneRef,
        header: &str,
        text: &str,
        asking: &Asking,
    ) -> Result<FollowedTurn, ErrorBody> {
        let (_, located) = self.locate(session, pane, true).await?;
        let programs = self.client.programs();
        let described = located
            .program
            .as_deref()
            .and_then(|p| programs.for_program(p))
            .cloned();
        let record = described.as_ref().and_then(|d| d.record);
        let place = Place::of(located.pid, located.cwd.as_deref());
        let started = Started::By(header.to_owned());
        let (named, conversation) = (located.record.as_deref(), located.conversation.as_deref());
        let mut following = record
            .map(|r| Following::new(r, place, asking.since, started).as_told(named, conversation));
        let mut seen = Seen::default();
        let mut looked: Option<PaneLook> = None;
        loop {
            let look = match looked.take() {
                Some(look) if look.at.elapsed() < LOOK_EVERY => look,
                _ => self.look_at(session, pane).await,
            };
            let (state, hook_end) = (look.state, look.turn_ended.clone());
            looked = Some(look);
            // The program's hook told this very turn's end (its prompt
            // carries the message's header): for a record that marks no
            // end, the turn is over.
            let marks_end = record.is_some_and(crate::replies::formats::marks_end);
            let told_end = hook_end.filter(|end| {
                let prompt = end.prompt.as_deref().unwrap_or_default();
                prompt.contains(header)
            });
            let told_end_seen = told_end.is_some();
            if let Some(end) = told_end.clone().filter(|_| !marks_end) {
                return Ok(self.ended_by_hook(following.as_mut(), end, record));
            }
            let turn = match (following.as_mut(), described.as_ref()) {
                (Some(f), _) => f.turn().unwrap_or_else(|e| {
                    tracing::debug!("record of {pane}: {e}");
                    None
                }),
                (None, Some(program)) => {
                    let reply = self
                        .screen_reply(session, pane, header, text, program)
                        .await?;
                    reply.map(Turn::of_text)
                }
                (None, None) => None,
            };
            let alone = told_end.as_ref().and_then(|end| alone(end, turn.as_ref()));
            if let Some(reply) = alone.filter(|_| state != PaneState::Asking) {
                return Ok(FollowedTurn {
                    state: AskState::Idle,
                    reply,
                    source: ReplySource::Hook,
                });
            }
            // A record that marks the end may write it after the program's
            // hooks ran: the turn is over once the hook's last message is
            // the record's.
            let whole = told_end
                .and_then(|end| end.last_message)
                .is_some_and(|last| turn.as_ref().is_some_and(|t| t.ends_with_text(&last)));
            let over = seen.look(state, turn.as_ref(), record) || whole;
            let ended = match state {
                PaneState::Asking => Some(AskState::Asking),
                PaneState::Exited => Some(AskState::Exited),
                _ if over => Some(AskState::Idle),
                _ if asking.over() => Some(AskState::Working),
                _ => None,
            };
            if let Some(state) = ended {
                return Ok(FollowedTurn {
                    state,
                    reply: turn.map(|t| t.reply()).unwrap_or_default(),
                    source: match record {
                        Some(_) => ReplySource::Transcript,
                        None => ReplySource::Screen,
                    },
                });
            }
            let near_end = told_end_seen || state == PaneState::Idle;
            let next = match following.is_some() && near_end {
                true => LOOK_CLOSELY_EVERY,
                false => LOOK_EVERY,
            };
            tokio::time::sleep(next).await;
        }
    }

    /// The pane's state and the turn's end its hooks told, as of now.
    async fn look_at(&self, session: &str, pane: PaneRef) -> PaneLook {
        let (state, turn_ended) = match self.locate(session, pane, true).await {
            Ok((_, now)) => (state_of(&now), now.turn_ended),
            Err(_) => (PaneState::Exited, None),
        };
        PaneLook {
            at: Instant::now(),
            state,
            turn_ended,
        }
    }

    /// A turn its program's hook told the end of: the reply from its
    /// record, else as the hook gave it.
    fn ended_by_hook(
        &self,
        following: Option<&mut Following>,
        end: TurnEnded,
        record: Option<Record>,
    ) -> FollowedTurn {
        let turn = following.and_then(|f| f.turn().ok().flatten());
        let (reply, source) = match turn.filter(Turn::has_reply) {
            Some(turn) if record.is_some() => (turn.reply(), ReplySource::Transcript),
            _ => (end.last_message.unwrap_or_default(), ReplySource::Hook),
        };
        FollowedTurn {
            state: AskState::Idle,
            reply,
            source,
        }
    }

    /// The reply as the pane shows it; `None` while the message's row is
    /// not on its screen.
    async fn screen_reply(
        &self,
        session: &str,
        pane: PaneRef,
        header: &str,
        text: &str,
        program: &Description,
    ) -> Result<Option<String>, ErrorBody> {
        let read = ReadArgs::screen(pane);
        let how = self.client.sending();
        let (_, shown) = self
            .client
            .call::<op::Read>(Some(session), &read, how)
            .await?;
        let rows: Vec<String> = shown.text.lines().map(str::to_owned).collect();
        Ok(screen::reply(&rows, header, text, program).filter(|r| !r.is_empty()))
    }
}

impl ZellijMcp {
    /// `zellij_read {reply: true}`: the last turn of the pane's program,
    /// from its record.
    pub(super) async fn read_reply(
        &self,
        session: Option<&str>,
        args: &ReadArgs,
    ) -> ToolResult<ReadResult> {
        let max_bytes = check_max_bytes(args.max_bytes)?;
        let session = self.client.resolve_session(session).await?;
        let pane = args.pane_id;
        let (session, located) = self.locate(&session, pane, true).await?;
        let programs = self.client.programs();
        let program = located.program.as_deref();
        let Some(record) = program.and_then(|p| programs.for_program(p)?.record) else {
            let runs = program.unwrap_or("no agent program known");
            return Err(ToolFailure(ErrorBody::from(Error::Unsupported {
                problem: format!("{pane} runs {runs}, whose description names no record of its conversation"),
                fix: "read its screen (zellij_read without reply), or name its record in agents.kdl (record \"codex\")".into(),
            })));
        };
        let place = Place::of(located.pid, located.cwd.as_deref());
        let mut following = Following::new(record, place, SystemTime::UNIX_EPOCH, Started::Last)
            .as_told(located.record.as_deref(), located.conversation.as_deref());
        let turn = following.turn().map_err(|problem| {
            ToolFailure(ErrorBody::from(Error::Internal {
                problem: format!("its record could not be read: {problem}"),
                fix: Some("call it again; if it goes on, read its screen".into()),
            }))
        })?;
        let reply = turn.as_ref().map(Turn::reply).unwrap_or_default();
        let rows: Vec<&str> = reply.split('\n').collect();
        let shaped = shape_read(&rows, None, None, max_bytes);
        let mut result = ReadResult::new(pane, located.tab_id, shaped);
        result.pid = located.pid;
        result.state = Some(state_of(&located));
        result.prompt = turn.map(|t| t.prompt);
        Ok(Json(FromSession { session, result }))
    }
}

/// One look at the pane while its turn is followed.
struct PaneLook {
    at: Instant,
    state: PaneState,
    turn_ended: Option<TurnEnded>,
}

/// How a followed turn ended.
struct FollowedTurn {
    state: AskState,
    reply: String,
    source: ReplySource,
}

/// The pane's state as the plugin and the processes tell it.
fn state_of(located: &LocateResult) -> PaneState {
    let processes = pane_state(located.pid);
    PaneState::of(located.state, located.line_draft, processes).unwrap_or(PaneState::Unknown)
}

/// What the looks so far saw of a turn.
#[derive(Default)]
struct Seen {
    /// The reply as last seen, and since when it has not changed.
    last: Option<(Turn, Instant)>,
}

impl Seen {
    /// Whether the turn is over: the record says so; or, for a record that
    /// marks no end (or the screen), the pane is idle with a reply that has
    /// not changed for a moment.
    fn look(&mut self, state: PaneState, turn: Option<&Turn>, record: Option<Record>) -> bool {
        if turn.is_some_and(|t| t.ended) {
            return true;
        }
        let now = Instant::now();
        let steady = match (&self.last, turn) {
            (Some((before, at)), Some(t)) if before == t => now.duration_since(*at) >= QUIET,
            _ => false,
        };
        if self.last.as_ref().map(|(t, _)| t) != turn {
            self.last = turn.map(|t| (t.clone(), now));
        }
        let marks_end = record.is_some_and(crate::replies::formats::marks_end);
        !marks_end && state == PaneState::Idle && steady && turn.is_some_and(Turn::has_reply)
    }
}

/// What one event of the log tells of the message being delivered.
fn note_event(sent: &mut SendMessageResult, event: &serde_json::Map<String, serde_json::Value>) {
    if event.get("message").and_then(|m| m.as_u64()) != Some(sent.seq) {
        return;
    }
    match event.get("event").and_then(|e| e.as_str()) {
        Some("delivered") => {
            sent.status = DeliveryStatus::Delivered;
            sent.held_because = None;
            sent.pane_id = event
                .get("pane_id")
                .and_then(|p| serde_json::from_value(p.clone()).ok());
        }
        Some("held") => {
            sent.status = DeliveryStatus::Held;
            sent.held_because = event
                .get("why")
                .and_then(|w| serde_json::from_value(w.clone()).ok());
        }
        Some("unsent") => {
            sent.status = DeliveryStatus::Failed;
            sent.held_because = Some(HoldReason::Draft);
        }
        Some("expired") => sent.status = DeliveryStatus::Failed,
        Some("cancelled") => sent.status = DeliveryStatus::Cancelled,
        _ => {}
    }
}
