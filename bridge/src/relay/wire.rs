//! How the bridge asks a relay what its pane shows: one JSON line each way
//! on a Unix socket of the relay's, in a folder of this user's alone,
//! named by the pane's session and id.

use std::borrow::Cow;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use zellij_mcp_protocol::shell_line::{shell_line, ShellLine};
use zellij_mcp_protocol::{PaneKind, PaneRef};

use super::recording::Recording;
use super::relaying::Change;
use super::truth::Kept;
use crate::transport::sessions::{socket_base, user_id};

/// The most bytes of lines one answer carries.
pub const MOST_BYTES: usize = 4 * 1024 * 1024;
/// How long a reader may take to ask, and to take its answer.
const PATIENCE: Duration = Duration::from_secs(2);
/// The longest [`Ask::Next`] waits.
pub const MOST_WAIT: Duration = Duration::from_secs(1);
/// The most readers answered at once (each waits on a thread of its own).
const MOST_READERS: usize = 16;

/// What a reader asks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "read", rename_all = "snake_case")]
pub enum Ask {
    /// The screen as it is now.
    Screen,
    /// The lines from line `from` on, the screen's last, the newest
    /// `max_bytes` of them.
    Lines { from: u64, max_bytes: usize },
    /// [`Ask::Lines`], once the program wrote more than `after` bytes in
    /// all (or is gone), or `within_ms` passed (at most [`MOST_WAIT`]).
    Next {
        from: u64,
        max_bytes: usize,
        after: u64,
        within_ms: u64,
    },
    /// Begin recording the pane to the file `to` (what is typed too,
    /// with `typed_too`), from its screen as it is; with no `to`, stop.
    Record {
        to: Option<PathBuf>,
        #[serde(default)]
        typed_too: bool,
    },
}

/// A recording's answer: where it goes, or why it could not begin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recorded {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The screen: its rows, the cursor where it shows, how many lines went
/// off its top, and how many bytes the program wrote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Shown {
    pub rows: Vec<String>,
    pub cursor: Option<(usize, usize)>,
    pub lines_above: u64,
    pub written: u64,
}

/// Lines from `first` on; `gap`: some asked for were let go; `ended`:
/// the program is gone and all it wrote is in them; `lines_above`: the
/// lines above the screen (its first row's number); `written`: the bytes
/// the program wrote in all.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Lines {
    pub first: u64,
    pub lines: Vec<String>,
    pub gap: bool,
    #[serde(default)]
    pub ended: bool,
    #[serde(default)]
    pub lines_above: u64,
    #[serde(default)]
    pub written: u64,
}

/// [`Lines`] as the relay sends them, the lines it keeps lent.
#[derive(Debug, Serialize)]
pub struct LinesOut<'a> {
    pub first: u64,
    pub lines: Vec<Cow<'a, str>>,
    pub gap: bool,
    pub ended: bool,
    pub lines_above: u64,
    pub written: u64,
}

/// The relay socket of `pane` (a terminal pane's id) in `session`, in
/// `<Zellij's socket folder>/zellij-mcp-relays/<session>/`. The folders
/// are made 0700; `None` when one is not this user's alone.
pub fn socket(session: &str, pane: u32, make: bool) -> Option<PathBuf> {
    // A name that is no single folder's is no session's.
    if session.is_empty() || session.contains('/') || session == "." || session == ".." {
        return None;
    }
    let relays = socket_base().join("zellij-mcp-relays");
    let folder = relays.join(session);
    for dir in [&relays, &folder] {
        if make {
            let _ = std::fs::DirBuilder::new().mode(0o700).create(dir);
        }
        if !private(dir) {
            return None;
        }
    }
    Some(folder.join(pane.to_string()))
}

fn private(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir)
        .is_ok_and(|m| m.is_dir() && m.uid() == user_id() && m.permissions().mode() & 0o077 == 0)
}

/// Answers readers at `path`, from `kept`, until the relay ends, each on a
/// thread of its own (a reader waiting for output holds up no other); a
/// reader never holds up the program.
pub fn serve(path: &Path, kept: Arc<Kept>, changes: SyncSender<Change>) -> std::io::Result<()> {
    let _ = std::fs::remove_file(path);
    let listener = UnixListener::bind(path)?;
    let answering = Arc::new(AtomicUsize::new(0));
    std::thread::spawn(move || {
        for reader in listener.incoming().flatten() {
            // Past the bound a reader is hung up on: it reads from Zellij.
            if answering.fetch_add(1, Ordering::SeqCst) >= MOST_READERS {
                answering.fetch_sub(1, Ordering::SeqCst);
                continue;
            }
            let (kept, changes, done) = (kept.clone(), changes.clone(), answering.clone());
            let spawned = std::thread::Builder::new().spawn(move || {
                let _ = answer(reader, &kept, &changes);
                done.fetch_sub(1, Ordering::SeqCst);
            });
            if spawned.is_err() {
                answering.fetch_sub(1, Ordering::SeqCst);
            }
        }
    });
    Ok(())
}

fn answer(reader: UnixStream, kept: &Kept, changes: &SyncSender<Change>) -> std::io::Result<()> {
    reader.set_read_timeout(Some(PATIENCE))?;
    reader.set_write_timeout(Some(PATIENCE))?;
    let mut line = String::new();
    BufReader::new(std::io::Read::take(&reader, 4096)).read_line(&mut line)?;
    let reply = match serde_json::from_str::<Ask>(&line) {
        Ok(Ask::Record { to, typed_too }) => {
            serde_json::to_string(&record(kept, changes, to, typed_too))
        }
        Ok(Ask::Screen) => serde_json::to_string(&kept.lock().shown()),
        Ok(Ask::Lines { from, max_bytes }) => {
            serde_json::to_string(&kept.lock().lines(from, max_bytes.min(MOST_BYTES)))
        }
        Ok(Ask::Next {
            from,
            max_bytes,
            after,
            within_ms,
        }) => {
            let within = Duration::from_millis(within_ms).min(MOST_WAIT);
            let truth = kept.after(after, within);
            serde_json::to_string(&truth.lines(from, max_bytes.min(MOST_BYTES)))
        }
        Err(e) => Ok(serde_json::json!({ "error": e.to_string() }).to_string()),
    };
    let mut reader = reader;
    reader.write_all(reply.unwrap_or_default().as_bytes())?;
    reader.write_all(b"\n")
}

/// Begins a recording to `to` (the relay's keeper draws the screen as it
/// is into it first), or stops the one going on; once the keeper did.
fn record(
    kept: &Kept,
    changes: &SyncSender<Change>,
    to: Option<PathBuf>,
    typed_too: bool,
) -> Recorded {
    let begun = match &to {
        Some(path) => {
            let (cols, rows) = kept.lock().size();
            match Recording::begin(path, cols, rows, typed_too) {
                Ok(begun) => Some(begun),
                Err(e) => {
                    return Recorded {
                        to: None,
                        error: Some(format!("{}: {e}", path.display())),
                    }
                }
            }
        }
        None => None,
    };
    // Answered once the keeper began (or ended) it: a recording stopped
    // gets nothing after its answer.
    let (done, told) = sync_channel(1);
    let kept = changes.send(Change::Record(begun, done)).is_ok();
    match kept && told.recv_timeout(PATIENCE).is_ok() {
        true => Recorded { to, error: None },
        false => Recorded {
            to: None,
            error: Some("the relay is ending".into()),
        },
    }
}

/// Asks the relay of `pane` in `session`, if it runs one; `None` when
/// there is none (or it cannot answer): the pane is read from Zellij.
pub fn ask<T: for<'de> Deserialize<'de>>(session: &str, pane: u32, ask: &Ask) -> Option<T> {
    let path = socket(session, pane, false)?;
    let mut stream = UnixStream::connect(path).ok()?;
    stream.set_read_timeout(Some(PATIENCE)).ok()?;
    stream.set_write_timeout(Some(PATIENCE)).ok()?;
    let mut line = serde_json::to_string(ask).ok()?;
    line.push('\n');
    stream.write_all(line.as_bytes()).ok()?;
    let mut reply = String::new();
    BufReader::new(stream).read_line(&mut reply).ok()?;
    serde_json::from_str(&reply).ok()
}

/// What a read of a relayed pane answers from.
pub struct Read {
    pub rows: Vec<String>,
    /// Earlier lines are not in `rows` (let go, or past `max_bytes`).
    pub earlier_left_out: bool,
    /// What a shell's line holds on the relay's screen.
    pub line: ShellLine,
}

/// The rows of `pane` in `session` as its relay has them: its screen, or
/// (`whole`) the newest `max_bytes` of every line it keeps and then the
/// screen; `None` when it runs no relay.
pub fn read(session: &str, pane: u32, whole: bool, max_bytes: usize) -> Option<Read> {
    let shown = ask::<Shown>(session, pane, &Ask::Screen)?;
    let line = shell_line(&shown.rows, shown.cursor);
    if !whole {
        return Some(Read {
            rows: shown.rows,
            earlier_left_out: false,
            line,
        });
    }
    let lines = ask::<Lines>(session, pane, &Ask::Lines { from: 0, max_bytes })?;
    Some(Read {
        rows: lines.lines,
        earlier_left_out: lines.first > 0,
        line,
    })
}

/// How long a run's relay has to say its program is gone, once Zellij
/// said so (the program's last bytes may still be on their way).
const ENDED_WITHIN: Duration = Duration::from_secs(2);

/// The newest `max_bytes` of the lines of a run in `pane`, from its relay:
/// where the run `ended`, once the relay has all its program wrote; `None`
/// when the pane runs no relay, or the relay did not have it all in time
/// (something the program started may still hold its pty).
pub fn output(session: &str, pane: PaneRef, max_bytes: usize, ended: bool) -> Option<Lines> {
    if pane.kind != PaneKind::Terminal || !socket(session, pane.id, false)?.exists() {
        return None;
    }
    let all = Ask::Lines { from: 0, max_bytes };
    let until = Instant::now() + ENDED_WITHIN;
    loop {
        let lines = ask::<Lines>(session, pane.id, &all)?;
        if lines.ended || !ended {
            return Some(lines);
        }
        if Instant::now() >= until {
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}
