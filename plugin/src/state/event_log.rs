//! The session's event log: one JSON line per event (see
//! `zellij_mcp_protocol::ops::LoggedEvent`), in the shared folder, named for
//! the session, so a reloaded plugin, another instance and a resurrected
//! session all find it. It is where `seq` comes from, and the record of
//! which messages are still pending.
//!
//! - Each event is appended with one write of a whole line. A line cut short
//!   by a crash is skipped when read, and the next event starts on a new line.
//! - Before each append and read, a change of the file's length shows that
//!   another instance appended; its lines are read then.
//! - Past [`MAX_BYTES`] the file becomes `<name>.1.jsonl` (replacing the one
//!   before) and a new one starts with the pending messages logged again, so
//!   recovery needs only the current file and the disk use stays bounded.

use std::collections::{BTreeMap, VecDeque};
use std::fs::{self, File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use zellij_mcp_protocol::ops::{
    DeliveryStatus, Happened, HoldReason, LoggedEvent, ReadEventsResult,
};
use zellij_mcp_protocol::PaneRef;

/// A log file is rotated once it is this large.
pub const MAX_BYTES: u64 = 1024 * 1024;
/// The logs of sessions not heard from for this long are removed.
const SWEEP_AFTER: Duration = Duration::from_secs(30 * 24 * 3600);
/// Line starts remembered for reads that ask for the latest events.
const RECENT_LINES: usize = 512;
/// Longest line read from a log: a message at its cap, escaped, with its
/// event's fields. A longer line is not one the plugin wrote; it is skipped.
const MAX_LINE: u64 = 512 * 1024;
/// Messages whose end (delivered, expired, cancelled) is remembered, for
/// requests that wait on them in an instance that does not deliver.
const SETTLED_KEPT: usize = 256;

/// How a message ended, as the log tells it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settled {
    pub status: DeliveryStatus,
    pub attempts: u32,
    pub pane_id: Option<PaneRef>,
    /// `draft` for a message typed but left unsent in its composer.
    pub held_because: Option<HoldReason>,
}

#[derive(Debug, Default)]
pub struct EventLog {
    /// None before the plugin has started.
    path: Option<PathBuf>,
    /// The file's length as this instance last read or wrote it.
    known_len: u64,
    /// The last line read was cut short: the next write starts a new line.
    torn: bool,
    last_seq: u64,
    /// `(seq, offset)` of the latest lines of the current file.
    recent: VecDeque<(u64, u64)>,
    /// Messages queued and not yet delivered or expired, by seq.
    pending: BTreeMap<u64, LoggedEvent>,
    /// The latest messages that ended, with how, oldest first.
    settled: VecDeque<(u64, Settled)>,
    /// Counts the messages queued or ended, in this instance or another:
    /// what is pending changed when it did.
    changes: u64,
}

impl EventLog {
    /// The log at `path`, read once to learn the last seq and what is pending.
    pub fn open(path: PathBuf) -> Self {
        let mut log = EventLog {
            path: Some(path),
            ..EventLog::default()
        };
        log.catch_up();
        log
    }

    /// Removes the logs in `dir` no session wrote to for [`SWEEP_AFTER`].
    pub fn sweep(dir: &Path) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let old = entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age >= SWEEP_AFTER);
            if old && name.starts_with("events-") && name.ends_with(".jsonl") {
                let _ = fs::remove_file(entry.path());
            }
        }
    }

    /// Messages still pending, oldest first.
    pub fn pending(&self) -> impl Iterator<Item = &LoggedEvent> {
        self.pending.values()
    }

    /// Grows whenever what is pending changes (see [`EventLog::pending`]),
    /// whichever read or write took the change in.
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// How message `seq` ended, when it ended lately.
    pub fn settled(&self, seq: u64) -> Option<Settled> {
        let found = self.settled.iter().rev().find(|(s, _)| *s == seq);
        found.map(|(_, settled)| *settled)
    }

    #[cfg(test)]
    pub fn last_seq(&self) -> u64 {
        self.last_seq
    }

    /// Appends the event `what(seq)` with the next seq, which it returns.
    pub fn append(
        &mut self,
        at_ms: u64,
        what: impl FnOnce(u64) -> Happened,
    ) -> std::io::Result<u64> {
        self.catch_up();
        if self.known_len >= MAX_BYTES {
            self.rotate(at_ms)?;
        }
        let event = LoggedEvent {
            seq: self.last_seq + 1,
            at_ms,
            what: what(self.last_seq + 1),
        };
        self.write(&event)?;
        Ok(event.seq)
    }

    /// Appends `what`. The log is a record: an event that cannot be written
    /// is dropped (and said on stderr), and the work it records goes on.
    pub fn record(&mut self, at_ms: u64, what: Happened) {
        if let Err(e) = self.append(at_ms, |_| what) {
            eprintln!("zellij-mcp: cannot write the event log: {e}");
        }
    }

    /// Events after `since`, oldest first, up to about `max_bytes`.
    pub fn read(&mut self, since: u64, max_bytes: usize) -> ReadEventsResult {
        self.catch_up();
        let mut result = ReadEventsResult {
            events: Vec::new(),
            last_seq: since,
            more: false,
        };
        if since >= self.last_seq {
            return result;
        }
        let Some(path) = self.path.clone() else {
            return result;
        };
        let mut bytes = 0;
        let mut take = |line: &str, seq: u64| {
            if seq <= result.last_seq || result.more {
                return;
            }
            let Ok(value) = serde_json::from_str(line) else {
                return;
            };
            if bytes > 0 && bytes + line.len() > max_bytes {
                result.more = true;
                return;
            }
            bytes += line.len();
            result.events.push(value);
            result.last_seq = seq;
        };
        match self.recent_offset(since) {
            Some(offset) => scan(&path, offset, |line, seq| take(line, seq)),
            None => {
                scan(&rotated(&path), 0, |line, seq| take(line, seq));
                scan(&path, 0, |line, seq| take(line, seq));
            }
        };
        result
    }

    /// Where the first line after `since` starts, when it is a recent one.
    fn recent_offset(&self, since: u64) -> Option<u64> {
        let &(oldest, _) = self.recent.front()?;
        (oldest <= since + 1).then(|| {
            self.recent
                .iter()
                .find(|(seq, _)| *seq > since)
                .map_or(self.known_len, |(_, offset)| *offset)
        })
    }

    /// Reads what was appended since this instance last looked; whether
    /// there was anything.
    pub fn catch_up(&mut self) -> bool {
        let Some(path) = self.path.clone() else {
            return false;
        };
        let len = fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        if len == self.known_len {
            return false;
        }
        if len < self.known_len {
            // Rotated by another instance: read the new file from its start.
            self.known_len = 0;
            self.recent.clear();
            self.pending.clear();
            self.changes += 1;
        }
        let start = self.known_len;
        let mut torn = false;
        let end = scan_lines(&path, start, |line, offset, complete| {
            torn = !complete;
            if complete {
                self.note(line, offset);
            }
        });
        self.known_len = end;
        self.torn = torn;
        true
    }

    /// Takes in one line of the file, at `offset`.
    fn note(&mut self, line: &str, offset: u64) {
        let Ok(event) = serde_json::from_str::<LoggedEvent>(line) else {
            return;
        };
        if event.seq > self.last_seq {
            self.last_seq = event.seq;
            self.recent.push_back((event.seq, offset));
            if self.recent.len() > RECENT_LINES {
                self.recent.pop_front();
            }
        }
        if let Some(ended) = settled(&event.what) {
            self.settled.push_back(ended);
            if self.settled.len() > SETTLED_KEPT {
                self.settled.pop_front();
            }
        }
        match &event.what {
            Happened::Queued { message, .. } => {
                self.changes += 1;
                self.pending.insert(*message, event);
            }
            Happened::Delivered { message, .. }
            | Happened::Expired { message, .. }
            | Happened::Cancelled { message } => {
                self.changes += 1;
                self.pending.remove(message);
            }
            _ => {}
        }
    }

    fn write(&mut self, event: &LoggedEvent) -> std::io::Result<()> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let json = serde_json::to_string(event).map_err(std::io::Error::other)?;
        let line = match self.torn {
            true => format!("\n{json}\n"),
            false => format!("{json}\n"),
        };
        let mut file = OpenOptions::new().create(true).append(true).open(path)?;
        file.write_all(line.as_bytes())?;
        let offset = self.known_len + line.len() as u64 - json.len() as u64 - 1;
        self.known_len += line.len() as u64;
        self.torn = false;
        self.note(&json, offset);
        Ok(())
    }

    /// Starts a new file with the pending messages and a `rotated` event.
    fn rotate(&mut self, at_ms: u64) -> std::io::Result<()> {
        let Some(path) = self.path.clone() else {
            return Ok(());
        };
        fs::rename(&path, rotated(&path))?;
        let pending: Vec<LoggedEvent> = std::mem::take(&mut self.pending).into_values().collect();
        self.known_len = 0;
        self.torn = false;
        self.recent.clear();
        for event in &pending {
            self.write(event)?;
        }
        let seq = self.last_seq + 1;
        self.write(&LoggedEvent {
            seq,
            at_ms,
            what: Happened::Rotated,
        })
    }
}

/// The message an event ends, and how.
fn settled(what: &Happened) -> Option<(u64, Settled)> {
    let (message, status, attempts, pane_id) = match *what {
        Happened::Delivered {
            message,
            pane_id,
            attempts,
        } => (message, DeliveryStatus::Delivered, attempts, Some(pane_id)),
        Happened::Unsent {
            message,
            pane_id,
            attempts,
        } => (message, DeliveryStatus::Failed, attempts, Some(pane_id)),
        Happened::Expired { message, attempts } => {
            (message, DeliveryStatus::Failed, attempts, None)
        }
        Happened::Cancelled { message } => (message, DeliveryStatus::Cancelled, 0, None),
        _ => return None,
    };
    let unsent = matches!(what, Happened::Unsent { .. });
    let settled = Settled {
        status,
        attempts,
        pane_id,
        held_because: unsent.then_some(HoldReason::Draft),
    };
    Some((message, settled))
}

/// `events-x.jsonl` → `events-x.1.jsonl`.
fn rotated(path: &Path) -> PathBuf {
    path.with_extension("1.jsonl")
}

/// Calls `each(line, seq)` for every complete line from `offset`.
fn scan(path: &Path, offset: u64, mut each: impl FnMut(&str, u64)) {
    scan_lines(path, offset, |line, _, complete| {
        if let Some(seq) = complete.then(|| seq_of(line)).flatten() {
            each(line, seq);
        }
    });
}

/// Calls `each(line, offset, complete)` for every line from `offset`;
/// returns the offset after the last. One line in memory at a time.
fn scan_lines(path: &Path, offset: u64, mut each: impl FnMut(&str, u64, bool)) -> u64 {
    let Ok(mut file) = File::open(path) else {
        return offset;
    };
    if file.seek(SeekFrom::Start(offset)).is_err() {
        return offset;
    }
    let mut reader = BufReader::new(file);
    let mut at = offset;
    let mut line = Vec::new();
    loop {
        line.clear();
        match (&mut reader).take(MAX_LINE).read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return at,
            Ok(n) if n as u64 == MAX_LINE && line.last() != Some(&b'\n') => {
                // Longer than any event: not one of ours, and never kept whole.
                at += n as u64 + skip_line(&mut reader);
            }
            Ok(n) => {
                let complete = line.last() == Some(&b'\n');
                let text = String::from_utf8_lossy(&line);
                each(text.trim_end_matches('\n'), at, complete);
                at += n as u64;
            }
        }
    }
}

/// Skips the rest of a line, a piece at a time; the bytes skipped.
fn skip_line(reader: &mut impl BufRead) -> u64 {
    let mut skipped = 0;
    let mut piece = Vec::new();
    loop {
        piece.clear();
        match reader.take(MAX_LINE).read_until(b'\n', &mut piece) {
            Ok(0) | Err(_) => return skipped,
            Ok(n) => skipped += n as u64,
        }
        if piece.last() == Some(&b'\n') {
            return skipped;
        }
    }
}

/// The seq a line starts with (`{"seq":N,`), without parsing the rest.
fn seq_of(line: &str) -> Option<u64> {
    let digits = line.strip_prefix("{\"seq\":")?;
    let end = digits.find(|c: char| !c.is_ascii_digit())?;
    digits[..end].parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use zellij_mcp_protocol::PaneRef;

    fn temp_log(name: &str) -> PathBuf {
        crate::tests::shared_dir(&format!("log-{name}")).join("events-s.jsonl")
    }

    fn queued(text: &str) -> impl FnOnce(u64) -> Happened + '_ {
        move |seq| Happened::Queued {
            message: seq,
            to: "main.a".into(),
            from: "t".into(),
            text: text.into(),
            expires_at_ms: 10_000,
            client: "c".into(),
        }
    }

    fn delivered(message: u64) -> impl FnOnce(u64) -> Happened {
        move |_| Happened::Delivered {
            message,
            pane_id: PaneRef::terminal(1),
            attempts: 1,
        }
    }

    fn seqs(result: &ReadEventsResult) -> Vec<u64> {
        result
            .events
            .iter()
            .map(|e| e["seq"].as_u64().unwrap())
            .collect()
    }

    #[test]
    fn logs_untouched_for_a_month_are_swept() {
        let path = temp_log("sweep");
        let dir = path.parent().unwrap();
        for name in ["events-old.jsonl", "events-new.jsonl", "other-old.jsonl"] {
            let file = File::create(dir.join(name)).unwrap();
            if name.contains("old") {
                let month_ago = std::time::SystemTime::now() - SWEEP_AFTER;
                file.set_modified(month_ago).unwrap();
            }
        }
        EventLog::sweep(dir);
        assert_eq!(
            crate::tests::file_names(dir),
            ["events-new.jsonl", "other-old.jsonl"]
        );
    }

    #[test]
    fn seq_and_pending_messages_survive_a_reopen() {
        let path = temp_log("reopen");
        let mut log = EventLog::open(path.clone());
        assert_eq!(log.append(1, queued("one")).unwrap(), 1);
        assert_eq!(log.append(2, queued("two")).unwrap(), 2);
        assert_eq!(log.append(3, delivered(1)).unwrap(), 3);
        let mut again = EventLog::open(path);
        assert_eq!(again.last_seq(), 3);
        let pending: Vec<u64> = again.pending().map(|e| e.seq).collect();
        assert_eq!(pending, [2]);
        assert_eq!(again.append(4, delivered(2)).unwrap(), 4);
        assert_eq!(again.pending().count(), 0);
    }

    #[test]
    fn another_instances_ends_are_told_whichever_read_or_write_took_them_in() {
        let path = temp_log("changes");
        let mut mine = EventLog::open(path.clone());
        let mut theirs = EventLog::open(path);
        mine.append(1, queued("one")).unwrap();
        theirs.catch_up();
        let seen = mine.changes();
        theirs.append(2, delivered(1)).unwrap();
        // Taken in by an append of this instance's own, not a catch-up.
        mine.record(3, Happened::Rotated);
        assert!(!mine.catch_up(), "nothing new to catch up");
        assert!(mine.changes() > seen, "but what is pending changed");
        assert_eq!(mine.pending().count(), 0);
        let ended = mine.settled(1).expect("how #1 ended");
        assert_eq!(ended.status, DeliveryStatus::Delivered);
        assert_eq!(mine.settled(2), None);
    }

    #[test]
    fn a_torn_last_line_is_skipped_and_the_next_event_starts_a_new_line() {
        let path = temp_log("torn");
        let mut log = EventLog::open(path.clone());
        log.append(1, queued("one")).unwrap();
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(b"{\"seq\":2,\"at_ms\":2,\"event\":\"queu")
            .unwrap();
        let mut after_crash = EventLog::open(path.clone());
        assert_eq!(after_crash.last_seq(), 1);
        assert_eq!(after_crash.append(3, queued("two")).unwrap(), 2);
        let read = EventLog::open(path).read(0, 1 << 20);
        assert_eq!(seqs(&read), [1, 2]);
        assert_eq!(read.events[1]["text"], "two");
    }

    #[test]
    fn another_instances_appends_are_seen_before_the_next_seq() {
        let path = temp_log("two");
        let mut a = EventLog::open(path.clone());
        let mut b = EventLog::open(path);
        a.append(1, queued("from a")).unwrap();
        assert_eq!(b.append(2, queued("from b")).unwrap(), 2);
        assert_eq!(a.append(3, delivered(1)).unwrap(), 3);
        let pending: Vec<u64> = a.pending().map(|e| e.seq).collect();
        assert_eq!(pending, [2], "a saw b's message");
    }

    #[test]
    fn reads_go_after_since_in_pages_of_max_bytes() {
        let path = temp_log("read");
        let mut log = EventLog::open(path);
        for n in 0..10 {
            log.append(n, queued("x")).unwrap();
        }
        assert_eq!(seqs(&log.read(7, 1 << 20)), [8, 9, 10]);
        let page = log.read(0, 1);
        assert_eq!((seqs(&page), page.more, page.last_seq), (vec![1], true, 1));
        let rest = log.read(10, 1 << 20);
        assert_eq!(
            (rest.events.len(), rest.last_seq, rest.more),
            (0, 10, false)
        );
    }

    #[test]
    fn rotation_bounds_the_files_and_keeps_pending_messages_and_seq() {
        let path = temp_log("rotate");
        let mut log = EventLog::open(path.clone());
        let big = "y".repeat(64 * 1024);
        let first = log.append(0, queued("still pending")).unwrap();
        let mut n = 1;
        while !rotated(&path).exists() {
            let seq = log.append(n, queued(&big)).unwrap();
            log.append(n, delivered(seq)).unwrap();
            n += 1;
        }
        let total =
            fs::metadata(&path).unwrap().len() + fs::metadata(rotated(&path)).unwrap().len();
        assert!(total < 2 * MAX_BYTES + 256 * 1024, "{total}");
        let reopened = EventLog::open(path.clone());
        let pending: Vec<u64> = reopened.pending().map(|e| e.seq).collect();
        assert_eq!(pending, [first]);
        assert_eq!(reopened.last_seq(), log.last_seq());
        let all = EventLog::open(path).read(0, 8 << 20);
        let seqs = seqs(&all);
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
        assert_eq!(seqs.last(), Some(&log.last_seq()));
    }

    #[test]
    fn an_overlong_line_is_skipped_a_piece_at_a_time() {
        let path = temp_log("overlong");
        let junk = "x".repeat(MAX_LINE as usize * 2 + 5);
        let first = r#"{"seq":1,"at_ms":1,"event":"rotated"}"#;
        let last = r#"{"seq":2,"at_ms":2,"event":"rotated"}"#;
        std::fs::write(&path, format!("{first}\n{junk}\n{last}\n")).unwrap();
        let mut seen = Vec::new();
        scan(&path, 0, |_, seq| seen.push(seq));
        assert_eq!(seen, [1, 2]);
    }
}
