//! Rows for the person's board: with 5 and then 50 agents in the session
//! (panes with agent names drawing a composer, a client attached), the
//! `agents` op straight to the plugin, a read of a small pane beside them,
//! and the Zellij server's CPU (the plugin looks at every agent's screen
//! once a second) with no board, the board shown, and the board hidden.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::json;
use zellij_mcp_harness::{
    repo_layout, wait_for, AttachedClient, Mcp, Sandbox, Session, AGENT_SCREENS,
};

use crate::channel::Channel;
use crate::table::{measure, Stats, Table};
use crate::{cpu_share, server_pid};

/// Has the agents draw their screens again, as on a resize (`SIGWINCH`):
/// now and then Zellij shows a pane added beside many others in a
/// background tab empty (`dump-screen` too), and an agent drawn once never
/// draws again by itself.
fn redraw<'a>(mcp: &Mcp, agents: impl Iterator<Item = &'a serde_json::Value>) {
    for agent in agents {
        let read = mcp.call("zellij_read", json!({"pane_id": agent["pane_id"]}));
        let pid = read
            .structured_content
            .as_ref()
            .and_then(|r| r["pid"].as_u64());
        if let Some(pid) = pid {
            let _ = Command::new("kill")
                .args(["-WINCH", &pid.to_string()])
                .status();
        }
    }
}

/// How long the server's CPU is watched for each figure.
const CPU_SPAN: Duration = Duration::from_secs(5);

/// The rows; the `agents` op's figures with 50 agents.
pub fn agents(table: &mut Table, bridge: &Path, rounds: usize) -> Stats {
    table.section("the person's board: 5 and 50 agents, a client attached");
    let session = Sandbox::new().start_session("bench-board", &repo_layout(), true);
    let (mut client, _) = session.attach_and_wait();
    let mcp = Mcp::start(bridge, session.sandbox(), &[]);
    let channel = Channel::socket(&session);
    let server = server_pid(&session);
    let script = session.sandbox().work().join("agent.sh");
    std::fs::write(&script, AGENT_SCREENS).expect("agent script");
    let small = mcp.ok("zellij_new_pane", json!({"placement": "background"}));
    let small = small["pane_id"].as_str().expect("pane id").to_owned();
    let mut first: Option<(Stats, Stats, f64)> = None;
    let mut op_50 = None;
    let mut named = 0;
    for count in [5, 50] {
        for n in named..count {
            // Ten a tab, in the background: full-size screens, as agents have.
            let tab = format!("agents-{}", n / 10);
            if n % 10 == 0 {
                mcp.ok("zellij_new_tab", json!({"name": tab}));
            }
            let never = session.sandbox().work().join("never");
            // Idle agents look at nothing: each look would cost a process.
            let command = json!(["sh", script, never, "600"]);
            let args = json!({"tab": tab, "command": command, "agent_name": format!("a{n}"), "placement": "background"});
            mcp.ok("zellij_new_pane", args);
        }
        named = count;

        let mut nudged = std::time::Instant::now();
        wait_for("the agents idle", Duration::from_secs(60), || {
            let rows = channel.call("agents", json!({}));
            let agents = rows["agents"].as_array()?;
            let idle = agents.iter().filter(|a| a["state"] == "idle").count();
            if idle < count && nudged.elapsed() > Duration::from_secs(5) {
                nudged = std::time::Instant::now();
                redraw(&mcp, agents.iter().filter(|a| a["state"] != "idle"));
            }
            (idle == count).then_some(())
        });
        let took = measure(rounds, || {
            channel.call("agents", json!({}));
        });
        let op = table.timed(
            &format!("`agents` straight to the plugin, {count} agents"),
            took,
            "",
        );
        let took = measure(rounds, || {
            mcp.ok("zellij_read", json!({"pane_id": small}));
        });
        let read = table.timed(
            &format!("zellij_read of one small pane, {count} agents"),
            took,
            "",
        );
        let cpu = server.map_or(0.0, |pid| cpu_share(pid, CPU_SPAN));
        table.figure(
            &format!("Zellij server CPU, {count} agents, no board"),
            &format!("{:.1}% of a core", cpu * 100.0),
            "",
        );
        op_50 = Some(op);
        let (op0, read0, _) = *first.get_or_insert((op, read, cpu));
        table.note(&format!(
            "`agents` {:.2}×, read {:.2}× their p50 with 5 agents",
            op.p50 / op0.p50,
            read.p50 / read0.p50
        ));
    }
    let op_50 = op_50.expect("the rows with 50 agents");
    let Some(server) = server else {
        return op_50;
    };
    open_board(&session, bridge, &client);
    let shown = cpu_share(server, CPU_SPAN);
    client.type_keys(b"\x1b");
    wait_for("the board hidden", Duration::from_secs(10), || {
        (!client.screen().contains("zellij-mcp agents ·")).then_some(())
    });
    let hidden = cpu_share(server, CPU_SPAN);
    table.figure(
        "Zellij server CPU, 50 agents, the board shown / hidden",
        &format!("{:.1}% / {:.1}% of a core", shown * 100.0, hidden * 100.0),
        "hidden, it asks and draws nothing",
    );
    op_50
}

fn open_board(session: &Session, bridge: &Path, client: &AttachedClient) {
    let opened = Command::new(bridge)
        .arg("--zellij")
        .arg(session.sandbox().zellij_path())
        .arg("board")
        .envs(session.sandbox().env())
        .env_remove("ZELLIJ_SESSION_NAME")
        .env_remove("ZELLIJ_PANE_ID")
        .status()
        .expect("zellij-mcp board");
    assert!(opened.success());
    wait_for("the board shown", Duration::from_secs(20), || {
        client
            .screen()
            .contains("zellij-mcp agents · 50")
            .then_some(())
    });
}
