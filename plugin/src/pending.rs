//! Replies that wait for the session to show their effect: a new tab with
//! its panes, a closed pane gone, a rename applied, a fresh client list.
//! Zellij applies most changes asynchronously, so the plugin answers once the
//! next `PaneUpdate`/`TabUpdate` shows the state it left behind, or at the
//! deadline with the state as it is then.

use std::time::Instant;

use serde_json::Value;
use zellij_mcp_protocol::{ErrorBody, PaneRef};
use zellij_tile::prelude::{PaneInfo, TabInfo};

use crate::host::Host;
use crate::session::SessionView;

/// Zellij's answer now, for a pane or tab the events may not have shown yet.
pub trait Live {
    fn pane(&self, pane: PaneRef) -> Option<PaneInfo>;
    fn tab(&self, tab_id: usize) -> Option<TabInfo>;
}

impl<H: Host> Live for H {
    fn pane(&self, pane: PaneRef) -> Option<PaneInfo> {
        self.pane_info(pane)
    }

    fn tab(&self, tab_id: usize) -> Option<TabInfo> {
        self.tab_info(tab_id)
    }
}

/// Decides the reply from the view and live lookups; `overdue` is set once
/// the deadline passed, and then it must decide.
pub type Settle = Box<dyn FnMut(&SessionView, &dyn Live, bool) -> Option<Result<Value, ErrorBody>>>;

pub struct Pending {
    pub pipe_id: String,
    pub request_id: String,
    pub deadline: Instant,
    pub settle: Settle,
}

/// A reply that is ready.
pub struct Settled {
    pub pipe_id: String,
    pub request_id: String,
    pub outcome: Result<Value, ErrorBody>,
}

#[derive(Default)]
pub struct PendingReplies {
    items: Vec<Pending>,
}

impl PendingReplies {
    pub fn push(&mut self, pending: Pending) {
        self.items.push(pending);
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The earliest deadline, for the timer.
    pub fn next_deadline(&self) -> Option<Instant> {
        self.items.iter().map(|p| p.deadline).min()
    }

    /// Settles what the view (or the clock) now allows.
    pub fn settle(&mut self, view: &SessionView, live: &dyn Live, now: Instant) -> Vec<Settled> {
        let mut done = Vec::new();
        self.items
            .retain_mut(|p| match (p.settle)(view, live, now >= p.deadline) {
                Some(outcome) => {
                    done.push(Settled {
                        pipe_id: std::mem::take(&mut p.pipe_id),
                        request_id: std::mem::take(&mut p.request_id),
                        outcome,
                    });
                    false
                }
                None => true,
            });
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    struct Nothing;

    impl Live for Nothing {
        fn pane(&self, _: PaneRef) -> Option<PaneInfo> {
            None
        }
        fn tab(&self, _: usize) -> Option<TabInfo> {
            None
        }
    }

    #[test]
    fn settles_when_the_view_allows_or_at_the_deadline() {
        let t0 = Instant::now();
        let mut replies = PendingReplies::default();
        let pending = |id: &str, ready_when_tabs: usize| Pending {
            pipe_id: format!("pipe-{id}"),
            request_id: id.to_owned(),
            deadline: t0 + Duration::from_secs(1),
            settle: Box::new(move |view: &SessionView, _: &dyn Live, overdue: bool| {
                (view.tabs.len() >= ready_when_tabs || overdue)
                    .then(|| Ok(Value::from(view.tabs.len())))
            }),
        };
        replies.push(pending("a", 0));
        replies.push(pending("b", 5));
        let view = SessionView::default();
        let done = replies.settle(&view, &Nothing, t0);
        assert_eq!(done.len(), 1);
        assert_eq!(done[0].request_id, "a");
        assert!(replies.settle(&view, &Nothing, t0).is_empty());
        let late = replies.settle(&view, &Nothing, t0 + Duration::from_secs(2));
        assert_eq!(late[0].request_id, "b");
        assert!(replies.is_empty());
    }
}
