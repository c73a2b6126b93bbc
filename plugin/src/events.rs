//! One function per Zellij event the plugin subscribes to. Each updates the
//! session view, then lets waiting requests (waits, pending replies, queued
//! writes) react; timers are armed for the next deadline only.

use std::time::{Duration, Instant};

use std::collections::HashMap;

use zellij_tile::prelude::{ClientInfo, PaneContents, PaneId, PaneManifest, TabInfo};

use crate::handlers::ScreenText;
use crate::host::{pane_ref, Host};
use crate::waits::{Screen, Wait};
use crate::{McpPlugin, Purpose, HEARTBEAT};

/// Waits re-check at least this often: Zellij sends no render events for
/// hidden panes, unviewed tabs, or when no client is attached.
pub const WAIT_RECHECK: Duration = Duration::from_millis(250);
/// Without pane or tab events for this long, the view is refreshed from
/// Zellij's session metadata before each request. (Never from `load` or a
/// timer: before the permissions apply, that call would kill the plugin.)
const STARVED_AFTER: Duration = Duration::from_secs(2);
/// Exit codes kept from `CommandPaneExited`, for waits on panes we opened.
const KEPT_EXIT_CODES: usize = 256;
/// Timers fire a little early or late; treat this as "now".
const TIMER_SLACK: Duration = Duration::from_millis(5);

impl<H: Host> McpPlugin<H> {
    pub fn on_pane_update(&mut self, manifest: PaneManifest) {
        self.view.panes = Some(manifest);
        self.fed();
    }

    pub fn on_tab_update(&mut self, tabs: Vec<TabInfo>) {
        self.view.tabs = tabs;
        self.fed();
    }

    /// This instance gets session events: it may take the lease over from
    /// one that does not (see [`crate::lease`]).
    fn fed(&mut self) {
        self.fed_ms = crate::unix_ms();
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
            let pane = pane_ref(pane);
            if !self.waits.iter().any(|wait| wait.pane == pane) {
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
        self.exit_codes.insert(pane, code);
        // Pane ids only grow: the lowest are the oldest.
        while self.exit_codes.len() > KEPT_EXIT_CODES {
            self.exit_codes.pop_first();
        }
        self.check_waits(|wait| wait.pane.id == pane, None);
    }

    pub fn on_timer(&mut self) {
        for work in std::mem::take(&mut self.deferred) {
            work(self);
        }
        let now = Instant::now();
        let steps = self.writes.on_timer(now);
        self.run_steps(steps);
        if self.next_wake.is_some_and(|wake| wake <= now + TIMER_SLACK) {
            self.next_wake = None;
        }
        self.after_view_change();
        // Other timers (submit CRs, waits) also land here; only a due heartbeat re-arms.
        if self
            .next_heartbeat
            .is_none_or(|due| now + Duration::from_millis(100) >= due)
        {
            self.heartbeat(now);
        }
    }

    pub fn heartbeat(&mut self, now: Instant) {
        self.is_acting();
        self.host.set_timeout(HEARTBEAT);
        self.next_heartbeat = Some(now + HEARTBEAT);
    }

    /// Zellij sends pane and tab events only while a client views the
    /// plugin's tab; without them, the view comes from the session metadata.
    pub fn refresh_if_starved(&mut self) {
        let starved =
            crate::unix_ms().saturating_sub(self.fed_ms) > STARVED_AFTER.as_millis() as u64;
        if !self.view.is_ready() || starved {
            if let Some((tabs, panes)) = self.host.session_snapshot() {
                self.view.tabs = tabs;
                self.view.panes = Some(panes);
            }
        }
    }

    /// Settles pending replies and re-checks every wait.
    pub fn after_view_change(&mut self) {
        let now = Instant::now();
        for done in self.pending.settle(&self.view, &self.host, now) {
            self.answer(&done.pipe_id, &done.request_id, done.outcome);
        }
        self.check_waits(|_| true, None);
    }

    /// Checks the waits `which` selects (on `screen`, when an event brought
    /// it), answers finished ones, and arms a timer for the earliest
    /// deadline left.
    pub fn check_waits(
        &mut self,
        which: impl Fn(&Wait<Purpose>) -> bool,
        screen: Option<Screen<'_>>,
    ) {
        let now = Instant::now();
        let mut index = 0;
        while index < self.waits.len() {
            if which(&self.waits[index]) {
                if let Some(finished) = self.check_wait(index, screen, now) {
                    let wait = self.waits.swap_remove(index);
                    self.finish_wait(wait, finished);
                    continue;
                }
            }
            index += 1;
        }
        self.arm_wake(now);
    }

    /// Arms one timer for the earliest moment a wait or pending reply is due.
    fn arm_wake(&mut self, now: Instant) {
        let due = self
            .waits
            .iter()
            .flat_map(|w| {
                [
                    Some(w.deadline()),
                    w.idle_due(),
                    w.exit_due(),
                    w.unseen_due(),
                    Some(now + WAIT_RECHECK),
                ]
            })
            .flatten()
            .chain(self.pending.next_deadline())
            .min();
        let Some(due) = due else { return };
        if self.next_wake.is_none_or(|wake| due + TIMER_SLACK < wake) {
            self.host.set_timeout(due.saturating_duration_since(now));
            self.next_wake = Some(due);
        }
    }
}
