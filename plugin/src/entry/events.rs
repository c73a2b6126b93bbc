//! One function per Zellij event the plugin subscribes to. Each updates the
//! session view, then lets waiting requests (waits, replies that wait for
//! the view, queued writes) react; timers are armed for the next deadline only.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use zellij_tile::prelude::{ClientInfo, Event, PaneContents, PaneId, PaneManifest, TabInfo};

use crate::handlers::ScreenText;
use crate::host::{ref_of_id, Host};
use crate::state::later::SHOWN_LOOK_EVERY;
use crate::state::waits::Screen;
use crate::work::keeping::{END_LEFTOVERS, LOOK_UP};
use crate::{McpPlugin, HEARTBEAT};

/// Without pane or tab events for this long, the view is refreshed from
/// Zellij's session metadata before each request. (Never from `load` or a
/// timer: before the permissions apply, that call would kill the plugin.)
const VIEW_STARVED_AFTER: Duration = Duration::from_secs(2);
/// A refresh this recent serves requests that change nothing: taking one
/// costs Zellij a scan of every session's metadata (about 1.5 ms), which
/// many callers listing at once would otherwise each pay for.
const SNAPSHOT_REUSED_FOR: Duration = Duration::from_millis(50);

impl<H: Host> McpPlugin<H> {
    /// One event, to its function.
    pub fn handle(&mut self, event: Event) {
        match event {
            Event::PaneUpdate(manifest) => self.on_pane_update(manifest),
            Event::TabUpdate(tabs) => self.on_tab_update(tabs),
            Event::ListClients(clients) => self.on_clients(clients),
            Event::PaneRenderReport(rendered) => self.on_render(rendered),
            Event::CommandPaneExited(pane, code, _) => self.on_command_exited(pane, code),
            Event::CommandPaneReRun(pane, _) => self.view.exit_codes.rerun(pane),
            Event::CwdChanged(pane, cwd, _) => self.on_cwd_changed(pane, cwd),
            Event::CommandChanged(pane, argv, _, _) => self.on_command_changed(pane, argv),
            Event::Timer(_) => self.on_timer(),
            Event::RunCommandResult(_, stdout, _, context)
                if context.get("look_up").map(String::as_str) == Some(LOOK_UP) =>
            {
                self.conversation_found(&stdout, &context)
            }
            Event::RunCommandResult(_, _, _, context) if context.contains_key(END_LEFTOVERS) => {
                self.leftovers_ended(&context)
            }
            _ => {}
        }
    }

    /// Render events come only while waits are under way: they are the
    /// waits' news, and each costs a copy of every changed pane's screen
    /// (a session with a client attached renders on every change). A new
    /// wait looks at its pane at once and then on its timer until the
    /// first render event comes, so none is missed in between.
    pub fn follow_renders_while_waiting(&mut self) {
        let waiting = !self.waits.is_empty();
        if waiting != self.renders_followed {
            self.host.render_events(waiting);
            self.renders_followed = waiting;
        }
    }

    pub fn on_pane_update(&mut self, manifest: PaneManifest) {
        self.take_panes(manifest);
        self.fed();
        if self.is_acting() {
            self.release_gone_agents();
        }
    }

    pub fn on_tab_update(&mut self, tabs: Vec<TabInfo>) {
        self.view.set_tabs(tabs);
        self.fed();
    }

    /// This instance gets session events: it may take the lease over from
    /// one that does not (see [`crate::state::lease`]).
    fn fed(&mut self) {
        self.view.fed_ms = self.host.unix_ms();
        self.is_acting();
        self.after_view_change();
    }

    pub fn on_clients(&mut self, clients: Vec<ClientInfo>) {
        self.view.clients = clients;
        self.view.clients_generation += 1;
        self.after_view_change();
    }

    /// Panes whose screen changed, with their screens: waits on them look
    /// at once, at the screen the event brought.
    pub fn on_render(&mut self, rendered: HashMap<PaneId, PaneContents>) {
        for (pane, contents) in rendered {
            let pane = ref_of_id(pane);
            if !self.waits.on_pane(pane) {
                continue;
            }
            let text = ScreenText::new(contents.viewport);
            let rows = text.lines();
            let screen = Screen {
                rows: &rows,
                height: text.height,
            };
            self.check_waits(|wait| wait.pane == pane, Some(screen));
        }
    }

    pub fn on_command_exited(&mut self, pane: u32, code: Option<i32>) {
        self.view.exit_codes.insert(pane, code);
        self.check_waits(|wait| wait.pane.id == pane, None);
        if self.takes(&[b"exited", &pane.to_le_bytes()], None) {
            self.agent_exited(zellij_mcp_protocol::PaneRef::terminal(pane), code);
        }
    }

    pub fn on_cwd_changed(&mut self, pane: PaneId, cwd: PathBuf) {
        let cwd = cwd.display().to_string();
        self.pane_facts.cwd_changed(ref_of_id(pane), cwd);
    }

    pub fn on_command_changed(&mut self, pane: PaneId, argv: Vec<String>) {
        self.pane_facts.command_changed(ref_of_id(pane), argv);
    }

    pub fn on_timer(&mut self) {
        self.run_due_tasks();
        let now = self.host.now();
        let steps = self.take_cr_when_shown(now);
        self.run_steps(steps);
        self.shell_runs_due(now);
        self.requests.later.timer_fired(now);
        if self.requests.later.next_deadline().is_some() {
            // Held replies wait for the view: one Zellij stopped feeding
            // (no client views the plugin's tab) is refreshed here.
            self.refresh_if_starved_for(SHOWN_LOOK_EVERY);
        }
        self.after_view_change();
        // Other timers (submit CRs, waits) also land here; only a due heartbeat re-arms.
        if self.acting.heartbeat_due(now) {
            self.heartbeat(now);
        }
        self.follow_renders_while_waiting();
    }

    pub fn heartbeat(&mut self, now: Instant) {
        if let Some(programs) = self.programs_file.changed() {
            self.programs = programs;
        }
        if self.is_acting() {
            self.look_at_agents();
            self.keep_agents();
        }
        self.host.set_timeout(HEARTBEAT);
        self.acting.next_heartbeat = Some(now + HEARTBEAT);
    }

    /// Zellij sends pane and tab events only while a client views the
    /// plugin's tab; without them, the view comes from the session metadata.
    pub fn refresh_if_starved(&mut self) {
        self.refresh_if_starved_for(SNAPSHOT_REUSED_FOR);
    }

    /// As [`Self::refresh_if_starved`], keeping a snapshot younger than `age`.
    pub fn refresh_if_starved_for(&mut self, age: Duration) {
        let starved = self.starved();
        let recent = self
            .view
            .snapshot_at
            .is_some_and(|at| self.host.now().saturating_duration_since(at) < age);
        if !self.view.is_ready() || (starved && !recent) {
            self.refresh_view();
        }
    }

    /// The view from the session metadata, now.
    pub fn refresh_view(&mut self) {
        if let Some(snapshot) = self.host.session_snapshot() {
            self.view.set_tabs(snapshot.tabs);
            self.take_panes(snapshot.panes);
            self.view.clients_attached = Some(snapshot.clients);
            self.view.snapshot_at = Some(self.host.now());
        }
    }

    fn starved(&self) -> bool {
        self.host.unix_ms().saturating_sub(self.view.fed_ms) > VIEW_STARVED_AFTER.as_millis() as u64
    }

    /// No client is attached: Zellij then tells `zellij subscribe`
    /// subscribers of every change to their panes, rendered or not.
    pub fn headless(&self) -> bool {
        self.starved() && self.view.clients_attached == Some(0)
    }

    /// The panes as Zellij lists them now; facts of panes gone are dropped.
    fn take_panes(&mut self, manifest: PaneManifest) {
        self.view.panes = Some(manifest);
        let live = self.view.pane_refs();
        let now_ms = self.host.unix_ms();
        self.pane_facts
            .keep_only(|pane| live.contains(&pane), now_ms);
        self.hooks.keep_only(|pane| live.contains(&pane));
    }

    /// Answers what the view now shows, re-checks every wait, and delivers
    /// messages whose target may have appeared.
    pub fn after_view_change(&mut self) {
        self.settle_shown();
        self.check_waits(|_| true, None);
        self.pump_messages();
    }
}
