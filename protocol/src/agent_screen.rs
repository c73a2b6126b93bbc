//! What a pane's screen shows to whoever is about to type into it: an
//! agent program's composer (empty, or holding a draft nobody sent), a
//! turn under way or a dialog that a key would answer, told by the
//! program's description ([`crate::agent_programs`]); and a shell's line.
//! Which program a pane runs is told by its executable or script.

use crate::agent_programs::{Description, Reading};
use crate::launcher;
use crate::shell_line::{prompt_line, shell_line, ShellLine};

/// What `described_by` says of an agent told by its prompt line.
pub const LINES: &str = "reads lines";

/// What a pane's screen shows to whoever is about to type into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    /// What an agent's screen shows; `None` when it is no agent's.
    pub agent: Option<AgentScreen>,
    /// The description that told it ([`Description::label`]).
    pub described_by: Option<String>,
    /// What the agent's composer holds, where one was found.
    pub composer: Option<Composing>,
    /// The line, if the screen is a shell's.
    pub line: ShellLine,
    /// A fingerprint of an agent's screen less its working sign (see
    /// [`crate::agent_programs::Reading::still`]); 0 when no state was told.
    pub still: u64,
}

/// An agent's composer as seen: what a submit's further CR must see
/// unchanged (see [`crate::agent_programs::Delivery::cr_again`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Composing {
    /// Its text nobody sent, rows joined by line feeds ("" when empty).
    pub draft: String,
    /// Text taken as the program's own suggestion ("" when none).
    pub suggestion: String,
    /// A fingerprint of the rest of the screen ([`Reading::around`]).
    pub around: u64,
}

/// How to tell an agent's state: the description of the program the pane
/// runs (or, for a pane named as an agent's whose program none describes,
/// every description, the first that tells a state), and the pane's title.
#[derive(Debug, Clone, Copy)]
pub struct Telling<'a> {
    pub descriptions: &'a [Description],
    pub title: &'a str,
    /// The pane's agent was named as one that reads lines: an empty prompt
    /// line, when no description tells a state, is `idle`.
    pub reads_lines: bool,
}

impl Shown {
    /// What the screen `rows`, with the cursor at `cursor` (column, row),
    /// shows; an agent's state only when `telling` says how.
    pub fn of<S: AsRef<str>>(
        rows: &[S],
        cursor: Option<(usize, usize)>,
        telling: Option<Telling>,
    ) -> Shown {
        let told = telling.and_then(|t| {
            let mut told = t
                .descriptions
                .iter()
                .map(|d| (d.read_at(rows, cursor, t.title), d));
            let by_description = told.find_map(|(reading, d)| {
                let composing = composing(&reading, rows);
                let still = reading.still(rows);
                Some((reading.state?, d.label(), composing, still))
            });
            // Anything but an empty prompt line may be the agent's own
            // output: no state, rather than a guess.
            let at_prompt = t.reads_lines && prompt_line(rows) == ShellLine::Empty;
            by_description
                .or_else(|| at_prompt.then(|| (AgentScreen::Idle, LINES.to_owned(), None, 0)))
        });
        let (agent, described_by, composer, still) = match told {
            Some((agent, by, composer, still)) => (Some(agent), Some(by), composer, still),
            None => (None, None, None, 0),
        };
        Shown {
            agent,
            described_by,
            composer,
            still,
            line: shell_line(rows, cursor),
        }
    }
}

fn composing<S: AsRef<str>>(reading: &Reading, rows: &[S]) -> Option<Composing> {
    let composer = reading.composer.as_ref().ok()?;
    Some(Composing {
        draft: composer.draft(),
        suggestion: composer.suggestion(),
        around: reading.around(rows),
    })
}

/// Agent programs, by the name their executable or script has.
const AGENT_PROGRAMS: [&str; 8] = [
    "claude", "codex", "gemini", "opencode", "aider", "goose", "amp", "qwen",
];

/// Whether `argv` runs an agent program (see [`launcher::program_name`]).
pub fn is_agent_program(argv: &[String]) -> bool {
    launcher::program_name(argv).is_some_and(|name| names_an_agent(&name))
}

/// Whether a program of this name (see [`launcher::program_name`]) is an
/// agent's.
pub fn names_an_agent(program: &str) -> bool {
    AGENT_PROGRAMS.contains(&program)
}

/// What an agent's screen shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentScreen {
    /// An empty composer, with a turn under way (what is typed is queued).
    Working,
    /// A turn under way and no composer: what is typed would wait in the
    /// program's input and could answer its next question, so nothing is.
    Busy,
    /// An empty composer, waiting.
    Idle,
    /// The composer holds text nobody sent.
    Draft,
    /// A dialog, question or menu: a key would answer it.
    Asking,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agent_that_reads_lines_is_idle_at_its_empty_prompt_and_else_no_state() {
        let programs = crate::agent_programs::Programs::built_in();
        let mut telling = programs.telling(Some("bot"), true, "");
        let told = |rows: &[&str], telling| {
            let shown = Shown::of(rows, None, Some(telling));
            (shown.agent, shown.described_by)
        };
        assert_eq!(told(&["bot ready", "bot> "], telling), (None, None));
        telling.reads_lines = true;
        let idle = (Some(AgentScreen::Idle), Some(LINES.to_owned()));
        assert_eq!(told(&["bot ready", "bot> ", ""], telling), idle);
        assert_eq!(told(&["bot> half typed"], telling), (None, None));
        assert_eq!(told(&["working on it"], telling), (None, None));
        // A description that fits comes first.
        let claude = ["─".repeat(40), "❯ ".into(), "─".repeat(40)];
        let claude: Vec<&str> = claude.iter().map(String::as_str).collect();
        let by_claude = (Some(AgentScreen::Idle), Some("claude-code".to_owned()));
        assert_eq!(told(&claude, telling), by_claude);
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
}
