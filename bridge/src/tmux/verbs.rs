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
    ListWindows(Listing),
    #[command(name = "has-session", alias = "has")]
    HasSession(TmuxTarget),
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

/// `-t`: what a verb acts on: a pane (`%N`), a window (`@N`) or a session.
#[derive(Debug, Args)]
pub struct TmuxTarget {
    #[arg(short = 't')]
    target: Option<String>,
}

impl TmuxTarget {
    /// The target as given; `None` when there is none.
    pub fn get(&self) -> Option<&str> {
        self.target.as_deref()
    }
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

/// Where tmux would put a pane, beside `-t`'s (Zellij lays panes out
/// itself).
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
    #[command(flatten)]
    pub target: TmuxTarget,
}

/// A new window (a tab here) that a pane goes in: after or before (`-a`,
/// `-b`) `-t`'s, not selected (`-d`), named `-n`; `-P` prints the pane.
#[derive(Debug, Args)]
pub struct Window {
    #[arg(short = 'a')]
    pub after: bool,
    #[arg(short = 'b')]
    pub before: bool,
    #[arg(short = 'd')]
    pub detached: bool,
    #[arg(short = 'n')]
    pub name: Option<String>,
    #[command(flatten)]
    pub target: TmuxTarget,
    #[command(flatten)]
    pub printing: Printing,
}

/// What a list prints: of all (`-a`) or `-t`'s, in `-F`'s format, the
/// ones `-f` keeps.
#[derive(Debug, Args)]
pub struct Listing {
    #[arg(short = 'a')]
    pub all: bool,
    #[arg(short = 'F')]
    pub format: Option<String>,
    #[arg(short = 'f')]
    pub filter: Option<String>,
    #[command(flatten)]
    pub target: TmuxTarget,
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
    #[command(flatten)]
    pub target: TmuxTarget,
}

#[derive(Debug, Args)]
pub struct RespawnPane {
    #[arg(short = 'k')]
    pub kill: bool,
    #[command(flatten)]
    pub target: TmuxTarget,
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
    #[command(flatten)]
    pub target: TmuxTarget,
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub message: Vec<String>,
}

#[derive(Debug, Args)]
pub struct ListPanes {
    #[arg(short = 's')]
    pub session: bool,
    #[command(flatten)]
    pub listing: Listing,
}

#[derive(Debug, Args)]
pub struct KillPane {
    #[arg(short = 'a')]
    pub all_but: bool,
    #[command(flatten)]
    pub target: TmuxTarget,
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
    #[command(flatten)]
    pub target: TmuxTarget,
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
    #[command(flatten)]
    pub target: TmuxTarget,
}

#[derive(Debug, Args)]
pub struct NewWindow {
    #[command(flatten)]
    pub window: Window,
    #[arg(short = 'k')]
    pub kill: bool,
    #[arg(short = 'S')]
    pub select: bool,
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
    #[command(flatten)]
    pub window: Window,
    #[arg(short = 's')]
    pub source: Option<String>,
}

#[derive(Debug, Args)]
pub struct JoinPane {
    #[command(flatten)]
    pub position: Position,
    #[arg(short = 's')]
    pub source: Option<String>,
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
    #[command(flatten)]
    pub target: TmuxTarget,
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
            (a.source.as_deref(), a.position.target.get()),
            (Some("%2"), Some("%1"))
        );
    }

    #[test]
    fn the_shared_target_list_and_window_flags_are_read_in_each_verb() {
        let Verb::ListPanes(a) = verb(&["lsp", "-s", "-F", "#{pane_id}", "-t", "@1"]) else {
            panic!("list-panes")
        };
        assert!(a.session && !a.listing.all);
        assert_eq!(a.listing.format.as_deref(), Some("#{pane_id}"));
        assert_eq!(a.listing.target.get(), Some("@1"));
        let Verb::ListWindows(a) = verb(&["lsw", "-a", "-f", "x"]) else {
            panic!("list-windows")
        };
        assert!(a.all && a.target.get().is_none());
        assert_eq!(a.filter.as_deref(), Some("x"));
        let Verb::NewWindow(a) = verb(&["neww", "-d", "-n", "w", "-P", "-c", "/w", "cat"]) else {
            panic!("new-window")
        };
        assert!(a.window.detached && a.window.printing.print);
        assert_eq!(a.window.name.as_deref(), Some("w"));
        assert_eq!(a.launch.command, ["cat"]);
        let Verb::BreakPane(a) = verb(&["breakp", "-s", "%2", "-t", "@1", "-n", "b"]) else {
            panic!("break-pane")
        };
        assert_eq!(
            (a.source.as_deref(), a.window.target.get()),
            (Some("%2"), Some("@1"))
        );
        assert_eq!(a.window.name.as_deref(), Some("b"));
        let Verb::NewSession(a) = verb(&["new", "-t", "g", "-n", "w"]) else {
            panic!("new-session")
        };
        assert_eq!(
            (a.group.as_deref(), a.window_name.as_deref()),
            (Some("g"), Some("w"))
        );
        let Verb::HasSession(a) = verb(&["has", "-t", "=team"]) else {
            panic!("has-session")
        };
        assert_eq!(a.get(), Some("=team"));
        let Verb::SendKeys(a) = verb(&["send", "-t", "%3", "-l", "x"]) else {
            panic!("send-keys")
        };
        assert_eq!(
            (a.target.get(), &a.keys[..]),
            (Some("%3"), &["x".to_owned()][..])
        );
    }
}
