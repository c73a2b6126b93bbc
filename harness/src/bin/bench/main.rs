//! `make bench`: zellij-mcp beside the ways an agent reaches Zellij without
//! it, measured in one run on one machine and printed as one Markdown table
//! (docs/benchmarks.md carries it). Every comparison is a ratio or a difference of
//! figures taken in this run.
//!
//! One isolated real session: the headless rows run before a client
//! attaches, the rest with a real client on a pseudo-terminal.
//!
//! Usage: bench [PATH-TO-zellij-mcp] [ROUNDS]

mod board;
mod channel;
mod hooks;
mod paths;
mod programs;
mod relay;
mod replies;
mod runs;
mod scale;
mod sdk;
mod table;
mod waits;

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use zellij_mcp_harness::{program_setup, wait_for, Mcp, Session};

use channel::Channel;
use paths::Paths;
use table::{measure, Table};
use waits::{dump_poll_latency, wait_latency, MarkPane};

/// Shell runs counted for exactness under load.
const EXACT_RUNS: usize = 2000;

fn main() {
    let (bridge, rounds, session) = program_setup("bench", 200);
    // The raw CLI channel's `zellij pipe` children find the session this way.
    for (key, value) in session.sandbox().env() {
        std::env::set_var(key, value);
    }
    // One part alone: `waits`, `scale` (panes and clients), `clients` (1, 4
    // and 2 clients alone), `io` (reads and writes of one pane), `runs`
    // (zellij_run),
    // `exact` (2,000 shell runs under load), `messages` (delivery into a
    // composer), `board` (5 and 50 agents), `programs` (the board's 50
    // agents, then 50 of four programs, messages into Codex CLI,
    // Gemini CLI, opencode and Qwen Code, asks, a big record), `replies` (the
    // messages and asks into those programs, and the big record), `hooks`
    // (turn ends told by hooks against screens, in view and scrolled up,
    // and a hook call's cost), `relay` (reads, keystrokes, throughput and
    // memory of the pty relay) or
    // `callers` (16 callers).
    if let Ok(part) = std::env::var("BENCH_ONLY") {
        let mut table = Table::default();
        match part.as_str() {
            "scale" => scale_rows(&mut table, &bridge, rounds),
            "board" => {
                board::agents(&mut table, &bridge, rounds);
            }
            "programs" => {
                let claude_50 = board::agents(&mut table, &bridge, rounds);
                programs::mixed_agents(&mut table, &bridge, rounds, claude_50);
                programs::deliveries(&mut table, &bridge, rounds);
                replies::big_record(&mut table, rounds.min(20));
            }
            "replies" => {
                programs::deliveries(&mut table, &bridge, rounds);
                replies::big_record(&mut table, rounds.min(20));
            }
            "hooks" => hooks::hooks(&mut table, &bridge, rounds),
            "relay" => {
                let (_client, _) = session.attach_and_wait();
                relay::relay(&mut table, &session, &bridge, rounds);
            }
            "clients" => scale::clients(&mut table, &bridge, rounds),
            "waits" => {
                let server = server_pid(&session);
                let headless = headless_waits(&mut table, &session, &bridge, rounds, server);
                let (_client, _) = session.attach_and_wait();
                attached_waits(&mut table, &session, &bridge, rounds, headless);
            }
            "runs" => {
                // As in the whole run: a client attached.
                let (_client, _) = session.attach_and_wait();
                runs::shell_runs(&mut table, &session, &bridge, rounds);
            }
            "exact" => runs::exact_runs(&mut table, &session, &bridge, EXACT_RUNS),
            "io" => {
                let (_client, _) = session.attach_and_wait();
                let paths = Paths::open(&session, &bridge);
                paths.reads(&mut table, &session, rounds);
                paths.writes(&mut table, &session, rounds);
            }
            "messages" => {
                let (_client, _) = session.attach_and_wait();
                deliveries(&mut table, &Paths::open(&session, &bridge), rounds);
            }
            _ => {
                let (_client, _) = session.attach_and_wait();
                let paths = Paths::open(&session, &bridge);
                concurrency(&mut table, &session, &bridge, &paths, rounds.max(2000));
            }
        }
        table.print();
        return;
    }
    let mut table = Table::default();
    let server = server_pid(&session);

    table.section("zellij_wait_for: from a line reaching the pane's program to the reply");
    let headless = headless_waits(&mut table, &session, &bridge, rounds, server);
    let (client, _) = session.attach_and_wait();
    attached_waits(&mut table, &session, &bridge, rounds, headless);

    let paths = Paths::open(&session, &bridge);
    table.section("zellij_read of a pane's screen, a client attached");
    paths.reads(&mut table, &session, rounds);
    after_clear(&mut table, &paths, rounds);
    table.section("zellij_read of a whole 10,000-row scrollback (1.6 MB)");
    full_reads(&mut table, &session, &paths, rounds.min(50));
    table.section("zellij_write of one character");
    paths.writes(&mut table, &session, rounds);
    table.section("many callers, submits, footprint");
    concurrency(&mut table, &session, &bridge, &paths, rounds.max(2000));
    submits(&mut table, &paths, rounds);
    deliveries(&mut table, &paths, rounds);
    runs::shell_runs(&mut table, &session, &bridge, rounds);
    // The exactness rows attach clients of their own, one and then four.
    drop(client);
    wait_for("the client to leave", Duration::from_secs(30), || {
        (!session.client_focus().contains("terminal_")).then_some(())
    });
    runs::exact_runs(&mut table, &session, &bridge, EXACT_RUNS);
    // Those rows' clients left; the rest run as the rows before them.
    let (_client, _) = session.attach_and_wait();
    footprint(&mut table, &session, &bridge, rounds);
    scale_rows(&mut table, &bridge, rounds);
    let claude_50 = board::agents(&mut table, &bridge, rounds);
    programs::mixed_agents(&mut table, &bridge, rounds, claude_50);
    programs::deliveries(&mut table, &bridge, rounds);
    replies::big_record(&mut table, rounds.min(20));
    hooks::hooks(&mut table, &bridge, rounds);
    relay::relay(&mut table, &session, &bridge, rounds);

    println!("{}", header(&session, rounds));
    table.print();
}

/// Sessions as users keep them: many panes, several clients.
fn scale_rows(table: &mut Table, bridge: &Path, rounds: usize) {
    table.section("sessions as users keep them: 10 to 100 panes, 1 and 4 clients");
    scale::pane_counts(table, bridge, rounds);
    scale::clients(table, bridge, rounds);
}

/// The headless row; its p50.
fn headless_waits(
    table: &mut Table,
    session: &Session,
    bridge: &Path,
    rounds: usize,
    server: Option<u32>,
) -> f64 {
    let mcp = Mcp::start(bridge, session.sandbox(), &[]);
    let headless = ("headless (no client attached)", "target p50 ≤ 25 ms");
    let (marks, p50) = wait_row(table, &mcp, session, rounds, "headless", false, headless);
    let Some(server) = server else { return p50 };
    // What the looks at a pane without render events cost the server
    // (the plugin runs in it): CPU with one wait on a quiet pane, and without.
    let idle = cpu_share(server, Duration::from_secs(5));
    let waiting = std::thread::scope(|scope| {
        let args = json!({"pane_id": marks.pane, "pattern": "^never$", "timeout_ms": 6000});
        let wait = scope.spawn(|| mcp.ok("zellij_wait_for", args));
        std::thread::sleep(Duration::from_millis(300));
        let share = cpu_share(server, Duration::from_secs(5));
        wait.join().expect("wait");
        share
    });
    table.note(&format!(
        "Zellij server CPU with one wait on a quiet pane: {:.1}% of a core ({:.1}% without; target ≤ 2% more)",
        waiting * 100.0,
        idle * 100.0
    ));
    p50
}

/// The attached rows, and how far the headless one (p50 `headless`) and
/// the unviewed one are from the viewed one.
fn attached_waits(
    table: &mut Table,
    session: &Session,
    bridge: &Path,
    rounds: usize,
    headless: f64,
) {
    let mcp = Mcp::start(bridge, session.sandbox(), &[]);
    let row = ("a client attached, viewing the pane", "target p50 ≤ 20 ms");
    let (viewed, viewed_p50) = wait_row(table, &mcp, session, rounds, "viewed", false, row);
    let row = (
        "a client attached, viewing the pane, under zellij-mcp's relay",
        "target p50 ≤ 2 ms",
    );
    let (_, relayed) = wait_row(table, &mcp, session, rounds, "relayed", false, row);
    let row = (
        "a client attached, the pane in a tab it does not view",
        "target p50 ≤ 25 ms",
    );
    let (_, unviewed) = wait_row(table, &mcp, session, rounds, "unviewed", true, row);
    table.note(&format!(
        "over the viewed p50: headless {:+.2} ms, this {:+.2} ms (target ≤ +1 ms)",
        headless - viewed_p50,
        unviewed - viewed_p50
    ));
    let polls = rounds.min(30);
    let samples = dump_poll_latency(session, &viewed, polls);
    let stats = table.timed(
        "peers: `dump-screen` once a second until the line shows",
        samples,
        "",
    );
    table.note(&format!(
        "{polls} rounds; p50 {:.0} ms; a relayed wait {:.1}× faster than this, {:.1}× than one not relayed (target ≥ 5× a poller's)",
        stats.p50,
        stats.p50 / relayed,
        viewed_p50 / relayed
    ));
}

/// One row of wait latencies on a marker pane named `name` (in a tab of
/// its own when `unviewed`), labelled and compared as `row` says; the pane
/// and the row's p50.
fn wait_row(
    table: &mut Table,
    mcp: &Mcp,
    session: &Session,
    rounds: usize,
    name: &str,
    unviewed: bool,
    (label, target): (&str, &str),
) -> (MarkPane, f64) {
    // The relayed row's pane under the relay; the others not, for waits
    // on what Zellij renders.
    let marks = MarkPane::open(mcp, session, name, unviewed, name == "relayed");
    let stats = table.timed(label, wait_latency(mcp, &marks, rounds, name), target);
    (marks, stats.p50)
}

/// Screen reads of two panes showing the same line, one of them after a
/// `clear` (Zellij then keeps every row of the screen as wide as the pane).
fn after_clear(table: &mut Table, paths: &Paths, rounds: usize) {
    let mut p50s = Vec::new();
    for (name, clear) in [
        ("plain", ""),
        ("cleared", "printf '\\033[H\\033[2J\\033[3J'; "),
    ] {
        let script = format!("{clear}echo one line; exec sleep 3600");
        let pane = run_in_new_tab(&paths.socket, name, &script);
        let args = json!({"pane_id": pane});
        wait_for("the line", Duration::from_secs(30), || {
            let read = paths.socket.ok("zellij_read", args.clone());
            read["text"].as_str()?.contains("one line").then_some(())
        });
        let samples = measure(rounds, || {
            paths.socket.ok("zellij_read", args.clone());
        });
        let what = format!("zellij_read via MCP, socket, a {name} pane in a tab of its own");
        p50s.push(table.timed(&what, samples, "").p50);
    }
    table.note(&format!(
        "{:.1}× the plain pane's p50: Zellij keeps a cleared screen's rows as wide as the pane",
        p50s[1] / p50s[0]
    ));
}

/// Full reads of a pane whose scrollback is full of 156-character lines,
/// beside `dump-screen --full`.
fn full_reads(table: &mut Table, session: &Session, paths: &Paths, rounds: usize) {
    let fill = "awk 'BEGIN { for (i = 0; i < 12000; i++) printf \"%05d %0150d\\n\", i, 0 }'; exec sleep 3600";
    let pane = run_in_new_tab(&paths.socket, "big", fill);
    let pane = pane.as_str().expect("pane id").to_owned();
    let full = json!({"pane_id": pane, "full": true, "max_bytes": 4194304});
    wait_for("the pane to fill", Duration::from_secs(60), || {
        let read = paths.socket.ok("zellij_read", full.clone());
        read["text"].as_str()?.contains("11999 ").then_some(())
    });
    let mut p50s = Vec::new();
    for (mcp, transport) in [(&paths.socket, "socket"), (&paths.cli, "CLI")] {
        let samples = measure(rounds, || {
            mcp.ok("zellij_read", full.clone());
        });
        p50s.push(table.timed(&format!("full read via MCP, {transport}"), samples, ""));
    }
    let full_size = session.dump_screen(&pane, true).len();
    let mut short = 0;
    let samples = measure(rounds, || {
        short += usize::from(session.dump_screen(&pane, true).len() < full_size);
    });
    let dump = table.timed("`zellij action dump-screen --full --pane-id`", samples, "");
    if short > 0 {
        table.note(&format!("{short} of its answers came back cut short"));
    }
    let ratios: Vec<String> = p50s
        .iter()
        .map(|s| format!("{:.2}×", s.p50 / dump.p50))
        .collect();
    table.note(&format!(
        "full read p50 / this p50: socket {}, CLI {} (target ≤ 1.5×)",
        ratios[0], ratios[1]
    ));
}

/// 16 callers at once on one bridge, reads of four panes that each show
/// their own marker, and pane lists: a reply showing another pane's marker
/// (or a list missing a pane) is a mismatch.
fn concurrency(table: &mut Table, session: &Session, bridge: &Path, paths: &Paths, calls: usize) {
    const CALLERS: usize = 16;
    let mcp = &paths.socket;
    let panes: Vec<Value> = (0..4)
        .map(|k| {
            let script = format!("echo marker-of-{k}; exec sleep 3600");
            run_in_new_tab(mcp, &format!("marker-{k}"), &script)
        })
        .collect();
    for (k, pane) in panes.iter().enumerate() {
        wait_for("the marker", Duration::from_secs(30), || {
            let read = mcp.ok("zellij_read", json!({"pane_id": pane}));
            read["text"]
                .as_str()?
                .contains(&format!("marker-of-{k}"))
                .then_some(())
        });
    }
    let read = |n: usize| ("zellij_read".to_owned(), json!({"pane_id": panes[n % 4]}));
    let list = || ("zellij_list_panes".to_owned(), json!({}));
    let mixed: Vec<(String, Value)> = (0..calls)
        .map(|n| if n % 10 < 3 { list() } else { read(n) })
        .collect();
    let reads: Vec<(String, Value)> = (0..calls).map(read).collect();
    let lists: Vec<(String, Value)> = (0..calls / 10).map(|_| list()).collect();
    let mut rates = Vec::new();
    let mut mismatches = 0;
    let mut spread: f64 = 0.0;
    for plan in [mixed, reads, lists] {
        let run = run_callers(mcp, &panes, plan, CALLERS);
        rates.push(run.rate);
        mismatches += run.mismatches;
        spread = spread.max(run.spread);
    }
    table.figure(
        &format!("{CALLERS} callers at once on one bridge: 7 reads to 3 pane lists"),
        &format!("{:.0} calls/s", rates[0]),
        &format!(
            "reads alone {:.0} calls/s, pane lists alone {:.0}; {mismatches} replies mismatched \
             (target ≥ 1000 calls/s, 0); each caller's p99 at most {spread:.1}× its p50 \
             (target ≤ 5×)",
            rates[1], rates[2]
        ),
    );
    sdk_callers(table, session, bridge, &panes, calls);
}

/// What [`run_callers`] saw.
struct CallersRun {
    /// Calls per second, all callers together.
    rate: f64,
    /// Replies showing another pane's marker, or a list missing a pane.
    mismatches: usize,
    /// The largest p99 / p50 of one caller's calls.
    spread: f64,
}

/// Runs `plan` from `callers` at once.
fn run_callers(
    mcp: &Mcp,
    panes: &[Value],
    plan: Vec<(String, Value)>,
    callers: usize,
) -> CallersRun {
    let started = Instant::now();
    let timed = mcp.call_in_parallel_timed(plan.clone(), callers);
    let rate = plan.len() as f64 / started.elapsed().as_secs_f64();
    let spread = (0..callers)
        .map(|caller| {
            let mine: Vec<Duration> = timed
                .iter()
                .filter(|call| call.caller == caller)
                .map(|call| call.elapsed)
                .collect();
            match mine.is_empty() {
                true => 0.0,
                false => {
                    let stats = table::Stats::of(mine);
                    stats.p99 / stats.p50
                }
            }
        })
        .fold(0.0, f64::max);
    let mismatches = plan
        .iter()
        .zip(&timed)
        .filter(|((tool, args), call)| {
            let Ok(result) = &call.result else {
                return true;
            };
            let content = result.structured_content.clone().unwrap_or_default();
            mismatched(panes, tool, args, &content)
        })
        .count();
    CallersRun {
        rate,
        mismatches,
        spread,
    }
}

/// Whether `content`, the result of `tool` called with `args`, shows
/// another pane's marker than the pane read, or lists not every pane.
fn mismatched(panes: &[Value], tool: &str, args: &Value, content: &Value) -> bool {
    if tool == "zellij_list_panes" {
        let listed = content["panes"].to_string();
        return panes.iter().any(|p| !listed.contains(&p.to_string()));
    }
    let k = panes
        .iter()
        .position(|p| *p == args["pane_id"])
        .expect("pane");
    let text = content["text"].as_str().unwrap_or_default();
    !text.contains(&format!("marker-of-{k}"))
        || (0..4).any(|j| j != k && text.contains(&format!("marker-of-{j}")))
}

/// 16 sessions of the Python SDK at once, each with its own bridge, two
/// screen reads to one pane list.
fn sdk_callers(table: &mut Table, session: &Session, bridge: &Path, panes: &[Value], calls: usize) {
    const CALLERS: usize = 16;
    let plan: Vec<(&str, Value)> = (0..calls / CALLERS)
        .map(|n| match n % 3 {
            2 => ("zellij_list_panes", json!({})),
            _ => ("zellij_read", json!({"pane_id": panes[n % 4]})),
        })
        .collect();
    let server = server_pid(session);
    let server_ticks = || server.and_then(cpu_ticks).unwrap_or_default();
    let before = server_ticks();
    let Some(run) = sdk::run(session, bridge, CALLERS, &plan) else {
        return;
    };
    // Linux counts CPU time in 1/100 s ticks.
    let server_cpu = server_ticks().saturating_sub(before) as f64 / 100.0;
    let total: usize = run.callers.iter().map(|c| c.took.len()).sum();
    let errors: usize = run.callers.iter().map(|c| c.errors).sum();
    let mismatches = run
        .callers
        .iter()
        .flat_map(|c| plan.iter().zip(&c.results))
        .filter(|((tool, args), content)| mismatched(panes, tool, args, content))
        .count();
    let spread = run
        .callers
        .iter()
        .map(|c| {
            let stats = table::Stats::of(c.took.clone());
            stats.p99 / stats.p50
        })
        .fold(0.0, f64::max);
    let all: Vec<Duration> = run.callers.into_iter().flat_map(|c| c.took).collect();
    let stats = table.timed(
        &format!("{CALLERS} Python SDK sessions at once, a bridge each: 2 reads to 1 pane list"),
        all,
        "",
    );
    let seconds = run.elapsed.as_secs_f64();
    table.note(&format!(
        "{:.0} calls/s in all, {errors} errors, {mismatches} replies mismatched (target ≥ 1000 \
         calls/s, 0); each caller's p99 at most {spread:.1}× its p50 (target ≤ 5×); p50 {:.2} ms; \
         CPU over the {seconds:.1} s: Python client {:.1} s, 16 bridges {:.1} s (their whole \
         lives), Zellij server and plugin {server_cpu:.1} s",
        total as f64 / seconds,
        stats.p50,
        run.client_cpu,
        run.bridges_cpu,
    ));
}

/// A submit (the text, then a lone CR after the delay) to a program that
/// reads lines, against the configured delay.
fn submits(table: &mut Table, paths: &Paths, rounds: usize) {
    let delay = 150.0;
    let samples: Vec<Duration> = (0..rounds)
        .map(|n| {
            let args = json!({"pane_id": paths.sink, "text": format!("line {n}"), "submit": true});
            let took = measure(1, || {
                paths.socket.ok("zellij_write", args.clone());
            });
            // After a submit the pane takes no input for a while.
            std::thread::sleep(Duration::from_millis(200));
            took[0]
        })
        .collect();
    let stats = table.timed("submit round trip, delay 150 ms", samples, "");
    table.note(&format!(
        "{:+.1} ms over the delay (target ≤ +20)",
        stats.p50 - delay
    ));
}

/// A composer as agent programs draw it (a prompt between two rules, a
/// status row), redrawn empty after each line it reads.
const COMPOSER: &str = "rule=$(printf '%.0s─' $(seq 40)); \
    while :; do printf '\\033[H\\033[2J%s\\n❯ \\n%s\\n  ? for shortcuts\\033[2;3H' \"$rule\" \"$rule\"; \
    IFS= read -r line || exit; done";

/// A message into an idle agent's composer, beside a submit of the same
/// text: the plugin looks at the composer before typing.
fn deliveries(table: &mut Table, paths: &Paths, rounds: usize) {
    let tab = paths.socket.ok("zellij_new_tab", json!({"name": "agent"}))["tab_id"].clone();
    let args = json!({"command": ["sh", "-c", COMPOSER], "wait": false, "tab": tab});
    let pane = paths.socket.ok("zellij_run", args)["pane_id"].clone();
    wait_for("the composer", Duration::from_secs(20), || {
        let read = paths.socket.ok("zellij_read", json!({"pane_id": pane}));
        (read["state"] == "idle" || read["text"].as_str()?.contains("for shortcuts")).then_some(())
    });
    let submit = |n: usize| {
        let args = json!({"pane_id": pane, "text": format!("line {n}"), "submit": true});
        measure(1, || {
            paths.socket.ok("zellij_write", args.clone());
        })[0]
    };
    let message = |n: usize| {
        let args =
            json!({"to": pane, "text": format!("line {n}"), "from": "bench", "wait_ms": 10000});
        measure(1, || {
            let sent = paths.socket.ok("zellij_send_message", args.clone());
            assert_eq!(sent["status"], "delivered", "{sent}");
        })[0]
    };
    let (mut submits, mut messages) = (Vec::new(), Vec::new());
    // After a submit the pane takes no input for a while: each starts after it.
    for n in 0..rounds {
        submits.push(submit(n));
        std::thread::sleep(Duration::from_millis(200));
        messages.push(message(n));
        std::thread::sleep(Duration::from_millis(200));
    }
    let submitted = table.timed("zellij_write submit into a composer", submits, "");
    let delivered = table.timed(
        "zellij_send_message delivered into an idle composer",
        messages,
        "",
    );
    table.note(&format!(
        "{:.2}× the submit (the composer looked at before typing; target ≤ 1.1×)",
        delivered.p50 / submitted.p50
    ));
}

/// Bridge start, bridge memory, and the plugin's memory after a pane
/// printed 100,000 lines and its scrollback was read whole.
fn footprint(table: &mut Table, session: &Session, bridge: &Path, rounds: usize) {
    let samples = measure(rounds, || {
        drop(Mcp::start(bridge, session.sandbox(), &[]));
    });
    table.timed(
        "bridge cold start: spawn to `initialize` answered",
        samples,
        "target p50 ≤ 50 ms",
    );

    let mcp = Mcp::start(bridge, session.sandbox(), &[]);
    for _ in 0..1000 {
        mcp.ok("zellij_read", json!({"pane_id": "terminal_0"}));
    }
    let rss = mcp.pid().and_then(rss_kib).unwrap_or_default();
    table.figure(
        "bridge RSS after 1,000 calls",
        &format!("{:.1} MB", rss as f64 / 1024.0),
        "target ≤ 20 MB",
    );

    let script = "seq -f 'line %06g of a long run' 100000; exec sleep 3600";
    let pane = run_in_new_tab(&mcp, "long", script);
    let full = json!({"pane_id": pane, "full": true, "max_bytes": 4194304});
    wait_for("100,000 lines", Duration::from_secs(120), || {
        let read = mcp.ok("zellij_read", json!({"pane_id": pane}));
        read["text"]
            .as_str()?
            .contains("line 100000 ")
            .then_some(())
    });
    for _ in 0..10 {
        mcp.ok("zellij_read", full.clone());
    }
    let memory = mcp.ok("zellij_session_info", json!({}))["plugin_memory"].clone();
    let mib = |v: &Value| v.as_f64().unwrap_or(0.0) / 1_048_576.0;
    table.figure(
        "plugin heap after 100,000 lines printed and 10 whole-scrollback reads",
        &format!("{:.2} MiB", mib(&memory["heap_bytes"])),
        &format!("of its {:.0} MiB limit", mib(&memory["heap_limit_bytes"])),
    );
}

/// Starts `sh -c script` in a new tab of its own (as wide as the client,
/// which does not view it), not relayed (these rows are of what Zellij
/// keeps and renders); its pane id.
fn run_in_new_tab(mcp: &Mcp, name: &str, script: &str) -> Value {
    let tab = mcp.ok("zellij_new_tab", json!({"name": name}))["tab_id"].clone();
    // Zellij may drop output written before a new tab's pane is shown.
    let script = format!("sleep 0.5; {script}");
    let args = json!({"command": ["sh", "-c", script], "wait": false, "tab": tab, "relay": false});
    mcp.ok("zellij_run", args)["pane_id"].clone()
}

/// The session's Zellij server, from the plugin's hello.
pub fn server_pid(session: &Session) -> Option<u32> {
    let channel = Channel::socket(session);
    let hello = channel.call("hello", json!({}));
    hello["zellij_pid"].as_u64().map(|pid| pid as u32)
}

/// The CPU time `pid` has used, in ticks.
fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    Some(fields[11].parse::<u64>().ok()? + fields[12].parse::<u64>().ok()?)
}

/// The share of one core `pid` used over `span`.
pub fn cpu_share(pid: u32, span: Duration) -> f64 {
    let before = cpu_ticks(pid).unwrap_or_default();
    std::thread::sleep(span);
    let after = cpu_ticks(pid).unwrap_or_default();
    // Linux counts CPU time in 1/100 s ticks.
    (after - before) as f64 / 100.0 / span.as_secs_f64()
}

pub fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// When, where and with what the figures were taken.
fn header(session: &Session, rounds: usize) -> String {
    let shell = |args: &[&str]| {
        let out = std::process::Command::new(args[0])
            .args(&args[1..])
            .output();
        out.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
            .unwrap_or_default()
    };
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            let line = c.lines().find(|l| l.starts_with("model name"))?.to_owned();
            Some(line.split_once(':')?.1.trim().to_owned())
        })
        .unwrap_or_default();
    let zellij = shell(&[
        &session.sandbox().zellij_path().display().to_string(),
        "--version",
    ]);
    format!(
        "zellij-mcp bench, {} UTC; {zellij}; {} cores ({cpu}), {}; {rounds} calls per row unless n says otherwise\n",
        shell(&["date", "-u", "+%Y-%m-%d %H:%M"]),
        shell(&["nproc"]),
        shell(&["uname", "-sr"]),
    )
}
