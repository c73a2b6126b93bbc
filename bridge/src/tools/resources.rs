//! The event log as an MCP resource, `zellij://<session>/events` (JSON
//! Lines), with `resources/updated` for clients that subscribe. The log is
//! the plugin's (op `read_events`); a subscription polls it for a newer seq.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use rmcp::model::{
    ReadResourceResult, Resource, ResourceContents, ResourceTemplate,
    ResourceUpdatedNotificationParam,
};
use rmcp::service::{Peer, RoleServer};
use rmcp::ErrorData;
use tokio::task::JoinHandle;
use zellij_mcp_protocol::ops::{op, ReadEventsArgs, ReadEventsResult, MAX_EVENTS_BYTES};
use zellij_mcp_protocol::ErrorBody;

use super::ZellijMcp;
use crate::transport::client::SharedClient;

/// How often a subscription looks for new events.
const WATCH_EVERY: Duration = Duration::from_millis(250);
/// A resource read returns the newest events up to this size.
const RESOURCE_BYTES: usize = 1024 * 1024;
const SCHEME: &str = "zellij://";
const EVENTS: &str = "/events";
const MIME: &str = "application/jsonl";

/// Running subscriptions, by URI.
#[derive(Default)]
pub struct Subscriptions(Mutex<HashMap<String, JoinHandle<()>>>);

impl Drop for Subscriptions {
    fn drop(&mut self) {
        for (_, task) in self.0.lock().unwrap().drain() {
            task.abort();
        }
    }
}

pub fn events_uri(session: &str) -> String {
    format!("{SCHEME}{session}{EVENTS}")
}

/// The session a `zellij://<session>/events` URI names.
fn session_of(uri: &str) -> Result<&str, ErrorData> {
    uri.strip_prefix(SCHEME)
        .and_then(|rest| rest.strip_suffix(EVENTS))
        .filter(|session| !session.is_empty() && !session.contains('/'))
        .ok_or_else(|| {
            ErrorData::invalid_params(
                format!("unknown resource '{uri}'; use zellij://<session>/events"),
                None,
            )
        })
}

fn failed(error: ErrorBody) -> ErrorData {
    ErrorData::internal_error(format!("{}: {}", error.code.as_str(), error.message), None)
}

impl ZellijMcp {
    /// The events of every live session.
    pub(super) async fn event_resources(&self) -> Vec<Resource> {
        let (sessions, _) = self.client.sessions().await;
        sessions
            .iter()
            .map(|session| {
                Resource::new(events_uri(session), format!("{session} events"))
                    .with_description(
                        "Messages and agent events of the session, one JSON object per line",
                    )
                    .with_mime_type(MIME)
            })
            .collect()
    }

    pub(super) fn event_template() -> ResourceTemplate {
        ResourceTemplate::new(events_uri("{session}"), "session events").with_mime_type(MIME)
    }

    /// The newest events, oldest first, one per line.
    pub(super) async fn read_event_resource(
        &self,
        uri: &str,
    ) -> Result<ReadResourceResult, ErrorData> {
        let session = session_of(uri)?;
        let mut lines: Vec<String> = Vec::new();
        let mut bytes = 0;
        let mut since = 0;
        loop {
            let page = page(&self.client, session, since).await.map_err(failed)?;
            for event in page.events {
                let line = serde_json::Value::Object(event).to_string() + "\n";
                bytes += line.len();
                lines.push(line);
            }
            while bytes > RESOURCE_BYTES && !lines.is_empty() {
                bytes -= lines.remove(0).len();
            }
            since = page.last_seq;
            if !page.more {
                break;
            }
        }
        let contents = ResourceContents::text(lines.concat(), uri).with_mime_type(MIME);
        Ok(ReadResourceResult::new(vec![contents]))
    }

    /// Tells `peer` whenever the session's log gets new events.
    pub(super) async fn subscribe_events(
        &self,
        uri: String,
        peer: Peer<RoleServer>,
    ) -> Result<(), ErrorData> {
        let session = session_of(&uri)?.to_owned();
        let since = newest(&self.client, &session, 0).await.map_err(failed)?;
        let task = tokio::spawn(watch(
            self.client.clone(),
            session,
            uri.clone(),
            since,
            peer,
        ));
        if let Some(old) = self.subscriptions.0.lock().unwrap().insert(uri, task) {
            old.abort();
        }
        Ok(())
    }

    pub(super) fn unsubscribe_events(&self, uri: &str) {
        if let Some(task) = self.subscriptions.0.lock().unwrap().remove(uri) {
            task.abort();
        }
    }
}

async fn watch(
    client: SharedClient,
    session: String,
    uri: String,
    mut since: u64,
    peer: Peer<RoleServer>,
) {
    loop {
        tokio::time::sleep(WATCH_EVERY).await;
        // A session that is gone, or a plugin being reloaded, is looked at again later.
        let Ok(newest) = newest(&client, &session, since).await else {
            continue;
        };
        if newest > since {
            since = newest;
            let updated = ResourceUpdatedNotificationParam::new(uri.clone());
            if peer.notify_resource_updated(updated).await.is_err() {
                return;
            }
        }
    }
}

/// The log's newest seq (`since` when nothing is newer).
async fn newest(client: &SharedClient, session: &str, mut since: u64) -> Result<u64, ErrorBody> {
    loop {
        let page = page(client, session, since).await?;
        since = page.last_seq;
        if !page.more {
            return Ok(since);
        }
    }
}

async fn page(
    client: &SharedClient,
    session: &str,
    since: u64,
) -> Result<ReadEventsResult, ErrorBody> {
    let args = ReadEventsArgs {
        since_seq: Some(since),
        max_bytes: Some(MAX_EVENTS_BYTES),
    };
    let (_, page) = client
        .call::<op::ReadEvents>(Some(session), &args, client.sending())
        .await?;
    Ok(page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_uris_name_one_session() {
        assert_eq!(session_of(&events_uri("work")).unwrap(), "work");
        for bad in [
            "zellij://work",
            "zellij:///events",
            "file://x/events",
            "zellij://a/b/events",
        ] {
            assert!(session_of(bad).is_err(), "{bad}");
        }
    }
}
