//! What the bridge tells where a platform's process table tells less:
//! a bridge with its process table turned off answers every question about
//! processes with the typed, honest error or no state, never a guess; and
//! the rule macOS tells a shell's prompt by (its terminal in its line
//! editor's mode) holds for real bash, zsh and fish.

mod common;

use std::time::Duration;

use common::{bridge, mcp, screen, session, type_line, until_state};
use serde_json::{json, Value};
use zellij_mcp::processes::macos::terminal_edits_lines;
use zellij_mcp_harness::{wait_for, Mcp};

/// The shells runs are typed into, without the user's configuration.
const SHELLS: [&[&str]; 3] = [
    &["bash", "--norc", "--noprofile"],
    &["zsh", "-f"],
    &["fish", "--no-config"],
];

fn listed(mcp: &Mcp, pane: &str) -> Value {
    wait_for(&format!("{pane} listed"), Duration::from_secs(20), || {
        let listed = mcp.ok("zellij_list_panes", json!({}));
        let found = listed["panes"]
            .as_array()?
            .iter()
            .find(|p| p["pane_id"] == pane);
        found.cloned()
    })
}

#[test]
fn without_a_process_table_every_answer_is_typed_and_none_is_a_guess() {
    let s = session("no-table");
    let env = [("ZELLIJ_MCP_PROCESS_TABLE", "none")];
    let blind = Mcp::start_with_env(&bridge(), s.sandbox(), &["--transport", "socket"], &env);
    let opened = blind.ok(
        "zellij_new_pane",
        json!({"command": ["bash", "--norc", "--noprofile"], "placement": "tiled"}),
    );
    let pane = opened["pane_id"].as_str().unwrap().to_owned();
    let seeing = mcp(&s, "socket");
    until_state(&seeing, &pane, "prompt");

    // No state where the processes would tell it; the screen still shows.
    let listed = listed(&blind, &pane);
    assert!(listed.get("state").is_none(), "{listed}");
    let read = blind.ok("zellij_read", json!({"pane_id": pane}));
    assert!(read.get("state").is_none(), "{read}");
    assert!(read["text"].as_str().unwrap().contains("bash-"), "{read}");

    let waited = blind.err(
        "zellij_wait_for",
        json!({"pane_id": pane, "until_state": "prompt", "timeout_ms": 2000}),
    );
    assert!(
        waited.starts_with("unsupported:") && waited.contains("cannot tell when a pane is prompt"),
        "{waited}"
    );

    // A run into the shell is refused before anything is typed.
    let refused = blind.err(
        "zellij_run",
        json!({"pane_id": pane, "command": "echo typed-by-run > ran"}),
    );
    assert!(
        refused.starts_with("unsupported:") && refused.contains("process table turned off"),
        "{refused}"
    );
    assert!(
        !screen(&seeing, &pane).contains("typed-by-run"),
        "nothing typed"
    );
    // A run in a new pane needs no process table.
    let ran = blind.ok("zellij_run", json!({"command": ["sh", "-c", "exit 4"]}));
    assert_eq!(ran["exit_code"], 4, "{ran}");

    // Not told its pane, it cannot tell whether it acts on itself: refused
    // unless the caller says it means to.
    let close = json!({"pane_id": pane});
    let refused = blind.err("zellij_close", close.clone());
    assert!(refused.starts_with("permission_denied:"), "{refused}");
    assert!(listed_still(&seeing, &pane), "refused, so not closed");
    blind.ok("zellij_close", json!({"pane_id": pane, "force": true}));
}

fn listed_still(mcp: &Mcp, pane: &str) -> bool {
    let listed = mcp.ok("zellij_list_panes", json!({}));
    let panes = listed["panes"].as_array().unwrap().clone();
    panes.iter().any(|p| p["pane_id"] == pane)
}

/// The terminal of `pane`'s own process, from its standard input.
fn terminal_of(mcp: &Mcp, pane: &str) -> std::path::PathBuf {
    let read = mcp.ok("zellij_read", json!({"pane_id": pane}));
    let pid = read["pid"].as_u64().expect("the pane's pid");
    std::fs::read_link(format!("/proc/{pid}/fd/0")).unwrap()
}

fn until_edits_lines(terminal: &std::path::Path, edits: bool, what: &str) {
    wait_for(what, Duration::from_secs(20), || {
        (terminal_edits_lines(terminal) == Some(edits)).then_some(())
    });
}

#[test]
fn a_shell_waits_in_its_line_editor_exactly_while_its_terminal_is_in_the_editors_mode() {
    let s = session("line-mode");
    let mcp = mcp(&s, "socket");
    for argv in SHELLS {
        let opened = mcp.ok(
            "zellij_new_pane",
            json!({"command": argv, "placement": "tiled"}),
        );
        let pane = opened["pane_id"].as_str().unwrap().to_owned();
        until_state(&mcp, &pane, "prompt");
        let terminal = terminal_of(&mcp, &pane);
        let shell = argv[0];
        until_edits_lines(
            &terminal,
            true,
            &format!("{shell} at its prompt: editor's mode"),
        );
        type_line(&mcp, &pane, "read answer");
        // fish reads with its own line editor in `read` too (as on Linux,
        // where it waits in `select` there as at its prompt).
        let in_read = shell == "fish";
        until_edits_lines(&terminal, in_read, &format!("{shell} in `read`"));
        type_line(&mcp, &pane, "given");
        until_edits_lines(&terminal, true, &format!("{shell} back at its prompt"));
        type_line(&mcp, &pane, "cat");
        until_state(&mcp, &pane, "waiting_input");
        assert_eq!(
            terminal_edits_lines(&terminal),
            Some(false),
            "{shell} running cat"
        );
        mcp.ok("zellij_write", json!({"pane_id": pane, "keys": ["Ctrl d"]}));
        until_edits_lines(&terminal, true, &format!("{shell} back after cat"));
    }
}
