//! An agent's replies, read from its program's own record of the
//! conversation rather than from its screen (docs/messages.md, "Replies").
//!
//! - [`place`]: where a running program keeps its record, from its own
//!   environment and folder.
//! - [`jsonl`]: records kept as JSON Lines (Claude Code, Codex, Gemini CLI,
//!   Qwen Code), read from the turn's first line to the end.
//! - [`formats`]: what each program's lines mean.
//! - [`opencode`]: opencode's record, a SQLite database.
//! - [`screen`]: a reply read from the pane, for a program with no record.

pub mod conversation;
pub mod formats;
pub mod jsonl;
pub mod opencode;
pub mod place;
pub mod screen;

use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime};

use zellij_mcp_protocol::agent_programs::Record;
use zellij_mcp_protocol::hooks::MAX_TOLD_BYTES;
use zellij_mcp_protocol::ops::TurnEnded;

use place::Place;

/// What one entry of a record says, in the order it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A prompt that starts a turn: what was typed.
    Prompt(String),
    /// Text the model wrote.
    Text(String),
    /// A tool the model called, by name.
    Tool(String),
    /// The turn is over.
    End,
}

/// One turn: the prompt that started it and what the model wrote, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Turn {
    pub prompt: String,
    pub parts: Vec<Part>,
    /// The record says the turn is over.
    pub ended: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    Text(String),
    Tool(String),
}

impl Turn {
    /// The model's text as written, its pieces and the tools it called
    /// (`[tool: name]`) in order, a blank line apart.
    pub fn reply(&self) -> String {
        let parts: Vec<String> = self
            .parts
            .iter()
            .map(|part| match part {
                Part::Text(text) => text.clone(),
                Part::Tool(name) => format!("[tool: {name}]"),
            })
            .collect();
        parts.join("\n\n")
    }

    /// A reply of one text (read from a screen).
    pub fn of_text(text: String) -> Turn {
        Turn {
            parts: vec![Part::Text(text)],
            ..Turn::default()
        }
    }

    /// Whether the turn's last part is the text `last` (as a program's
    /// hook gives its last message: blanks around it aside).
    pub fn ends_with_text(&self, last: &str) -> bool {
        let last = last.trim();
        matches!(self.parts.last(), Some(Part::Text(text)) if !last.is_empty() && text.trim() == last)
    }

    /// Whether the model has written anything yet.
    pub fn has_reply(&self) -> bool {
        !self.parts.is_empty()
    }
}

/// The reply of a turn whose end hooks told with its tool calls counted
/// and none made: its last message alone, which its record (`so_far`,
/// written after the hooks ran) may not hold yet. `None` where the turn
/// called a tool (its reply has more parts) or its record shows other
/// parts, or its last message may have been cut to the most a hook's
/// report keeps.
pub fn alone(end: &TurnEnded, so_far: Option<&Turn>) -> Option<String> {
    // Cut at a character's end: up to 3 bytes short of the most kept.
    let whole = |m: &String| m.len() + 3 < MAX_TOLD_BYTES && !m.trim().is_empty();
    let last = end.last_message.clone().filter(whole)?;
    let parts = so_far.map_or(&[][..], |turn| &turn.parts[..]);
    let its_own = match parts {
        [] => true,
        [Part::Text(text)] => text.trim() == last.trim(),
        _ => false,
    };
    (end.tool_calls == Some(0) && its_own).then_some(last)
}

/// What a prompt is looked for by.
#[derive(Debug, Clone)]
pub enum Started {
    /// The prompt holding this text (a message's `[#seq from …]` header).
    By(String),
    /// The last turn (ended, or going on where the record cannot tell).
    Last,
}

/// The turn `started` names, from a record's entries in order. A turn ends
/// where the record says so, or where the next prompt starts another.
pub fn turn_of(entries: impl IntoIterator<Item = Entry>, started: &Started) -> Option<Turn> {
    let mut current: Option<Turn> = None;
    let mut last_ended: Option<Turn> = None;
    for entry in entries {
        match entry {
            Entry::Prompt(prompt) => {
                if let Some(mut turn) = current.take() {
                    turn.ended = true;
                    if let Started::By(_) = started {
                        return Some(turn);
                    }
                    last_ended = Some(turn);
                }
                let wanted = match started {
                    Started::By(header) => prompt.contains(header.as_str()),
                    Started::Last => true,
                };
                if wanted {
                    current = Some(Turn {
                        prompt,
                        ..Turn::default()
                    });
                }
            }
            Entry::Text(text) => {
                if let Some(turn) = current.as_mut() {
                    turn.parts.push(Part::Text(text));
                }
            }
            Entry::Tool(name) => {
                if let Some(turn) = current.as_mut() {
                    turn.parts.push(Part::Tool(name));
                }
            }
            Entry::End => {
                if let Some(mut turn) = current.take() {
                    turn.ended = true;
                    if let Started::By(_) = started {
                        return Some(turn);
                    }
                    last_ended = Some(turn);
                }
            }
        }
    }
    match started {
        Started::By(_) => current,
        Started::Last => current.or(last_ended),
    }
}

/// A program's record, followed while a turn goes on.
pub struct Following {
    record: Record,
    started: Started,
    place: Place,
    /// Records untouched since before this are not looked in.
    since: SystemTime,
    jsonl: jsonl::Search,
    opencode: opencode::Follow,
    /// The record the pane's processes lead to, once found, and when they
    /// were last looked at (a look reads the process table).
    own: Option<PathBuf>,
    own_looked: Option<Instant>,
}

/// How often the processes are looked at again while they lead to no record.
const OWN_LOOK_EVERY: Duration = Duration::from_secs(1);

impl Following {
    pub fn new(record: Record, place: Place, since: SystemTime, started: Started) -> Following {
        Following {
            record,
            started,
            place,
            since,
            jsonl: jsonl::Search::default(),
            opencode: opencode::Follow::default(),
            own: None,
            own_looked: None,
        }
    }

    /// Follows the record (opencode: the session) its program's hooks
    /// named, where they did.
    pub fn as_told(mut self, record: Option<&str>, conversation: Option<&str>) -> Following {
        if self.record == Record::Opencode {
            if let Some(session) = conversation {
                self.opencode = opencode::Follow::in_session(session.to_owned());
            }
            return self;
        }
        let named = record.map(PathBuf::from).filter(|path| path.is_file());
        if named.is_some() {
            self.own = named;
        }
        self
    }

    /// The pane's own record (see [`formats::own_record`]).
    fn own_record(&mut self, record: Record) -> Option<PathBuf> {
        let due = self
            .own_looked
            .is_none_or(|at| at.elapsed() >= OWN_LOOK_EVERY);
        if self.own.is_none() && due {
            self.own_looked = Some(Instant::now());
            self.own = formats::own_record(record, &self.place);
        }
        self.own.clone()
    }

    /// The turn as the record holds it now; `Ok(None)` while no record
    /// holds it yet.
    pub fn turn(&mut self) -> Result<Option<Turn>, String> {
        match self.record {
            Record::Opencode => self.opencode.turn(&self.place, &self.started),
            record => {
                // Its own record first, where its processes lead to it.
                let own = self.own_record(record);
                let mut files = formats::files(record, &self.place, self.since);
                if let Some(own) = own {
                    files.retain(|f| *f != own);
                    files.insert(0, own);
                }
                let entries = |lines| formats::entries(record, lines);
                Ok(self.jsonl.turn(&files, &self.started, entries))
            }
        }
    }
}

#[cfg(test)]
mod fixtures;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_told_without_tool_calls_is_its_last_message_alone() {
        let end = |tool_calls, last: &str| TurnEnded {
            at_ms: 1,
            prompt: Some("[#1 from a] hi".into()),
            last_message: Some(last.into()),
            tool_calls,
        };
        let turn = |parts: Vec<Part>| Turn {
            parts,
            ..Turn::default()
        };
        let said = Some("said.".to_owned());
        assert_eq!(alone(&end(Some(0), "said."), None), said, "no record yet");
        let written = turn(vec![Part::Text("said.\n".into())]);
        assert_eq!(alone(&end(Some(0), "said."), Some(&written)), said);
        assert_eq!(alone(&end(Some(1), "said."), None), None, "a tool called");
        assert_eq!(alone(&end(None, "said."), None), None, "calls not counted");
        assert_eq!(alone(&end(Some(0), " "), None), None, "nothing said");
        let long = "x".repeat(MAX_TOLD_BYTES - 3);
        assert_eq!(alone(&end(Some(0), &long), None), None, "maybe cut");
        let kept = "x".repeat(MAX_TOLD_BYTES - 4);
        assert_eq!(alone(&end(Some(0), &kept), None), Some(kept));
        let more = turn(vec![Part::Text("first".into())]);
        assert_eq!(alone(&end(Some(0), "said."), Some(&more)), None);
        let tool = turn(vec![Part::Tool("Bash".into())]);
        assert_eq!(alone(&end(Some(0), "said."), Some(&tool)), None);
    }

    fn entries() -> Vec<Entry> {
        vec![
            Entry::Prompt("[#1 from a] first".into()),
            Entry::Text("one".into()),
            Entry::End,
            Entry::Prompt("typed by a person".into()),
            Entry::Text("two".into()),
            Entry::Tool("Bash".into()),
            Entry::Text("three".into()),
            Entry::End,
            Entry::Prompt("[#2 from a] second".into()),
            Entry::Text("four".into()),
        ]
    }

    #[test]
    fn the_turn_a_message_started_is_its_own_and_no_other() {
        let first = turn_of(entries(), &Started::By("[#1 from a]".into())).unwrap();
        assert_eq!((first.reply().as_str(), first.ended), ("one", true));
        let second = turn_of(entries(), &Started::By("[#2 from a]".into())).unwrap();
        assert_eq!((second.reply().as_str(), second.ended), ("four", false));
        assert_eq!(turn_of(entries(), &Started::By("[#3 from a]".into())), None);
    }

    #[test]
    fn the_last_turn_is_one_a_person_began_with_its_tools_named_in_order() {
        let mut entries = entries();
        entries.truncate(8);
        let last = turn_of(entries, &Started::Last).unwrap();
        assert_eq!(last.prompt, "typed by a person");
        assert_eq!(last.reply(), "two\n\n[tool: Bash]\n\nthree");
    }

    #[test]
    fn a_next_prompt_ends_a_turn_whose_record_writes_no_end() {
        let entries = [
            Entry::Prompt("[#1 from a] first".into()),
            Entry::Text("one".into()),
            Entry::Prompt("next".into()),
        ];
        let turn = turn_of(entries, &Started::By("[#1 from a]".into())).unwrap();
        assert!(turn.ended);
    }
}
