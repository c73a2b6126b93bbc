//! How the board looks: a title, a table of agents in Zellij's own
//! components (the user's theme colours them), and the keys. The cells are
//! plain strings, tested natively; `render` only lays them out.

use zellij_mcp_protocol::board::{cells, COLUMNS};
use zellij_mcp_protocol::ops::PaneState;
use zellij_tile::prelude::{
    print_table_with_coordinates, print_text_with_coordinates, Table, Text,
};

use super::state::BoardState;

/// The title line: how many agents, and how many need someone.
pub fn title(board: &BoardState) -> String {
    let Some(agents) = &board.agents else {
        return "zellij-mcp agents · waiting for the session's plugin".to_owned();
    };
    let asking = agents
        .agents
        .iter()
        .filter(|a| a.state == PaneState::Asking)
        .count();
    let count = agents.agents.len();
    match asking {
        0 => format!("zellij-mcp agents · {count}"),
        n => format!("zellij-mcp agents · {count} · {n} asking"),
    }
}

/// The keys line.
pub fn keys(board: &BoardState) -> String {
    let marks = if board.marks_on { "on" } else { "off" };
    format!("↑↓ move · Enter go to agent · r resume · Esc hide · m tab marks: {marks}")
}

/// Draws the board in `rows` × `cols`.
pub fn render(board: &BoardState, rows: usize, cols: usize) {
    print_text_with_coordinates(
        Text::new(title(board)).color_range(2, ..),
        0,
        0,
        Some(cols),
        None,
    );
    let at_ms = board.agents.as_ref().map_or(0, |a| a.at_ms);
    let selected = board.selected_index();
    let mut table = Table::new().add_row(COLUMNS.to_vec());
    for (at, row) in board.rows().iter().enumerate() {
        let styled = cells(row, at_ms).map(|cell| {
            // An empty cell would end the row early.
            let text = Text::new(if cell.is_empty() {
                " ".to_owned()
            } else {
                cell
            });
            match selected == Some(at) {
                true => text.selected(),
                false => text,
            }
        });
        let [agent, tab, state, rest @ ..] = styled;
        let state = match row.state {
            PaneState::Asking => state.error_color_all(),
            PaneState::Idle => state.success_color_all(),
            PaneState::Exited => state.dim_all(),
            _ => state,
        };
        let mut cells = vec![agent.color_all(0), tab, state];
        cells.extend(rest);
        table = table.add_styled_row(cells);
    }
    let table_rows = rows.saturating_sub(3);
    print_table_with_coordinates(table, 0, 2, Some(cols), Some(table_rows));
    if board.rows().is_empty() && board.agents.is_some() {
        let none = "No agents: a pane with an agent name, or running an agent program, shows here.";
        print_text_with_coordinates(Text::new(none), 0, 3, Some(cols), None);
    }
    let keys = Text::new(keys(board)).color_range(3, ..);
    print_text_with_coordinates(keys, 0, rows.saturating_sub(1), Some(cols), None);
}

#[cfg(test)]
mod tests {
    use super::super::state::tests::{result, row};
    use super::*;

    #[test]
    fn the_title_counts_who_asks() {
        let mut board = BoardState::default();
        assert!(title(&board).contains("waiting"));
        board.take(result(vec![
            row(4, PaneState::Asking),
            row(5, PaneState::Idle),
        ]));
        assert_eq!(title(&board), "zellij-mcp agents · 2 · 1 asking");
    }
}
