//! The tmux command lines the shim accepts, parsed with tmux's own flags
//! and short names. Flags it has no use for are accepted so that a command
//! line tmux would take is not refused for them.

use clap::{Args, Parser, Subcommand};

/// `tmux [-S socket] [-L name] [-V] <verb> ...`
#[derive(Debug, Parser)]
#[command(
    name = "tmux",
    disable_help_flag = true,
    disable_version_flag = true,
    disable_help_subcommand = true
)]
pub struct TmuxLine {
    /// The server's socket (taken from `TMUX`; one Zellij session here).
    #[arg(short = 'S')]
    pub socket: Option<String>,
    /// A named server (`-L claude-swarm-<pid>`): the same session here.
    #[arg(short = 'L')]
    pub label: Option<String>,
    #[arg(short = 'V')]
    pub version: bool,
    #[command(subcommand)]
    pub verb: Option<Verb>,
}

#[derive(Debug, Subcommand)]
pub enum Verb {
    #[command(name = "split-window", alias = "splitw")]
    SplitWindow(SplitWindow),
    #[command(name = "select-pane", alias = "selectp")]
    SelectPane(SelectPane),
    #[command(name = "respawn-pane", alias = "respawnp")]
    RespawnPane(RespawnPane),
    #[command(name = "display-message", alias = "display")]
    DisplayMessage(DisplayMessage),
    #[command(name = "list-panes", alias = "lsp")]
    ListPanes(ListPanes),
    #[command(name = "list-windows", alias = "lsw")]
    ListWindows(ListWindows),
    #[command(name = "has-session", alias = "has")]
    HasSession(TargetOnly),
    #[command(name = "kill-pane", alias = "killp")]
    KillPane(KillPane),
    #[command(name = "send-keys", alias = "send")]
    SendKeys(SendKeys),
    #[command(name = "capture-pane", alias = "capturep")]
    CapturePane(CapturePane),
    #[command(name = "new-window", alias = "neww")]
    NewWindow(NewWindow),
    #[command(name = "new-session", alias = "new")]
    NewSession(NewSession),
    #[command(name = "break-pane", alias = "breakp")]
    BreakPane(BreakPane),
    #[command(name = "join-pane", alias = "joinp")]
    JoinPane(JoinPane),
    #[command(name = "show-options", aliases = ["show", "show-option"])]
    ShowOptions(ShowOptions),
    /// Styling and layout: accepted, and nothing changes (Zellij lays panes
    /// out itself, and its borders are not tmux's).
    #[command(
        name = "set-option",
        aliases = ["set", "set-window-option", "setw", "select-layout", "selectl", "resize-pane", "resizep"]
    )]
    Styling(Ignored),
}

/// Any flags and arguments, all ignored.
#[derive(Debug, Args)]
pub struct Ignored {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub rest: Vec<String>,
}

#[derive(Debug, Args)]
pub struct TargetOnly {
    #[arg(short = 't')]
    pub target: Option<String>,
}

/// What a new pane runs: in `-c`, with `-e`'s assignments, the command
/// line after the flags.
#[derive(Debug, Args)]
pub struct Launch {
    #[arg(short = 'c')]
    pub cwd: Option<String>,
    #[arg(short = 'e')]
    pub env: Vec<String>,
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub command: Vec<String>,
}

/// `-P` prints the pane made or moved, in `-F`'s format.
#[derive(Debug, Args)]
pub struct Printing {
    #[arg(short = 'P')]
    pub print: bool,
    #[arg(short = 'F')]
    pub format: Option<String>,
}

/// Where tmux would put a pane (Zellij lays panes out itself).
#[derive(Debug, Args)]
pub struct Position {
    #[arg(short = 'b')]
    pub before: bool,
    #[arg(short = 'd')]
    pub detached: bool,
    #[arg(short = 'f')]
    pub full: bool,
    #[arg(short = 'h')]
    pub horizontal: bool,
    #[arg(short = 'v')]
    pub vertical: bool,
    #[arg(short = 'l')]
    pub size: Option<String>,
}

#[derive(Debug, Args)]
pub struct SplitWindow {
    #[command(flatten)]
    pub position: Position,
    #[arg(short = 'I')]
    pub stdin: bool,
    #[arg(short = 'Z')]
    pub zoom: bool,
    #[arg(short = 'p')]
    pub percent: Option<String>,
    #[arg(short = 't')]
    pub target: Option<String>,
    #[command(flatten)]
    pub printing: Printing,
    #[command(flatten)]
    pub launch: Launch,
}

#[derive(Debug, Args)]
pub struct SelectPane {
    #[arg(short = 'D')]
    pub down: bool,
    #[arg(short = 'L')]
    pub left: bool,
    #[arg(short = 'R')]
    pub right: bool,
    #[arg(short = 'U')]
    pub up: bool,
    #[arg(short = 'd')]
    pub disable: bool,
    #[arg(short = 'e')]
    pub enable: bool,
    #[arg(short = 'l')]
    pub last: bool,
    #[arg(short = 'M')]
    pub clear_marked: bool,
    #[arg(short = 'm')]
    pub marked: bool,
    #[arg(short = 'Z')]
    pub zoom: bool,
    #[arg(short = 'P')]
    pub style: Option<String>,
    #[arg(short = 'T')]
    pub title: Option<String>,
    #[arg(short = 't')]
    pub target: Option<String>,
}

#[derive(Debug, Args)]
pub struct RespawnPane {
    #[arg(short = 'k')]
    pub kill: bool,
    #[arg(short = 't')]
    pub target: Option<String>,
    #[command(flatten)]
    pub launch: Launch,
}

#[derive(Debug, Args)]
pub struct DisplayMessage {
    #[arg(short = 'a')]
    pub all: bool,
    #[arg(short = 'I')]
    pub stdin: bool,
    #[arg(short = 'N')]
    pub no_keys: bool,
    #[arg(short = 'p')]
    pub print: bool,
    #[arg(short = 'v')]
    pub verbose: bool,
    #[arg(short = 'c')]
    pub client: Option<String>,
    #[arg(short = 'd')]
    pub delay: Option<String>,
    #[arg(short = 't')]
    pub target: Option<String>,
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub message: Vec<String>,
}

#[derive(Debug, Args)]
pub struct ListPanes {
    #[arg(short = 'a')]
    pub all: bool,
    #[arg(short = 's')]
    pub session: bool,
    #[arg(short = 'F')]
    pub format: Option<String>,
    #[arg(short = 'f')]
    pub filter: Option<String>,
    #[arg(short = 't')]
    pub target: Option<String>,
}

#[derive(Debug, Args)]
pub struct ListWindows {
    #[arg(short = 'a')]
    pub all: bool,
    #[arg(short = 'F')]
    pub format: Option<String>,
    #[arg(short = 'f')]
    pub filter: Option<String>,
    #[arg(short = 't')]
    pub target: Option<String>,
}

#[derive(Debug, Args)]
pub struct KillPane {
    #[arg(short = 'a')]
    pub all_but: bool,
    #[arg(short = 't')]
    pub target: Option<String>,
}

#[derive(Debug, Args)]
pub struct SendKeys {
    #[arg(short = 'F')]
    pub expand: bool,
    #[arg(short = 'H')]
    pub hex: bool,
    #[arg(short = 'K')]
    pub client_keys: bool,
    #[arg(short = 'l')]
    pub literal: bool,
    #[arg(short = 'M')]
    pub mouse: bool,
    #[arg(short = 'R')]
    pub reset: bool,
    #[arg(short = 'X')]
    pub copy_mode: bool,
    #[arg(short = 'N')]
    pub repeat: Option<usize>,
    #[arg(short = 't')]
    pub target: Option<String>,
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub keys: Vec<String>,
}

#[derive(Debug, Args)]
pub struct CapturePane {
    #[arg(short = 'a')]
    pub alternate: bool,
    #[arg(short = 'C')]
    pub escape_c: bool,
    #[arg(short = 'e')]
    pub escapes: bool,
    #[arg(short = 'J')]
    pub join: bool,
    #[arg(short = 'N')]
    pub trailing_spaces: bool,
    #[arg(short = 'p')]
    pub print: bool,
    #[arg(short = 'P')]
    pub partial: bool,
    #[arg(short = 'q')]
    pub quiet: bool,
    #[arg(short = 'T')]
    pub trim: bool,
    #[arg(short = 'b')]
    pub buffer: Option<String>,
    #[arg(short = 'E', allow_hyphen_values = true)]
    pub end: Option<String>,
    #[arg(short = 'S', allow_hyphen_values = true)]
    pub start: Option<String>,
    #[arg(short = 't')]
    pub target: Option<String>,
}

#[derive(Debug, Args)]
pub struct NewWindow {
    #[arg(short = 'a')]
    pub after: bool,
    #[arg(short = 'b')]
    pub before: bool,
    #[arg(short = 'd')]
    pub detached: bool,
    #[arg(short = 'k')]
    pub kill: bool,
    #[arg(short = 'S')]
    pub select: bool,
    #[arg(short = 'n')]
    pub name: Option<String>,
    #[arg(short = 't')]
    pub target: Option<String>,
    #[command(flatten)]
    pub printing: Printing,
    #[command(flatten)]
    pub launch: Launch,
}

#[derive(Debug, Args)]
pub struct NewSession {
    #[arg(short = 'A')]
    pub attach: bool,
    #[arg(short = 'd')]
    pub detached: bool,
    #[arg(short = 'D')]
    pub detach_others: bool,
    #[arg(short = 'E')]
    pub no_update_env: bool,
    #[arg(short = 'X')]
    pub exit_others: bool,
    #[arg(short = 'f')]
    pub flags: Option<String>,
    #[arg(short = 'n')]
    pub window_name: Option<String>,
    #[arg(short = 's')]
    pub name: Option<String>,
    #[arg(short = 't')]
    pub group: Option<String>,
    #[arg(short = 'x')]
    pub width: Option<String>,
    #[arg(short = 'y')]
    pub height: Option<String>,
    #[command(flatten)]
    pub printing: Printing,
    #[command(flatten)]
    pub launch: Launch,
}

#[derive(Debug, Args)]
pub struct BreakPane {
    #[arg(short = 'a')]
    pub after: bool,
    #[arg(short = 'b')]
    pub before: bool,
    #[arg(short = 'd')]
    pub detached: bool,
    #[arg(short = 'n')]
    pub name: Option<String>,
    #[arg(short = 's')]
    pub source: Option<String>,
    #[arg(short = 't')]
    pub target: Option<String>,
    #[command(flatten)]
    pub printing: Printing,
}

#[derive(Debug, Args)]
pub struct JoinPane {
    #[command(flatten)]
    pub position: Position,
    #[arg(short = 's')]
    pub source: Option<String>,
    #[arg(short = 't')]
    pub target: Option<String>,
}

#[derive(Debug, Args)]
pub struct ShowOptions {
    #[arg(short = 'A')]
    pub inherited: bool,
    #[arg(short = 'g')]
    pub global: bool,
    #[arg(short = 'H')]
    pub hooks: bool,
    #[arg(short = 'p')]
    pub pane: bool,
    #[arg(short = 'q')]
    pub quiet: bool,
    #[arg(short = 's')]
    pub server: bool,
    #[arg(short = 'v')]
    pub value_only: bool,
    #[arg(short = 'w')]
    pub window: bool,
    #[arg(short = 't')]
    pub target: Option<String>,
    pub option: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verb(line: &[&str]) -> Verb {
        let line = std::iter::once("tmux").chain(line.iter().copied());
        TmuxLine::try_parse_from(line).unwrap().verb.unwrap()
    }

    #[test]
    fn shared_flags_and_the_command_after_them_are_read_in_each_verb() {
        let Verb::SplitWindow(a) = verb(&[
            "split-window",
            "-t",
            "%0",
            "-h",
            "-l",
            "70%",
            "-P",
            "-F",
            "#{pane_id}",
            "-c",
            "/w",
            "-e",
            "A=1",
            "claude",
            "--model",
            "x",
        ]) else {
            panic!("split-window")
        };
        assert!(a.position.horizontal && a.printing.print);
        assert_eq!(a.position.size.as_deref(), Some("70%"));
        assert_eq!(a.printing.format.as_deref(), Some("#{pane_id}"));
        assert_eq!(
            (a.launch.cwd.as_deref(), &a.launch.env[..]),
            (Some("/w"), &["A=1".to_owned()][..])
        );
        assert_eq!(a.launch.command, ["claude", "--model", "x"]);
        let Verb::NewSession(a) = verb(&["new", "-d", "-s", "team", "-P", "cat"]) else {
            panic!("new-session")
        };
        assert_eq!((a.name.as_deref(), a.printing.print), (Some("team"), true));
        assert_eq!(a.launch.command, ["cat"]);
        let Verb::RespawnPane(a) = verb(&["respawnp", "-k", "-t", "%3", "env", "-u", "X"]) else {
            panic!("respawn-pane")
        };
        assert_eq!(a.launch.command, ["env", "-u", "X"]);
        let Verb::JoinPane(a) = verb(&["joinp", "-h", "-s", "%2", "-t", "%1"]) else {
            panic!("join-pane")
        };
        assert!(a.position.horizontal);
        assert_eq!(
            (a.source.as_deref(), a.target.as_deref()),
            (Some("%2"), Some("%1"))
        );
    }
}
