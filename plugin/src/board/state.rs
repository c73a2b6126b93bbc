//! What the board shows and where its cursor is: plain state, tested
//! natively. The cursor follows an agent (by pane id) across refreshes, so a
//! row moving up as its agent starts asking keeps the person's place.

use zellij_mcp_protocol::ops::{AgentRow, AgentsResult, PaneState};
use zellij_mcp_protocol::PaneRef;

#[derive(Debug, Default)]
pub struct BoardState {
    /// The rows as the acting instance last sent them; `None` before any.
    pub agents: Option<AgentsResult>,
    /// The agent the cursor is on.
    selected: Option<PaneRef>,
    /// Whether tabs where an agent asks get a mark.
    pub marks_on: bool,
}

/// A key the board knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoardKey {
    Up,
    Down,
    Enter,
    Esc,
    ToggleMarks,
    Resume,
}

/// What a key asks of the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act {
    /// Draw again.
    Redraw,
    /// Focus this pane and hide the board: the person chose an agent.
    Focus(PaneRef),
    Hide,
    /// Turn the tab marks on or off (as `marks_on` now says).
    SetMarks(bool),
    /// Start this pane's agent, whose program ended, again in its
    /// conversation.
    Resume(PaneRef),
    Nothing,
}

impl BoardState {
    pub fn take(&mut self, agents: AgentsResult) {
        let still_there = |pane: &PaneRef| agents.agents.iter().any(|a| a.pane_id == *pane);
        if !self.selected.as_ref().is_some_and(still_there) {
            self.selected = agents.agents.first().map(|a| a.pane_id);
        }
        self.agents = Some(agents);
    }

    pub fn rows(&self) -> &[AgentRow] {
        self.agents.as_ref().map_or(&[], |a| a.agents.as_slice())
    }

    /// The row the cursor is on.
    pub fn selected_index(&self) -> Option<usize> {
        let selected = self.selected?;
        self.rows().iter().position(|a| a.pane_id == selected)
    }

    pub fn key(&mut self, key: BoardKey) -> Act {
        match key {
            BoardKey::Up | BoardKey::Down => {
                let count = self.rows().len();
                let Some(at) = self.selected_index().filter(|_| count > 0) else {
                    return Act::Nothing;
                };
                let next = match key {
                    BoardKey::Up => (at + count - 1) % count,
                    _ => (at + 1) % count,
                };
                self.selected = Some(self.rows()[next].pane_id);
                Act::Redraw
            }
            BoardKey::Enter => self
                .selected_index()
                .map_or(Act::Nothing, |at| Act::Focus(self.rows()[at].pane_id)),
            BoardKey::Esc => Act::Hide,
            BoardKey::ToggleMarks => {
                self.marks_on = !self.marks_on;
                Act::SetMarks(self.marks_on)
            }
            BoardKey::Resume => {
                let row = self.selected_index().map(|at| &self.rows()[at]);
                let exited = row.filter(|r| r.state == PaneState::Exited && r.name.is_some());
                exited.map_or(Act::Nothing, |r| Act::Resume(r.pane_id))
            }
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Agent `a<id>` in pane `terminal_<id>`, in `state`.
    pub fn row(id: u32, state: PaneState) -> AgentRow {
        AgentRow {
            pane_id: PaneRef::terminal(id),
            tab_id: 0,
            tab_name: "t".into(),
            name: Some(format!("a{id}")),
            program: None,
            described_by: None,
            state,
            by_hooks: false,
            by_relay: false,
            since_ms: 0,
            exit_status: None,
            held: 0,
            held_because: None,
            last_in: None,
            last_out: None,
            last_reply: None,
            conversation: None,
            back: None,
            recording: None,
        }
    }

    pub fn result(rows: Vec<AgentRow>) -> AgentsResult {
        AgentsResult {
            agents: rows,
            at_ms: 0,
        }
    }

    #[test]
    fn the_cursor_moves_wraps_and_follows_its_agent() {
        let mut board = BoardState::default();
        assert_eq!(board.key(BoardKey::Down), Act::Nothing, "no rows yet");
        board.take(result(vec![
            row(1, PaneState::Asking),
            row(2, PaneState::Idle),
            row(3, PaneState::Exited),
        ]));
        assert_eq!(board.selected_index(), Some(0));
        assert_eq!(board.key(BoardKey::Down), Act::Redraw);
        assert_eq!(board.key(BoardKey::Enter), Act::Focus(PaneRef::terminal(2)));
        assert_eq!(board.key(BoardKey::Up), Act::Redraw);
        assert_eq!(board.key(BoardKey::Up), Act::Redraw);
        assert_eq!(board.selected_index(), Some(2), "wrapped to the last");
        // Agent 3 moves to the top: the cursor goes with it.
        board.take(result(vec![
            row(3, PaneState::Asking),
            row(1, PaneState::Idle),
        ]));
        assert_eq!(board.selected_index(), Some(0));
        // Its agent is gone: the cursor goes to the first row.
        board.take(result(vec![row(1, PaneState::Idle)]));
        assert_eq!(board.key(BoardKey::Enter), Act::Focus(PaneRef::terminal(1)));
        assert_eq!(board.key(BoardKey::Esc), Act::Hide);
    }

    #[test]
    fn marks_toggle() {
        let mut board = BoardState {
            marks_on: true,
            ..Default::default()
        };
        assert_eq!(board.key(BoardKey::ToggleMarks), Act::SetMarks(false));
        assert_eq!(board.key(BoardKey::ToggleMarks), Act::SetMarks(true));
    }

    #[test]
    fn r_resumes_the_selected_agent_only_when_its_program_ended() {
        let mut board = BoardState::default();
        board.take(result(vec![
            row(1, PaneState::Idle),
            row(2, PaneState::Exited),
        ]));
        assert_eq!(board.key(BoardKey::Resume), Act::Nothing, "it runs");
        board.key(BoardKey::Down);
        assert_eq!(
            board.key(BoardKey::Resume),
            Act::Resume(PaneRef::terminal(2))
        );
    }
}
