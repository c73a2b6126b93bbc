//! A fake Zellij for the real plugin logic outside Zellij: [`FakeHost`]
//! records every call the plugin makes and answers queries from a small
//! fixed session (tab 3 with `terminal_1` and the plugin's own `plugin_5`),
//! and [`FakeSession`] drives a plugin on it the way Zellij does (pipe
//! messages in, replies out, timers fired as its clock passes them). The
//! plugin's own tests use it, and so do the bridge's in-process tests
//! (feature `fake-host`).

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};

use zellij_mcp_protocol::agent_programs::{AgentScreen, Telling};
use zellij_mcp_protocol::agent_screen::Shown;
use zellij_mcp_protocol::ops::{Direction as Edge, Signal};
use zellij_mcp_protocol::shell_line::ShellLine;
use zellij_mcp_protocol::{PaneRef, PIPE_NAME};
use zellij_tile::prelude::*;

use crate::host::{Content, Host, Ids, Landing, SessionSnapshot};
use crate::McpPlugin;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Call {
    Write(PaneRef, Vec<u8>),
    Output(String, String),
    Block(String),
    Unblock(String),
    Timeout(Duration),
    RenderEvents(bool),
    /// Any other Zellij call, by name and arguments.
    Do(String),
}

/// A clock that moves only when a test moves it.
#[derive(Clone)]
pub struct FakeClock {
    start: Instant,
    moved: Rc<Cell<Duration>>,
}

impl Default for FakeClock {
    fn default() -> Self {
        FakeClock {
            start: Instant::now(),
            moved: Rc::default(),
        }
    }
}

impl FakeClock {
    pub fn now(&self) -> Instant {
        self.start + self.moved.get()
    }

    /// Milliseconds since the epoch, from a fixed start.
    pub fn unix_ms(&self) -> u64 {
        1_800_000_000_000 + self.moved.get().as_millis() as u64
    }
}

#[derive(Default, Clone)]
pub struct FakeHost {
    pub(crate) client_id: u16,
    pub clock: FakeClock,
    pub(crate) calls: Rc<RefCell<Vec<Call>>>,
    /// What every pane shows.
    pub(crate) screen: Rc<RefCell<Vec<String>>>,
    /// A shell's line in every pane, where a test set one (else empty).
    /// What every pane's screen shows (default: an idle agent's composer,
    /// and an empty shell line, so messages and runs are typed).
    pub(crate) shown: Rc<RefCell<Option<Shown>>>,
    pub(crate) next_pane: Rc<RefCell<u32>>,
    /// Panes Zellij "has" beyond the fixed terminal_1 and plugin_5.
    pub(crate) opened: Rc<RefCell<Vec<PaneRef>>>,
    /// How Zellij shows a pane or tab now, where a test changed it from
    /// the defaults (`None`: gone).
    pub(crate) panes_shown: Rc<RefCell<HashMap<PaneRef, Option<PaneInfo>>>>,
    pub(crate) tabs_shown: Rc<RefCell<HashMap<usize, Option<TabInfo>>>>,
    /// What Zellij's session metadata shows (`None`: nothing yet).
    pub(crate) snapshot: Rc<RefCell<Option<SessionSnapshot>>>,
    /// The queries that cost Zellij a lookup, by name and pane.
    pub(crate) queries: Rc<RefCell<Vec<String>>>,
    /// When the timers set so far fire.
    pub(crate) timers: Rc<RefCell<Vec<Instant>>>,
    /// Zellij makes tabs without telling their ids (slower than its 1 s).
    pub(crate) tab_ids_untold: Rc<RefCell<bool>>,
    /// Zellij opens command panes, and replaces panes, without telling the
    /// new ids (slower than its 1 s).
    pub(crate) pane_ids_untold: Rc<RefCell<bool>>,
    /// Zellij's screen is too busy to tell a pane's info within its 100 ms.
    pub(crate) pane_info_untold: Rc<RefCell<bool>>,
    /// What every terminal pane runs (none set: `htop`).
    pub(crate) running: Rc<RefCell<Vec<String>>>,
    /// Zellij's screen is too busy to give a pane's rows.
    pub(crate) screens_untold: Rc<RefCell<bool>>,
}

impl FakeHost {
    /// Moves the clock on by `by`, as if that much time passed.
    pub fn advance(&self, by: Duration) {
        self.clock.moved.set(self.clock.moved.get() + by);
    }

    /// A new pane's id, as Zellij says it; none, after its 1 s, when it
    /// does not say new ids.
    fn new_id_told(&self, new: PaneRef) -> Option<PaneRef> {
        if *self.pane_ids_untold.borrow() {
            self.advance(Duration::from_secs(1));
            return None;
        }
        Some(new)
    }

    fn did(&self, what: String) {
        self.calls.borrow_mut().push(Call::Do(what));
    }

    /// The panes opened so far, oldest first.
    pub fn opened_panes(&self) -> Vec<PaneRef> {
        self.opened.borrow().clone()
    }

    fn new_pane(&self) -> PaneRef {
        let mut next = self.next_pane.borrow_mut();
        *next += 1;
        let pane = PaneRef::terminal(100 + *next);
        self.opened.borrow_mut().push(pane);
        pane
    }

    /// Zellij shows `pane` as `info` from now on (`None`: it is gone).
    #[cfg(test)]
    pub(crate) fn show_pane(&self, pane: PaneRef, info: Option<PaneInfo>) {
        self.panes_shown.borrow_mut().insert(pane, info);
    }

    /// Zellij shows tab `tab_id` as `info` from now on (`None`: it is gone).
    #[cfg(test)]
    pub(crate) fn show_tab(&self, tab_id: usize, info: Option<TabInfo>) {
        self.tabs_shown.borrow_mut().insert(tab_id, info);
    }
}

impl Host for FakeHost {
    fn ids(&self) -> Ids {
        Ids {
            plugin_id: 5,
            client_id: self.client_id,
            zellij_pid: 4242,
        }
    }
    fn now(&self) -> Instant {
        self.clock.now()
    }
    fn unix_ms(&self) -> u64 {
        self.clock.unix_ms()
    }
    fn heap_bytes(&self) -> usize {
        1 << 20
    }
    fn zellij_version(&self) -> String {
        "0.45.1".into()
    }
    fn list_clients(&self) {
        self.did("list_clients".into());
    }
    fn screen(&self, pane: PaneRef) -> Result<Vec<String>, String> {
        // As Zellij does, for a pane it does not have.
        if self.pane_info(pane).is_none() {
            return Err(format!("Pane {pane} not found"));
        }
        if *self.screens_untold.borrow() {
            return Err("timed out".into());
        }
        let screen = self.screen.borrow();
        if !screen.is_empty() {
            return Ok(screen.clone());
        }
        Ok(vec!["$ echo hi".into(), "hi   ".into(), "".into()])
    }
    fn shown(&self, _pane: PaneRef, telling: Option<Telling>) -> Option<Shown> {
        if *self.screens_untold.borrow() {
            return None;
        }
        let typed_into = Shown {
            still: 0,
            agent: Some(AgentScreen::Idle),
            described_by: None,
            composer: None,
            line: ShellLine::Empty,
        };
        let mut shown = self.shown.borrow().clone().unwrap_or(typed_into);
        // Only an agent's pane has an agent's state.
        shown.agent = shown.agent.filter(|_| telling.is_some());
        Some(shown)
    }
    fn pane_info(&self, pane: PaneRef) -> Option<PaneInfo> {
        if *self.pane_info_untold.borrow() {
            self.advance(Duration::from_millis(100));
            return None;
        }
        if let Some(shown) = self.panes_shown.borrow().get(&pane) {
            return shown.clone();
        }
        let known = [PaneRef::terminal(1), PaneRef::plugin(5)].contains(&pane)
            || self.opened.borrow().contains(&pane);
        known.then(|| PaneInfo {
            id: pane.id,
            is_plugin: pane.kind == zellij_mcp_protocol::PaneKind::Plugin,
            is_selectable: true,
            ..Default::default()
        })
    }
    fn tab_info(&self, tab_id: usize) -> Option<TabInfo> {
        if let Some(shown) = self.tabs_shown.borrow().get(&tab_id) {
            return shown.clone();
        }
        // A client is attached, showing tab 3.
        [3, 9].contains(&tab_id).then(|| TabInfo {
            tab_id,
            active: tab_id == 3,
            ..Default::default()
        })
    }
    fn session_snapshot(&self) -> Option<SessionSnapshot> {
        self.queries.borrow_mut().push("session_snapshot".into());
        self.snapshot.borrow().clone()
    }
    fn cwd(&self, pane: PaneRef) -> Option<String> {
        self.queries.borrow_mut().push(format!("cwd {pane}"));
        Some("/work".into())
    }
    fn pid(&self, pane: PaneRef) -> Option<u32> {
        (pane == PaneRef::terminal(1)).then_some(4321)
    }
    fn running_command(&self, pane: PaneRef) -> Option<Vec<String>> {
        self.queries
            .borrow_mut()
            .push(format!("running_command {pane}"));
        let running = self.running.borrow().clone();
        Some(match running.is_empty() {
            true => vec!["htop".into()],
            false => running,
        })
    }
    fn write(&self, pane: PaneRef, bytes: Vec<u8>) {
        self.calls.borrow_mut().push(Call::Write(pane, bytes));
    }
    fn signal(&self, pane: PaneRef, signal: Signal) {
        self.did(format!("signal {pane} {signal:?}"));
    }
    fn output(&self, pipe_id: &str, text: &str) {
        self.calls
            .borrow_mut()
            .push(Call::Output(pipe_id.into(), text.into()));
    }
    fn block(&self, pipe_id: &str) {
        self.calls.borrow_mut().push(Call::Block(pipe_id.into()));
    }
    fn unblock(&self, pipe_id: &str) {
        self.calls.borrow_mut().push(Call::Unblock(pipe_id.into()));
    }
    fn set_timeout(&self, after: Duration) {
        self.calls.borrow_mut().push(Call::Timeout(after));
        self.timers.borrow_mut().push(self.clock.now() + after);
    }
    fn render_events(&self, on: bool) {
        self.calls.borrow_mut().push(Call::RenderEvents(on));
    }
    fn new_tab(&self, name: Option<&str>, _cwd: Option<&str>) -> Option<usize> {
        self.did(format!("new_tab {name:?}"));
        (!*self.tab_ids_untold.borrow()).then_some(9)
    }
    fn new_tabs_with_layout(&self, _kdl: &str) -> Vec<usize> {
        self.did("new_tabs_with_layout".into());
        vec![9]
    }
    fn check_layout(&self, kdl: &str) -> Result<(), String> {
        kdl.starts_with("layout").then_some(()).ok_or("bad".into())
    }
    fn named_layout(&self, name: &str) -> Result<String, String> {
        (name == "compact")
            .then(|| "layout {}".into())
            .ok_or("none".into())
    }
    fn go_to_tab(&self, position: usize) {
        self.did(format!("go_to_tab {position}"));
    }
    fn new_pane_in_tab(&self, tab_id: usize) -> Option<PaneRef> {
        let pane = self.new_pane();
        self.did(format!("new_pane_in_tab {tab_id} -> {pane}"));
        Some(pane)
    }
    fn open_command(&self, content: &Content, landing: Landing) -> Option<PaneRef> {
        let new = self.new_pane();
        self.did(format!("open_command {landing:?} {content:?} -> {new}"));
        self.new_id_told(new)
    }
    fn replace(&self, pane: PaneRef, content: &Content) -> Option<PaneRef> {
        let new = self.new_pane();
        self.did(format!("replace {pane} {content:?} -> {new}"));
        self.new_id_told(new)
    }
    fn toggle_floating(&self, pane: PaneRef) {
        self.did(format!("toggle_floating {pane}"));
    }
    fn toggle_fullscreen(&self, pane: PaneRef) {
        self.did(format!("toggle_fullscreen {pane}"));
    }
    fn set_pinned(&self, pane: PaneRef, pinned: bool) {
        self.did(format!("set_pinned {pane} {pinned}"));
    }
    fn resize(&self, pane: PaneRef, grow: bool, edge: Option<Edge>) {
        self.did(format!("resize {pane} {grow} {edge:?}"));
    }
    fn move_to_tab(&self, pane: PaneRef, tab_id: usize) {
        self.did(format!("move_to_tab {pane} {tab_id}"));
    }
    fn hide(&self, pane: PaneRef) {
        self.did(format!("hide {pane}"));
    }
    fn focus(&self, pane: PaneRef) {
        self.did(format!("focus {pane}"));
    }
    fn close_pane(&self, pane: PaneRef) {
        self.did(format!("close_pane {pane}"));
    }
    fn close_tab(&self, tab_id: usize) {
        self.did(format!("close_tab {tab_id}"));
    }
    fn rename_pane(&self, pane: PaneRef, name: &str) {
        self.did(format!("rename_pane {pane} {name}"));
    }
    fn rename_tab(&self, tab_id: usize, name: &str) {
        self.did(format!("rename_tab {tab_id} {name}"));
    }
    fn message_plugin(&self, plugin_id: u32, name: &str, payload: String) {
        self.did(format!("message_plugin {plugin_id} {name} {payload}"));
    }
    fn dump_layout(&self, tab_id: Option<usize>) -> Result<String, String> {
        Ok(format!("layout {{ // {tab_id:?} }}"))
    }
    fn run_command(&self, argv: &[String], context: BTreeMap<String, String>) {
        self.did(format!("run_command {argv:?} {context:?}"));
    }
}

pub fn plugin_in(dir: &Path, client_id: u16) -> McpPlugin<FakeHost> {
    let mut plugin = McpPlugin {
        host: FakeHost {
            client_id,
            ..Default::default()
        },
        ..Default::default()
    };
    plugin.start(dir, BTreeMap::new());
    plugin.view.tabs = vec![TabInfo {
        position: 0,
        tab_id: 3,
        name: "main".into(),
        ..Default::default()
    }];
    plugin.view.panes = Some(PaneManifest {
        panes: HashMap::from([(
            0,
            vec![
                PaneInfo {
                    id: 1,
                    ..Default::default()
                },
                PaneInfo {
                    id: 5,
                    is_plugin: true,
                    plugin_url: Some("file:/x/zellij-mcp.wasm".into()),
                    ..Default::default()
                },
            ],
        )]),
    });
    plugin.host.calls.borrow_mut().clear();
    plugin
}

pub fn send(plugin: &mut McpPlugin<FakeHost>, pipe_id: &str, payload: Option<&str>) {
    plugin.take_pipe(PipeMessage {
        source: PipeSource::Cli(pipe_id.into()),
        name: PIPE_NAME.into(),
        payload: payload.map(Into::into),
        args: BTreeMap::new(),
        is_private: true,
    });
}

/// A fresh folder standing in for the shared `/cache`. All of a test run's
/// folders are under one root named for its process; the first call of a
/// run removes the roots of runs that have ended.
pub fn shared_dir(name: &str) -> PathBuf {
    static SWEPT: std::sync::Once = std::sync::Once::new();
    const ROOT: &str = "zellij-mcp-plugin-tests-";
    SWEPT.call_once(|| {
        let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let ended = name
                .strip_prefix(ROOT)
                .is_some_and(|pid| !Path::new("/proc").join(pid).exists());
            if ended {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    });
    let root = std::env::temp_dir().join(format!("{ROOT}{}", std::process::id()));
    let dir = root.join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A plugin on a [`FakeHost`], driven as Zellij drives it.
pub struct FakeSession {
    plugin: McpPlugin<FakeHost>,
}

impl FakeSession {
    /// A plugin started with `shared_dir` as its `/cache`, that has seen the
    /// fixed session.
    pub fn start(shared_dir: &Path) -> Self {
        FakeSession {
            plugin: plugin_in(shared_dir, 1),
        }
    }

    /// Hands the plugin one pipe message from a `zellij pipe` client.
    pub fn pipe(&mut self, pipe_id: &str, payload: &str) {
        send(&mut self.plugin, pipe_id, Some(payload));
    }

    /// Moves the clock on by `by`, firing the timers it passes.
    pub fn advance(&mut self, by: Duration) {
        self.plugin.host.advance(by);
        let now = self.plugin.host.now();
        let due = {
            let mut timers = self.plugin.host.timers.borrow_mut();
            let before = timers.len();
            timers.retain(|at| *at > now);
            before - timers.len()
        };
        for _ in 0..due {
            self.plugin.on_timer();
        }
    }

    /// How long until the next timer fires.
    pub fn next_timer(&self) -> Option<Duration> {
        let now = self.plugin.host.now();
        let timers = self.plugin.host.timers.borrow();
        timers
            .iter()
            .min()
            .map(|at| at.saturating_duration_since(now))
    }

    /// The lines written to `pipe_id`, once the plugin released it (and
    /// then no more: they are taken).
    pub fn released(&mut self, pipe_id: &str) -> Option<Vec<String>> {
        let mut calls = self.plugin.host.calls.borrow_mut();
        let released = calls
            .iter()
            .any(|c| matches!(c, Call::Unblock(p) if p == pipe_id));
        if !released {
            return None;
        }
        let mut lines = Vec::new();
        calls.retain(|call| match call {
            Call::Output(p, text) if p == pipe_id => {
                lines.extend(text.lines().map(str::to_owned));
                false
            }
            Call::Unblock(p) | Call::Block(p) => p != pipe_id,
            _ => true,
        });
        Some(lines)
    }
}
