//! opencode's record: a SQLite database it holds open (WAL), with a row per
//! session (its folder), message (its role) and part (text, a tool call,
//! or a step's end). Opened read-only, once for all the looks of an ask.

use std::path::PathBuf;

use rusqlite::{Connection, OpenFlags};
use serde_json::Value;

use super::place::{readable_since, Place};
use super::{turn_of, Entry, Started, Turn};

/// The most messages of a session read for one turn.
const MOST_MESSAGES: usize = 2000;

fn database(place: &Place) -> Option<PathBuf> {
    let data = place
        .dir("XDG_DATA_HOME")
        .or_else(|| place.home(".local/share"))?;
    let path = data.join("opencode/opencode.db");
    readable_since(&path, std::time::UNIX_EPOCH).then_some(path)
}

/// The session of the place's folder changed last, and the database.
pub fn newest_session(place: &Place) -> Option<(String, PathBuf)> {
    let path = database(place)?;
    let db = open(&path).ok()?;
    let cwd = place.cwd.as_ref().map(|c| c.display().to_string());
    let (session, _) = start(&db, cwd.as_deref(), None, &Started::Last).ok()??;
    Some((session, path))
}

fn open(path: &std::path::Path) -> Result<Connection, String> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let db = Connection::open_with_flags(path, flags).map_err(|e| e.to_string())?;
    db.busy_timeout(std::time::Duration::from_secs(1))
        .map_err(|e| e.to_string())?;
    Ok(db)
}

/// A turn followed in the database: opened once, and the turn's session
/// and first message found once, for all the looks of one ask.
#[derive(Default)]
pub struct Follow {
    db: Option<Connection>,
    /// The session the program's hooks named, where they did.
    session: Option<String>,
    start: Option<(String, String)>,
}

impl Follow {
    /// A turn looked for only in `session` (the one the program's hooks
    /// named: another agent may work in the same folder).
    pub fn in_session(session: String) -> Follow {
        Follow {
            session: Some(session),
            ..Follow::default()
        }
    }

    /// The turn `started` names, in the session of the place's folder that
    /// holds it.
    pub fn turn(&mut self, place: &Place, started: &Started) -> Result<Option<Turn>, String> {
        let db = match &mut self.db {
            Some(db) => db,
            empty => match database(place) {
                Some(path) => empty.insert(open(&path)?),
                None => return Ok(None),
            },
        };
        if self.start.is_none() {
            let cwd = place.cwd.as_ref().map(|c| c.display().to_string());
            let session = self.session.as_deref();
            self.start = start(db, cwd.as_deref(), session, started).map_err(|e| e.to_string())?;
        }
        let Some((session, from)) = &self.start else {
            return Ok(None);
        };
        let entries = entries(db, session, from).map_err(|e| e.to_string())?;
        Ok(turn_of(entries, started))
    }
}

/// The session (`session`, where known) and the first message the turn
/// may start at.
fn start(
    db: &Connection,
    cwd: Option<&str>,
    session: Option<&str>,
    started: &Started,
) -> rusqlite::Result<Option<(String, String)>> {
    let row = |r: &rusqlite::Row| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?));
    let found = match started {
        Started::By(header) => db.query_row(
            "SELECT m.session_id, m.id FROM part p JOIN message m ON m.id = p.message_id \
             JOIN session s ON s.id = m.session_id \
             WHERE instr(p.data, ?1) > 0 AND (?2 IS NULL OR s.directory = ?2) \
             AND (?3 IS NULL OR s.id = ?3) \
             ORDER BY m.time_created DESC LIMIT 1",
            rusqlite::params![header, cwd, session],
            row,
        ),
        // The session of the folder changed last, from its first message.
        Started::Last => db.query_row(
            "SELECT s.id, '' FROM session s WHERE (?1 IS NULL OR s.directory = ?1) \
             AND (?2 IS NULL OR s.id = ?2) ORDER BY s.time_updated DESC LIMIT 1",
            rusqlite::params![cwd, session],
            row,
        ),
    };
    match found {
        Ok(found) => Ok(Some(found)),
        Err(rusqlite::Error::QueryReturnedNoRows) => Ok(None),
        Err(e) => Err(e),
    }
}

/// What the session's messages from `from` on say, in order.
fn entries(db: &Connection, session: &str, from: &str) -> rusqlite::Result<Vec<Entry>> {
    let mut query = db.prepare(
        "SELECT m.data, p.data FROM message m JOIN part p ON p.message_id = m.id \
         WHERE m.session_id = ?1 \
         AND m.time_created >= coalesce((SELECT time_created FROM message WHERE id = ?2), 0) \
         ORDER BY m.time_created, m.id, p.time_created, p.id LIMIT ?3",
    )?;
    let rows = query.query_map(
        rusqlite::params![session, from, (MOST_MESSAGES * 8) as i64],
        |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)),
    )?;
    let mut found = Vec::new();
    let mut prompt: Option<String> = None;
    for row in rows {
        let (message, part) = row?;
        let (message, part): (Value, Value) =
            match (serde_json::from_str(&message), serde_json::from_str(&part)) {
                (Ok(m), Ok(p)) => (m, p),
                _ => continue,
            };
        let user = message["role"] == "user";
        match part["type"].as_str() {
            Some("text") if user && part["synthetic"] != true => {
                let text = part["text"].as_str().unwrap_or_default();
                prompt = Some(match prompt.take() {
                    Some(before) => before + "\n" + text,
                    None => text.to_owned(),
                });
            }
            Some("text") if !user => {
                flush(&mut found, &mut prompt);
                found.push(Entry::Text(
                    part["text"].as_str().unwrap_or_default().to_owned(),
                ));
            }
            Some("tool") => {
                flush(&mut found, &mut prompt);
                let name = part["tool"].as_str().unwrap_or("tool");
                found.push(Entry::Tool(name.to_owned()));
            }
            Some("step-finish") if part["reason"] == "stop" => {
                flush(&mut found, &mut prompt);
                found.push(Entry::End);
            }
            _ => flush(&mut found, &mut prompt),
        }
    }
    flush(&mut found, &mut prompt);
    Ok(found)
}

/// A user message's text parts make one prompt.
fn flush(found: &mut Vec<Entry>, prompt: &mut Option<String>) {
    if let Some(text) = prompt.take() {
        found.push(Entry::Prompt(text));
    }
}
