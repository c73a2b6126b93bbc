//! How each agent program shows its state and takes a message, as
//! descriptions in KDL: the built-in ones (`agent_programs.kdl`, Claude
//! Code, Codex CLI, Gemini CLI, opencode) and the person's own file, which
//! adds programs or replaces a built-in one by name. The plugin tells a
//! pane's state with the description of the program it runs; the bridge
//! checks the person's file (`doctor`) and sends it to the plugin.
//!
//! A screen is told from its last non-blank rows (`rows`, 16 unless said):
//! - the **composer** is found by its prompt sign (the lowest row that
//!   starts with one, or only the last row with `at="last-row"`), or
//!   between a `start` and an `end` row, or as the run of prompt rows over
//!   an `end` row; its text, less the prompt sign and the `empty` texts
//!   (placeholders, hints), is a draft. A composer with edge rows is read
//!   within the columns they span (an edge row's text up to a gap of two
//!   blanks, if that alone matches): what stands beside it on its rows
//!   (opencode's side panel) is not its text;
//! - **asking**: a row at or under the composer's first row (anywhere,
//!   without a composer) matches an `asking` pattern, or the title does;
//! - **working**: a row matches a `working` pattern, or the title does,
//!   with the composer empty, or with no composer at all (a program that
//!   hides it during a turn: what is typed then would wait in its input);
//!   else, with an empty composer, **idle**.
//!
//! [`Description::read`] also says where each of these was seen and by
//! which pattern, which [`Description::explain`] puts in words for a person
//! writing a description.
//!
//! A screen that is none of these is no state (`unknown`), never one that
//! is safe to type into.

use std::fmt;
use std::ops::Range;

use kdl::{KdlDocument, KdlEntry, KdlNode, KdlValue};
use regex_automata::dfa::regex::Regex;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::launcher::{self, names_an_agent};
use crate::matching::compile;

mod explain;
pub use explain::state_name;

/// The built-in descriptions.
pub const BUILT_IN: &str = include_str!("agent_programs.kdl");
/// The origin of the built-in descriptions.
const BUILT_IN_ORIGIN: &str = "built-in";
/// The person's file, in their configuration folder's `zellij-mcp`.
pub const FILE_NAME: &str = "agents.kdl";

/// A short fingerprint of a file's text (FNV-1a, 64 bits), by which the
/// bridge knows whether the plugin holds the file it has; `""` for none.
pub fn digest(text: Option<&str>) -> String {
    let Some(text) = text else {
        return String::new();
    };
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{hash:016x}")
}

/// Rows looked at, unless a description says.
const DEFAULT_ROWS: usize = 16;
/// Most rows a composer spans (a draft of several lines).
const COMPOSER_ROWS: usize = 14;
/// What one file may hold.
pub const MAX_FILE_BYTES: usize = 64 * 1024;
const MAX_AGENTS: usize = 32;
const MAX_PATTERNS: usize = 32;
const MAX_ROWS: i64 = 100;
const MAX_PROMPT_CHARS: usize = 8;

/// How a program takes a message of several lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Multiline {
    /// Typed as it is, line feeds and all (an Ink text input takes them
    /// as new lines of the draft).
    #[default]
    Typed,
    /// As one bracketed paste: a CR inside typed text would submit, or
    /// turn into a newline only by the program's guess.
    Paste,
    /// As one line, its line feeds made spaces (a program that reads
    /// lines would take each as its own input).
    OneLine,
}

/// What a message to a program that is working does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WhileWorking {
    /// Typed now: the program queues it for after the turn.
    #[default]
    Queue,
    /// Held until the turn ends: the program would take it into the turn
    /// under way (Codex steers the running turn with Enter).
    Hold,
}

/// How a program takes a message: the text, then a lone CR a moment later.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Delivery {
    pub multiline: Multiline,
    pub while_working: WhileWorking,
    /// The program may take a CR read soon after a paste as a new line of
    /// the draft (Gemini CLI), or leaves a lone CR unread (Codex just after
    /// it resumed): the CR goes again, while this very message still shows
    /// in its composer and the rest of the screen has been still a while.
    /// Off unless a description asks by name (`cr="again"`): a CR that a
    /// program keeps in its input can answer its next question.
    pub cr_again: bool,
}

impl Delivery {
    /// An agent that reads lines at a prompt.
    pub const LINES: Delivery = Delivery {
        multiline: Multiline::OneLine,
        while_working: WhileWorking::Queue,
        cr_again: false,
    };
}

/// Where a program writes down its conversation, as one of the formats
/// the bridge reads (`record "codex"`): a reply is read from there rather
/// than from the screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Record {
    ClaudeCode,
    Codex,
    GeminiCli,
    Opencode,
    QwenCode,
}

impl Record {
    pub const ALL: [Record; 5] = [
        Record::ClaudeCode,
        Record::Codex,
        Record::GeminiCli,
        Record::Opencode,
        Record::QwenCode,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Record::ClaudeCode => "claude-code",
            Record::Codex => "codex",
            Record::GeminiCli => "gemini-cli",
            Record::Opencode => "opencode",
            Record::QwenCode => "qwen-code",
        }
    }

    pub fn named(name: &str) -> Option<Record> {
        Record::ALL.into_iter().find(|r| r.name() == name)
    }
}

/// How a program is given zellij-mcp's hooks for one launch, so that
/// each runs `zellij-mcp hook` (see [`crate::hooks::launch`]): a settings
/// file zellij-mcp writes, naming the program's hook events
/// (`hook-events "Stop" …`), given by arguments put right after the
/// program (`hooks "--settings" "{settings}"`) or by a variable (`hooks
/// env="NAME"`); or in the program's own configuration overrides (`hooks
/// config="codex"`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GivenHooks {
    /// The hook events the settings file names.
    pub events: Vec<String>,
    /// The arguments put right after the program.
    pub args: Vec<String>,
    /// The variable set to the settings file's path.
    pub env: Option<String>,
    /// The file that variable stands in for: its settings are kept in
    /// the one given.
    pub replaces: Option<String>,
    /// The events go in the program's own configuration overrides, in
    /// this form (`hooks config="codex"`), rather than in a file.
    pub config: Option<String>,
    /// The person's own settings file, where `zellij-mcp setup` adds them
    /// for the agents they start by hand (`hooks user="~/.x/settings.json"`);
    /// with `config="opencode"`, the plugin file setup writes.
    pub user: Option<String>,
    /// The variable that, when set, names the folder of that file instead
    /// (`user-env="CODEX_HOME"`), as the program itself reads it.
    pub user_env: Option<String>,
}

impl GivenHooks {
    /// Whether they are given at each launch zellij-mcp makes.
    pub fn per_launch(&self) -> bool {
        !self.args.is_empty() || self.env.is_some() || self.config.is_some()
    }
}

/// One program's description.
#[derive(Debug, Clone)]
pub struct Description {
    /// Its name (`codex`), the one a file replaces it by.
    pub name: String,
    /// The program names it is for, as [`launcher::program_name`]
    /// gives them.
    pub programs: Vec<String>,
    /// Where it comes from: `built-in`, or the file's line.
    pub origin: String,
    pub delivery: Delivery,
    /// Where it writes down its conversation; `None`: replies are read
    /// from its screen.
    pub record: Option<Record>,
    /// The arguments that resume a conversation, `{id}` standing for its
    /// id, put right after the program (`resume "--resume" "{id}"`); none:
    /// it is not resumed.
    pub resume: Vec<String>,
    /// How zellij-mcp gives the program its hooks for one launch; none:
    /// it is given none.
    pub hooks: Option<GivenHooks>,
    rows: usize,
    prompt: Vec<String>,
    start: Option<Pattern>,
    end: Option<Pattern>,
    /// The composer is the last row or none (`at="last-row"`): rows above
    /// it that start with the prompt are what was sent before.
    last_row: bool,
    /// Text in the composer with the cursor at its start is the program's
    /// own suggestion, drawn dim (`suggestions cursor="at-start"`): a
    /// person's text has the cursor after it.
    suggests: bool,
    status_rows: usize,
    empty: Vec<Pattern>,
    working: Signs,
    asking: Signs,
}

/// What an agent's screen shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
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

/// A pattern with its text, so that a person can be told which matched.
#[derive(Debug, Clone)]
pub struct Pattern {
    pub text: String,
    regex: Regex,
}

impl Pattern {
    fn matches(&self, text: &str) -> bool {
        self.regex.is_match(text.as_bytes())
    }
}

/// The patterns of one state: on rows, and on the title.
#[derive(Debug, Clone, Default)]
struct Signs {
    rows: Vec<Pattern>,
    title: Vec<Pattern>,
}

/// Where a state's pattern matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hit {
    /// The row (an index of the screen's rows), and the pattern's text.
    Row(usize, String),
    Title(String),
}

impl Signs {
    fn in_title(&self, title: &str) -> Option<Hit> {
        let found = self.title.iter().find(|p| p.matches(title))?;
        Some(Hit::Title(found.text.clone()))
    }

    /// The lowest row from `from` on that a pattern matches.
    fn in_rows(&self, rows: &[&str], from: usize) -> Option<Hit> {
        (from..rows.len()).rev().find_map(|i| {
            let found = self.rows.iter().find(|p| p.matches(rows[i].trim()))?;
            Some(Hit::Row(i, found.text.clone()))
        })
    }

    fn count(&self) -> usize {
        self.rows.len() + self.title.len()
    }
}

fn first_match<'p>(patterns: &'p [Pattern], text: &str) -> Option<&'p Pattern> {
    patterns.iter().find(|p| p.matches(text))
}

/// The composer found on a screen: its rows, and what each of its text
/// rows holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComposerSeen {
    pub rows: Range<usize>,
    /// The columns (cells, from 0) its edge rows span, within which its
    /// rows are read: what is drawn beside them (a side panel) is not its
    /// text. `None`: a composer with no edge row is read whole.
    pub columns: Option<Range<usize>>,
    /// Each text row: its text (less the prompt sign), and why it is not
    /// a draft, if it is not (an `empty` pattern matched: a placeholder; or
    /// the program's suggestion).
    pub text: Vec<(usize, String, Option<String>)>,
    /// For a program whose suggestion is told by the cursor: the cursor
    /// shows on none of its text rows, so it tells nothing (Qwen Code,
    /// redrawn for a new width, may leave it elsewhere).
    pub cursor_away: bool,
}

/// Why a composer's row is the program's suggestion, not a draft.
const SUGGESTED: &str = "a suggestion: the cursor is at its start";
/// Why a composer's row under a placeholder is not a draft.
const WRAPPED_PLACEHOLDER: &str = "the placeholder above it, wrapped";

impl ComposerSeen {
    /// The rows of text nobody sent, joined by line feeds; empty for none.
    pub fn draft(&self) -> String {
        self.joined(|not_draft| not_draft.is_none())
    }

    /// The rows taken as the program's suggestion, joined by line feeds.
    pub fn suggestion(&self) -> String {
        self.joined(|not_draft| not_draft == Some(SUGGESTED))
    }

    fn joined(&self, taken: impl Fn(Option<&str>) -> bool) -> String {
        let rows = self.text.iter();
        let rows = rows.filter(|(_, text, why)| !text.is_empty() && taken(why.as_deref()));
        let rows: Vec<&str> = rows.map(|(_, text, _)| text.as_str()).collect();
        rows.join("\n")
    }
}

/// Why no composer was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoComposer {
    /// No row matches the composer's `end`.
    NoEnd,
    /// No row above the `end` row matches `start` (within the rows a
    /// composer spans), or the row under it has no prompt sign.
    NoStart,
    /// No row starts with a prompt sign.
    NoPrompt,
    /// The last row does not start with a prompt sign (`at="last-row"`).
    LastRowNoPrompt,
}

/// What a description makes of a screen, and where it saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading {
    /// `None` when the screen is none of the states.
    pub state: Option<AgentScreen>,
    /// The first row looked at (the last `rows` non-blank rows).
    pub region: usize,
    pub composer: Result<ComposerSeen, NoComposer>,
    pub asking: Option<Hit>,
    pub working: Option<Hit>,
}

/// Rows with text above the composer that count as the rest of the screen
/// (a program's own rows there change when it takes a message).
const ROWS_ABOVE: usize = 6;

/// A fingerprint of `rows`, in order.
fn fingerprint<'a>(rows: impl Iterator<Item = &'a str>) -> u64 {
    rows.fold(0xcbf2_9ce4_8422_2325, |hash, row| {
        row.bytes().chain([b'\n']).fold(hash, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        })
    })
}

/// The rows of `rows` with text, trimmed.
fn text_rows<S: AsRef<str>>(rows: &[S]) -> Vec<&str> {
    let rows = rows.iter().map(|r| r.as_ref().trim());
    rows.filter(|r| !r.is_empty()).collect()
}

impl Reading {
    /// The screen's rows less its working sign's (a spinner and a timer
    /// that turn while nothing else does).
    fn without_sign<'a, S: AsRef<str>>(&self, rows: &'a [S]) -> impl Iterator<Item = &'a str> {
        let sign = match &self.working {
            Some(Hit::Row(row, _)) => Some(*row),
            _ => None,
        };
        let rows = rows
            .iter()
            .enumerate()
            .filter(move |(i, _)| Some(*i) != sign);
        rows.map(|(_, r)| r.as_ref())
    }

    /// A fingerprint of the screen less its working sign's row, of its
    /// rows with text.
    pub fn still<S: AsRef<str>>(&self, rows: &[S]) -> u64 {
        let text = self.without_sign(rows).map(str::trim);
        fingerprint(text.filter(|r| !r.is_empty()))
    }

    /// A fingerprint of the screen as drawn, less its working sign's row:
    /// every row where it stands, blank ones too, and the cursor. A CR
    /// taken as a new line adds a row or moves the cursor, where `still`
    /// and `around`, which skip blank rows, may not see it.
    pub fn drawn<S: AsRef<str>>(&self, rows: &[S], cursor: Option<(usize, usize)>) -> u64 {
        let cursor = cursor.map_or(String::new(), |(column, row)| format!("{column},{row}"));
        let rows = self.without_sign(rows).map(str::trim_end);
        fingerprint(rows.chain([cursor.as_str()]))
    }

    /// A fingerprint of the screen less its composer: the rows with text
    /// under the composer and the few right above it (which stay next to
    /// it when a taller composer pushes the screen up). Blank rows do not
    /// count: a CR taken as a new line adds one to the composer, or under
    /// it. Of the whole screen where no composer was found.
    pub fn around<S: AsRef<str>>(&self, rows: &[S]) -> u64 {
        let (top, bottom) = match &self.composer {
            Ok(c) => (c.rows.start, c.rows.end.min(rows.len())),
            Err(_) => (0, 0),
        };
        let above = text_rows(&rows[..top]);
        let above = &above[above.len().saturating_sub(ROWS_ABOVE)..];
        let below = text_rows(&rows[bottom..]);
        fingerprint(above.iter().chain(&below).copied())
    }
}

/// Where a `resume` argument takes the conversation's id.
const ID: &str = "{id}";

impl Description {
    /// `argv` (as it was started) resuming conversation `id`: the
    /// description's `resume` arguments right after the program, every
    /// other word as it was (see [`launcher::Launch::with_args`]); why not,
    /// when it says no resume arguments or the line cannot be read.
    pub fn resume_command(&self, argv: &[String], id: &str) -> Result<Vec<String>, String> {
        if self.resume.is_empty() {
            return Err("its description says no resume arguments".into());
        }
        if id.is_empty() {
            return Err("no conversation of its was found".into());
        }
        let launch = launcher::read(argv)
            .map_err(|e| format!("its command line could not be read for sure ({e})"))?;
        let resume: Vec<String> = self.resume.iter().map(|a| a.replace(ID, id)).collect();
        Ok(launch.with_args(argv, &resume))
    }

    /// Whether `row` is one of the rows its composer starts or ends with.
    pub fn is_composer_edge(&self, row: &str) -> bool {
        let row = row.trim();
        [&self.start, &self.end]
            .into_iter()
            .flatten()
            .any(|p| p.matches(row))
    }

    /// How people are told which description this is: its name, and where
    /// it comes from unless built in (`askbot (agents.kdl:3)`).
    pub fn label(&self) -> String {
        match self.origin.as_str() {
            BUILT_IN_ORIGIN => self.name.clone(),
            origin => format!("{} ({origin})", self.name),
        }
    }

    /// What the screen `rows`, under the pane title `title`, shows; `None`
    /// when it is none of the states (starting, a view of its own).
    pub fn screen<S: AsRef<str>>(&self, rows: &[S], title: &str) -> Option<AgentScreen> {
        self.read(rows, title).state
    }

    /// What the screen shows, and where each sign of it was seen.
    pub fn read<S: AsRef<str>>(&self, rows: &[S], title: &str) -> Reading {
        self.read_at(rows, None, title)
    }

    /// [`Self::read`], with the cursor where the pane shows it (column,
    /// row), which tells a program's suggestion from a person's text.
    pub fn read_at<S: AsRef<str>>(
        &self,
        rows: &[S],
        cursor: Option<(usize, usize)>,
        title: &str,
    ) -> Reading {
        let rows: Vec<&str> = rows.iter().map(AsRef::as_ref).collect();
        let shown: Vec<usize> = (0..rows.len())
            .filter(|&i| !rows[i].trim().is_empty())
            .collect();
        let first = shown
            .len()
            .checked_sub(self.rows)
            .map_or(shown.first().copied(), |skip| shown.get(skip).copied());
        let region = first.unwrap_or(rows.len());
        let composer = self.composer(&rows, region, cursor);
        let asking_from = composer.as_ref().map_or(region, |c| c.rows.start);
        let asking = self
            .asking
            .in_title(title)
            .or_else(|| self.asking.in_rows(&rows, asking_from));
        let working = self
            .working
            .in_title(title)
            .or_else(|| self.working.in_rows(&rows, region));
        let state = match (&asking, &composer, &working) {
            (Some(_), _, _) => Some(AgentScreen::Asking),
            (None, Ok(c), _) if !c.draft().is_empty() => Some(AgentScreen::Draft),
            (None, Ok(_), Some(_)) => Some(AgentScreen::Working),
            (None, Ok(_), None) => Some(AgentScreen::Idle),
            (None, Err(_), Some(_)) => Some(AgentScreen::Busy),
            (None, Err(_), None) => None,
        };
        Reading {
            state,
            region,
            composer,
            asking,
            working,
        }
    }

    /// The composer in the rows from `region` on, if there is one.
    fn composer(
        &self,
        rows: &[&str],
        region: usize,
        cursor: Option<(usize, usize)>,
    ) -> Result<ComposerSeen, NoComposer> {
        let edge = |pattern: &Pattern, i: usize| Edge::of(pattern, rows[i]);
        let lowest_edge = |pattern: &Pattern| {
            (region..rows.len())
                .rev()
                .find_map(|i| Some((i, edge(pattern, i)?)))
        };
        // A composer with an edge row is read within the columns that row
        // spans: what stands beside it (a side panel) is no text of its.
        let within = |i: usize, columns: &Option<Range<usize>>| match columns {
            Some(columns) => within_columns(rows[i], columns),
            None => rows[i],
        };
        let prompted = |i: usize, columns: &Option<Range<usize>>| {
            self.after_prompt(within(i, columns)).is_some()
        };
        let (span, columns) = match (&self.start, &self.end) {
            (Some(start), Some(end)) => {
                let (bottom, low) = lowest_edge(end).ok_or(NoComposer::NoEnd)?;
                let (top, high) = (bottom.saturating_sub(COMPOSER_ROWS)..bottom)
                    .rev()
                    .find_map(|i| Some((i + 1, edge(start, i)?)))
                    .ok_or(NoComposer::NoStart)?;
                let columns = Some(
                    low.columns.start.min(high.columns.start)
                        ..low.columns.end.max(high.columns.end),
                );
                match top < bottom && prompted(top, &columns) {
                    true => (top..bottom, columns),
                    false => return Err(NoComposer::NoStart),
                }
            }
            (None, Some(end)) => {
                let (bottom, low) = lowest_edge(end).ok_or(NoComposer::NoEnd)?;
                let columns = Some(low.columns);
                let top = (bottom.saturating_sub(COMPOSER_ROWS)..bottom)
                    .rev()
                    .take_while(|&i| prompted(i, &columns))
                    .last()
                    .ok_or(NoComposer::NoPrompt)?;
                (top..bottom, columns)
            }
            (_, None) if self.last_row => {
                let last = (region..rows.len())
                    .rev()
                    .find(|&i| !rows[i].trim().is_empty());
                let last = last.filter(|&i| prompted(i, &None));
                let top = last.ok_or(NoComposer::LastRowNoPrompt)?;
                (top..top + 1, None)
            }
            (_, None) => {
                let top = (region..rows.len())
                    .rev()
                    .find(|&i| prompted(i, &None))
                    .ok_or(NoComposer::NoPrompt)?;
                let bottom = (top + 1..rows.len().min(top + COMPOSER_ROWS))
                    .find(|&i| rows[i].trim().is_empty())
                    .unwrap_or(rows.len().min(top + COMPOSER_ROWS));
                (top..bottom, None)
            }
        };
        let text_rows = span.start..span.end.saturating_sub(self.status_rows);
        let texts: Vec<(usize, &str)> = text_rows
            .map(|i| {
                let row = within(i, &columns);
                (i, self.after_prompt(row).unwrap_or(trimmed(row)))
            })
            .collect();
        // The cursor's column counts cells: a wide character takes two.
        let suggested = self.suggests
            && texts
                .iter()
                .find(|(_, t)| !t.is_empty())
                .is_some_and(|(i, text)| {
                    let before = text.as_ptr() as usize - rows[*i].as_ptr() as usize;
                    cursor == Some((rows[*i][..before].width(), *i))
                });
        let cursor_away =
            self.suggests && !cursor.is_some_and(|(_, row)| texts.iter().any(|(i, _)| *i == row));
        // A placeholder shows only in an empty composer: the rows after
        // it are its own, wrapped in a narrow pane.
        let mut placeholder = false;
        let text = texts
            .into_iter()
            .map(|(i, text)| {
                let not_draft = match first_match(&self.empty, text) {
                    Some(p) => {
                        placeholder = true;
                        Some(format!("matched empty {:?}", p.text))
                    }
                    None if placeholder => Some(WRAPPED_PLACEHOLDER.to_owned()),
                    None => suggested.then(|| SUGGESTED.to_owned()),
                };
                (i, text.to_owned(), not_draft)
            })
            .collect();
        Ok(ComposerSeen {
            rows: span,
            columns,
            text,
            cursor_away,
        })
    }

    /// What follows a prompt sign and its blank (a no-break space too), if
    /// the row starts with one.
    fn after_prompt<'r>(&self, row: &'r str) -> Option<&'r str> {
        let row = row.trim_start();
        self.prompt.iter().find_map(|sign| {
            let rest = row.strip_prefix(sign.as_str())?;
            (rest.is_empty() || rest.starts_with(char::is_whitespace)).then(|| trimmed(rest))
        })
    }
}

/// A row's text less the blanks around it, and the zero-width spaces an
/// Ink composer draws after its cursor.
fn trimmed(text: &str) -> &str {
    text.trim_matches(|c: char| c.is_whitespace() || c == '\u{200b}')
}

/// A row that one of a composer's edge patterns (`start`, `end`) matches:
/// the columns it spans.
struct Edge {
    columns: Range<usize>,
}

impl Edge {
    /// `row` as an edge `pattern` matches it: its drawn run, if that alone
    /// matches (what stands further on the row, past two blanks or more, is
    /// beside the composer: opencode's side panel); else the whole row, as
    /// far as it has text.
    fn of(pattern: &Pattern, row: &str) -> Option<Edge> {
        let Some((run, columns)) = drawn_run(row) else {
            // A blank row says nothing of where the composer ends.
            return pattern.matches("").then_some(Edge {
                columns: 0..usize::MAX,
            });
        };
        if pattern.matches(run) {
            return Some(Edge { columns });
        }
        pattern.matches(row.trim()).then(|| Edge {
            columns: columns.start..row.trim_end().width(),
        })
    }
}

/// The first run of text on `row`, up to a gap of two blank cells or
/// more, and the columns (cells) it spans; `None` for a blank row.
fn drawn_run(row: &str) -> Option<(&str, Range<usize>)> {
    let mut column = 0;
    let mut blanks = 0;
    // Its first and last bytes' offsets, and its columns.
    let mut run: Option<(usize, usize, Range<usize>)> = None;
    for (at, c) in row.char_indices() {
        let cells = c.width().unwrap_or(0);
        if c.is_whitespace() {
            blanks += cells.max(1);
            if run.is_some() && blanks >= 2 {
                break;
            }
        } else {
            blanks = 0;
            let (_, to, columns) = run.get_or_insert((at, at, column..column));
            *to = at + c.len_utf8();
            columns.end = column + cells;
        }
        column += cells;
    }
    run.map(|(from, to, columns)| (&row[from..to], columns))
}

/// What `row` draws within `columns`: the characters whose first cell is
/// in them.
fn within_columns<'r>(row: &'r str, columns: &Range<usize>) -> &'r str {
    let mut column = 0;
    let mut from = None;
    let mut to = row.len();
    for (at, c) in row.char_indices() {
        if column >= columns.end {
            to = at;
            break;
        }
        if from.is_none() && column >= columns.start {
            from = Some(at);
        }
        column += c.width().unwrap_or(0);
    }
    &row[from.unwrap_or(to)..to]
}

/// The descriptions in force: the person's first, then the built-in ones
/// they do not replace.
#[derive(Debug, Clone, Default)]
pub struct Programs {
    descriptions: Vec<Description>,
    /// Those whose composer has a start and an end row.
    bounded: Vec<Description>,
}

impl Programs {
    /// The built-in descriptions (tested to parse), parsed and their
    /// patterns compiled once per process: the plugin asks again on each
    /// reload of the person's file, and compiling costs milliseconds of
    /// its interpreter each time.
    pub fn built_in() -> Programs {
        static BUILT_IN_PARSED: std::sync::OnceLock<Vec<Description>> = std::sync::OnceLock::new();
        let parsed =
            BUILT_IN_PARSED.get_or_init(|| parse(BUILT_IN, BUILT_IN_ORIGIN).unwrap_or_default());
        Programs::of(parsed.clone())
    }

    fn of(descriptions: Vec<Description>) -> Programs {
        let bounded = descriptions
            .iter()
            .filter(|d| d.start.is_some() && d.end.is_some())
            .cloned()
            .collect();
        Programs {
            descriptions,
            bounded,
        }
    }

    /// The built-in descriptions with the person's file `text` over them.
    pub fn with_file(text: &str, origin: &str) -> Result<Programs, DescribeError> {
        let mut descriptions = parse(text, origin)?;
        let names: Vec<String> = descriptions.iter().map(|d| d.name.clone()).collect();
        descriptions.extend(
            Programs::built_in()
                .descriptions
                .into_iter()
                .filter(|d| !names.contains(&d.name)),
        );
        Ok(Programs::of(descriptions))
    }

    /// The description for the program named `program`.
    pub fn for_program(&self, program: &str) -> Option<&Description> {
        self.descriptions
            .iter()
            .find(|d| d.programs.iter().any(|p| p == program))
    }

    /// The descriptions the person's file gave (not built in).
    pub fn from_file(&self) -> impl Iterator<Item = &Description> {
        self.descriptions
            .iter()
            .filter(|d| d.origin != BUILT_IN_ORIGIN)
    }

    /// The description named `name`.
    pub fn named(&self, name: &str) -> Option<&Description> {
        self.descriptions.iter().find(|d| d.name == name)
    }

    pub fn all(&self) -> &[Description] {
        &self.descriptions
    }

    /// Whether a program of this name is an agent's: described, or one of
    /// the agent programs known by name.
    pub fn is_agent(&self, program: &str) -> bool {
        names_an_agent(program) || self.for_program(program).is_some()
    }

    /// How to tell the state of a pane that runs `program`, titled
    /// `title`: its program's description; for a pane with an agent name
    /// whose program none describes, every description; for any other
    /// pane, the descriptions whose composer has rows of its own around it
    /// (Claude Code's rules), which no shell, REPL or editor draws.
    pub fn telling<'a>(
        &'a self,
        program: Option<&str>,
        named: bool,
        title: &'a str,
    ) -> Telling<'a> {
        let descriptions = match program.and_then(|p| self.for_program(p)) {
            Some(d) => std::slice::from_ref(d),
            None if named => self.all(),
            None => &self.bounded,
        };
        Telling {
            descriptions,
            title,
            reads_lines: false,
        }
    }

    /// How a pane that runs `program` takes a message.
    pub fn delivery(&self, program: Option<&str>) -> Delivery {
        program
            .and_then(|p| self.for_program(p))
            .map_or_else(Delivery::default, |d| d.delivery)
    }
}

/// A description file that cannot be used: where, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DescribeError {
    /// The line (from 1).
    pub line: usize,
    pub problem: String,
}

impl fmt::Display for DescribeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.problem)
    }
}

impl std::error::Error for DescribeError {}

/// The descriptions in `text` (a file's, or the built-in one), each noted
/// as coming from `origin`.
pub fn parse(text: &str, origin: &str) -> Result<Vec<Description>, DescribeError> {
    let at = |offset: usize, problem: String| DescribeError {
        line: text[..offset.min(text.len())].matches('\n').count() + 1,
        problem,
    };
    if text.len() > MAX_FILE_BYTES {
        return Err(at(0, format!("the file is over {MAX_FILE_BYTES} bytes")));
    }
    let doc: KdlDocument = text.parse().map_err(|e: kdl::KdlError| {
        let why = e.help.or(e.label).unwrap_or("not KDL");
        at(e.span.offset(), format!("{why} (KDL syntax)"))
    })?;
    let mut found: Vec<Description> = Vec::new();
    for node in doc.nodes() {
        let line = |n: &KdlNode| at(n.span().offset(), String::new()).line;
        let here = |n: &KdlNode, problem: String| at(n.span().offset(), problem);
        if node.name().value() != "agent" {
            return Err(here(
                node,
                format!(
                    "'{}': a file holds only `agent \"name\" {{ … }}` nodes",
                    node.name().value()
                ),
            ));
        }
        let origin = match origin {
            BUILT_IN_ORIGIN => BUILT_IN_ORIGIN.to_owned(),
            file => format!("{file}:{}", line(node)),
        };
        let description = agent(node, origin).map_err(|(n, problem)| here(n, problem))?;
        if found.iter().any(|d| d.name == description.name) {
            return Err(here(
                node,
                format!("agent '{}' is described twice", description.name),
            ));
        }
        if found.len() == MAX_AGENTS {
            return Err(here(
                node,
                format!("a file describes at most {MAX_AGENTS} agents"),
            ));
        }
        found.push(description);
    }
    Ok(found)
}

type NodeResult<'n, T> = Result<T, (&'n KdlNode, String)>;

fn agent(node: &KdlNode, origin: String) -> NodeResult<'_, Description> {
    let name = match strings(node)?.as_slice() {
        [name] if valid_name(name) => name.clone(),
        _ => {
            return Err((
                node,
                "an agent has one name of letters, digits and - (agent \"my-bot\" { … })".into(),
            ))
        }
    };
    let Some(children) = node.children() else {
        return Err((node, format!("agent '{name}' describes nothing: add programs, prompt and the states' patterns in {{ … }}")));
    };
    let mut d = Description {
        name,
        programs: Vec::new(),
        origin,
        delivery: Delivery::default(),
        record: None,
        resume: Vec::new(),
        hooks: None,
        rows: DEFAULT_ROWS,
        prompt: Vec::new(),
        start: None,
        end: None,
        last_row: false,
        suggests: false,
        status_rows: 0,
        empty: Vec::new(),
        working: Signs::default(),
        asking: Signs::default(),
    };
    for child in children.nodes() {
        setting(&mut d, child)?;
    }
    if d.programs.is_empty() {
        return Err((
            node,
            format!("agent '{}' names no programs (programs \"my-bot\")", d.name),
        ));
    }
    if d.prompt.is_empty() {
        return Err((
            node,
            format!("agent '{}' has no prompt sign (prompt \">\")", d.name),
        ));
    }
    if let Some(hooks) = &d.hooks {
        crate::hooks::check(hooks).map_err(|e| (node, e))?;
    }
    let patterns = d.empty.len() + d.working.count() + d.asking.count();
    if patterns > MAX_PATTERNS {
        return Err((
            node,
            format!("{patterns} patterns; an agent has at most {MAX_PATTERNS}"),
        ));
    }
    Ok(d)
}

const SETTINGS: &str =
    "programs, rows, prompt, composer, empty, suggestions, working, asking, message, record, resume, hooks, hook-events";

fn setting<'n>(d: &mut Description, node: &'n KdlNode) -> NodeResult<'n, ()> {
    match node.name().value() {
        "programs" => d.programs.extend(non_empty(node)?),
        "rows" => {
            d.rows = match node.entries() {
                [e] if e.name().is_none() => match e.value() {
                    KdlValue::Base10(n) if (1..=MAX_ROWS).contains(n) => *n as usize,
                    _ => {
                        return Err((node, format!("rows is a whole number from 1 to {MAX_ROWS}")))
                    }
                },
                _ => return Err((node, "rows takes one number (rows 16)".into())),
            }
        }
        "prompt" => {
            for sign in non_empty(node)? {
                if sign.trim().is_empty() || sign.chars().count() > MAX_PROMPT_CHARS {
                    return Err((
                        node,
                        format!("a prompt sign is 1 to {MAX_PROMPT_CHARS} characters, not blank"),
                    ));
                }
                d.prompt.push(sign);
            }
        }
        "composer" => {
            let known = ["start", "end", "status-rows", "at"];
            for (key, value) in properties(node, &known)? {
                match (key, value) {
                    ("status-rows", KdlValue::Base10(n)) if (0..=4).contains(n) => {
                        d.status_rows = *n as usize
                    }
                    ("status-rows", _) => return Err((node, "status-rows is 0 to 4".into())),
                    ("at", value) if value.as_string() == Some("last-row") => d.last_row = true,
                    ("at", _) => return Err((node, "at is \"last-row\" (the composer is the last row, or none)".into())),
                    ("start", value) => d.start = Some(pattern(node, value)?),
                    (_, value) => d.end = Some(pattern(node, value)?),
                }
            }
            if d.start.is_some() && d.end.is_none() {
                return Err((node, "a composer with start= needs end= too".into()));
            }
            if d.last_row && d.end.is_some() {
                return Err((node, "a composer at the last row has no start= or end=".into()));
            }
        }
        "record" => {
            d.record = match strings(node)?.as_slice() {
                [name] => Record::named(name),
                _ => None,
            };
            if d.record.is_none() {
                let names: Vec<&str> = Record::ALL.iter().map(|r| r.name()).collect();
                return Err((
                    node,
                    format!(
                        "record names the format its program writes: one of {}",
                        names.join(", ")
                    ),
                ));
            }
        }
        "resume" => {
            let args = non_empty(node)?;
            if args.iter().filter(|a| a.contains(ID)).count() != 1 {
                return Err((
                    node,
                    format!("resume gives the arguments that resume a conversation, one of them with {ID} (resume \"--resume\" \"{ID}\")"),
                ));
            }
            d.resume = args;
        }
        "hook-events" => {
            d.hooks.get_or_insert_with(GivenHooks::default).events = non_empty(node)?;
        }
        "hooks" => {
            let hooks = d.hooks.get_or_insert_with(GivenHooks::default);
            for entry in node.entries() {
                let text = entry.value().as_string().map(str::to_owned);
                match (entry.name().map(|n| n.value()), text) {
                    (None, Some(arg)) => hooks.args.push(arg),
                    (Some("env"), Some(name)) => hooks.env = Some(name),
                    (Some("replaces"), Some(path)) => hooks.replaces = Some(path),
                    (Some("config"), Some(form)) => hooks.config = Some(form),
                    (Some("user"), Some(path)) => hooks.user = Some(path),
                    (Some("user-env"), Some(name)) => hooks.user_env = Some(name),
                    _ => return Err((node, "hooks takes the arguments that give them (\"--settings\" \"{settings}\"), env=\"NAME\", replaces=\"PATH\", config=\"codex\", user=\"PATH\" and user-env=\"NAME\", all strings".into())),
                }
            }
        }
        "suggestions" => match properties(node, &["cursor"])?.as_slice() {
            [("cursor", value)] if value.as_string() == Some("at-start") => d.suggests = true,
            _ => {
                return Err((
                    node,
                    "suggestions takes cursor=\"at-start\" (the program's own text has the cursor at its start)".into(),
                ))
            }
        },
        "empty" => {
            for text in non_empty(node)? {
                d.empty.push(pattern(node, &KdlValue::String(text))?);
            }
        }
        kind @ ("working" | "asking") => {
            let signs = match kind {
                "working" => &mut d.working,
                _ => &mut d.asking,
            };
            for entry in node.entries() {
                let value = entry.value();
                match entry.name().map(|n| n.value()) {
                    None => signs.rows.push(pattern(node, value)?),
                    Some("title") => signs.title.push(pattern(node, value)?),
                    Some(other) => {
                        return Err((
                            node,
                            format!("{kind} takes row patterns and title=\"…\", not {other}="),
                        ))
                    }
                }
            }
            if node.entries().is_empty() {
                return Err((node, format!("{kind} needs a pattern")));
            }
        }
        "message" => {
            for (key, value) in properties(node, &["multiline", "while-working", "cr"])? {
                match (key, value.as_string()) {
                    ("cr", Some("once")) => d.delivery.cr_again = false,
                    ("cr", Some("again")) => d.delivery.cr_again = true,
                    ("cr", _) => {
                        return Err((
                            node,
                            "cr is \"once\" or \"again\" (again only for a program that takes an early CR as a new line)".into(),
                        ))
                    }
                    ("multiline", Some("typed")) => d.delivery.multiline = Multiline::Typed,
                    ("multiline", Some("paste")) => d.delivery.multiline = Multiline::Paste,
                    ("multiline", Some("one-line")) => d.delivery.multiline = Multiline::OneLine,
                    ("while-working", Some("queue")) => {
                        d.delivery.while_working = WhileWorking::Queue
                    }
                    ("while-working", Some("hold")) => {
                        d.delivery.while_working = WhileWorking::Hold
                    }
                    ("multiline", _) => {
                        return Err((
                            node,
                            "multiline is \"typed\", \"paste\" or \"one-line\"".into(),
                        ))
                    }
                    _ => return Err((node, "while-working is \"queue\" or \"hold\"".into())),
                }
            }
        }
        other => {
            return Err((
                node,
                format!("unknown setting '{other}'; an agent takes {SETTINGS}"),
            ))
        }
    }
    Ok(())
}

/// The node's arguments, all strings.
fn strings(node: &KdlNode) -> NodeResult<'_, Vec<String>> {
    node.entries()
        .iter()
        .map(|e: &KdlEntry| match (e.name(), e.value().as_string()) {
            (None, Some(s)) => Ok(s.to_owned()),
            _ => Err((
                node,
                format!("{} takes strings in quotes", node.name().value()),
            )),
        })
        .collect()
}

fn non_empty(node: &KdlNode) -> NodeResult<'_, Vec<String>> {
    let values = strings(node)?;
    match values.is_empty() {
        true => Err((
            node,
            format!("{} needs at least one string", node.name().value()),
        )),
        false => Ok(values),
    }
}

/// The node's properties, each one of `known`; no arguments.
fn properties<'n>(
    node: &'n KdlNode,
    known: &[&str],
) -> NodeResult<'n, Vec<(&'n str, &'n KdlValue)>> {
    node.entries()
        .iter()
        .map(|e| match e.name().map(|n| n.value()) {
            Some(key) if known.contains(&key) => Ok((key, e.value())),
            _ => Err((
                node,
                format!("{} takes {}", node.name().value(), known.join("=, ") + "="),
            )),
        })
        .collect()
}

fn pattern<'n>(node: &'n KdlNode, value: &KdlValue) -> NodeResult<'n, Pattern> {
    let Some(text) = value.as_string() else {
        return Err((node, "a pattern is a string in quotes".into()));
    };
    let regex = compile(text, false).map_err(|e| (node, e))?;
    Ok(Pattern {
        text: text.to_owned(),
        regex,
    })
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}

#[cfg(test)]
mod tests;
