//! The one table `make bench` prints, in Markdown, rows in the order taken.

use std::time::Duration;

/// p50 and p99 of a set of samples, in ms.
#[derive(Debug, Clone, Copy)]
pub struct Stats {
    pub p50: f64,
    pub p99: f64,
}

impl Stats {
    pub fn of(mut samples: Vec<Duration>) -> Stats {
        assert!(!samples.is_empty(), "no samples");
        samples.sort();
        let at = |q: f64| {
            let index = ((samples.len() - 1) as f64 * q).round() as usize;
            samples[index].as_secs_f64() * 1000.0
        };
        Stats {
            p50: at(0.5),
            p99: at(0.99),
        }
    }
}

struct Row {
    what: String,
    count: String,
    p50: String,
    p99: String,
    note: String,
}

#[derive(Default)]
pub struct Table {
    rows: Vec<Row>,
}

impl Table {
    /// A heading row for what follows.
    pub fn section(&mut self, title: &str) {
        eprintln!("bench: {title}");
        self.push(format!("**{title}**"), "", "", "", "");
    }

    /// A row of latencies; returns their stats.
    pub fn timed(&mut self, what: &str, samples: Vec<Duration>, note: &str) -> Stats {
        let count = samples.len();
        let stats = Stats::of(samples);
        let p50 = format!("{:.2}", stats.p50);
        let p99 = format!("{:.2}", stats.p99);
        self.push(what.to_owned(), &count.to_string(), &p50, &p99, note);
        stats
    }

    /// A row with one figure (in the p50 column) and no latency spread.
    pub fn figure(&mut self, what: &str, figure: &str, note: &str) {
        self.push(what.to_owned(), "", figure, "", note);
    }

    /// Adds to the note of the last row.
    pub fn note(&mut self, note: &str) {
        if let Some(row) = self.rows.last_mut() {
            if !row.note.is_empty() {
                row.note.push_str("; ");
            }
            row.note.push_str(note);
        }
    }

    fn push(&mut self, what: String, count: &str, p50: &str, p99: &str, note: &str) {
        self.rows.push(Row {
            what,
            count: count.to_owned(),
            p50: p50.to_owned(),
            p99: p99.to_owned(),
            note: note.to_owned(),
        });
    }

    pub fn print(&self) {
        println!("| what | n | p50 ms | p99 ms | compared, target |");
        println!("|---|--:|--:|--:|---|");
        for row in &self.rows {
            println!(
                "| {} | {} | {} | {} | {} |",
                row.what, row.count, row.p50, row.p99, row.note
            );
        }
    }
}

/// Times each of `rounds` runs of `op`.
pub fn measure(rounds: usize, mut op: impl FnMut()) -> Vec<Duration> {
    (0..rounds)
        .map(|_| {
            let start = std::time::Instant::now();
            op();
            start.elapsed()
        })
        .collect()
}
