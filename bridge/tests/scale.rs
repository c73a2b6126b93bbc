//! Sessions as users keep them: a hundred panes, and pane facts that change
//! without the server having typed anything.

mod common;

use std::time::Duration;

use common::*;
use serde_json::{json, Value};
use zellij_mcp_harness::{wait_for, Mcp};

#[test]
fn a_session_with_a_hundred_panes_is_listed_and_read_correctly() {
    let s = session("hundred");
    let mcp = mcp(&s, "socket");
    // Layouts need room on a screen: a client's.
    let _client = s.attach_and_wait();
    // Ten tabs of ten stacked shells, each pane printing its own marker.
    let stack: String = (0..10).map(|_| "        pane\n").collect();
    let layout = format!("layout {{\n    pane stacked=true {{\n{stack}    }}\n}}\n");
    for tab in 0..10 {
        mcp.ok(
            "zellij_new_tab",
            json!({"name": format!("t{tab}"), "layout": layout}),
        );
    }
    let listed = wait_for("101 terminal panes", Duration::from_secs(60), || {
        let panes = mcp.ok("zellij_list_panes", json!({}))["panes"].clone();
        (panes.as_array()?.len() == 101).then_some(panes)
    });
    // The list agrees with Zellij's own, pane for pane.
    let mut ours: Vec<String> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["pane_id"].as_str().unwrap().to_owned())
        .collect();
    let mut zellij: Vec<String> = s
        .zellij_panes()
        .iter()
        .filter(|p| p["is_plugin"] == false)
        .map(|p| format!("terminal_{}", p["id"]))
        .collect();
    ours.sort();
    zellij.sort();
    assert_eq!(ours, zellij);
    compact_list_says_what_it_promises(&mcp, listed.as_array().unwrap());
    details_match_zellij_s_own_list(&mcp, &s.zellij_panes());
    // Each of a few panes reads back what was typed into it (a stacked
    // pane shows one row: the line is read from its scrollback).
    for pane in [&ours[5], &ours[55], &ours[100]] {
        type_line(&mcp, pane, &format!("echo marker-{pane}-$((6*7))"));
        let line = format!("marker-{pane}-42");
        wait_for(&line, Duration::from_secs(20), || {
            let read = mcp.ok("zellij_read", json!({"pane_id": pane, "full": true}));
            read["text"]
                .as_str()?
                .lines()
                .any(|l| l == line)
                .then_some(())
        });
    }
}

/// The default list: each pane's id, tab, title, program and state, flags
/// only when true, no details; 101 panes in at most 20 KB (the whole tool
/// result, its text and its structured content).
fn compact_list_says_what_it_promises(mcp: &Mcp, listed: &[Value]) {
    for pane in listed {
        assert!(pane["tab_id"].is_u64(), "{pane}");
        assert!(pane["title"].is_string(), "{pane}");
        assert!(
            ["sh", "bash"].contains(&pane["program"].as_str().unwrap()),
            "{pane}"
        );
        assert_eq!(pane["state"], "prompt", "{pane}");
        for flag in ["focused", "floating", "hidden", "exited", "is_self"] {
            assert_ne!(pane[flag], false, "{flag} is left out when false: {pane}");
        }
        for detail in ["cwd", "running", "geometry", "tab_name", "pid"] {
            assert_eq!(
                pane[detail],
                Value::Null,
                "{detail} only on request: {pane}"
            );
        }
    }
    let whole = mcp.call("zellij_list_panes", json!({}));
    let bytes = serde_json::to_string(&whole).unwrap().len();
    assert!(bytes <= 20_000, "a list of 101 panes is {bytes} bytes");
}

/// With `details`, each pane as Zellij's own `list-panes --json` has it.
fn details_match_zellij_s_own_list(mcp: &Mcp, zellij: &[Value]) {
    let listed = mcp.ok("zellij_list_panes", json!({"details": true}));
    let ours = listed["panes"].as_array().unwrap();
    let terminals = zellij.iter().filter(|p| p["is_plugin"] == false);
    let mut compared = 0;
    for theirs in terminals {
        let id = format!("terminal_{}", theirs["id"]);
        let pane = ours.iter().find(|p| p["pane_id"] == id).expect("listed");
        let pairs = [
            ("tab_id", "tab_id"),
            ("tab_position", "tab_position"),
            ("tab_name", "tab_name"),
            ("title", "title"),
            ("cwd", "pane_cwd"),
            ("selectable", "is_selectable"),
            ("fullscreen", "is_fullscreen"),
        ];
        for (mine, zellij_s) in pairs {
            assert_eq!(pane[mine], theirs[zellij_s], "{mine}: {pane} / {theirs}");
        }
        let geometry = &pane["geometry"];
        assert_eq!(geometry["x"], theirs["pane_x"], "{pane} / {theirs}");
        assert_eq!(geometry["rows"], theirs["pane_rows"], "{pane} / {theirs}");
        assert_eq!(
            geometry["cols"], theirs["pane_columns"],
            "{pane} / {theirs}"
        );
        assert_eq!(pane["floating"] == true, theirs["is_floating"] == true);
        assert!(pane["running"][0].is_string(), "{pane}");
        assert!(pane["pid"].is_u64(), "{pane}");
        compared += 1;
    }
    assert_eq!(compared, ours.len());
}

#[test]
fn a_pane_list_follows_a_cwd_the_pane_changed_by_itself() {
    let s = session("cwd-events");
    let mcp = mcp(&s, "socket");
    let work = s.sandbox().work().canonicalize().unwrap();
    let (first, second) = (work.join("first"), work.join("second"));
    std::fs::create_dir_all(&first).unwrap();
    std::fs::create_dir_all(&second).unwrap();
    let script = format!(
        "cd '{}'; echo one; sleep 2; cd '{}'; echo two; while true; do sleep 1; echo tick; done",
        first.display(),
        second.display()
    );
    let pane = mcp.ok(
        "zellij_new_pane",
        json!({"command": ["sh", "-c", script], "placement": "floating"}),
    );
    let pane = pane["pane_id"].as_str().unwrap().to_owned();
    let cwd_of = || {
        let panes = mcp.ok("zellij_list_panes", json!({"details": true}))["panes"].clone();
        panes
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["pane_id"] == json!(pane))
            .map(|p| p["cwd"].as_str().unwrap_or_default().to_owned())
    };
    read_until_line(&mcp, &pane, "one");
    wait_for("the first cwd", Duration::from_secs(20), || {
        (cwd_of().as_deref() == Some(first.to_str().unwrap())).then_some(())
    });
    // Nothing is typed into the pane: only Zellij's events can tell.
    wait_for("the second cwd", Duration::from_secs(20), || {
        (cwd_of().as_deref() == Some(second.to_str().unwrap())).then_some(())
    });
}
