//! Which pane this server runs in, so tools can mark it (`is_self`) and
//! protect it. Zellij tells a pane's processes (`ZELLIJ_SESSION_NAME`,
//! `ZELLIJ_PANE_ID`), but an MCP client may start its servers with a
//! stripped environment (the TypeScript SDK passes only HOME, PATH, SHELL,
//! TERM, USER and LOGNAME). Then, when the session's server is one of this
//! process's ancestors, the pane is found by asking the plugin which pane
//! runs this process or one of its ancestors.

use std::collections::HashMap;
use std::sync::Mutex;

use zellij_mcp_protocol::ops::{op, PaneOfProcessArgs};
use zellij_mcp_protocol::PaneRef;

use crate::client::PluginClient;

pub struct OwnPane {
    /// What the environment says: the session and, maybe, the pane.
    from_env: Option<(String, Option<PaneRef>)>,
    /// This process and its ancestors, nearest first.
    ancestors: Vec<u32>,
    /// What is known per session.
    found: Mutex<HashMap<String, Option<PaneRef>>>,
}

impl OwnPane {
    pub fn new(session: Option<String>, pane: Option<PaneRef>) -> Self {
        OwnPane {
            from_env: session.map(|s| (s, pane)),
            ancestors: ancestors(),
            found: Mutex::default(),
        }
    }

    /// The session this server runs in, as far as known.
    pub fn session(&self) -> Option<String> {
        if let Some((session, _)) = &self.from_env {
            return Some(session.clone());
        }
        let found = self.found.lock().unwrap();
        found
            .iter()
            .find_map(|(session, pane)| pane.map(|_| session.clone()))
    }

    /// This server's pane, if it runs in `session`.
    pub async fn in_session(&self, client: &PluginClient, session: &str) -> Option<PaneRef> {
        match self.whereabouts(client, session).await {
            Whereabouts::Pane(pane) => Some(pane),
            Whereabouts::Outside | Whereabouts::Unknown => None,
        }
    }

    /// Where this server is, as seen from `session`.
    pub async fn whereabouts(&self, client: &PluginClient, session: &str) -> Whereabouts {
        let told_inside = match &self.from_env {
            Some((named, Some(pane))) if named == session => return Whereabouts::Pane(*pane),
            Some((named, _)) if named != session => return Whereabouts::Outside,
            Some(_) => true,
            None => false,
        };
        if let Some(known) = self.found.lock().unwrap().get(session) {
            return known.map_or(Whereabouts::Outside, Whereabouts::Pane);
        }
        // Inside a session, the session's server is an ancestor.
        let inside = match client.server_pid(session).await {
            Ok(server) => self.ancestors.contains(&server),
            Err(_) => false,
        };
        if !inside && !told_inside {
            self.found.lock().unwrap().insert(session.to_owned(), None);
            return Whereabouts::Outside;
        }
        let args = PaneOfProcessArgs {
            pids: self.ancestors.clone(),
        };
        let asked = client
            .call::<op::PaneOfProcess>(Some(session), &args, client.sending())
            .await;
        // Not found yet: the plugin may not list a new pane for a moment.
        let Some(pane) = asked.ok().and_then(|(_, found)| found.pane_id) else {
            return Whereabouts::Unknown;
        };
        self.found
            .lock()
            .unwrap()
            .insert(session.to_owned(), Some(pane));
        Whereabouts::Pane(pane)
    }
}

/// Where this server runs, as seen from one session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Whereabouts {
    /// In this pane of the session.
    Pane(PaneRef),
    /// Not in the session.
    Outside,
    /// In the session, but in which pane cannot be told.
    Unknown,
}

/// This process and its ancestors, from `/proc` (only itself where there is none).
fn ancestors() -> Vec<u32> {
    let mut chain = vec![std::process::id()];
    while let Some(parent) = chain.last().and_then(|pid| parent_pid(*pid)) {
        if parent <= 1 || chain.contains(&parent) {
            break;
        }
        chain.push(parent);
    }
    chain
}

fn parent_pid(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold spaces.
    let after_name = stat.get(stat.rfind(')')? + 2..)?;
    after_name.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ancestors_start_with_this_process_and_climb() {
        let chain = ancestors();
        assert_eq!(chain[0], std::process::id());
        assert_eq!(chain.get(1).copied(), parent_pid(std::process::id()));
    }
}
