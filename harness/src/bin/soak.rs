//! `make soak`: one bridge and one real session with a client attached take
//! many mixed calls (reads of a full, busy scrollback at the largest cap,
//! cursor reads, waits, writes, runs, lists) from 8 callers at once. Prints
//! calls per second, errors by kind, the plugin's own report of its memory
//! and the Zellij server's RSS at the start and after every 10,000 calls.
//!
//! Usage: soak [PATH-TO-zellij-mcp] [CALLS]

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use zellij_mcp_harness::{program_setup, text_of, wait_for, Mcp, Session};

const CALLERS: usize = 8;
const ROUND: usize = 10_000;

fn main() {
    let (bridge, total, session) = program_setup("soak", 100_000);
    let _client = session.attach_client();
    wait_for("the client to attach", Duration::from_secs(60), || {
        session.client_focus().contains("terminal_").then_some(())
    });
    let mcp = Mcp::start(&bridge, session.sandbox(), &[]);
    let panes = Panes::open(&mcp);
    let server_pid = server_pid(&session);

    println!("soak: {total} calls from {CALLERS} callers, a client attached");
    println!(
        "{:>8} {:>9} {:>10} {:>12} {:>8} {:>14}",
        "calls", "calls/s", "heap", "kept replies", "in use", "server RSS"
    );
    report_memory(&mcp, 0, None, server_pid);
    let mut errors: BTreeMap<String, usize> = BTreeMap::new();
    let mut wait_timeouts = 0;
    let started = Instant::now();
    let mut done = 0;
    while done < total {
        let calls: Vec<(String, Value)> = (done..(done + ROUND).min(total))
            .map(|n| panes.call(n))
            .collect();
        let count = calls.len();
        let round = Instant::now();
        for result in mcp.call_in_parallel(calls, CALLERS) {
            match result {
                Ok(result) if result.is_error == Some(true) => {
                    let text = text_of(&result);
                    let code = text.split(':').next().unwrap_or_default().to_owned();
                    *errors.entry(code).or_default() += 1;
                }
                Ok(result) => {
                    let outcome = result
                        .structured_content
                        .as_ref()
                        .and_then(|v| v.get("outcome").cloned());
                    wait_timeouts += usize::from(outcome == Some(json!("timeout")));
                }
                Err(e) => *errors.entry(format!("protocol: {e}")).or_default() += 1,
            }
        }
        done += count;
        let rate = count as f64 / round.elapsed().as_secs_f64();
        report_memory(&mcp, done, Some(rate), server_pid);
    }
    let rate = done as f64 / started.elapsed().as_secs_f64();
    println!(
        "\n{done} calls in {:.0} s: {rate:.0} calls/s",
        started.elapsed().as_secs_f64()
    );
    println!("waits that timed out (the pane prints every 100 ms): {wait_timeouts}");
    if errors.is_empty() {
        println!("errors: none");
    }
    for (kind, count) in &errors {
        println!("errors: {count} {kind}");
    }
    if !errors.is_empty() {
        std::process::exit(1);
    }
}

/// The panes the calls act on.
struct Panes {
    shell: Value,
    /// Full scrollback of long lines, printing ten `tick` lines a second.
    busy: Value,
    /// Reads what is typed into it.
    cat: Value,
    /// A cursor in the busy pane from before the soak.
    cursor: Value,
}

impl Panes {
    fn open(mcp: &Mcp) -> Panes {
        let listed = mcp.ok("zellij_list_panes", json!({}));
        let shell = listed["panes"][0]["pane_id"].clone();
        let fill = "awk 'BEGIN { for (i = 0; i < 12000; i++) printf \"%05d %0150d\\n\", i, 0 }'";
        let script =
            format!("{fill}; i=0; while :; do i=$((i+1)); echo \"tick $i $(printf '%0140d' 0)\"; sleep 0.1; done");
        let open = |command: Value| {
            let args = json!({"command": command, "placement": "tiled"});
            mcp.ok("zellij_new_pane", args)["pane_id"].clone()
        };
        let busy = open(json!(["sh", "-c", script]));
        let cat = open(json!(["cat"]));
        wait_for("the busy pane to fill", Duration::from_secs(60), || {
            let read = mcp.ok(
                "zellij_read",
                json!({"pane_id": busy, "full": true, "tail_lines": 3}),
            );
            read["text"]
                .as_str()
                .unwrap_or_default()
                .contains("tick")
                .then_some(())
        });
        let cursor = mcp.ok(
            "zellij_read",
            json!({"pane_id": busy, "full": true, "tail_lines": 1}),
        )["cursor"]
            .clone();
        Panes {
            shell,
            busy,
            cat,
            cursor,
        }
    }

    /// The `n`th call of the mix.
    fn call(&self, n: usize) -> (String, Value) {
        let (tool, args) = match n % 100 {
            0..=29 => ("zellij_read", json!({"pane_id": self.shell})),
            30..=49 => ("zellij_read", json!({"pane_id": self.busy})),
            50..=54 => (
                "zellij_read",
                json!({"pane_id": self.busy, "full": true, "max_bytes": 4194304}),
            ),
            55..=59 => (
                "zellij_read",
                json!({"pane_id": self.busy, "since": self.cursor, "max_bytes": 65536}),
            ),
            60..=69 => (
                "zellij_write",
                json!({"pane_id": self.cat, "text": format!("line {n}"), "keys": ["Enter"]}),
            ),
            70..=74 => (
                "zellij_wait_for",
                json!({"pane_id": self.busy, "pattern": "^tick", "timeout_ms": 5000}),
            ),
            75..=89 => ("zellij_list_panes", json!({})),
            90..=96 => ("zellij_list_tabs", json!({})),
            97 => ("zellij_session_info", json!({})),
            _ => (
                "zellij_run",
                json!({"command": ["true"], "close_on_exit": true}),
            ),
        };
        (tool.to_owned(), args)
    }
}

/// The session's Zellij server, from the plugin's hello.
fn server_pid(session: &Session) -> Option<u32> {
    let out = session.pipe(None, r#"{"v":1,"id":"pid","op":"hello","args":{}}"#)?;
    let reply: Value = serde_json::from_slice(out.stdout.split(|b| *b == b'\n').next()?).ok()?;
    reply["result"]["zellij_pid"].as_u64().map(|pid| pid as u32)
}

fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn report_memory(mcp: &Mcp, calls: usize, rate: Option<f64>, server_pid: Option<u32>) {
    let info = mcp.ok("zellij_session_info", json!({}));
    let memory = &info["plugin_memory"];
    let rate = rate.map_or("-".to_owned(), |r| format!("{r:.0}"));
    let rss = server_pid.and_then(rss_kib).map_or("?".to_owned(), |kib| {
        format!("{:.1} MiB", kib as f64 / 1024.0)
    });
    println!(
        "{calls:>8} {rate:>9} {:>10} {:>12} {:>8} {rss:>14}",
        format!(
            "{:.2} MiB",
            memory["heap_bytes"].as_f64().unwrap_or(0.0) / 1048576.0
        ),
        format!(
            "{} / {} B",
            memory["kept_replies"], memory["kept_reply_bytes"]
        ),
        memory["in_flight"],
    );
}
