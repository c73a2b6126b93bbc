//! Read-only ops: hello, session info, tabs, panes, layout.

use zellij_mcp_protocol::launcher::{program_name, program_of_command};
use zellij_mcp_protocol::ops::{
    ClientEntry, DumpLayoutArgs, DumpLayoutResult, HelloResult, ListPanesArgs, ListPanesResult,
    ListTabsResult, PaneEntry, PaneOfProcessArgs, PaneOfProcessResult, PluginMemory,
    SessionInfoResult,
};
use zellij_mcp_protocol::{Error, ErrorBody, PaneKind, PaneRef, PROTOCOL_VERSION};

use super::{now, to_json, Zellij};
use super::{Handled, HandlerResult};
use crate::host::{ref_of_id, Host};
use crate::state::agents::{Agents, Named};
use crate::state::attention::Attention;
use crate::state::later::{Asker, Live};
use crate::state::lease::Acting;
use crate::state::pane_facts::PaneFacts;
use crate::state::session::SessionView;
use crate::Settings;

impl<H: Host> Zellij<'_, H> {
    pub fn hello(
        &self,
        settings: &Settings,
        acting: &Acting,
        wait_looks: u64,
        programs_digest: &str,
    ) -> HandlerResult {
        let ids = self.host.ids();
        let own_pane = self.view.find(PaneRef::plugin(ids.plugin_id));
        now(HelloResult {
            plugin_version: env!("CARGO_PKG_VERSION").to_owned(),
            protocol: PROTOCOL_VERSION,
            plugin_id: ids.plugin_id,
            client_id: ids.client_id,
            zellij_pid: ids.zellij_pid,
            plugin_url: own_pane.and_then(|(_, p)| p.plugin_url.clone()),
            configuration: settings.configuration.clone(),
            ready: self.view.is_ready(),
            instances: acting.instances(),
            build_id: crate::build_id().to_owned(),
            wait_looks,
            programs_digest: programs_digest.to_owned(),
        })
    }

    /// Asks Zellij for the clients and answers when they arrive, with what
    /// the plugin holds (`plugin_memory`, `active_waits`).
    pub fn session_info(
        &self,
        plugin_memory: PluginMemory,
        active_waits: usize,
        asker: &Asker,
    ) -> HandlerResult {
        self.require_ready()?;
        let generation = self.view.clients_generation;
        let zellij_version = self.host.zellij_version();
        let caller = asker.caller;
        self.host.list_clients();
        let settle = move |view: &SessionView, _: &dyn Live, overdue: bool| {
            (view.clients_generation > generation || overdue).then(|| {
                to_json(SessionInfoResult {
                    zellij_version: zellij_version.clone(),
                    plugin_version: env!("CARGO_PKG_VERSION").to_owned(),
                    protocol: PROTOCOL_VERSION,
                    clients: client_entries(view),
                    own_pane_id: caller.filter(|p| view.find(*p).is_some()),
                    own_tab_id: caller.and_then(|p| view.tab_id_of(p)),
                    tabs: view.tabs.len(),
                    panes: view.pane_refs().len(),
                    active_waits,
                    plugin_memory: plugin_memory.clone(),
                    ..Default::default()
                })
            })
        };
        Ok(Handled::WhenShown(Box::new(settle)))
    }

    pub fn list_tabs(&self) -> HandlerResult {
        self.require_ready()?;
        now(ListTabsResult {
            tabs: self.view.tab_entries(),
        })
    }

    /// `list_panes`, with each pane's cwd and running command from `facts`
    /// and its agent name from `agents`.
    pub fn list_panes(
        &self,
        facts: &mut PaneFacts,
        agents: &Agents,
        attention: &Attention,
        args: ListPanesArgs,
    ) -> HandlerResult {
        self.require_ready()?;
        let tab_id = match &args.tab {
            Some(tab) => Some(self.view.resolve_tab(tab)?.tab_id),
            None => None,
        };
        let mut panes: Vec<PaneEntry> = self
            .view
            .entries()
            .into_iter()
            .filter(|p| args.include_plugins || p.pane_id.kind == PaneKind::Terminal)
            .filter(|p| tab_id.is_none() || p.tab_id == tab_id)
            .filter(|p| args.exited.is_none_or(|e| p.exited == e))
            .filter(|p| args.floating.is_none_or(|f| p.floating == f))
            .filter(|p| {
                args.title
                    .as_ref()
                    .is_none_or(|t| p.title.contains(t.as_str()))
            })
            .collect();
        let (mut names, reading_lines) = (agents.by_pane(), agents.reading_lines());
        for pane in &mut panes {
            pane.agent = names.remove(&pane.pane_id);
            let reads_lines = reading_lines.contains(&pane.pane_id);
            let named = Named::of(pane.agent.is_some(), reads_lines);
            let terminal = pane.pane_id.kind == PaneKind::Terminal;
            if terminal {
                pane.pid = self.pid_of(facts, pane.pane_id);
            }
            let details = pane.details.get_or_insert_with(Default::default);
            let known = (terminal && !pane.exited).then(|| facts.of(self.host, pane.pane_id));
            let running = known.and_then(|facts| facts.running.as_deref());
            pane.program = match running {
                Some(argv) => program_name(argv),
                None => details.command.as_deref().and_then(program_of_command),
            };
            if let Some(known) = known.filter(|_| args.details || args.command.is_some()) {
                (details.cwd, details.running) = (known.cwd.clone(), known.running.clone());
            }
            // Only an agent's screen is read: one read per agent pane.
            let agent = named.any()
                || pane
                    .program
                    .as_deref()
                    .is_some_and(|p| self.programs.is_agent(p));
            if agent && pane.state.is_none() {
                let shown = self.shown_state(facts, pane.pane_id, false, named).0;
                pane.state = attention.told(pane.pane_id, shown);
            }
        }
        if let Some(needle) = &args.command {
            panes.retain(|p| {
                let Some(details) = &p.details else {
                    return false;
                };
                let running = details.running.as_ref().map(|argv| argv.join(" "));
                let started = details.command.as_deref();
                let hit = [started, running.as_deref()]
                    .into_iter()
                    .flatten()
                    .any(|c| c.contains(needle.as_str()));
                hit
            });
        }
        if !args.details {
            panes.iter_mut().for_each(|p| p.details = None);
        }
        now(ListPanesResult { panes })
    }

    /// `pane_of_process`: the terminal pane running one of `pids`.
    pub fn pane_of_process(&self, args: PaneOfProcessArgs) -> HandlerResult {
        self.require_ready()?;
        let pane_id = self
            .view
            .entries()
            .into_iter()
            .map(|entry| entry.pane_id)
            .filter(|pane| pane.kind == PaneKind::Terminal)
            .find(|pane| {
                self.host
                    .pid(*pane)
                    .is_some_and(|pid| args.pids.contains(&pid))
            });
        now(PaneOfProcessResult { pane_id })
    }

    pub fn dump_layout(&self, args: DumpLayoutArgs) -> HandlerResult {
        self.require_ready()?;
        let tab = match &args.tab {
            Some(tab) => Some(self.view.resolve_tab(tab)?.clone()),
            None => None,
        };
        let tab_id = tab.as_ref().map(|t| t.tab_id);
        // Zellij 0.45.1 fails to dump the plugin's own tab alone; cut it out
        // of the whole session's layout instead.
        let layout = self
            .host
            .dump_layout(tab_id)
            .or_else(|e| match &tab {
                Some(tab) => self
                    .host
                    .dump_layout(None)
                    .and_then(|all| tab_of_layout(&all, &tab.name).ok_or(e)),
                None => Err(e),
            })
            .map_err(|e| {
                ErrorBody::from(Error::Internal {
                    problem: format!("Zellij could not dump the layout: {e}"),
                    fix: Some(
                        ("retry; if it persists, dump the whole session without `tab`").into(),
                    ),
                })
            })?;
        now(DumpLayoutResult { tab_id, layout })
    }
}

/// The `tab name="..."` node of a session layout, as KDL.
fn tab_of_layout(layout: &str, name: &str) -> Option<String> {
    let doc: kdl::KdlDocument = layout.parse().ok()?;
    let root = doc.get("layout")?.children()?;
    let tab = root.nodes().iter().find(|node| {
        node.name().value() == "tab"
            && node.get("name").and_then(|e| e.value().as_string()) == Some(name)
    })?;
    Some(tab.to_string().trim().to_owned())
}

fn client_entries(view: &SessionView) -> Vec<ClientEntry> {
    view.clients
        .iter()
        .map(|c| {
            let pane = ref_of_id(c.pane_id);
            ClientEntry {
                client_id: c.client_id,
                pane_id: pane,
                tab_id: view.tab_id_of(pane),
                running_command: c.running_command.clone(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::tab_of_layout;

    #[test]
    fn cuts_one_tab_out_of_a_session_layout() {
        let layout = "layout {\n    tab name=\"main\" focus=true {\n        pane\n    }\n    tab name=\"logs\" {\n        pane command=\"tail\"\n    }\n}\n";
        let tab = tab_of_layout(layout, "logs").unwrap();
        assert!(tab.starts_with("tab name=\"logs\""), "{tab}");
        assert!(tab.contains("tail") && !tab.contains("main"), "{tab}");
        assert_eq!(tab_of_layout(layout, "nope"), None);
        assert_eq!(tab_of_layout("not kdl {", "main"), None);
    }
}
