//! Which pane this server runs in, so tools can mark it (`is_self`) and
//! protect it. Zellij tells a pane's processes (`ZELLIJ_SESSION_NAME`,
//! `ZELLIJ_PANE_ID`), but an MCP client may start its servers with a
//! stripped environment (the TypeScript SDK passes only HOME, PATH, SHELL,
//! TERM, USER and LOGNAME). Then, when the session's server is one of this
//! process's ancestors, the pane is found by asking the plugin which pane
//! runs this process or one of its ancestors. Where the process table
//! cannot tell ancestors, such a server cannot tell whether it runs in the
//! session at all, and says so (`Unknown`).

use std::collections::HashMap;
use std::sync::Mutex;

use zellij_mcp_protocol::ops::{op, PaneOfProcessArgs};
use zellij_mcp_protocol::PaneRef;

use crate::processes::table;
use crate::transport::client::PluginClient;

pub struct OwnPane {
    /// What the environment says: the session and, maybe, the pane.
    from_env: Option<(String, Option<PaneRef>)>,
    /// This process and its ancestors, nearest first (`None`: this
    /// platform's process table cannot tell them).
    ancestors: Option<Vec<u32>>,
    /// What is known per session.
    found: Mutex<HashMap<String, Option<PaneRef>>>,
}

impl OwnPane {
    pub fn new(session: Option<String>, pane: Option<PaneRef>) -> Self {
        OwnPane {
            from_env: session.map(|s| (s, pane)),
            ancestors: table().ancestors(std::process::id()),
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
        // Inside a session, the session's server is an ancestor; where
        // ancestors cannot be told, neither can the pane.
        let Some(ancestors) = &self.ancestors else {
            return Whereabouts::Unknown;
        };
        let inside = match client.server_pid(session).await {
            Ok(server) => ancestors.contains(&server),
            Err(_) => false,
        };
        if !inside && !told_inside {
            self.found.lock().unwrap().insert(session.to_owned(), None);
            return Whereabouts::Outside;
        }
        let args = PaneOfProcessArgs {
            pids: ancestors.clone(),
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
