//! How each agent program shows its state and takes a message, as
//! descriptions in KDL: the built-in ones (`agent_programs.kdl`, Claude
//! Code, Codex CLI, Gemini CLI, opencode) and the person's own file, which
//! adds programs or replaces a built-in one by name. The plugin tells a
//! pane's state with the description of the program it runs; the bridge
//! checks the person's file (`doctor`) and sends it to the plugin.
//!
//! A screen is told from its last non-blank rows (`rows`, 16 unless said):
//! - the **composer** is found by its prompt sign (the lowest row that
//!   starts with one), or between a `start` and an `end` row, or as the run
//!   of prompt rows over an `end` row; its text, less the prompt sign and
//!   the `empty` texts (placeholders, hints), is a draft;
//! - **asking**: a row at or under the composer's first row (anywhere,
//!   without a composer) matches an `asking` pattern, or the title does;
//! - **working**: an empty composer, and a row matches a `working`
//!   pattern, or the title does; else **idle**.
//!
//! A screen that is none of these is no state (`unknown`), never one that
//! is safe to type into.

use std::fmt;

use kdl::{KdlDocument, KdlEntry, KdlNode, KdlValue};
use regex_automata::dfa::regex::Regex;

use crate::agent_screen::{names_an_agent, AgentScreen, Telling};
use crate::matching::compile;

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
}

impl Delivery {
    /// An agent that reads lines at a prompt.
    pub const LINES: Delivery = Delivery {
        multiline: Multiline::OneLine,
        while_working: WhileWorking::Queue,
    };
}

/// One program's description.
#[derive(Debug, Clone)]
pub struct Description {
    /// Its name (`codex`), the one a file replaces it by.
    pub name: String,
    /// The program names it is for, as [`crate::agent_screen::program_name`]
    /// gives them.
    pub programs: Vec<String>,
    /// Where it comes from: `built-in`, or the file's line.
    pub origin: String,
    pub delivery: Delivery,
    rows: usize,
    prompt: Vec<String>,
    start: Option<Regex>,
    end: Option<Regex>,
    status_rows: usize,
    empty: Vec<Regex>,
    working: Signs,
    asking: Signs,
}

/// The patterns of one state: on rows, and on the title.
#[derive(Debug, Clone, Default)]
struct Signs {
    rows: Vec<Regex>,
    title: Vec<Regex>,
}

impl Signs {
    fn in_title(&self, title: &str) -> bool {
        any_matches(&self.title, title)
    }

    fn in_rows(&self, rows: &[&str]) -> bool {
        rows.iter().any(|r| any_matches(&self.rows, r.trim()))
    }

    fn count(&self) -> usize {
        self.rows.len() + self.title.len()
    }
}

fn any_matches(patterns: &[Regex], text: &str) -> bool {
    patterns.iter().any(|p| p.is_match(text.as_bytes()))
}

/// The composer found on a screen.
struct Composer {
    /// Its first row.
    top: usize,
    /// Whether it holds text nobody sent.
    draft: bool,
}

impl Description {
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
        let rows: Vec<&str> = rows.iter().map(AsRef::as_ref).collect();
        let shown: Vec<usize> = (0..rows.len())
            .filter(|&i| !rows[i].trim().is_empty())
            .collect();
        let first = shown
            .len()
            .checked_sub(self.rows)
            .map_or(shown.first().copied(), |skip| shown.get(skip).copied());
        let region = first.unwrap_or(rows.len());
        let composer = self.composer(&rows, region);
        let asking_from = composer.as_ref().map_or(region, |c| c.top);
        if self.asking.in_title(title) || self.asking.in_rows(&rows[asking_from..]) {
            return Some(AgentScreen::Asking);
        }
        let composer = composer?;
        if composer.draft {
            return Some(AgentScreen::Draft);
        }
        let working = self.working.in_title(title) || self.working.in_rows(&rows[region..]);
        Some(match working {
            true => AgentScreen::Working,
            false => AgentScreen::Idle,
        })
    }

    /// The composer in the rows from `region` on, if there is one.
    fn composer(&self, rows: &[&str], region: usize) -> Option<Composer> {
        let is = |pattern: &Regex, i: usize| pattern.is_match(rows[i].trim().as_bytes());
        let lowest = |test: &dyn Fn(usize) -> bool| (region..rows.len()).rev().find(|&i| test(i));
        let span = match (&self.start, &self.end) {
            (Some(start), Some(end)) => {
                let bottom = lowest(&|i| is(end, i))?;
                let top = (bottom.saturating_sub(COMPOSER_ROWS)..bottom)
                    .rev()
                    .find(|&i| is(start, i))?
                    + 1;
                (top < bottom && self.after_prompt(rows[top]).is_some()).then_some(top..bottom)?
            }
            (None, Some(end)) => {
                let bottom = lowest(&|i| is(end, i))?;
                let top = (bottom.saturating_sub(COMPOSER_ROWS)..bottom)
                    .rev()
                    .take_while(|&i| self.after_prompt(rows[i]).is_some())
                    .last()?;
                top..bottom
            }
            (_, None) => {
                let top = lowest(&|i| self.after_prompt(rows[i]).is_some())?;
                let bottom = (top + 1..rows.len().min(top + COMPOSER_ROWS))
                    .find(|&i| rows[i].trim().is_empty())
                    .unwrap_or(rows.len().min(top + COMPOSER_ROWS));
                top..bottom
            }
        };
        let text_rows = span.start..span.end.saturating_sub(self.status_rows);
        let draft = rows[text_rows].iter().any(|row| {
            let text = self.after_prompt(row).unwrap_or(row.trim());
            !text.is_empty() && !any_matches(&self.empty, text)
        });
        Some(Composer {
            top: span.start,
            draft,
        })
    }

    /// What follows a prompt sign and its blank (a no-break space too), if
    /// the row starts with one.
    fn after_prompt<'r>(&self, row: &'r str) -> Option<&'r str> {
        let row = row.trim_start();
        self.prompt.iter().find_map(|sign| {
            let rest = row.strip_prefix(sign.as_str())?;
            (rest.is_empty() || rest.starts_with(char::is_whitespace)).then(|| rest.trim())
        })
    }
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
    /// The built-in descriptions (tested to parse).
    pub fn built_in() -> Programs {
        Programs::of(parse(BUILT_IN, BUILT_IN_ORIGIN).unwrap_or_default())
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
        rows: DEFAULT_ROWS,
        prompt: Vec::new(),
        start: None,
        end: None,
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
    let patterns = d.empty.len() + d.working.count() + d.asking.count();
    if patterns > MAX_PATTERNS {
        return Err((
            node,
            format!("{patterns} patterns; an agent has at most {MAX_PATTERNS}"),
        ));
    }
    Ok(d)
}

const SETTINGS: &str = "programs, rows, prompt, composer, empty, working, asking, message";

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
            for (key, value) in properties(node, &["start", "end", "status-rows"])? {
                match (key, value) {
                    ("status-rows", KdlValue::Base10(n)) if (0..=4).contains(n) => {
                        d.status_rows = *n as usize
                    }
                    ("status-rows", _) => return Err((node, "status-rows is 0 to 4".into())),
                    ("start", value) => d.start = Some(pattern(node, value)?),
                    (_, value) => d.end = Some(pattern(node, value)?),
                }
            }
            if d.start.is_some() && d.end.is_none() {
                return Err((node, "a composer with start= needs end= too".into()));
            }
        }
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
            for (key, value) in properties(node, &["multiline", "while-working"])? {
                match (key, value.as_string()) {
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

fn pattern<'n>(node: &'n KdlNode, value: &KdlValue) -> NodeResult<'n, Regex> {
    let Some(text) = value.as_string() else {
        return Err((node, "a pattern is a string in quotes".into()));
    };
    compile(text, false).map_err(|e| (node, e))
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}

#[cfg(test)]
mod tests;
