//! `zellij-mcp claude [ARGS]`: Claude Code in this Zellij pane, with the
//! shim as its tmux, so that its agent teams open teammates in Zellij
//! panes. Only this process and its children see the shim: `TMUX` names a
//! socket of the shim's, `TMUX_PANE` this pane, and `PATH` starts with a
//! folder whose `tmux` is this binary. A real tmux elsewhere, even inside
//! another Zellij pane, is untouched.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

use super::placeholder;

#[derive(Debug, clap::Args)]
pub struct ClaudeArgs {
    /// Open teammates in this tab (made when missing) instead of beside
    /// this pane.
    #[arg(long)]
    pub tab: Option<String>,
    /// The program to start (default `claude`, on PATH).
    #[arg(long, default_value = "claude")]
    pub program: PathBuf,
    /// Arguments for it; `--teammate-mode tmux` is added unless they set
    /// a teammate mode.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<String>,
}

/// Replaces this process with the program; returns only on an error, with
/// the exit status.
pub fn run(args: ClaudeArgs) -> i32 {
    let (Some(session), Some(pane)) = (env("ZELLIJ_SESSION_NAME"), env("ZELLIJ_PANE_ID")) else {
        eprintln!("zellij-mcp claude: run it in a Zellij pane (ZELLIJ_SESSION_NAME and ZELLIJ_PANE_ID are not set)");
        return 2;
    };
    let prepared = placeholder::folder(&session).and_then(|folder| {
        let bin = tmux_link(&folder)?;
        Ok((folder, bin))
    });
    let (folder, bin) = match prepared {
        Ok(made) => made,
        Err(e) => {
            eprintln!("zellij-mcp claude: cannot prepare the tmux shim: {e}");
            return 2;
        }
    };
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![bin];
    paths.extend(std::env::split_paths(&path));
    let path = std::env::join_paths(paths).unwrap_or(path);
    let socket = folder.join("tmux-socket");
    let mut program_args = args.args;
    // Claude Code's own choice (`auto`) keeps teammates out of panes.
    if !program_args
        .iter()
        .any(|a| a.starts_with("--teammate-mode"))
    {
        program_args.extend(["--teammate-mode".into(), "tmux".into()]);
    }
    let mut command = std::process::Command::new(&args.program);
    if let Some(tab) = &args.tab {
        command.env(super::act::TEAM_TAB, tab);
    }
    let error = command
        .args(&program_args)
        .env(
            "TMUX",
            format!("{},{},0", socket.display(), std::process::id()),
        )
        .env("TMUX_PANE", format!("%{pane}"))
        .env("PATH", path)
        .exec();
    eprintln!(
        "zellij-mcp claude: cannot start {}: {error}",
        args.program.display()
    );
    127
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// A folder holding `tmux`, a link to this binary; the folder.
fn tmux_link(folder: &Path) -> std::io::Result<PathBuf> {
    let bin = folder.join("bin");
    std::fs::create_dir_all(&bin)?;
    let link = bin.join("tmux");
    let exe = std::env::current_exe()?;
    if std::fs::read_link(&link).ok().as_deref() != Some(exe.as_path()) {
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&exe, &link)?;
    }
    Ok(bin)
}
