//! Agent names: `register_agent`, and the names new panes are given.

use zellij_mcp_protocol::agent_name::check_agent_name;
use zellij_mcp_protocol::ops::{Happened, RegisterAgentArgs, TargetResult};
use zellij_mcp_protocol::{ErrorBody, PaneRef};

use super::{bad_request, now, HandlerResult, Zellij};
use crate::agents::Agents;
use crate::event_log::EventLog;
use crate::host::Host;
use crate::later::Asker;

/// What naming a pane touches: the names, and the log that records them.
pub struct Naming<'a> {
    pub agents: &'a mut Agents,
    pub log: &'a mut EventLog,
}

impl Naming<'_> {
    /// Checks a new pane's agent name before the pane is made.
    pub fn check_free<H: Host>(&self, z: &Zellij<H>, name: Option<&str>) -> Result<(), ErrorBody> {
        let Some(name) = name else { return Ok(()) };
        check_agent_name(name)?;
        self.agents
            .check_free(name, None, |p| z.pane_now(p).is_some())
    }

    /// Gives `pane` its agent name, and logs it.
    pub fn name<H: Host>(
        &mut self,
        z: &Zellij<H>,
        name: Option<&str>,
        pane: PaneRef,
    ) -> Result<(), ErrorBody> {
        let Some(name) = name else { return Ok(()) };
        let exists = |p| p == pane || z.pane_now(p).is_some();
        self.agents.assign(name, pane, exists, z.host.now())?;
        let registered = Happened::Registered {
            name: name.to_owned(),
            pane_id: pane,
        };
        self.log.record(z.host.unix_ms(), registered);
        Ok(())
    }
}

impl<H: Host> Zellij<'_, H> {
    /// `register_agent`: the caller's own pane takes the name.
    pub fn register_agent(
        &self,
        naming: &mut Naming,
        args: RegisterAgentArgs,
        asker: &Asker,
    ) -> HandlerResult {
        check_agent_name(&args.name)?;
        let Some(pane) = asker.caller else {
            return Err(bad_request(
                "this server does not know which pane it runs in",
                "call it from an agent that runs in a Zellij pane of this session",
            ));
        };
        self.require_terminal(pane)?;
        let exists = |p| self.pane_now(p).is_some();
        naming
            .agents
            .assign(&args.name, pane, exists, self.host.now())?;
        let registered = Happened::Registered {
            name: args.name.clone(),
            pane_id: pane,
        };
        naming.log.record(self.host.unix_ms(), registered);
        now(TargetResult {
            pane_id: Some(pane),
            tab_id: self.view.tab_id_of(pane),
            name: args.name,
        })
    }
}
