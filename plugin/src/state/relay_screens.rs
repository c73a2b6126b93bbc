//! What each relayed agent's relay told of its live screen: the state the
//! program last drew, read by the same description as the pane's view.
//! Zellij's view of a pane can be stale: a person scrolled it up, or Zellij
//! holds its output until the view is back, and the plugin is told nothing
//! of either. A view that has shown another state than the relay's live
//! screen is taken as stale, and the relay's word stands for the screen's:
//! at once where the relay read its screen after the view showed that
//! state and the program's hooks tell the same (two words of the program's
//! own against Zellij's drawing), after [`STALE_MS`] where they do not
//! (a word read mid-frame is followed by the next within tens of ms), after
//! [`STALE_OLD_WORD_MS`] where it read it before (its next word may be on
//! its way). Plain state, one word per pane, bounded,
//! forgotten with the pane.

use std::collections::BTreeMap;

use zellij_mcp_protocol::agent_programs::AgentScreen;
use zellij_mcp_protocol::PaneRef;

/// How long a view must have shown another state than a word its relay
/// read since, where the program's hooks do not tell the same: the relay
/// looks 30 ms after the program began to write, and may read a frame half
/// drawn; its next look follows as the program goes on. Under the 300 ms
/// after which the relay tells its state again once output went quiet, so
/// that word stands as it comes.
pub const STALE_MS: u64 = 200;
/// The same, for a relay's word read before the view showed its state: the
/// view may be ahead, the relay's word of the change on its way (a word is
/// a process start; the like took up to 1.3 s on a loaded machine). Past
/// this, the view changed while the program wrote nothing (a person
/// scrolled it).
pub const STALE_OLD_WORD_MS: u64 = 5_000;
/// Panes whose word is kept at most; the oldest goes first.
const MOST_PANES: usize = 1024;

/// One relay's last word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Word {
    /// The state its live screen shows, where its description read one.
    state: Option<AgentScreen>,
    /// When the relay read it, and when it came (Unix ms).
    read_ms: u64,
    at_ms: u64,
    /// The other state looks have seen the view show, and since when.
    differs: Option<Difference>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Difference {
    view: Option<AgentScreen>,
    since_ms: u64,
}

#[derive(Debug, Default)]
pub struct RelayScreens {
    words: BTreeMap<PaneRef, Word>,
}

impl RelayScreens {
    /// Notes the state `pane`'s relay told its live screen showed at
    /// `read_ms`, come at `at_ms`.
    pub fn told(
        &mut self,
        pane: PaneRef,
        state: Option<AgentScreen>,
        (read_ms, at_ms): (u64, u64),
    ) {
        if !self.words.contains_key(&pane) && self.words.len() >= MOST_PANES {
            let oldest = self
                .words
                .iter()
                .min_by_key(|(_, w)| w.at_ms)
                .map(|(p, _)| *p);
            oldest.map(|p| self.words.remove(&p));
        }
        let differs = self.words.get(&pane).and_then(|w| w.differs);
        let word = Word {
            state,
            read_ms,
            at_ms,
            differs,
        };
        self.words.insert(pane, word);
    }

    /// The state `pane`'s relay told, where its view, read as `view`, is
    /// stale: looks have seen it show another state since before the relay
    /// read it, and its hooks tell that state too (`hooks`); or for
    /// [`STALE_MS`], or [`STALE_OLD_WORD_MS`] for a word read before.
    pub fn over_stale_view(
        &mut self,
        pane: PaneRef,
        (view, hooks): (Option<AgentScreen>, Option<AgentScreen>),
        now_ms: u64,
    ) -> Option<AgentScreen> {
        let word = self.words.get_mut(&pane)?;
        if word.state.is_some_and(|live| Some(live) != view) {
            if word.differs.is_none_or(|d| d.view != view) {
                let since_ms = now_ms;
                word.differs = Some(Difference { view, since_ms });
            }
        } else {
            word.differs = None;
        }
        self.stale(pane, (view, hooks), now_ms)
    }

    /// The same, as the looks so far found it (a read between looks). A
    /// question the view shows always stands: it is the last look before
    /// typing, and a look may not have come since the view was brought
    /// back and the dialog drawn, before the relay's word of it.
    pub fn stale(
        &self,
        pane: PaneRef,
        (view, hooks): (Option<AgentScreen>, Option<AgentScreen>),
        now_ms: u64,
    ) -> Option<AgentScreen> {
        let word = self.words.get(&pane)?;
        let since = word.differs?.since_ms;
        let after = match word.read_ms >= since {
            true if hooks.is_some() && word.state == hooks => 0,
            true => STALE_MS,
            false => STALE_OLD_WORD_MS,
        };
        let stale = now_ms.saturating_sub(since) >= after && view != Some(AgentScreen::Asking);
        word.state.filter(|live| stale && Some(*live) != view)
    }

    /// What `pane`'s relay told last, and how long ago, for people.
    pub fn said(&self, pane: PaneRef, now_ms: u64) -> Option<String> {
        let word = self.words.get(&pane)?;
        let ago = now_ms.saturating_sub(word.at_ms) as f64 / 1000.0;
        let state = word
            .state
            .map_or("no state".to_owned(), |s| format!("{s:?}").to_lowercase());
        let differs = match word.differs.map(|d| d.since_ms) {
            Some(since) => {
                let for_s = now_ms.saturating_sub(since) as f64 / 1000.0;
                format!("; the view has shown another for {for_s:.1} s")
            }
            None => String::new(),
        };
        Some(format!("{state} {ago:.1} s ago{differs}"))
    }

    /// Forgets the panes that are gone.
    pub fn keep_only(&mut self, live: impl Fn(PaneRef) -> bool) {
        self.words.retain(|pane, _| live(*pane));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use AgentScreen::*;

    #[test]
    fn a_view_that_shows_another_state_than_the_relay_for_a_while_is_stale() {
        let mut relays = RelayScreens::default();
        let pane = PaneRef::terminal(2);
        // Looks with no hooks told.
        let look =
            |relays: &mut RelayScreens, view, at| relays.over_stale_view(pane, (view, None), at);
        // No word from a relay: the view stands.
        assert_eq!(look(&mut relays, Some(Draft), 0), None);
        relays.told(pane, Some(Working), (990, 1_000));
        assert_eq!(look(&mut relays, Some(Working), 1_000), None);
        // The program ended its turn: the view shows it first, the relay's
        // word follows.
        assert_eq!(look(&mut relays, Some(Idle), 2_000), None);
        relays.told(pane, Some(Idle), (2_010, 2_050));
        assert_eq!(look(&mut relays, Some(Idle), 2_100), None);
        // A person scrolls the view up to a page that reads as a draft. The
        // relay read its word before: the view may be ahead of it.
        assert_eq!(look(&mut relays, Some(Draft), 3_000), None);
        assert_eq!(look(&mut relays, Some(Draft), 7_999), None);
        assert_eq!(look(&mut relays, Some(Draft), 8_000), Some(Idle));
        // The program goes on under the scrolled view: a word read since
        // stands at once.
        relays.told(pane, Some(Working), (8_500, 8_600));
        assert_eq!(look(&mut relays, Some(Draft), 8_600), Some(Working));
        relays.told(pane, Some(Idle), (9_000, 9_100));
        assert_eq!(look(&mut relays, Some(Draft), 9_100), Some(Idle));
        // The view is back.
        assert_eq!(look(&mut relays, Some(Idle), 10_000), None);
        // A turn starts: the view shows it first, and the relay's word of
        // it comes late. Its idle, read before, never stands meanwhile.
        assert_eq!(look(&mut relays, Some(Working), 10_100), None);
        assert_eq!(look(&mut relays, Some(Working), 12_000), None);
        relays.told(pane, Some(Working), (10_050, 12_100));
        assert_eq!(look(&mut relays, Some(Working), 12_100), None);
        // A view that reads another state than a word read after it showed
        // it is stale STALE_MS after it showed it; at once where the hooks
        // tell the relay's state too.
        relays.told(pane, Some(Idle), (13_000, 13_050));
        assert_eq!(look(&mut relays, Some(Draft), 14_000), None);
        relays.told(pane, Some(Working), (14_100, 14_150));
        assert_eq!(look(&mut relays, Some(Draft), 14_150), None);
        let hooks_idle = (Some(Draft), Some(Idle));
        assert_eq!(relays.over_stale_view(pane, hooks_idle, 14_150), None);
        let hooks_working = (Some(Draft), Some(Working));
        assert_eq!(relays.stale(pane, hooks_working, 14_150), Some(Working));
        assert_eq!(look(&mut relays, Some(Draft), 14_199), None);
        assert_eq!(look(&mut relays, Some(Draft), 14_200), Some(Working));
        // A word read before the view showed its state: the view may be
        // ahead of it, whatever the hooks tell.
        let idle_working = (Some(Idle), Some(Working));
        assert_eq!(relays.over_stale_view(pane, idle_working, 14_400), None);
        // A question the view shows stands over the relay's old word.
        relays.told(pane, Some(Idle), (15_100, 15_200));
        assert_eq!(look(&mut relays, None, 15_300), None);
        assert_eq!(look(&mut relays, None, 20_300), Some(Idle));
        assert_eq!(relays.stale(pane, (Some(Asking), Some(Idle)), 20_400), None);
        assert_eq!(look(&mut relays, Some(Asking), 20_500), None);
        // A relay whose screen tells no state leaves the view to tell it.
        relays.told(pane, None, (21_000, 21_000));
        assert_eq!(look(&mut relays, Some(Draft), 23_000), None);
        assert!(relays
            .said(pane, 23_000)
            .unwrap()
            .starts_with("no state 2.0 s ago"));
        relays.keep_only(|_| false);
        assert_eq!(relays.said(pane, 23_000), None);
    }

    #[test]
    fn words_kept_are_bounded() {
        let mut relays = RelayScreens::default();
        for id in 0..MOST_PANES as u32 + 10 {
            let at = u64::from(id);
            relays.told(PaneRef::terminal(id), Some(Idle), (at, at));
        }
        assert_eq!(relays.words.len(), MOST_PANES);
        assert!(relays.said(PaneRef::terminal(0), 0).is_none());
    }
}
