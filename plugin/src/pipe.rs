//! Pipe requests: parsing, the op dispatch table, and replying.
//!
//! Protocol (see the `zellij-mcp-protocol` crate for the types):
//! - Only messages named `zellij-mcp` from a CLI pipe are handled; the
//!   end-of-stream message (no payload) is ignored.
//! - Only the acting instance (see [`crate::lease`]) handles a request; the
//!   others return at once, which lets Zellij release the pipe for them.
//! - The payload is `{v:1, id, op, args}`. Every request gets exactly one
//!   reply, `{v:1, id, ok, result|error}`, written as newline-terminated
//!   frames, and then the pipe is released. Malformed JSON, a wrong `v`, an
//!   unknown op and bad arguments all get a typed error reply.
//! - A deferred op blocks the pipe and answers later, from an event or a
//!   timer: a write waiting for its turn or its submit CR, a wait, a run, or a
//!   change that Zellij has not shown yet (a new tab, a closed pane).

use serde::de::DeserializeOwned;
use serde_json::Value;
use zellij_mcp_protocol::ops::{names, ReplayArgs, RequestState, StatusResult};
use zellij_mcp_protocol::{
    encode_reply, ErrorBody, ErrorCode, Reply, Request, PIPE_NAME, PROTOCOL_VERSION,
};
use zellij_tile::prelude::{PipeMessage, PipeSource};

use crate::host::Host;
use crate::replay::Known;
use crate::McpPlugin;

/// Requests answered later (waits, queued writes, changes Zellij has not
/// shown yet) at most at once; more are `busy`.
const MOST_IN_FLIGHT: usize = 256;
/// Ops that end or look at work under way, taken even when busy.
const ENDS_WORK: [&str; 4] = [names::CANCEL, names::REPLAY, names::STATUS, names::HELLO];

/// What a handler did with its request.
pub enum Handled {
    /// Answer now with this result.
    Now(Value),
    /// The handler blocked the pipe and will answer later.
    Later,
}

pub type HandlerResult = Result<Handled, ErrorBody>;

impl<H: Host> McpPlugin<H> {
    pub fn on_pipe(&mut self, message: PipeMessage) {
        if message.name != PIPE_NAME {
            return;
        }
        let PipeSource::Cli(pipe_id) = &message.source else {
            return;
        };
        let Some(payload) = &message.payload else {
            return;
        };
        if !self.is_acting() {
            return;
        }
        let request = match parse_request(payload) {
            Ok(request) => request,
            Err((id, error)) => return self.reply(pipe_id, Reply::err(id, error)),
        };
        // Pane ops look panes up live; the others list or resolve tabs.
        let by_pane_id = [
            names::READ,
            names::LOCATE,
            names::WRITE,
            names::WAIT_FOR,
            names::SIGNAL,
        ];
        if !by_pane_id.contains(&request.op.as_str()) || !self.view.is_ready() {
            self.refresh_if_starved();
        }
        if self.replies.sizes().2 >= MOST_IN_FLIGHT && !ENDS_WORK.contains(&request.op.as_str()) {
            let error = ErrorBody::new(
                ErrorCode::Busy,
                format!("{MOST_IN_FLIGHT} requests are under way already"),
            )
            .with_hint("retry once some of them have answered, or cancel waits");
            return self.answer(pipe_id, &request.id, Err(error));
        }
        self.replies.started(&request.id);
        match self.dispatch(&request, pipe_id) {
            Ok(Handled::Now(result)) => self.answer(pipe_id, &request.id, Ok(result)),
            Ok(Handled::Later) => {}
            Err(error) => self.answer(pipe_id, &request.id, Err(error)),
        }
    }

    fn dispatch(&mut self, request: &Request, pipe_id: &str) -> HandlerResult {
        let args = &request.args;
        // Ops that answer later need to know where to.
        let pipe = (pipe_id, request.id.as_str());
        match request.op.as_str() {
            names::HELLO => self.hello(),
            names::SESSION_INFO => self.session_info(parse_args(args)?, pipe),
            names::LIST_TABS => self.list_tabs(),
            names::LIST_PANES => self.list_panes(parse_args(args)?),
            names::NEW_TAB => self.outside_pipe(parse_args(args)?, pipe, Self::new_tab),
            names::NEW_PANE => self.outside_pipe(parse_args(args)?, pipe, Self::new_pane),
            names::CLOSE => self.outside_pipe(parse_args(args)?, pipe, Self::close),
            names::RENAME => self.outside_pipe(parse_args(args)?, pipe, Self::rename),
            names::FOCUS => self.outside_pipe(parse_args(args)?, pipe, Self::focus),
            names::ARRANGE_PANE => self.outside_pipe(parse_args(args)?, pipe, Self::arrange_pane),
            names::READ => self.read(parse_args(args)?),
            names::LOCATE => self.locate(parse_args(args)?),
            names::PANE_OF_PROCESS => self.pane_of_process(parse_args(args)?),
            names::WRITE => self.write(parse_args(args)?, &request.id, pipe_id),
            names::WAIT_FOR => self.wait_for(parse_args(args)?, pipe),
            names::RUN => self.outside_pipe(parse_args(args)?, pipe, Self::run),
            names::SIGNAL => self.signal(parse_args(args)?),
            names::OPEN_FILE => self.outside_pipe(parse_args(args)?, pipe, Self::open_file),
            names::DUMP_LAYOUT => self.dump_layout(parse_args(args)?),
            names::CANCEL => self.cancel(parse_args(args)?),
            names::REPLAY => self.replay(parse_args(args)?, pipe),
            names::STATUS => self.status(parse_args(args)?),
            other => Err(
                ErrorBody::new(ErrorCode::UnknownOp, format!("unknown op '{other}'"))
                    .with_hint("update the zellij-mcp plugin to the bridge's version"),
            ),
        }
    }

    /// Runs an op that changes panes or tabs from a timer, after `pipe()` has
    /// returned: Zellij reports a new or changed pane or tab id to the
    /// `zellij pipe` client of the message being handled, and that makes the
    /// client exit before the reply arrives.
    fn outside_pipe<A: 'static>(
        &mut self,
        args: A,
        pipe: (&str, &str),
        op: fn(&mut Self, A, (&str, &str)) -> HandlerResult,
    ) -> HandlerResult {
        let (pipe_id, request_id) = (pipe.0.to_owned(), pipe.1.to_owned());
        self.host.block(&pipe_id);
        self.deferred.push(Box::new(move |plugin: &mut Self| {
            match op(plugin, args, (&pipe_id, &request_id)) {
                Ok(Handled::Now(result)) => plugin.answer(&pipe_id, &request_id, Ok(result)),
                Ok(Handled::Later) => {}
                Err(error) => plugin.answer(&pipe_id, &request_id, Err(error)),
            }
        }));
        self.host.set_timeout(std::time::Duration::ZERO);
        Ok(Handled::Later)
    }

    /// Answers a request with its result or error.
    pub fn answer(&mut self, pipe_id: &str, request_id: &str, outcome: Result<Value, ErrorBody>) {
        let reply = match outcome {
            Ok(result) => Reply::ok(request_id, result),
            Err(error) => Reply::err(request_id, error),
        };
        self.reply(pipe_id, reply);
    }

    /// Writes the reply's frames, then releases the pipe; also answers any
    /// replay of this request.
    pub fn reply(&mut self, pipe_id: &str, reply: Reply) {
        for (replay_pipe, replay_id) in self.send(pipe_id, &reply) {
            self.send(&replay_pipe, &replayed(&replay_id, &reply));
        }
    }

    /// Sends one reply and notes it; returns the replays waiting for it.
    fn send(&mut self, pipe_id: &str, reply: &Reply) -> Vec<(String, String)> {
        let mut size = 0;
        for line in encode_reply(reply) {
            size += line.len();
            self.host.output(pipe_id, &line);
        }
        self.host.unblock(pipe_id);
        self.replies.record(reply, size)
    }

    /// `replay`: the reply to an earlier request, now or once it is ready;
    /// `null` when this plugin never saw it (then it is safe to send again).
    fn replay(&mut self, args: ReplayArgs, pipe: (&str, &str)) -> HandlerResult {
        let id = &args.request_id;
        if id == pipe.1 {
            return Err(ErrorBody::new(
                ErrorCode::BadRequest,
                "a replay cannot name its own request",
            )
            .with_hint("pass the id of the earlier request"));
        }
        match self.replies.lookup(id) {
            Known::Answered(reply) => Ok(Handled::Now(
                serde_json::to_value(reply).unwrap_or_default(),
            )),
            Known::InFlight => {
                if !self.replies.also_send_to(id, pipe.0, pipe.1) {
                    return Err(ErrorBody::new(
                        ErrorCode::Busy,
                        format!("request {id} is already being replayed"),
                    )
                    .with_hint("wait for one of the replays to answer"));
                }
                self.host.block(pipe.0);
                Ok(Handled::Later)
            }
            Known::Lost => Err(ErrorBody::new(
                ErrorCode::ReplyLost,
                format!("request {id} ran, but its reply is no longer kept"),
            )
            .with_hint("look at the state it left (list or read) instead of sending it again")),
            Known::Unknown => Ok(Handled::Now(Value::Null)),
        }
    }

    /// `status`: what this plugin knows of an earlier request.
    fn status(&mut self, args: ReplayArgs) -> HandlerResult {
        let state = match self.replies.lookup(&args.request_id) {
            Known::Answered(_) => RequestState::Answered,
            Known::InFlight => RequestState::InFlight,
            Known::Lost => RequestState::Lost,
            Known::Unknown => RequestState::Unknown,
        };
        crate::handlers::to_json(StatusResult { state }).map(Handled::Now)
    }
}

fn replayed(replay_id: &str, reply: &Reply) -> Reply {
    Reply::ok(replay_id, serde_json::to_value(reply).unwrap_or_default())
}

/// The request, or the id to answer under (empty when unknown) and the error.
fn parse_request(payload: &str) -> Result<Request, (String, ErrorBody)> {
    let value: Value = serde_json::from_str(payload).map_err(|e| {
        (
            String::new(),
            ErrorBody::new(ErrorCode::BadRequest, format!("payload is not JSON: {e}")),
        )
    })?;
    let id = value
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let request: Request = serde_json::from_value(value).map_err(|e| {
        (
            id.clone(),
            ErrorBody::new(ErrorCode::BadRequest, format!("not a request: {e}"))
                .with_hint("send {\"v\":1,\"id\":\"..\",\"op\":\"..\",\"args\":{..}}"),
        )
    })?;
    if request.v != PROTOCOL_VERSION {
        return Err((
            id,
            ErrorBody::new(
                ErrorCode::UnsupportedVersion,
                format!(
                    "protocol v{} is not supported; this plugin speaks v{PROTOCOL_VERSION}",
                    request.v
                ),
            )
            .with_hint("use the bridge and plugin from the same zellij-mcp release"),
        ));
    }
    Ok(request)
}

fn parse_args<T: DeserializeOwned>(args: &Value) -> Result<T, ErrorBody> {
    let args = if args.is_null() {
        Value::Object(Default::default())
    } else {
        args.clone()
    };
    serde_json::from_value(args)
        .map_err(|e| ErrorBody::new(ErrorCode::BadRequest, format!("invalid arguments: {e}")))
}
