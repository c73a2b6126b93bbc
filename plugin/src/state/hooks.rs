//! What each agent program's hooks told last (`zellij-mcp hook`, run by
//! the program): plain state, one report per pane, bounded, forgotten with
//! the pane.

use std::collections::BTreeMap;

use zellij_mcp_protocol::hooks::HookEvent;
use zellij_mcp_protocol::PaneRef;

/// Panes whose reports are kept at most; the oldest report goes first.
const MOST_REPORTS: usize = 1024;

/// One pane's last report.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub event: HookEvent,
    /// The conversation its program named last.
    pub conversation: Option<String>,
    /// When it came (Unix ms).
    pub at_ms: u64,
}

#[derive(Debug, Default)]
pub struct HookReports {
    reports: BTreeMap<PaneRef, Report>,
}

impl HookReports {
    /// Notes what `pane`'s hook told; a conversation named before stays
    /// known when this event names none.
    pub fn note(
        &mut self,
        pane: PaneRef,
        event: HookEvent,
        conversation: Option<String>,
        at_ms: u64,
    ) {
        let earlier = self.reports.remove(&pane);
        if self.reports.len() >= MOST_REPORTS {
            let oldest = self
                .reports
                .iter()
                .min_by_key(|(_, r)| r.at_ms)
                .map(|(p, _)| *p);
            oldest.map(|p| self.reports.remove(&p));
        }
        let conversation = conversation.or_else(|| earlier.and_then(|r| r.conversation));
        let report = Report {
            event,
            conversation,
            at_ms,
        };
        self.reports.insert(pane, report);
    }

    pub fn of(&self, pane: PaneRef) -> Option<&Report> {
        self.reports.get(&pane)
    }

    /// Forgets the panes that are gone.
    pub fn keep_only(&mut self, live: impl Fn(PaneRef) -> bool) {
        self.reports.retain(|pane, _| live(*pane));
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

    #[test]
    fn the_last_report_is_kept_with_the_conversation_named_before_and_bounded() {
        let mut reports = HookReports::default();
        let pane = PaneRef::terminal(3);
        let started = HookEvent::SessionStarted { record: None };
        reports.note(pane, started, Some("s1".into()), 1_000);
        reports.note(pane, HookEvent::TurnStarted, None, 2_000);
        assert_eq!(
            reports.told(pane, 3_500).as_deref(),
            Some("turn_started 1.5 s ago (conversation s1)")
        );
        for id in 0..(MOST_REPORTS as u32 + 10) {
            reports.note(
                PaneRef::terminal(100 + id),
                HookEvent::TurnStarted,
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
