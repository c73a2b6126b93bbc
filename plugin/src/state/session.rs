//! The plugin's view of the session: tabs, panes and clients, as the last
//! `TabUpdate`, `PaneUpdate` and `ListClients` events described them.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::time::Instant;

use zellij_mcp_protocol::ops::{Geometry, PaneDetails, PaneEntry, PaneState, TabEntry};
use zellij_mcp_protocol::{Error, ErrorBody, PaneRef, TabRef};
use zellij_tile::prelude::{ClientInfo, PaneInfo, PaneManifest, TabInfo};

use crate::host::tab_marks::unmark;

#[derive(Debug, Default)]
pub struct SessionView {
    pub tabs: Vec<TabInfo>,
    pub panes: Option<PaneManifest>,
    pub clients: Vec<ClientInfo>,
    /// Counts `ListClients` answers, so a request knows when a fresh one came.
    pub clients_generation: u64,
    /// When this instance last got a pane or tab event (unix ms).
    pub fed_ms: u64,
    /// When the view was last taken from the session metadata.
    pub snapshot_at: Option<Instant>,
    /// Clients attached, as the last snapshot of the metadata counted them.
    pub clients_attached: Option<usize>,
    pub exit_codes: ExitCodes,
    /// The tabs whose name Zellij shows with the mark (see [`crate::host::tab_marks`]).
    pub marked_tabs: BTreeSet<usize>,
}

/// Exit codes kept from `CommandPaneExited`, for waits on panes we opened.
const KEPT_EXIT_CODES: usize = 256;

/// Exit codes from `CommandPaneExited` (hidden command panes may not show
/// theirs in `PaneInfo`), for the latest [`KEPT_EXIT_CODES`] panes.
#[derive(Debug, Default)]
pub struct ExitCodes(BTreeMap<u32, Option<i32>>);

impl ExitCodes {
    pub fn insert(&mut self, pane: u32, code: Option<i32>) {
        self.0.insert(pane, code);
        // Pane ids only grow: the lowest are the oldest.
        while self.0.len() > KEPT_EXIT_CODES {
            self.0.pop_first();
        }
    }

    /// The pane's command runs again (Enter in its held pane).
    pub fn rerun(&mut self, pane: u32) {
        self.0.remove(&pane);
    }

    /// `Some` when the pane exited, with its code if it had one.
    pub fn get(&self, pane: u32) -> Option<Option<i32>> {
        self.0.get(&pane).copied()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }
}

impl SessionView {
    /// Takes the tabs as Zellij describes them, their names without marks.
    pub fn set_tabs(&mut self, mut tabs: Vec<TabInfo>) {
        self.marked_tabs = tabs
            .iter_mut()
            .filter_map(|tab| unmark(tab).then_some(tab.tab_id))
            .collect();
        self.tabs = tabs;
    }

    /// The session state has arrived (a `PaneUpdate` was seen).
    pub fn is_ready(&self) -> bool {
        self.panes.is_some()
    }

    fn tab_at(&self, position: usize) -> Option<&TabInfo> {
        self.tabs.iter().find(|t| t.position == position)
    }

    pub fn tab_by_id(&self, tab_id: usize) -> Option<&TabInfo> {
        self.tabs.iter().find(|t| t.tab_id == tab_id)
    }

    /// The tab a caller means; a name shared by several tabs is an error.
    pub fn resolve_tab(&self, tab: &TabRef) -> Result<&TabInfo, ErrorBody> {
        let names = || {
            self.tabs
                .iter()
                .map(|t| format!("{} (tab_id {})", t.name, t.tab_id))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let not_found = || {
            ErrorBody::from(Error::TabNotFound {
                tab: tab.to_string(),
                tabs: names(),
            })
        };
        match tab {
            TabRef::Id(id) => self.tab_by_id(*id).ok_or_else(not_found),
            TabRef::Name(name) => {
                let found: Vec<&TabInfo> = self.tabs.iter().filter(|t| &t.name == name).collect();
                match found.as_slice() {
                    [one] => Ok(one),
                    [] => name
                        .parse()
                        .ok()
                        .and_then(|id| self.tab_by_id(id))
                        .ok_or_else(not_found),
                    many => Err(ErrorBody::from(Error::BadRequest {
                        problem: format!("{} tabs are named '{name}'", many.len()),
                        fix: format!(
                            "pass the tab_id instead: {}",
                            many.iter()
                                .map(|t| t.tab_id.to_string())
                                .collect::<Vec<_>>()
                                .join(" or ")
                        ),
                    })),
                }
            }
        }
    }

    /// The tab new panes go to by default: the caller's, else the active one.
    pub fn default_tab(&self, caller: Option<PaneRef>) -> Option<&TabInfo> {
        caller
            .and_then(|pane| self.tab_id_of(pane))
            .and_then(|id| self.tab_by_id(id))
            .or_else(|| self.tabs.iter().find(|t| t.active))
            .or_else(|| self.tabs.first())
    }

    /// The panes in the tab at `position`.
    pub fn panes_in(&self, position: usize) -> impl Iterator<Item = &PaneInfo> {
        self.all()
            .filter(move |(pos, _)| *pos == position)
            .map(|(_, p)| p)
    }

    pub fn tab_entries(&self) -> Vec<TabEntry> {
        let mut tabs: Vec<TabEntry> = self
            .tabs
            .iter()
            .map(|t| {
                let panes: Vec<&PaneInfo> = self.panes_in(t.position).collect();
                let count = |f: fn(&PaneInfo) -> bool| panes.iter().filter(|p| f(p)).count();
                TabEntry {
                    tab_id: t.tab_id,
                    position: t.position,
                    name: t.name.clone(),
                    active: t.active || !t.other_focused_clients.is_empty(),
                    panes: panes.len(),
                    tiled_panes: count(|p| !p.is_floating && !p.is_suppressed),
                    floating_panes: count(|p| p.is_floating && !p.is_suppressed),
                    hidden_panes: count(|p| p.is_suppressed),
                    fullscreen: t.is_fullscreen_active,
                    floating_visible: t.are_floating_panes_visible,
                }
            })
            .collect();
        tabs.sort_by_key(|t| t.position);
        tabs
    }

    fn all(&self) -> impl Iterator<Item = (usize, &PaneInfo)> {
        self.panes
            .iter()
            .flat_map(|m| m.panes.iter())
            .flat_map(|(pos, panes)| panes.iter().map(move |p| (*pos, p)))
    }

    /// Every pane's id.
    pub fn pane_refs(&self) -> HashSet<PaneRef> {
        self.all().map(|(_, p)| ref_of_info(p)).collect()
    }

    /// The pane with this id, and the position of its tab.
    pub fn find(&self, pane: PaneRef) -> Option<(usize, &PaneInfo)> {
        self.all().find(|(_, p)| ref_of_info(p) == pane)
    }

    /// The stable id of the tab a pane is in.
    pub fn tab_id_of(&self, pane: PaneRef) -> Option<usize> {
        let (position, _) = self.find(pane)?;
        self.tab_at(position).map(|t| t.tab_id)
    }

    /// Every pane, ordered by tab position, then kind and id.
    pub fn entries(&self) -> Vec<PaneEntry> {
        let mut panes: Vec<(usize, &PaneInfo)> = self.all().collect();
        panes.sort_by_key(|(position, info)| (*position, ref_of_info(info)));
        panes
            .into_iter()
            .map(|(position, info)| self.entry(position, info))
            .collect()
    }

    fn entry(&self, position: usize, p: &PaneInfo) -> PaneEntry {
        let tab = self.tab_at(position);
        // A pane in a tab nobody views may not show its exit in `PaneInfo`
        // for a while; `CommandPaneExited` told it (for the panes opened here).
        let reported = (!p.is_plugin).then(|| self.exit_codes.get(p.id)).flatten();
        let exited = p.exited || reported.is_some();
        PaneEntry {
            pane_id: ref_of_info(p),
            tab_id: tab.map(|t| t.tab_id),
            title: p.title.clone(),
            exited,
            exit_status: p.exit_status.or(reported.flatten()),
            focused: p.is_focused,
            floating: p.is_floating,
            hidden: p.is_suppressed,
            state: exited.then_some(PaneState::Exited),
            details: Some(PaneDetails {
                tab_position: position,
                tab_name: tab.map(|t| t.name.clone()).unwrap_or_default(),
                command: p.terminal_command.clone(),
                plugin_url: p.plugin_url.clone(),
                held: p.is_held,
                fullscreen: p.is_fullscreen,
                selectable: p.is_selectable,
                geometry: Geometry {
                    x: p.pane_x,
                    y: p.pane_y,
                    rows: p.pane_rows,
                    cols: p.pane_columns,
                },
                ..Default::default()
            }),
            agent: None,
            program: None,
            is_self: false,
            pid: None,
        }
    }
}

pub fn ref_of_info(p: &PaneInfo) -> PaneRef {
    if p.is_plugin {
        PaneRef::plugin(p.id)
    } else {
        PaneRef::terminal(p.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use zellij_mcp_protocol::ErrorCode;

    fn view() -> SessionView {
        let tab = |position: usize, tab_id: usize, name: &str| TabInfo {
            position,
            tab_id,
            name: name.into(),
            ..Default::default()
        };
        let pane = |id: u32, is_plugin: bool| PaneInfo {
            id,
            is_plugin,
            title: format!("p{id}"),
            ..Default::default()
        };
        SessionView {
            tabs: vec![tab(0, 10, "main"), tab(1, 7, "logs")],
            panes: Some(PaneManifest {
                panes: HashMap::from([
                    (1, vec![pane(3, false)]),
                    (0, vec![pane(2, true), pane(1, false), pane(0, false)]),
                ]),
            }),
            ..Default::default()
        }
    }

    #[test]
    fn entries_carry_stable_tab_ids_and_are_ordered() {
        let entries = view().entries();
        let ids: Vec<String> = entries.iter().map(|e| e.pane_id.to_string()).collect();
        assert_eq!(ids, ["terminal_0", "terminal_1", "plugin_2", "terminal_3"]);
        assert_eq!(entries[3].tab_id, Some(7));
        assert_eq!(entries[3].details.as_ref().unwrap().tab_name, "logs");
        assert_eq!(entries[2].tab_id, Some(10));
    }

    #[test]
    fn terminal_and_plugin_ids_are_distinct() {
        let v = view();
        assert!(v.find(PaneRef::plugin(2)).is_some());
        assert!(v.find(PaneRef::terminal(2)).is_none());
        assert_eq!(v.tab_id_of(PaneRef::terminal(3)), Some(7));
    }

    #[test]
    fn tabs_resolve_by_id_or_unique_name() {
        let mut v = view();
        assert_eq!(v.resolve_tab(&TabRef::Id(7)).unwrap().name, "logs");
        assert_eq!(
            v.resolve_tab(&TabRef::Name("main".into())).unwrap().tab_id,
            10
        );
        let missing = v.resolve_tab(&TabRef::Name("nope".into())).unwrap_err();
        assert_eq!(missing.code, ErrorCode::TabNotFound);
        assert!(missing.hint.unwrap().contains("logs (tab_id 7)"));
        v.tabs[1].name = "main".into();
        let ambiguous = v.resolve_tab(&TabRef::Name("main".into())).unwrap_err();
        assert_eq!(ambiguous.code, ErrorCode::BadRequest);
        assert!(ambiguous.hint.unwrap().contains("10 or 7"));
    }

    #[test]
    fn new_panes_go_to_the_callers_tab_else_the_active_one() {
        let mut v = view();
        v.tabs[0].active = true;
        assert_eq!(v.default_tab(Some(PaneRef::terminal(3))).unwrap().tab_id, 7);
        assert_eq!(v.default_tab(None).unwrap().tab_id, 10);
        let tabs = v.tab_entries();
        assert_eq!((tabs[0].panes, tabs[1].panes), (3, 1));
    }

    #[test]
    fn not_ready_before_the_first_pane_update() {
        assert!(!SessionView::default().is_ready());
        assert!(view().is_ready());
    }
}
