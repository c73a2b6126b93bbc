//! Claude Code for real in a Zellij pane, against the scripted stand-in for
//! the model API (`clients/model_api.py`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;
pub use zellij_mcp_harness::programs::ModelApi;
use zellij_mcp_harness::programs::{seed_claude_home, CLAUDE_KEY as KEY};
use zellij_mcp_harness::{wait_for, workspace_root, Mcp, Session};

/// The newest Claude Code tested, and the first version supported.
pub const NEWEST: &str = "claude-code";
pub const FIRST: &str = "claude-code-2.1.197";

/// The `claude` of a fixture (`NEWEST` or `FIRST`).
pub fn claude_bin(fixture: &str) -> PathBuf {
    let bin = workspace_root()
        .join("bridge/tests/fixtures")
        .join(fixture)
        .join("node_modules/.bin/claude");
    assert!(
        bin.exists(),
        "run `make test-deps` (Claude Code, {fixture})"
    );
    bin
}

/// The command line that starts `program` (a `claude`, or `zellij-mcp
/// claude …`) with its own home, against `api`, asking nothing at start.
pub fn claude_command(s: &Session, api: &ModelApi, cwd: &Path, program: &[String]) -> Vec<String> {
    let home = s.sandbox().root().join("claude-home");
    std::fs::create_dir_all(cwd).unwrap();
    seed_claude_home(&home, cwd, KEY);
    let env = |name: &str, value: &str| format!("{name}={value}");
    let mut command = vec![
        "env".to_owned(),
        env("HOME", home.to_str().unwrap()),
        env(
            "ANTHROPIC_BASE_URL",
            &format!("http://127.0.0.1:{}", api.port),
        ),
        env("ANTHROPIC_API_KEY", KEY),
        env("CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS", "1"),
        env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
        env("DISABLE_AUTOUPDATER", "1"),
        env(
            "ZELLIJ_MCP_ZELLIJ",
            s.sandbox().zellij_path().to_str().unwrap(),
        ),
    ];
    command.extend(program.iter().cloned());
    command
}

/// Opens Claude Code (`fixture`) in default permission mode in a new tiled
/// pane, registered as `name`; returns its pane id once its composer shows.
pub fn open_claude(s: &Session, mcp: &Mcp, api: &ModelApi, fixture: &str, name: &str) -> String {
    let cwd = s.sandbox().work();
    let program = [
        claude_bin(fixture).display().to_string(),
        "--permission-mode".into(),
        "default".into(),
    ];
    let command = claude_command(s, api, &cwd, &program);
    let opened = mcp.ok(
        "zellij_new_pane",
        json!({"command": command, "cwd": cwd, "placement": "tiled", "agent_name": name}),
    );
    let pane = opened["pane_id"].as_str().unwrap().to_owned();
    let ready = mcp.ok(
        "zellij_wait_for",
        json!({"pane_id": pane, "pattern": "for shortcuts", "include_existing": true, "timeout_ms": 90000}),
    );
    assert_eq!(
        ready["outcome"], "matched",
        "Claude Code's composer: {ready}"
    );
    pane
}

/// Waits until the model API was sent a user text containing `text`.
pub fn until_sent(api: &ModelApi, text: &str) -> Vec<String> {
    wait_for(
        &format!("a request with {text:?}"),
        Duration::from_secs(60),
        || {
            let texts = api.user_texts();
            texts.iter().any(|t| t.contains(text)).then_some(texts)
        },
    )
}
