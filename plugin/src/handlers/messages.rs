//! `send_message`, and the delivery of queued messages (see
//! [`crate::messages`]).

use std::time::{Duration, Instant};

use zellij_mcp_protocol::agent_name::{check_agent_name, parent_of, PARENT};
use zellij_mcp_protocol::ops::{
    SendMessageArgs, DEFAULT_DELIVERY_WAIT_MS, DEFAULT_MESSAGE_TTL_S, MAX_DELIVERY_WAIT_MS,
    MAX_MESSAGE_BYTES, MAX_MESSAGE_TTL_S,
};
use zellij_mcp_protocol::{ErrorBody, PaneKind, PaneRef};

use super::{bad_request, to_json};
use crate::host::Host;
use crate::later::{Asker, Handled, HandlerResult};
use crate::messages::{Message, Recipient};
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
        let from = self.sender(args.from, caller_name, asker.caller)?;
        self.outbox.room()?;
        let seq = self.outbox.next_seq()?;
        let until = Instant::now() + Duration::from_millis(wait);
        let message =
            Message::new(seq, to, &from, &args.text, ttl).awaited_by(asker.clone(), until);
        Ok(Handled::Message(Box::new(message)))
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

    /// Who the header names: `from`, else the caller's agent name or pane.
    fn sender(
        &self,
        from: Option<String>,
        caller_name: Option<String>,
        caller: Option<PaneRef>,
    ) -> Result<String, ErrorBody> {
        let from = from
            .or(caller_name)
            .or_else(|| caller.map(|p| p.to_string()))
            .unwrap_or_else(|| "unknown".to_owned());
        if from.is_empty() || from.len() > 128 || from.chars().any(|c| c.is_control() || c == ']') {
            return Err(bad_request(
                "from must be 1 to 128 characters, without control characters or ']'",
                "pass a short sender name, or omit from",
            ));
        }
        Ok(from)
    }

    /// Types the messages whose target can take them now; answers requests
    /// whose wait or message's TTL is over.
    pub fn pump_messages(&mut self) {
        let now = Instant::now();
        for (seq, to) in self.outbox.due(now) {
            match self.pane_taking(&to) {
                Some(pane) => self.type_message(seq, pane, now),
                None => self.outbox.retry_later(seq, now),
            }
        }
        for (asker, result) in self.outbox.answers_due(now) {
            self.answer(&asker, to_json(result));
        }
        self.arm_wake(now);
    }

    /// A message was typed and submitted: delivered, unless its pane closed
    /// or exited meanwhile (then it is typed again, into the pane that has
    /// its target's name next).
    pub fn delivered(&mut self, seq: u64) {
        let pane = self.outbox.sending_to(seq);
        let alive = pane
            .and_then(|p| self.host.pane_info(p))
            .is_some_and(|info| !info.exited);
        if !alive {
            self.outbox.not_delivered(seq, Instant::now());
        } else if let Some((asker, result)) = self.outbox.delivered(seq) {
            self.answer(&asker, to_json(result));
        }
        self.pump_messages();
    }

    /// The live terminal pane `to` stands for, if it can take input now.
    fn pane_taking(&self, to: &Recipient) -> Option<PaneRef> {
        let pane = match to {
            Recipient::Pane(pane) => *pane,
            Recipient::Agent(name) => *self.agents.all().get(name)?,
        };
        let info = self.host.pane_info(pane)?;
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
