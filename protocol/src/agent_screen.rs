//! What a pane's screen shows to whoever is about to type into it: an
//! agent program's composer (empty, or holding a draft nobody sent), a
//! turn under way or a dialog that a key would answer, told by the
//! program's description ([`crate::agent_programs`]); and a shell's line.
//! Which program a pane runs is told by its executable or script.

use crate::agent_programs::{AgentScreen, Reading, Telling};
use crate::shell_line::{prompt_line, shell_line, ShellLine};

/// What `described_by` says of an agent told by its prompt line.
pub const LINES: &str = "reads lines";

/// What a pane's screen shows to whoever is about to type into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    /// What an agent's screen shows; `None` when it is no agent's.
    pub agent: Option<AgentScreen>,
    /// The description that told it ([`crate::agent_programs::Description::label`]).
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
/// still (see [`crate::agent_programs::Delivery::cr_again`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Composing {
    /// Its text nobody sent, rows joined by line feeds ("" when empty).
    pub draft: String,
    /// Text taken as the program's own suggestion ("" when none).
    pub suggestion: String,
    /// A fingerprint of the rest of the screen ([`Reading::around`]).
    pub around: u64,
    /// A fingerprint of the whole screen as drawn, blank rows and cursor
    /// too ([`Reading::drawn`]): a CR the program took as a new line
    /// changes it, one it has not read yet does not.
    pub drawn: u64,
    /// The cursor does not tell whether its text is the program's
    /// suggestion ([`crate::agent_programs::ComposerSeen::cursor_away`]).
    pub cursor_away: bool,
    /// The state shown were its draft none (idle, or working).
    pub without_draft: AgentScreen,
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
                let composing = composing(&reading, rows, cursor);
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

fn composing<S: AsRef<str>>(
    reading: &Reading,
    rows: &[S],
    cursor: Option<(usize, usize)>,
) -> Option<Composing> {
    let composer = reading.composer.as_ref().ok()?;
    Some(Composing {
        draft: composer.draft(),
        suggestion: composer.suggestion(),
        around: reading.around(rows),
        drawn: reading.drawn(rows, cursor),
        cursor_away: composer.cursor_away,
        without_draft: match reading.working {
            Some(_) => AgentScreen::Working,
            None => AgentScreen::Idle,
        },
    })
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
}
