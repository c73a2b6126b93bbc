//! tmux format strings (`#{pane_id} #{pane_title}`) filled from a Zellij
//! pane and its tab. A variable the shim does not know is empty, as in tmux.

use std::collections::BTreeMap;

use zellij_mcp_protocol::ops::PaneEntry;

/// The variables of one pane, by tmux's names.
pub fn pane_variables(
    pane: &PaneEntry,
    session: &str,
    index: usize,
) -> BTreeMap<&'static str, String> {
    let details = pane.details.clone().unwrap_or_default();
    let command = details
        .running
        .as_ref()
        .and_then(|argv| argv.first().cloned())
        .or_else(|| details.command.clone())
        .unwrap_or_default();
    let command = command.rsplit('/').next().unwrap_or_default().to_owned();
    let flag = |on: bool| if on { "1" } else { "0" }.to_owned();
    let mut vars = window_variables(pane, session);
    vars.extend([
        ("pane_id", tmux_pane_id(pane.pane_id.id)),
        ("pane_index", index.to_string()),
        ("pane_title", pane.title.clone()),
        (
            "pane_pid",
            pane.pid.map(|p| p.to_string()).unwrap_or_default(),
        ),
        ("pane_current_command", command),
        ("pane_current_path", details.cwd.clone().unwrap_or_default()),
        ("pane_active", flag(pane.focused)),
        ("pane_dead", flag(pane.exited)),
        (
            "pane_dead_status",
            pane.exit_status.map(|c| c.to_string()).unwrap_or_default(),
        ),
        ("pane_width", details.geometry.cols.to_string()),
        ("pane_height", details.geometry.rows.to_string()),
        ("pane_left", details.geometry.x.to_string()),
        ("pane_top", details.geometry.y.to_string()),
    ]);
    vars
}

/// The variables of the tab (tmux's window) `pane` is in.
pub fn window_variables(pane: &PaneEntry, session: &str) -> BTreeMap<&'static str, String> {
    let details = pane.details.clone().unwrap_or_default();
    BTreeMap::from([
        ("session_name", session.to_owned()),
        ("session_id", "$0".to_owned()),
        (
            "window_id",
            format!("@{}", pane.tab_id.unwrap_or(details.tab_position)),
        ),
        ("window_index", details.tab_position.to_string()),
        ("window_name", details.tab_name),
        ("client_termtype", std::env::var("TERM").unwrap_or_default()),
        ("client_control_mode", "0".to_owned()),
    ])
}

/// `%N` for Zellij's `terminal_N`.
pub fn tmux_pane_id(id: u32) -> String {
    format!("%{id}")
}

/// `format` with each `#{name}` replaced by its value (empty when
/// unknown) and `##` by `#`.
pub fn expand(format: &str, vars: &BTreeMap<&'static str, String>) -> String {
    let mut out = String::new();
    let mut rest = format;
    while let Some(at) = rest.find('#') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix('#') {
            out.push('#');
            rest = tail;
        } else if let Some((name, tail)) = after.strip_prefix('{').and_then(|a| a.split_once('}')) {
            out.push_str(vars.get(name).map(String::as_str).unwrap_or_default());
            rest = tail;
        } else {
            out.push('#');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_are_filled_and_unknown_ones_are_empty() {
        let vars = BTreeMap::from([
            ("pane_id", "%3".to_owned()),
            ("pane_title", "lead".to_owned()),
        ]);
        assert_eq!(expand("#{pane_id}", &vars), "%3");
        assert_eq!(expand("#{pane_id} #{pane_title}!", &vars), "%3 lead!");
        assert_eq!(expand("#{nope}|##|#x|#{open", &vars), "|#|#x|#{open");
    }
}
