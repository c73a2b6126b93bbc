//! `zellij_run`: a command line in a bash pane the user already has,
//! beside the same command in a new pane.

use std::path::Path;
use std::time::Duration;

use serde_json::json;
use zellij_mcp_harness::{wait_for, Mcp, Session};

use crate::table::{measure, Table};

pub fn shell_runs(table: &mut Table, session: &Session, bridge: &Path, rounds: usize) {
    table.section("zellij_run of `true`: in an existing bash pane, and in a new pane");
    let mcp = Mcp::start(bridge, session.sandbox(), &[]);
    let opened = mcp.ok(
        "zellij_new_pane",
        json!({"command": ["bash", "--norc", "--noprofile"], "placement": "tiled"}),
    );
    let pane = opened["pane_id"].as_str().expect("a pane").to_owned();
    wait_for("bash at its prompt", Duration::from_secs(20), || {
        let read = mcp.ok("zellij_read", json!({"pane_id": pane}));
        (read["state"] == "prompt").then_some(())
    });
    let in_shell = json!({"pane_id": pane, "command": "true"});
    let samples = measure(rounds, || {
        let ran = mcp.ok("zellij_run", in_shell.clone());
        assert_eq!(ran["exit_code"], 0, "{ran}");
    });
    let shell = table.timed(
        "in an idle bash pane (typed, exit reported by `zellij pipe`)",
        samples,
        "target p50 ≤ 20 ms",
    );
    let new_pane = json!({"command": ["true"], "close_on_exit": true});
    let samples = measure(rounds.min(50), || {
        let ran = mcp.ok("zellij_run", new_pane.clone());
        assert_eq!(ran["exit_code"], 0, "{ran}");
    });
    let pane_stats = table.timed("in a new pane, closed after", samples, "");
    table.note(&format!(
        "the shell run takes {:.2}× the new pane's time",
        shell.p50 / pane_stats.p50
    ));
}
