//! Agent names: `register_agent`, and the names new panes are given.

use std::time::Duration;

use zellij_mcp_protocol::agent_name::{check_agent_name, parent_of, SERVER_NAME};
use zellij_mcp_protocol::ops::{Happened, RegisterAgentArgs, TargetResult, DEFAULT_MESSAGE_TTL_S};
use zellij_mcp_protocol::{ErrorBody, PaneRef};

use super::HandlerResult;
use super::{bad_request, now, pane_now};
use crate::host::Host;
use crate::later::Asker;
use crate::messages::Recipient;
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
        let (host, view) = (&self.host, &self.view);
        let exists = |p| pane_now(host, view, p).is_some();
        self.agents.assign(&args.name, pane, exists, host.now())?;
        self.log_event(Happened::Registered {
            name: args.name.clone(),
            pane_id: pane,
        });
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
            .check_free(name, None, |p| self.pane_now(p).is_some())
    }

    /// Gives a new pane its agent name.
    pub fn name_new_agent(&mut self, name: Option<&str>, pane: PaneRef) -> Result<(), ErrorBody> {
        let Some(name) = name else { return Ok(()) };
        let (host, view) = (&self.host, &self.view);
        let exists = |p| p == pane || pane_now(host, view, p).is_some();
        self.agents.assign(name, pane, exists, host.now())?;
        self.log_event(Happened::Registered {
            name: name.to_owned(),
            pane_id: pane,
        });
        Ok(())
    }

    /// Releases the names of panes Zellij no longer has, telling their
    /// parents.
    pub fn release_gone_agents(&mut self) {
        let (host, view) = (&self.host, &self.view);
        let gone = self
            .agents
            .release_gone(|p| pane_now(host, view, p).is_some(), host.now());
        self.tell_released(gone);
    }

    /// The names of panes this plugin has just closed are free at once:
    /// Zellij may list the panes a moment longer.
    pub fn release_closed_agents(&mut self, closed: &[PaneRef]) {
        let gone = self.agents.release_closed(closed, self.host.now());
        self.tell_released(gone);
    }

    fn tell_released(&mut self, gone: Vec<(String, PaneRef)>) {
        for (name, pane_id) in gone {
            self.log_event(Happened::Closed {
                name: name.clone(),
                pane_id,
            });
            self.tell_parent(&name, "closed");
        }
    }

    /// A command pane exited: its agent's parent is told, with the code.
    pub fn agent_exited(&mut self, pane: PaneRef, code: Option<i32>) {
        if let Some(name) = self.agents.by_pane().remove(&pane) {
            self.log_event(Happened::Exited {
                name: name.clone(),
                pane_id: pane,
                code,
            });
            let what = match code {
                Some(code) => format!("exited with code {code}"),
                None => "exited".to_owned(),
            };
            self.tell_parent(&name, &what);
        }
    }

    /// Sends `child <name> <what>` to the agent's parent, unless the layout
    /// turned child events off or the name has no parent.
    fn tell_parent(&mut self, name: &str, what: &str) {
        let Some(parent) = parent_of(name).filter(|_| self.settings.child_events) else {
            return;
        };
        let text = format!("child {name} {what}");
        let to = Recipient::Agent(parent.to_owned());
        let ttl = Duration::from_secs(DEFAULT_MESSAGE_TTL_S);
        if let Ok(message) = self.queue_message(to, SERVER_NAME, &text, ttl, SERVER_NAME) {
            self.outbox.push(message);
            self.pump_messages();
        }
    }
}
