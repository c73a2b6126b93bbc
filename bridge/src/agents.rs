//! `zellij-mcp agents`: the agents of a session as the board shows them
//! (a table, `--json`, `--watch`); `zellij-mcp board`: opens the board in
//! the session, as the key `setup` binds does.

use std::time::Duration;

use zellij_mcp_protocol::ops::{op, AgentsResult, NoArgs};
use zellij_mcp_protocol::ErrorBody;

use crate::client::PluginClient;
use crate::tables;
use crate::transport::Destination;

#[derive(Debug, clap::Args)]
pub struct AgentsArgs {
    /// Print the rows as JSON (one line per refresh with --watch).
    #[arg(long)]
    pub json: bool,
    /// Print them again every second, until interrupted.
    #[arg(long)]
    pub watch: bool,
}

/// Prints the agents, once or on every refresh; the exit code.
pub async fn run(client: &PluginClient, args: AgentsArgs) -> i32 {
    loop {
        let agents = match rows(client).await {
            Ok(agents) => agents,
            Err(error) => {
                eprintln!("zellij-mcp agents: {error}");
                return 2;
            }
        };
        match (args.json, args.watch) {
            (true, _) => println!("{}", serde_json::to_string(&agents).unwrap_or_default()),
            // Home and clear, so the table stays in place.
            (false, true) => print!("\x1b[H\x1b[2J{}", tables::agents(&agents)),
            (false, false) => print!("{}", tables::agents(&agents)),
        }
        if !args.watch {
            return 0;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

async fn rows(client: &PluginClient) -> Result<AgentsResult, ErrorBody> {
    let (_, agents) = client
        .call::<op::Agents>(None, &NoArgs {}, client.sending())
        .await?;
    Ok(agents)
}

/// `zellij-mcp board`: the plugin again, as a board in a floating pane of
/// the current tab (focused: opening it is the person's act); the exit code.
pub async fn open_board(client: &PluginClient) -> i32 {
    let session = match client.resolve_session(None).await {
        Ok(session) => session,
        Err(error) => {
            eprintln!("zellij-mcp board: {error}");
            return 2;
        }
    };
    // The URL the session's plugin was loaded from: the board shares its
    // permissions and its folder.
    let url = match client.destination(&session).await {
        Ok(Destination::Plugin { url, .. }) => url,
        _ => client.config().plugin_url.clone(),
    };
    let zellij = &client.config().zellij;
    let status = std::process::Command::new(zellij)
        .args(["--session", &session, "action", "launch-or-focus-plugin"])
        .args(["--floating", "--move-to-focused-tab"])
        .args(["--configuration", "board=true", &url])
        .stdout(std::process::Stdio::null())
        .status();
    match status {
        Ok(status) if status.success() => 0,
        Ok(status) => {
            eprintln!("zellij-mcp board: zellij exited with {status}");
            1
        }
        Err(e) => {
            eprintln!("zellij-mcp board: cannot run {}: {e}", zellij.display());
            2
        }
    }
}
