//! The board: this plugin loaded a second time, with `board "true"` in its
//! configuration, in a floating pane a person opens. It lists the agents
//! (see `zellij_mcp_protocol::ops::AgentRow`), lets the person go to one
//! (Enter: the only focus change here, and it is theirs) and hides on Esc.
//!
//! It takes no part in requests. Its rows come from the instance that acts
//! for the session: the board asks all plugins with a [`ASK`] message, and
//! the acting instance answers that board alone with [`ROWS`]. It asks only
//! while it is shown, every [`REFRESH`]: hidden, it costs nothing.

pub mod draw;
pub mod state;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use zellij_mcp_protocol::ops::AgentsResult;
use zellij_mcp_protocol::PaneKind;
use zellij_tile::prelude::*;

use state::{Act, BoardKey, BoardState};

/// A board asking for rows (to every plugin; the acting instance answers).
pub const ASK: &str = "zellij-mcp-board-ask";
/// A board asking to resume the agent of a pane (its payload).
pub const RESUME: &str = "zellij-mcp-board-resume";
/// The acting instance's answer, to the board that asked.
pub const ROWS: &str = "zellij-mcp-board-rows";
/// How often a shown board asks.
const REFRESH: Duration = Duration::from_millis(500);
/// Present in the plugin's shared folder when tab marks are off.
pub const MARKS_OFF_FILE: &str = "tab-marks-off";

/// Whether this configuration makes the instance a board.
pub fn is_board(configuration: &BTreeMap<String, String>) -> bool {
    configuration.get("board").map(String::as_str) == Some("true")
}

/// Titles the board's pane, and makes it wide enough for its columns.
fn place_own_pane() {
    let own = get_plugin_ids().plugin_id;
    rename_plugin_pane(own, "zellij-mcp agents");
    let percent = |n: u8| Some(format!("{n}%"));
    let (x, y, width, height) = (percent(5), percent(10), percent(90), percent(60));
    if let Some(size) = FloatingPaneCoordinates::new(x, y, width, height, None, None) {
        change_floating_panes_coordinates(vec![(PaneId::Plugin(own), size)]);
    }
}

/// The board instance's life in Zellij (its state is [`BoardState`]).
#[derive(Default)]
pub struct BoardPlugin {
    state: BoardState,
    shown: bool,
    timer_armed: bool,
    marks_off: PathBuf,
    /// Whether its pane has its title and size (once it is drawn: before,
    /// the pane is not there yet).
    placed: bool,
}

impl BoardPlugin {
    pub fn load(&mut self, shared_dir: &Path, permissions: &[PermissionType]) {
        request_permission(permissions);
        subscribe(&[EventType::Key, EventType::Timer, EventType::Visible]);
        self.marks_off = shared_dir.join(MARKS_OFF_FILE);
        self.state.marks_on = !self.marks_off.exists();
        self.shown = true;
        self.refresh();
    }

    pub fn update(&mut self, event: Event) -> bool {
        match event {
            Event::Visible(shown) => {
                self.shown = shown;
                self.refresh();
                false
            }
            Event::Timer(_) => {
                self.timer_armed = false;
                self.refresh();
                false
            }
            Event::Key(key) => self.on_key(key),
            _ => false,
        }
    }

    pub fn pipe(&mut self, message: PipeMessage) -> bool {
        if message.name != ROWS {
            return false;
        }
        let rows = message
            .payload
            .as_deref()
            .map(serde_json::from_str::<AgentsResult>);
        match rows {
            Some(Ok(rows)) => {
                self.state.take(rows);
                self.shown
            }
            _ => false,
        }
    }

    pub fn render(&mut self, rows: usize, cols: usize) {
        if !self.placed {
            self.placed = true;
            place_own_pane();
        }
        // Drawn, so shown: Zellij tells a pane shown again after
        // `hide_self` by drawing it, not with a `Visible` event.
        if !self.shown {
            self.shown = true;
            self.refresh();
        }
        draw::render(&self.state, rows, cols);
    }

    /// Asks for rows and arms the next refresh, while shown.
    fn refresh(&mut self) {
        if !self.shown || self.timer_armed {
            return;
        }
        pipe_message_to_plugin(MessageToPlugin::new(ASK));
        set_timeout(REFRESH.as_secs_f64());
        self.timer_armed = true;
    }

    /// Hides the board; Zellij sends no `Visible` event for it, so the
    /// board stops asking here.
    fn hide(&mut self) {
        self.shown = false;
        hide_self();
    }

    fn on_key(&mut self, key: KeyWithModifier) -> bool {
        let key = match key.bare_key {
            _ if !key.key_modifiers.is_empty() => return false,
            BareKey::Up | BareKey::Char('k') => BoardKey::Up,
            BareKey::Down | BareKey::Char('j') => BoardKey::Down,
            BareKey::Enter => BoardKey::Enter,
            BareKey::Esc | BareKey::Char('q') => BoardKey::Esc,
            BareKey::Char('m') => BoardKey::ToggleMarks,
            BareKey::Char('r') => BoardKey::Resume,
            _ => return false,
        };
        match self.state.key(key) {
            Act::Redraw => true,
            Act::Nothing => false,
            Act::Hide => {
                self.hide();
                false
            }
            Act::Focus(pane) => {
                match pane.kind {
                    PaneKind::Terminal => focus_terminal_pane(pane.id, false, false),
                    PaneKind::Plugin => focus_plugin_pane(pane.id, false, false),
                }
                self.hide();
                false
            }
            Act::Resume(pane) => {
                let ask = MessageToPlugin::new(RESUME).with_payload(pane.to_string());
                pipe_message_to_plugin(ask);
                false
            }
            Act::SetMarks(on) => {
                let _ = match on {
                    true => std::fs::remove_file(&self.marks_off),
                    false => std::fs::write(&self.marks_off, ""),
                };
                true
            }
        }
    }
}
