//! The plugin's view of the session: tabs and panes, as the last `TabUpdate`
//! and `PaneUpdate` events described them.

use zellij_mcp_protocol::ops::{Geometry, PaneEntry};
use zellij_mcp_protocol::PaneRef;
use zellij_tile::prelude::{PaneInfo, PaneManifest, TabInfo};

#[derive(Debug, Default)]
pub struct SessionView {
    pub tabs: Vec<TabInfo>,
    pub panes: Option<PaneManifest>,
}

impl SessionView {
    /// The session state has arrived (a `PaneUpdate` was seen).
    pub fn is_ready(&self) -> bool {
        self.panes.is_some()
    }

    fn tab_at(&self, position: usize) -> Option<&TabInfo> {
        self.tabs.iter().find(|t| t.position == position)
    }

    fn all(&self) -> impl Iterator<Item = (usize, &PaneInfo)> {
        self.panes
            .iter()
            .flat_map(|m| m.panes.iter())
            .flat_map(|(pos, panes)| panes.iter().map(move |p| (*pos, p)))
    }

    /// The pane with this id, and the position of its tab.
    pub fn find(&self, pane: PaneRef) -> Option<(usize, &PaneInfo)> {
        self.all().find(|(_, p)| pane_ref(p) == pane)
    }

    /// The stable id of the tab a pane is in.
    pub fn tab_id_of(&self, pane: PaneRef) -> Option<usize> {
        let (position, _) = self.find(pane)?;
        self.tab_at(position).map(|t| t.tab_id)
    }

    /// Every pane, ordered by tab position, then kind and id.
    pub fn entries(&self) -> Vec<PaneEntry> {
        let mut entries: Vec<PaneEntry> = self
            .all()
            .map(|(position, info)| self.entry(position, info))
            .collect();
        entries.sort_by_key(|e| (e.tab_position, e.pane_id));
        entries
    }

    fn entry(&self, position: usize, p: &PaneInfo) -> PaneEntry {
        let tab = self.tab_at(position);
        PaneEntry {
            pane_id: pane_ref(p),
            tab_id: tab.map(|t| t.tab_id),
            tab_position: position,
            tab_name: tab.map(|t| t.name.clone()).unwrap_or_default(),
            title: p.title.clone(),
            command: p.terminal_command.clone(),
            plugin_url: p.plugin_url.clone(),
            exited: p.exited,
            exit_status: p.exit_status,
            held: p.is_held,
            focused: p.is_focused,
            floating: p.is_floating,
            suppressed: p.is_suppressed,
            selectable: p.is_selectable,
            geometry: Geometry {
                x: p.pane_x,
                y: p.pane_y,
                rows: p.pane_rows,
                cols: p.pane_columns,
            },
            is_self: false,
        }
    }
}

pub fn pane_ref(p: &PaneInfo) -> PaneRef {
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
        }
    }

    #[test]
    fn entries_carry_stable_tab_ids_and_are_ordered() {
        let entries = view().entries();
        let ids: Vec<String> = entries.iter().map(|e| e.pane_id.to_string()).collect();
        assert_eq!(ids, ["terminal_0", "terminal_1", "plugin_2", "terminal_3"]);
        assert_eq!(entries[3].tab_id, Some(7));
        assert_eq!(entries[3].tab_name, "logs");
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
    fn not_ready_before_the_first_pane_update() {
        assert!(!SessionView::default().is_ready());
        assert!(view().is_ready());
    }
}
