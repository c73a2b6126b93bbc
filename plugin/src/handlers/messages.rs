//! `send_message`, `cancel_messages` and `read_events`. Delivering what is
//! queued is the plugin's own work ([`crate::work::delivery`]).

use std::time::Duration;

use zellij_mcp_protocol::agent_name::{check_agent_name, parent_of, OUTSIDE_SENDER, PARENT};
use zellij_mcp_protocol::ops::{
    first_line, CancelMessagesArgs, CancelMessagesResult, Happened, ReadEventsArgs, RepliedArgs,
    RepliedResult, SendMessageArgs, DEFAULT_DELIVERY_WAIT_MS, DEFAULT_EVENTS_BYTES,
    DEFAULT_MESSAGE_TTL_S, MAX_DELIVERY_WAIT_MS, MAX_EVENTS_BYTES, MAX_MESSAGE_BYTES,
    MAX_MESSAGE_TTL_S,
};
use zellij_mcp_protocol::text::plain_text;
use zellij_mcp_protocol::{Error, ErrorBody, PaneKind, PaneRef};

use super::{bad_request, now, Handled, HandlerResult, Zellij};
use crate::host::Host;
use crate::state::agents::{Agents, Named};
use crate::state::attention::Attention;
use crate::state::event_log::EventLog;
use crate::state::later::Asker;
use crate::state::messages::{Answer, Message, Outbox, Recipient};
use crate::state::pane_facts::PaneFacts;

/// `send_message`: checked, logged as queued (which gives it its seq), and
/// handed to the outbox, answered once delivered or its wait is over.
pub fn send_message(
    zellij: &Zellij<'_, impl Host>,
    agents: &Agents,
    facts: &mut PaneFacts,
    outbox: &Outbox,
    log: &mut EventLog,
    args: SendMessageArgs,
    asker: &Asker,
) -> HandlerResult {
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
    let caller_name = asker.caller.and_then(|p| agents.by_pane().remove(&p));
    let to = recipient(&args.to, caller_name.as_deref())?;
    refuse_message_to_self(agents, &to, asker.caller)?;
    refuse_unless_an_agent(zellij, agents, facts, &to)?;
    let from = sender(agents, args.from, caller_name, asker.caller)?;
    let text = plain_text(&args.text);
    outbox.room(text.len(), asker.client())?;
    let (at_ms, at) = (zellij.host.unix_ms(), zellij.host.now());
    let message = Message::queued(log, at_ms, at, to, &from, &text, ttl, asker.client())?
        .awaited_by(asker.clone(), at + Duration::from_millis(wait));
    Ok(Handled::Message(Box::new(message)))
}

/// `cancel_messages`: the caller's own messages not delivered yet; also
/// the answers owed to the requests that waited for them.
pub fn cancel_messages(
    at_ms: u64,
    outbox: &mut Outbox,
    log: &mut EventLog,
    args: CancelMessagesArgs,
    asker: &Asker,
) -> (HandlerResult, Vec<Answer>) {
    let (cancelled, answers) = outbox.cancel(asker.client(), args.seq);
    for &message in &cancelled {
        log.record(at_ms, Happened::Cancelled { message });
    }
    if let (Some(seq), true) = (args.seq, cancelled.is_empty()) {
        let refused = bad_request(
            format!("message #{seq} is not one of this client's queued messages"),
            "pass the seq zellij_send_message returned while its status is queued; \
             a message being typed or delivered cannot be cancelled",
        );
        return (Err(refused), answers);
    }
    (now(CancelMessagesResult { cancelled }), answers)
}

/// `replied`: the reply to a turn of `pane_id`'s agent, as the bridge read
/// it: its first line for the board, and an event.
pub fn replied(
    zellij: Zellij<'_, impl Host>,
    agents: &Agents,
    attention: &mut Attention,
    log: &mut EventLog,
    args: RepliedArgs,
) -> HandlerResult {
    let pane = args.pane_id;
    zellij.require_pane(pane)?;
    let at_ms = zellij.host.unix_ms();
    let first_line = first_line(&args.first_line);
    attention.replied(pane, first_line.clone(), at_ms);
    let replied = Happened::Replied {
        pane_id: pane,
        name: agents.by_pane().remove(&pane),
        message: args.seq,
        first_line,
    };
    let logged = log.append(at_ms, |_| replied).map_err(|e| {
        ErrorBody::from(Error::Internal {
            problem: format!("the event log cannot be written: {e}"),
            fix: None,
        })
    })?;
    now(RepliedResult { logged })
}

/// `read_events`: the log after `since_seq`.
pub fn read_events(log: &mut EventLog, args: ReadEventsArgs) -> HandlerResult {
    let max_bytes = args.max_bytes.unwrap_or(DEFAULT_EVENTS_BYTES);
    if max_bytes == 0 || max_bytes > MAX_EVENTS_BYTES {
        return Err(bad_request(
            format!("max_bytes {max_bytes} is out of range"),
            "pass max_bytes from 1 to 262144",
        ));
    }
    now(log.read(args.since_seq.unwrap_or(0), max_bytes))
}

/// `to` as a pane id, `parent` (of the caller's name) or an agent name.
fn recipient(to: &str, caller_name: Option<&str>) -> Result<Recipient, ErrorBody> {
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

/// Who the header names: a caller in a pane is its agent name, else its
/// pane id, whatever `from` says; a caller outside any pane may name itself
/// with `from`, a plain name that is neither reserved nor an agent's.
fn sender(
    agents: &Agents,
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
    if agents.all().contains_key(&from) {
        return Err(bad_request(
            format!("from: '{from}' is the name of an agent in this session"),
            "sign with a name of your own, or omit from",
        ));
    }
    Ok(from)
}

/// A message to a pane by id goes only to an agent: a pane that has an
/// agent's name, runs an agent program (one of those known by name, or
/// described), or shows a composer with rows of its own around it (Claude
/// Code's rules, an Ink app drawn the same way). Anything else (a shell,
/// an editor, a REPL) would take the message as its own input, so it is
/// refused now rather than held until its TTL. A missing pane is queued,
/// as a pane that may still open.
fn refuse_unless_an_agent(
    zellij: &Zellij<'_, impl Host>,
    agents: &Agents,
    facts: &mut PaneFacts,
    to: &Recipient,
) -> Result<(), ErrorBody> {
    let Recipient::Pane(pane) = to else {
        return Ok(());
    };
    if agents.by_pane().contains_key(pane) || zellij.pane_now(*pane).is_none() {
        return Ok(());
    }
    // As it is now: its program may have changed since it was last asked.
    facts.forget(*pane);
    let running = facts.of(zellij.host, *pane).running.clone();
    let running = running.unwrap_or_default();
    let program = zellij.program_of(*pane, Some(&running));
    if program
        .as_deref()
        .is_some_and(|p| zellij.programs.is_agent(p))
    {
        return Ok(());
    }
    let telling = zellij.telling(*pane, program.as_deref(), Named::No);
    let shown = zellij.host.shown(*pane, telling);
    if shown.is_some_and(|s| s.agent.is_some()) {
        return Ok(());
    }
    Err(ErrorBody::from(Error::NotAnAgent {
        pane: pane.to_string(),
        program: running.first().cloned(),
    }))
}

/// A message to the caller's own pane would be typed into the agent that
/// sends it.
fn refuse_message_to_self(
    agents: &Agents,
    to: &Recipient,
    caller: Option<PaneRef>,
) -> Result<(), ErrorBody> {
    let Some(caller) = caller else { return Ok(()) };
    let target = match to {
        Recipient::Pane(pane) => Some(*pane),
        Recipient::Agent(name) => agents.all().get(name).copied(),
    };
    if target != Some(caller) {
        return Ok(());
    }
    Err(bad_request(
        format!("{} is the sender's own pane", to.label()),
        "send to another agent; to note something for yourself, keep it in your own context",
    ))
}
