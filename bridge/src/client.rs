//! The request plumbing every tool shares: pick the session, reach its plugin
//! over a transport, send one op, and turn the outcome into a result or a
//! typed error that says how to fix it.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;
use tokio::sync::Mutex;
use zellij_mcp_protocol::ops::{names, HelloResult};
use zellij_mcp_protocol::text::trim_rows;
use zellij_mcp_protocol::{ErrorBody, ErrorCode, PaneRef, Request};

use crate::sessions::{self, SessionDefaults};
use crate::transport::cli::CliTransport;
use crate::transport::socket::SocketTransport;
use crate::transport::{CallError, Target, Transport};

/// How long to wait for the plugin to say hello before calling it not loaded.
const HELLO_TIMEOUT: Duration = Duration::from_secs(3);

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TransportChoice {
    /// The socket when Zellij's socket contract folder exists, else the CLI.
    Auto,
    Socket,
    Cli,
}

#[derive(Debug, Clone)]
pub struct ClientConfig {
    pub transport: TransportChoice,
    pub zellij: PathBuf,
    /// Used when the plugin does not report its own URL.
    pub plugin_url: String,
    pub timeout: Duration,
    pub sessions: SessionDefaults,
}

/// A session's transport and the plugin target learned from its hello.
struct Link {
    transport: Box<dyn Transport>,
    target: Target,
}

pub struct PluginClient {
    config: ClientConfig,
    links: Mutex<HashMap<String, Arc<Link>>>,
    next_id: AtomicU64,
    id_prefix: String,
}

impl PluginClient {
    pub fn new(config: ClientConfig) -> Self {
        PluginClient {
            config,
            links: Mutex::default(),
            next_id: AtomicU64::new(1),
            id_prefix: format!("zmcp-{}-", std::process::id()),
        }
    }

    pub fn default_timeout(&self) -> Duration {
        self.config.timeout
    }

    /// Runs `op` in the session the caller means, as request `id`; returns
    /// the session name and result.
    pub async fn call<A: Serialize, R: DeserializeOwned>(
        &self,
        session: Option<&str>,
        op: &str,
        args: &A,
        timeout: Duration,
        id: String,
    ) -> Result<(String, R), ErrorBody> {
        let session = self.resolve_session(session).await?;
        let link = self.link(&session).await?;
        let args = serde_json::to_value(args)
            .map_err(|e| ErrorBody::new(ErrorCode::BadRequest, e.to_string()))?;
        let request = Request::new(id, op, args);
        let outcome = link.transport.call(&request, &link.target, timeout).await;
        if matches!(outcome, Err(CallError::Transport(_))) {
            self.links.lock().await.remove(&session);
        }
        let value = outcome
            .map_err(|e| call_error(e, &session, timeout))?
            .into_result()?;
        let result = serde_json::from_value(value).map_err(|e| {
            ErrorBody::new(
                ErrorCode::Internal,
                format!("unexpected reply from the plugin: {e}"),
            )
            .with_hint("use the bridge and plugin from the same zellij-mcp release")
        })?;
        Ok((session, result))
    }

    /// A pane's rows (scrollback, then screen) without padding, read by
    /// Zellij outside the plugin: the last `tail` rows, else all of them.
    pub async fn rows(
        &self,
        session: &str,
        pane: PaneRef,
        tail: Option<usize>,
    ) -> Result<Vec<String>, ErrorBody> {
        let link = self.link(session).await?;
        let timeout = self.config.timeout;
        let rows = link
            .transport
            .rows(pane, tail, timeout)
            .await
            .map_err(|e| call_error(e, session, timeout))?;
        Ok(trim_rows(rows))
    }

    /// The transport a linked session uses (`socket` or `cli`).
    pub async fn transport_of(&self, session: &str) -> Option<&'static str> {
        let links = self.links.lock().await;
        links.get(session).map(|link| link.transport.kind())
    }

    /// Live sessions, and the one a call without `session` would use.
    pub async fn sessions(&self) -> (Vec<String>, Option<String>) {
        let live = self.live_sessions().await;
        let default = sessions::resolve(None, &self.config.sessions, &live).ok();
        (live, default)
    }

    async fn live_sessions(&self) -> Vec<String> {
        let socket_dir = sessions::socket_dir();
        if socket_dir.is_dir() {
            sessions::live_sessions(&socket_dir)
        } else {
            sessions::live_sessions_from_cli(&self.config.zellij).await
        }
    }

    pub fn new_id(&self) -> String {
        format!(
            "{}{}",
            self.id_prefix,
            self.next_id.fetch_add(1, Ordering::Relaxed)
        )
    }

    fn use_socket(&self) -> bool {
        match self.config.transport {
            TransportChoice::Socket => true,
            TransportChoice::Cli => false,
            TransportChoice::Auto => sessions::socket_dir().is_dir(),
        }
    }

    pub async fn resolve_session(&self, requested: Option<&str>) -> Result<String, ErrorBody> {
        let defaults = &self.config.sessions;
        let named = requested
            .filter(|s| !s.is_empty())
            .or(defaults.configured.as_deref())
            .or(defaults.enclosing.as_deref());
        // A linked session needs no listing; if it has gone, its transport says so.
        if let Some(name) = named {
            if self.links.lock().await.contains_key(name) {
                return Ok(name.to_owned());
            }
        }
        let live = self.live_sessions().await;
        sessions::resolve(requested, defaults, &live)
    }

    /// The session's link, made on first use: a transport plus a hello.
    async fn link(&self, session: &str) -> Result<Arc<Link>, ErrorBody> {
        let mut links = self.links.lock().await;
        if let Some(link) = links.get(session) {
            return Ok(link.clone());
        }
        let transport: Box<dyn Transport> = if self.use_socket() {
            Box::new(SocketTransport::new(sessions::socket_dir().join(session)))
        } else {
            Box::new(CliTransport::new(
                self.config.zellij.clone(),
                session.to_owned(),
            ))
        };
        let hello = self.hello(transport.as_ref(), session).await?;
        tracing::info!(
            session,
            transport = transport.kind(),
            plugin_url = ?hello.plugin_url,
            "connected to the zellij-mcp plugin"
        );
        let link = Arc::new(Link {
            transport,
            target: Target::Plugin {
                url: hello
                    .plugin_url
                    .unwrap_or_else(|| self.config.plugin_url.clone()),
                configuration: hello.configuration,
            },
        });
        links.insert(session.to_owned(), link.clone());
        Ok(link)
    }

    /// Asks every plugin in the session for ours: a broadcast never launches
    /// a plugin, so a missing plugin is an error here instead of a stray pane.
    async fn hello(
        &self,
        transport: &dyn Transport,
        session: &str,
    ) -> Result<HelloResult, ErrorBody> {
        let request = Request::new(self.new_id(), names::HELLO, serde_json::json!({}));
        match transport.call(&request, &Target::Broadcast, HELLO_TIMEOUT).await {
            Ok(reply) => {
                let value = reply.into_result()?;
                serde_json::from_value(value).map_err(|e| {
                    ErrorBody::new(ErrorCode::Internal, format!("unexpected hello from the plugin: {e}"))
                        .with_hint("use the bridge and plugin from the same zellij-mcp release")
                })
            }
            Err(CallError::NoReply | CallError::Timeout) => Err(ErrorBody::new(
                ErrorCode::PluginNotLoaded,
                format!("the zellij-mcp plugin is not loaded in session '{session}'"),
            )
            .with_hint(format!(
                "start the session with the zellij-mcp layout (`zellij --layout zellij-mcp`), or load {} in it; \
                 grant its permissions if Zellij asks",
                self.config.plugin_url
            ))),
            Err(other) => Err(call_error(other, session, HELLO_TIMEOUT)),
        }
    }
}

fn call_error(error: CallError, session: &str, timeout: Duration) -> ErrorBody {
    match error {
        CallError::NoReply => ErrorBody::new(
            ErrorCode::PluginNotLoaded,
            format!("no zellij-mcp plugin answered in session '{session}'"),
        )
        .with_hint("the plugin pane may have been closed; reload the zellij-mcp layout"),
        CallError::Timeout => ErrorBody::new(
            ErrorCode::Timeout,
            format!(
                "no reply from the plugin in session '{session}' within {} ms",
                timeout.as_millis()
            ),
        )
        .with_hint("retry; if it persists, check the session is responsive"),
        CallError::Transport(why) => ErrorBody::new(
            ErrorCode::Transport,
            format!("lost the connection to session '{session}': {why}"),
        )
        .with_hint("check the session is still running (`zellij list-sessions`), then retry"),
        CallError::Refused(why) => ErrorBody::new(
            ErrorCode::PaneNotFound,
            format!("Zellij could not read the pane: {why}"),
        )
        .with_hint("call zellij_list_panes for the current pane ids"),
    }
}

/// Shared by tools: the plugin client behind an Arc.
pub type SharedClient = Arc<PluginClient>;
