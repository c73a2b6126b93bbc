//! Agent names of panes (see `zellij_mcp_protocol::agent_name`). A name is
//! set when a pane is made, or claimed by the pane's own agent, and released
//! when the pane closes. Names live in a file in the shared folder, so every
//! instance, and the plugin after a reload, sees the same ones. Plain state:
//! what a pane is, is asked of the caller (`exists`).

use crate::host::files::{read_capped, AGENTS_BYTES};
use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use zellij_mcp_protocol::{Error, ErrorBody, PaneRef};

/// The names file's mark of an agent that reads lines.
const LINES: &str = "lines";
/// Most names kept; more are `busy`.
const MOST_AGENTS: usize = 256;
/// Zellij may list a new pane only a while after it is made; its name is
/// kept meanwhile.
const NEW_PANE_GRACE: Duration = Duration::from_secs(10);

/// Whether a pane has an agent name, and whether its agent reads lines:
/// how its screen is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Named {
    #[default]
    No,
    Agent,
    ReadsLines,
}

impl Named {
    /// A pane with a name or none, whose agent reads lines or not.
    pub fn of(has_name: bool, reads_lines: bool) -> Named {
        match (has_name, reads_lines) {
            (false, _) => Named::No,
            (true, false) => Named::Agent,
            (true, true) => Named::ReadsLines,
        }
    }

    pub fn any(self) -> bool {
        self != Named::No
    }
}

#[derive(Debug, Default)]
pub struct Agents {
    /// The names file; none before the plugin has started.
    path: Option<PathBuf>,
    /// Panes named lately, which Zellij may not list yet.
    named_lately: BTreeMap<PaneRef, Instant>,
}

impl Agents {
    pub fn new(path: PathBuf) -> Self {
        Agents {
            path: Some(path),
            named_lately: BTreeMap::new(),
        }
    }

    /// Every name and its pane (read afresh: another instance may have
    /// changed them).
    pub fn all(&self) -> BTreeMap<String, PaneRef> {
        self.entries()
            .into_iter()
            .map(|(name, (pane, _))| (name, pane))
            .collect()
    }

    /// The panes whose agents read lines (declared when named): messages
    /// are typed there as a line at an empty prompt.
    pub fn reading_lines(&self) -> Vec<PaneRef> {
        let entries = self.entries().into_values();
        entries
            .filter(|(_, lines)| *lines)
            .map(|(p, _)| p)
            .collect()
    }

    /// How `pane` is named.
    pub fn named(&self, pane: PaneRef) -> Named {
        let entries = self.entries().into_values();
        let found = entries.into_iter().find(|(p, _)| *p == pane);
        Named::of(found.is_some(), found.is_some_and(|(_, lines)| lines))
    }

    /// Every name, its pane, and whether its agent reads lines.
    fn entries(&self) -> BTreeMap<String, (PaneRef, bool)> {
        let Some(text) = self
            .path
            .as_ref()
            .and_then(|p| read_capped(p, AGENTS_BYTES))
        else {
            return BTreeMap::new();
        };
        text.lines()
            .filter_map(|line| {
                let mut words = line.split(' ');
                let (name, pane) = (words.next()?, words.next()?.parse().ok()?);
                Some((name.to_owned(), (pane, words.next() == Some(LINES))))
            })
            .collect()
    }

    /// Every pane's name.
    pub fn by_pane(&self) -> BTreeMap<PaneRef, String> {
        self.all().into_iter().map(|(name, p)| (p, name)).collect()
    }

    /// `bad_request` when another pane that still `exists` has the name.
    pub fn check_free(
        &self,
        name: &str,
        pane: Option<PaneRef>,
        exists: impl Fn(PaneRef) -> bool,
    ) -> Result<(), ErrorBody> {
        match self.all().get(name) {
            Some(holder) if Some(*holder) != pane && exists(*holder) => {
                Err(ErrorBody::from(Error::BadRequest {
                    problem: format!("agent name '{name}' is {holder}'s"),
                    fix: "pick another name, or close that pane first".into(),
                }))
            }
            _ => Ok(()),
        }
    }

    /// Gives `pane` the name (its only one), unless another pane that
    /// still `exists` has it; `lines` when its agent reads lines.
    pub fn assign(
        &mut self,
        name: &str,
        pane: PaneRef,
        lines: bool,
        exists: impl Fn(PaneRef) -> bool,
        now: Instant,
    ) -> Result<(), ErrorBody> {
        self.check_free(name, Some(pane), &exists)?;
        let mut names = self.entries();
        names.retain(|n, (p, _)| *p != pane && n != name && exists(*p));
        if names.len() >= MOST_AGENTS {
            return Err(ErrorBody::from(Error::Busy {
                problem: format!("{MOST_AGENTS} agent names are taken already"),
                fix: "close panes whose agents are done".into(),
            }));
        }
        names.insert(name.to_owned(), (pane, lines));
        self.save(&names)?;
        self.forget_old(now);
        self.named_lately.insert(pane, now);
        Ok(())
    }

    /// Releases the names of panes that no longer exist (but not of panes
    /// named lately, which Zellij may not list yet).
    /// Returns the names released.
    pub fn release_gone(
        &mut self,
        exists: impl Fn(PaneRef) -> bool,
        now: Instant,
    ) -> Vec<(String, PaneRef)> {
        self.forget_old(now);
        let (kept, gone): (BTreeMap<_, _>, BTreeMap<_, _>) = self
            .entries()
            .into_iter()
            .partition(|(_, (p, _))| exists(*p) || self.named_lately.contains_key(p));
        if !gone.is_empty() {
            let _ = self.save(&kept);
        }
        gone.into_iter().map(|(name, (p, _))| (name, p)).collect()
    }

    /// Releases the names of `closed` panes, named lately or not.
    pub fn release_closed(&mut self, closed: &[PaneRef], now: Instant) -> Vec<(String, PaneRef)> {
        for pane in closed {
            self.named_lately.remove(pane);
        }
        self.release_gone(|p| !closed.contains(&p), now)
    }

    /// Panes named before the grace are Zellij's to list by now.
    fn forget_old(&mut self, now: Instant) {
        self.named_lately
            .retain(|_, at| now.duration_since(*at) < NEW_PANE_GRACE);
    }

    /// Writes then renames, so a reader never sees half a file.
    fn save(&self, names: &BTreeMap<String, (PaneRef, bool)>) -> Result<(), ErrorBody> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let line = |(n, (p, lines)): (&String, &(PaneRef, bool))| match lines {
            true => format!("{n} {p} {LINES}\n"),
            false => format!("{n} {p}\n"),
        };
        let text: String = names.iter().map(line).collect();
        let tmp = path.with_extension("agents-tmp");
        fs::write(&tmp, text)
            .and_then(|()| fs::rename(&tmp, path))
            .map_err(|e| {
                ErrorBody::from(Error::Internal {
                    problem: format!("cannot keep agent names: {e}"),
                    fix: Some("check the plugin's cache folder is writable".into()),
                })
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agents(name: &str) -> Agents {
        let dir = crate::tests::shared_dir(name);
        Agents::new(dir.join("lease-1.agents"))
    }

    #[test]
    fn a_pane_has_one_name_and_a_name_one_live_pane() {
        let mut a = agents("agents-one");
        let (one, two) = (PaneRef::terminal(1), PaneRef::terminal(2));
        a.assign("main", one, false, |_| true, Instant::now())
            .unwrap();
        a.assign("main.tests", one, false, |_| true, Instant::now())
            .unwrap();
        assert_eq!(
            a.by_pane().get(&one).map(String::as_str),
            Some("main.tests")
        );
        assert_eq!(a.all().len(), 1, "the old name is released");
        let taken = a
            .assign("main.tests", two, false, |_| true, Instant::now())
            .unwrap_err();
        assert!(taken.message.contains("terminal_1"), "{}", taken.message);
        // A name whose pane is gone can be taken.
        a.assign("main.tests", two, true, |p| p == two, Instant::now())
            .unwrap();
        assert_eq!(
            a.by_pane().get(&two).map(String::as_str),
            Some("main.tests")
        );
    }

    #[test]
    fn names_of_closed_panes_are_released_and_every_reader_sees_the_file() {
        let mut a = agents("agents-gone");
        a.assign("a", PaneRef::terminal(1), false, |_| true, Instant::now())
            .unwrap();
        a.assign("b", PaneRef::terminal(2), true, |_| true, Instant::now())
            .unwrap();
        assert!(
            a.release_gone(|_| false, Instant::now()).is_empty(),
            "Zellij may not list new panes yet"
        );
        a.named_lately.clear();
        assert_eq!(
            a.release_gone(|p| p == PaneRef::terminal(2), Instant::now()),
            [("a".to_owned(), PaneRef::terminal(1))]
        );
        let other_instance = Agents::new(a.path.clone().unwrap());
        let names: Vec<String> = other_instance.all().into_keys().collect();
        assert_eq!(names, ["b"]);
        assert_eq!(other_instance.reading_lines(), [PaneRef::terminal(2)]);
    }
}
