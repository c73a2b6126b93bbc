//! Agent names on a real session: a bridge running in a pane names it, new
//! panes get names, every bridge sees them, bad or taken names are refused
//! and change nothing, names survive a plugin reload, and a closed pane's
//! name is free again.

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::*;
use serde_json::json;
use zellij_mcp_harness::{wait_for, Mcp};

/// Pane id → agent name, as `zellij_list_panes` shows them.
fn agent_names(mcp: &Mcp) -> BTreeMap<String, String> {
    panes(mcp)
        .into_iter()
        .filter_map(|p| {
            let agent = p["agent"].as_str()?.to_owned();
            Some((p["pane_id"].as_str()?.to_owned(), agent))
        })
        .collect()
}

#[test]
fn agents_are_named_listed_refused_kept_across_a_reload_and_released() {
    let s = session("agents");
    let plain = mcp(&s, "socket");
    let shell = shell_pane(&plain);
    let id: u32 = shell.trim_start_matches("terminal_").parse().unwrap();
    let agent = Mcp::start_in_pane(&bridge(), s.sandbox(), s.name(), id);

    let named = agent.ok("zellij_register_agent", json!({"name": "main"}));
    assert_eq!(
        (named["pane_id"].as_str(), named["name"].as_str()),
        (Some(shell.as_str()), Some("main"))
    );
    let child = agent.ok(
        "zellij_new_pane",
        json!({"command": ["sleep", "300"], "agent_name": "main.child", "placement": "background"}),
    );
    let child = child["pane_id"].as_str().unwrap().to_owned();
    assert!(s.zellij_has_pane(&child));
    let expected = BTreeMap::from([
        (shell.clone(), "main".to_owned()),
        (child.clone(), "main.child".to_owned()),
    ]);
    // Another bridge sees them (without a client, the plugin's pane list
    // comes from Zellij's session metadata, up to a second old).
    wait_for(
        "another bridge to see the names",
        Duration::from_secs(10),
        || (agent_names(&plain) == expected).then_some(()),
    );

    let count = s.zellij_panes().len();
    let bad = agent.err("zellij_register_agent", json!({"name": "has space"}));
    assert!(
        bad.starts_with("bad_request:") && bad.contains("Fix:"),
        "{bad}"
    );
    let taken = plain.err("zellij_new_pane", json!({"agent_name": "main.child"}));
    assert!(taken.contains(&child) && taken.contains("Fix:"), "{taken}");
    let nowhere = plain.err("zellij_register_agent", json!({"name": "lost"}));
    assert!(
        nowhere.starts_with("bad_request:"),
        "a bridge outside a pane: {nowhere}"
    );
    assert_eq!(s.zellij_panes().len(), count, "nothing was opened");
    assert_eq!(agent_names(&plain), expected, "nothing was renamed");

    // Zellij 0.45.1 reloads a plugin only for a connected client.
    let _client = s.attach_and_wait();
    let mut reload = s.sandbox().zellij();
    reload.args(["--session", s.name(), "action", "start-or-reload-plugin"]);
    reload.arg(s.sandbox().plugin_url());
    assert!(reload.status().unwrap().success());
    let after = wait_for(
        "the reloaded plugin to answer",
        Duration::from_secs(20),
        || {
            let listed = plain.call("zellij_list_panes", json!({}));
            (listed.is_error != Some(true)).then(|| agent_names(&plain))
        },
    );
    assert_eq!(after, expected, "names survive a plugin reload");

    plain.ok("zellij_close", json!({"pane_id": child}));
    let again = plain.ok(
        "zellij_new_pane",
        json!({"command": ["sleep", "300"], "agent_name": "main.child", "placement": "background"}),
    );
    let again = again["pane_id"].as_str().unwrap().to_owned();
    let expected = BTreeMap::from([(shell, "main".to_owned()), (again, "main.child".to_owned())]);
    wait_for(
        "the new pane's name to be listed",
        Duration::from_secs(10),
        || (agent_names(&plain) == expected).then_some(()),
    );
}
