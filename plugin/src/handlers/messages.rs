//! `send_message`, and the delivery of queued messages (see
//! [`crate::messages`]).

use std::time::{Duration, Instant};

use zellij_mcp_protocol::agent_name::{check_agent_name, parent_of, OUTSIDE_SENDER, PARENT};
use zellij_mcp_protocol::ops::{
    CancelMessagesArgs, CancelMessagesResult, Happened, ReadEventsArgs, SendMessageArgs,
    DEFAULT_DELIVERY_WAIT_MS, DEFAULT_EVENTS_BYTES, DEFAULT_MESSAGE_TTL_S, MAX_DELIVERY_WAIT_MS,
    MAX_EVENTS_BYTES, MAX_MESSAGE_BYTES, MAX_MESSAGE_TTL_S,
};
use zellij_mcp_protocol::text::plain_text;
use zellij_mcp_protocol::{Error, ErrorBody, PaneKind, PaneRef};

use super::{bad_request, now, to_json};
use super::{Handled, HandlerResult};
use crate::host::Host;
use crate::later::Asker;
use crate::messages::{Answer, Message, Recipient};
use crate::writes::{PendingWrite, WriteDone};
use crate::McpPlugin;

impl<H: Host> McpPlugin<H> {
    pub fn send_message(&mut self, args: SendMessageArgs, asker: &Asker) -> HandlerResult {
        if args.text.len() > MAX_MESSAGE_BYTES {
            return Err(bad_request(
                format!(
                    "the text is {} bytes; a message takes at most {MAX_MESSAGE_BYTES}",
                    args.text.len()
                ),
                "send a shorter message, or point to a file with the rest",
            ));
        }
        let ttl = match args.ttl_s.unwrap_or(DEFAULT_MESSAGE_TTL_S) {
            0 => return Err(bad_request("ttl_s is 0", "pass ttl_s from 1 to 86400")),
            s if s > MAX_MESSAGE_TTL_S => {
                return Err(bad_request(
                    format!("ttl_s {s} is over {MAX_MESSAGE_TTL_S}"),
                    "pass ttl_s from 1 to 86400",
                ))
            }
            s => Duration::from_secs(s),
        };
        let wait = args.wait_ms.unwrap_or(DEFAULT_DELIVERY_WAIT_MS);
        if wait > MAX_DELIVERY_WAIT_MS {
            return Err(bad_request(
                format!("wait_ms {wait} is over {MAX_DELIVERY_WAIT_MS}"),
                "pass a smaller wait_ms",
            ));
        }
        let caller_name = asker.caller.and_then(|p| self.agents.by_pane().remove(&p));
        let to = self.recipient(&args.to, caller_name.as_deref())?;
        self.refuse_message_to_self(&to, asker.caller)?;
        let from = self.sender(args.from, caller_name, asker.caller)?;
        let text = plain_text(&args.text);
        self.outbox.room(text.len(), asker.client())?;
        let message = self
            .queue_message(to, &from, &text, ttl, asker.client())?
            .awaited_by(asker.clone(), self.host.now() + Duration::from_millis(wait));
        Ok(Handled::Message(Box::new(message)))
    }

    /// `cancel_messages`: the caller's own messages not delivered yet.
    pub fn cancel_messages(&mut self, args: CancelMessagesArgs, asker: &Asker) -> HandlerResult {
        let (cancelled, answers) = self.outbox.cancel(asker.client(), args.seq);
        for &message in &cancelled {
            self.log_event(Happened::Cancelled { message });
        }
        self.answer_all(answers);
        if let (Some(seq), true) = (args.seq, cancelled.is_empty()) {
            return Err(bad_request(
                format!("message #{seq} is not one of this client's queued messages"),
                "pass the seq zellij_send_message returned while its status is queued; \
                 a message being typed or delivered cannot be cancelled",
            ));
        }
        now(CancelMessagesResult { cancelled })
    }

    /// Logs a new message as queued, which gives it its seq.
    pub fn queue_message(
        &mut self,
        to: Recipient,
        from: &str,
        text: &str,
        ttl: Duration,
        client: &str,
    ) -> Result<Message, ErrorBody> {
        let at_ms = self.host.unix_ms();
        let seq = self
            .log
            .append(at_ms, |seq| Happened::Queued {
                message: seq,
                to: to.label(),
                from: from.to_owned(),
                text: text.to_owned(),
                expires_at_ms: at_ms + ttl.as_millis() as u64,
                client: client.to_owned(),
            })
            .map_err(|e| {
                ErrorBody::from(Error::Internal {
                    problem: format!("cannot log the message: {e}"),
                    fix: Some("check that the plugin's cache folder is writable".into()),
                })
            })?;
        let message = Message::new(seq, to, from, text, ttl, self.host.now());
        Ok(message.sent_by(client))
    }

    /// `read_events`: the log after `since_seq`.
    pub fn read_events(&mut self, args: ReadEventsArgs, _: &Asker) -> HandlerResult {
        let max_bytes = args.max_bytes.unwrap_or(DEFAULT_EVENTS_BYTES);
        if max_bytes == 0 || max_bytes > MAX_EVENTS_BYTES {
            return Err(bad_request(
                format!("max_bytes {max_bytes} is out of range"),
                "pass max_bytes from 1 to 262144",
            ));
        }
        now(self.log.read(args.since_seq.unwrap_or(0), max_bytes))
    }

    /// Appends to the event log. The log is a record: an event that cannot
    /// be written is dropped, and the work it records goes on.
    pub fn log_event(&mut self, what: Happened) {
        if let Err(e) = self.log.append(self.host.unix_ms(), |_| what) {
            eprintln!("zellij-mcp: cannot write the event log: {e}");
        }
    }

    /// `to` as a pane id, `parent` (of the caller's name) or an agent name.
    fn recipient(&self, to: &str, caller_name: Option<&str>) -> Result<Recipient, ErrorBody> {
        if to == PARENT {
            let name = caller_name.ok_or_else(|| {
                bad_request(
                    "'parent' needs the caller's agent name, and it has none",
                    "call zellij_register_agent first, or pass the parent's name or pane id",
                )
            })?;
            let parent = parent_of(name).ok_or_else(|| {
                bad_request(
                    format!("'{name}' has no parent (it has no dot)"),
                    "pass the target's name or pane id",
                )
            })?;
            return Ok(Recipient::Agent(parent.to_owned()));
        }
        if let Ok(pane) = to.parse::<PaneRef>() {
            if pane.kind == PaneKind::Plugin {
                return Err(bad_request(
                    format!("{pane} is a plugin pane"),
                    "send to a terminal pane or an agent name",
                ));
            }
            return Ok(Recipient::Pane(pane));
        }
        check_agent_name(to)?;
        Ok(Recipient::Agent(to.to_owned()))
    }

    /// Who the header names: a caller in a pane is its agent name, else
    /// its pane id, whatever `from` says; a caller outside any pane may
    /// name itself with `from`, a plain name that is neither reserved nor
    /// an agent's.
    fn sender(
        &self,
        from: Option<String>,
        caller_name: Option<String>,
        caller: Option<PaneRef>,
    ) -> Result<String, ErrorBody> {
        if let Some(own) = caller_name.or_else(|| caller.map(|p| p.to_string())) {
            return Ok(own);
        }
        let Some(from) = from else {
            return Ok(OUTSIDE_SENDER.to_owned());
        };
        check_agent_name(&from).map_err(|e| {
            bad_request(
                format!("from: {}", e.message),
                "pass a plain name of letters, digits, _, - and dots, or omit from",
            )
        })?;
        if self.agents.all().contains_key(&from) {
            return Err(bad_request(
                format!("from: '{from}' is the name of an agent in this session"),
                "sign with a name of your own, or omit from",
            ));
        }
        Ok(from)
    }

    /// A message to the caller's own pane would be typed into the agent
    /// that sends it.
    fn refuse_message_to_self(
        &self,
        to: &Recipient,
        caller: Option<PaneRef>,
    ) -> Result<(), ErrorBody> {
        let Some(caller) = caller else { return Ok(()) };
        let target = match to {
            Recipient::Pane(pane) => Some(*pane),
            Recipient::Agent(name) => self.agents.all().get(name).copied(),
        };
        if target != Some(caller) {
            return Ok(());
        }
        Err(bad_request(
            format!("{} is the sender's own pane", to.label()),
            "send to another agent; to note something for yourself, keep it in your own context",
        ))
    }

    /// Types the messages whose target can take them now; answers requests
    /// whose wait or message's TTL is over.
    pub fn pump_messages(&mut self) {
        let now = self.host.now();
        if !self.follow_log() {
            return;
        }
        self.confirm_submitted(now);
        for (seq, to) in self.outbox.due(now) {
            match self.pane_taking(&to) {
                Some(pane) => self.type_message(seq, pane, now),
                None => self.retry_later(seq, &to, now),
            }
        }
        let (answers, expired) = self.outbox.answers_due(now);
        for (message, attempts) in expired {
            self.log_event(Happened::Expired { message, attempts });
        }
        self.answer_all(answers);
        self.arm_wake(now);
    }

    /// Only the instance holding the lease delivers, and it delivers what
    /// the log has pending: so after a reload, or when the lease changes
    /// hands, the messages go on from the log. Whether this one delivers.
    fn follow_log(&mut self) -> bool {
        if !self.acting.holding() {
            let answers = self.outbox.hand_over();
            self.answer_all(answers);
            return false;
        }
        if self.log.catch_up() || !self.outbox.delivering {
            let (now_ms, now) = (self.host.unix_ms(), self.host.now());
            let pending = self
                .log
                .pending()
                .filter_map(|event| Message::from_log(event, now_ms, now))
                .collect();
            let answers = self.outbox.follow(pending);
            self.answer_all(answers);
        }
        true
    }

    fn answer_all(&mut self, answers: Vec<Answer>) {
        for (asker, result) in answers {
            self.answer(&asker, to_json(result));
        }
    }

    /// The target cannot take the message now. Retries are logged at
    /// attempts 1, 2, 4, 8, …: a message waiting a day adds a few lines.
    fn retry_later(&mut self, seq: u64, to: &Recipient, now: Instant) {
        let Some((attempts, next_in)) = self.outbox.retry_later(seq, now) else {
            return;
        };
        if attempts.is_power_of_two() {
            let why = match to {
                Recipient::Agent(name) if !self.agents.all().contains_key(name) => {
                    format!("no pane is named {name}")
                }
                _ => "the pane is missing, exited or busy".to_owned(),
            };
            self.log_event(Happened::Retry {
                message: seq,
                attempts,
                why,
                next_in_ms: next_in.as_millis() as u64,
            });
        }
    }

    /// A message was typed and submitted.
    pub fn submitted(&mut self, seq: u64) {
        self.outbox.submitted(seq, self.host.now());
        self.pump_messages();
    }

    /// Submitted messages whose pane is still there are delivered; the
    /// others are typed again, into the pane that has their target's name
    /// next.
    fn confirm_submitted(&mut self, now: Instant) {
        for (seq, pane_id) in self.outbox.to_confirm(now) {
            let alive = match self.host.pane_info(pane_id) {
                Some(info) => !info.exited,
                // No answer in time, or a pane that just closed: ask again
                // while the events still list it.
                None if self.view.find(pane_id).is_some()
                    && self.outbox.confirm_later(seq, now) =>
                {
                    continue
                }
                None => false,
            };
            if !alive {
                self.outbox.not_delivered(seq, now);
                continue;
            }
            let (answer, attempts) = self.outbox.delivered(seq);
            self.log_event(Happened::Delivered {
                message: seq,
                pane_id,
                attempts,
            });
            self.answer_all(answer.into_iter().collect());
        }
    }

    /// The live terminal pane `to` stands for, if it can take input now.
    fn pane_taking(&self, to: &Recipient) -> Option<PaneRef> {
        let pane = match to {
            Recipient::Pane(pane) => *pane,
            Recipient::Agent(name) => *self.agents.all().get(name)?,
        };
        let info = self.pane_now(pane)?;
        let free = self.input.room(pane).is_ok();
        (!info.exited && free).then_some(pane)
    }

    fn type_message(&mut self, seq: u64, pane: PaneRef, now: Instant) {
        let Some(typed) = self.outbox.typed(seq) else {
            return;
        };
        self.outbox.sending(seq, pane);
        let write = PendingWrite {
            done: WriteDone::Delivered(seq),
            pane,
            tab_id: self.view.tab_id_of(pane),
            bytes: typed.into_bytes(),
            submit_delay: Some(Duration::from_millis(self.settings.submit_delay_ms)),
        };
        let steps = self.input.push(write, now);
        self.run_steps(steps);
    }
}
