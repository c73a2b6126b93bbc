//! Each terminal pane's working directory and running command, kept from
//! Zellij's `CwdChanged` and `CommandChanged` events. Zellij checks the
//! panes that printed something about once a second and tells every plugin
//! what changed, so a pane list asks Zellij nothing for a pane it has facts
//! for: asking costs two process-table lookups of about 0.7 ms each, which
//! made a list of 100 panes take a quarter of a second. A pane is asked
//! about once, when it is first listed, and again after a write or signal to
//! it (its program may have changed before Zellij's next check).
//!
//! Zellij tells a relayed pane's running command as the relay's own line
//! (it leads the pane's terminal); its relay tells the program in the
//! foreground of its own pty instead, and that is what such a pane runs.

use std::collections::HashMap;

use zellij_mcp_protocol::launcher;
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
    /// What relays told last of their panes' foreground programs.
    relayed: HashMap<PaneRef, Told>,
}

/// What a relay told, and when (Unix ms).
#[derive(Debug)]
struct Told {
    facts: Facts,
    /// The file the pane is recorded to.
    recording: Option<String>,
    at_ms: u64,
}

/// How long what a relay told is kept for a pane not listed (yet).
const TOLD_KEPT_MS: u64 = 5_000;

impl PaneFacts {
    /// The pane's facts: as the events last told them, else what `ask`
    /// answers now.
    pub fn get(&mut self, pane: PaneRef, ask: impl FnOnce() -> Facts) -> &Facts {
        if !self.known.contains_key(&pane) {
            let facts = self.through_relay(pane, ask());
            self.known.insert(pane, facts);
        }
        &self.known[&pane]
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
        let told = self.relayed.get(&pane).map(|told| &told.facts);
        if let Some(facts) = self.known.get_mut(&pane) {
            // While the pane runs what its relay told, Zellij's is the relay's.
            let relayed =
                told.is_some_and(|told| told.cwd.is_some() && told.running == facts.running);
            if !relayed {
                facts.cwd = Some(cwd);
            }
        }
    }

    /// `CommandChanged`: the foreground command, else the pane's own.
    pub fn command_changed(&mut self, pane: PaneRef, argv: Vec<String>) {
        // A relay gone from the pane's foreground records it no more.
        if let Some(told) = self
            .relayed
            .get_mut(&pane)
            .filter(|_| !launcher::is_relay(&argv))
        {
            told.recording = None;
        }
        if let Some(facts) = self.known.get(&pane) {
            let facts = Facts {
                running: Some(argv).filter(|argv| !argv.is_empty()),
                ..facts.clone()
            };
            self.known.insert(pane, self.through_relay(pane, facts));
        }
    }

    /// What the pane's relay told of the program in its foreground, and
    /// of its recording.
    pub fn foreground_told(
        &mut self,
        pane: PaneRef,
        (told, recording): (Facts, Option<String>),
        at_ms: u64,
    ) {
        if let Some(facts) = self.known.get_mut(&pane) {
            facts.running.clone_from(&told.running);
            if told.cwd.is_some() {
                facts.cwd.clone_from(&told.cwd);
            }
        }
        let told = Told {
            facts: told,
            recording,
            at_ms,
        };
        self.relayed.insert(pane, told);
    }

    /// The file the pane is recorded to, as its relay told.
    pub fn recording(&self, pane: PaneRef) -> Option<&String> {
        self.relayed.get(&pane)?.recording.as_ref()
    }

    /// Zellij's facts of a relayed pane (its relay's own) as its relay
    /// told them, once it has; other facts as they are.
    fn through_relay(&self, pane: PaneRef, facts: Facts) -> Facts {
        let relay = facts.running.as_deref().is_some_and(launcher::is_relay);
        match self.relayed.get(&pane).map(|told| &told.facts) {
            Some(told) if relay => Facts {
                running: told.running.clone().or(facts.running),
                cwd: told.cwd.clone().or(facts.cwd),
            },
            _ => facts,
        }
    }

    /// Asks `ask` the facts of the panes not known yet.
    pub fn learn(&mut self, panes: impl Iterator<Item = PaneRef>, ask: impl Fn(PaneRef) -> Facts) {
        for pane in panes {
            self.get(pane, || ask(pane));
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

    /// Forgets the panes that are gone (`now_ms`: the time, Unix ms).
    pub fn keep_only(&mut self, live: impl Fn(PaneRef) -> bool, now_ms: u64) {
        self.known.retain(|pane, _| live(*pane));
        self.pids.retain(|pane, _| live(*pane));
        // A view up to a second old may not list a pane its relay just
        // told of yet.
        let recent = |told: &Told| now_ms.saturating_sub(told.at_ms) < TOLD_KEPT_MS;
        self.relayed
            .retain(|pane, told| live(*pane) || recent(told));
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
    fn a_relayed_pane_runs_what_its_relay_told() {
        let mut known = PaneFacts::default();
        let (pane, plain) = (PaneRef::terminal(5), PaneRef::terminal(6));
        let relay = |argv: &[&str]| {
            let launch = ["/b/zellij-mcp", "launch", "--relay", "--"];
            let line = launch.iter().chain(argv).map(|w| w.to_string());
            Facts {
                cwd: Some("/start".into()),
                running: Some(line.collect()),
            }
        };
        let argv = |words: &[&str]| Some(words.iter().map(|w| w.to_string()).collect());
        known.get(pane, || relay(&["sh", "-c", "x"]));
        let told = |running: &str, cwd: Option<&str>| Facts {
            running: Some(vec![running.to_owned()]),
            cwd: cwd.map(str::to_owned),
        };
        let cast = Some("/rec/a.cast".to_owned());
        known.foreground_told(pane, (told("codex", Some("/work")), cast.clone()), 0);
        assert_eq!(known.known(pane).unwrap().running, argv(&["codex"]));
        assert_eq!(known.recording(pane), cast.as_ref());
        // Zellij goes on telling the relay's line: the relay's word stands.
        known.forget(pane);
        let again = known.get(pane, || relay(&["sh", "-c", "x"])).clone();
        assert_eq!(again.running, argv(&["codex"]));
        assert_eq!(again.cwd.as_deref(), Some("/work"));
        known.command_changed(pane, relay(&["sh"]).running.unwrap());
        known.cwd_changed(pane, "/start".into());
        assert_eq!(known.known(pane).unwrap().running, argv(&["codex"]));
        assert_eq!(known.known(pane).unwrap().cwd.as_deref(), Some("/work"));
        assert_eq!(known.recording(pane), cast.as_ref());
        // A pane whose command is not a relay's is told by Zellij alone.
        known.foreground_told(plain, (told("vim", None), None), 0);
        assert_eq!(known.get(plain, || facts("/p")), &facts("/p"));
        // Its relay gone from the pane's foreground, it records no more.
        known.command_changed(pane, vec!["bash".into()]);
        assert_eq!(known.recording(pane), None);
        // What a relay told outlives a view that does not list its pane
        // yet, not a pane gone.
        known.keep_only(|p| p == plain, TOLD_KEPT_MS - 1);
        assert!(known.relayed.contains_key(&pane));
        known.keep_only(|p| p == plain, TOLD_KEPT_MS);
        assert!(!known.relayed.contains_key(&pane));
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
        known.keep_only(|pane| pane == a, 0);
        assert_eq!(known.len(), 1);
    }
}
