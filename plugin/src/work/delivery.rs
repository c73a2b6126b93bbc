//! Delivering messages, the plugin's own work: typing what the outbox has
//! due into its target's pane (through the write queue), confirming it,
//! retrying with backoff, logging each step; and telling an agent's parent
//! when the agent exits or its pane closes.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use zellij_mcp_protocol::agent_name::{parent_of, SERVER_NAME};
use zellij_mcp_protocol::agent_programs::AgentScreen;
use zellij_mcp_protocol::agent_programs::{Delivery, Multiline, WhileWorking};
use zellij_mcp_protocol::agent_screen::Shown;
use zellij_mcp_protocol::ops::{
    AgentsResult, Happened, HoldReason, PaneEntry, PaneState, DEFAULT_MESSAGE_TTL_S,
};
use zellij_mcp_protocol::shell_line::{prompt_line, ShellLine};
use zellij_mcp_protocol::{PaneKind, PaneRef};

use crate::handlers::{to_json, Board, Zellij, PASTE_END, PASTE_START};
use crate::host::tab_marks;
use crate::host::Host;
use crate::state::agents::Named;
use crate::state::hooks::Source;
use crate::state::messages::{Answer, Message, Recipient};
use crate::state::pane_facts::Facts;
use crate::state::writes::{PendingWrite, Shows, Step, WriteDone};
use crate::McpPlugin;

/// How old a look at the agents may be for the board's rows.
const FRESH_LOOK_MS: u64 = 450;

/// Whether a message's target takes it now.
enum Taking {
    /// Typed now, as its program takes a message.
    Now(PaneRef, Delivery),
    /// The pane is there, but shows something the message must not be
    /// typed into.
    Held(PaneRef, HoldReason),
    /// The pane is missing, exited or busy.
    Later,
    /// The pane is there, but Zellij did not give its screen this time (a
    /// busy session): looked at again soon, held as it was.
    Unseen,
}

/// Why a pane whose screen shows `agent` must not be typed into, if so:
/// only an empty composer takes a message (idle, or working where the
/// program queues what is typed).
fn held_because(agent: Option<AgentScreen>, delivery: Delivery) -> Option<HoldReason> {
    match agent {
        Some(AgentScreen::Working) if delivery.while_working == WhileWorking::Hold => {
            Some(HoldReason::Working)
        }
        Some(AgentScreen::Busy) => Some(HoldReason::Working),
        Some(AgentScreen::Idle | AgentScreen::Working) => None,
        Some(AgentScreen::Draft) => Some(HoldReason::Draft),
        Some(AgentScreen::Asking) => Some(HoldReason::Asking),
        None => Some(HoldReason::NoComposer),
    }
}

impl<H: Host> McpPlugin<H> {
    /// Appends to the event log (see [`crate::state::event_log::EventLog::record`]).
    pub fn log_event(&mut self, what: Happened) {
        self.log.record(self.host.unix_ms(), what);
    }

    /// Types the messages whose target can take them now; answers requests
    /// whose wait or message's TTL is over. An instance that does not
    /// deliver still finishes the messages it was typing.
    pub fn pump_messages(&mut self) {
        let now = self.host.now();
        let delivering = self.follow_log();
        self.confirm_submitted(now);
        let due = match delivering {
            true => self.outbox.due(now),
            false => Vec::new(),
        };
        for (seq, to) in due {
            match self.pane_taking(&to) {
                Taking::Now(pane, delivery) => self.type_message(seq, pane, delivery, now),
                Taking::Held(pane, why) => self.hold_message(seq, pane, why, now),
                Taking::Later => self.retry_later(seq, &to, now),
                Taking::Unseen => self.outbox.look_again(seq, now),
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
    /// hands, the messages go on from the log. Whether this one delivers;
    /// one that does not answers the requests it took as the log tells
    /// their messages' end.
    fn follow_log(&mut self) -> bool {
        let (now_ms, now) = (self.host.unix_ms(), self.host.now());
        if !self.acting.holding() {
            self.outbox.hand_over();
            if self.outbox.watching() {
                self.log.catch_up();
                let log = &self.log;
                let answers = self.outbox.settle_watched(now, |seq| log.settled(seq));
                self.answer_all(answers);
            }
            return false;
        }
        // Another instance's lines may have been read by any read or write
        // of the log since.
        self.log.catch_up();
        if !self.outbox.follows(self.log.changes()) {
            let pending = self
                .log
                .pending()
                .filter_map(|event| Message::from_log(event, now_ms, now))
                .collect();
            let log = &self.log;
            let answers = self
                .outbox
                .follow(pending, log.changes(), |seq| log.settled(seq));
            self.answer_all(answers);
        }
        true
    }

    pub fn answer_all(&mut self, answers: Vec<Answer>) {
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

    /// A message was typed, and its text stayed in the composer after its
    /// CR: it ends there, never typed again (that would type it twice).
    pub fn unsent(&mut self, seq: u64, pane_id: PaneRef) {
        let (answer, attempts) = self.outbox.unsent(seq);
        self.log_event(Happened::Unsent {
            message: seq,
            pane_id,
            attempts,
        });
        self.answer_all(answer.into_iter().collect());
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
                self.acting.lets_message_go(seq);
                continue;
            }
            self.note_delivered(seq, pane_id);
            let (answer, attempts) = self.outbox.delivered(seq);
            self.log_event(Happened::Delivered {
                message: seq,
                pane_id,
                attempts,
            });
            self.answer_all(answer.into_iter().collect());
        }
    }

    /// The target's pane shows something the message must not be typed
    /// into: it waits, and the sender and the log learn why.
    fn hold_message(&mut self, seq: u64, pane_id: PaneRef, why: HoldReason, now: Instant) {
        if self.outbox.hold(seq, why, now) {
            self.log_event(Happened::Held {
                message: seq,
                pane_id,
                why,
            });
        }
    }

    /// Whether the live terminal pane `to` stands for takes a message now:
    /// only an agent's empty composer does (see [`held_because`]).
    fn pane_taking(&mut self, to: &Recipient) -> Taking {
        let names = self.agents.all();
        let pane = match to {
            Recipient::Pane(pane) => *pane,
            Recipient::Agent(name) => match names.get(name) {
                Some(pane) => *pane,
                None => return Taking::Later,
            },
        };
        let named = self.agents.named(pane);
        if named == Named::ReadsLines {
            return self.line_taking(pane);
        }
        let running = self.pane_facts.of(&self.host, pane).running.clone();
        let zellij = Zellij::of(&self.host, &self.view, &self.programs);
        let Some(info) = zellij.pane_now(pane) else {
            return Taking::Later;
        };
        if info.exited || self.input.room(pane).is_err() {
            return Taking::Later;
        }
        let program = zellij.program_of(pane, running.as_deref());
        let telling = zellij.telling(pane, program.as_deref(), named);
        let Some(mut shown) = self.host.shown(pane, telling) else {
            return Taking::Unseen;
        };
        self.attention.turn_seen(pane, shown.agent);
        self.attention.composer(pane, &mut shown);
        if self
            .hooks
            .asks(pane, (shown.agent, shown.still), self.host.unix_ms())
        {
            shown.agent = Some(AgentScreen::Asking);
        }
        let delivery = self.programs.delivery(program.as_deref());
        match held_because(shown.agent, delivery) {
            Some(why) => Taking::Held(pane, why),
            None if self.turn_unshown(pane, delivery) => Taking::Held(pane, HoldReason::Working),
            None => self.unless_text_left(pane, delivery),
        }
    }

    /// Whether the turn `pane`'s last message started has yet to show, in a
    /// program that takes no message while it works (see
    /// [`crate::state::attention::Attention::turn_unshown`]). Its hooks
    /// telling that very turn's end show it too.
    fn turn_unshown(&self, pane: PaneRef, delivery: Delivery) -> bool {
        if delivery.while_working != WhileWorking::Hold {
            return false;
        }
        let Some(seq) = self.attention.turn_unshown(pane, self.host.unix_ms()) else {
            return false;
        };
        let header = format!("[#{seq} from ");
        let report = self.hooks.of(pane);
        let ended = report.and_then(|r| r.turn_ended.as_ref()?.prompt.as_deref());
        !ended.is_some_and(|prompt| prompt.contains(&header))
    }

    /// A pane whose screen takes a message takes it now, unless a write
    /// just left text there that its program may not have drawn yet: that
    /// text is a draft.
    fn unless_text_left(&self, pane: PaneRef, delivery: Delivery) -> Taking {
        match self.input.text_left(pane, self.host.now()) {
            true => Taking::Held(pane, HoldReason::Draft),
            false => Taking::Now(pane, delivery),
        }
    }

    /// Whether an agent that reads lines takes a message now: only while
    /// its prompt's line is empty (a person's text there is a draft).
    fn line_taking(&self, pane: PaneRef) -> Taking {
        let Some(info) = self.zellij().pane_now(pane) else {
            return Taking::Later;
        };
        if info.exited || self.input.room(pane).is_err() {
            return Taking::Later;
        }
        match self.host.screen(pane).map(|rows| prompt_line(&rows)) {
            Ok(ShellLine::Empty) => self.unless_text_left(pane, Delivery::LINES),
            Ok(ShellLine::Draft(_)) => Taking::Held(pane, HoldReason::Draft),
            Ok(ShellLine::Unknown) => Taking::Held(pane, HoldReason::NoComposer),
            Err(_) => Taking::Unseen,
        }
    }

    fn type_message(&mut self, seq: u64, pane: PaneRef, delivery: Delivery, now: Instant) {
        let Some(typed) = self.outbox.typed(seq) else {
            return;
        };
        if !self.acting.types_message(seq, self.host.unix_ms()) {
            // The instance that held the lease before is typing it.
            self.outbox.typed_elsewhere(seq, now);
            return;
        }
        self.outbox.sending(seq, pane);
        let write = PendingWrite {
            done: WriteDone::Delivered(seq),
            pane,
            tab_id: self.view.tab_id_of(pane),
            bytes: message_bytes(typed, delivery),
            submit_delay: Some(Duration::from_millis(self.settings.submit_delay_ms)),
        };
        let steps = self.input.push(write, now);
        self.run_steps(steps);
    }

    /// The write queue's due CRs: a message to a described program gets
    /// its CR once the composer shows the text (a CR that reaches the
    /// program with the text is a new line), and again only where its
    /// description asks (see [`Shows`]); never while the pane shows a
    /// dialog. An agent that reads lines gets it once its prompt's line is
    /// no longer empty ([`line_shows`]). A program whose screen is not
    /// told gets its CR after its delay.
    pub fn take_cr_when_shown(&mut self, now: Instant) -> Vec<Step> {
        let (host, agents, programs, facts) =
            (&self.host, &self.agents, &self.programs, &self.pane_facts);
        let (hooks, now_ms) = (&self.hooks, host.unix_ms());
        let zellij = Zellij::of(host, &self.view, programs);
        let look = |write: &PendingWrite| {
            if !matches!(write.done, WriteDone::Delivered(_)) {
                return Shows::Unlooked;
            }
            let pane = write.pane;
            if agents.named(pane) == Named::ReadsLines {
                return line_shows(host.screen(pane).ok().as_deref());
            }
            let running = facts.known(pane).and_then(|f| f.running.as_deref());
            let program = zellij.program_of(pane, running);
            let described = program.as_deref().and_then(|p| programs.for_program(p));
            if described.is_none() {
                return Shows::Unlooked;
            }
            let delivery = programs.delivery(program.as_deref());
            let telling = zellij.telling(pane, program.as_deref(), agents.named(pane));
            let mut shown = host.shown(pane, telling);
            if let Some(shown) = shown.as_mut() {
                if hooks.asks(pane, (shown.agent, shown.still), now_ms) {
                    shown.agent = Some(AgentScreen::Asking);
                }
            }
            Shows::of(shown.as_ref(), delivery, &own_mark(&write.bytes))
        };
        self.input.on_timer(now, look)
    }

    /// Notes a message's delivery for the board's rows.
    fn note_delivered(&mut self, seq: u64, pane_id: PaneRef) {
        let Some(from) = self.outbox.sender(seq).map(str::to_owned) else {
            return;
        };
        let to = self.agents.by_pane().remove(&pane_id);
        let to = to.unwrap_or_else(|| pane_id.to_string());
        let at_ms = self.host.unix_ms();
        self.attention.delivered(seq, &from, pane_id, to, at_ms);
    }

    /// Looks at every agent's pane (with an agent's name, or running an
    /// agent program): its screen, or that it exited. One that started
    /// asking is logged, so whoever watches the log learns that it needs
    /// someone.
    pub fn look_at_agents(&mut self) {
        let now_ms = self.host.unix_ms();
        let (by_name, reading_lines) = (self.agents.by_pane(), self.agents.reading_lines());
        let host = &self.host;
        let terminals: Vec<PaneEntry> = self
            .view
            .entries()
            .into_iter()
            .filter(|p| p.pane_id.kind == PaneKind::Terminal)
            .collect();
        let live = terminals.iter().filter(|p| !p.exited).map(|p| p.pane_id);
        self.pane_facts.learn(live, |pane| Facts {
            cwd: host.cwd(pane),
            running: host.running_command(pane),
        });
        let zellij = Zellij::of(&self.host, &self.view, &self.programs);
        // Each agent's screen, or `None` for one that exited.
        let screens: Vec<(PaneRef, Option<Option<Shown>>)> = terminals
            .iter()
            .filter_map(|entry| {
                let pane_id = entry.pane_id;
                let named = Named::of(
                    by_name.contains_key(&pane_id),
                    reading_lines.contains(&pane_id),
                );
                let running = self
                    .pane_facts
                    .known(pane_id)
                    .and_then(|f| f.running.as_deref());
                let program = zellij.program_of(pane_id, running);
                if !named.any()
                    && !program
                        .as_deref()
                        .is_some_and(|p| self.programs.is_agent(p))
                {
                    return None;
                }
                if entry.exited {
                    return Some((pane_id, None));
                }
                let telling = zellij.telling(pane_id, program.as_deref(), named);
                Some((pane_id, Some(self.host.shown(pane_id, telling))))
            })
            .collect();
        let states: Vec<(PaneRef, PaneState, Option<String>, Source)> = screens
            .into_iter()
            .map(|(pane_id, screen)| match screen {
                None => (pane_id, PaneState::Exited, None, Source::Screen),
                Some(None) => (pane_id, PaneState::Unknown, None, Source::Screen),
                Some(Some(mut shown)) => {
                    // The relay reads its live screen as drawn, before the
                    // composer's recall: a view that reads otherwise for
                    // long is stale.
                    let live = self.hooks.live_over_view(pane_id, shown.agent, now_ms);
                    self.attention.turn_seen(pane_id, shown.agent);
                    self.attention.composer(pane_id, &mut shown);
                    let seen = (live.or(shown.agent), shown.still);
                    self.hooks.screen_seen(pane_id, seen, now_ms);
                    let (agent, source) = self.hooks.state(pane_id, seen, now_ms);
                    let source = match source {
                        Source::Screen if live.is_some() => Source::Relay,
                        source => source,
                    };
                    let state = agent.map_or(PaneState::Unknown, PaneState::from);
                    // A stale view stands still while the program goes on.
                    let state = match live {
                        Some(_) => state,
                        None => self.stalled_or(pane_id, state, shown.still, now_ms),
                    };
                    (pane_id, state, shown.described_by, source)
                }
            })
            .collect();
        let mut looked = Vec::new();
        for (pane_id, state, described_by, source) in states {
            self.attention.described(pane_id, described_by);
            self.attention.told_by(pane_id, source);
            if self.attention.seen(pane_id, state, now_ms) {
                let name = by_name.get(&pane_id).cloned();
                let happened = match state {
                    PaneState::Stalled => Happened::Stalled { pane_id, name },
                    _ => Happened::Asking { pane_id, name },
                };
                self.log_event(happened);
            }
            looked.push(pane_id);
        }
        self.attention.keep_only(&looked);
        self.attention.looked_ms = now_ms;
        self.mark_asking_tabs(&looked);
    }

    /// `stalled` for a working agent whose screen (less its working sign)
    /// and record have not changed for `stalled_after_s`, else `state`.
    fn stalled_or(
        &mut self,
        pane: PaneRef,
        state: PaneState,
        still: u64,
        now_ms: u64,
    ) -> PaneState {
        if state != PaneState::Working {
            self.attention.not_working(pane);
            return state;
        }
        let limit = self.settings.stalled_after_ms;
        let screen_still = self.attention.still_for(pane, still, now_ms) >= limit;
        let kept = self.keeping.kept.of_pane(pane);
        let record_still =
            kept.is_none_or(|(_, a)| now_ms.saturating_sub(a.record_changed_ms) >= limit);
        match screen_still && record_still {
            true => PaneState::Stalled,
            false => state,
        }
    }

    /// Marks the tabs where an agent asks, and only those (none when the
    /// marks are off).
    fn mark_asking_tabs(&mut self, agents: &[PaneRef]) {
        let on = self.settings.tab_marks && !self.settings.marks_off.exists();
        let asking = agents
            .iter()
            .filter(|pane| {
                self.attention
                    .of(**pane)
                    .is_some_and(|s| s.state == PaneState::Asking)
            })
            .filter_map(|pane| self.view.tab_id_of(*pane));
        let wanted: BTreeSet<usize> = asking.filter(|_| on).collect();
        for (tab_id, name) in tab_marks::renames(&self.view.tabs, &self.view.marked_tabs, &wanted) {
            self.host.rename_tab(tab_id, &name);
        }
    }

    /// Every agent, who needs someone first, from a look at most half a
    /// second old (the board's rows, and `agents`).
    pub fn agent_rows(&mut self) -> AgentsResult {
        let now_ms = self.host.unix_ms();
        if now_ms.saturating_sub(self.attention.looked_ms) >= FRESH_LOOK_MS {
            self.look_at_agents();
        }
        self.keeping.kept.reload();
        let board = Board {
            attention: &self.attention,
            outbox: &self.outbox,
            facts: &self.pane_facts,
            names: self.agents.by_pane(),
            kept: &self.keeping.kept,
        };
        board.rows(self.view.entries(), now_ms)
    }

    /// Releases the names of panes Zellij no longer has, telling their
    /// parents.
    pub fn release_gone_agents(&mut self) {
        let zellij = Zellij::of(&self.host, &self.view, &self.programs);
        let gone = self
            .agents
            .release_gone(|p| zellij.pane_now(p).is_some(), self.host.now());
        self.tell_released(gone);
    }

    /// The names of panes this plugin has just closed are free at once:
    /// Zellij may list the panes a moment longer.
    pub fn release_closed_agents(&mut self, closed: &[PaneRef]) {
        let gone = self.agents.release_closed(closed, self.host.now());
        self.tell_released(gone);
    }

    fn tell_released(&mut self, gone: Vec<(String, PaneRef)>) {
        for (name, pane_id) in gone {
            self.log_event(Happened::Closed {
                name: name.clone(),
                pane_id,
            });
            self.tell_parent(&name, "closed");
        }
    }

    /// A command pane exited: its agent's parent is told, with the code.
    pub fn agent_exited(&mut self, pane: PaneRef, code: Option<i32>) {
        if let Some(name) = self.agents.by_pane().remove(&pane) {
            self.log_event(Happened::Exited {
                name: name.clone(),
                pane_id: pane,
                code,
            });
            let what = match code {
                Some(code) => format!("exited with code {code}"),
                None => "exited".to_owned(),
            };
            self.tell_parent(&name, &what);
        }
    }

    /// Sends `child <name> <what>` to the agent's parent, unless the layout
    /// turned child events off or the name has no parent.
    fn tell_parent(&mut self, name: &str, what: &str) {
        let Some(parent) = parent_of(name).filter(|_| self.settings.child_events) else {
            return;
        };
        let text = format!("child {name} {what}");
        let to = Recipient::Agent(parent.to_owned());
        let ttl = Duration::from_secs(DEFAULT_MESSAGE_TTL_S);
        let (at_ms, at) = (self.host.unix_ms(), self.host.now());
        let queued = Message::queued(
            &mut self.log,
            at_ms,
            at,
            to,
            SERVER_NAME,
            &text,
            ttl,
            SERVER_NAME,
        );
        if let Ok(message) = queued {
            self.outbox.push(message);
            self.pump_messages();
        }
    }
}

/// How a message's own text is known in its composer: its first line up to
/// the end of its header (`[#7 from lead]`).
pub fn own_mark(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes.strip_prefix(PASTE_START).unwrap_or(bytes));
    let line = text.lines().next().unwrap_or_default();
    let header = line.find(']').map_or(line, |end| &line[..=end]);
    header.chars().take(40).collect()
}

/// What the prompt line of an agent that reads lines (`rows`, its screen)
/// means to a message's CR: empty, it has not read the text yet (an Ink
/// line editor takes a CR that comes before it has drawn the text as an
/// empty line); anything else, the text may be there. It is never told as
/// the message's own: the program may print what it read.
fn line_shows(rows: Option<&[String]>) -> Shows {
    match rows.map(prompt_line) {
        Some(ShellLine::Empty) => Shows::Clear,
        Some(ShellLine::Draft(_)) => Shows::Draft {
            ours: false,
            again: false,
            around: 0,
            drawn: 0,
        },
        Some(ShellLine::Unknown) | None => Shows::Other,
    }
}

/// A message's bytes, as its program takes them: several lines in one
/// bracketed paste where a typed CR or line feed would not stay in the
/// draft, or as one line to an agent that reads lines.
fn message_bytes(typed: String, delivery: Delivery) -> Vec<u8> {
    match delivery.multiline {
        _ if !typed.contains('\n') => typed.into_bytes(),
        Multiline::Typed => typed.into_bytes(),
        Multiline::Paste => [PASTE_START, typed.as_bytes(), PASTE_END].concat(),
        Multiline::OneLine => typed.replace('\n', " ").into_bytes(),
    }
}
