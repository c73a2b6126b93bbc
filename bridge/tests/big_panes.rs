//! Big, busy panes must not kill the plugin: a pane whose scrollback is
//! full (10,000 rows of long lines) and that keeps printing, read in full
//! again and again, read with cursors while it prints, and waited on, with a
//! real client attached. The plugin's own report of its memory must stay
//! under half of Zellij's 16 MiB limit.

mod common;

use std::time::{Duration, Instant};

use common::*;
use serde_json::json;
use zellij_mcp_harness::{wait_for, Mcp, Session};

/// Lines of 156 characters: `NNNNN ` and 150 more.
const FILL: &str = "awk 'BEGIN { for (i = 0; i < 12000; i++) printf \"%05d %0150d\\n\", i, 0 }'";

/// A pane that fills its scrollback, then prints `tick N` ten times a second.
fn busy_pane(mcp: &Mcp) -> String {
    let script = format!(
        "{FILL}; echo filled; i=0; while :; do i=$((i+1)); echo \"tick $i $(printf '%0140d' 0)\"; sleep 0.1; done"
    );
    let pane = mcp.ok(
        "zellij_new_pane",
        // Not relayed: these tests are of what Zellij keeps and renders.
        json!({"command": ["sh", "-c", script], "placement": "tiled", "name": "busy", "relay": false}),
    );
    let pane = pane["pane_id"].as_str().unwrap().to_owned();
    wait_for("the scrollback to fill", Duration::from_secs(60), || {
        let tail = mcp.ok(
            "zellij_read",
            json!({"pane_id": pane, "full": true, "max_bytes": 65536}),
        );
        tail["text"]
            .as_str()
            .unwrap()
            .contains("tick ")
            .then_some(())
    });
    pane
}

fn heap_bytes(mcp: &Mcp) -> u64 {
    let info = mcp.ok("zellij_session_info", json!({}));
    let memory = &info["plugin_memory"];
    assert_eq!(memory["heap_limit_bytes"], 16 * 1024 * 1024, "{info}");
    memory["heap_bytes"].as_u64().unwrap()
}

fn assert_heap_under_half(mcp: &Mcp, after: &str) {
    let heap = heap_bytes(mcp);
    assert!(
        heap < 8 * 1024 * 1024,
        "the plugin's heap is {heap} bytes after {after}"
    );
}

fn attached_session(name: &str) -> (Session, zellij_mcp_harness::AttachedClient) {
    let s = session(name);
    let (client, _) = s.attach_and_wait();
    (s, client)
}

#[test]
fn a_full_scrollback_is_read_a_hundred_times_at_the_largest_cap() {
    let (s, _client) = attached_session("bigread");
    let mcp = mcp(&s, "socket");
    let pane = busy_pane(&mcp);
    let started_heap = heap_bytes(&mcp);
    let mut sizes = Vec::new();
    for n in 0..100 {
        let read = mcp.ok(
            "zellij_read",
            json!({"pane_id": pane, "full": true, "max_bytes": 4194304}),
        );
        let text = read["text"].as_str().unwrap();
        assert!(
            read["lines"].as_u64().unwrap() >= 9_000,
            "read {n}: {} lines",
            read["lines"]
        );
        sizes.push(text.len());
    }
    assert!(sizes.iter().all(|&n| n > 1_000_000), "{sizes:?}");
    assert_heap_under_half(&mcp, "100 full reads");
    eprintln!(
        "plugin heap: {started_heap} bytes before, {} after 100 full reads of ~{} bytes",
        heap_bytes(&mcp),
        sizes[0]
    );

    // Cursor reads while the pane prints: each returns only what is new.
    let mut cursor =
        mcp.ok("zellij_read", json!({"pane_id": pane, "full": true}))["cursor"].clone();
    let mut last_tick = 0u64;
    for n in 0..100 {
        let read = mcp.ok("zellij_read", json!({"pane_id": pane, "since": cursor}));
        assert_eq!(read["cursor_reset"], false, "read {n}: {read}");
        let text = read["text"].as_str().unwrap();
        assert!(
            text.len() < 64 * 1024,
            "read {n} returned {} bytes",
            text.len()
        );
        for tick in ticks(text) {
            assert!(tick >= last_tick, "read {n}: tick {tick} after {last_tick}");
            last_tick = tick;
        }
        cursor = read["cursor"].clone();
    }
    assert!(last_tick > 0, "the cursor reads saw the pane print");
    assert_heap_under_half(&mcp, "100 cursor reads");
}

/// The tick numbers in `text`.
fn ticks(text: &str) -> Vec<u64> {
    text.lines()
        .filter_map(|l| l.strip_prefix("tick "))
        .filter_map(|l| l.split_whitespace().next()?.parse().ok())
        .collect()
}

fn median_read_ms(mcp: &Mcp, pane: &str, rounds: usize) -> f64 {
    let mut times: Vec<f64> = (0..rounds)
        .map(|_| {
            let start = Instant::now();
            mcp.ok("zellij_read", json!({"pane_id": pane}));
            start.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[rounds / 2]
}

#[test]
fn waits_on_a_busy_pane_run_to_their_end_and_other_reads_stay_fast() {
    let (s, _client) = attached_session("bigwait");
    let mcp = mcp(&s, "socket");
    let shell = shell_pane(&mcp);
    let pane = busy_pane(&mcp);
    let idle_ms = median_read_ms(&mcp, &shell, 30);

    let (waited, busy_ms) = std::thread::scope(|scope| {
        let waiter = scope.spawn(|| {
            mcp.ok(
                "zellij_wait_for",
                json!({"pane_id": pane, "pattern": "never-printed", "timeout_ms": 6000}),
            )
        });
        until_waiting(&mcp, 1);
        let busy_ms = median_read_ms(&mcp, &shell, 30);
        (waiter.join().unwrap(), busy_ms)
    });
    assert_eq!(waited["outcome"], "timeout", "{waited}");
    assert!(waited["elapsed_ms"].as_u64().unwrap() >= 6000, "{waited}");
    eprintln!("reads of another pane: {idle_ms:.2} ms idle, {busy_ms:.2} ms during the wait");
    // A floor keeps sub-millisecond noise from failing the ratio.
    assert!(
        busy_ms <= 3.0 * idle_ms.max(1.0),
        "reads slowed from {idle_ms:.2} to {busy_ms:.2} ms during the wait"
    );

    let now = ticks(&screen(&mcp, &pane)).into_iter().max().unwrap();
    let target = format!("tick {} ", now + 15);
    let matched = mcp.ok(
        "zellij_wait_for",
        json!({"pane_id": pane, "pattern": target, "literal": true, "timeout_ms": 20000}),
    );
    assert_eq!(matched["outcome"], "matched", "{matched}");
    assert!(matched["line"].as_str().unwrap().starts_with(&target));
    assert_heap_under_half(&mcp, "waits on a busy pane");
}

#[test]
fn output_that_scrolls_by_between_two_looks_is_still_found() {
    let (s, _client) = attached_session("bigscroll");
    let mcp = mcp(&s, "socket");
    // Each burst is more than a screen (so the plugin loses track) and less
    // than Zellij's 10,000-row scrollback (so the rows are still there).
    // Each burst starts once the wait is under way (a file made then).
    let work = s.sandbox().work();
    std::fs::create_dir_all(&work).unwrap();
    let burst = |go: &std::path::Path| {
        let script = format!(
            "while [ ! -e '{}' ]; do sleep 0.05; done; seq 1 3000; echo MARK-$((3+4)); seq 1 3000; echo STOP-$((1+1)); seq 1 3000; exec sleep 600",
            go.display()
        );
        mcp.ok(
            "zellij_new_pane",
            json!({"command": ["sh", "-c", script], "placement": "tiled", "relay": false}),
        )["pane_id"]
            .clone()
    };
    let wait_then_go = |args: serde_json::Value, go: &std::path::Path| {
        std::thread::scope(|scope| {
            scope.spawn(|| {
                until_waiting(&mcp, 1);
                std::fs::write(go, "").unwrap();
            });
            mcp.ok("zellij_wait_for", args)
        })
    };
    let go = work.join("go-1");
    let pane = burst(&go);
    let matched = wait_then_go(
        json!({"pane_id": pane, "pattern": r"MARK-\d", "timeout_ms": 30000}),
        &go,
    );
    assert_eq!(
        (matched["outcome"].clone(), matched["line"].clone()),
        (json!("matched"), json!("MARK-7")),
        "{matched}"
    );

    // The same burst again: a stop pattern that scrolled by wins.
    let go = work.join("go-2");
    let again = burst(&go);
    let stopped = wait_then_go(
        json!({"pane_id": again, "pattern": "never-printed", "stop": ["STOP-2"], "timeout_ms": 30000}),
        &go,
    );
    assert_eq!(stopped["outcome"], "stopped", "{stopped}");

    // A run's output is the tail of its scrollback, whatever its size.
    let ran = mcp.ok(
        "zellij_run",
        json!({"command": ["sh", "-c", "seq 1 30000; echo done-$((6*7))"], "max_bytes": 100}),
    );
    let output = ran["output"].as_str().unwrap();
    assert!(output.ends_with("done-42"), "{ran}");
    assert_eq!(ran["truncated"], true);
    assert_heap_under_half(&mcp, "waits and runs on fast output");
}

#[test]
fn last_lines_beyond_the_screen_come_from_the_scrollback() {
    let s = session("lastlines");
    let mcp = mcp(&s, "socket");
    let pane = mcp.ok(
        "zellij_new_pane",
        json!({"command": ["sh", "-c", "sleep 1; seq 1 500; echo end-$((2*5)); exec sleep 600"], "placement": "tiled"}),
    )["pane_id"]
        .clone();
    let waited = mcp.ok(
        "zellij_wait_for",
        json!({"pane_id": pane, "pattern": r"end-\d+", "last_lines": 300, "timeout_ms": 20000}),
    );
    let lines: Vec<&str> = waited["last_lines"].as_str().unwrap().lines().collect();
    assert_eq!(lines.len(), 300, "{waited}");
    assert_eq!(lines.last(), Some(&"end-10"));
    assert_eq!(lines[0], "202");
}

/// The number in the last `line N` of a screen.
fn last_line_number(screen: &str) -> Option<u64> {
    screen
        .lines()
        .rev()
        .find_map(|l| l.trim().strip_prefix("line ")?.parse().ok())
}

#[test]
fn a_pane_the_user_scrolled_up_keeps_its_view_and_a_wait_on_it_ends_cleanly() {
    let (s, mut client) = attached_session("scrolled");
    let mcp = mcp(&s, "socket");
    // The layout's shell is the pane the client has focused.
    let pane = shell_pane(&mcp);
    type_line(
        &mcp,
        &pane,
        "i=0; while :; do i=$((i+1)); echo \"line $i\"; sleep 0.1; done",
    );
    wait_for(
        "the client to focus the pane",
        Duration::from_secs(20),
        || {
            let focus = s.client_focus();
            focus.split_whitespace().any(|w| w == pane).then_some(())
        },
    );
    wait_for("60 lines printed", Duration::from_secs(30), || {
        (last_line_number(&screen(&mcp, &pane))? >= 60).then_some(())
    });

    // The user enters scroll mode (Ctrl-s) and pages up until the view moves.
    client.type_keys(b"\x13");
    let latest = last_line_number(&screen(&mcp, &pane)).unwrap();
    let held = wait_for("the view to scroll up", Duration::from_secs(20), || {
        client.type_keys(b"\x1b[5~");
        let view = screen(&mcp, &pane);
        (last_line_number(&view)? + 20 < latest).then_some(view)
    });

    // Zellij holds the pane's output while it is scrolled: a wait for a
    // line printed since times out (it is not a lost reply), and neither
    // the wait nor the reads moved the user's view.
    let later = format!("line {}", latest + 30);
    let waited = mcp.ok(
        "zellij_wait_for",
        json!({"pane_id": pane, "pattern": later, "timeout_ms": 2000}),
    );
    assert_eq!(waited["outcome"], "timeout", "{waited}");
    assert_eq!(
        screen(&mcp, &pane),
        held,
        "the user's view stayed where it was"
    );

    // Back at the bottom (Ctrl-c leaves scroll mode), the held output shows.
    client.type_keys(b"\x03");
    let matched = mcp.ok(
        "zellij_wait_for",
        json!({"pane_id": pane, "pattern": later, "timeout_ms": 20000}),
    );
    assert_eq!(matched["outcome"], "matched", "{matched}");
}
