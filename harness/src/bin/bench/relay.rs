//! The pty relay (`zellij-mcp relay`): a read of a relayed pane against
//! one of the same program not relayed and against `dump-screen`; what the
//! relay adds to a keystroke's round trip (outside Zellij, on a pty of the
//! bench's own); output through a pane relayed and not; the relay's
//! memory after a flood.

use std::io::{Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize};
use serde_json::json;
use zellij_mcp_harness::{relay_peak_kib, wait_for, Mcp, Session};

use crate::table::{measure, Table};

pub fn relay(table: &mut Table, session: &Session, bridge: &Path, rounds: usize) {
    table.section("the pty relay (zellij-mcp relay)");
    let mcp = Mcp::start(bridge, session.sandbox(), &[]);
    reads(table, session, &mcp, rounds);
    keystrokes(table, bridge, rounds.max(200));
    throughput(table, &mcp);
    memory(table, &mcp);
}

/// `argv` under the relay (the bridge by its whole path: panes start in
/// folders of their own).
fn relayed(bridge: &Path, argv: &[&str]) -> Vec<String> {
    let bridge = bridge.canonicalize().expect("the bridge");
    let relay = [bridge.display().to_string(), "relay".into(), "--".into()];
    relay
        .into_iter()
        .chain(argv.iter().map(|a| a.to_string()))
        .collect()
}

fn words(argv: &[&str]) -> Vec<String> {
    argv.iter().map(|a| a.to_string()).collect()
}

/// A tiled pane running `command` (under the relay, or not), once its
/// screen shows `shown`.
fn pane_showing(mcp: &Mcp, command: &[&str], relay: bool, shown: &str) -> String {
    let args = json!({"command": command, "placement": "tiled", "relay": relay});
    let pane = mcp.ok("zellij_new_pane", args)["pane_id"]
        .as_str()
        .expect("a pane id")
        .to_owned();
    wait_for(
        &format!("{shown} in {pane}"),
        Duration::from_secs(30),
        || {
            let read = mcp.ok("zellij_read", json!({"pane_id": pane}));
            read["text"].as_str()?.contains(shown).then_some(())
        },
    );
    pane
}

fn reads(table: &mut Table, session: &Session, mcp: &Mcp, rounds: usize) {
    let program = ["sh", "-c", "seq 1 30; echo shown; exec sleep 100000"];
    let plain = pane_showing(mcp, &program, false, "shown");
    let through = pane_showing(mcp, &program, true, "shown");
    let read = |pane: &str| {
        let args = json!({"pane_id": pane});
        measure(rounds, || {
            mcp.ok("zellij_read", args.clone());
        })
    };
    let relayed_p50 = table
        .timed("zellij_read of a relayed pane's screen", read(&through), "")
        .p50;
    let plain_p50 = table
        .timed(
            "zellij_read of the same program's pane, not relayed",
            read(&plain),
            "",
        )
        .p50;
    let dumps = measure(rounds.min(50), || {
        session.dump_screen(&through, false);
    });
    let dump_p50 = table
        .timed("`zellij action dump-screen` of the relayed pane", dumps, "")
        .p50;
    table.note(&format!(
        "relayed read {:.1}× faster than dump-screen (target ≥ 20×), {:.2}× the read not relayed",
        dump_p50 / relayed_p50,
        relayed_p50 / plain_p50
    ));
}

/// One byte's round trip through a program that echoes what it reads
/// (raw mode, `cat`), on a pty of the bench's own: the program alone, and
/// under the relay.
fn keystrokes(table: &mut Table, bridge: &Path, rounds: usize) {
    let echo = ["sh", "-c", "stty raw -echo; echo ready; exec cat"];
    let alone = round_trips(words(&echo), rounds);
    let through = round_trips(relayed(bridge, &echo), rounds);
    let alone = table.timed("a keystroke's round trip, the program alone", alone, "");
    let through = table.timed("a keystroke's round trip under the relay", through, "");
    table.note(&format!(
        "the relay adds {:.3} ms p50, {:.3} ms p99 (target ≤ 0.2 ms p99)",
        through.p50 - alone.p50,
        through.p99 - alone.p99
    ));
}

fn round_trips(argv: Vec<String>, rounds: usize) -> Vec<Duration> {
    let size = PtySize {
        rows: 24,
        cols: 80,
        pixel_width: 0,
        pixel_height: 0,
    };
    let pty = portable_pty::native_pty_system()
        .openpty(size)
        .expect("openpty");
    let mut command = CommandBuilder::new(&argv[0]);
    command.args(&argv[1..]);
    let mut child = pty.slave.spawn_command(command).expect("spawn");
    drop(pty.slave);
    let mut reader = pty.master.try_clone_reader().expect("reader");
    let mut writer = pty.master.take_writer().expect("writer");
    let mut seen = Vec::new();
    let mut byte = [0u8; 1];
    while !String::from_utf8_lossy(&seen).contains("ready") {
        let n = reader.read(&mut byte).expect("read");
        seen.extend_from_slice(&byte[..n]);
    }
    // Whatever followed "ready" (its line's end) is read before timing.
    std::thread::sleep(Duration::from_millis(200));
    let times = (0..rounds)
        .map(|n| {
            let sent = b'a' + (n % 26) as u8;
            let start = Instant::now();
            writer.write_all(&[sent]).expect("write");
            loop {
                reader.read_exact(&mut byte).expect("read");
                if byte[0] == sent {
                    return start.elapsed();
                }
            }
        })
        .collect();
    let _ = child.kill();
    times
}

/// 20 MB of lines through a pane (`zellij_run` until the program ends),
/// relayed and not, alternately.
fn throughput(table: &mut Table, mcp: &Mcp) {
    let flood = [
        "sh",
        "-c",
        "head -c 20000000 /dev/zero | tr '\\0' x | fold -w 100",
    ];
    let run = |relay: bool| {
        let start = Instant::now();
        let args =
            json!({"command": flood, "timeout_ms": 300000, "max_bytes": 1000, "relay": relay});
        let ran = mcp.ok("zellij_run", args);
        assert_eq!(ran["exit_code"], 0, "{ran}");
        start.elapsed()
    };
    let (mut plain, mut through) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        plain.push(run(false));
        through.push(run(true));
    }
    let plain = table.timed("20 MB of lines through a pane, not relayed", plain, "");
    let through = table.timed("20 MB of lines through a relayed pane", through, "");
    table.note(&format!(
        "relayed throughput {:.0}% of the pane's not relayed (target ≥ 90%)",
        100.0 * plain.p50 / through.p50
    ));
}

/// The relay's peak memory after about 50 MB went through it, as Linux
/// tells it.
fn memory(table: &mut Table, mcp: &Mcp) {
    let mark = format!("bench-flood-{}", std::process::id());
    let script = format!(
        "head -c 37500000 /dev/zero | tr '\\0' x | fold -w 75 | base64 -w 100; echo {mark}; exec sleep 100000"
    );
    pane_showing(mcp, &["sh", "-c", &script], true, &mark);
    let peak = relay_peak_kib(&mark);
    let figure = peak.map_or("unknown".into(), |kib| {
        format!("{:.1} MB", kib as f64 * 1024.0 / 1e6)
    });
    table.figure(
        "the relay's peak memory after 50 MB of output",
        &figure,
        "target ≤ 8 MB",
    );
}
