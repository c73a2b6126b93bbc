//! `zellij-mcp agents`: the agents of a session as the board shows them
//! (a table, `--json`, `--watch`), or how the descriptions read one pane
//! (`--explain PANE`); `zellij-mcp board`: opens the board in the session,
//! as the key `setup` binds does.

use std::time::Duration;

use zellij_mcp_protocol::ops::{op, AgentsResult, ExplainArgs, ExplainResult, NoArgs, ResumeArgs};
use zellij_mcp_protocol::{ErrorBody, PaneRef};

use crate::tools::tables;
use crate::transport::client::PluginClient;
use crate::transport::Destination;

#[derive(Debug, clap::Args)]
pub struct AgentsArgs {
    /// Print the rows as JSON (one line per refresh with --watch).
    #[arg(long)]
    pub json: bool,
    /// Print them again every second, until interrupted.
    #[arg(long)]
    pub watch: bool,
    /// For one pane (terminal_N or N): which description told its state,
    /// which rows were taken as its composer, draft, working sign and
    /// dialog, and which pattern matched each (with --watch, every second).
    #[arg(long, value_name = "PANE")]
    pub explain: Option<PaneRef>,
    #[command(subcommand)]
    pub action: Option<AgentsAction>,
}

#[derive(Debug, clap::Subcommand)]
pub enum AgentsAction {
    /// Start an agent whose program ended again, in its conversation
    /// (as the board's `r` does); with --off (or --on), whether it is
    /// started again in its conversation after its session ends.
    Resume {
        name: String,
        #[arg(long, conflicts_with = "on")]
        off: bool,
        #[arg(long)]
        on: bool,
    },
}

/// Prints the agents, once or on every refresh; the exit code.
pub async fn run(client: &PluginClient, args: AgentsArgs) -> i32 {
    if let Some(AgentsAction::Resume { name, off, on }) = args.action {
        let turn = (off || on).then_some(on);
        return resume(client, ResumeArgs { name, turn }).await;
    }
    if let Some(pane_id) = args.explain {
        return explain(client, pane_id, args.json, args.watch).await;
    }
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

/// `agents resume NAME`; the exit code.
async fn resume(client: &PluginClient, args: ResumeArgs) -> i32 {
    let turn = args.turn;
    match client
        .call::<op::Resume>(None, &args, client.sending())
        .await
    {
        Ok((_, resumed)) => {
            let pane = resumed.pane_id.map(|p| p.to_string()).unwrap_or_default();
            match turn {
                None => println!("{} resumed in {pane}", resumed.name),
                Some(true) => println!("{} comes back in its conversation", resumed.name),
                Some(false) => println!("{} comes back as Zellij brings it", resumed.name),
            }
            0
        }
        Err(error) => {
            eprintln!("zellij-mcp agents resume: {error}");
            2
        }
    }
}

/// Prints how the descriptions read `pane_id`, once or every second.
async fn explain(client: &PluginClient, pane_id: PaneRef, json: bool, watch: bool) -> i32 {
    loop {
        let args = ExplainArgs { pane_id };
        let explained = match client
            .call::<op::Explain>(None, &args, client.sending())
            .await
        {
            Ok((_, explained)) => explained,
            Err(error) => {
                eprintln!("zellij-mcp agents --explain: {error}");
                return 2;
            }
        };
        match (json, watch) {
            (true, _) => println!("{}", serde_json::to_string(&explained).unwrap_or_default()),
            (false, true) => print!("\x1b[H\x1b[2J{}", explanation(&explained)),
            (false, false) => print!("{}", explanation(&explained)),
        }
        if !watch {
            return 0;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// The screen with its rows numbered, then what each description made of it.
pub fn explanation(e: &ExplainResult) -> String {
    let mut out = format!("pane {}", e.pane_id);
    if let Some(name) = &e.name {
        out += &format!(" ({name})");
    }
    let program = e.program.as_deref().unwrap_or("unknown");
    out += &format!(", program {program}, title {:?}\n", e.title);
    let state = e.state.map(|s| serde_json::to_value(s).unwrap_or_default());
    let state = state.as_ref().and_then(|s| s.as_str());
    out += &match (state, &e.described_by) {
        (Some(state), Some(by)) => format!("state: {state} (told by {by})\n"),
        (Some(state), None) => format!("state: {state} (no description told a state)\n"),
        (None, _) => "state: not told (no agent's pane)\n".to_owned(),
    };
    if let Some(hooks) = &e.hooks {
        out += &format!("hooks: {hooks}\n");
    }
    if let Some(relay) = &e.relay {
        out += &format!("relay: {relay}\n");
    }
    out += &format!("tried: {}\n\nscreen:\n", e.tried);
    let width = e.rows.len().to_string().len();
    for (i, row) in e.rows.iter().enumerate() {
        out += &format!("{:>width$} │{row}\n", i + 1);
    }
    for reading in &e.readings {
        out += "\n";
        for line in reading {
            out += line;
            out += "\n";
        }
    }
    out
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
