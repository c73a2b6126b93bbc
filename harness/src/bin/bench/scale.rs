//! Rows for sessions as users keep them: pane lists and reads as the
//! session grows to 10, 40 and 100 panes (ten shells stacked per tab, a
//! client attached), beside `zellij action list-panes` on the same
//! session; and reads with 1 and 4 clients attached. Each runs in a session
//! of its own, so the other rows see the session they always did.

use std::path::Path;

use serde_json::json;
use zellij_mcp_harness::{
    repo_layout, run_with_timeout, wait_for, AttachedClient, Mcp, Sandbox, Session,
};

use crate::channel::Channel;
use crate::sdk;
use crate::table::{measure, Stats, Table};

/// Shells per tab, stacked (so any number fits the client's screen).
const PER_TAB: usize = 10;

pub fn pane_counts(table: &mut Table, bridge: &Path, rounds: usize) {
    let session = Sandbox::new().start_session("bench-scale", &repo_layout(), true);
    let (_client, _) = session.attach_and_wait();
    let mcp = Mcp::start(bridge, session.sandbox(), &[]);
    let small = small_pane(&mcp);
    let channel = Channel::socket(&session);
    let mut first: Option<(Stats, Stats, Option<Stats>)> = None;
    let mut tabs = 0;
    for panes in [10, 40, 100] {
        while count_terminals(&mcp) < panes {
            add_tab(&mcp, tabs, (panes - count_terminals(&mcp)).min(PER_TAB));
            tabs += 1;
        }
        let lists = measure(rounds, || {
            mcp.ok("zellij_list_panes", json!({}));
        });
        let list = table.timed(&format!("zellij_list_panes, {panes} panes"), lists, "");
        let bytes = serde_json::to_string(&mcp.call("zellij_list_panes", json!({})))
            .map_or(0, |answer| answer.len());
        table.note(&format!(
            "the answer: {:.1} KB, {} bytes a pane (target ≤ 20 KB at 100)",
            bytes as f64 / 1000.0,
            bytes / panes
        ));
        let plan = vec![("zellij_list_panes", json!({})); rounds];
        let sdk = sdk::run(&session, bridge, 1, &plan).map(|run| {
            let took = run.callers.into_iter().flat_map(|c| c.took).collect();
            let what = format!("zellij_list_panes via the Python SDK, {panes} panes");
            table.timed(&what, took, "")
        });
        let raw = measure(rounds, || {
            channel.call("list_panes", json!({}));
        });
        table.timed(
            &format!("`list_panes` straight to the plugin, socket, {panes} panes"),
            raw,
            "",
        );
        let zellij = measure(rounds.min(50), || zellij_list_panes(&session));
        let zellij = table.timed(
            &format!("`zellij action list-panes --all`, {panes} panes"),
            zellij,
            "",
        );
        let reads = measure(rounds, || {
            mcp.ok("zellij_read", json!({"pane_id": small}));
        });
        let read = table.timed(
            &format!("zellij_read of one small pane, {panes} panes"),
            reads,
            "",
        );
        let (list0, read0, sdk0) = *first.get_or_insert((list, read, sdk));
        table.note(&format!(
            "list: {:.2}× `list-panes` (target ≤ 0.2), {:.2}× its own at 10 panes (target ≤ 3); \
             read: {:.2}× at 10 panes (target ≤ 1.25)",
            list.p50 / zellij.p50,
            list.p50 / list0.p50,
            read.p50 / read0.p50
        ));
        if let (Some(sdk), Some(sdk0)) = (sdk, sdk0) {
            table.note(&format!(
                "through the Python SDK: {:.2}× `list-panes`, {:.2}× at 10 panes",
                sdk.p50 / zellij.p50,
                sdk.p50 / sdk0.p50
            ));
        }
    }
}

pub fn clients(table: &mut Table, bridge: &Path, rounds: usize) {
    let session = Sandbox::new().start_session("bench-clients", &repo_layout(), true);
    let mcp = Mcp::start(bridge, session.sandbox(), &[]);
    let small = small_pane(&mcp);
    let mut read = |clients: usize| {
        let samples = measure(rounds, || {
            mcp.ok("zellij_read", json!({"pane_id": small}));
        });
        table.timed(
            &format!("zellij_read of one small pane, {clients} client(s) attached"),
            samples,
            "",
        )
    };
    let one = attached(&session, 1);
    let alone = read(1);
    drop(one);
    let four = attached(&session, 4);
    let all = read(4);
    table.note(&format!(
        "4 clients / 1: {:.2}× (target ≤ 1.25)",
        all.p50 / alone.p50
    ));
    drop(four);
    cleared_with_two_clients(table, &session, &mcp, rounds);
}

/// `count` clients attached, each with its plugin instance loaded (a
/// loading instance costs the server while it loads).
fn attached(session: &Session, count: usize) -> Vec<AttachedClient> {
    let (clients, _) = session.attach_clients_and_wait(count);
    if let Err(seen) = session.wait_for_plugin_instances(count) {
        panic!("the clients' plugin instances did not load: {seen}");
    }
    clients
}

/// A read of a pane whose screen was cleared (Zellij keeps its rows as
/// wide as the pane), two clients attached, beside `dump-screen` of it.
fn cleared_with_two_clients(table: &mut Table, session: &Session, mcp: &Mcp, rounds: usize) {
    let _two = attached(session, 2);
    let script = "printf '\\033[H\\033[2J\\033[3J'; echo one line; exec sleep 3600";
    let pane = mcp.ok(
        "zellij_new_pane",
        json!({"command": ["sh", "-c", script], "placement": "tiled"}),
    );
    let pane = pane["pane_id"].as_str().unwrap().to_owned();
    wait_for(
        "the cleared pane",
        std::time::Duration::from_secs(30),
        || {
            let read = mcp.ok("zellij_read", json!({"pane_id": pane}));
            read["text"].as_str()?.contains("one line").then_some(())
        },
    );
    let reads = measure(rounds, || {
        mcp.ok("zellij_read", json!({"pane_id": pane}));
    });
    let read = table.timed(
        "zellij_read of a cleared pane, 2 clients attached",
        reads,
        "",
    );
    let dumps = measure(rounds.min(50), || {
        session.dump_screen(&pane, false);
    });
    let dump = table.timed("`zellij action dump-screen` of it", dumps, "");
    table.note(&format!(
        "the read is {:.1}× faster (target ≥ 10×)",
        dump.p50 / read.p50
    ));
}

/// A floating pane that printed one short line and sleeps.
fn small_pane(mcp: &Mcp) -> String {
    let pane = mcp.ok(
        "zellij_new_pane",
        json!({"command": ["sh", "-c", "echo small; exec sleep 3600"], "placement": "floating"}),
    );
    let pane = pane["pane_id"].as_str().unwrap().to_owned();
    wait_for("the small pane", std::time::Duration::from_secs(30), || {
        let read = mcp.ok("zellij_read", json!({"pane_id": pane}));
        read["text"].as_str()?.contains("small").then_some(())
    });
    pane
}

fn count_terminals(mcp: &Mcp) -> usize {
    let listed = mcp.ok("zellij_list_panes", json!({}));
    listed["panes"].as_array().map_or(0, Vec::len)
}

/// A tab of `shells` stacked shells; waits until they are listed.
fn add_tab(mcp: &Mcp, index: usize, shells: usize) {
    let before = count_terminals(mcp);
    let stack: String = (0..shells).map(|_| "        pane\n").collect();
    let layout = format!("layout {{\n    pane stacked=true {{\n{stack}    }}\n}}\n");
    mcp.ok(
        "zellij_new_tab",
        json!({"name": format!("scale-{index}"), "layout": layout}),
    );
    wait_for(
        "the new tab's panes",
        std::time::Duration::from_secs(60),
        || (count_terminals(mcp) >= before + shells).then_some(()),
    );
}

fn zellij_list_panes(session: &Session) {
    let mut cmd = session.sandbox().zellij();
    cmd.args([
        "--session",
        session.name(),
        "action",
        "list-panes",
        "--all",
        "--json",
    ]);
    run_with_timeout(cmd, std::time::Duration::from_secs(30)).expect("list-panes");
}
