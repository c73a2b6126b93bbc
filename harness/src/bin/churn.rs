//! `make churn`: many mixed calls from several callers while clients come
//! and go (see `zellij_mcp_harness::churn`) and the lease moves between
//! the plugin's instances. Counts the effects missing, twice, merged or
//! wrong, and the errors by code; the target is 0 for each.
//!
//! The calls: tokens written into a `cat` pane (submitted, or ended by an
//! Enter key), messages to an agent (the Ink composer the tests use), runs
//! in each caller's own bash pane, waits, reads and pane lists.
//!
//! Usage: churn [PATH-TO-zellij-mcp] [CALLS]

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use zellij_mcp_harness::{churn, program_setup, text_of, wait_for, workspace_root, Mcp};

const CALLERS: usize = 4;
/// The calls repeat in rounds of this many (see [`Caller::call`]).
const ROUND: usize = 40;

fn main() {
    let (bridge, total, session) = program_setup("churn", 10_000);
    let setup = Mcp::start(&bridge, session.sandbox(), &[]);
    let work = session.sandbox().work();
    std::fs::create_dir_all(&work).expect("a work folder");
    let tokens_file = work.join("tokens.txt");
    let cat = format!("cat > {}", tokens_file.display());
    let cat = new_pane(&setup, json!(["sh", "-c", cat]));
    let ticker = "n=0; while :; do n=$((n+1)); echo tick-$n; sleep 0.2; done";
    let ticker = new_pane(&setup, json!(["sh", "-c", ticker]));
    let inbox = work.join("messages.jsonl");
    let composer = composer(&setup, &inbox);
    let agent = composer.trim_start_matches("terminal_").parse().unwrap();
    let agent = Mcp::start_in_pane(&bridge, session.sandbox(), session.name(), agent);
    agent.ok("zellij_register_agent", json!({"name": "inbox"}));
    let callers: Vec<Caller> = (0..CALLERS)
        .map(|k| Caller {
            k,
            mcp: Mcp::start(&bridge, session.sandbox(), &[]),
            bash: new_pane(&setup, json!(["bash", "--norc", "--noprofile"])),
            cat: cat.clone(),
            ticker: ticker.clone(),
        })
        .collect();
    for caller in &callers {
        wait_for("bash at its prompt", Duration::from_secs(30), || {
            let read = setup.ok("zellij_read", json!({"pane_id": caller.bash}));
            (read["state"] == "prompt").then_some(())
        });
    }
    let stayer = churn::stay_away(&session, &setup);

    println!("churn: {total} mixed calls from {CALLERS} callers, clients coming and going");
    let tally = Mutex::new(Tally::default());
    let (next, stop, holders) = (
        AtomicUsize::new(0),
        AtomicBool::new(false),
        AtomicUsize::new(0),
    );
    let started = Instant::now();
    std::thread::scope(|scope| {
        let root = session.sandbox().root();
        scope.spawn(|| churn::count_lease_holders(root, &holders, &stop));
        scope.spawn(|| {
            let leaving = |what| tally.lock().unwrap().error("leaving", what);
            churn::churn_clients(
                &session,
                &stayer.away_panes,
                usize::MAX,
                || stop.load(Ordering::SeqCst),
                leaving,
            );
        });
        let working: Vec<_> = callers
            .iter()
            .map(|caller| {
                let (next, tally) = (&next, &tally);
                scope.spawn(move || loop {
                    let n = next.fetch_add(1, Ordering::SeqCst);
                    if n >= total {
                        break;
                    }
                    caller.call(n, tally);
                })
            })
            .collect();
        for caller in working {
            caller.join().expect("a caller");
        }
        stop.store(true, Ordering::SeqCst);
    });
    let took = started.elapsed().as_secs_f64();
    let mut tally = tally.into_inner().unwrap();
    tally.check_tokens(&tokens_file);
    tally.check_messages(&inbox);
    let handovers = holders.into_inner().saturating_sub(1);
    println!(
        "{total} calls in {took:.0} s ({:.0} calls/s); the lease moved {handovers} times",
        total as f64 / took
    );
    if !tally.report() {
        std::process::exit(1);
    }
}

fn new_pane(mcp: &Mcp, command: Value) -> String {
    let opened = mcp.ok(
        "zellij_new_pane",
        json!({"command": command, "placement": "tiled"}),
    );
    opened["pane_id"].as_str().expect("a pane").to_owned()
}

/// The tests' Ink app in a new pane, appending each submission to `out`.
fn composer(mcp: &Mcp, out: &Path) -> String {
    let app = workspace_root().join("bridge/tests/fixtures/ink-echo");
    assert!(
        app.join("node_modules/ink").is_dir(),
        "the Ink fixture is not installed: run `make test-deps`"
    );
    let command = format!("node {} {}", app.join("echo.mjs").display(), out.display());
    let pane = new_pane(mcp, json!(["sh", "-c", command]));
    wait_for("the Ink composer", Duration::from_secs(30), || {
        let read = mcp.ok("zellij_read", json!({"pane_id": pane}));
        read["text"].as_str()?.contains("READY ·").then_some(())
    });
    pane
}

struct Caller {
    k: usize,
    mcp: Mcp,
    bash: String,
    cat: String,
    ticker: String,
}

impl Caller {
    /// Call `n`, by its place in a round of [`ROUND`]: a submit and a
    /// message (each holds its pane a moment), writes ended by Enter,
    /// runs, waits, reads and pane lists.
    fn call(&self, n: usize, tally: &Mutex<Tally>) {
        let token = format!("tok-{}-{n:05}", self.k);
        let (tool, args) = match n % ROUND {
            0 => (
                "zellij_write",
                json!({"pane_id": self.cat, "text": token, "submit": true}),
            ),
            1 => {
                let text = format!("msg-{n:05}");
                (
                    "zellij_send_message",
                    json!({"to": "inbox", "text": text, "from": "churn", "wait_ms": 0}),
                )
            }
            2..=11 => (
                "zellij_write",
                json!({"pane_id": self.cat, "text": token, "keys": ["Enter"]}),
            ),
            12..=19 => (
                "zellij_run",
                json!({"pane_id": self.bash, "command": format!("echo run-{n}")}),
            ),
            20..=25 => (
                "zellij_wait_for",
                json!({"pane_id": self.ticker, "pattern": "tick-", "timeout_ms": 10000}),
            ),
            26..=32 => ("zellij_read", json!({"pane_id": self.ticker})),
            _ => ("zellij_list_panes", json!({})),
        };
        let result = self.mcp.call(tool, args);
        let mut tally = tally.lock().unwrap();
        tally.calls += 1;
        if result.is_error == Some(true) {
            return tally.error(tool, text_of(&result));
        }
        let answer = result.structured_content.unwrap_or_default();
        match tool {
            "zellij_write" => tally.tokens.push(token),
            "zellij_send_message" => tally.messages.push(format!("msg-{n:05}")),
            "zellij_run" if answer["exit_code"] != 0 || answer["output"] != format!("run-{n}") => {
                tally.wrong.push(format!("run {n}: {answer}"));
            }
            "zellij_wait_for" if answer["outcome"] != "matched" => {
                tally.wrong.push(format!("wait {n}: {answer}"));
            }
            _ => {}
        }
    }
}

#[derive(Default)]
struct Tally {
    calls: usize,
    /// Typed errors by code, with the first of each.
    errors: BTreeMap<String, (usize, String)>,
    wrong: Vec<String>,
    /// Tokens and messages answered ok, in the order answered.
    tokens: Vec<String>,
    messages: Vec<String>,
    missing: usize,
    twice: usize,
    merged: usize,
}

impl Tally {
    fn error(&mut self, tool: &str, text: String) {
        let code = text.split(':').next().unwrap_or_default();
        let entry = self.errors.entry(format!("{tool} {code}")).or_default();
        entry.0 += 1;
        if entry.1.is_empty() {
            entry.1 = text;
        }
    }

    /// Each token answered ok is on a line of its own, once.
    fn check_tokens(&mut self, file: &Path) {
        let lines = settled_lines(file, self.tokens.len());
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        for line in &lines {
            *seen.entry(line.as_str()).or_default() += 1;
        }
        self.missing += self
            .tokens
            .iter()
            .filter(|t| !seen.contains_key(t.as_str()))
            .count();
        self.twice += seen.values().filter(|&&count| count > 1).count();
        let whole = |line: &&String| self.tokens.contains(line);
        self.merged += lines.iter().filter(|line| !whole(line)).count();
    }

    /// Each message answered ok arrived once, whole.
    fn check_messages(&mut self, file: &Path) {
        let lines = settled_lines(file, self.messages.len());
        let texts: Vec<String> = lines
            .iter()
            .filter_map(|line| serde_json::from_str::<String>(line).ok())
            .map(|m| {
                m.split_once("] ")
                    .map_or(m.clone(), |(_, text)| text.to_owned())
            })
            .collect();
        for message in &self.messages {
            match texts.iter().filter(|t| *t == message).count() {
                0 => self.missing += 1,
                1 => {}
                _ => self.twice += 1,
            }
        }
        self.merged += texts.iter().filter(|t| !self.messages.contains(t)).count();
    }

    /// Prints the counts; whether all are 0.
    fn report(&self) -> bool {
        println!("| effects | count |\n|---|--:|");
        println!("| calls answered | {} |", self.calls);
        for (what, count) in [
            ("missing", self.missing),
            ("twice", self.twice),
            ("merged", self.merged),
            ("wrong", self.wrong.len()),
        ] {
            println!("| {what} | {count} |");
        }
        let errors: usize = self.errors.values().map(|(count, _)| count).sum();
        println!("| typed errors | {errors} |");
        for (code, (count, first)) in &self.errors {
            println!("| · {code} | {count} (first: {first}) |");
        }
        for wrong in self.wrong.iter().take(5) {
            println!("wrong: {wrong}");
        }
        self.missing + self.twice + self.merged + self.wrong.len() + errors == 0
    }
}

/// The lines of `file` once it has `count` or stops growing for 10 s.
fn settled_lines(file: &Path, count: usize) -> Vec<String> {
    let read = || -> Vec<String> {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        text.lines().map(str::to_owned).collect()
    };
    let (mut last, mut since) = (read(), Instant::now());
    while last.len() < count && since.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(200));
        let now = read();
        if now.len() != last.len() {
            since = Instant::now();
        }
        last = now;
    }
    last
}
