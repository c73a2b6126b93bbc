//! Which conversation a running agent program holds, by its id: what
//! resumes it after its session ends (`zellij-mcp conversation`, run by the
//! plugin for each agent pane). Found as replies are: the record its
//! processes lead to; Gemini CLI's and opencode's newest of the folder.
//! With it, the marks of the program's processes (see
//! [`crate::processes::leftovers`]).

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;
use zellij_mcp_protocol::agent_programs::Record;
use zellij_mcp_protocol::ops::Conversation;

use super::place::{entries as dir_entries, readable_since, Place};
use super::{formats, opencode};
use crate::processes::{self, leftovers};

/// The conversation of the program running as `pid` (a pane's process) in
/// `cwd`; `None` while its record holds none yet.
pub fn of(record: Record, pid: u32, cwd: Option<&str>) -> Option<Conversation> {
    // The folder as the program knows it: Zellij may be told one under
    // `/proc/self/root` (see `tools::paths`).
    let cwd = cwd.map(|c| {
        std::fs::canonicalize(c).map_or_else(|_| c.to_owned(), |p| p.display().to_string())
    });
    let place = Place::of(Some(pid), cwd.as_deref());
    let (id, path) = match record {
        Record::Opencode => opencode::newest_session(&place)?,
        Record::GeminiCli => {
            let path = gemini_newest(&place)?;
            (first_line_id(&path, "sessionId")?, path)
        }
        Record::Codex => {
            let path = formats::own_record(record, &place)?;
            (codex_id(&path)?, path)
        }
        Record::ClaudeCode | Record::QwenCode => {
            let path = formats::own_record(record, &place)?;
            (path.file_stem()?.to_str()?.to_owned(), path)
        }
    };
    Some(Conversation {
        id,
        changed_ms: changed_ms(&path),
        processes: leftovers::marks(processes::table(), pid),
    })
}

/// `rollout-<time>-<uuid>.jsonl`: the uuid, its last 36 characters.
fn codex_id(path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_str()?;
    let at = stem.len().checked_sub(36)?;
    stem.get(at..).map(str::to_owned)
}

/// Gemini CLI's newest chat of the folder: `projects.json` names the
/// folder's place under `tmp`.
fn gemini_newest(place: &Place) -> Option<PathBuf> {
    let root = place
        .dir("GEMINI_CLI_HOME")
        .map(|h| h.join(".gemini"))
        .or_else(|| place.home(".gemini"))?;
    let projects: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("projects.json")).ok()?).ok()?;
    let cwd = place.cwd.as_ref()?.display().to_string();
    let name = projects["projects"][cwd.as_str()].as_str()?;
    let chats = root.join("tmp").join(name).join("chats");
    let mut found = dir_entries(&chats, |n| n.ends_with(".jsonl"));
    found.retain(|p| readable_since(p, UNIX_EPOCH));
    found.into_iter().max_by_key(|p| modified(p))
}

/// A field of a record's first line.
fn first_line_id(path: &Path, field: &str) -> Option<String> {
    use std::io::BufRead;
    let file = std::fs::File::open(path).ok()?;
    let mut line = String::new();
    std::io::BufReader::new(file).read_line(&mut line).ok()?;
    let first: Value = serde_json::from_str(&line).ok()?;
    first[field].as_str().map(str::to_owned)
}

fn modified(path: &Path) -> SystemTime {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .unwrap_or(UNIX_EPOCH)
}

/// When `path` last changed, in Unix ms (opencode's database: its log,
/// where a write lands first, when newer).
fn changed_ms(path: &Path) -> u64 {
    let wal = path.with_extension("db-wal");
    let newest = modified(path).max(modified(&wal));
    let since = newest.duration_since(UNIX_EPOCH).unwrap_or_default();
    since.as_millis() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_codex_rollouts_id_is_the_uuid_its_name_ends_with() {
        let path =
            Path::new("/x/rollout-2026-11-27T17-11-53-01a21dfd-f7a8-7a40-9512-49cc023eb245.jsonl");
        assert_eq!(
            codex_id(path).as_deref(),
            Some("01a21dfd-f7a8-7a40-9512-49cc023eb245")
        );
    }
}
