//! The person's board, on a real session with a real client: the board's
//! screen as the client shows it lists the agents, who needs someone first;
//! a change shows within a second; Enter takes the person to the agent and
//! nothing else moves focus; Esc hides it; `m` turns the tab marks off.
//! `zellij-mcp agents --json` lists the same rows. An agent that starts
//! asking marks its tab for a person working in another tab.
//!
//! The agents are panes with agent names whose program draws what Claude
//! Code draws (`AGENT_SCREENS`): how Claude Code's own screens are told is
//! tested with Claude Code in `shared_panes.rs`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::*;
use serde_json::{json, Value};
use zellij_mcp_harness::{poll_for, wait_for, AttachedClient, Mcp, Session, AGENT_SCREENS};

fn agent_script(s: &Session) -> PathBuf {
    let path = s.sandbox().work().join("agent.sh");
    std::fs::write(&path, AGENT_SCREENS).unwrap();
    path
}

/// A named agent in tab `workers`, asking while `ask` exists; its pane id.
fn open_agent(mcp: &Mcp, script: &Path, name: &str, ask: &Path) -> String {
    let command = json!(["sh", script, ask]);
    let args = json!({"tab": "workers", "command": command, "agent_name": name});
    let opened = mcp.ok("zellij_new_pane", args);
    opened["pane_id"].as_str().unwrap().to_owned()
}

/// `zellij-mcp <args>` from a shell outside the session.
fn zellij_mcp(s: &Session, args: &[&str]) -> std::process::Output {
    Command::new(bridge())
        .arg("--zellij")
        .arg(s.sandbox().zellij_path())
        .args(args)
        .envs(s.sandbox().env())
        .env_remove("ZELLIJ")
        .env_remove("ZELLIJ_SESSION_NAME")
        .env_remove("ZELLIJ_PANE_ID")
        .output()
        .unwrap()
}

/// The agents as `zellij-mcp agents --json` lists them: (label, state).
fn listed_agents(s: &Session) -> Vec<(String, String)> {
    let out = zellij_mcp(s, &["agents", "--json"]);
    assert!(out.status.success(), "{out:?}");
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    let label = |a: &Value| a["name"].as_str().unwrap_or_default().to_owned();
    let state = |a: &Value| a["state"].as_str().unwrap_or_default().to_owned();
    let agents = rows["agents"].as_array().unwrap();
    agents.iter().map(|a| (label(a), state(a))).collect()
}

/// Waits until `zellij-mcp agents --json` lists `expected`; the last
/// listing is in the failure.
fn until_listed(s: &Session, expected: &[(String, String)]) {
    let mut last = Vec::new();
    let listed = poll_for(Duration::from_secs(20), || {
        last = listed_agents(s);
        (last == expected).then_some(())
    });
    if listed.is_none() {
        let agents = zellij_mcp(s, &["agents", "--json"]);
        let rows: Value = serde_json::from_slice(&agents.stdout).unwrap_or_default();
        let explained: Vec<String> = rows["agents"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| a["pane_id"].as_str())
            .map(|pane| {
                let out = zellij_mcp(s, &["agents", "--explain", pane]);
                String::from_utf8_lossy(&out.stdout).into_owned()
            })
            .collect();
        panic!(
            "listed {last:?}, not {expected:?}; the plugin explains {explained:#?}; Zellij lists {:?}",
            s.zellij_panes()
        );
    }
}

fn tab_names(s: &Session) -> String {
    let mut cmd = s.sandbox().zellij();
    cmd.args(["--session", s.name(), "action", "query-tab-names"]);
    String::from_utf8_lossy(&cmd.output().unwrap().stdout).into_owned()
}

/// The board's rows on the client's screen: the lines after its header.
fn board_lines(client: &AttachedClient) -> Option<Vec<String>> {
    let screen = client.screen();
    let lines: Vec<String> = screen.lines().map(str::to_owned).collect();
    let header = lines
        .iter()
        .position(|l| l.contains("AGENT") && l.contains("LAST IN"))?;
    Some(lines[header + 1..].to_vec())
}

/// The row of `agent` on the board, and its place.
fn board_row(lines: &[String], agent: &str) -> Option<(usize, String)> {
    let at = lines.iter().position(|l| l.contains(agent))?;
    Some((at, lines[at].clone()))
}

fn until_board_shows(client: &AttachedClient, what: &str, seconds: u64) -> String {
    wait_for(what, Duration::from_secs(seconds), || {
        let screen = client.screen();
        screen.contains(what).then_some(screen)
    })
}

#[test]
fn the_board_shows_who_needs_you_and_takes_you_to_them() {
    let s = session("board");
    let (mut client, _) = s.attach_and_wait();
    let mcp = mcp(&s, "socket");
    let script = agent_script(&s);
    let work = s.sandbox().work();
    let focus_before = s.client_focus();
    mcp.ok("zellij_new_tab", json!({"name": "workers"}));
    let (asks, idles) = (work.join("asker-asks"), work.join("idler-asks"));
    std::fs::write(&asks, "").unwrap();
    open_agent(&mcp, &script, "asker", &asks);
    let idler = open_agent(&mcp, &script, "idler", &idles);
    let exits =
        json!({"tab": "workers", "command": ["sh", "-c", "exit 3"], "agent_name": "quitter"});
    mcp.ok("zellij_new_pane", exits);
    assert_eq!(s.client_focus(), focus_before, "opening agents moved focus");

    // `zellij-mcp agents`: who needs someone first, exited last.
    let expected = [
        ("asker", "asking"),
        ("idler", "idle"),
        ("quitter", "exited"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    until_listed(&s, &expected);
    let table = zellij_mcp(&s, &["agents"]);
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(table.starts_with("AGENT"), "{table}");
    assert!(table.contains("exited 3"), "{table}");

    // The board, as the client shows it.
    let opened = zellij_mcp(&s, &["board"]);
    assert!(opened.status.success(), "{opened:?}");
    until_board_shows(&client, "zellij-mcp agents · 3 · 1 asking", 20);
    let lines = board_lines(&client).expect("the board's header");
    let (asker_at, asker_row) = board_row(&lines, "asker").expect("asker's row");
    let (idler_at, idler_row) = board_row(&lines, "idler").expect("idler's row");
    let (quitter_at, quitter_row) = board_row(&lines, "quitter").expect("quitter's row");
    assert!(asker_at < idler_at && idler_at < quitter_at, "{lines:#?}");
    assert!(
        asker_row.contains("asking") && asker_row.contains("workers"),
        "{asker_row}"
    );
    assert!(idler_row.contains("idle"), "{idler_row}");
    assert!(quitter_row.contains("exited 3"), "{quitter_row}");

    // A change shows within a second (measured here; the deadline is generous).
    let changed = Instant::now();
    std::fs::write(&idles, "").unwrap();
    until_board_shows(&client, "zellij-mcp agents · 3 · 2 asking", 10);
    eprintln!(
        "the board showed the idler asking {:?} after its screen changed",
        changed.elapsed()
    );
    wait_for("the tab's mark", Duration::from_secs(5), || {
        tab_names(&s).contains("● workers").then_some(())
    });

    // `m` turns the tab marks off: the mark goes, the board says so.
    client.type_keys(b"m");
    until_board_shows(&client, "tab marks: off", 5);
    wait_for("the mark to go", Duration::from_secs(5), || {
        (!tab_names(&s).contains('●')).then_some(())
    });
    client.type_keys(b"m");
    until_board_shows(&client, "tab marks: on", 5);

    // Down to the idler (drawn selected once the board took the key),
    // Enter: its pane is focused, the board hidden.
    assert!(!client.shows_highlighted("idler"), "selected before Down");
    client.type_keys(b"\x1b[B");
    wait_for("the idler's row selected", Duration::from_secs(5), || {
        client.shows_highlighted("idler").then_some(())
    });
    client.type_keys(b"\r");
    let idler_focused = format!("{idler} ");
    wait_for("the idler focused", Duration::from_secs(10), || {
        s.client_focus().contains(&idler_focused).then_some(())
    });
    wait_for("the board hidden", Duration::from_secs(10), || {
        (!client.screen().contains("zellij-mcp agents ·")).then_some(())
    });

    // Opened again in this tab, Esc hides it and focus is the idler's again.
    assert!(zellij_mcp(&s, &["board"]).status.success());
    until_board_shows(&client, "zellij-mcp agents · 3", 20);
    client.type_keys(b"\x1b");
    wait_for("the board hidden by Esc", Duration::from_secs(10), || {
        (!client.screen().contains("zellij-mcp agents ·")).then_some(())
    });
    wait_for("focus back on the idler", Duration::from_secs(10), || {
        s.client_focus().contains(&idler_focused).then_some(())
    });
}

#[test]
fn an_agent_that_starts_asking_marks_its_tab_without_moving_focus() {
    let s = session("marks");
    let (_client, _) = s.attach_and_wait();
    let mcp = mcp(&s, "socket");
    let script = agent_script(&s);
    mcp.ok("zellij_new_tab", json!({"name": "workers"}));
    let asks = s.sandbox().work().join("asks");
    open_agent(&mcp, &script, "worker", &asks);
    until_listed(&s, &[("worker".to_owned(), "idle".to_owned())]);
    let focus_before = s.client_focus();
    assert!(!tab_names(&s).contains('●'));

    let asked = Instant::now();
    std::fs::write(&asks, "").unwrap();
    wait_for("the mark", Duration::from_secs(10), || {
        tab_names(&s).contains("● workers").then_some(())
    });
    let noticed = asked.elapsed();
    eprintln!("the tab was marked {noticed:?} after the agent started asking");
    assert!(noticed < Duration::from_secs(2), "{noticed:?}");
    assert_eq!(s.client_focus(), focus_before, "the mark moved focus");
    // Agents see the tab's own name.
    let tabs = mcp.ok("zellij_list_tabs", json!({}));
    let names: Vec<&str> = tabs["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"workers"), "{names:?}");
    let pane = mcp.ok("zellij_new_pane", json!({"tab": "workers"}));
    assert!(pane["pane_id"].is_string(), "the tab is found by its name");

    // The dialog answered: the mark goes.
    std::fs::remove_file(&asks).unwrap();
    // Until the name is back whole (a query can come back empty).
    wait_for("the mark to go", Duration::from_secs(10), || {
        let names = tab_names(&s);
        (names.contains("workers") && !names.contains('●')).then_some(())
    });
}

#[test]
fn the_key_setup_offers_opens_the_board() {
    let sandbox = zellij_mcp_harness::Sandbox::new();
    let offered = zellij_mcp::setup::board_binding(&sandbox.plugin_url());
    let keybinds = &offered[offered.find("keybinds").expect("a keybinds block")..];
    let config = std::fs::read_to_string(sandbox.config_file()).unwrap();
    std::fs::write(sandbox.config_file(), format!("{config}{keybinds}\n")).unwrap();
    let name = format!("key-{}", std::process::id());
    let s = sandbox.start_session(&name, &zellij_mcp_harness::repo_layout(), true);
    let (mut client, _) = s.attach_and_wait();
    client.type_keys(b"\x1ba");
    until_board_shows(&client, "zellij-mcp agents · 0", 20);
    until_board_shows(&client, "No agents", 5);
    client.type_keys(b"\x1b");
    wait_for("the board hidden", Duration::from_secs(10), || {
        (!client.screen().contains("zellij-mcp agents ·")).then_some(())
    });
}
