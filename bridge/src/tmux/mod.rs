//! `zellij-mcp tmux`: the tmux command lines Claude Code's agent teams
//! issue, acted out on Zellij panes by id through the plugin, never by
//! moving focus. Run as `zellij-mcp tmux <args>`, or through a link named
//! `tmux` (see [`launch`]: `zellij-mcp claude`).
//!
//! tmux's `%N` is Zellij's `terminal_N`, a tmux window is a Zellij tab, and
//! there is one tmux session: the Zellij session the shim runs in. Each
//! verb prints what tmux prints and exits as tmux does (1 with tmux's
//! message for an unknown pane); a verb outside the set exits 1 and names
//! it.
//!
//! - [`verbs`]: the command lines accepted, with tmux's flags;
//! - [`act`]: one function per verb;
//! - [`format`]: `#{pane_id}` and the other format variables;
//! - [`placeholder`]: what a new pane runs first, so that it has the lead's
//!   environment and can be respawned in place;
//! - [`launch`]: `zellij-mcp claude`, Claude Code with the shim as its tmux.

mod act;
mod format;
pub mod launch;
mod placeholder;
mod verbs;

use clap::Parser;
use zellij_mcp_protocol::ops::{op, LocateArgs, LocateResult, Op};
use zellij_mcp_protocol::{ErrorBody, ErrorCode, PaneRef};

use crate::transport::client::PluginClient;
pub use placeholder::run_pane;
use verbs::TmuxLine;

/// A failed verb: tmux's message, printed to stderr, exit status 1.
#[derive(Debug)]
pub struct Failure(pub String);

impl From<ErrorBody> for Failure {
    fn from(error: ErrorBody) -> Self {
        Failure(error.to_string())
    }
}

/// The shim for one command line: the session and the pane it runs from.
pub struct Shim<'a> {
    client: &'a PluginClient,
    session: String,
    /// The caller's pane (`TMUX_PANE`, else `ZELLIJ_PANE_ID`).
    own: Option<PaneRef>,
}

/// Runs one tmux command line; its exit status.
pub async fn run(client: &PluginClient, args: Vec<String>) -> i32 {
    let line = match TmuxLine::try_parse_from(std::iter::once("tmux".to_owned()).chain(args)) {
        Ok(line) => line,
        Err(e) => return refused(e),
    };
    if line.version {
        println!("tmux 3.4");
        return 0;
    }
    let Some(verb) = line.verb else {
        eprintln!("zellij-mcp tmux: no command given (the shim runs single commands)");
        return 1;
    };
    let session = match client.resolve_session(None).await {
        Ok(session) => session,
        Err(e) => {
            eprintln!("no server running: {e}");
            return 1;
        }
    };
    let shim = Shim {
        client,
        session,
        own: own_pane(),
    };
    match shim.act(verb).await {
        Ok(output) => {
            print!("{output}");
            0
        }
        Err(Failure(message)) => {
            eprintln!("{message}");
            1
        }
    }
}

/// A command line the shim cannot take: an unknown verb names itself.
fn refused(error: clap::Error) -> i32 {
    use clap::error::{ContextKind, ErrorKind};
    match error.kind() {
        ErrorKind::InvalidSubcommand => {
            let verb = error
                .get(ContextKind::InvalidSubcommand)
                .map(ToString::to_string)
                .unwrap_or_default();
            eprintln!(
                "zellij-mcp tmux: unsupported command: {verb} (the shim knows the commands Claude Code's agent teams use)"
            );
        }
        _ => {
            let first = error.to_string();
            let first = first.lines().next().unwrap_or_default();
            eprintln!("zellij-mcp tmux: {}", first.trim_start_matches("error: "));
        }
    }
    1
}

/// `%N` in `TMUX_PANE`, else this process's Zellij pane.
fn own_pane() -> Option<PaneRef> {
    let tmux = std::env::var("TMUX_PANE").ok();
    let id = tmux
        .as_deref()
        .and_then(|p| p.strip_prefix('%'))
        .map(str::to_owned)
        .or_else(|| std::env::var("ZELLIJ_PANE_ID").ok())?;
    id.parse().ok().map(PaneRef::terminal)
}

impl Shim<'_> {
    /// Runs op `O` as the caller's pane would.
    async fn call<O: Op>(&self, args: &O::Args) -> Result<O::Result, ErrorBody> {
        self.call_as::<O>(args, self.own).await
    }

    /// Runs op `O` as if from pane `caller`.
    async fn call_as<O: Op>(
        &self,
        args: &O::Args,
        caller: Option<PaneRef>,
    ) -> Result<O::Result, ErrorBody> {
        let how = self.client.sending().by_caller(caller);
        let (_, result) = self
            .client
            .call::<O>(Some(&self.session), args, how)
            .await?;
        Ok(result)
    }

    /// The pane a `-t` names (`%N`, or a target ending in `.%N`), else
    /// the caller's.
    fn pane(&self, target: Option<&str>) -> Result<PaneRef, Failure> {
        let Some(target) = target.filter(|t| !t.is_empty()) else {
            return self
                .own
                .ok_or_else(|| Failure("no current pane (TMUX_PANE is not set)".into()));
        };
        let id = target.rsplit(['.', ':']).next().unwrap_or(target);
        id.strip_prefix('%')
            .and_then(|n| n.parse().ok())
            .map(PaneRef::terminal)
            .ok_or_else(|| Failure(format!("can't find pane: {target}")))
    }

    /// The tab a window target names (`@N`, or a pane's tab); `None` for
    /// every tab.
    async fn tab(&self, target: Option<&str>) -> Result<Option<usize>, Failure> {
        let window = target
            .and_then(|t| t.rsplit(':').next())
            .unwrap_or_default();
        if let Some(id) = window.strip_prefix('@').and_then(|n| n.parse().ok()) {
            return Ok(Some(id));
        }
        if target.is_some_and(|t| !t.contains('%')) {
            return Ok(None);
        }
        let pane = self.pane(target)?;
        Ok(self.locate(pane).await?.tab_id)
    }

    /// Where `pane` is, or tmux's error for a pane that is not there.
    async fn locate(&self, pane: PaneRef) -> Result<LocateResult, Failure> {
        let args = LocateArgs {
            pane_id: pane,
            screen: false,
        };
        let located = self.call::<op::Locate>(&args).await;
        located.map_err(|e| match e.code {
            ErrorCode::PaneNotFound => Failure(format!("can't find pane: %{}", pane.id)),
            _ => Failure::from(e),
        })
    }
}
