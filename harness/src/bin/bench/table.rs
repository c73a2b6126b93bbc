//! The one table `make bench` prints, in Markdown, rows in the order taken.

use std::time::Duration;

/// p50, p95 and p99 of a set of samples, in ms.
#[derive(Debug, Clone, Copy)]
pub struct Stats {
    pub p50: f64,
    pub p95: f64,
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
            p95: at(0.95),
            p99: at(0.99),
        }
    }
}

struct Row {
    what: String,
    count: String,
    /// p50, p95 and p99, or one figure.
    figures: [String; 3],
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
        self.push(format!("**{title}**"), "", ["", "", ""], "");
    }

    /// A row of latencies; returns their stats.
    pub fn timed(&mut self, what: &str, samples: Vec<Duration>, note: &str) -> Stats {
        let count = samples.len();
        let stats = Stats::of(samples);
        let figures = [stats.p50, stats.p95, stats.p99].map(|ms| format!("{ms:.2}"));
        let [p50, p95, p99] = figures.each_ref().map(String::as_str);
        self.push(what.to_owned(), &count.to_string(), [p50, p95, p99], note);
        stats
    }

    /// A row with one figure (in the p50 column) and no latency spread.
    pub fn figure(&mut self, what: &str, figure: &str, note: &str) {
        self.push(what.to_owned(), "", [figure, "", ""], note);
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

    fn push(&mut self, what: String, count: &str, figures: [&str; 3], note: &str) {
        self.rows.push(Row {
            what,
            count: count.to_owned(),
            figures: figures.map(str::to_owned),
            note: note.to_owned(),
        });
    }

    pub fn print(&self) {
        println!("| what | n | p50 ms | p95 ms | p99 ms | compared, target |");
        println!("|---|--:|--:|--:|--:|---|");
        for row in &self.rows {
            let [p50, p95, p99] = &row.figures;
            let (what, count, note) = (&row.what, &row.count, &row.note);
            println!("| {what} | {count} | {p50} | {p95} | {p99} | {note} |");
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
