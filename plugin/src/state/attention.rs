//! Which agents need someone: the plugin looks at each agent's screen once
//! a heartbeat (and when the board or `agents` asks) and notes what it
//! shows and since when, so the event log tells whoever watches it that
//! one started asking, and the board can tell a person. Also the last
//! message delivered to and from each agent. Plain state.

use std::collections::BTreeMap;

use zellij_mcp_protocol::agent_programs::AgentScreen;
use zellij_mcp_protocol::agent_screen::Shown;
use zellij_mcp_protocol::ops::{LastMessage, LastReply, PaneState};
use zellij_mcp_protocol::PaneRef;

use super::hooks::Source;

/// Most senders whose last message is kept.
const MOST_SENDERS: usize = 512;
/// How long after a message its turn may take to show before the next
/// message to a program that holds them while it works goes anyway (the
/// program may have taken it as no turn at all).
pub const TURN_SHOWS_WITHIN_MS: u64 = 10_000;

#[derive(Debug, Default)]
pub struct Attention {
    /// What each agent's pane showed at the last look, and since when.
    last: BTreeMap<PaneRef, Seen>,
    /// The description that told each agent's state at the last look.
    described_by: BTreeMap<PaneRef, String>,
    /// The agents whose state at the last look was not their view's: their
    /// hooks' word over a screen that did not show it (scrolled up, not
    /// drawn yet, or not read), or their relay's live screen over a stale
    /// view.
    told_by: BTreeMap<PaneRef, Source>,
    /// The last message delivered to each pane.
    last_in: BTreeMap<PaneRef, LastMessage>,
    /// The panes whose last message's turn no look has shown yet.
    turn_unshown: BTreeMap<PaneRef, u64>,
    /// The last delivered message of each sender (its name or pane id).
    last_out: BTreeMap<String, LastMessage>,
    /// Each agent's last reply a caller asked for.
    last_reply: BTreeMap<PaneRef, LastReply>,
    /// The last text each agent's composer was seen to hold as a person's
    /// draft (the cursor after its start).
    typed: BTreeMap<PaneRef, String>,
    /// The last text each agent's composer was seen to hold as the
    /// program's suggestion (the cursor at its start).
    suggested: BTreeMap<PaneRef, String>,
    /// Each working agent's screen less its working sign, and since when
    /// it has been so (Unix ms).
    still: BTreeMap<PaneRef, (u64, u64)>,
    /// When the last look was (Unix ms).
    pub looked_ms: u64,
}

/// A pane's state, and since when it has been in it (Unix ms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen {
    pub state: PaneState,
    pub since_ms: u64,
}

impl Attention {
    /// Notes what `pane` shows at `now_ms`; whether it just started asking
    /// or stalled.
    pub fn seen(&mut self, pane: PaneRef, state: PaneState, now_ms: u64) -> bool {
        let before = self.last.get(&pane).map(|seen| seen.state);
        if before != Some(state) {
            let since_ms = now_ms;
            self.last.insert(pane, Seen { state, since_ms });
        }
        let needs_someone = matches!(state, PaneState::Asking | PaneState::Stalled);
        needs_someone && before != Some(state)
    }

    /// How long (ms) `pane`'s working screen has shown `still` (see
    /// `Shown::still`), as of `now_ms`.
    pub fn still_for(&mut self, pane: PaneRef, still: u64, now_ms: u64) -> u64 {
        let (seen, since) = self.still.entry(pane).or_insert((still, now_ms));
        if *seen != still {
            (*seen, *since) = (still, now_ms);
        }
        now_ms.saturating_sub(*since)
    }

    /// `pane` is not working: its next turn starts afresh.
    pub fn not_working(&mut self, pane: PaneRef) {
        self.still.remove(&pane);
    }

    /// Notes the description that told `pane`'s state (none: no state).
    pub fn described(&mut self, pane: PaneRef, by: Option<String>) {
        match by {
            Some(by) => self.described_by.insert(pane, by),
            None => self.described_by.remove(&pane),
        };
    }

    pub fn described_by(&self, pane: PaneRef) -> Option<&String> {
        self.described_by.get(&pane)
    }

    /// Notes which source told `pane`'s state at this look.
    pub fn told_by(&mut self, pane: PaneRef, source: Source) {
        match source {
            Source::Screen => self.told_by.remove(&pane),
            _ => self.told_by.insert(pane, source),
        };
    }

    /// Which source told `pane`'s state at the last look.
    pub fn source(&self, pane: PaneRef) -> Source {
        self.told_by.get(&pane).copied().unwrap_or(Source::Screen)
    }

    /// Notes what `pane`'s composer holds, and tells it as earlier looks
    /// saw it ([`Self::recall`]).
    pub fn composer(&mut self, pane: PaneRef, shown: &mut Shown) {
        self.recall(pane, shown);
        let Some(composer) = &shown.composer else {
            return;
        };
        // Text is seen typed, or suggested, only where the cursor tells.
        if composer.cursor_away {
            return;
        }
        if !composer.draft.is_empty() {
            self.typed.insert(pane, composer.draft.clone());
        }
        if !composer.suggestion.is_empty() {
            self.suggested.insert(pane, composer.suggestion.clone());
        }
    }

    /// What `pane`'s composer holds, as earlier looks saw it: text the
    /// description took for the program's suggestion (by the cursor at its
    /// start) is a draft when it is what a person was seen to type there
    /// (they only moved the cursor back); text it took for a draft only
    /// because the cursor shows elsewhere is the suggestion last seen
    /// there, unless a person was seen to type it.
    pub fn recall(&self, pane: PaneRef, shown: &mut Shown) {
        let Some(composer) = &mut shown.composer else {
            return;
        };
        let typed = |text: &String| self.typed.get(&pane) == Some(text);
        if shown.agent == Some(AgentScreen::Draft)
            && composer.cursor_away
            && self.suggested.get(&pane) == Some(&composer.draft)
            && !typed(&composer.draft)
        {
            composer.suggestion = std::mem::take(&mut composer.draft);
            shown.agent = Some(composer.without_draft);
        } else if shown.agent == Some(AgentScreen::Idle)
            && !composer.suggestion.is_empty()
            && typed(&composer.suggestion)
        {
            shown.agent = Some(AgentScreen::Draft);
        }
    }

    /// What `pane` showed at the last look.
    pub fn of(&self, pane: PaneRef) -> Option<Seen> {
        self.last.get(&pane).copied()
    }

    /// `state` as the screen tells it now, `stalled` where it still says
    /// working and the last look found the agent stalled (as the board
    /// tells it).
    pub fn told(&self, pane: PaneRef, state: Option<PaneState>) -> Option<PaneState> {
        let stalled = self.of(pane).is_some_and(|s| s.state == PaneState::Stalled);
        match state {
            Some(PaneState::Working) if stalled => Some(PaneState::Stalled),
            state => state,
        }
    }

    /// Forgets the panes no longer looked at.
    pub fn keep_only(&mut self, panes: &[PaneRef]) {
        self.last.retain(|pane, _| panes.contains(pane));
        self.described_by.retain(|pane, _| panes.contains(pane));
        self.told_by.retain(|pane, _| panes.contains(pane));
        self.last_in.retain(|pane, _| panes.contains(pane));
        self.turn_unshown.retain(|pane, _| panes.contains(pane));
        self.last_reply.retain(|pane, _| panes.contains(pane));
        self.typed.retain(|pane, _| panes.contains(pane));
        self.suggested.retain(|pane, _| panes.contains(pane));
        self.still.retain(|pane, _| panes.contains(pane));
    }

    /// Message `seq` from `from` was delivered to `pane` (whose name or id
    /// is `to`) at `at_ms`.
    pub fn delivered(&mut self, seq: u64, from: &str, pane: PaneRef, to: String, at_ms: u64) {
        let peer = from.to_owned();
        self.last_in.insert(pane, LastMessage { seq, peer, at_ms });
        self.turn_unshown.insert(pane, seq);
        if self.last_out.len() >= MOST_SENDERS && !self.last_out.contains_key(from) {
            let oldest = self.last_out.iter().min_by_key(|(_, m)| m.at_ms);
            if let Some(oldest) = oldest.map(|(sender, _)| sender.clone()) {
                self.last_out.remove(&oldest);
            }
        }
        let last = LastMessage {
            seq,
            peer: to,
            at_ms,
        };
        self.last_out.insert(from.to_owned(), last);
    }

    /// A look at `pane`'s view read `view`: a program seen working or
    /// asking has shown the turn its last message started.
    pub fn turn_seen(&mut self, pane: PaneRef, view: Option<AgentScreen>) {
        use AgentScreen::*;
        if matches!(view, Some(Working | Busy | Asking)) {
            self.turn_unshown.remove(&pane);
        }
    }

    /// The seq of `pane`'s last message while no look has shown the turn it
    /// started, for [`TURN_SHOWS_WITHIN_MS`] after its delivery. A program
    /// clears its composer before it draws its working sign (Codex runs its
    /// prompt hook in between): a message typed then, into a program that
    /// steers its running turn with what is typed, would join that turn.
    pub fn turn_unshown(&self, pane: PaneRef, now_ms: u64) -> Option<u64> {
        let seq = *self.turn_unshown.get(&pane)?;
        let at_ms = self.last_in.get(&pane).map_or(0, |m| m.at_ms);
        (now_ms.saturating_sub(at_ms) < TURN_SHOWS_WITHIN_MS).then_some(seq)
    }

    /// `pane`'s agent replied (its first line) at `at_ms`.
    pub fn replied(&mut self, pane: PaneRef, first_line: String, at_ms: u64) {
        self.last_reply
            .insert(pane, LastReply { first_line, at_ms });
    }

    pub fn last_reply(&self, pane: PaneRef) -> Option<&LastReply> {
        self.last_reply.get(&pane)
    }

    /// The last message delivered to `pane`.
    pub fn last_in(&self, pane: PaneRef) -> Option<&LastMessage> {
        self.last_in.get(&pane)
    }

    /// The last delivered message of the sender named `sender`.
    pub fn last_out(&self, sender: &str) -> Option<&LastMessage> {
        self.last_out.get(sender)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zellij_mcp_protocol::agent_screen::Composing;
    use zellij_mcp_protocol::shell_line::ShellLine;

    fn shown(agent: AgentScreen, draft: &str, suggestion: &str) -> Shown {
        Shown {
            still: 0,
            agent: Some(agent),
            described_by: None,
            composer: Some(Composing {
                draft: draft.into(),
                suggestion: suggestion.into(),
                around: 0,
                drawn: 0,
                cursor_away: false,
                without_draft: AgentScreen::Idle,
            }),
            line: ShellLine::Unknown,
        }
    }

    /// What one pane's composer tells, as `attention` saw it before.
    fn told(attention: &mut Attention, mut shown: Shown) -> Option<AgentScreen> {
        attention.composer(PaneRef::terminal(1), &mut shown);
        shown.agent
    }

    /// A draft read so only because the cursor shows off the composer.
    fn cursor_away(draft: &str) -> Shown {
        let mut shown = shown(AgentScreen::Draft, draft, "");
        shown.composer.as_mut().unwrap().cursor_away = true;
        shown
    }

    #[test]
    fn the_suggestion_last_seen_stays_one_when_the_cursor_shows_elsewhere() {
        let mut attention = Attention::default();
        let mut told = |shown: Shown| told(&mut attention, shown);
        let idle = Some(AgentScreen::Idle);
        let draft = Some(AgentScreen::Draft);
        // Nothing seen before: the text may be anyone's.
        assert_eq!(told(cursor_away("run the tests")), draft);
        assert_eq!(told(shown(AgentScreen::Idle, "", "run the tests")), idle);
        // Redrawn for a new width, the cursor left below the composer.
        assert_eq!(told(cursor_away("run the tests")), idle);
        assert_eq!(told(cursor_away("other text")), draft);
        // A person's own text, the same as the suggestion, stays theirs.
        assert_eq!(told(shown(AgentScreen::Draft, "run the tests", "")), draft);
        assert_eq!(told(cursor_away("run the tests")), draft);
    }

    #[test]
    fn a_persons_draft_with_the_cursor_moved_to_its_start_stays_a_draft() {
        let mut attention = Attention::default();
        let mut told = |shown: Shown| told(&mut attention, shown);
        // The program's own suggestion, never typed here: no draft.
        let suggested = shown(AgentScreen::Idle, "", "run the tests");
        assert_eq!(told(suggested.clone()), Some(AgentScreen::Idle));
        // A person typed, then pressed Home: the same text, cursor at its start.
        assert_eq!(
            told(shown(AgentScreen::Draft, "my own draft", "")),
            Some(AgentScreen::Draft)
        );
        let home = shown(AgentScreen::Idle, "", "my own draft");
        assert_eq!(told(home), Some(AgentScreen::Draft));
        assert_eq!(told(suggested), Some(AgentScreen::Idle));
    }

    #[test]
    fn a_stalled_agent_is_told_stalled_while_its_screen_says_working() {
        let mut attention = Attention::default();
        let pane = PaneRef::terminal(1);
        let working = Some(PaneState::Working);
        assert_eq!(attention.told(pane, working), working);
        attention.seen(pane, PaneState::Stalled, 1);
        assert_eq!(attention.told(pane, working), Some(PaneState::Stalled));
        // The screen moved on: what it says now.
        let idle = Some(PaneState::Idle);
        assert_eq!(attention.told(pane, idle), idle);
    }

    #[test]
    fn starting_to_ask_is_noted_once_per_dialog() {
        let mut attention = Attention::default();
        let pane = PaneRef::terminal(1);
        assert!(!attention.seen(pane, PaneState::Working, 1));
        assert!(attention.seen(pane, PaneState::Asking, 2));
        assert!(
            !attention.seen(pane, PaneState::Asking, 3),
            "still the same dialog"
        );
        assert_eq!(attention.of(pane).unwrap().since_ms, 2, "asking since 2");
        assert!(!attention.seen(pane, PaneState::Idle, 4));
        assert!(attention.seen(pane, PaneState::Asking, 5), "a new dialog");
        attention.keep_only(&[]);
        assert!(attention.last.is_empty());
    }

    #[test]
    fn the_last_messages_in_and_out_are_kept_per_agent() {
        let mut attention = Attention::default();
        let (lead, worker) = (PaneRef::terminal(1), PaneRef::terminal(2));
        attention.delivered(3, "lead", worker, "worker".into(), 10);
        attention.delivered(5, "worker", lead, "lead".into(), 20);
        assert_eq!(attention.last_in(worker).unwrap().peer, "lead");
        assert_eq!(attention.last_out("lead").unwrap().peer, "worker");
        assert_eq!(attention.last_in(lead).unwrap().seq, 5);
        attention.keep_only(&[lead]);
        assert!(attention.last_in(worker).is_none());
    }

    #[test]
    fn senders_kept_are_bounded() {
        let mut attention = Attention::default();
        for n in 0..(MOST_SENDERS as u64 + 10) {
            let pane = PaneRef::terminal(1);
            attention.delivered(n, &format!("s{n}"), pane, "x".into(), n);
        }
        assert_eq!(attention.last_out.len(), MOST_SENDERS);
        assert!(attention.last_out("s0").is_none(), "the oldest went first");
    }
}
