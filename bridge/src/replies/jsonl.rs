//! Records kept as JSON Lines, read from their end: a prompt is looked for
//! in a record's last bytes (more of them while not found), and once found,
//! only the bytes from its line on are read again. Memory and time grow
//! with the turn, not with the record.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{turn_of, Entry, Started, Turn};

/// The last bytes of a record a prompt is first looked for in.
const FIRST_LOOK: u64 = 256 * 1024;
/// The most bytes from a record's end a prompt is looked for in.
const MOST_LOOKED: u64 = 64 * 1024 * 1024;

/// The search for a turn among a program's records.
#[derive(Debug, Default)]
pub struct Search {
    /// The record and the offset of the line where the turn starts.
    found: Option<(PathBuf, u64)>,
    /// The size each record had when last looked through.
    looked: HashMap<PathBuf, u64>,
}

impl Search {
    /// The turn `started` names, in the first of `files` holding it.
    pub fn turn(
        &mut self,
        files: &[PathBuf],
        started: &Started,
        entries: impl Fn(Vec<Value>) -> Vec<Entry>,
    ) -> Option<Turn> {
        if let Started::Last = started {
            return last_turn(files.first()?, entries);
        }
        if self.found.is_none() {
            self.found = self.find(files, started);
        }
        let (path, offset) = self.found.as_ref()?;
        let bytes = read_from(path, *offset).ok()?;
        turn_of(entries(lines(&bytes).collect()), started)
    }

    /// The record and line where the turn starts.
    fn find(&mut self, files: &[PathBuf], started: &Started) -> Option<(PathBuf, u64)> {
        for path in files {
            let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
            if self.looked.get(path) == Some(&size) {
                continue;
            }
            self.looked.insert(path.clone(), size);
            if let Some(offset) = start_of(path, size, started) {
                return Some((path.clone(), offset));
            }
        }
        None
    }
}

/// The last turn of the record at `path`: its last bytes are read, more
/// of them until they hold a prompt.
fn last_turn(path: &Path, entries: impl Fn(Vec<Value>) -> Vec<Entry>) -> Option<Turn> {
    let size = std::fs::metadata(path).ok()?.len();
    let mut window = FIRST_LOOK.min(size);
    loop {
        let from = size - window;
        let bytes = read_range(path, from, window).ok()?;
        // The first line may be cut.
        let whole = match from {
            0 => &bytes[..],
            _ => {
                &bytes[bytes
                    .iter()
                    .position(|b| *b == b'\n')
                    .map_or(bytes.len(), |i| i + 1)..]
            }
        };
        let turn = turn_of(entries(lines(whole).collect()), &Started::Last);
        if turn.is_some() || from == 0 || window >= MOST_LOOKED {
            return turn;
        }
        window = (window * 4).min(size).min(MOST_LOOKED);
    }
}

/// The offset of the line holding the first `header` in the record's last
/// bytes.
fn start_of(path: &Path, size: u64, started: &Started) -> Option<u64> {
    let Started::By(header) = started else {
        return None;
    };
    let mut window = FIRST_LOOK.min(size);
    loop {
        let from = size - window;
        let bytes = read_range(path, from, window).ok()?;
        if let Some(at) = find(&bytes, header.as_bytes()) {
            let line_start = bytes[..at]
                .iter()
                .rposition(|b| *b == b'\n')
                .map_or(0, |i| i + 1);
            return Some(from + line_start as u64);
        }
        if from == 0 || window >= MOST_LOOKED {
            return None;
        }
        window = (window * 4).min(size).min(MOST_LOOKED);
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return None;
    }
    let first = needle[0];
    let mut at = 0;
    while let Some(i) = haystack[at..].iter().position(|b| *b == first) {
        let start = at + i;
        if haystack[start..].starts_with(needle) {
            return Some(start);
        }
        at = start + 1;
    }
    None
}

fn read_range(path: &Path, from: u64, len: u64) -> std::io::Result<Vec<u8>> {
    let mut file = File::open(path)?;
    let size = file.metadata()?.len();
    file.seek(SeekFrom::Start(from))?;
    let mut bytes = Vec::with_capacity(len.min(size.saturating_sub(from)) as usize);
    file.take(len).read_to_end(&mut bytes)?;
    Ok(bytes)
}

fn read_from(path: &Path, from: u64) -> std::io::Result<Vec<u8>> {
    read_range(path, from, u64::MAX)
}

/// The whole lines of `bytes` that are JSON; a line still being written
/// (no newline yet) is left for the next look.
fn lines(bytes: &[u8]) -> impl Iterator<Item = Value> + '_ {
    let whole = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    bytes[..whole]
        .split(|b| *b == b'\n')
        .filter_map(|line| serde_json::from_slice(line).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(lines: Vec<Value>) -> Vec<Entry> {
        let entry = |line: &Value| match (line["k"].as_str(), line["t"].as_str()) {
            (Some("p"), Some(t)) => Some(Entry::Prompt(t.into())),
            (Some("a"), Some(t)) => Some(Entry::Text(t.into())),
            (Some("end"), _) => Some(Entry::End),
            _ => None,
        };
        lines.iter().filter_map(entry).collect()
    }

    fn line(kind: &str, text: &str) -> String {
        serde_json::json!({"k": kind, "t": text}).to_string() + "\n"
    }

    #[test]
    fn a_turn_is_read_from_its_prompt_in_a_big_record_and_a_half_written_line_waits() {
        let dir = std::env::temp_dir().join(format!("zellij-mcp-jsonl-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("r.jsonl");
        let filler = line("a", &"x".repeat(1000)).repeat(2000);
        let mut text = line("p", "[#3 from a] old") + &filler;
        text += &line("p", "[#4 from a] go");
        text += &line("a", "done 日本 🚀");
        text += "{\"k\":\"end\"";
        std::fs::write(&path, &text).unwrap();
        let files = vec![path.clone()];
        let mut search = Search::default();
        let turn = search
            .turn(&files, &Started::By("[#4 from a]".into()), entries)
            .unwrap();
        assert_eq!((turn.reply().as_str(), turn.ended), ("done 日本 🚀", false));
        std::fs::write(&path, text + "}\n").unwrap();
        let turn = search
            .turn(&files, &Started::By("[#4 from a]".into()), entries)
            .unwrap();
        assert!(turn.ended);
        // 2 MB back: found with a wider look.
        let mut far = Search::default();
        let old = far
            .turn(&files, &Started::By("[#3 from a]".into()), entries)
            .unwrap();
        assert_eq!(old.parts.len(), 2000);
        let last = Search::default()
            .turn(&files, &Started::Last, entries)
            .unwrap();
        assert_eq!(last.prompt, "[#4 from a] go");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
