//! Pipe requests: parsing, the op dispatch table, and replying.
//!
//! Protocol (see the `zellij-mcp-protocol` crate for the types):
//! - Only messages named `zellij-mcp` from a CLI pipe are handled; the
//!   end-of-stream message (no payload) is ignored.
//! - Exactly one instance (see [`crate::state::lease`]) handles a request; the
//!   others return at once, which lets Zellij release the pipe for them.
//! - The payload is `{v:1, id, op, args, caller?}`. Every request gets
//!   exactly one reply, `{v:1, id, ok, result|error}`, written as
//!   newline-terminated frames, and then the pipe is released. Malformed
//!   JSON, a wrong `v`, an unknown op and bad arguments all get a typed error.
//! - A handler answers at once or says what its request waits for; see
//!   [`crate::state::later`] for the rest of its life.

use serde_json::Value;
use zellij_mcp_protocol::ops::{op, Op, ResumeArgs, EXIT_PIPE_NAME};
use zellij_mcp_protocol::{
    encode_ok, Error, ErrorBody, ErrorCode, JsonText, Request, PIPE_NAME, PROTOCOL_VERSION,
};
use zellij_mcp_protocol::{frames, limits};
use zellij_tile::prelude::{PipeMessage, PipeSource};

use crate::board;
use crate::handlers::{self, HandlerResult, Naming, Zellij};
use crate::host::Host;
use crate::state::later::Asker;
use crate::state::shares;
use crate::{McpPlugin, Requests, Task};

impl<H: Host> Requests<H> {
    /// `busy` when the client has its share of [`shares::REQUESTS`] under
    /// way (or all clients have them all), except for ops that end or look
    /// at work under way.
    fn room_for(&self, op: &str, client: &str) -> Result<(), ErrorBody> {
        let ends_work = [
            op::Cancel::NAME,
            op::PaneChanged::NAME,
            op::Replay::NAME,
            op::Status::NAME,
            op::Hello::NAME,
        ];
        if ends_work.contains(&op) {
            return Ok(());
        }
        let total = self.replies.sizes().2;
        shares::REQUESTS.room(total, self.replies.in_flight_of(client), 1)
    }
}

/// A handler: the op's typed arguments, and who asked.
type Handler<H, O> = fn(&mut McpPlugin<H>, <O as Op>::Args, &Asker) -> HandlerResult;

impl<H: Host> McpPlugin<H> {
    /// A pipe message, and the render events its waits need.
    pub fn take_pipe(&mut self, message: PipeMessage) {
        self.on_pipe(message);
        self.follow_renders_while_waiting();
    }

    pub fn on_pipe(&mut self, message: PipeMessage) {
        if message.name == EXIT_PIPE_NAME {
            return self.on_exit_pipe(message);
        }
        if message.name == board::ASK {
            return self.on_board_ask(message);
        }
        if message.name == board::RESUME {
            return self.on_board_resume(message);
        }
        if message.name != PIPE_NAME {
            return;
        }
        let PipeSource::Cli(pipe_id) = message.source else {
            return;
        };
        let Some(payload) = &message.payload else {
            return;
        };
        let request_id_taken = leading_request_id(payload);
        if !self.takes(&[pipe_id.as_bytes(), payload.as_bytes()], request_id_taken) {
            return self.answers_for_what_it_took(&pipe_id, payload);
        }
        let request = match limits::check_request_size(payload.len())
            .map_err(|e| (String::new(), e))
            .and_then(|()| parse_request(payload))
        {
            Ok(request) => request,
            Err((request_id, error)) => {
                // Its mark goes as a request's does, under the id it was taken by.
                if let Some(taken) = request_id_taken.filter(|id| **id != request_id) {
                    self.acting.answered_request(taken, self.host.unix_ms());
                }
                let asker = Asker {
                    pipe_id,
                    request_id,
                    caller: None,
                };
                return self.answer(&asker, Err(error));
            }
        };
        let asker = Asker {
            pipe_id,
            request_id: request.id.clone(),
            caller: request.caller,
        };
        log::debug!(
            "request {} {} from {} ({} bytes)",
            request.id,
            request.op,
            asker.client(),
            payload.len()
        );
        self.refresh_view_for(&request.op);
        if let Err(busy) = self.requests.room_for(&request.op, asker.client()) {
            return self.answer(&asker, Err(busy));
        }
        self.requests.replies.started(&asker.request_id);
        self.dispatch(&request, asker);
    }

    /// A board asks for its rows: the acting instance answers it alone.
    fn on_board_ask(&mut self, message: PipeMessage) {
        let PipeSource::Plugin(board) = message.source else {
            return;
        };
        if !self.is_acting() {
            return;
        }
        if let Ok(rows) = serde_json::to_string(&self.agent_rows()) {
            self.host.message_plugin(board, board::ROWS, rows);
        }
    }

    /// A person pressed `r` on the board: the acting instance resumes the
    /// pane's agent.
    fn on_board_resume(&mut self, message: PipeMessage) {
        let pane = message.payload.as_deref().and_then(|p| p.parse().ok());
        let name = pane.and_then(|pane| self.agents.by_pane().remove(&pane));
        let Some(name) = name.filter(|_| self.is_acting()) else {
            return;
        };
        if let Err(error) = self.resume_agent(ResumeArgs { name, turn: None }) {
            eprintln!("zellij-mcp: the board's resume: {}", error.message);
        }
    }

    /// A shell's exit report (see `run_in_pane`), `<status> <token>`: the
    /// instance that typed the run answers it, whether or not it acts now
    /// (the lease may have moved since); no other knows the run.
    fn on_exit_pipe(&mut self, message: PipeMessage) {
        let (PipeSource::Cli(pipe_id), Some(report)) = (message.source, &message.payload) else {
            return;
        };
        let token = report.split_whitespace().nth(1).unwrap_or_default();
        if self.shell_runs.awaits_report(token) {
            self.on_shell_exit(&pipe_id, report);
        }
    }

    /// A message another instance took, about work this one took: a
    /// `release` of a run whose report pipe this instance holds (it lets the
    /// shell go on; the acting instance answers too, `released: false`), or
    /// a `status` or `replay` of a request this instance took (the acting
    /// instance leaves those to it). So a moved lease loses nothing.
    fn answers_for_what_it_took(&mut self, pipe_id: &str, payload: &str) {
        let asks_of_earlier = [op::Release::NAME, op::Status::NAME, op::Replay::NAME];
        let may_be_asked = self.shell_runs.holds_any() || self.acting.has_taken();
        if !may_be_asked || !asks_of_earlier.iter().any(|op| payload.contains(op)) {
            return;
        }
        let Ok(request) = parse_request(payload) else {
            return;
        };
        let named = |key: &str| request.args.get(key).and_then(Value::as_str);
        let answers = match request.op.as_str() {
            op::Release::NAME => named("token").is_some_and(|t| self.shell_runs.holds(t)),
            op::Status::NAME | op::Replay::NAME => {
                named("request_id").is_some_and(|id| self.acting.took(id))
            }
            _ => false,
        };
        if answers {
            let asker = Asker {
                pipe_id: pipe_id.to_owned(),
                request_id: request.id.clone(),
                caller: request.caller,
            };
            self.dispatch(&request, asker);
        }
    }

    /// A message too large to decode (see [`crate::entry`]): the request's
    /// id is unknown, so the error goes out under an empty one.
    pub fn on_oversized_pipe(&mut self, pipe_id: &str, name: &str, bytes: usize) {
        let Err(too_big) = limits::check_request_size(bytes) else {
            return;
        };
        if name != PIPE_NAME || !self.takes(&[pipe_id.as_bytes(), &bytes.to_le_bytes()], None) {
            return;
        }
        let asker = Asker {
            pipe_id: pipe_id.to_owned(),
            request_id: String::new(),
            caller: None,
        };
        self.answer(&asker, Err(too_big));
    }

    /// Pane ops look panes up live; the others list or resolve tabs, and
    /// need a view that is not stale.
    fn refresh_view_for(&mut self, op: &str) {
        let by_pane_id = [
            op::Read::NAME,
            op::Locate::NAME,
            op::Write::NAME,
            op::WaitFor::NAME,
            op::Signal::NAME,
            op::PaneChanged::NAME,
        ];
        if !by_pane_id.contains(&op) || !self.view.is_ready() {
            self.refresh_if_starved();
        }
    }

    /// The op dispatch table: one handler per op, typed by the op, and the
    /// parts of the plugin each one gets.
    fn dispatch(&mut self, request: &Request, asker: Asker) {
        let args = &request.args;
        match request.op.as_str() {
            op::Hello::NAME => self.now::<op::Hello>(args, asker, |p, a, _| {
                p.keeping.hello_from(a.bridge.as_deref());
                let digest = &p.programs_file.digest;
                p.zellij()
                    .hello(&p.settings, &p.acting, p.waits.looks, digest)
            }),
            op::SessionInfo::NAME => self.now::<op::SessionInfo>(args, asker, |p, _, asker| {
                p.zellij().session_info(p.memory(), p.waits.len(), asker)
            }),
            op::ListTabs::NAME => {
                self.now::<op::ListTabs>(args, asker, |p, _, _| p.zellij().list_tabs())
            }
            op::ListPanes::NAME => self.now::<op::ListPanes>(args, asker, |p, a, _| {
                Zellij::of(&p.host, &p.view, &p.programs)
                    .with_known(&p.hooks, &p.attention)
                    .list_panes(&mut p.pane_facts, &p.agents, &p.attention, a)
            }),
            op::NewTab::NAME => {
                self.next_tick::<op::NewTab>(args, asker, |p, a, _| p.zellij().new_tab(a))
            }
            op::NewPane::NAME => self.next_tick::<op::NewPane>(args, asker, |p, a, asker| {
                let (zellij, mut naming) = p.zellij_naming();
                zellij.new_pane(&mut naming, a, asker)
            }),
            op::Close::NAME => self.next_tick::<op::Close>(args, asker, |p, a, asker| {
                let (handled, closed) = p.zellij().close(a, asker)?;
                p.release_closed_agents(&closed);
                Ok(handled)
            }),
            op::Rename::NAME => {
                self.next_tick::<op::Rename>(args, asker, |p, a, _| p.zellij().rename(a))
            }
            op::Focus::NAME => {
                self.next_tick::<op::Focus>(args, asker, |p, a, _| p.zellij().focus(a))
            }
            op::ArrangePane::NAME => {
                self.next_tick::<op::ArrangePane>(args, asker, |p, a, asker| {
                    p.zellij().arrange_pane(a, asker)
                })
            }
            op::RegisterAgent::NAME => self.now::<op::RegisterAgent>(args, asker, |p, a, asker| {
                let (zellij, mut naming) = p.zellij_naming();
                zellij.register_agent(&mut naming, a, asker)
            }),
            op::SendMessage::NAME => self.now::<op::SendMessage>(args, asker, |p, a, asker| {
                let zellij = Zellij::of(&p.host, &p.view, &p.programs);
                let facts = &mut p.pane_facts;
                handlers::send_message(&zellij, &p.agents, facts, &p.outbox, &mut p.log, a, asker)
            }),
            op::CancelMessages::NAME => {
                self.now::<op::CancelMessages>(args, asker, |p, a, asker| {
                    let at_ms = p.host.unix_ms();
                    let (result, answers) =
                        handlers::cancel_messages(at_ms, &mut p.outbox, &mut p.log, a, asker);
                    p.answer_all(answers);
                    result
                })
            }
            op::Agents::NAME => {
                self.now::<op::Agents>(args, asker, |p, _, _| handlers::now(p.agent_rows()))
            }
            op::Explain::NAME => self.now::<op::Explain>(args, asker, |p, a, _| {
                let named = p.agents.named(a.pane_id);
                let name = p.agents.by_pane().remove(&a.pane_id);
                let now_ms = p.host.unix_ms();
                let told = (
                    p.hooks.told(a.pane_id, now_ms),
                    p.hooks.relays.said(a.pane_id, now_ms),
                );
                let zellij = Zellij::of(&p.host, &p.view, &p.programs);
                zellij.explain(&mut p.pane_facts, named, (name, told), a)
            }),
            op::Resume::NAME => self.now::<op::Resume>(args, asker, |p, a, _| p.resume_agent(a)),
            op::Replied::NAME => self.now::<op::Replied>(args, asker, |p, a, _| {
                let zellij = Zellij::of(&p.host, &p.view, &p.programs);
                handlers::replied(zellij, &p.agents, &mut p.attention, &mut p.log, a)
            }),
            op::Hook::NAME => self.now::<op::Hook>(args, asker, |p, a, _| {
                // The screens as the report comes: a working sign seen now
                // is the turn's that the report may end.
                p.look_at_agents();
                let told = Zellij::of(&p.host, &p.view, &p.programs).hook(&mut p.hooks, a);
                // What it told is on the board and in the event log at once.
                if told.is_ok() {
                    p.look_at_agents();
                }
                told
            }),
            op::Foreground::NAME => self.now::<op::Foreground>(args, asker, |p, a, _| {
                let told = Zellij::of(&p.host, &p.view, &p.programs)
                    .foreground((&mut p.pane_facts, &mut p.hooks.relays), a);
                // An agent program started in a relayed pane is on the board at once.
                if told.is_ok() {
                    p.look_at_agents();
                }
                told
            }),
            op::ReadEvents::NAME => self
                .now::<op::ReadEvents>(args, asker, |p, a, _| handlers::read_events(&mut p.log, a)),
            op::Read::NAME => self.now::<op::Read>(args, asker, |p, a, _| {
                let named = p.agents.named(a.pane_id);
                Zellij::of(&p.host, &p.view, &p.programs)
                    .with_known(&p.hooks, &p.attention)
                    .read(&mut p.pane_facts, named, a)
            }),
            op::Locate::NAME => self.now::<op::Locate>(args, asker, |p, a, _| {
                let named = p.agents.named(a.pane_id);
                Zellij::of(&p.host, &p.view, &p.programs)
                    .with_known(&p.hooks, &p.attention)
                    .locate(&mut p.pane_facts, named, a)
            }),
            op::PaneOfProcess::NAME => {
                self.now::<op::PaneOfProcess>(args, asker, |p, a, _| p.zellij().pane_of_process(a))
            }
            op::Write::NAME => self.now::<op::Write>(args, asker, |p, a, asker| {
                let delay_ms = p.settings.submit_delay_ms;
                let named = p.agents.named(a.pane_id);
                let zellij =
                    Zellij::of(&p.host, &p.view, &p.programs).with_known(&p.hooks, &p.attention);
                let pane = a.pane_id;
                let look = zellij.look_for(&mut p.pane_facts, pane, false, named);
                let telling = look.and_then(|look| look.telling());
                let changes = handlers::may_change_what_runs(&a);
                let written = zellij.write(&p.input, telling, &mut p.log, delay_ms, a, asker);
                if written.is_ok() && changes {
                    p.pane_facts.forget(pane);
                }
                written
            }),
            op::WaitFor::NAME => self.now::<op::WaitFor>(args, asker, |p, a, asker| {
                p.zellij().wait_for(&p.waits, a, asker)
            }),
            op::Run::NAME => self.next_tick::<op::Run>(args, asker, |p, a, asker| {
                let mut naming = Naming {
                    agents: &mut p.agents,
                    log: &mut p.log,
                    keeping: &mut p.keeping,
                };
                Zellij::of(&p.host, &p.view, &p.programs).run(&mut naming, &p.waits, a, asker)
            }),
            op::RunInPane::NAME => self.now::<op::RunInPane>(args, asker, |p, a, asker| {
                if a.at_prompt {
                    p.settle_unreported(a.pane_id);
                }
                p.zellij().run_in_pane(&p.shell_runs, a, asker)
            }),
            op::Release::NAME => self.now::<op::Release>(args, asker, |p, a, _| p.release_run(a)),
            op::Signal::NAME => self.now::<op::Signal>(args, asker, |p, a, asker| {
                Zellij::of(&p.host, &p.view, &p.programs).signal(&mut p.pane_facts, a, asker)
            }),
            op::OpenFile::NAME => self.next_tick::<op::OpenFile>(args, asker, |p, a, asker| {
                p.zellij().open_file(a, asker)
            }),
            op::DumpLayout::NAME => {
                self.now::<op::DumpLayout>(args, asker, |p, a, _| p.zellij().dump_layout(a))
            }
            op::Cancel::NAME => self.now::<op::Cancel>(args, asker, |p, a, _| p.cancel(a)),
            op::PaneChanged::NAME => {
                self.now::<op::PaneChanged>(args, asker, |p, a, _| p.pane_changed(a))
            }
            op::Replay::NAME => self.now::<op::Replay>(args, asker, |p, a, asker| {
                let elsewhere = p.acting.taken_elsewhere(&a.request_id);
                handlers::replay(&mut p.requests.replies, elsewhere, a, asker)
            }),
            op::DescribePrograms::NAME => {
                self.now::<op::DescribePrograms>(args, asker, |p, a, _| {
                    handlers::describe_programs(&mut p.programs_file, &mut p.programs, a)
                })
            }
            op::Status::NAME => self.now::<op::Status>(args, asker, |p, a, _| {
                let elsewhere = p.acting.taken_elsewhere(&a.request_id);
                handlers::status(&p.requests.replies, elsewhere, a)
            }),
            other => {
                let op = other.to_owned();
                self.answer(&asker, Err(Error::UnknownOp { op }.into()));
            }
        }
    }

    /// Handles op `O` now, inside `pipe()`.
    fn now<O: Op>(&mut self, args: &Value, asker: Asker, handler: Handler<H, O>) {
        let handled = parse_args::<O::Args>(args).and_then(|args| handler(self, args, &asker));
        self.hold(asker, handled);
    }

    /// Handles op `O` from the next timer (see [`Self::outside_pipe`]); bad
    /// arguments are answered at once.
    fn next_tick<O: Op>(&mut self, args: &Value, asker: Asker, handler: Handler<H, O>)
    where
        O::Args: 'static,
    {
        match parse_args::<O::Args>(args) {
            Ok(args) => {
                let task_asker = asker.clone();
                let task: Task<H> = Box::new(move |plugin| handler(plugin, args, &task_asker));
                self.outside_pipe(asker, task);
            }
            Err(error) => self.answer(&asker, Err(error)),
        }
    }

    /// Answers a request with its result or error, and any replay of it;
    /// then releases the pipe.
    pub fn answer(&mut self, asker: &Asker, outcome: Result<JsonText, ErrorBody>) {
        self.requests.served += 1;
        let id = &asker.request_id;
        self.acting.answered_request(id, self.host.unix_ms());
        if let Err(error) = &outcome {
            let level = match error.code {
                ErrorCode::Internal => log::Level::Warn,
                _ => log::Level::Debug,
            };
            log::log!(
                level,
                "request {id}: {}: {}",
                error.code.as_str(),
                error.message
            );
        }
        let reply = match outcome {
            Ok(result) => JsonText::trusted(&frames::ok_json(id, &result)),
            Err(error) => JsonText::trusted(&frames::err_json(id, error)),
        };
        let lines = frames::encode_json(id, &reply);
        for (replay_pipe, replay_id) in self.send(&asker.pipe_id, id, &lines) {
            let replayed = encode_ok(&replay_id, &reply);
            self.send(&replay_pipe, &replay_id, &replayed);
        }
    }

    /// Another instance answers this request (see [`handlers::Handled::Elsewhere`]):
    /// this one lets it go without a word.
    pub fn left_to_another(&mut self, id: &str) {
        self.requests.replies.record(id, &[]);
        self.acting.answered_request(id, self.host.unix_ms());
    }

    /// Sends one reply's lines and notes them; returns the replays waiting
    /// for it.
    fn send(&mut self, pipe_id: &str, id: &str, lines: &[String]) -> Vec<(String, String)> {
        for line in lines {
            self.host.output(pipe_id, line);
        }
        self.host.unblock(pipe_id);
        self.requests.replies.record(id, lines)
    }
}

/// The request, or the id to answer under (empty when unknown) and the error.
fn parse_request(payload: &str) -> Result<Request, (String, ErrorBody)> {
    let value: Value = serde_json::from_str(payload).map_err(|e| {
        (
            String::new(),
            Error::bad_request(
                format!("payload is not JSON: {e}"),
                "send one JSON request per pipe message",
            )
            .into(),
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
            ErrorBody::from(Error::BadRequest {
                problem: format!("not a request: {e}"),
                fix: "send {\"v\":1,\"id\":\"..\",\"op\":\"..\",\"args\":{..}}".into(),
            }),
        )
    })?;
    limits::check_fields(&request.args).map_err(|e| (id.clone(), e))?;
    if request.v != PROTOCOL_VERSION {
        return Err((id, Error::UnsupportedVersion { version: request.v }.into()));
    }
    Ok(request)
}

fn parse_args<T: serde::de::DeserializeOwned>(args: &Value) -> Result<T, ErrorBody> {
    let args = if args.is_null() {
        Value::Object(Default::default())
    } else {
        args.clone()
    };
    serde_json::from_value(args).map_err(|e| {
        Error::bad_request(
            format!("invalid arguments: {e}"),
            "check the arguments against the op's argument type",
        )
        .into()
    })
}

/// The id of the request in `payload`, read without parsing it where the
/// payload starts as a bridge writes it (`{"v":1,"id":"…"`, an id without
/// escapes): every instance reads it, and only one parses the request.
pub(crate) fn leading_request_id(payload: &str) -> Option<&str> {
    let rest = payload.strip_prefix("{\"v\":")?;
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    let rest = rest.strip_prefix(",\"id\":\"")?;
    let id = &rest[..rest.find('"')?];
    (!id.is_empty() && !id.contains('\\')).then_some(id)
}
