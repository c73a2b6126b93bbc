//! Agent names: `register_agent`, and the names new panes are given.

use zellij_mcp_protocol::agent_name::check_agent_name;
use zellij_mcp_protocol::ops::{RegisterAgentArgs, TargetResult};
use zellij_mcp_protocol::{ErrorBody, PaneRef};

use super::{bad_request, now};
use crate::host::Host;
use crate::later::{Asker, HandlerResult};
use crate::McpPlugin;

impl<H: Host> McpPlugin<H> {
    /// `register_agent`: the caller's own pane takes the name.
    pub fn register_agent(&mut self, args: RegisterAgentArgs, asker: &Asker) -> HandlerResult {
        check_agent_name(&args.name)?;
        let Some(pane) = asker.caller else {
            return Err(bad_request(
                "this server does not know which pane it runs in",
                "call it from an agent that runs in a Zellij pane of this session",
            ));
        };
        self.require_terminal(pane)?;
        self.agents
            .assign(&args.name, pane, |p| self.host.pane_info(p).is_some())?;
        now(TargetResult {
            pane_id: Some(pane),
            tab_id: self.view.tab_id_of(pane),
            name: args.name,
        })
    }

    /// Checks a new pane's agent name before the pane is made.
    pub fn check_new_agent(&self, name: Option<&str>) -> Result<(), ErrorBody> {
        let Some(name) = name else { return Ok(()) };
        check_agent_name(name)?;
        self.agents
            .check_free(name, None, |p| self.host.pane_info(p).is_some())
    }

    /// Gives a new pane its agent name.
    pub fn name_new_agent(&mut self, name: Option<&str>, pane: PaneRef) -> Result<(), ErrorBody> {
        let Some(name) = name else { return Ok(()) };
        self.agents.assign(name, pane, |p| {
            p == pane || self.host.pane_info(p).is_some()
        })
    }

    /// Releases the names of panes Zellij no longer has.
    pub fn release_gone_agents(&mut self) {
        let exists = |p| self.view.find(p).is_some() || self.host.pane_info(p).is_some();
        self.agents.release_gone(exists);
    }
}
