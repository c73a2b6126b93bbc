//! MCP clients nobody here wrote, driving the built bridge on a real
//! session: the official Python SDK (PyPI `mcp`) and the MCP Inspector's CLI
//! (npm `@modelcontextprotocol/inspector`). `make test-deps` installs both,
//! pinned. What they report is checked against what happened in the session.

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::*;
use serde_json::Value;
use zellij_mcp_harness::{workspace_root, Session};

fn installed(path: PathBuf) -> PathBuf {
    assert!(
        path.exists(),
        "{} is missing: run `make test-deps`",
        path.display()
    );
    path
}

/// A client process with the test session's environment.
fn client(program: PathBuf, s: &Session) -> Command {
    let mut command = Command::new(installed(program));
    command
        .envs(s.sandbox().env())
        .env_remove("ZELLIJ")
        .env_remove("ZELLIJ_SESSION_NAME")
        .env_remove("ZELLIJ_PANE_ID");
    command
}

/// Runs a client to its end; its stdout, which must be JSON, and stderr.
fn json_from(mut command: Command) -> (Value, String) {
    let out = command.output().expect("start the client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{:?}: {}\nstdout: {stdout}\nstderr: {}",
        command.get_program(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let json = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    (json, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn the_python_sdk_lists_reads_runs_and_waits_with_progress() {
    let s = session("python-sdk");
    let marker = s.sandbox().work().join("from-python");
    let mut python = client(
        workspace_root().join("target/mcp-clients/venv/bin/python"),
        &s,
    );
    python
        .arg(workspace_root().join("bridge/tests/clients/python_sdk.py"))
        .arg(bridge())
        .arg(s.sandbox().zellij_path())
        .arg(&marker);
    let (seen, _) = json_from(python);

    let tools = seen["tools"].as_array().unwrap();
    assert!(tools.len() >= 20, "{tools:?}");
    assert!(tools.contains(&"zellij_wait_for".into()));
    assert_eq!(
        seen["pane"], "terminal_0",
        "the layout's shell pane: {seen}"
    );
    assert_eq!(seen["screen_pane"], seen["pane"]);
    assert_eq!(seen["run"]["exit_code"], 0, "{seen}");
    assert!(seen["run"]["output"]
        .as_str()
        .unwrap()
        .contains("run-output"));
    assert_eq!(
        std::fs::read_to_string(&marker).unwrap(),
        "from-python\n",
        "the command ran in the session"
    );
    assert_eq!(seen["wait"]["outcome"], "timeout", "{seen}");
    let progress = seen["progress"].as_array().unwrap();
    assert!(progress.len() >= 2, "progress notifications: {progress:?}");
    assert!(progress[0].as_str().unwrap().contains("wait_for"));
}

/// One Inspector CLI call: `--method` and its options; its output and
/// what it warned about.
fn inspect(s: &Session, args: &[&str]) -> (Value, String) {
    let inspector =
        workspace_root().join("bridge/tests/fixtures/inspector/node_modules/.bin/inspector");
    let mut command = client(inspector, s);
    command.arg("--cli");
    // The Inspector passes the server only a default environment; the
    // session's goes with -e.
    let zellij = s.sandbox().zellij_path().display().to_string();
    let env = s
        .sandbox()
        .env()
        .into_iter()
        .map(|(k, v)| format!("{}={}", k.to_string_lossy(), v.to_string_lossy()));
    for pair in env.chain([format!("ZELLIJ_MCP_ZELLIJ={zellij}")]) {
        command.args(["-e", &pair]);
    }
    command.arg(bridge()).args(args);
    json_from(command)
}

#[test]
fn the_inspector_cli_lists_reads_and_runs() {
    let s = session("inspector");
    let (listed, warnings) = inspect(&s, &["--method", "tools/list", "--strict"]);
    assert!(
        !warnings.contains("Warning") && !warnings.contains("Error"),
        "schemas a client may not take: {warnings}"
    );
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"zellij_run") && names.len() >= 20,
        "{names:?}"
    );

    let call = |tool: &str, args: &[&str]| {
        let mut all = vec!["--method", "tools/call", "--tool-name", tool];
        for arg in args {
            all.extend(["--tool-arg", arg]);
        }
        let (result, _) = inspect(&s, &all);
        assert_ne!(result["isError"], true, "{tool}: {result}");
        result["structuredContent"].clone()
    };
    let panes = call("zellij_list_panes", &[]);
    assert_eq!(panes["panes"][0]["pane_id"], "terminal_0", "{panes}");
    let screen = call("zellij_read", &["pane_id=terminal_0"]);
    assert_eq!(screen["pane_id"], "terminal_0");

    let marker = s.sandbox().work().join("from-inspector");
    let script = format!("echo from-inspector > {}", marker.display());
    let command = serde_json::to_string(&["sh", "-c", &script]).unwrap();
    let ran = call("zellij_run", &[&format!("command={command}")]);
    assert_eq!(ran["exit_code"], 0, "{ran}");
    assert_eq!(
        std::fs::read_to_string(&marker).unwrap(),
        "from-inspector\n",
        "the command ran in the session"
    );
}
