//! `zellij-mcp record PANE`: begins recording a pane whose program runs
//! under the relay (`zellij-mcp relay`), as asciicast v2, from its screen
//! as it is; `--stop` ends the recording. It prints where the recording
//! goes. Exit code 0 when done, 1 when the pane runs no relay or the
//! recording cannot begin, 2 on an error.

use std::path::PathBuf;

use zellij_mcp_protocol::{PaneKind, PaneRef};

use crate::relay::recording;
use crate::relay::wire::{self, Ask, Recorded};
use crate::transport::client::PluginClient;

#[derive(Debug, clap::Args)]
pub struct RecordArgs {
    /// The pane: terminal_N, or N.
    pub pane: String,
    /// The file to write; default: a new one in zellij-mcp's recordings
    /// folder (`$XDG_STATE_HOME/zellij-mcp/recordings`, else under
    /// `~/.local/state`).
    #[arg(long)]
    pub to: Option<PathBuf>,
    /// Record what is typed too (a person's keys, passwords among them).
    #[arg(long)]
    pub input: bool,
    /// End the recording going on.
    #[arg(long, conflicts_with_all = ["to", "input"])]
    pub stop: bool,
}

pub async fn run(client: &PluginClient, args: RecordArgs) -> i32 {
    let session = match client.resolve_session(None).await {
        Ok(session) => session,
        Err(error) => {
            eprintln!("zellij-mcp record: {error}");
            return 2;
        }
    };
    let pane = match args.pane.parse::<PaneRef>() {
        Ok(pane) if pane.kind == PaneKind::Terminal => pane,
        _ => {
            eprintln!(
                "zellij-mcp record: '{}' is no terminal pane; pass terminal_N or N",
                args.pane
            );
            return 2;
        }
    };
    let to = match (args.stop, args.to) {
        (true, _) => None,
        (false, Some(to)) => Some(std::path::absolute(&to).unwrap_or(to)),
        (false, None) => match recording::new_place(&session, &pane.to_string()) {
            Some(place) => Some(place),
            None => {
                eprintln!("zellij-mcp record: no recordings folder; pass --to FILE");
                return 2;
            }
        },
    };
    let asked = Ask::Record {
        to,
        typed_too: args.input,
    };
    let id = pane.id;
    let answered =
        tokio::task::spawn_blocking(move || wire::ask::<Recorded>(&session, id, &asked)).await;
    match answered.ok().flatten() {
        None => {
            eprintln!(
                "zellij-mcp record: {pane} runs no relay; start its program as `zellij-mcp relay -- PROGRAM`"
            );
            1
        }
        Some(Recorded {
            error: Some(error), ..
        }) => {
            eprintln!("zellij-mcp record: {error}");
            1
        }
        Some(Recorded { to: Some(to), .. }) => {
            println!("{}", to.display());
            0
        }
        Some(_) => {
            println!("stopped");
            0
        }
    }
}
