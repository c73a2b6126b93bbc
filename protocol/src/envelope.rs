//! Request and reply envelopes.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::errors::{Error, ErrorBody};
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
        let args = serde_json::to_value(args).map_err(|e| {
            Error::bad_request(e.to_string(), "pass arguments the op's type can hold")
        })?;
        Ok(Request::new(id, O::NAME, args))
    }

    pub fn by_caller(mut self, caller: Option<PaneRef>) -> Self {
        self.caller = caller;
        self
    }
}

/// The client a request id names: everything before its last `-` (a
/// bridge sends `zmcp-<pid>.<client>-<n>`). The plugin gives each client its own
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
            (false, None) => {
                Err(Error::internal("the plugin replied ok:false without an error").into())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::ErrorCode;
    use serde_json::json;

    #[test]
    fn reply_round_trips_and_matches_the_documented_shape() {
        let ok = Reply::ok("7", json!({"a": 1}));
        assert_eq!(
            serde_json::to_value(&ok).unwrap(),
            json!({"v": 1, "id": "7", "ok": true, "result": {"a": 1}})
        );
        let err = Reply::err("8", Error::no_pane("terminal_9").into());
        let v = serde_json::to_value(&err).unwrap();
        assert_eq!(v["error"]["code"], "pane_not_found");
        assert_eq!(v["ok"], false);
        let back: Reply = serde_json::from_value(v).unwrap();
        assert_eq!(
            back.into_result().unwrap_err().code,
            ErrorCode::PaneNotFound
        );
    }
}
