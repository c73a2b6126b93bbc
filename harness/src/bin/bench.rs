//! `make bench`: round-trip latency of `zellij_read` through MCP, per
//! transport, beside `zellij action dump-screen` in the same session.
//!
//! Usage: bench [PATH-TO-zellij-mcp] [ROUNDS]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::json;
use zellij_mcp_harness::{repo_layout, workspace_root, Mcp, Sandbox};

fn main() {
    let mut args = std::env::args().skip(1);
    let bridge = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target/release/zellij-mcp"));
    let rounds: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(200);
    let session = Sandbox::new().start_session(
        &format!("zellij-mcp-bench-{}", std::process::id()),
        &repo_layout(),
        true,
    );

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
        let mut cmd = session.sandbox().zellij();
        cmd.args([
            "--session",
            session.name(),
            "action",
            "dump-screen",
            "--pane-id",
            "terminal_0",
        ]);
        let out = cmd.output().expect("dump-screen");
        assert!(out.status.success());
    });
    report("zellij action dump-screen --pane-id", samples);
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

fn report(label: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let at =
        |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1000.0;
    println!(
        "{label:<44} {:>7.2} / {:>7.2} / {:>7.2}",
        at(0.5),
        at(0.9),
        at(1.0)
    );
}
