//! The plugin's lines in Zellij's log: one per request at `log_level
//! "debug"`, none at the default level.

mod common;

use std::time::Duration;

use serde_json::json;
use zellij_mcp_harness::{poll_for, repo_layout, wait_for, Mcp, Sandbox, Session};

/// A session whose plugin has `config` in its layout block.
fn session_with_plugin_config(test: &str, config: &str) -> Session {
    let sandbox = Sandbox::new();
    let layout = std::fs::read_to_string(repo_layout()).expect("layout");
    let url_line = layout
        .lines()
        .find(|line| line.contains("plugin location=\"file:"))
        .expect("the layout loads the plugin from a file");
    let configured = layout.replace(
        url_line,
        &format!("{} {{\n{config}\n}}", url_line.trim_end()),
    );
    let path = sandbox.work().join("configured.kdl");
    std::fs::write(&path, configured).expect("write layout");
    let name = format!("{test}-{}", std::process::id());
    sandbox.start_session(&name, &path, true)
}

#[test]
fn at_debug_each_request_and_each_error_gets_a_line_in_zellijs_log() {
    let session = session_with_plugin_config("log-debug", r#"log_level "debug""#);
    let mcp = Mcp::start(&common::bridge(), session.sandbox(), &[]);
    mcp.ok("zellij_list_panes", json!({}));
    mcp.err("zellij_read", json!({"pane_id": "terminal_999"}));
    let log = wait_for(
        "the plugin's lines in Zellij's log",
        Duration::from_secs(10),
        || {
            let log = session.sandbox().zellij_log();
            log.contains(": pane_not_found: ").then_some(log)
        },
    );
    let requests: Vec<&str> = log
        .lines()
        .filter(|line| line.contains("zellij-mcp DEBUG: request "))
        .collect();
    assert!(
        requests
            .iter()
            .any(|line| line.contains(" list_panes from ")),
        "a line for the list: {requests:#?}"
    );
    assert!(
        requests
            .iter()
            .any(|line| line.contains(": pane_not_found: ") && line.contains("terminal_999")),
        "a line for the error: {requests:#?}"
    );
}

#[test]
fn an_unknown_level_is_named_in_the_log_and_requests_leave_no_line() {
    let session = session_with_plugin_config("log-default", r#"log_level "loud""#);
    let mcp = Mcp::start(&common::bridge(), session.sandbox(), &[]);
    mcp.ok("zellij_list_panes", json!({}));
    let warned = poll_for(Duration::from_secs(10), || {
        let log = session.sandbox().zellij_log();
        log.contains("zellij-mcp WARN: log_level \"loud\"")
            .then_some(())
    });
    assert!(
        warned.is_some(),
        "the plugin says which level it uses instead"
    );
    // The plugin writes a request's line before it replies.
    let log = session.sandbox().zellij_log();
    assert!(
        !log.contains("zellij-mcp DEBUG"),
        "no debug lines by default: {}",
        log.lines()
            .filter(|l| l.contains("zellij-mcp"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}
