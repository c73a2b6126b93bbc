//! What an agent program's screen shows: a composer (empty, or holding a
//! draft nobody sent), a turn under way, or a dialog that a key would
//! answer. Told from the screen's text, as Claude Code draws it (2.1.197
//! to 2.1.332, seen); a screen drawn otherwise is no agent's (`None`),
//! never one that is safe to type into.
//!
//! - The **composer** is a prompt row (`❯ ` or `> `) between two rules
//!   (rows of `─`) near the bottom of the screen. Text after the prompt is
//!   a draft, except the hints Claude Code shows in an empty composer.
//! - A **turn under way** shows `esc to interrupt` (the status row under
//!   the composer), or a spinner row above it (`✻ Swooping…`).
//! - A **dialog** replaces the composer: a numbered option picked with `❯`
//!   (`❯ 1. Yes`), or `Esc to cancel`, or `Do you want to proceed?`.

use crate::shell_line::{shell_line, ShellLine};

/// What a pane's screen shows to whoever is about to type into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    /// What an agent's screen shows; `None` when it is no agent's.
    pub agent: Option<AgentScreen>,
    /// The line, if the screen is a shell's.
    pub line: ShellLine,
}

impl Shown {
    /// What the screen `rows`, with the cursor at `cursor` (column, row),
    /// shows.
    pub fn of<S: AsRef<str>>(rows: &[S], cursor: Option<(usize, usize)>) -> Shown {
        Shown {
            agent: agent_screen(rows),
            line: shell_line(rows, cursor),
        }
    }
}

/// Agent programs, by the name their executable or script has.
const AGENT_PROGRAMS: [&str; 8] = [
    "claude", "codex", "gemini", "opencode", "aider", "goose", "amp", "qwen",
];

/// Programs that run an agent's script.
const INTERPRETERS: [&str; 4] = ["node", "bun", "deno", "python3"];

/// The name of the program `argv` runs: its executable's, or for an
/// interpreter the script's (`node …/claude-code/cli.js` is `claude`).
pub fn program_name(argv: &[String]) -> Option<String> {
    let stem = |arg: &str| {
        let name = arg.rsplit('/').next().unwrap_or(arg);
        name.split('.').next().unwrap_or(name).to_owned()
    };
    let named = |arg: &String| match arg.contains("/claude-code/") {
        true => "claude".to_owned(),
        false => stem(arg),
    };
    match argv {
        [program, script, ..]
            if INTERPRETERS.contains(&stem(program).as_str()) && !script.starts_with('-') =>
        {
            Some(named(script))
        }
        [program, ..] => Some(named(program)),
        [] => None,
    }
}

/// The name of the program a command line runs (split at whitespace; see
/// [`program_name`]).
pub fn program_of_command(command: &str) -> Option<String> {
    let argv: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
    program_name(&argv)
}

/// Whether `argv` runs an agent program (see [`program_name`]).
pub fn is_agent_program(argv: &[String]) -> bool {
    program_name(argv).is_some_and(|name| names_an_agent(&name))
}

/// Whether a program of this name (see [`program_name`]) is an agent's.
pub fn names_an_agent(program: &str) -> bool {
    AGENT_PROGRAMS.contains(&program)
}

/// What an agent's screen shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentScreen {
    /// An empty composer, with a turn under way (what is typed is queued).
    Working,
    /// An empty composer, waiting.
    Idle,
    /// The composer holds text nobody sent.
    Draft,
    /// A dialog, question or menu: a key would answer it.
    Asking,
}

/// Most rows a composer spans (a draft of several lines), rules included.
const COMPOSER_ROWS: usize = 14;
/// Most non-blank rows under the composer (status rows, hints).
const ROWS_BELOW: usize = 4;
/// A rule is at least this many `─`.
const RULE_CELLS: usize = 20;
/// What an empty composer may show (greyed) after its prompt.
const EMPTY_HINTS: [&str; 2] = ["Press up to edit queued messages", "Try \""];
/// Shown while a turn is under way.
const BUSY_SIGN: &str = "esc to interrupt";
/// Rows above the composer a spinner may be on.
const SPINNER_ROWS: usize = 6;

/// What the screen `rows` shows, if it is an agent's.
pub fn agent_screen<S: AsRef<str>>(rows: &[S]) -> Option<AgentScreen> {
    let rows: Vec<&str> = rows.iter().map(AsRef::as_ref).collect();
    if let Some((top, bottom)) = composer(&rows) {
        if holds_draft(&rows[top + 1..bottom]) {
            return Some(AgentScreen::Draft);
        }
        let busy = rows.iter().any(|r| r.to_lowercase().contains(BUSY_SIGN))
            || rows[top.saturating_sub(SPINNER_ROWS)..top]
                .iter()
                .any(|r| is_spinner(r));
        return Some(match busy {
            true => AgentScreen::Working,
            false => AgentScreen::Idle,
        });
    }
    rows.iter()
        .any(|r| is_dialog_row(r))
        .then_some(AgentScreen::Asking)
}

/// The rows of the composer's two rules, the lowest on the screen.
fn composer(rows: &[&str]) -> Option<(usize, usize)> {
    let last = rows.iter().rposition(|r| !r.trim().is_empty())?;
    let bottom = (last.saturating_sub(ROWS_BELOW)..=last)
        .rev()
        .find(|&i| is_rule(rows[i]))?;
    let top = (bottom.saturating_sub(COMPOSER_ROWS - 1)..bottom)
        .rev()
        .find(|&i| is_rule(rows[i]))?;
    let first = rows.get(top + 1).filter(|_| top + 1 < bottom)?;
    is_prompt(first).then_some((top, bottom))
}

fn is_rule(row: &str) -> bool {
    let row = row.trim();
    row.chars().count() >= RULE_CELLS && row.chars().all(|c| c == '─')
}

/// `❯` or `>`, then nothing or a space (Claude Code draws a no-break space).
fn is_prompt(row: &str) -> bool {
    after_prompt(row).is_some()
}

/// What follows a composer's prompt sign and its space.
fn after_prompt(row: &str) -> Option<&str> {
    let row = row.trim_start();
    let rest = row.strip_prefix('❯').or_else(|| row.strip_prefix('>'))?;
    (rest.is_empty() || rest.starts_with(char::is_whitespace)).then(|| rest.trim())
}

/// Whether the composer's rows hold text a person could have typed.
fn holds_draft(rows: &[&str]) -> bool {
    let first = after_prompt(rows[0]).unwrap_or_default();
    let hint = EMPTY_HINTS.iter().any(|h| first.starts_with(h));
    let more = rows[1..].iter().any(|r| !r.trim().is_empty());
    more || (!first.is_empty() && !hint)
}

/// `✻ Swooping…`: a sign, a word, an ellipsis.
fn is_spinner(row: &str) -> bool {
    let row = row.trim();
    let mut chars = row.chars();
    let sign = chars.next().is_some_and(|c| !c.is_alphanumeric());
    let rest = chars.as_str();
    sign && rest.starts_with(' ')
        && rest.trim_start().starts_with(char::is_alphabetic)
        && rest.contains('…')
}

fn is_dialog_row(row: &str) -> bool {
    let row = row.trim();
    let picked = row.strip_prefix("❯ ").is_some_and(|rest| {
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        digits > 0 && rest[digits..].starts_with(". ")
    });
    picked || row.starts_with("Esc to cancel") || row.contains("Do you want to proceed?")
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULE: &str = "────────────────────────────────────────────────────────────";

    fn screen(rows: &[&str]) -> Option<AgentScreen> {
        let rows: Vec<String> = rows.iter().map(|r| r.replace("RULE", RULE)).collect();
        agent_screen(&rows)
    }

    #[test]
    fn claude_code_2_1_332_as_seen() {
        let banner = ["", " ▐▛███▛█   Claude Code v2.1.332", "▝▜██████▀  Opus", ""];
        let with = |rows: &[&str]| {
            let all: Vec<&str> = banner.iter().chain(rows).copied().collect();
            screen(&all)
        };
        let idle = [
            "RULE",
            "❯",
            "RULE",
            "  ⏸ manual mode on · ? for shortcuts · ← for agents",
        ];
        assert_eq!(with(&idle), Some(AgentScreen::Idle));
        let draft = ["RULE", "❯ my own draft", "RULE", "  ⏸ manual mode on"];
        assert_eq!(with(&draft), Some(AgentScreen::Draft));
        // The prompt's space is a no-break space.
        let idle_nbsp = ["RULE", "❯\u{a0}", "RULE", "  ⏸ manual mode on"];
        assert_eq!(with(&idle_nbsp), Some(AgentScreen::Idle));
        let draft_nbsp = ["RULE", "❯\u{a0}my own draft", "RULE", "  ⏸ manual mode on"];
        assert_eq!(with(&draft_nbsp), Some(AgentScreen::Draft));
        let working = [
            "❯ HOLD /tmp/release",
            "* Moseying…",
            "                 ctrl+y to paste deleted text",
            "RULE",
            "❯",
            "RULE",
            "  ⏸ manual mode on · esc to interrupt · ← for agents",
        ];
        assert_eq!(with(&working), Some(AgentScreen::Working));
        let queued = [
            "❯ BASH touch /tmp/xx",
            "  ⎿  Queued · ctrl+enter to send now",
            "* Moseying…",
            "RULE",
            "❯ Press up to edit queued messages",
            "RULE",
            "  ⏸ manual mode on · esc to interrupt · ← for agents",
        ];
        assert_eq!(with(&queued), Some(AgentScreen::Working));
        let asking = [
            "  ⎿  $ touch /tmp/made.txt",
            "RULE",
            " Bash command",
            " Run the command",
            "╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌",
            " touch /tmp/made.txt",
            "╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌",
            " Do you want to proceed?",
            " ❯ 1. Yes",
            "   2. Yes, and always allow access to /tmp from this project",
            "   3. Yes, and switch to auto mode · auto mode handles these prompts for you",
            "   4. No",
            " Esc to cancel · Tab to amend",
        ];
        assert_eq!(with(&asking), Some(AgentScreen::Asking));
    }

    #[test]
    fn claude_code_2_1_197_as_seen() {
        let idle = [
            "RULE",
            "❯",
            "RULE",
            "  ? for shortcuts · ← for agents     ● high · /effort",
        ];
        assert_eq!(screen(&idle), Some(AgentScreen::Idle));
        let draft = ["RULE", "❯ my own draft", "RULE", "        ● high · /effort"];
        assert_eq!(screen(&draft), Some(AgentScreen::Draft));
        let working = [
            "❯ HOLD /tmp/r",
            "✻ Swooping…",
            "RULE",
            "❯",
            "RULE",
            "  esc to interrupt",
        ];
        assert_eq!(screen(&working), Some(AgentScreen::Working));
        // The status row goes blank while a draft is typed: the spinner tells.
        let spinning = [
            "✢ Swooping…",
            "  ❯ BASH touch /tmp/xx",
            "RULE",
            "❯",
            "RULE",
            "",
        ];
        assert_eq!(screen(&spinning), Some(AgentScreen::Working));
        let asking = [
            "● Bash(touch /tmp/made.txt)",
            "  ⎿  Waiting…",
            "RULE",
            " Bash command",
            "   touch /tmp/made.txt",
            " Do you want to proceed?",
            " ❯ 1. Yes",
            "   2. Yes, and always allow access to work/ from this project",
            "   3. No",
            " Esc to cancel · Tab to amend · ctrl+e to explain",
        ];
        assert_eq!(screen(&asking), Some(AgentScreen::Asking));
    }

    #[test]
    fn agent_programs_are_known_by_their_executable_or_script() {
        let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(is_agent_program(&argv(&[
            "/x/bin/claude.exe",
            "--permission-mode",
            "default"
        ])));
        assert!(is_agent_program(&argv(&[
            "node",
            "/x/@anthropic-ai/claude-code/cli.js"
        ])));
        assert!(is_agent_program(&argv(&["codex"])));
        assert!(!is_agent_program(&argv(&["bash"])));
        assert!(!is_agent_program(&argv(&["vim", "claude.txt"])));
        assert!(!is_agent_program(&argv(&[])));
    }

    #[test]
    fn a_program_is_named_by_its_executable_or_an_interpreter_s_script() {
        let name = |a: &[&str]| program_name(&a.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(name(&["/usr/bin/sleep", "3600"]).as_deref(), Some("sleep"));
        assert_eq!(
            name(&["python3", "/srv/app/serve.py"]).as_deref(),
            Some("serve")
        );
        assert_eq!(
            name(&["node", "/x/claude-code/cli.js"]).as_deref(),
            Some("claude")
        );
        assert_eq!(
            name(&["node", "--inspect", "a.js"]).as_deref(),
            Some("node")
        );
        assert_eq!(name(&[]), None);
    }

    #[test]
    fn a_draft_of_several_lines_is_a_draft() {
        let rows = [
            "RULE",
            "❯ first line",
            "  second line",
            "RULE",
            "  ? for shortcuts",
        ];
        assert_eq!(screen(&rows), Some(AgentScreen::Draft));
        let rows = ["RULE", "❯", "  second line", "RULE"];
        assert_eq!(screen(&rows), Some(AgentScreen::Draft));
    }

    #[test]
    fn shells_editors_and_output_are_no_agents() {
        let shell = ["user@host:~$ ls", "a  b", "user@host:~$ "];
        assert_eq!(screen(&shell), None);
        let starship = ["~/src", "❯ "];
        assert_eq!(screen(&starship), None);
        // A composer far above the bottom is old output, not a composer.
        let scrolled = ["RULE", "❯", "RULE", "a", "b", "c", "d", "e", "f"];
        assert_eq!(screen(&scrolled), None);
        // Rules without a prompt between them.
        let table = ["RULE", "name  size", "RULE"];
        assert_eq!(screen(&table), None);
        assert_eq!(screen(&[]), None);
    }
}
