//! Each terminal pane's working directory and running command, kept for a
//! moment. Zellij looks both up in the process table, two queries per pane
//! that cost about 0.7 ms each, so a pane list of a busy session asks for
//! each pane at most once per [`FRESH_FOR`], however many callers list.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use zellij_mcp_protocol::PaneRef;

/// How long an answer serves later pane lists.
pub const FRESH_FOR: Duration = Duration::from_millis(200);

/// What Zellij said of a terminal pane's process.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    pub cwd: Option<String>,
    pub running: Option<Vec<String>>,
}

/// Answers younger than [`FRESH_FOR`]; no more entries than panes asked
/// about within that time.
#[derive(Debug, Default)]
pub struct PaneFacts {
    known: HashMap<PaneRef, (Instant, Facts)>,
}

impl PaneFacts {
    /// The pane's facts: a fresh answer, else what `ask` answers now.
    pub fn get(&mut self, pane: PaneRef, now: Instant, ask: impl FnOnce() -> Facts) -> Facts {
        let fresh = |at: &Instant| now.saturating_duration_since(*at) < FRESH_FOR;
        self.known.retain(|_, (at, _)| fresh(at));
        let (_, facts) = self.known.entry(pane).or_insert_with(|| (now, ask()));
        facts.clone()
    }

    /// Forgets the pane's answer: its program may have changed.
    pub fn forget(&mut self, pane: PaneRef) {
        self.known.remove(&pane);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(cwd: &str) -> Facts {
        Facts {
            cwd: Some(cwd.into()),
            running: Some(vec!["sh".into()]),
        }
    }

    #[test]
    fn asks_once_per_pane_while_fresh_and_again_after() {
        let mut known = PaneFacts::default();
        let (a, b) = (PaneRef::terminal(1), PaneRef::terminal(2));
        let start = Instant::now();
        let mut asked = 0;
        let mut ask = |cwd: &str| {
            asked += 1;
            facts(cwd)
        };
        assert_eq!(known.get(a, start, || ask("/one")), facts("/one"));
        assert_eq!(known.get(b, start, || ask("/two")), facts("/two"));
        let soon = start + FRESH_FOR / 2;
        assert_eq!(known.get(a, soon, || ask("/moved")), facts("/one"));
        let later = start + FRESH_FOR;
        assert_eq!(known.get(a, later, || ask("/moved")), facts("/moved"));
        assert_eq!(asked, 3);
        // The stale answer for `b` went when `a` was asked again.
        assert_eq!(known.known.len(), 1);
    }

    #[test]
    fn a_forgotten_pane_is_asked_again() {
        let mut known = PaneFacts::default();
        let pane = PaneRef::terminal(3);
        let now = Instant::now();
        known.get(pane, now, || facts("/before"));
        known.forget(pane);
        assert_eq!(known.get(pane, now, || facts("/after")), facts("/after"));
    }
}
