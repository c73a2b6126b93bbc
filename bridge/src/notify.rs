//! `zellij-mcp notify`: sends a message from a shell (CI pollers, git hooks,
//! cron) through the same op as `zellij_send_message`, so it gets a `seq`
//! and the same order, retry and log.

use std::io::Read;
use std::time::Duration;

use zellij_mcp_protocol::ops::{
    op, SendMessageArgs, SendMessageResult, DEFAULT_DELIVERY_WAIT_MS, MAX_DELIVERY_WAIT_MS,
};
use zellij_mcp_protocol::{ErrorBody, ErrorCode};

use crate::client::PluginClient;
use crate::own_pane::OwnPane;

#[derive(Debug, clap::Args)]
pub struct NotifyArgs {
    /// The target: an agent name, a pane id, or "parent".
    #[arg(long)]
    pub to: String,
    /// The sender in the header (default: this shell's agent name or pane).
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

/// Sends the message; the plugin's answer, or why not.
pub async fn notify(
    client: &PluginClient,
    own_pane: &OwnPane,
    args: NotifyArgs,
) -> Result<SendMessageResult, ErrorBody> {
    let text = match args.text.as_deref() {
        None | Some("-") => read_stdin()?,
        Some(text) => text.to_owned(),
    };
    let session = client.resolve_session(None).await?;
    let caller = own_pane.in_session(client, &session).await;
    let wait = args.wait_ms.unwrap_or(DEFAULT_DELIVERY_WAIT_MS);
    let how = client
        .sending()
        .by_caller(caller)
        .longer(Duration::from_millis(wait.min(MAX_DELIVERY_WAIT_MS)));
    let message = SendMessageArgs {
        to: args.to,
        text,
        from: args.from,
        ttl_s: args.ttl_s,
        wait_ms: args.wait_ms,
    };
    let (_, sent) = client
        .call::<op::SendMessage>(Some(&session), &message, how)
        .await?;
    Ok(sent)
}

fn read_stdin() -> Result<String, ErrorBody> {
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text).map_err(|e| {
        ErrorBody::new(
            ErrorCode::BadRequest,
            format!("cannot read the message from stdin: {e}"),
        )
        .with_hint("pass the text as an argument")
    })?;
    Ok(text.strip_suffix('\n').unwrap_or(&text).to_owned())
}
