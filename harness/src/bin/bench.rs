//! `make bench`: round-trip latency of `zellij_read` through MCP, per
//! transport, beside `zellij action dump-screen` in the same session; full
//! reads of a pane with a full scrollback (10,000 rows of long lines) beside
//! `zellij action dump-screen --full`; then how fast `zellij_wait_for`
//! notices a line appearing in a pane, with a client attached (render
//! events) and without one (periodic re-check).
//!
//! Usage: bench [PATH-TO-zellij-mcp] [ROUNDS]

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;
use zellij_mcp_harness::{program_setup, Mcp, Session};

fn main() {
    let (bridge, rounds, session) = program_setup("bench", 200);

    println!("{rounds} rounds each, idle session, one shell pane (p50 / p90 / max, ms)");
    for transport in ["socket", "cli"] {
        let mcp = Mcp::start(&bridge, session.sandbox(), &["--transport", transport]);
        let read = json!({"pane_id": "terminal_0"});
        mcp.ok("zellij_read", read.clone()); // connect and warm up
        let samples = measure(rounds, || {
            mcp.ok("zellij_read", read.clone());
        });
        report(
            &format!("zellij_read via MCP, {transport} transport"),
            samples,
        );
    }
    let samples = measure(rounds.min(100), || {
        dump_screen(&session, "terminal_0", false);
    });
    report("zellij action dump-screen --pane-id", samples);

    big_pane_reads(&session, &bridge, rounds.min(30));

    let waits = rounds.min(30);
    println!("\nzellij_wait_for: from a line written to the pane's program to the reply ({waits} rounds)");
    report(
        "headless (no client attached)",
        wait_latency(&session, &bridge, waits, "a"),
    );
    let _client = session.attach_client();
    std::thread::sleep(Duration::from_secs(2));
    report(
        "with a client attached",
        wait_latency(&session, &bridge, waits, "b"),
    );
}

/// Full reads of a pane whose scrollback is full of 156-character lines,
/// through MCP and with `dump-screen --full`, and the ratio of their p50s.
fn big_pane_reads(session: &Session, bridge: &Path, rounds: usize) {
    let mcp = Mcp::start(bridge, session.sandbox(), &[]);
    let fill = "awk 'BEGIN { for (i = 0; i < 12000; i++) printf \"%05d %0150d\\n\", i, 0 }'; exec sleep 3600";
    let started = mcp.ok(
        "zellij_run",
        json!({"command": ["sh", "-c", fill], "wait": false, "placement": "tiled"}),
    );
    let pane = started["pane_id"].as_str().expect("pane id").to_owned();
    let full = json!({"pane_id": pane, "full": true, "max_bytes": 4194304});
    let deadline = Instant::now() + Duration::from_secs(60);
    let bytes = loop {
        let read = mcp.ok("zellij_read", full.clone());
        let text = read["text"].as_str().unwrap_or_default();
        if text.contains("11999 ") || Instant::now() > deadline {
            break text.len();
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    println!("\nfull reads of a pane with a full scrollback ({bytes} bytes, {rounds} rounds)");
    let mut p50s = Vec::new();
    for transport in ["socket", "cli"] {
        let mcp = Mcp::start(bridge, session.sandbox(), &["--transport", transport]);
        mcp.ok("zellij_read", full.clone());
        let samples = measure(rounds, || {
            mcp.ok("zellij_read", full.clone());
        });
        p50s.push(report(
            &format!("zellij_read full, {transport} transport"),
            samples,
        ));
    }
    let samples = measure(rounds, || {
        assert!(dump_screen(session, &pane, true).len() > 1_000_000);
    });
    let dump = report("zellij action dump-screen --full --pane-id", samples);
    for (transport, p50) in ["socket", "cli"].iter().zip(p50s) {
        println!(
            "  full read p50 / dump-screen --full p50, {transport}: {:.2}",
            p50 / dump
        );
    }
    let info = mcp.ok("zellij_session_info", json!({}));
    println!(
        "  plugin heap after the full reads: {} bytes",
        info["plugin_memory"]["heap_bytes"]
    );
}

/// `zellij action dump-screen` of a pane (`--full`: with its scrollback).
fn dump_screen(session: &Session, pane: &str, full: bool) -> Vec<u8> {
    let mut cmd = session.sandbox().zellij();
    cmd.args([
        "--session",
        session.name(),
        "action",
        "dump-screen",
        "--pane-id",
        pane,
    ]);
    if full {
        cmd.arg("--full");
    }
    let out = cmd.output().expect("dump-screen");
    assert!(out.status.success());
    out.stdout
}

/// A pane runs `cat` on a FIFO; each round starts a wait for the next mark,
/// writes the mark into the FIFO, and times until the wait answers.
fn wait_latency(session: &Session, bridge: &Path, rounds: usize, tag: &str) -> Vec<Duration> {
    let mcp = Mcp::start(bridge, session.sandbox(), &[]);
    let fifo = session.sandbox().work().join(format!("marks-{tag}.fifo"));
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let script = format!("while :; do cat {}; done", fifo.display());
    let started = mcp.ok(
        "zellij_run",
        json!({"command": ["sh", "-c", script], "wait": false, "placement": "tiled"}),
    );
    let pane = started["pane_id"].clone();
    (0..rounds)
        .map(|n| {
            std::thread::scope(|scope| {
                let waiter = scope.spawn(|| {
                    let args = json!({"pane_id": pane, "pattern": format!("^mark-{n}$"), "timeout_ms": 10000});
                    let found = mcp.ok("zellij_wait_for", args);
                    assert_eq!(found["outcome"], "matched", "{found}");
                    Instant::now()
                });
                std::thread::sleep(Duration::from_millis(300));
                let mut writer = std::fs::OpenOptions::new().write(true).open(&fifo).expect("fifo");
                let written = Instant::now();
                writeln!(writer, "mark-{n}").expect("write mark");
                drop(writer);
                waiter.join().expect("waiter") - written
            })
        })
        .collect()
}

fn measure(rounds: usize, mut op: impl FnMut()) -> Vec<Duration> {
    (0..rounds)
        .map(|_| {
            let start = Instant::now();
            op();
            start.elapsed()
        })
        .collect()
}

/// Prints p50 / p90 / max in ms; returns the p50.
fn report(label: &str, mut samples: Vec<Duration>) -> f64 {
    samples.sort();
    let at =
        |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1000.0;
    println!(
        "{label:<44} {:>7.2} / {:>7.2} / {:>7.2}",
        at(0.5),
        at(0.9),
        at(1.0)
    );
    at(0.5)
}
