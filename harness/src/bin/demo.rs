//! `make demo`: starts a Zellij session with the zellij-mcp layout and drives
//! it through the bridge as an MCP client, printing each step.
//!
//! Usage: demo [PATH-TO-zellij-mcp]

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{json, Value};
use zellij_mcp_harness::{repo_layout, wait_for, workspace_root, Mcp, Sandbox};

fn main() {
    let bridge = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target/release/zellij-mcp"));
    let name = format!("zellij-mcp-demo-{}", std::process::id());

    println!("1. Starting Zellij session '{name}' (headless) with layouts/zellij-mcp.kdl");
    let session = Sandbox::new().start_session(&name, &repo_layout(), true);
    println!("   the plugin answered; its permissions were pre-granted in a sandboxed cache\n");

    println!("2. Starting the MCP server: {}", bridge.display());
    let mcp = Mcp::start(&bridge, session.sandbox(), &[]);
    let (server, version) = mcp.server_name_and_version();
    let tools: Vec<String> = mcp
        .list_tools()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    println!(
        "   server {server} {version}; tools: {}\n",
        tools.join(", ")
    );

    println!("3. zellij_list_panes");
    let list = mcp.ok("zellij_list_panes", json!({}));
    let panes = list["panes"].as_array().cloned().unwrap_or_default();
    for pane in &panes {
        println!(
            "   {:<12} tab {:<3} {:<8} {:<10} {}",
            pane["pane_id"].as_str().unwrap_or_default(),
            pane["tab_id"],
            if pane["focused"] == true {
                "focused"
            } else {
                ""
            },
            pane["program"].as_str().unwrap_or_default(),
            pane["title"].as_str().unwrap_or_default()
        );
    }
    let shell = panes
        .iter()
        .find(|p| {
            p["pane_id"]
                .as_str()
                .is_some_and(|id| id.starts_with("terminal_"))
        })
        .and_then(|p| p["pane_id"].as_str())
        .expect("a terminal pane")
        .to_owned();

    let command = "echo \"hello from zellij-mcp: $((6 * 7))\"";
    println!("\n4. zellij_write into {shell} (by id; focus does not move): {command} + Enter");
    let wrote = mcp.ok(
        "zellij_write",
        json!({"pane_id": shell, "text": command, "keys": ["Enter"]}),
    );
    println!("   -> {}", compact(&wrote));

    println!("\n5. zellij_read {shell}");
    let text = wait_for("the output", Duration::from_secs(10), || {
        let read = mcp.ok("zellij_read", json!({"pane_id": shell}));
        let text = read["text"].as_str().unwrap_or_default().to_owned();
        text.contains("hello from zellij-mcp: 42").then_some(text)
    });
    for line in text.lines() {
        println!("   | {line}");
    }

    println!("\n6. zellij_run [\"sh\", \"-c\", \"echo building; sleep 1; exit 3\"] in a hidden pane, waiting for the exit");
    let ran = mcp.ok(
        "zellij_run",
        json!({"command": ["sh", "-c", "echo building; sleep 1; exit 3"]}),
    );
    println!(
        "   -> exit_code {} after {} ms, output {:?}",
        ran["exit_code"], ran["elapsed_ms"], ran["output"]
    );

    println!("\n7. zellij_wait_for 'ready' in {shell} while it prints it a second later");
    mcp.ok(
        "zellij_write",
        json!({"pane_id": shell, "text": "sleep 1; echo ready", "keys": ["Enter"]}),
    );
    let waited = mcp.ok(
        "zellij_wait_for",
        json!({"pane_id": shell, "pattern": "^ready$", "timeout_ms": 10000}),
    );
    println!(
        "   -> {} ({:?}) after {} ms",
        waited["outcome"], waited["line"], waited["elapsed_ms"]
    );

    println!("\n8. A bad pane id is a tool error that says how to fix it:");
    println!(
        "   -> {}",
        mcp.err("zellij_read", json!({"pane_id": "terminal_99"}))
    );

    drop(mcp);
    drop(session);
    println!("\nDone: the demo session was killed and its sandbox removed.");
}

fn compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}
