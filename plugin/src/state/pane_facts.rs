//! Each terminal pane's working directory and running command, kept from
//! Zellij's `CwdChanged` and `CommandChanged` events. Zellij checks the
//! panes that printed something about once a second and tells every plugin
//! what changed, so a pane list asks Zellij nothing for a pane it has facts
//! for: asking costs two process-table lookups of about 0.7 ms each, which
//! made a list of 100 panes take a quarter of a second. A pane is asked
//! about once, when it is first listed, and again after a write or signal to
//! it (its program may have changed before Zellij's next check).

use std::collections::HashMap;

use zellij_mcp_protocol::PaneRef;

use crate::host::Host;

/// What Zellij said of a terminal pane's process.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    pub cwd: Option<String>,
    pub running: Option<Vec<String>>,
}

/// The facts of the panes listed so far, and their processes' pids (which
/// never change: asked once per pane); no more entries than live panes (see
/// [`PaneFacts::keep_only`]).
#[derive(Debug, Default)]
pub struct PaneFacts {
    known: HashMap<PaneRef, Facts>,
    pids: HashMap<PaneRef, u32>,
}

impl PaneFacts {
    /// The pane's facts: as the events last told them, else what `ask`
    /// answers now.
    pub fn get(&mut self, pane: PaneRef, ask: impl FnOnce() -> Facts) -> &Facts {
        self.known.entry(pane).or_insert_with(ask)
    }

    /// The pane's facts, asked of Zellij the first time.
    pub fn of(&mut self, host: &impl Host, pane: PaneRef) -> &Facts {
        self.get(pane, || Facts {
            cwd: host.cwd(pane),
            running: host.running_command(pane),
        })
    }

    /// The pane's facts, if known.
    pub fn known(&self, pane: PaneRef) -> Option<&Facts> {
        self.known.get(&pane)
    }

    /// The pid of the pane's own process: known, else what `ask` answers;
    /// a pane Zellij has no pid for yet (its process is still starting) is
    /// asked again next time.
    pub fn pid(&mut self, pane: PaneRef, ask: impl FnOnce() -> Option<u32>) -> Option<u32> {
        if let Some(pid) = self.pids.get(&pane) {
            return Some(*pid);
        }
        let pid = ask()?;
        self.pids.insert(pane, pid);
        Some(pid)
    }

    /// `CwdChanged`; only for panes already known (the others are asked
    /// when listed).
    pub fn cwd_changed(&mut self, pane: PaneRef, cwd: String) {
        if let Some(facts) = self.known.get_mut(&pane) {
            facts.cwd = Some(cwd);
        }
    }

    /// `CommandChanged`: the foreground command, else the pane's own.
    pub fn command_changed(&mut self, pane: PaneRef, argv: Vec<String>) {
        if let Some(facts) = self.known.get_mut(&pane) {
            facts.running = Some(argv).filter(|argv| !argv.is_empty());
        }
    }

    /// Asks `ask` the facts of the panes not known yet.
    pub fn learn(&mut self, panes: impl Iterator<Item = PaneRef>, ask: impl Fn(PaneRef) -> Facts) {
        for pane in panes {
            self.known.entry(pane).or_insert_with(|| ask(pane));
        }
    }

    /// The panes whose running command, as last told, passes `test`.
    pub fn running(&self, test: impl Fn(&[String]) -> bool) -> Vec<PaneRef> {
        let runs = |facts: &Facts| facts.running.as_deref().is_some_and(&test);
        self.known
            .iter()
            .filter(|(_, facts)| runs(facts))
            .map(|(pane, _)| *pane)
            .collect()
    }

    /// Forgets the pane's facts: its program may have changed.
    pub fn forget(&mut self, pane: PaneRef) {
        self.known.remove(&pane);
    }

    /// Forgets the panes that are gone.
    pub fn keep_only(&mut self, live: impl Fn(PaneRef) -> bool) {
        self.known.retain(|pane, _| live(*pane));
        self.pids.retain(|pane, _| live(*pane));
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.known.len()
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
    fn asks_once_per_pane_then_follows_the_events() {
        let mut known = PaneFacts::default();
        let (a, b) = (PaneRef::terminal(1), PaneRef::terminal(2));
        let mut asked = 0;
        let mut ask = |cwd: &str| {
            asked += 1;
            facts(cwd)
        };
        assert_eq!(known.get(a, || ask("/one")), &facts("/one"));
        assert_eq!(known.get(a, || ask("/again")), &facts("/one"));
        known.cwd_changed(a, "/moved".into());
        known.command_changed(a, vec!["vim".into(), "x".into()]);
        let now = known.get(a, || ask("/again")).clone();
        assert_eq!(now.cwd.as_deref(), Some("/moved"));
        assert_eq!(now.running, Some(vec!["vim".to_owned(), "x".to_owned()]));
        // Events for a pane never listed are not kept: it is asked when listed.
        known.cwd_changed(b, "/early".into());
        assert_eq!(known.get(b, || ask("/two")), &facts("/two"));
        assert_eq!(asked, 2);
    }

    #[test]
    fn a_pid_is_kept_once_known_and_asked_again_until_then() {
        let mut known = PaneFacts::default();
        let pane = PaneRef::terminal(1);
        assert_eq!(known.pid(pane, || None), None, "still starting");
        assert_eq!(known.pid(pane, || Some(42)), Some(42), "asked again");
        assert_eq!(known.pid(pane, || Some(7)), Some(42), "kept");
    }

    #[test]
    fn forgotten_and_closed_panes_are_asked_again_or_dropped() {
        let mut known = PaneFacts::default();
        let (a, b) = (PaneRef::terminal(3), PaneRef::terminal(4));
        known.get(a, || facts("/before"));
        known.get(b, || facts("/b"));
        known.forget(a);
        assert_eq!(known.get(a, || facts("/after")), &facts("/after"));
        known.keep_only(|pane| pane == a);
        assert_eq!(known.len(), 1);
    }
}
