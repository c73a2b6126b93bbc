//! How requests reach the plugin, and how scrollbacks are read outside it:
//! picking the session, then one trait, two implementations.
//!
//! - [`client`]: the request plumbing every tool shares: picks the session,
//!   links it once and sends each op on its transport.
//! - [`sessions`]: finding sessions and choosing one.
//! - [`socket`]: speaks Zellij's client protocol on the session socket
//!   directly; one connection, many requests in flight, matched by pipe id;
//!   a scrollback read subscribes to the pane on a short connection.
//! - [`cli`]: persistent `zellij pipe` children, one JSON line per request;
//!   a scrollback read runs `zellij subscribe` once.
//! - [`exit_report`]: what a shell run's script sends its exit report
//!   with, as `zellij pipe` would, from a lighter process.
//!
//! Each is a [`Carrier`]: plain async fns, made into the object-safe
//! [`Transport`] the client holds in one place. Both hand the plugin's output to [`ReplyReader`], which matches the reply
//! to its request id and drops anything else.

pub mod cli;
pub mod client;
pub mod exit_report;
pub mod sessions;
pub mod socket;
pub mod wire;

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use tokio::sync::mpsc;
use zellij_mcp_protocol::{Assembler, PaneRef, Reply, Request};

/// Where a pipe message goes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Destination {
    /// Every plugin in the session (only ours answers to the pipe name).
    /// Never launches a plugin, so it is how the bridge finds out whether
    /// the plugin is loaded.
    Broadcast,
    /// The plugin instance(s) loaded from this URL with this configuration.
    Plugin {
        url: String,
        configuration: BTreeMap<String, String>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum CallError {
    /// Zellij released the pipe and no reply came: no plugin answered.
    NoReply,
    Timeout,
    /// The connection to Zellij failed or closed.
    Transport(String),
    /// Zellij turned the request down (e.g. no such pane), in its words.
    Refused(String),
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::NoReply => f.write_str("no reply"),
            CallError::Timeout => f.write_str("timed out"),
            CallError::Transport(why) | CallError::Refused(why) => f.write_str(why),
        }
    }
}

pub type CallFuture<'a> = Pin<Box<dyn Future<Output = Result<Reply, CallError>> + Send + 'a>>;
pub type WatchFuture<'a> = Pin<Box<dyn Future<Output = Result<(), CallError>> + Send + 'a>>;
pub type RowsFuture<'a> = Pin<Box<dyn Future<Output = Result<Vec<String>, CallError>> + Send + 'a>>;

/// A transport as plain async fns; every one is a [`Transport`].
pub trait Carrier: Send + Sync {
    /// `socket` or `cli`.
    const KIND: &'static str;

    /// Sends one request and waits for its reply.
    fn send(
        &self,
        request: &Request,
        target: &Destination,
        timeout: Duration,
    ) -> impl Future<Output = Result<Reply, CallError>> + Send;

    /// See [`Transport::rows`], which gives it the call's timeout.
    fn read_rows(
        &self,
        pane: PaneRef,
        tail: Option<usize>,
    ) -> impl Future<Output = Result<Vec<String>, CallError>> + Send;

    /// See [`Transport::changes`]. Without one, waits look on their timer.
    fn watch_changes(
        &self,
        _pane: PaneRef,
        _changed: mpsc::Sender<()>,
    ) -> impl Future<Output = Result<(), CallError>> + Send {
        async { Ok(()) }
    }
}

impl<C: Carrier> Transport for C {
    fn call<'a>(
        &'a self,
        request: &'a Request,
        target: &'a Destination,
        timeout: Duration,
    ) -> CallFuture<'a> {
        Box::pin(self.send(request, target, timeout))
    }

    fn rows<'a>(&'a self, pane: PaneRef, tail: Option<usize>, timeout: Duration) -> RowsFuture<'a> {
        Box::pin(within(timeout, self.read_rows(pane, tail)))
    }

    fn changes<'a>(&'a self, pane: PaneRef, changed: mpsc::Sender<()>) -> WatchFuture<'a> {
        Box::pin(self.watch_changes(pane, changed))
    }

    fn kind(&self) -> &'static str {
        C::KIND
    }
}

/// What the client holds: any [`Carrier`], behind a pointer.
pub trait Transport: Send + Sync {
    /// Sends one request and waits for its reply.
    fn call<'a>(
        &'a self,
        request: &'a Request,
        target: &'a Destination,
        timeout: Duration,
    ) -> CallFuture<'a>;

    /// A pane's rows, scrollback then screen, read by Zellij outside the
    /// plugin: the last `tail` of the scrollback, else all of it.
    fn rows<'a>(&'a self, pane: PaneRef, tail: Option<usize>, timeout: Duration) -> RowsFuture<'a>;

    /// Subscribes to a pane's renders and sends on `changed` (without
    /// waiting: a full channel already says so) each time Zellij says the
    /// pane changed, the subscription's start included, until the pane
    /// closes or the connection ends. With no client attached, Zellij tells
    /// subscribers of every change; with clients, only of rendered ones.
    fn changes<'a>(&'a self, pane: PaneRef, changed: mpsc::Sender<()>) -> WatchFuture<'a>;

    /// `socket` or `cli`.
    fn kind(&self) -> &'static str;
}

/// `work`'s outcome, or a `Timeout` once `timeout` has passed: how every
/// carrier bounds its wait on Zellij.
pub(crate) async fn within<T, E: From<CallError>>(
    timeout: Duration,
    work: impl Future<Output = Result<T, E>>,
) -> Result<T, E> {
    tokio::time::timeout(timeout, work)
        .await
        .unwrap_or_else(|_| Err(CallError::Timeout.into()))
}

/// Collects pipe output (which may split or join lines) into the reply for one id.
pub struct ReplyReader {
    partial: String,
    assembler: Assembler,
}

impl ReplyReader {
    pub fn new(id: &str) -> Self {
        ReplyReader {
            partial: String::new(),
            assembler: Assembler::new(id),
        }
    }

    pub fn push(&mut self, output: &str) -> Option<Reply> {
        self.partial.push_str(output);
        while let Some(end) = self.partial.find('\n') {
            let line: String = self.partial.drain(..=end).collect();
            if let Some(reply) = self.assembler.push_line(&line) {
                self.partial.clear();
                return Some(reply);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use zellij_mcp_protocol::encode_reply;

    #[test]
    fn reader_handles_split_and_foreign_output() {
        let line = encode_reply(&Reply::ok("7", json!({"x": 1}))).concat();
        let stale = encode_reply(&Reply::ok("6", json!(null))).concat();
        let mut reader = ReplyReader::new("7");
        assert!(reader.push(&stale).is_none());
        let (a, b) = line.split_at(5);
        assert!(reader.push(a).is_none());
        let reply = reader.push(b).unwrap();
        assert_eq!(reply.result, Some(json!({"x": 1})));
    }
}
