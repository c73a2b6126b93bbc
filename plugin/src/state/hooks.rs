//! What each agent program's hooks told last (`zellij-mcp hook`, run by
//! the program), and the one state told from them and the pane's screen
//! (its relay's live screen over a stale view):
//! plain state, one report per pane, bounded, forgotten with the pane.

use std::collections::BTreeMap;

use zellij_mcp_protocol::agent_programs::AgentScreen;
use zellij_mcp_protocol::hooks::HookEvent;
use zellij_mcp_protocol::ops::TurnEnded;
use zellij_mcp_protocol::PaneRef;

use super::relay_screens::RelayScreens;

/// Panes whose reports are kept at most; the oldest report goes first.
const MOST_REPORTS: usize = 1024;
/// How long after a turn's end told a screen still working since before
/// it is that turn's tail (Claude Code and Qwen Code show their working
/// sign while their Stop hooks run, about half a second): longer, the
/// turn went on (a Stop hook of the person's may keep it going).
const TURN_TAIL_MS: u64 = 3_000;
/// How long looks must have seen no question before one shown or told is
/// gone: a frame caught mid-redraw (on a loaded machine) may show no
/// dialog while one waits.
const SETTLED_MS: u64 = 400;
/// How long looks must have seen no question told by hooks and not shown
/// yet before it is gone: a program runs its hook before it draws the
/// dialog, which on a loaded machine may take seconds while its working
/// sign goes on changing the screen.
const TOLD_UNSEEN_MS: u64 = 10_000;
/// How long looks must have shown an agent idle before its screen wins
/// over a turn its hooks told under way: a view a person scrolled up shows
/// the past (an idle prompt) while the turn goes on; a turn a person
/// interrupted may end without its end hook.
const IDLE_OVER_TURN_MS: u64 = 10_000;

/// One pane's last report.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub event: HookEvent,
    /// The conversation its program named last, and its record.
    pub conversation: Option<String>,
    pub record: Option<String>,
    /// When its program ran the hook, and when it reached the plugin
    /// (Unix ms).
    pub at_ms: u64,
    pub arrived_ms: u64,
    /// The prompt of the turn under way, as its start told it.
    pub prompt: Option<String>,
    /// The last turn's end its hooks told.
    pub turn_ended: Option<TurnEnded>,
    /// Tool events told since the last turn's end (a tool called, run,
    /// or asked for).
    tool_events: u32,
    /// Whether the turn under way was told from its start by hooks that
    /// tell each tool call: only then does [`Report::tool_events`] count
    /// all of its tool calls.
    followed: bool,
}

impl Report {
    /// Whether it still stands after `event`, told at `at_ms`: an event
    /// older than it (hooks run side by side reach the plugin in any
    /// order) changes nothing, nor does the program saying it is busy
    /// while it asks (opencode tells its status so while its permission
    /// waits): a question stands until it is answered, the turn ends or a
    /// new prompt comes.
    fn outlasts(&self, event: &HookEvent, at_ms: u64) -> bool {
        let busy = matches!(event, HookEvent::TurnStarted { prompt } if prompt.as_deref().unwrap_or_default().is_empty());
        self.at_ms > at_ms || (busy && matches!(self.event, HookEvent::Asking { .. }))
    }

    /// The state its event tells; none once the session ended.
    fn state(&self) -> Option<AgentScreen> {
        match self.event {
            HookEvent::SessionStarted { .. } | HookEvent::TurnEnded { .. } => {
                Some(AgentScreen::Idle)
            }
            HookEvent::TurnStarted { .. } | HookEvent::ToolCalled | HookEvent::ToolDone => {
                Some(AgentScreen::Working)
            }
            HookEvent::Asking { .. } => Some(AgentScreen::Asking),
            HookEvent::SessionEnded => None,
        }
    }
}

/// An agent's screen as looked at: the state it shows, and a fingerprint
/// of its rows (see `Shown::still`).
pub type Screen = (Option<AgentScreen>, u64);

/// Which source told an agent's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Its pane as Zellij shows it.
    Screen,
    Hooks,
    /// Its relay's live screen, over a stale view (see `RelayScreens`).
    Relay,
}

#[derive(Debug, Default)]
pub struct HookReports {
    reports: BTreeMap<PaneRef, Report>,
    /// What each agent's screen showed at the last look (its state and a
    /// fingerprint of its rows), and since when (Unix ms).
    screens: BTreeMap<PaneRef, (Screen, u64)>,
    /// The state each agent's screen has shown look after look, and since
    /// when (Unix ms).
    shown_since: BTreeMap<PaneRef, (Option<AgentScreen>, u64)>,
    /// Each agent's question, shown at a look or told, until looks have
    /// seen none for [`SETTLED_MS`].
    questions: BTreeMap<PaneRef, Question>,
    /// What each relayed agent's relay told of its live screen.
    pub relays: RelayScreens,
}

/// A question an agent's screen showed or its hooks told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Question {
    /// When it was last shown at a look, or told (Unix ms).
    last_seen_ms: u64,
    /// Since when looks have seen none.
    none_seen_since: Option<u64>,
    /// Whether a look has shown it (one only told may not be drawn yet).
    shown: bool,
}

impl Question {
    fn seen(at_ms: u64, shown: bool) -> Self {
        Question {
            last_seen_ms: at_ms,
            none_seen_since: None,
            shown,
        }
    }

    /// Whether looks that have seen none since `since` leave it standing.
    fn stands_after(&self, since: u64, now_ms: u64) -> bool {
        let gone_after = if self.shown {
            SETTLED_MS
        } else {
            TOLD_UNSEEN_MS
        };
        now_ms.saturating_sub(since) < gone_after
    }
}

impl HookReports {
    /// Notes what `pane`'s hook told at `at_ms`, as it reached the plugin
    /// then.
    pub fn note(
        &mut self,
        pane: PaneRef,
        event: HookEvent,
        conversation: Option<String>,
        at_ms: u64,
    ) {
        self.note_arrived(pane, event, conversation, (at_ms, at_ms), false);
    }

    /// Notes what `pane`'s hook told at `at_ms`, reaching the plugin at
    /// `arrived_ms`; a conversation named before stays known when this
    /// event names none. An event the kept report outlasts
    /// ([`Report::outlasts`]) tells only the conversation, where none was
    /// known, and a tool event. `tells_tools`: the program's hooks tell
    /// each tool call.
    pub fn note_arrived(
        &mut self,
        pane: PaneRef,
        event: HookEvent,
        conversation: Option<String>,
        (at_ms, arrived_ms): (u64, u64),
        tells_tools: bool,
    ) {
        let tool_event = matches!(
            event,
            HookEvent::ToolCalled | HookEvent::ToolDone | HookEvent::Asking { .. }
        );
        if let Some(kept) = self
            .reports
            .get_mut(&pane)
            .filter(|r| r.outlasts(&event, at_ms))
        {
            if kept.conversation.is_none() {
                kept.conversation = conversation;
            }
            let this_turn = kept.turn_ended.as_ref().is_none_or(|end| end.at_ms < at_ms);
            kept.tool_events += u32::from(tool_event && this_turn);
            return;
        }
        let earlier = self.reports.remove(&pane);
        if self.reports.len() >= MOST_REPORTS {
            let oldest = self
                .reports
                .iter()
                .min_by_key(|(_, r)| r.at_ms)
                .map(|(p, _)| *p);
            oldest.map(|p| self.reports.remove(&p));
        }
        let started = earlier.as_ref().and_then(|r| r.prompt.clone());
        // A turn's further requests (after a tool) may tell an empty prompt.
        let prompt = match &event {
            HookEvent::TurnStarted { prompt } if prompt.as_ref().is_some_and(|p| !p.is_empty()) => {
                prompt.clone()
            }
            HookEvent::TurnStarted { .. } => started.clone(),
            HookEvent::TurnEnded { .. } => None,
            _ => started.clone(),
        };
        let (tool_events, followed) = earlier
            .as_ref()
            .map_or((0, false), |r| (r.tool_events, r.followed));
        let turn_ended = match &event {
            HookEvent::TurnEnded {
                last_message,
                prompt,
            } => Some(TurnEnded {
                at_ms,
                prompt: prompt.clone().or(started),
                last_message: last_message.clone(),
                tool_calls: followed.then_some(tool_events),
            }),
            _ => earlier.as_ref().and_then(|r| r.turn_ended.clone()),
        };
        // A turn's tool events are counted from its start (told by hooks
        // that tell each call) to its end; a further start in the turn
        // (after a tool, with no prompt) goes on counting.
        let (tool_events, followed) = match &event {
            HookEvent::TurnEnded { .. } | HookEvent::SessionStarted { .. } => (0, false),
            HookEvent::TurnStarted { prompt: Some(p) } if !followed && !p.is_empty() => {
                (0, tells_tools)
            }
            _ => (tool_events + u32::from(tool_event), followed),
        };
        let record = match &event {
            HookEvent::SessionStarted { record } => record.clone(),
            _ => earlier.as_ref().and_then(|r| r.record.clone()),
        };
        let conversation = conversation.or_else(|| earlier.and_then(|r| r.conversation));
        let report = Report {
            event,
            conversation,
            record,
            at_ms,
            arrived_ms,
            prompt,
            turn_ended,
            tool_events,
            followed,
        };
        // A question told is open, unless it is the one seen since (a late
        // hook of a dialog already drawn); the program's next word closes
        // it, where it is newer than the question's last sighting (a late
        // hook of the turn's start does not close the dialog shown since).
        let seen_since = |q: &Question| q.last_seen_ms >= at_ms;
        match report.state() {
            Some(AgentScreen::Asking) if self.questions.get(&pane).is_some_and(seen_since) => {}
            Some(AgentScreen::Asking) => {
                self.questions.insert(pane, Question::seen(at_ms, false));
            }
            _ => {
                if self
                    .questions
                    .get(&pane)
                    .is_some_and(|q| q.last_seen_ms < at_ms)
                {
                    self.questions.remove(&pane);
                }
            }
        }
        self.reports.insert(pane, report);
    }

    pub fn of(&self, pane: PaneRef) -> Option<&Report> {
        self.reports.get(&pane)
    }

    /// What `pane`'s relay told of its live screen, where its view, read
    /// as `view`, is stale ([`RelayScreens::over_stale_view`], beside
    /// what its hooks tell).
    pub fn live_over_view(
        &mut self,
        pane: PaneRef,
        view: Option<AgentScreen>,
        now_ms: u64,
    ) -> Option<AgentScreen> {
        let told = self.of(pane).and_then(Report::state);
        self.relays.over_stale_view(pane, (view, told), now_ms)
    }

    /// The same, as the looks so far found it ([`RelayScreens::stale`]).
    pub fn live_over(
        &self,
        pane: PaneRef,
        view: Option<AgentScreen>,
        now_ms: u64,
    ) -> Option<AgentScreen> {
        let told = self.of(pane).and_then(Report::state);
        self.relays.stale(pane, (view, told), now_ms)
    }

    /// Forgets the panes that are gone.
    pub fn keep_only(&mut self, live: impl Fn(PaneRef) -> bool) {
        self.reports.retain(|pane, _| live(*pane));
        self.screens.retain(|pane, _| live(*pane));
        self.shown_since.retain(|pane, _| live(*pane));
        self.questions.retain(|pane, _| live(*pane));
        self.relays.keep_only(live);
    }

    /// Notes what `pane`'s screen shows at a look.
    pub fn screen_seen(&mut self, pane: PaneRef, screen: Screen, now_ms: u64) {
        if self.shown_since.get(&pane).map(|(shown, _)| *shown) != Some(screen.0) {
            self.shown_since.insert(pane, (screen.0, now_ms));
        }
        match (screen.0, self.questions.get_mut(&pane)) {
            (Some(AgentScreen::Asking), _) => {
                self.questions.insert(pane, Question::seen(now_ms, true));
            }
            (_, Some(question)) => match question.none_seen_since {
                None => question.none_seen_since = Some(now_ms),
                Some(since) if !question.stands_after(since, now_ms) => {
                    self.questions.remove(&pane);
                }
                Some(_) => {}
            },
            (_, None) => {}
        }
        if self.screens.get(&pane).map(|(s, _)| *s) != Some(screen) {
            self.screens.insert(pane, (screen, now_ms));
        }
    }

    /// Whether `pane` asks, as its hooks or its screen tell (nothing is
    /// typed there then: a hook may tell a question before its dialog is
    /// drawn).
    pub fn asks(&self, pane: PaneRef, seen: Screen, now_ms: u64) -> bool {
        self.state(pane, seen, now_ms).0 == Some(AgentScreen::Asking)
    }

    /// `pane`'s state from its hooks and its `screen` now: the newer of the
    /// two tells it (a screen is as new as its last change: one that
    /// stopped changing, as one a person scrolled up, is older than every
    /// hook after it; a screen that tells no state tells nothing), except
    /// that a question shown always wins (the screen is the last look
    /// before typing, and a hook's report may come late), a question told
    /// wins over an older screen, a question stands until looks have seen
    /// it gone for [`SETTLED_MS`] ([`TOLD_UNSEEN_MS`] while none has shown
    /// it), a turn told under way stands over an idle screen until looks
    /// have shown it idle for [`IDLE_OVER_TURN_MS`], and a draft comes only
    /// from the screen.
    pub fn state(&self, pane: PaneRef, seen: Screen, now_ms: u64) -> (Option<AgentScreen>, Source) {
        let screen = seen.0;
        if screen != Some(AgentScreen::Asking) && self.question_stands(pane, now_ms) {
            let told = self.of(pane).and_then(Report::state) == Some(AgentScreen::Asking);
            let by = if told { Source::Hooks } else { Source::Screen };
            return (Some(AgentScreen::Asking), by);
        }
        let Some(report) = self.of(pane) else {
            return (screen, Source::Screen);
        };
        let Some(told) = report.state() else {
            return (screen, Source::Screen);
        };
        let since = match self.screens.get(&pane) {
            Some((last, since)) if *last == seen => *since,
            _ => now_ms,
        };
        let newer = report.at_ms >= since;
        let hooks = (Some(told), Source::Hooks);
        match screen {
            None => hooks,
            Some(AgentScreen::Asking) => (screen, Source::Screen),
            Some(AgentScreen::Working) if self.ended_turns_tail(pane, report, now_ms) => hooks,
            Some(AgentScreen::Idle)
                if told == AgentScreen::Working && !self.idle_long(pane, now_ms) =>
            {
                hooks
            }
            _ if newer && told == AgentScreen::Asking => hooks,
            Some(AgentScreen::Draft) if !newer => (screen, Source::Screen),
            Some(AgentScreen::Busy) if told == AgentScreen::Working => (screen, Source::Screen),
            _ if newer && screen != Some(told) => hooks,
            _ => (screen, Source::Screen),
        }
    }

    /// Whether `pane`'s screen, working, shows the tail of the turn whose
    /// end `report` told: seen working since before the report came (the
    /// screen is looked at as each report comes), and not for long after
    /// ([`TURN_TAIL_MS`]). A new turn shows another working spell.
    fn ended_turns_tail(&self, pane: PaneRef, report: &Report, now_ms: u64) -> bool {
        matches!(report.event, HookEvent::TurnEnded { .. })
            && self
                .shown_since(pane, AgentScreen::Working)
                .is_some_and(|since| since <= report.arrived_ms)
            && now_ms < report.arrived_ms + TURN_TAIL_MS
    }

    /// Whether looks have shown `pane` idle for [`IDLE_OVER_TURN_MS`].
    fn idle_long(&self, pane: PaneRef, now_ms: u64) -> bool {
        self.shown_since(pane, AgentScreen::Idle)
            .is_some_and(|since| now_ms.saturating_sub(since) >= IDLE_OVER_TURN_MS)
    }

    /// Since when looks have shown `pane` in `state`, if they show it.
    fn shown_since(&self, pane: PaneRef, state: AgentScreen) -> Option<u64> {
        self.shown_since
            .get(&pane)
            .filter(|(shown, _)| *shown == Some(state))
            .map(|(_, since)| *since)
    }

    /// Whether a question `pane` showed or told stands: looks have not
    /// seen it gone for long (see [`Question::stands_after`]).
    fn question_stands(&self, pane: PaneRef, now_ms: u64) -> bool {
        self.questions.get(&pane).is_some_and(|q| {
            q.none_seen_since
                .is_none_or(|since| q.stands_after(since, now_ms))
        })
    }

    /// What `pane`'s hooks told last, and how long ago, for people.
    pub fn told(&self, pane: PaneRef, now_ms: u64) -> Option<String> {
        let report = self.of(pane)?;
        let ago = now_ms.saturating_sub(report.at_ms) as f64 / 1000.0;
        let mut told = format!("{} {ago:.1} s ago", report.event.name());
        if let Some(conversation) = &report.conversation {
            told.push_str(&format!(" (conversation {conversation})"));
        }
        Some(told)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use AgentScreen::*;

    fn ended() -> HookEvent {
        HookEvent::TurnEnded {
            last_message: None,
            prompt: None,
        }
    }

    #[test]
    fn an_idle_screen_wins_over_a_turn_told_under_way_once_it_has_stayed_idle() {
        let mut hooks = HookReports::default();
        let pane = PaneRef::terminal(4);
        let started = HookEvent::TurnStarted {
            prompt: Some("go".into()),
        };
        hooks.screen_seen(pane, (Some(Idle), 1), 1_000);
        hooks.note(pane, started, None, 2_000);
        hooks.screen_seen(pane, (Some(Working), 2), 2_500);
        // A person scrolls the view up to an idle page, and on.
        hooks.screen_seen(pane, (Some(Idle), 3), 3_000);
        assert_eq!(
            hooks.state(pane, (Some(Idle), 3), 3_100),
            (Some(Working), Source::Hooks)
        );
        hooks.screen_seen(pane, (Some(Idle), 4), 12_000);
        assert_eq!(
            hooks.state(pane, (Some(Idle), 4), 12_900),
            (Some(Working), Source::Hooks)
        );
        // Idle for long: a turn that ended untold (interrupted).
        assert_eq!(
            hooks.state(pane, (Some(Idle), 4), 13_000),
            (Some(Idle), Source::Screen)
        );
    }

    #[test]
    fn the_newer_source_tells_the_state_a_question_wins_and_a_draft_is_the_screens() {
        let mut hooks = HookReports::default();
        let pane = PaneRef::terminal(3);
        hooks.screen_seen(pane, (Some(Working), 1), 1_000);
        assert_eq!(
            hooks.state(pane, (Some(Working), 1), 1_500),
            (Some(Working), Source::Screen)
        );
        hooks.note(pane, ended(), None, 2_000);
        // A screen that still shows the turn (scrolled up, or not drawn yet).
        assert_eq!(
            hooks.state(pane, (Some(Working), 1), 2_100),
            (Some(Idle), Source::Hooks)
        );
        assert_eq!(
            hooks.state(pane, (None, 1), 2_100),
            (Some(Idle), Source::Hooks)
        );
        // A new turn the hooks did not tell (Codex's notify tells only ends).
        hooks.screen_seen(pane, (Some(Idle), 1), 2_200);
        hooks.screen_seen(pane, (Some(Working), 1), 9_000);
        assert_eq!(
            hooks.state(pane, (Some(Working), 1), 9_100),
            (Some(Working), Source::Screen)
        );
        // A draft the screen showed before the turn's end told, and since
        // unchanged, is a view of the past (scrolled up); one drawn after
        // it is a person's.
        hooks.screen_seen(pane, (Some(Draft), 1), 9_200);
        hooks.note(pane, ended(), None, 9_300);
        assert_eq!(
            hooks.state(pane, (Some(Draft), 1), 9_400),
            (Some(Idle), Source::Hooks)
        );
        hooks.screen_seen(pane, (Some(Draft), 2), 9_450);
        assert_eq!(
            hooks.state(pane, (Some(Draft), 2), 9_460),
            (Some(Draft), Source::Screen)
        );
        // A question told while the screen shows none, the program busy
        // meanwhile; answered, a tool ran.
        hooks.note(pane, HookEvent::Asking { what: None }, None, 9_500);
        hooks.note(pane, HookEvent::TurnStarted { prompt: None }, None, 9_550);
        assert_eq!(
            hooks.state(pane, (Some(Draft), 2), 9_600),
            (Some(Asking), Source::Hooks)
        );
        hooks.note(pane, HookEvent::ToolDone, None, 9_700);
        assert_eq!(
            hooks.state(pane, (Some(Draft), 2), 9_800),
            (Some(Working), Source::Hooks)
        );
        // A question shown wins, over a turn's start or end told after it
        // too (a report late under load).
        hooks.screen_seen(pane, (Some(Asking), 1), 10_000);
        assert_eq!(
            hooks.state(pane, (Some(Asking), 1), 10_100),
            (Some(Asking), Source::Screen)
        );
        hooks.note(pane, HookEvent::TurnStarted { prompt: None }, None, 10_150);
        hooks.note(pane, ended(), None, 10_200);
        assert_eq!(
            hooks.state(pane, (Some(Asking), 1), 10_300),
            (Some(Asking), Source::Screen)
        );
        // The same state, a screen that changed after the hook (a reply
        // drawn, the turn's end not told): the screen's, once it has
        // stayed idle for a while (see the test above).
        hooks.screen_seen(pane, (Some(Idle), 1), 10_900);
        hooks.note(pane, HookEvent::TurnStarted { prompt: None }, None, 11_000);
        assert_eq!(
            hooks.state(pane, (Some(Idle), 1), 11_200),
            (Some(Working), Source::Hooks)
        );
        hooks.screen_seen(pane, (Some(Idle), 2), 11_300);
        assert_eq!(
            hooks.state(pane, (Some(Idle), 2), 20_900),
            (Some(Idle), Source::Screen)
        );
        assert_eq!(
            hooks.state(PaneRef::terminal(4), (Some(Busy), 1), 1),
            (Some(Busy), Source::Screen)
        );
    }

    #[test]
    fn a_question_stands_until_looks_have_seen_it_gone_a_while() {
        let mut hooks = HookReports::default();
        let pane = PaneRef::terminal(3);
        hooks.screen_seen(pane, (Some(Working), 1), 1_000);
        hooks.note(pane, HookEvent::Asking { what: None }, None, 1_100);
        // The working spell from before tells nothing of it.
        assert_eq!(
            hooks.state(pane, (Some(Working), 4), 1_150),
            (Some(Asking), Source::Hooks)
        );
        hooks.screen_seen(pane, (Some(Asking), 1), 1_200);
        // A frame without the dialog, caught mid-redraw.
        assert_eq!(
            hooks.state(pane, (Some(Idle), 5), 1_250),
            (Some(Asking), Source::Hooks)
        );
        // Answered by a person (no hook tells it): its tool runs.
        hooks.screen_seen(pane, (Some(Working), 2), 1_300);
        assert_eq!(
            hooks.state(pane, (Some(Working), 2), 1_500),
            (Some(Asking), Source::Hooks)
        );
        hooks.screen_seen(pane, (Some(Working), 3), 1_700);
        assert_eq!(
            hooks.state(pane, (Some(Working), 3), 1_750),
            (Some(Working), Source::Screen)
        );
        // A question only its screen showed stands as long, and a hook
        // that comes late (its turn's start, older than the dialog seen)
        // does not end it.
        let shown = PaneRef::terminal(5);
        hooks.screen_seen(shown, (Some(Asking), 1), 1_000);
        hooks.note(shown, HookEvent::TurnStarted { prompt: None }, None, 900);
        assert_eq!(
            hooks.state(shown, (Some(Working), 1), 1_050),
            (Some(Asking), Source::Screen)
        );
        hooks.screen_seen(shown, (Some(Idle), 1), 1_100);
        assert_eq!(
            hooks.state(shown, (Some(Idle), 1), 1_200),
            (Some(Asking), Source::Screen)
        );
        assert_eq!(
            hooks.state(shown, (Some(Draft), 2), 1_500),
            (Some(Draft), Source::Screen)
        );
        // A question told and not drawn yet (a loaded machine) stands while
        // the working sign changes, look after look, for seconds.
        let told = PaneRef::terminal(7);
        hooks.note(told, HookEvent::Asking { what: None }, None, 1_000);
        for (at, frame) in (1_100..10_900).step_by(100).zip(10..) {
            hooks.screen_seen(told, (Some(Working), frame), at);
            assert_eq!(
                hooks.state(told, (Some(Working), frame), at),
                (Some(Asking), Source::Hooks),
                "{at}"
            );
        }
        // One never drawn (the person interrupted first) is gone at last.
        hooks.screen_seen(told, (Some(Idle), 1), 11_200);
        assert_eq!(
            hooks.state(told, (Some(Idle), 1), 11_300),
            (Some(Idle), Source::Screen)
        );
        // A hook of a dialog drawn before it came, answered since: the
        // dialog's question, gone as a shown one goes.
        hooks.screen_seen(told, (Some(Asking), 2), 12_000);
        hooks.screen_seen(told, (Some(Working), 3), 12_100);
        hooks.note(told, HookEvent::Asking { what: None }, None, 11_900);
        hooks.screen_seen(told, (Some(Working), 4), 12_600);
        assert_eq!(
            hooks.state(told, (Some(Working), 4), 12_650),
            (Some(Working), Source::Screen)
        );
    }

    #[test]
    fn a_turn_followed_from_its_start_tells_how_many_tool_events_it_had() {
        let mut hooks = HookReports::default();
        let pane = PaneRef::terminal(1);
        let start = |prompt: &str| HookEvent::TurnStarted {
            prompt: Some(prompt.into()),
        };
        let calls = |hooks: &HookReports| {
            hooks
                .of(pane)
                .unwrap()
                .turn_ended
                .clone()
                .unwrap()
                .tool_calls
        };
        let told = |hooks: &mut HookReports, event, at_ms, tells_tools| {
            hooks.note_arrived(pane, event, None, (at_ms, at_ms), tells_tools);
        };
        told(&mut hooks, start("one"), 1_000, true);
        told(&mut hooks, ended(), 1_100, true);
        assert_eq!(calls(&hooks), Some(0), "none called");
        told(&mut hooks, start("two"), 2_000, true);
        told(&mut hooks, HookEvent::ToolCalled, 2_100, true);
        // A further start in the turn (after a tool, with no prompt), and
        // a tool's end that reaches the plugin after a newer event.
        told(
            &mut hooks,
            HookEvent::TurnStarted { prompt: None },
            2_300,
            true,
        );
        told(&mut hooks, HookEvent::ToolDone, 2_200, true);
        told(&mut hooks, ended(), 2_400, true);
        assert_eq!(calls(&hooks), Some(2));
        // Hooks that do not tell each tool call count nothing.
        told(&mut hooks, start("three"), 3_000, false);
        told(&mut hooks, ended(), 3_100, false);
        assert_eq!(calls(&hooks), None);
        // Nor does a turn whose start was not heard.
        told(&mut hooks, HookEvent::ToolDone, 4_000, true);
        told(&mut hooks, ended(), 4_100, true);
        assert_eq!(calls(&hooks), None);
    }

    #[test]
    fn a_turns_end_told_beats_the_working_sign_its_program_still_shows() {
        let mut hooks = HookReports::default();
        let pane = PaneRef::terminal(3);
        hooks.screen_seen(pane, (Some(Working), 1), 1_000);
        // Seen as the report comes, working since.
        hooks.screen_seen(pane, (Some(Working), 5), 1_520);
        hooks.note_arrived(pane, ended(), None, (1_500, 1_520), false);
        // Its Stop hook running: a spinner that changes look after look.
        hooks.screen_seen(pane, (Some(Working), 2), 1_600);
        assert_eq!(
            hooks.state(pane, (Some(Working), 2), 1_650),
            (Some(Idle), Source::Hooks)
        );
        // Working on, long after: the turn went on.
        hooks.screen_seen(pane, (Some(Working), 3), 4_600);
        assert_eq!(
            hooks.state(pane, (Some(Working), 3), 4_600),
            (Some(Working), Source::Screen)
        );
        // A new turn, its start not told yet: another working spell.
        hooks.screen_seen(pane, (Some(Idle), 3), 5_000);
        hooks.note(pane, ended(), None, 5_100);
        hooks.screen_seen(pane, (Some(Working), 4), 5_200);
        assert_eq!(
            hooks.state(pane, (Some(Working), 4), 5_250),
            (Some(Working), Source::Screen)
        );
    }

    #[test]
    fn the_last_report_is_kept_with_the_conversation_named_before_and_bounded() {
        let mut reports = HookReports::default();
        let pane = PaneRef::terminal(3);
        let started = HookEvent::SessionStarted { record: None };
        reports.note(pane, started, Some("s1".into()), 1_000);
        reports.note(
            pane,
            HookEvent::TurnStarted {
                prompt: Some("p".into()),
            },
            None,
            2_000,
        );
        let again = HookEvent::TurnStarted {
            prompt: Some(String::new()),
        };
        reports.note(pane, again, None, 2_000);
        let ended = HookEvent::TurnEnded {
            last_message: None,
            prompt: None,
        };
        reports.note(pane, ended, None, 2_500);
        let turn = reports.of(pane).unwrap().turn_ended.clone().unwrap();
        assert_eq!((turn.at_ms, turn.prompt.as_deref()), (2_500, Some("p")));
        // A turn's start that ran before the end kept: told out of order.
        reports.note(pane, HookEvent::TurnStarted { prompt: None }, None, 2_000);
        assert_eq!(
            reports.told(pane, 3_500).as_deref(),
            Some("turn_ended 1.0 s ago (conversation s1)")
        );
        reports.note(pane, HookEvent::TurnStarted { prompt: None }, None, 3_000);
        assert_eq!(
            reports.told(pane, 3_500).as_deref(),
            Some("turn_started 0.5 s ago (conversation s1)")
        );
        let other = PaneRef::terminal(9);
        reports.note(other, HookEvent::ToolDone, None, 3_000);
        reports.note(
            other,
            HookEvent::SessionStarted { record: None },
            Some("s2".into()),
            2_900,
        );
        assert_eq!(
            reports.told(other, 3_500).as_deref(),
            Some("tool_done 0.5 s ago (conversation s2)")
        );
        for id in 0..(MOST_REPORTS as u32 + 10) {
            reports.note(
                PaneRef::terminal(100 + id),
                HookEvent::TurnStarted { prompt: None },
                None,
                5_000 + u64::from(id),
            );
        }
        assert_eq!(reports.reports.len(), MOST_REPORTS);
        assert!(reports.of(pane).is_none(), "the oldest went first");
        reports.keep_only(|p| p == PaneRef::terminal(100 + MOST_REPORTS as u32));
        assert_eq!(reports.reports.len(), 1);
    }
}
