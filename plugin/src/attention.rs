//! Which agents need someone: the plugin looks at each agent's screen once
//! a heartbeat and notes when one starts asking (a dialog, question or
//! menu), so the event log tells whoever watches it. Plain state: what each
//! agent's screen last showed.

use std::collections::BTreeMap;

use zellij_mcp_protocol::agent_screen::AgentScreen;
use zellij_mcp_protocol::PaneRef;

#[derive(Debug, Default)]
pub struct Attention {
    /// What each agent's screen showed at the last look.
    last: BTreeMap<PaneRef, Option<AgentScreen>>,
}

impl Attention {
    /// Notes what `pane`'s screen shows now; whether it just started asking.
    pub fn seen(&mut self, pane: PaneRef, now: Option<AgentScreen>) -> bool {
        let before = self.last.insert(pane, now).flatten();
        now == Some(AgentScreen::Asking) && before != Some(AgentScreen::Asking)
    }

    /// Forgets the panes no longer looked at.
    pub fn keep_only(&mut self, panes: &[PaneRef]) {
        self.last.retain(|pane, _| panes.contains(pane));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starting_to_ask_is_noted_once_per_dialog() {
        let mut attention = Attention::default();
        let pane = PaneRef::terminal(1);
        assert!(!attention.seen(pane, Some(AgentScreen::Working)));
        assert!(attention.seen(pane, Some(AgentScreen::Asking)));
        assert!(
            !attention.seen(pane, Some(AgentScreen::Asking)),
            "still the same dialog"
        );
        assert!(!attention.seen(pane, Some(AgentScreen::Idle)));
        assert!(
            attention.seen(pane, Some(AgentScreen::Asking)),
            "a new dialog"
        );
        attention.keep_only(&[]);
        assert!(attention.last.is_empty());
    }
}
