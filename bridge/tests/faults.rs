//! Faults, each bounded in time: a session killed mid-wait, the plugin
//! reloaded mid-call, clients attaching and detaching while calls run, the
//! bridge's stdin closing, and many callers at once.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;
use serde_json::{json, Value};
use zellij_mcp_harness::{poll_for, text_of, wait_for, Mcp};

on_both_transports!(a_session_killed_during_a_wait_is_an_error_at_once);

fn a_session_killed_during_a_wait_is_an_error_at_once(transport: &str) {
    let s = session(&format!("doomed-{transport}"));
    let other = s.sibling(&format!("other-{transport}-{}", std::process::id()));
    let args = ["--transport", transport, "--session", s.name()];
    let mcp = Mcp::start(&bridge(), s.sandbox(), &args);
    let pane = shell_pane(&mcp);
    let in_other = json!({"session": other.name()});
    mcp.ok("zellij_list_panes", in_other.clone());

    let (result, after_kill) = std::thread::scope(|scope| {
        let waiter = scope.spawn(|| {
            mcp.call(
                "zellij_wait_for",
                json!({"session": s.name(), "pane_id": pane, "pattern": "never", "timeout_ms": 60000}),
            )
        });
        until_waiting(&mcp, 1);
        s.sandbox().kill_session(s.name());
        let killed = Instant::now();
        let result = waiter.join().unwrap();
        (result, killed.elapsed())
    });
    assert_eq!(result.is_error, Some(true), "{result:?}");
    // The kill command itself takes a moment; the error follows it at once.
    assert!(
        after_kill < Duration::from_secs(1),
        "the error came {after_kill:?} after the kill"
    );
    eprintln!(
        "{transport}: error {after_kill:?} after the kill: {}",
        text_of(&result)
    );

    mcp.ok("zellij_list_panes", in_other);
    let back = s.sibling(s.name());
    let panes = mcp.ok("zellij_list_panes", json!({"session": back.name()}));
    assert!(!panes["panes"].as_array().unwrap().is_empty(), "{panes}");
}

#[test]
fn a_plugin_reloaded_mid_call_gives_a_clean_error_then_works_again() {
    let s = session("reload");
    let mcp = mcp(&s, "socket");
    let pane = shell_pane(&mcp);
    // Zellij 0.45.1 reloads a plugin only for a connected client: the
    // instance the session started with, before any client, stays. The
    // wait goes to the attached client's instance once it holds the lease.
    let (_client, focus) = s.attach_and_wait();
    let client: u64 = focus
        .lines()
        .nth(1)
        .and_then(|l| l.split_whitespace().next()?.parse().ok())
        .unwrap();
    wait_for(
        "the attached client's instance to act",
        Duration::from_secs(30),
        || (s.acting_client() == Some(client)).then_some(()),
    );
    let (result, after_reload) = std::thread::scope(|scope| {
        let waiter = scope.spawn(|| {
            mcp.call(
                "zellij_wait_for",
                json!({"pane_id": pane, "pattern": "never", "timeout_ms": 60000}),
            )
        });
        until_waiting(&mcp, 1);
        let mut reload = s.sandbox().zellij();
        reload.args(["--session", s.name(), "action", "start-or-reload-plugin"]);
        reload.arg(s.sandbox().plugin_url());
        assert!(reload.status().unwrap().success());
        let reloaded = Instant::now();
        let result = waiter.join().unwrap();
        (result, reloaded.elapsed())
    });
    assert_eq!(result.is_error, Some(true), "{result:?}");
    let text = text_of(&result);
    assert!(text.contains("Fix:"), "{text}");
    assert!(after_reload < Duration::from_secs(10), "{after_reload:?}");
    eprintln!("error {after_reload:?} after the reload: {text}");
    let listed = wait_for(
        "the reloaded plugin to answer",
        Duration::from_secs(20),
        || {
            let result = mcp.call("zellij_list_panes", json!({}));
            (result.is_error != Some(true)).then_some(result)
        },
    );
    assert!(listed.structured_content.is_some());
    assert_eq!(
        panes(&mcp).len(),
        5,
        "the reload replaced the plugin, it did not add one"
    );
}

#[test]
fn clients_coming_and_going_never_double_or_drop_a_call() {
    let s = session("churn");
    let mcp = mcp(&s, "socket");
    let out = s.sandbox().work().join("lines.txt");
    let cat = mcp.ok(
        "zellij_new_pane",
        json!({"command": ["sh", "-c", format!("cat > {}", out.display())], "placement": "tiled"}),
    );
    let pane = cat["pane_id"].clone();
    let rounds = 300;
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        let churn = scope.spawn(|| {
            while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                let mut client = s.attach_client();
                // It leaves once Zellij has drawn the session on it (it came
                // in), its plugin instance perhaps still loading; one that
                // exits first (attaching under load may) is just replaced.
                poll_for(Duration::from_secs(10), || {
                    let came = !client.screen().trim().is_empty();
                    (came || !client.is_running()).then_some(())
                });
                drop(client);
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        for n in 0..rounds {
            let wrote = mcp.ok(
                "zellij_write",
                json!({"pane_id": pane, "text": format!("line-{n}"), "keys": ["Enter"]}),
            );
            assert_eq!(wrote["pane_id"], pane);
            std::thread::sleep(Duration::from_millis(50));
        }
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        churn.join().unwrap();
    });
    // Writes to a pane are typed in order: once the last shows, a write
    // typed twice would have shown before it.
    mcp.ok(
        "zellij_write",
        json!({"pane_id": pane, "text": "line-end", "keys": ["Enter"]}),
    );
    let lines = file_lines(&out, rounds + 1);
    let mut expected: Vec<String> = (0..rounds).map(|n| format!("line-{n}")).collect();
    expected.push("line-end".into());
    assert_eq!(lines, expected, "each write typed exactly once, in order");
}

#[test]
fn the_bridge_exits_when_its_stdin_closes_and_leaves_no_child() {
    let s = session("stdin");
    let mut bridge = Command::new(bridge())
        .args(["--transport", "cli", "--zellij"])
        .arg(s.sandbox().zellij_path())
        .envs(s.sandbox().env())
        .env_remove("ZELLIJ")
        .env_remove("ZELLIJ_SESSION_NAME")
        .env_remove("ZELLIJ_PANE_ID")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = bridge.stdin.take().unwrap();
    let mut stdout = BufReader::new(bridge.stdout.take().unwrap());
    let mut send = |message: Value| writeln!(stdin, "{message}").unwrap();
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "faults", "version": "0"}}}),
    );
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "zellij_list_panes", "arguments": {}}}));
    let mut line = String::new();
    while !line.contains("\"id\":2") {
        line.clear();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "the bridge answered"
        );
    }
    let children = children_of(bridge.id());
    assert!(
        !children.is_empty(),
        "the CLI transport keeps zellij pipe children"
    );

    drop(stdin);
    let closed = Instant::now();
    let status = wait_for("the bridge to exit", Duration::from_secs(5), || {
        bridge.try_wait().unwrap()
    });
    eprintln!(
        "the bridge exited {:?} after stdin closed ({status})",
        closed.elapsed()
    );
    wait_for("its children to be gone", Duration::from_secs(5), || {
        children.iter().all(|pid| !alive(*pid)).then_some(())
    });
}

/// Processes whose parent is `pid`.
fn children_of(pid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok()?.parse::<u32>().ok())
        .filter(|child| parent_of(*child) == Some(pid))
        .collect()
}

fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')')? + 2..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// Running (a zombie waiting to be reaped counts as gone).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| Some(stat[stat.rfind(')')? + 2..].starts_with('Z')))
        .is_some_and(|zombie| !zombie)
}

#[test]
fn a_thousand_mixed_calls_from_sixteen_callers_each_get_their_own_reply() {
    let s = session("many");
    let mcp = mcp(&s, "socket");
    let markers: Vec<String> = (0..4).map(|n| format!("pane-marker-{n}")).collect();
    let panes: Vec<String> = markers
        .iter()
        .map(|marker| {
            let script = format!("echo {marker}; exec sleep 600");
            let pane = mcp.ok(
                "zellij_new_pane",
                json!({"command": ["sh", "-c", script], "placement": "background"}),
            );
            let pane = pane["pane_id"].as_str().unwrap().to_owned();
            read_until_line(&mcp, &pane, marker);
            pane
        })
        .collect();
    let calls: Vec<(String, Value)> = (0..1000)
        .map(|n| match n % 4 {
            0 | 1 => (
                "zellij_read".to_owned(),
                json!({"pane_id": panes[n % panes.len()]}),
            ),
            2 => ("zellij_list_panes".to_owned(), json!({})),
            _ => (
                "zellij_read".to_owned(),
                json!({"pane_id": panes[n % panes.len()], "full": true}),
            ),
        })
        .collect();
    let results = mcp.call_in_parallel(calls.clone(), 16);
    for (n, ((tool, args), result)) in calls.iter().zip(&results).enumerate() {
        let result = result.as_ref().unwrap_or_else(|e| panic!("call {n}: {e}"));
        assert_ne!(result.is_error, Some(true), "call {n}: {}", text_of(result));
        let value = result.structured_content.as_ref().unwrap();
        if tool == "zellij_read" {
            assert_eq!(value["pane_id"], args["pane_id"], "call {n}");
            let pane = args["pane_id"].as_str().unwrap();
            let marker = &markers[panes.iter().position(|p| p == pane).unwrap()];
            let text = value["text"].as_str().unwrap();
            assert!(
                text.contains(marker.as_str()),
                "call {n}: {pane} read {text:?}"
            );
        } else {
            assert!(value["panes"].is_array(), "call {n}: {value}");
        }
    }
}

/// Zellij 0.45.1 makes no tab while no client is attached (a `new-tab`
/// then gives an id and nothing comes): the tool says so at once.
#[test]
fn a_new_tab_is_refused_while_no_client_is_attached_and_made_while_one_is() {
    let s = session("tabless");
    let mcp = mcp(&s, "socket");
    let tab_names = || {
        let mut cmd = s.sandbox().zellij();
        cmd.args(["--session", s.name(), "action", "query-tab-names"]);
        String::from_utf8_lossy(&cmd.output().unwrap().stdout).into_owned()
    };
    let refused = mcp.err("zellij_new_tab", json!({"name": "early"}));
    assert!(refused.starts_with("unsupported"), "{refused}");
    assert!(refused.contains("no client is attached"), "{refused}");
    let client = s.attach_and_wait();
    let made = mcp.ok("zellij_new_tab", json!({"name": "attached"}));
    assert_eq!(made["name"], "attached");
    drop(client);
    wait_for("the client to leave", Duration::from_secs(30), || {
        (!s.client_focus().contains("terminal_")).then_some(())
    });
    let refused = mcp.err("zellij_new_tab", json!({"name": "late"}));
    assert!(refused.starts_with("unsupported"), "{refused}");
    // A query can come back empty: the names are read until they come.
    let names = wait_for("the tab names", Duration::from_secs(10), || {
        Some(tab_names()).filter(|names| !names.trim().is_empty())
    });
    assert!(
        names.contains("attached") && !names.contains("early"),
        "{names}"
    );
    assert!(!names.contains("late"), "{names}");
}
