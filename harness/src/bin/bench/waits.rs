//! How soon a wait notices a line: from the moment the line is written to
//! the program in the pane, to the reply. Beside it, the way the peers do
//! it: `dump-screen` once a second until the line shows.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use zellij_mcp_harness::{Mcp, Session};

/// A pane whose program prints each line written into a FIFO.
pub struct MarkPane {
    pub pane: Value,
    fifo: PathBuf,
}

impl MarkPane {
    /// In the tab the bridge acts on by default, or in a new tab (which no
    /// client views: new tabs are not focused); under zellij-mcp's relay or
    /// not.
    pub fn open(mcp: &Mcp, session: &Session, tag: &str, new_tab: bool, relay: bool) -> MarkPane {
        let fifo = session.sandbox().work().join(format!("marks-{tag}.fifo"));
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        // Read-write: the reader holds a write end too, so it never sees
        // an end of file between two marks (a `cat` started again after
        // each writer could miss a mark written before it opened).
        let script = format!("exec cat <> {}", fifo.display());
        let mut args = json!({"command": ["sh", "-c", script], "wait": false, "placement": "tiled", "relay": relay});
        if new_tab {
            let tab = mcp.ok("zellij_new_tab", json!({"name": tag}));
            args["tab"] = tab["tab_id"].clone();
        }
        let pane = mcp.ok("zellij_run", args)["pane_id"].clone();
        MarkPane { pane, fifo }
    }

    /// Writes `mark` as one line to the pane's program; returns when.
    pub fn write(&self, mark: &str) -> Instant {
        let mut writer = std::fs::OpenOptions::new()
            .write(true)
            .open(&self.fifo)
            .expect("fifo");
        let written = Instant::now();
        writeln!(writer, "{mark}").expect("write mark");
        written
    }

    pub fn id(&self) -> &str {
        self.pane.as_str().expect("pane id")
    }
}

/// Each round starts a `zellij_wait_for` for the next mark, writes the mark
/// 100 ms later, and times from the write to the reply. The wait also takes
/// the mark when it is on the screen already: a call that reached the
/// plugin after the mark (a loaded machine) would otherwise count it as
/// old output and miss it.
pub fn wait_latency(mcp: &Mcp, marks: &MarkPane, rounds: usize, tag: &str) -> Vec<Duration> {
    (0..rounds)
        .map(|n| {
            let mark = format!("mark-{tag}-{n}");
            std::thread::scope(|scope| {
                let waiter = scope.spawn(|| {
                    let args = json!({"pane_id": marks.pane, "pattern": format!("^{mark}$"), "timeout_ms": 10000, "include_existing": true});
                    let found = mcp.ok("zellij_wait_for", args);
                    assert_eq!(found["outcome"], "matched", "{found}");
                    Instant::now()
                });
                std::thread::sleep(Duration::from_millis(100));
                let written = marks.write(&mark);
                waiter.join().expect("waiter") - written
            })
        })
        .collect()
}

/// A peer's wait: `dump-screen` every second until the mark shows. Each
/// round writes its mark at a different point of the polling period.
pub fn dump_poll_latency(session: &Session, marks: &MarkPane, rounds: usize) -> Vec<Duration> {
    (0..rounds)
        .map(|n| {
            let mark = format!("polled-{n}");
            let period = Duration::from_secs(1);
            let start = Instant::now();
            session.dump_screen(marks.id(), false); // the poll just before the line
            std::thread::sleep(period.mul_f64(((n * 379) % 1000) as f64 / 1000.0));
            let written = marks.write(&mark);
            let mut next_poll = start + period;
            loop {
                std::thread::sleep(next_poll.saturating_duration_since(Instant::now()));
                let screen = session.dump_screen(marks.id(), false);
                if String::from_utf8_lossy(&screen).contains(&mark) {
                    return written.elapsed();
                }
                next_poll += period;
            }
        })
        .collect()
}
