//! Sessions as users keep them: a hundred panes, and pane facts that change
//! without the server having typed anything.

mod common;

use std::time::Duration;

use common::*;
use serde_json::json;
use zellij_mcp_harness::wait_for;

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
    for pane in listed.as_array().unwrap() {
        assert!(pane["cwd"].is_string(), "{pane}");
        assert!(pane["running"][0].is_string(), "{pane}");
    }
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
        let panes = mcp.ok("zellij_list_panes", json!({}))["panes"].clone();
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
