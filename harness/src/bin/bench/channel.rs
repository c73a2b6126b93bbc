//! The raw plugin round trip: a request sent straight down the bridge's own
//! channel to the plugin (its socket or CLI transport), without MCP and
//! without the tool layer. What the bridge adds is the difference.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{json, Value};
use zellij_mcp::transport::cli::CliTransport;
use zellij_mcp::transport::sessions::CONTRACT_DIR;
use zellij_mcp::transport::socket::SocketTransport;
use zellij_mcp::transport::{Destination, Transport};
use zellij_mcp_harness::Session;
use zellij_mcp_protocol::Request;

/// Requests sent by every channel of this process.
static SENT: AtomicU64 = AtomicU64::new(0);

pub struct Channel {
    runtime: tokio::runtime::Runtime,
    transport: Box<dyn Transport>,
    target: Destination,
}

impl Channel {
    pub fn socket(session: &Session) -> Channel {
        let sockets = session.sandbox().root().join("s").join(CONTRACT_DIR);
        Self::over(Box::new(SocketTransport::new(sockets.join(session.name()))))
    }

    /// Persistent `zellij pipe` children; they find the session through
    /// the sandbox's environment, which the bench process has taken on.
    pub fn cli(session: &Session) -> Channel {
        let zellij = session.sandbox().zellij_path().to_owned();
        Self::over(Box::new(CliTransport::new(
            zellij,
            session.name().to_owned(),
        )))
    }

    /// Learns the plugin's URL and configuration the way the bridge does.
    fn over(transport: Box<dyn Transport>) -> Channel {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("tokio runtime");
        let mut channel = Channel {
            runtime,
            transport,
            target: Destination::Broadcast,
        };
        let hello = channel.call("hello", json!({}));
        channel.target = Destination::Plugin {
            url: hello["plugin_url"].as_str().expect("plugin url").to_owned(),
            configuration: serde_json::from_value(hello["configuration"].clone())
                .expect("configuration"),
        };
        channel
    }

    /// Sends one op and returns its result; panics on any failure.
    pub fn call(&self, op: &str, args: Value) -> Value {
        // Ids unique across channels: the plugin takes a pipe's message
        // once, and two channels' pipes may share ids.
        let id = format!("bench-{}", SENT.fetch_add(1, Ordering::Relaxed));
        let request = Request::new(id, op, args);
        let call = self
            .transport
            .call(&request, &self.target, Duration::from_secs(30));
        let reply = self.runtime.block_on(call).expect("raw round trip");
        reply.into_result().expect("the op succeeded")
    }
}
