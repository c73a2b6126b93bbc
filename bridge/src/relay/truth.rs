//! What the relay keeps of its pane: the live screen, as a terminal
//! emulator of its own (avt, asciinema's) draws it from every byte the
//! program wrote, whether or not a person has the pane scrolled up; and
//! the lines that went off the screen's top, as plain text (soft-wrapped
//! rows joined), the newest of them that fit in [`KEPT_BYTES`].

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use avt::observer::Transcript;
use avt::Terminal;

use super::text::{Decoder, Title};
use super::wire::{LinesOut, Shown};

/// The most memory the lines gone off the screen are kept in.
pub const KEPT_BYTES: usize = 2 * 1024 * 1024;
/// What keeping one line costs beside its text (its `String` and the
/// allocator's share).
const LINE_COST: usize = 48;

/// The truth, shared by the keeper that draws it and the readers, who may
/// wait for it to change.
pub struct Kept {
    truth: Mutex<Truth>,
    changed: Condvar,
}

impl Kept {
    pub fn new(truth: Truth) -> Kept {
        Kept {
            truth: Mutex::new(truth),
            changed: Condvar::new(),
        }
    }

    pub fn lock(&self) -> MutexGuard<'_, Truth> {
        self.truth.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Wakes the readers waiting for a change.
    pub fn changed(&self) {
        self.changed.notify_all();
    }

    /// The truth once the program wrote more than `after` bytes in all,
    /// or is gone, or `within` passed.
    pub fn after(&self, after: u64, within: Duration) -> MutexGuard<'_, Truth> {
        let until = Instant::now() + within;
        let mut truth = self.lock();
        while truth.written <= after && !truth.ended {
            let Some(left) = until.checked_duration_since(Instant::now()) else {
                break;
            };
            truth = match self.changed.wait_timeout(truth, left) {
                Ok((truth, _)) => truth,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
        truth
    }
}

pub struct Truth {
    terminal: Terminal,
    transcript: Transcript,
    /// Lines gone off the screen's top, oldest first.
    kept: VecDeque<String>,
    kept_bytes: usize,
    /// Lines let go for the bound, before the first kept.
    dropped: u64,
    decoder: Decoder,
    title: Title,
    /// Bytes the program wrote, in all.
    written: u64,
    /// The program is gone, and all it wrote is here.
    pub ended: bool,
}

impl Truth {
    pub fn new(cols: usize, rows: usize) -> Truth {
        Truth {
            terminal: Terminal::new(cols.max(1), rows.max(1)).expect("a size of at least 1x1"),
            transcript: Transcript::new(),
            kept: VecDeque::new(),
            kept_bytes: 0,
            dropped: 0,
            decoder: Decoder::default(),
            title: Title::default(),
            written: 0,
            ended: false,
        }
    }

    /// The program wrote `bytes`.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.written += bytes.len() as u64;
        let text = self.decoder.text(bytes);
        self.title.see(&text);
        let gone = self.terminal.feed_with(text.as_str(), &mut self.transcript);
        for line in gone {
            self.keep(line);
        }
    }

    pub fn resize(&mut self, cols: usize, rows: usize) {
        let gone = self
            .terminal
            .resize_with(cols.max(1), rows.max(1), &mut self.transcript);
        for line in gone {
            self.keep(line);
        }
    }

    fn keep(&mut self, line: String) {
        self.kept_bytes += line.capacity() + LINE_COST;
        self.kept.push_back(line);
        while self.kept_bytes > KEPT_BYTES {
            let Some(oldest) = self.kept.pop_front() else {
                break;
            };
            self.kept_bytes -= oldest.capacity() + LINE_COST;
            self.dropped += 1;
        }
    }

    /// The screen's size, columns and rows.
    pub fn size(&self) -> (usize, usize) {
        self.terminal.size()
    }

    /// What draws the screen as it is now on a new terminal of its size.
    pub fn dump(&self) -> String {
        self.terminal.dump()
    }

    /// The title the program gave its terminal last.
    pub fn title(&self) -> &str {
        &self.title.now
    }

    /// The screen as it is now.
    pub fn shown(&self) -> Shown {
        let rows = self
            .terminal
            .screen()
            .visible_lines()
            .map(|line| line.text().trim_end().to_owned())
            .collect();
        Shown {
            rows,
            cursor: self.terminal.cursor().position(),
            lines_above: self.dropped + self.kept.len() as u64,
            written: self.written,
        }
    }

    /// The lines from line `from` on (0: the first the program wrote), the
    /// screen's rows last, the newest `max_bytes` of them; the kept ones
    /// lent, not copied.
    pub fn lines(&self, from: u64, max_bytes: usize) -> LinesOut<'_> {
        // Past the lines kept: the screen's.
        let from = from.min(self.dropped + self.kept.len() as u64);
        let skip = from.saturating_sub(self.dropped) as usize;
        let kept = self
            .kept
            .iter()
            .skip(skip)
            .map(|l| Cow::Borrowed(l.as_str()));
        let shown = self.shown().rows.into_iter().map(Cow::Owned);
        let mut lines: Vec<Cow<'_, str>> = kept.chain(shown).collect();
        while lines.last().is_some_and(|l| l.is_empty()) {
            lines.pop();
        }
        let mut bytes: usize = lines.iter().map(|l| l.len() + 1).sum();
        let mut cut = 0;
        while bytes > max_bytes && cut < lines.len() {
            bytes -= lines[cut].len() + 1;
            cut += 1;
        }
        LinesOut {
            first: self.dropped.max(from) + cut as u64,
            lines: lines.split_off(cut),
            gap: from < self.dropped,
            ended: self.ended,
            lines_above: self.dropped + self.kept.len() as u64,
            written: self.written,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_screen_and_the_lines_gone_off_it() {
        let mut truth = Truth::new(10, 3);
        truth.feed(b"one\r\ntwo\r\nthree\r\nfour\r\n");
        let shown = truth.shown();
        assert_eq!(shown.rows, ["three", "four", ""]);
        assert_eq!(shown.lines_above, 2);
        assert_eq!(shown.cursor, Some((0, 2)));
        let lines = truth.lines(0, 1000);
        assert_eq!(lines.lines, ["one", "two", "three", "four"]);
        assert_eq!((lines.first, lines.gap), (0, false));
        let later = truth.lines(1, 1000);
        assert_eq!(later.lines, ["two", "three", "four"]);
        let screen = truth.lines(u64::MAX, 1000);
        assert_eq!((screen.first, screen.lines_above), (2, 2));
        assert_eq!(screen.lines, ["three", "four"]);
    }

    #[test]
    fn a_reader_waits_for_what_the_program_writes_next() {
        let kept = std::sync::Arc::new(Kept::new(Truth::new(10, 3)));
        kept.lock().feed(b"one\r\n");
        let short = Duration::from_millis(1);
        assert_eq!(kept.after(0, short).written, 5, "already past");
        let started = Instant::now();
        assert_eq!(kept.after(5, short).written, 5, "nothing new in time");
        assert!(started.elapsed() >= short);
        let keeper = kept.clone();
        let writes = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            keeper.lock().feed(b"two");
            keeper.changed();
        });
        let truth = kept.after(5, Duration::from_secs(10));
        assert_eq!((truth.written, truth.shown().rows[1].as_str()), (8, "two"));
        drop(truth);
        writes.join().unwrap();
    }

    #[test]
    fn a_character_split_between_reads_is_whole() {
        let mut truth = Truth::new(10, 2);
        let word = "é!".as_bytes();
        truth.feed(&word[..1]);
        truth.feed(&word[1..]);
        truth.feed(b"\xff");
        assert_eq!(truth.shown().rows[0], "é!\u{fffd}");
        assert_eq!(truth.shown().written, 4);
    }

    #[test]
    fn lines_are_kept_up_to_their_bound_and_a_gap_is_told() {
        let mut truth = Truth::new(20, 2);
        let line = "x".repeat(1023);
        for _ in 0..(KEPT_BYTES / 1024 + 100) {
            truth.feed(format!("{line}\r\n").as_bytes());
        }
        let shown = truth.shown();
        assert!(truth.kept_bytes <= KEPT_BYTES);
        let lines = truth.lines(0, 10_000);
        assert!(lines.gap, "lines were let go");
        assert!(
            lines.lines.len() <= 10 && lines.first + lines.lines.len() as u64 >= shown.lines_above
        );
    }
}
