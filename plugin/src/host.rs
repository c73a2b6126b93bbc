//! The few Zellij calls the plugin makes, behind a trait so that request
//! handling is unit-tested natively with a recording fake.

use std::time::Duration;

use zellij_mcp_protocol::{PaneKind, PaneRef};
use zellij_tile::prelude::*;

/// Who this instance is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ids {
    pub plugin_id: u32,
    pub client_id: u16,
    pub zellij_pid: u32,
}

pub trait Host {
    fn ids(&self) -> Ids;
    fn scrollback(&self, pane: PaneRef, full: bool) -> Result<PaneContents, String>;
    fn write(&self, pane: PaneRef, bytes: Vec<u8>);
    fn output(&self, pipe_id: &str, text: &str);
    fn block(&self, pipe_id: &str);
    fn unblock(&self, pipe_id: &str);
    fn set_timeout(&self, after: Duration);
}

/// The real host: zellij-tile calls.
#[derive(Debug, Default)]
pub struct ZellijHost;

fn pane_id(pane: PaneRef) -> PaneId {
    match pane.kind {
        PaneKind::Terminal => PaneId::Terminal(pane.id),
        PaneKind::Plugin => PaneId::Plugin(pane.id),
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

    fn scrollback(&self, pane: PaneRef, full: bool) -> Result<PaneContents, String> {
        get_pane_scrollback(pane_id(pane), full)
    }

    fn write(&self, pane: PaneRef, bytes: Vec<u8>) {
        write_to_pane_id(bytes, pane_id(pane));
    }

    fn output(&self, pipe_id: &str, text: &str) {
        cli_pipe_output(pipe_id, text);
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
}
