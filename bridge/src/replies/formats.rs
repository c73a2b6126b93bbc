//! Where each program keeps its JSON Lines record, and what its lines mean
//! (measured on the versions docs/messages.md names).

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::Value;
use zellij_mcp_protocol::agent_programs::Record;

use super::place::{entries as dir_entries, readable_since, Place};
use super::Entry;

/// The records a program at `place` may be writing the turn to: those
/// changed since `since`, newest first.
pub fn files(record: Record, place: &Place, since: SystemTime) -> Vec<PathBuf> {
    let jsonl = |name: &str| name.ends_with(".jsonl");
    let mut found: Vec<PathBuf> = match record {
        Record::ClaudeCode => {
            let root = place
                .dir("CLAUDE_CONFIG_DIR")
                .or_else(|| place.home(".claude"));
            let projects = root.map(|r| r.join("projects"));
            let own = place.cwd.as_deref().map(claude_folder);
            let folders = projects.map_or_else(Vec::new, |p| {
                dir_entries(&p, |name| own.as_deref().is_none_or(|own| name == own))
            });
            folders.iter().flat_map(|f| dir_entries(f, jsonl)).collect()
        }
        Record::Codex => {
            let root = place.dir("CODEX_HOME").or_else(|| place.home(".codex"));
            let days = root.map_or_else(Vec::new, |r| newest_days(&r.join("sessions")));
            days.iter().flat_map(|d| dir_entries(d, jsonl)).collect()
        }
        Record::GeminiCli => {
            let root = place
                .dir("GEMINI_CLI_HOME")
                .map(|h| h.join(".gemini"))
                .or_else(|| place.home(".gemini"));
            chats(root.map(|r| r.join("tmp")))
        }
        Record::QwenCode => chats(place.home(".qwen").map(|r| r.join("projects"))),
        Record::Opencode => Vec::new(),
    };
    found.retain(|path| readable_since(path, since));
    found.sort_by_key(|path| {
        std::cmp::Reverse(std::fs::metadata(path).and_then(|m| m.modified()).ok())
    });
    found
}

/// The record the pane's own program writes, where its processes lead to
/// it: Codex holds its record open; Claude Code and Qwen Code each keep a
/// file per running process (`sessions/<pid>.json`) naming its session.
/// `None` where nothing leads to it (Gemini CLI): the newest record of
/// the folder is the one.
pub fn own_record(record: Record, place: &Place) -> Option<PathBuf> {
    let processes = place.processes();
    let session_of = |sessions: &Path| {
        processes.iter().find_map(|pid| {
            let text = std::fs::read_to_string(sessions.join(format!("{pid}.json"))).ok()?;
            let meta: Value = serde_json::from_str(&text).ok()?;
            meta["sessionId"].as_str().map(|id| format!("{id}.jsonl"))
        })
    };
    let found = match record {
        Record::Codex => processes.iter().find_map(|pid| {
            let open = crate::processes::table().open_files(*pid)?;
            open.into_iter().find(|path| {
                let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
                name.starts_with("rollout-") && name.ends_with(".jsonl")
            })
        }),
        Record::ClaudeCode => {
            let root = place
                .dir("CLAUDE_CONFIG_DIR")
                .or_else(|| place.home(".claude"))?;
            let name = session_of(&root.join("sessions"))?;
            let projects = dir_entries(&root.join("projects"), |_| true);
            projects.iter().map(|p| p.join(&name)).find(|p| p.exists())
        }
        Record::QwenCode => {
            let root = place.home(".qwen")?;
            let name = session_of(&root.join("sessions"))?;
            let projects = dir_entries(&root.join("projects"), |_| true);
            projects
                .iter()
                .map(|p| p.join("chats").join(&name))
                .find(|p| p.exists())
        }
        Record::GeminiCli | Record::Opencode => None,
    };
    found.filter(|path| readable_since(path, std::time::UNIX_EPOCH))
}

/// Claude Code's folder for a working folder: each character other than a
/// letter or digit becomes `-`.
fn claude_folder(cwd: &Path) -> String {
    let text = cwd.display().to_string();
    text.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// `<root>/*/chats/*.jsonl`.
fn chats(root: Option<PathBuf>) -> Vec<PathBuf> {
    let projects = root.map_or_else(Vec::new, |r| dir_entries(&r, |_| true));
    projects
        .iter()
        .flat_map(|p| dir_entries(&p.join("chats"), |n| n.ends_with(".jsonl")))
        .collect()
}

/// Codex's `sessions/YYYY/MM/DD` folders of the last two days it wrote in
/// (a turn may cross midnight).
fn newest_days(sessions: &Path) -> Vec<PathBuf> {
    let digits = |name: &str| name.bytes().all(|b| b.is_ascii_digit());
    let mut days = Vec::new();
    for year in dir_entries(sessions, digits).iter().rev() {
        for month in dir_entries(year, digits).iter().rev() {
            for day in dir_entries(month, digits).iter().rev() {
                days.push(day.clone());
                if days.len() == 2 {
                    return days;
                }
            }
        }
    }
    days
}

/// What the lines of `record` say, in order.
pub fn entries(record: Record, lines: Vec<Value>) -> Vec<Entry> {
    let of_line = match record {
        Record::ClaudeCode => claude_code,
        Record::Codex => codex,
        Record::GeminiCli => gemini_cli,
        Record::QwenCode => qwen_code,
        Record::Opencode => return Vec::new(),
    };
    let lines = match record {
        Record::GeminiCli => latest_by_id(lines),
        _ => lines,
    };
    lines.iter().flat_map(of_line).collect()
}

/// Gemini CLI writes a message again, whole, when it changes (its tool
/// calls added): the later line stands in the earlier one's place.
fn latest_by_id(lines: Vec<Value>) -> Vec<Value> {
    let mut kept: Vec<Value> = Vec::with_capacity(lines.len());
    let mut at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for line in lines {
        match line["id"].as_str().map(str::to_owned) {
            Some(id) if at.contains_key(&id) => kept[at[&id]] = line,
            Some(id) => {
                at.insert(id, kept.len());
                kept.push(line);
            }
            None => kept.push(line),
        }
    }
    kept
}

fn text_of(value: &Value) -> Option<String> {
    value.as_str().map(str::to_owned)
}

/// Claude Code: a `user` line with the typed text; an `assistant` line per
/// content block; a `system` line `turn_duration` at the turn's end.
fn claude_code(line: &Value) -> Vec<Entry> {
    let content = &line["message"]["content"];
    match line["type"].as_str() {
        Some("user") if line["isMeta"] != true => match content {
            Value::String(text) => vec![Entry::Prompt(text.clone())],
            Value::Array(blocks) if blocks.iter().all(|b| b["type"] == "text") => {
                let texts: Vec<&str> = blocks.iter().filter_map(|b| b["text"].as_str()).collect();
                vec![Entry::Prompt(texts.join("\n"))]
            }
            _ => Vec::new(),
        },
        Some("assistant") => blocks(content, "text", "tool_use"),
        Some("system") if line["subtype"] == "turn_duration" => vec![Entry::End],
        _ => Vec::new(),
    }
}

/// The text and tool-call blocks of a message's content, in order.
fn blocks(content: &Value, text: &str, tool: &str) -> Vec<Entry> {
    let Some(blocks) = content.as_array() else {
        return Vec::new();
    };
    blocks
        .iter()
        .filter_map(|b| match b["type"].as_str() {
            Some(kind) if kind == text => text_of(&b["text"]).map(Entry::Text),
            Some(kind) if kind == tool => text_of(&b["name"]).map(Entry::Tool),
            _ => None,
        })
        .collect()
}

/// Codex: the typed text as an `event_msg` `item_completed` `UserMessage`
/// (its own context goes as `response_item` user messages too); the
/// model's as `response_item` messages and calls; `task_complete` at the
/// turn's end.
fn codex(line: &Value) -> Vec<Entry> {
    let payload = &line["payload"];
    match (line["type"].as_str(), payload["type"].as_str()) {
        (Some("event_msg"), Some("item_completed")) if payload["item"]["type"] == "UserMessage" => {
            let content = payload["item"]["content"].as_array().into_iter().flatten();
            let texts: Vec<&str> = content.filter_map(|c| c["text"].as_str()).collect();
            vec![Entry::Prompt(texts.join("\n"))]
        }
        (Some("event_msg"), Some("task_complete")) => vec![Entry::End],
        (Some("response_item"), Some("message")) if payload["role"] == "assistant" => {
            blocks(&payload["content"], "output_text", "")
        }
        (Some("response_item"), Some("function_call" | "custom_tool_call")) => {
            text_of(&payload["name"])
                .map(Entry::Tool)
                .into_iter()
                .collect()
        }
        (Some("response_item"), Some("local_shell_call")) => vec![Entry::Tool("shell".into())],
        _ => Vec::new(),
    }
}

/// Gemini CLI: a `user` line (a tool's result is one too, without text),
/// then a `gemini` line per message when it is done, with its tool calls.
/// No line ends a turn.
fn gemini_cli(line: &Value) -> Vec<Entry> {
    match line["type"].as_str() {
        Some("user") => prompt(parts_text(&line["content"])),
        Some("gemini") => {
            let mut found: Vec<Entry> = parts_text(&line["content"])
                .filter(|t| !t.is_empty())
                .map(Entry::Text)
                .into_iter()
                .collect();
            let calls = line["toolCalls"].as_array().into_iter().flatten();
            found.extend(calls.filter_map(|c| text_of(&c["name"]).map(Entry::Tool)));
            found
        }
        _ => Vec::new(),
    }
}

/// A string, or the text of a list of parts.
fn parts_text(content: &Value) -> Option<String> {
    match content {
        Value::String(text) => Some(text.clone()),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter(|p| p["thought"] != true)
                .filter_map(|p| p["text"].as_str())
                .collect();
            Some(texts.concat())
        }
        _ => None,
    }
}

/// A prompt, where the user line has text.
fn prompt(text: Option<String>) -> Vec<Entry> {
    text.filter(|t| !t.is_empty())
        .map(Entry::Prompt)
        .into_iter()
        .collect()
}

/// Qwen Code: `user` and `assistant` lines of Gemini-style parts (a
/// tool's result is a line of its own). An assistant line is a whole
/// answer of the model: one that calls no tool ends the turn.
fn qwen_code(line: &Value) -> Vec<Entry> {
    let parts = &line["message"]["parts"];
    match line["type"].as_str() {
        Some("user") => prompt(parts_text(parts)),
        Some("assistant") => {
            let mut found: Vec<Entry> = parts_text(parts)
                .filter(|t| !t.is_empty())
                .map(Entry::Text)
                .into_iter()
                .collect();
            let calls = parts.as_array().into_iter().flatten();
            let tools: Vec<Entry> = calls
                .filter_map(|p| text_of(&p["functionCall"]["name"]).map(Entry::Tool))
                .collect();
            if tools.is_empty() {
                found.push(Entry::End);
            }
            found.extend(tools);
            found
        }
        _ => Vec::new(),
    }
}

/// Whether the record writes a turn's end; else the end is the pane's
/// (idle, and the record quiet for a moment).
pub fn marks_end(record: Record) -> bool {
    matches!(
        record,
        Record::ClaudeCode | Record::Codex | Record::Opencode | Record::QwenCode
    )
}
