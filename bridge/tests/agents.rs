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

/// `zellij-mcp hook` as a program's hook runs it: `env` over the sandbox's,
/// `stdin` written (then left open when `close` is false). Its exit code,
/// what it printed, and how long it took.
fn hook(
    s: &zellij_mcp_harness::Session,
    env: &[(&str, &str)],
    args: &[&str],
    stdin: &[u8],
    close: bool,
) -> (Option<i32>, String, Duration) {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let started = std::time::Instant::now();
    let mut command = Command::new(bridge());
    command
        .arg("hook")
        .args(args)
        .envs(s.sandbox().env())
        .env_remove("ZELLIJ_SESSION_NAME")
        .env_remove("ZELLIJ_PANE_ID")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    // A hook that stops reading early closes the pipe: that is no error.
    let _ = input.write_all(stdin);
    let kept_open = (!close).then_some(input);
    let out = child.wait_with_output().unwrap();
    drop(kept_open);
    let printed = String::from_utf8_lossy(&[out.stdout, out.stderr].concat()).into_owned();
    (out.status.code(), printed, started.elapsed())
}

/// What `zellij-mcp agents --explain` prints for `pane`.
fn explained(s: &zellij_mcp_harness::Session, pane: &str) -> String {
    let out = std::process::Command::new(bridge())
        .args(["agents", "--session", s.name(), "--explain", pane])
        .envs(s.sandbox().env())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_hook_tells_the_plugin_and_never_fails_or_slows_its_program() {
    let s = session("hooks");
    let plain = mcp(&s, "socket");
    let shell = shell_pane(&plain);
    let id = shell.trim_start_matches("terminal_").to_owned();
    let inside = [
        ("ZELLIJ_SESSION_NAME", s.name()),
        ("ZELLIJ_PANE_ID", id.as_str()),
    ];
    let quiet = |(code, printed, took): (Option<i32>, String, Duration), what: &str| {
        assert_eq!((code, printed.as_str()), (Some(0), ""), "{what}");
        assert!(took < Duration::from_secs(5), "{what} took {took:?}");
    };

    // Claude Code's Stop on stdin; a prompt; then Codex's notify as its
    // argument, with a last message longer than a request's field holds.
    let stop = br#"{"hook_event_name":"Stop","session_id":"s1","last_assistant_message":"done."}"#;
    quiet(hook(&s, &inside, &[], stop, true), "a turn's end");
    let told = wait_for("the hook told", Duration::from_secs(10), || {
        let explained = explained(&s, &shell);
        explained.contains("hooks: turn_ended").then_some(explained)
    });
    assert!(told.contains("(conversation s1)"), "{told}");
    let prompt = br#"{"hook_event_name":"UserPromptSubmit","prompt":"go"}"#;
    quiet(hook(&s, &inside, &[], prompt, true), "a prompt");
    wait_for("the prompt told", Duration::from_secs(10), || {
        explained(&s, &shell)
            .contains("hooks: turn_started")
            .then_some(())
    });
    let long = "é".repeat(8 * 1024);
    let notify = format!(
        r#"{{"type":"agent-turn-complete","thread-id":"t1","last-assistant-message":"{long}"}}"#
    );
    quiet(hook(&s, &inside, &[&notify], b"", true), "Codex's notify");
    wait_for("the notify told", Duration::from_secs(10), || {
        explained(&s, &shell)
            .contains("hooks: turn_ended")
            .then_some(())
    });

    // Whatever comes, it ends at once, quietly, with 0.
    quiet(hook(&s, &[], &[], stop, true), "outside Zellij");
    let gone = [
        ("ZELLIJ_SESSION_NAME", "no-such-session"),
        ("ZELLIJ_PANE_ID", "0"),
    ];
    quiet(hook(&s, &gone, &[], stop, true), "no plugin");
    quiet(hook(&s, &inside, &[], b"garbage {", true), "garbage");
    let huge = format!(
        r#"{{"hook_event_name":"Stop","last_assistant_message":"{}"}}"#,
        "x".repeat(10 * 1024 * 1024)
    );
    quiet(hook(&s, &inside, &[], huge.as_bytes(), true), "10 MB");
    // A payload may come late (a loaded machine's Qwen Code took 4 s), so
    // stdin left open is waited for, 10 s at most.
    let (code, printed, took) = hook(&s, &inside, &[], b"", false);
    assert_eq!((code, printed.as_str()), (Some(0), ""), "stdin left open");
    assert!(
        took < Duration::from_secs(15),
        "stdin left open took {took:?}"
    );
    let explained = explained(&s, &shell);
    assert!(
        explained.contains("hooks: turn_ended") && explained.contains("(conversation s1)"),
        "nothing else told, and notify named no conversation: {explained}"
    );
}
