//! Calls made through the official Python MCP SDK, as a Python agent makes
//! them (`bridge/tests/clients/sdk_bench.py`, in the venv `make test-deps`
//! makes): each caller a session of its own, with a bridge of its own.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};
use zellij_mcp_harness::{workspace_root, Session};

/// What one caller saw.
pub struct Caller {
    pub took: Vec<Duration>,
    pub errors: usize,
    /// Each call's structured result.
    pub results: Vec<Value>,
}

/// All callers of one run.
pub struct Run {
    pub callers: Vec<Caller>,
    /// From the first call to the last reply.
    pub elapsed: Duration,
    /// CPU seconds the Python client used over the calls, and the bridges
    /// over their lives.
    pub client_cpu: f64,
    pub bridges_cpu: f64,
}

/// Runs `plan` (tool, arguments) from each of `callers` sessions at once;
/// `None` when the Python SDK is not installed.
pub fn run(
    session: &Session,
    bridge: &Path,
    callers: usize,
    plan: &[(&str, Value)],
) -> Option<Run> {
    let root = workspace_root();
    let python = root.join("target/mcp-clients/venv/bin/python");
    if !python.exists() {
        eprintln!("bench: no Python SDK (run `make test-deps`); its rows are left out");
        return None;
    }
    let mut child = Command::new(python)
        .arg(root.join("bridge/tests/clients/sdk_bench.py"))
        .arg(bridge)
        .arg(session.sandbox().zellij_path())
        .arg(callers.to_string())
        .envs(session.sandbox().env())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the Python SDK bench client");
    let plan: Vec<Value> = plan
        .iter()
        .map(|(tool, args)| json!([tool, args]))
        .collect();
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(Value::from(plan).to_string().as_bytes())
        .expect("the plan");
    drop(stdin);
    let out = child
        .wait_with_output()
        .expect("the Python SDK bench client");
    assert!(out.status.success(), "sdk_bench.py failed");
    let seen: Value = serde_json::from_slice(&out.stdout).expect("its JSON");
    let callers = seen["callers"].as_array().expect("callers");
    Some(Run {
        callers: callers.iter().map(caller).collect(),
        elapsed: Duration::from_secs_f64(seen["seconds"].as_f64().unwrap_or_default()),
        client_cpu: seen["client_cpu"].as_f64().unwrap_or_default(),
        bridges_cpu: seen["bridges_cpu"].as_f64().unwrap_or_default(),
    })
}

fn caller(seen: &Value) -> Caller {
    let ms = seen["ms"].as_array().cloned().unwrap_or_default();
    Caller {
        took: ms
            .iter()
            .map(|ms| Duration::from_secs_f64(ms.as_f64().unwrap_or_default() / 1000.0))
            .collect(),
        errors: seen["errors"].as_u64().unwrap_or_default() as usize,
        results: seen["results"].as_array().cloned().unwrap_or_default(),
    }
}
