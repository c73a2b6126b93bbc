//! Request and reply envelopes, and the typed error codes.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ops::Op;
use crate::{PaneRef, PROTOCOL_VERSION};

/// `{v:1, id, op, args, caller?}`: one operation for the plugin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    pub v: u32,
    pub id: String,
    pub op: String,
    #[serde(default)]
    pub args: Value,
    /// The pane the request comes from (the bridge's own), when known: new
    /// panes go to its tab, and it is never closed by accident.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caller: Option<PaneRef>,
}

impl Request {
    pub fn new(id: impl Into<String>, op: impl Into<String>, args: Value) -> Self {
        Request {
            v: PROTOCOL_VERSION,
            id: id.into(),
            op: op.into(),
            args,
            caller: None,
        }
    }

    /// A request for `O` with typed arguments.
    pub fn of<O: Op>(id: impl Into<String>, args: &O::Args) -> Result<Self, ErrorBody> {
        let args = serde_json::to_value(args)
            .map_err(|e| ErrorBody::new(ErrorCode::BadRequest, e.to_string()))?;
        Ok(Request::new(id, O::NAME, args))
    }

    pub fn by_caller(mut self, caller: Option<PaneRef>) -> Self {
        self.caller = caller;
        self
    }
}

/// The client a request id names: everything before its last `-` (a
/// bridge sends `zmcp-<pid>-<n>`). The plugin gives each client its own
/// share of what it caps (waits, requests under way, queued messages).
pub fn client_of(request_id: &str) -> &str {
    request_id
        .rsplit_once('-')
        .map_or(request_id, |(client, _)| client)
}

/// `{v:1, id, ok:true, result}` or `{v:1, id, ok:false, error}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    pub v: u32,
    pub id: String,
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
}

impl Reply {
    pub fn ok(id: impl Into<String>, result: Value) -> Self {
        Reply {
            v: PROTOCOL_VERSION,
            id: id.into(),
            ok: true,
            result: Some(result),
            error: None,
        }
    }

    pub fn err(id: impl Into<String>, error: ErrorBody) -> Self {
        Reply {
            v: PROTOCOL_VERSION,
            id: id.into(),
            ok: false,
            result: None,
            error: Some(error),
        }
    }

    /// The result, or the error body when `ok` is false.
    pub fn into_result(self) -> Result<Value, ErrorBody> {
        match (self.ok, self.error) {
            (true, _) => Ok(self.result.unwrap_or(Value::Null)),
            (false, Some(e)) => Err(e),
            (false, None) => Err(ErrorBody::new(
                ErrorCode::Internal,
                "the plugin replied ok:false without an error",
            )),
        }
    }
}

/// Why a request failed. Serialized in snake_case, e.g. `pane_not_found`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The plugin is loaded but has not received the session state yet.
    NotReady,
    /// The request or its arguments are malformed.
    BadRequest,
    /// The plugin does not know this op (it may be older than the bridge).
    UnknownOp,
    /// The protocol version `v` is not one the plugin speaks.
    UnsupportedVersion,
    PaneNotFound,
    TabNotFound,
    /// The pane exists but cannot take this operation (e.g. a plugin pane).
    WrongPaneKind,
    PermissionDenied,
    Unsupported,
    /// The bridge found no plugin answering in the session.
    PluginNotLoaded,
    SessionNotFound,
    /// The request got no reply in time.
    Timeout,
    /// The transport to Zellij failed.
    Transport,
    /// Too much is under way (e.g. waits); retry once some of it ends.
    Busy,
    /// The request ran, but its reply is no longer kept (`replay`).
    ReplyLost,
    /// The server is read-only and the tool would change something.
    ReadOnly,
    /// The client cancelled the call.
    Cancelled,
    Internal,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::NotReady => "not_ready",
            ErrorCode::BadRequest => "bad_request",
            ErrorCode::UnknownOp => "unknown_op",
            ErrorCode::UnsupportedVersion => "unsupported_version",
            ErrorCode::PaneNotFound => "pane_not_found",
            ErrorCode::TabNotFound => "tab_not_found",
            ErrorCode::WrongPaneKind => "wrong_pane_kind",
            ErrorCode::PermissionDenied => "permission_denied",
            ErrorCode::Unsupported => "unsupported",
            ErrorCode::PluginNotLoaded => "plugin_not_loaded",
            ErrorCode::SessionNotFound => "session_not_found",
            ErrorCode::Timeout => "timeout",
            ErrorCode::Transport => "transport",
            ErrorCode::Busy => "busy",
            ErrorCode::ReplyLost => "reply_lost",
            ErrorCode::ReadOnly => "read_only",
            ErrorCode::Cancelled => "cancelled",
            ErrorCode::Internal => "internal",
        }
    }
}

/// A failed request: a code to branch on, a message, and how to fix it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorBody {
    pub code: ErrorCode,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl ErrorBody {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ErrorBody {
            code,
            message: message.into(),
            hint: None,
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl std::fmt::Display for ErrorBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, " Fix: {hint}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reply_round_trips_and_matches_the_documented_shape() {
        let ok = Reply::ok("7", json!({"a": 1}));
        assert_eq!(
            serde_json::to_value(&ok).unwrap(),
            json!({"v": 1, "id": "7", "ok": true, "result": {"a": 1}})
        );
        let err = Reply::err(
            "8",
            ErrorBody::new(ErrorCode::PaneNotFound, "no pane terminal_9").with_hint("list panes"),
        );
        let v = serde_json::to_value(&err).unwrap();
        assert_eq!(v["error"]["code"], "pane_not_found");
        assert_eq!(v["ok"], false);
        let back: Reply = serde_json::from_value(v).unwrap();
        assert_eq!(
            back.into_result().unwrap_err().code,
            ErrorCode::PaneNotFound
        );
    }

    #[test]
    fn error_code_names_are_snake_case() {
        for code in [
            ErrorCode::NotReady,
            ErrorCode::BadRequest,
            ErrorCode::UnknownOp,
            ErrorCode::PluginNotLoaded,
            ErrorCode::WrongPaneKind,
            ErrorCode::Busy,
            ErrorCode::ReplyLost,
            ErrorCode::ReadOnly,
            ErrorCode::Cancelled,
        ] {
            let name = serde_json::to_value(code).unwrap();
            assert_eq!(name.as_str().unwrap(), code.as_str());
        }
    }

    #[test]
    fn display_names_the_code_and_the_fix() {
        let e = ErrorBody::new(ErrorCode::BadRequest, "missing pane_id").with_hint("pass pane_id");
        assert_eq!(
            e.to_string(),
            "bad_request: missing pane_id Fix: pass pane_id"
        );
    }
}
