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
        "in an idle bash pane (typed, exit reported on the session socket)",
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

/// Shell runs under load: bash, zsh and fish panes beside a pane printing
/// every 20 ms, with one client attached and then four; one run in ten is
/// killed by SIGINT, some print nothing and some 5,000 lines. Counts the
/// runs answered exactly (their exit code and whole output), those
/// answered with a typed error, and those answered wrong.
pub fn exact_runs(table: &mut Table, session: &Session, bridge: &Path, total: usize) {
    table.section("zellij_run exactness under load: bash, zsh, fish, a busy neighbour");
    let mcp = Mcp::start(bridge, session.sandbox(), &[]);
    mcp.ok(
        "zellij_new_pane",
        json!({"command": ["sh", "-c", "while :; do date +%s%N; sleep 0.02; done"],
               "placement": "tiled"}),
    );
    let panes: Vec<String> = [
        &["bash", "--norc", "--noprofile"][..],
        &["zsh", "-f"],
        &["fish", "--no-config"],
    ]
    .iter()
    .map(|argv| shell_pane(&mcp, argv))
    .collect();
    let long: String = (1..=5000).map(|n| format!("{n}\n")).collect();
    let (mut clients, _) = session.attach_clients_and_wait(1);
    let mut tally = Tally::default();
    for n in 0..total {
        if n == total / 2 {
            tally.row(table, "1 client attached");
            tally = Tally::default();
            clients.clear();
            clients = session.attach_clients_and_wait(4).0;
        }
        let pane = &panes[n % panes.len()];
        let (line, code, output) = match n % 10 {
            0 => (
                "sh -c 'echo dying; kill -INT $$'".to_owned(),
                130,
                "dying".to_owned(),
            ),
            1 => ("true".to_owned(), 0, String::new()),
            2 if n % 100 == 2 => ("seq 1 5000".to_owned(), 0, long.trim_end().to_owned()),
            _ => (
                format!("echo run-{n}; sh -c 'exit {}'", n % 7),
                n % 7,
                format!("run-{n}"),
            ),
        };
        let args =
            json!({"pane_id": pane, "command": line, "timeout_ms": 60000, "max_bytes": 1 << 20});
        let answer = mcp.call("zellij_run", args);
        tally.count(&answer, code, &output);
    }
    tally.row(table, &format!("{} clients attached", clients.len()));
}

/// Answers to runs, by how right they were.
#[derive(Default)]
struct Tally {
    exact: usize,
    errors: Vec<String>,
    wrong: Vec<String>,
}

impl Tally {
    fn count(&mut self, answer: &rmcp::model::CallToolResult, code: usize, output: &str) {
        let Some(ran) = answer.structured_content.as_ref() else {
            self.errors.push(zellij_mcp_harness::text_of(answer));
            return;
        };
        match ran["exit_code"] == code && ran["output"] == output && ran["truncated"] == false {
            true => self.exact += 1,
            false => self.wrong.push(format!("expected {code}: {ran}")),
        }
    }

    fn row(&self, table: &mut Table, what: &str) {
        let all = self.exact + self.errors.len() + self.wrong.len();
        table.figure(
            &format!("runs answered exactly, {what}"),
            &format!("{} / {all}", self.exact),
            &format!(
                "{} typed errors, {} wrong answers; target: all exact",
                self.errors.len(),
                self.wrong.len()
            ),
        );
        let seen: std::collections::BTreeSet<String> = self
            .errors
            .iter()
            .chain(&self.wrong)
            .map(|seen| seen.chars().take(200).collect())
            .collect();
        for seen in seen.iter().take(3) {
            table.note(seen);
        }
    }
}

/// A new tiled pane running the shell `argv`, once it is at its prompt.
fn shell_pane(mcp: &Mcp, argv: &[&str]) -> String {
    let opened = mcp.ok(
        "zellij_new_pane",
        json!({"command": argv, "placement": "tiled"}),
    );
    let pane = opened["pane_id"].as_str().expect("a pane").to_owned();
    wait_for("the shell at its prompt", Duration::from_secs(60), || {
        let read = mcp.ok("zellij_read", json!({"pane_id": pane}));
        (read["state"] == "prompt").then_some(())
    });
    pane
}
