//! Pane, tab and session lists as aligned text tables: what `zellij-mcp
//! call` prints, and the text of a pane list's tool result (clients that
//! show a model the text rather than the structured result pay for a table
//! about half the size of the same list as JSON).

use serde_json::Value;
use zellij_mcp_protocol::board::{cells, COLUMNS};
use zellij_mcp_protocol::ops::AgentsResult;

/// The table for a list tool's result; `None` for other tools.
pub fn of(tool: &str, result: &Value) -> Option<String> {
    let rows = |key: &str| result[key].as_array().cloned().unwrap_or_default();
    Some(match tool {
        "zellij_list_panes" => table(
            &["PANE", "TAB", "TITLE", "PROGRAM", "STATE"],
            rows("panes").iter().map(pane_row).collect(),
        ),
        "zellij_list_tabs" => table(
            &["TAB_ID", "POSITION", "NAME", "PANES", "ACTIVE"],
            rows("tabs")
                .iter()
                .map(|t| {
                    let cells = [&t["tab_id"], &t["position"], &t["name"], &t["panes"]];
                    let mut row: Vec<String> = cells.into_iter().map(plain).collect();
                    row.push(flag(&t["active"]));
                    row
                })
                .collect(),
        ),
        "zellij_list_sessions" => table(
            &["SESSION", "DEFAULT", "CURRENT"],
            rows("sessions")
                .iter()
                .map(|s| vec![plain(&s["name"]), flag(&s["default"]), flag(&s["current"])])
                .collect(),
        ),
        _ => return None,
    })
}

/// The agents' board as a table, a pane id column after the agent.
pub fn agents(result: &AgentsResult) -> String {
    let mut header: Vec<&str> = COLUMNS.to_vec();
    header.insert(1, "PANE");
    let rows = result.agents.iter().map(|row| {
        let mut cells = cells(row, result.at_ms).to_vec();
        cells.insert(1, row.pane_id.to_string());
        cells
    });
    table(&header, rows.collect())
}

/// A pane's cells; its state column also holds its exit status, the flags
/// that are true and its agent name.
fn pane_row(pane: &Value) -> Vec<String> {
    let exit = pane["exit_status"]
        .as_i64()
        .map(|code| format!("exit {code}"));
    let flags = ["focused", "floating", "hidden", "is_self"]
        .into_iter()
        .filter(|key| pane[*key] == Value::Bool(true))
        .map(|key| key.trim_start_matches("is_").to_owned());
    let agent = pane["agent"].as_str().map(|name| format!("agent {name}"));
    let state = [plain(&pane["state"])]
        .into_iter()
        .chain(exit)
        .chain(flags)
        .chain(agent)
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(",");
    vec![
        plain(&pane["pane_id"]),
        plain(&pane["tab_id"]),
        plain(&pane["title"]),
        plain(&pane["program"]),
        state,
    ]
}

fn plain(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn flag(value: &Value) -> String {
    if *value == Value::Bool(true) {
        "yes"
    } else {
        ""
    }
    .to_owned()
}

/// Columns padded to their widest cell.
fn table(header: &[&str], rows: Vec<Vec<String>>) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<String>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(cell, width)| format!("{cell:width$}"))
            .collect();
        format!("{}\n", padded.join(" ").trim_end())
    };
    let mut out = line(header.iter().map(|h| h.to_string()).collect());
    for row in rows {
        out.push_str(&line(row));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tables_pad_their_columns() {
        let text = table(&["A", "BB"], vec![vec!["long".into(), "x".into()]]);
        assert_eq!(text, "A    BB\nlong x\n");
    }

    #[test]
    fn a_pane_list_is_one_aligned_row_a_pane_with_every_listed_fact() {
        let listed = json!({"panes": [
            {"pane_id": "terminal_0", "tab_id": 0, "title": "Pane #1", "program": "bash",
             "state": "prompt", "focused": true},
            {"pane_id": "terminal_12", "tab_id": 3, "title": "tests", "program": "cargo",
             "state": "exited", "exit_status": 101, "exited": true, "agent": "main.tests"},
        ]});
        let table = of("zellij_list_panes", &listed).unwrap();
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines[0], "PANE        TAB TITLE   PROGRAM STATE");
        assert_eq!(lines[1], "terminal_0  0   Pane #1 bash    prompt,focused");
        assert_eq!(
            lines[2],
            "terminal_12 3   tests   cargo   exited,exit 101,agent main.tests"
        );
        assert_eq!(of("zellij_read", &listed), None);
    }
}
