//! A recording of a relayed pane, as asciicast v2 (what `asciinema play`
//! plays): a header with the size and the time it began, then one line per
//! event: what the program wrote (`o`), what was typed (`i`, only when
//! asked for), and each new size (`r`). It stops at [`MOST_BYTES`], with a
//! marker (`m`) saying so.

use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde_json::json;

use super::text::Decoder;

/// The most bytes a recording grows to.
pub const MOST_BYTES: u64 = 64 * 1024 * 1024;

/// A new file in the recordings folder
/// (`$XDG_STATE_HOME/zellij-mcp/recordings`, else under `~/.local/state`;
/// made 0700), named for the session, `what` it records (a pane) and the
/// time.
pub fn new_place(session: &str, what: &str) -> Option<PathBuf> {
    static MADE: AtomicU32 = AtomicU32::new(0);
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".local/state"))
        })?;
    let folder = state.join("zellij-mcp/recordings");
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&folder)
        .ok()?;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .ok()?
        .as_millis();
    // Two places made in one millisecond are two files.
    let made = MADE.fetch_add(1, Ordering::Relaxed);
    let name = format!("{session}-{what}-{now}-{made}.cast").replace('/', "_");
    Some(folder.join(name))
}

pub struct Recording {
    file: File,
    /// Where it goes, as given.
    path: PathBuf,
    began: Instant,
    size: u64,
    stopped: bool,
    output: Decoder,
    /// What is typed is recorded only when asked for.
    input: Option<Decoder>,
}

impl Recording {
    /// A new recording at `path` (made 0600: what a program shows may be
    /// private) of a screen `cols` by `rows`.
    pub fn begin(path: &Path, cols: usize, rows: usize, typed_too: bool) -> io::Result<Recording> {
        let mut file = File::options()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(path)?;
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let header = json!({
            "version": 2,
            "width": cols,
            "height": rows,
            "timestamp": now.as_secs(),
            "env": {"TERM": std::env::var("TERM").unwrap_or_default()},
        });
        let line = format!("{header}\n");
        file.write_all(line.as_bytes())?;
        Ok(Recording {
            file,
            path: path.to_owned(),
            began: Instant::now(),
            size: line.len() as u64,
            stopped: false,
            output: Decoder::default(),
            input: typed_too.then(Decoder::default),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Starts from a screen already drawn (a recording begun while the
    /// program runs): what draws it, as the first output.
    pub fn screen_drawn(&mut self, drawn: &str) {
        self.event("o", drawn);
    }

    pub fn output(&mut self, bytes: &[u8]) {
        let text = self.output.text(bytes);
        self.event("o", &text);
    }

    pub fn typed(&mut self, bytes: &[u8]) {
        if let Some(decoder) = self.input.as_mut() {
            let text = decoder.text(bytes);
            self.event("i", &text);
        }
    }

    pub fn resized(&mut self, cols: usize, rows: usize) {
        self.event("r", &format!("{cols}x{rows}"));
    }

    fn event(&mut self, kind: &str, data: &str) {
        if self.stopped || data.is_empty() {
            return;
        }
        let at = self.began.elapsed().as_secs_f64();
        let line = format!("{}\n", json!([at, kind, data]));
        if self.size + line.len() as u64 > MOST_BYTES {
            self.stopped = true;
            let mark = format!("{}\n", json!([at, "m", "recording stopped: 64 MiB"]));
            let _ = self.file.write_all(mark.as_bytes());
            return;
        }
        self.size += line.len() as u64;
        // A recording that cannot be written stops; the program goes on.
        if self.file.write_all(line.as_bytes()).is_err() {
            self.stopped = true;
        }
    }
}
