//! What this server lets through, and what it records: with `--read-only`
//! every tool that changes anything is hidden and refused; with
//! `--audit-log FILE` each call of such a tool appends one JSON line (time,
//! tool, target, arguments, outcome), typed text only as a SHA-256 hash and
//! a length. A tool changes something unless its annotations say it is
//! read-only, so the list is kept in one place: the tool definitions.

use std::collections::HashSet;
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use rmcp::model::{CallToolRequestParams, CallToolResponse, JsonObject, Tool};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use zellij_mcp_protocol::{Error, ErrorBody};

/// Arguments whose text is kept out of the log.
const TYPED_TEXT: &[&str] = &["text"];

pub struct Policy {
    read_only: bool,
    /// Tools that change something.
    mutating: HashSet<String>,
    audit: Option<Mutex<File>>,
}

impl Policy {
    /// The policy for `tools`; opens (appends to) the audit log.
    pub fn new(tools: &[Tool], read_only: bool, audit_log: Option<&Path>) -> std::io::Result<Self> {
        let mutating = tools
            .iter()
            .filter(|tool| {
                let read_only = tool.annotations.as_ref().and_then(|a| a.read_only_hint);
                read_only != Some(true)
            })
            .map(|tool| tool.name.to_string())
            .collect();
        let audit = match audit_log {
            Some(path) => Some(Mutex::new(crate::server::private::append_privately(path)?)),
            None => None,
        };
        Ok(Policy {
            read_only,
            mutating,
            audit,
        })
    }

    /// Tools hidden from the list: in read-only mode, all that change something.
    pub fn hidden(&self) -> impl Iterator<Item = &str> {
        self.mutating
            .iter()
            .map(String::as_str)
            .filter(|_| self.read_only)
    }

    /// The refusal of a call, when the policy refuses it.
    pub fn refusal(&self, tool: &str) -> Option<ErrorBody> {
        (self.read_only && self.mutating.contains(tool)).then(|| {
            ErrorBody::from(Error::ReadOnly {
                tool: tool.to_owned(),
            })
        })
    }

    /// Starts an audit record of a call, when it is to be recorded.
    pub fn audit(&self, request: &CallToolRequestParams) -> Option<Audit> {
        let arguments = request.arguments.clone().unwrap_or_default();
        self.audit_call(&request.name, arguments)
    }

    /// Starts an audit record of a call of `tool`, when it is to be recorded.
    pub fn audit_call(&self, tool: &str, arguments: JsonObject) -> Option<Audit> {
        (self.audit.is_some() && self.mutating.contains(tool)).then(|| Audit {
            started: Instant::now(),
            tool: tool.to_owned(),
            arguments,
        })
    }

    /// Appends the record of a finished call.
    pub fn record(&self, audit: Audit, outcome: &Outcome) {
        let Some(log) = &self.audit else { return };
        let line = audit.line(outcome).to_string() + "\n";
        let mut file = log.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = file.write_all(line.as_bytes()).and_then(|_| file.flush()) {
            tracing::warn!("could not write the audit log: {e}");
        }
    }
}

/// How a call ended, as the audit log tells it.
pub enum Outcome<'a> {
    Response(&'a Result<CallToolResponse, rmcp::ErrorData>),
    Refused(&'a ErrorBody),
    /// A call from the command line (`notify`), with its result as JSON.
    Done(Result<Value, &'a ErrorBody>),
}

/// A call being recorded.
pub struct Audit {
    started: Instant,
    tool: String,
    arguments: JsonObject,
}

impl Audit {
    fn line(&self, outcome: &Outcome) -> Value {
        let (result, error) = match outcome {
            Outcome::Refused(body) | Outcome::Done(Err(body)) => {
                (None, Some(body.code.as_str().to_owned()))
            }
            Outcome::Done(Ok(result)) => (Some(result.clone()), None),
            Outcome::Response(Ok(CallToolResponse::Complete(result))) => {
                let text = result
                    .content
                    .iter()
                    .find_map(|c| c.as_text())
                    .map(|t| t.text.as_str());
                match result.is_error {
                    Some(true) => (None, Some(error_code(text.unwrap_or_default()))),
                    _ => (result.structured_content.clone(), None),
                }
            }
            Outcome::Response(Ok(_)) => (None, None),
            Outcome::Response(Err(e)) => (None, Some(format!("protocol: {}", e.message))),
        };
        let left = result.as_ref().map(|r| {
            json!({"session": r.get("session"), "pane_id": r.get("pane_id"), "tab_id": r.get("tab_id")})
        });
        json!({
            "time_ms": SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or_default(),
            "tool": self.tool,
            "target": {
                "session": self.arguments.get("session"),
                "pane_id": self.arguments.get("pane_id"),
                "tab": self.arguments.get("tab"),
            },
            "arguments": hide_typed_text(&self.arguments),
            "outcome": if error.is_some() { "error" } else { "ok" },
            "error": error,
            "left": left,
            "elapsed_ms": self.started.elapsed().as_millis() as u64,
        })
    }
}

/// The code a tool error's text starts with (`code: message Fix: ...`).
fn error_code(text: &str) -> String {
    text.split(':').next().unwrap_or_default().trim().to_owned()
}

/// The arguments with typed text replaced by its SHA-256 and length.
fn hide_typed_text(arguments: &JsonObject) -> JsonObject {
    let mut shown = arguments.clone();
    for key in TYPED_TEXT {
        if let Some(Value::String(text)) = shown.get(*key) {
            let hash: String = Sha256::digest(text.as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            let hidden = json!({"sha256": hash, "bytes": text.len()});
            shown.insert((*key).to_owned(), hidden);
        }
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_text_is_only_a_hash_and_a_length() {
        let args = json!({"pane_id": "terminal_1", "text": "hunter2", "keys": ["Enter"]});
        let Value::Object(args) = args else {
            unreachable!()
        };
        let shown = Value::Object(hide_typed_text(&args));
        assert!(!shown.to_string().contains("hunter2"), "{shown}");
        assert_eq!(shown["text"]["bytes"], 7);
        assert_eq!(
            shown["text"]["sha256"],
            "f52fbd32b2b3b86ff88ef6c490628285f482af15ddcb29541f94bcf526a3f6c7"
        );
        assert_eq!(shown["keys"], json!(["Enter"]));
    }

    #[test]
    fn the_code_is_the_start_of_a_tool_error() {
        assert_eq!(
            error_code("pane_not_found: no pane Fix: list"),
            "pane_not_found"
        );
    }
}
