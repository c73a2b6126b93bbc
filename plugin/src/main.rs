//! The zellij-mcp plugin: runs inside a Zellij session and carries out the
//! bridge's requests on panes **by id**, through the plugin API, without ever
//! moving focus.
//!
//! - [`pipe`]: the request protocol and the op dispatch table.
//! - [`handlers`]: one handler per op.
//! - [`events`]: one function per Zellij event.
//! - [`lease`]: which of the per-client instances acts (exactly once).
//! - [`writes`]: per-pane FIFO of writes and timed submit CRs.
//! - [`waits`]: event-driven waits on output, idleness and exit.
//! - [`pending`]: replies that wait for the session to show their effect.
//! - [`replay`]: recent replies, for requests whose pipe client died.
//! - [`session`]: tabs, panes and clients as the last events described them.
//! - [`host`]: the Zellij calls, behind a trait for native tests.

mod events;
mod handlers;
mod host;
mod lease;
mod pending;
mod pipe;
mod replay;
mod session;
mod waits;
mod writes;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use zellij_mcp_protocol::ops::{DEFAULT_SUBMIT_DELAY_MS, MAX_SUBMIT_DELAY_MS};
use zellij_tile::prelude::*;

use handlers::Purpose;
use host::{Host, ZellijHost};
use lease::{Instance, Lease};
use pending::PendingReplies;
use session::SessionView;
use waits::Wait;
use writes::{Step, WriteQueue};

/// How often each instance renews or checks the lease.
const HEARTBEAT: Duration = Duration::from_secs(1);
/// The plugin's shared folder (across instances of this plugin URL).
const SHARED_DIR: &str = "/cache";

const PERMISSIONS: &[PermissionType] = &[
    PermissionType::ReadApplicationState,
    PermissionType::ChangeApplicationState,
    PermissionType::ReadPaneContents,
    PermissionType::WriteToStdin,
    PermissionType::ReadCliPipes,
    PermissionType::RunCommands,
    PermissionType::OpenTerminalsOrPlugins,
    PermissionType::OpenFiles,
];

#[derive(Default)]
pub struct McpPlugin<H: Host + 'static> {
    host: H,
    configuration: BTreeMap<String, String>,
    submit_delay_ms: u64,
    lease: Option<Lease>,
    view: SessionView,
    writes: WriteQueue,
    waits: Vec<Wait<Purpose>>,
    pending: PendingReplies,
    /// Exit codes from `CommandPaneExited`, for panes this plugin opened.
    exit_codes: BTreeMap<u32, Option<i32>>,
    next_heartbeat: Option<Instant>,
    /// When this instance last got a pane or tab event (unix ms).
    fed_ms: u64,
    /// The earliest timer already armed for waits and pending replies.
    next_wake: Option<Instant>,
    replies: replay::Replies,
    /// Work to do on the next timer, outside any pipe message.
    deferred: Vec<Deferred<H>>,
}

type Deferred<H> = Box<dyn FnOnce(&mut McpPlugin<H>)>;

register_plugin!(McpPlugin<ZellijHost>);

impl ZellijPlugin for McpPlugin<ZellijHost> {
    fn load(&mut self, configuration: BTreeMap<String, String>) {
        // Grants are pre-seeded or answered by the user; never wait for the
        // PermissionRequestResult event (it does not come when pre-seeded).
        request_permission(PERMISSIONS);
        subscribe(&[
            EventType::PaneUpdate,
            EventType::TabUpdate,
            EventType::Timer,
            EventType::ListClients,
            EventType::PaneRenderReport,
            EventType::CommandPaneExited,
        ]);
        // Not hide_self(): it does not hide a tiled pane in 0.45.1, and it
        // stops the pane and tab events this plugin lives on.
        set_selectable(false);
        self.start(Path::new(SHARED_DIR), configuration);
    }

    fn update(&mut self, event: Event) -> bool {
        match event {
            Event::PaneUpdate(manifest) => self.on_pane_update(manifest),
            Event::TabUpdate(tabs) => self.on_tab_update(tabs),
            Event::ListClients(clients) => self.on_clients(clients),
            Event::PaneRenderReport(rendered) => self.on_render(rendered),
            Event::CommandPaneExited(pane, code, _) => self.on_command_exited(pane, code),
            Event::Timer(_) => self.on_timer(),
            _ => {}
        }
        false
    }

    fn pipe(&mut self, message: PipeMessage) -> bool {
        self.on_pipe(message);
        false
    }
}

impl<H: Host> McpPlugin<H> {
    fn start(&mut self, shared_dir: &Path, configuration: BTreeMap<String, String>) {
        self.submit_delay_ms = configuration
            .get("submit_delay_ms")
            .and_then(|v| v.parse::<u64>().ok())
            .map_or(DEFAULT_SUBMIT_DELAY_MS, |ms| ms.min(MAX_SUBMIT_DELAY_MS));
        self.configuration = configuration;
        let ids = self.host.ids();
        let me = Instance {
            plugin_id: ids.plugin_id,
            client_id: ids.client_id,
        };
        Lease::sweep(shared_dir, unix_ms());
        let lease = Lease::new(shared_dir, ids.zellij_pid, me);
        lease.announce();
        self.lease = Some(lease);
        self.heartbeat(Instant::now());
    }

    /// Whether this instance handles requests now (renewing or claiming the lease).
    fn is_acting(&self) -> bool {
        self.lease
            .as_ref()
            .is_some_and(|l| l.check(unix_ms(), self.fed_ms))
    }

    fn run_steps(&mut self, steps: Vec<Step>) {
        for step in steps {
            match step {
                Step::Write(pane, bytes) => self.host.write(pane, bytes),
                Step::WriteCr(pane) => self.host.write(pane, b"\r".to_vec()),
                Step::ArmTimer(after) => self.host.set_timeout(after),
                Step::Reply(done) => {
                    let result = handlers::to_json(handlers::write_result(&done));
                    self.answer(&done.pipe_id, &done.request_id, result);
                }
            }
        }
    }
}

pub(crate) fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or_default()
}

#[cfg(test)]
mod properties;
#[cfg(test)]
mod tests;
