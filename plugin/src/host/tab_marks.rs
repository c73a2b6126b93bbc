//! A mark on the tab bar: a tab where an agent asks for someone (a
//! permission dialog, a question) has its name shown with [`MARK`] before
//! it, so a person working in another tab sees it within a heartbeat,
//! without anything moving focus. The mark is taken off when no agent in
//! the tab asks. Everything the plugin reports or matches sees tab names
//! without it. Plain state: which tabs show it, told from their names.

use std::collections::BTreeSet;

use zellij_tile::prelude::TabInfo;

/// Put before a tab's name.
pub const MARK: &str = "● ";

/// Takes the mark off a tab as Zellij describes it; whether it had one.
pub fn unmark(tab: &mut TabInfo) -> bool {
    match tab.name.strip_prefix(MARK) {
        Some(name) => {
            tab.name = name.to_owned();
            true
        }
        None => false,
    }
}

/// The renames (tab id, name as Zellij shows it) that leave the mark on
/// exactly the `wanted` tabs; `tabs` are unmarked, `marked` had the mark.
pub fn renames(
    tabs: &[TabInfo],
    marked: &BTreeSet<usize>,
    wanted: &BTreeSet<usize>,
) -> Vec<(usize, String)> {
    tabs.iter()
        .filter(|tab| marked.contains(&tab.tab_id) != wanted.contains(&tab.tab_id))
        .map(|tab| match wanted.contains(&tab.tab_id) {
            true => (tab.tab_id, format!("{MARK}{}", tab.name)),
            false => (tab.tab_id, tab.name.clone()),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tab(tab_id: usize, name: &str) -> TabInfo {
        TabInfo {
            tab_id,
            name: name.into(),
            ..Default::default()
        }
    }

    #[test]
    fn marks_go_on_and_off_as_wanted() {
        let mut shown = vec![tab(0, "main"), tab(1, "● workers"), tab(2, "logs")];
        let marked: BTreeSet<usize> = shown
            .iter_mut()
            .filter_map(|t| unmark(t).then_some(t.tab_id))
            .collect();
        assert_eq!(shown[1].name, "workers");
        assert_eq!(marked, BTreeSet::from([1]));
        let wanted = BTreeSet::from([0]);
        assert_eq!(
            renames(&shown, &marked, &wanted),
            [(0, "● main".to_owned()), (1, "workers".to_owned())]
        );
        assert!(renames(&shown, &marked, &marked).is_empty());
    }
}
