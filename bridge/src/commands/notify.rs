//! `zellij-mcp notify`: sends a message from a shell (CI pollers, git hooks,
//! cron) through the same op as `zellij_send_message`, so it gets a `seq`
//! and the same order, retry and log.

//! It passes the server's policy like any tool call: refused with
//! `--read-only`, recorded with `--audit-log`.

use std::io::Read;

use serde_json::Value;
use zellij_mcp_protocol::ops::{SendMessageArgs, SendMessageResult};
use zellij_mcp_protocol::{Error, ErrorBody};

use crate::tools::ZellijMcp;

#[derive(Debug, clap::Args)]
pub struct NotifyArgs {
    /// The target: an agent name, a pane id, or "parent".
    #[arg(long)]
    pub to: String,
    /// The sender in the header, for a shell outside any pane (in a pane,
    /// the header names its agent name or pane id).
    #[arg(long)]
    pub from: Option<String>,
    /// Seconds to keep retrying (default 600, max 86400).
    #[arg(long)]
    pub ttl_s: Option<u64>,
    /// Wait up to this long for delivery, in ms (default 2000).
    #[arg(long)]
    pub wait_ms: Option<u64>,
    /// The message; read from stdin when absent or "-".
    pub text: Option<String>,
}

/// Sends the message through `server`, as the tool would be called; the
/// plugin's answer, or why not.
pub async fn notify(server: &ZellijMcp, args: NotifyArgs) -> Result<SendMessageResult, ErrorBody> {
    let text = match args.text.as_deref() {
        None | Some("-") => read_stdin()?,
        Some(text) => text.to_owned(),
    };
    let message = SendMessageArgs {
        to: args.to,
        text,
        from: args.from,
        ttl_s: args.ttl_s,
        wait_ms: args.wait_ms,
    };
    let Ok(Value::Object(arguments)) = serde_json::to_value(&message) else {
        return Err(ErrorBody::from(Error::internal(
            "the message is not an object",
        )));
    };
    server.notify(arguments).await
}

fn read_stdin() -> Result<String, ErrorBody> {
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text).map_err(|e| {
        ErrorBody::from(Error::BadRequest {
            problem: format!("cannot read the message from stdin: {e}"),
            fix: "pass the text as an argument".into(),
        })
    })?;
    Ok(text.strip_suffix('\n').unwrap_or(&text).to_owned())
}
