//! The Zellij calls the plugin makes, behind a trait so that request
//! handling is unit-tested natively with a recording fake.

pub mod commands;
pub mod files;
pub mod logging;
pub mod tab_marks;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use zellij_mcp_protocol::agent_programs::Telling;
use zellij_mcp_protocol::agent_screen::Shown;
use zellij_mcp_protocol::ops::{Direction as Edge, Signal};
use zellij_mcp_protocol::{PaneKind, PaneRef};
use zellij_tile::prelude::*;

/// Who this instance is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ids {
    pub plugin_id: u32,
    pub client_id: u16,
    pub zellij_pid: u32,
}

/// The session as Zellij's session metadata has it.
#[derive(Debug, Clone)]
pub struct SessionSnapshot {
    pub tabs: Vec<TabInfo>,
    pub panes: PaneManifest,
    /// Clients attached (not `zellij subscribe` or pipe clients).
    pub clients: usize,
}

/// What a new pane runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    Shell {
        cwd: Option<String>,
    },
    Command {
        argv: Vec<String>,
        cwd: Option<String>,
    },
    Editor {
        path: String,
        line: Option<usize>,
        cwd: Option<String>,
    },
}

/// Where a command pane opened in one step lands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Landing {
    /// Hidden, in the tab the plugin's client is on.
    Hidden,
    /// Tiled, in the plugin's own tab.
    BesidePlugin,
    /// Floating, in the plugin's own tab.
    FloatingBesidePlugin,
}

/// A pane's rows, and its cursor (column, row) where one shows.
pub type ScreenAndCursor = (Vec<String>, Option<(usize, usize)>);

pub trait Host {
    fn ids(&self) -> Ids;
    /// The clock, for deadlines; tests move their own.
    fn now(&self) -> Instant;
    /// Wall-clock milliseconds since the Unix epoch, for what other
    /// instances read (the lease, the event log).
    fn unix_ms(&self) -> u64;
    /// The plugin's linear memory now, in bytes.
    fn heap_bytes(&self) -> usize;
    fn zellij_version(&self) -> String;
    fn list_clients(&self);
    /// The pane's screen, as rows. Never the scrollback: it can be megabytes,
    /// and the plugin lives in a 16 MiB interpreter.
    fn screen(&self, pane: PaneRef) -> Result<Vec<String>, String>;
    /// The pane's screen, and its cursor (column, row) where one shows.
    fn screen_cursor(&self, pane: PaneRef) -> Result<ScreenAndCursor, String> {
        Ok((self.screen(pane)?, None))
    }
    /// What the pane's screen shows (an agent's composer or dialog, a
    /// shell's line), told from its screen and cursor; `None` when the
    /// screen cannot be read.
    /// An agent's state only when `telling` says how to tell it.
    fn shown(&self, pane: PaneRef, telling: Option<Telling>) -> Option<Shown>;
    /// The screen's rows and what it shows, from one read of the screen.
    fn screen_shown(
        &self,
        pane: PaneRef,
        telling: Option<Telling>,
    ) -> Result<(Vec<String>, Option<Shown>), String> {
        Ok((self.screen(pane)?, self.shown(pane, telling)))
    }
    /// The pane as Zellij has it now (events may lag, or not come at all).
    fn pane_info(&self, pane: PaneRef) -> Option<PaneInfo>;
    fn tab_info(&self, tab_id: usize) -> Option<TabInfo>;
    /// Tabs, panes and clients from Zellij's session metadata (up to a
    /// second old), for when no pane or tab events reach this instance.
    fn session_snapshot(&self) -> Option<SessionSnapshot>;
    fn cwd(&self, pane: PaneRef) -> Option<String>;
    /// The process a terminal pane runs.
    fn pid(&self, pane: PaneRef) -> Option<u32>;
    fn running_command(&self, pane: PaneRef) -> Option<Vec<String>>;
    fn write(&self, pane: PaneRef, bytes: Vec<u8>);
    fn signal(&self, pane: PaneRef, signal: Signal);
    fn output(&self, pipe_id: &str, text: &str);
    fn block(&self, pipe_id: &str);
    fn unblock(&self, pipe_id: &str);
    fn set_timeout(&self, after: Duration);
    /// Whether render events come: each carries the screens of the panes
    /// that changed, which costs the interpreter a copy of each; only
    /// waits use them.
    fn render_events(&self, on: bool);

    /// A new tab with the default layout; its tab id. Never moves focus.
    fn new_tab(&self, name: Option<&str>, cwd: Option<&str>) -> Option<usize>;
    /// New tabs from a layout; their tab ids. Zellij focuses them.
    fn new_tabs_with_layout(&self, kdl: &str) -> Vec<usize>;
    /// `Err` with the parser's message when `kdl` is not a valid layout.
    fn check_layout(&self, kdl: &str) -> Result<(), String>;
    /// A built-in or configured layout by name, as KDL.
    fn named_layout(&self, name: &str) -> Result<String, String>;
    /// 0-based position; moves the acting client.
    fn go_to_tab(&self, position: usize);
    /// A shell pane in a tab, without moving focus.
    fn new_pane_in_tab(&self, tab_id: usize) -> Option<PaneRef>;
    /// A command pane (`content` is a command), without moving focus.
    fn open_command(&self, content: &Content, landing: Landing) -> Option<PaneRef>;
    /// Replaces `pane` (closing it) by one with `content`; the new pane's id.
    fn replace(&self, pane: PaneRef, content: &Content) -> Option<PaneRef>;
    fn toggle_floating(&self, pane: PaneRef);
    fn toggle_fullscreen(&self, pane: PaneRef);
    fn set_pinned(&self, pane: PaneRef, pinned: bool);
    fn resize(&self, pane: PaneRef, grow: bool, edge: Option<Edge>);
    fn move_to_tab(&self, pane: PaneRef, tab_id: usize);
    fn hide(&self, pane: PaneRef);
    fn focus(&self, pane: PaneRef);
    fn close_pane(&self, pane: PaneRef);
    fn close_tab(&self, tab_id: usize);
    fn rename_pane(&self, pane: PaneRef, name: &str);
    fn rename_tab(&self, tab_id: usize, name: &str);
    /// A pipe message to one plugin instance (a board, by its plugin id).
    fn message_plugin(&self, plugin_id: u32, name: &str, payload: String);
    fn dump_layout(&self, tab_id: Option<usize>) -> Result<String, String>;
    /// Runs `argv` on the host machine; its output comes as a
    /// `RunCommandResult` event carrying `context`.
    fn run_command(&self, argv: &[String], context: BTreeMap<String, String>);
}

/// Bytes in a wasm memory page.
#[cfg(target_arch = "wasm32")]
const WASM_PAGE: usize = 64 * 1024;

/// The real host: zellij-tile calls.
#[derive(Debug, Default)]
pub struct ZellijHost;

pub fn pane_id(pane: PaneRef) -> PaneId {
    match pane.kind {
        PaneKind::Terminal => PaneId::Terminal(pane.id),
        PaneKind::Plugin => PaneId::Plugin(pane.id),
    }
}

/// `None` for an empty argv (handlers refuse one before it gets here).
fn command_to_run(argv: &[String], cwd: &Option<String>) -> Option<CommandToRun> {
    let (program, args) = argv.split_first()?;
    Some(CommandToRun {
        path: PathBuf::from(program),
        args: args.to_vec(),
        cwd: cwd.as_ref().map(PathBuf::from),
    })
}

pub fn ref_of_id(pane: PaneId) -> PaneRef {
    match pane {
        PaneId::Terminal(id) => PaneRef::terminal(id),
        PaneId::Plugin(id) => PaneRef::plugin(id),
    }
}

impl Host for ZellijHost {
    fn ids(&self) -> Ids {
        let ids = get_plugin_ids();
        Ids {
            plugin_id: ids.plugin_id,
            client_id: ids.client_id,
            zellij_pid: ids.zellij_pid,
        }
    }

    fn now(&self) -> Instant {
        Instant::now()
    }

    fn unix_ms(&self) -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or_default()
    }

    fn heap_bytes(&self) -> usize {
        #[cfg(target_arch = "wasm32")]
        return core::arch::wasm32::memory_size(0) * WASM_PAGE;
        #[cfg(not(target_arch = "wasm32"))]
        return 0;
    }

    fn zellij_version(&self) -> String {
        get_zellij_version()
    }

    fn list_clients(&self) {
        list_clients();
    }

    fn screen(&self, pane: PaneRef) -> Result<Vec<String>, String> {
        commands::pane_screen(pane_id(pane)).map(|contents| contents.viewport)
    }

    fn screen_cursor(&self, pane: PaneRef) -> Result<ScreenAndCursor, String> {
        commands::pane_screen(pane_id(pane)).map(|contents| (contents.viewport, contents.cursor))
    }

    fn shown(&self, pane: PaneRef, telling: Option<Telling>) -> Option<Shown> {
        let contents = commands::pane_screen(pane_id(pane)).ok()?;
        Some(Shown::of(&contents.viewport, contents.cursor, telling))
    }

    fn screen_shown(
        &self,
        pane: PaneRef,
        telling: Option<Telling>,
    ) -> Result<(Vec<String>, Option<Shown>), String> {
        let contents = commands::pane_screen(pane_id(pane))?;
        let shown = Shown::of(&contents.viewport, contents.cursor, telling);
        Ok((contents.viewport, Some(shown)))
    }

    fn pane_info(&self, pane: PaneRef) -> Option<PaneInfo> {
        get_pane_info(pane_id(pane))
    }

    fn tab_info(&self, tab_id: usize) -> Option<TabInfo> {
        let mut tab = get_tab_info(tab_id)?;
        crate::host::tab_marks::unmark(&mut tab);
        Some(tab)
    }

    fn session_snapshot(&self) -> Option<SessionSnapshot> {
        let list = get_session_list().ok()?;
        let current = list
            .live_sessions
            .into_iter()
            .find(|s| s.is_current_session)?;
        Some(SessionSnapshot {
            tabs: current.tabs,
            panes: current.panes,
            clients: current.connected_clients,
        })
    }

    fn cwd(&self, pane: PaneRef) -> Option<String> {
        let cwd = get_pane_cwd(pane_id(pane)).ok()?;
        Some(cwd.display().to_string())
    }

    fn pid(&self, pane: PaneRef) -> Option<u32> {
        get_pane_pid(pane_id(pane))
            .ok()
            .and_then(|pid| u32::try_from(pid).ok())
    }

    fn running_command(&self, pane: PaneRef) -> Option<Vec<String>> {
        get_pane_running_command(pane_id(pane))
            .ok()
            .filter(|argv| !argv.is_empty())
    }

    fn write(&self, pane: PaneRef, bytes: Vec<u8>) {
        commands::write_to_pane_id(bytes, pane_id(pane));
    }

    fn signal(&self, pane: PaneRef, signal: Signal) {
        match signal {
            Signal::Interrupt => commands::write_to_pane_id(vec![3], pane_id(pane)),
            Signal::Sigint => send_sigint_to_pane_id(pane_id(pane)),
            Signal::Sigkill => send_sigkill_to_pane_id(pane_id(pane)),
        }
    }

    fn output(&self, pipe_id: &str, text: &str) {
        commands::cli_pipe_output(pipe_id, text);
    }

    fn block(&self, pipe_id: &str) {
        block_cli_pipe_input(pipe_id);
    }

    fn unblock(&self, pipe_id: &str) {
        unblock_cli_pipe_input(pipe_id);
    }

    fn set_timeout(&self, after: Duration) {
        // Zellij's timers break on negative or NaN values; Duration is neither.
        set_timeout(after.as_secs_f64());
    }

    fn render_events(&self, on: bool) {
        match on {
            true => subscribe(&[EventType::PaneRenderReport]),
            false => unsubscribe(&[EventType::PaneRenderReport]),
        }
    }

    fn new_tab(&self, name: Option<&str>, cwd: Option<&str>) -> Option<usize> {
        new_tab_unfocused(name, cwd)
    }

    fn new_tabs_with_layout(&self, kdl: &str) -> Vec<usize> {
        new_tabs_with_layout(kdl)
    }

    fn check_layout(&self, kdl: &str) -> Result<(), String> {
        parse_layout(kdl).map(|_| ()).map_err(|e| format!("{e:?}"))
    }

    fn named_layout(&self, name: &str) -> Result<String, String> {
        dump_layout(name)
    }

    fn go_to_tab(&self, position: usize) {
        go_to_tab(position as u32);
    }

    fn new_pane_in_tab(&self, tab_id: usize) -> Option<PaneRef> {
        // Despite its parameter name, Zellij 0.45.1 reads this as a tab id.
        new_tiled_pane_in_tab(tab_id).map(ref_of_id)
    }

    fn open_command(&self, content: &Content, landing: Landing) -> Option<PaneRef> {
        let Content::Command { argv, cwd } = content else {
            return None;
        };
        let command = command_to_run(argv, cwd)?;
        let context = Default::default();
        let pane = match landing {
            Landing::Hidden => open_command_pane_background(command, context),
            Landing::BesidePlugin => open_command_pane_near_plugin(command, context),
            Landing::FloatingBesidePlugin => {
                open_command_pane_floating_near_plugin(command, None, context)
            }
        };
        pane.map(ref_of_id)
    }

    fn replace(&self, pane: PaneRef, content: &Content) -> Option<PaneRef> {
        let context = Default::default();
        let new = match content {
            Content::Shell { cwd } => open_terminal_pane_in_place_of_pane_id(
                pane_id(pane),
                cwd.clone().unwrap_or_default(),
                true,
            ),
            Content::Command { argv, cwd } => open_command_pane_in_place_of_pane_id(
                pane_id(pane),
                command_to_run(argv, cwd)?,
                true,
                context,
            ),
            Content::Editor { path, line, cwd } => {
                let file = FileToOpen {
                    path: PathBuf::from(path),
                    line_number: *line,
                    cwd: cwd.as_ref().map(PathBuf::from),
                };
                open_edit_pane_in_place_of_pane_id(pane_id(pane), file, true, context)
            }
        };
        new.map(ref_of_id)
    }

    fn toggle_floating(&self, pane: PaneRef) {
        toggle_pane_embed_or_eject_for_pane_id(pane_id(pane));
    }

    fn toggle_fullscreen(&self, pane: PaneRef) {
        toggle_pane_id_fullscreen(pane_id(pane));
    }

    fn set_pinned(&self, pane: PaneRef, pinned: bool) {
        set_floating_pane_pinned(pane_id(pane), pinned);
    }

    fn resize(&self, pane: PaneRef, grow: bool, edge: Option<Edge>) {
        let strategy = ResizeStrategy {
            resize: if grow {
                Resize::Increase
            } else {
                Resize::Decrease
            },
            direction: edge.map(|e| match e {
                Edge::Left => Direction::Left,
                Edge::Right => Direction::Right,
                Edge::Up => Direction::Up,
                Edge::Down => Direction::Down,
            }),
            invert_on_boundaries: false,
        };
        resize_pane_with_id(strategy, pane_id(pane));
    }

    fn move_to_tab(&self, pane: PaneRef, tab_id: usize) {
        break_panes_to_tab_with_id(&[pane_id(pane)], tab_id, false);
    }

    fn hide(&self, pane: PaneRef) {
        hide_pane_with_id(pane_id(pane));
    }

    fn focus(&self, pane: PaneRef) {
        focus_pane_with_id(pane_id(pane), true, false);
    }

    fn close_pane(&self, pane: PaneRef) {
        close_pane_with_id(pane_id(pane));
    }

    fn close_tab(&self, tab_id: usize) {
        close_tab_with_id(tab_id as u64);
    }

    fn rename_pane(&self, pane: PaneRef, name: &str) {
        rename_pane_with_id(pane_id(pane), name);
    }

    fn rename_tab(&self, tab_id: usize, name: &str) {
        rename_tab_with_id(tab_id as u64, name);
    }

    fn message_plugin(&self, plugin_id: u32, name: &str, payload: String) {
        let message = MessageToPlugin::new(name)
            .with_destination_plugin_id(plugin_id)
            .with_payload(payload);
        pipe_message_to_plugin(message);
    }

    fn dump_layout(&self, tab_id: Option<usize>) -> Result<String, String> {
        match tab_id {
            Some(id) => dump_session_layout_for_tab(id),
            None => dump_session_layout(),
        }
        .map(|(kdl, _)| kdl)
    }

    fn run_command(&self, argv: &[String], context: BTreeMap<String, String>) {
        let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
        run_command(&argv, context);
    }
}
