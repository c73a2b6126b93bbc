//! Every way a call can fail, in one place.
//!
//! [`Error`] has one variant per [`ErrorCode`]; each knows its message and
//! its fix. On the wire an error is an [`ErrorBody`] `{code, message,
//! hint}`, where `hint` is the fix. [`ErrorCode::meaning`] and
//! [`ErrorCode::fix`] are what the errors table in docs/tools.md says
//! (a test keeps the two in step).

use serde::{Deserialize, Serialize};

use crate::PROTOCOL_VERSION;

/// Why a request failed. Serialized in snake_case, e.g. `pane_not_found`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    NotReady,
    BadRequest,
    UnknownOp,
    UnsupportedVersion,
    PaneNotFound,
    TabNotFound,
    WrongPaneKind,
    PermissionDenied,
    Unsupported,
    PluginNotLoaded,
    SessionNotFound,
    Timeout,
    Transport,
    Busy,
    Draft,
    Asking,
    NotAnAgent,
    ResultUnknown,
    ReplyLost,
    ReadOnly,
    Cancelled,
    Internal,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 22] = [
        ErrorCode::NotReady,
        ErrorCode::BadRequest,
        ErrorCode::UnknownOp,
        ErrorCode::UnsupportedVersion,
        ErrorCode::PaneNotFound,
        ErrorCode::TabNotFound,
        ErrorCode::WrongPaneKind,
        ErrorCode::PermissionDenied,
        ErrorCode::Unsupported,
        ErrorCode::PluginNotLoaded,
        ErrorCode::SessionNotFound,
        ErrorCode::Timeout,
        ErrorCode::Transport,
        ErrorCode::Busy,
        ErrorCode::Draft,
        ErrorCode::Asking,
        ErrorCode::NotAnAgent,
        ErrorCode::ResultUnknown,
        ErrorCode::ReplyLost,
        ErrorCode::ReadOnly,
        ErrorCode::Cancelled,
        ErrorCode::Internal,
    ];

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
            ErrorCode::Draft => "draft",
            ErrorCode::Asking => "asking",
            ErrorCode::NotAnAgent => "not_an_agent",
            ErrorCode::ResultUnknown => "result_unknown",
            ErrorCode::ReplyLost => "reply_lost",
            ErrorCode::ReadOnly => "read_only",
            ErrorCode::Cancelled => "cancelled",
            ErrorCode::Internal => "internal",
        }
    }

    /// What the code means.
    pub fn meaning(self) -> &'static str {
        match self {
            ErrorCode::NotReady => {
                "the plugin is loaded but has not received the session's state yet"
            }
            ErrorCode::BadRequest => {
                "the arguments are malformed, out of range or refused; nothing happened"
            }
            ErrorCode::UnknownOp => "the plugin does not know the op (it is older than the bridge)",
            ErrorCode::UnsupportedVersion => "the plugin speaks another protocol version",
            ErrorCode::PaneNotFound => "no pane with that id in the session",
            ErrorCode::TabNotFound => "no tab with that id or name in the session",
            ErrorCode::WrongPaneKind => "the pane exists but cannot take this call (a plugin pane)",
            ErrorCode::PermissionDenied => {
                "this server may not act here (it cannot tell its own pane)"
            }
            ErrorCode::Unsupported => "Zellij 0.45.1 cannot do this",
            ErrorCode::PluginNotLoaded => "no zellij-mcp plugin answers in the session",
            ErrorCode::SessionNotFound => "no such live session, or several and none named",
            ErrorCode::Timeout => "no reply in time",
            ErrorCode::Transport => "the connection to the session failed",
            ErrorCode::Busy => "the caller has its share of something under way",
            ErrorCode::Draft => {
                "the pane's line holds text a person typed and did not send, or may"
            }
            ErrorCode::Asking => {
                "the pane shows a dialog, question or menu, and these keys would answer it"
            }
            ErrorCode::NotAnAgent => {
                "the pane runs no agent program: a message would be typed into another program"
            }
            ErrorCode::ResultUnknown => {
                "the command ran, but its exit code or output could not be known exactly"
            }
            ErrorCode::ReplyLost => "the request may have run, but its reply is gone: no longer kept, or the plugin instance that took it went with its client (or a reload) before it answered",
            ErrorCode::ReadOnly => "the server is read-only and the tool would change something",
            ErrorCode::Cancelled => "the client cancelled the call",
            ErrorCode::Internal => "something failed inside Zellij, the plugin or the bridge",
        }
    }

    /// The usual fix; an error's own fix can be more precise.
    pub fn fix(self) -> &'static str {
        match self {
            ErrorCode::NotReady => "retry in a moment",
            ErrorCode::BadRequest => "change the arguments as the error says",
            ErrorCode::UnknownOp | ErrorCode::UnsupportedVersion => {
                "use the bridge and plugin from the same zellij-mcp release"
            }
            ErrorCode::PaneNotFound => "call zellij_list_panes for the current pane ids",
            ErrorCode::TabNotFound => "use one of the tabs the error lists",
            ErrorCode::WrongPaneKind => "pass a terminal_N pane id from zellij_list_panes",
            ErrorCode::PermissionDenied => {
                "run the server outside the session, or with ZELLIJ_PANE_ID set"
            }
            ErrorCode::Unsupported => "do it another way, as the error says",
            ErrorCode::PluginNotLoaded => {
                "run `zellij-mcp setup`, then start the session again; `zellij-mcp doctor` says what is missing"
            }
            ErrorCode::SessionNotFound => "pass `session`, or start the bridge with --session NAME",
            ErrorCode::Timeout => "retry; if it persists, check the session is responsive",
            ErrorCode::Transport => {
                "check the session is still running (`zellij list-sessions`), then retry"
            }
            ErrorCode::Busy => "wait for some of it to end, then retry",
            ErrorCode::Draft => {
                "leave the line to the person: retry once they sent or cleared it, or use another pane"
            }
            ErrorCode::Asking => {
                "leave it to the person, or pass answer: true to answer it on purpose (it is logged)"
            }
            ErrorCode::NotAnAgent => {
                "send to an agent's pane or name (a name waits for its agent; an agent names itself with zellij_register_agent), or type with zellij_write"
            }
            ErrorCode::ResultUnknown => "read the pane (zellij_read) before running it again",
            ErrorCode::ReplyLost => {
                "look at the state it left (list or read) before sending it again"
            }
            ErrorCode::ReadOnly => {
                "use the read-only tools, or restart the server without --read-only"
            }
            ErrorCode::Cancelled => "call the tool again",
            ErrorCode::Internal => "retry; if it persists, check Zellij's log",
        }
    }
}

/// A failed call: one variant per [`ErrorCode`], with what its message needs.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    NotReady {
        problem: String,
    },
    BadRequest {
        problem: String,
        fix: String,
    },
    UnknownOp {
        op: String,
    },
    UnsupportedVersion {
        version: u32,
    },
    /// `problem` says which pane, and how it was looked for.
    PaneNotFound {
        problem: String,
    },
    /// `tab` as the caller named it; `tabs`, the ones there are.
    TabNotFound {
        tab: String,
        tabs: String,
    },
    WrongPaneKind {
        pane: String,
    },
    PermissionDenied {
        problem: String,
        fix: String,
    },
    Unsupported {
        problem: String,
        fix: String,
    },
    PluginNotLoaded {
        problem: String,
        fix: String,
    },
    SessionNotFound {
        problem: String,
        fix: String,
    },
    Timeout {
        problem: String,
    },
    Transport {
        session: String,
        why: String,
    },
    Busy {
        problem: String,
        fix: String,
    },
    /// `line`, the row the cursor is on.
    Draft {
        pane: String,
        line: String,
    },
    Asking {
        pane: String,
    },
    /// `program`, what the pane runs, when known.
    NotAnAgent {
        pane: String,
        program: Option<String>,
    },
    ResultUnknown {
        problem: String,
    },
    ReplyLost {
        problem: String,
        fix: String,
    },
    ReadOnly {
        tool: String,
    },
    Cancelled,
    /// `fix` is `None` when the usual one ([`ErrorCode::fix`]) fits.
    Internal {
        problem: String,
        fix: Option<String>,
    },
}

impl Error {
    pub fn bad_request(problem: impl Into<String>, fix: impl Into<String>) -> Self {
        Error::BadRequest {
            problem: problem.into(),
            fix: fix.into(),
        }
    }

    pub fn busy(problem: impl Into<String>, fix: impl Into<String>) -> Self {
        Error::Busy {
            problem: problem.into(),
            fix: fix.into(),
        }
    }

    pub fn internal(problem: impl Into<String>) -> Self {
        Error::Internal {
            problem: problem.into(),
            fix: None,
        }
    }

    /// The usual "there is no pane" for a pane id.
    pub fn no_pane(pane: impl std::fmt::Display) -> Self {
        Error::PaneNotFound {
            problem: format!("there is no pane {pane} in this session"),
        }
    }

    pub fn code(&self) -> ErrorCode {
        match self {
            Error::NotReady { .. } => ErrorCode::NotReady,
            Error::BadRequest { .. } => ErrorCode::BadRequest,
            Error::UnknownOp { .. } => ErrorCode::UnknownOp,
            Error::UnsupportedVersion { .. } => ErrorCode::UnsupportedVersion,
            Error::PaneNotFound { .. } => ErrorCode::PaneNotFound,
            Error::TabNotFound { .. } => ErrorCode::TabNotFound,
            Error::WrongPaneKind { .. } => ErrorCode::WrongPaneKind,
            Error::PermissionDenied { .. } => ErrorCode::PermissionDenied,
            Error::Unsupported { .. } => ErrorCode::Unsupported,
            Error::PluginNotLoaded { .. } => ErrorCode::PluginNotLoaded,
            Error::SessionNotFound { .. } => ErrorCode::SessionNotFound,
            Error::Timeout { .. } => ErrorCode::Timeout,
            Error::Transport { .. } => ErrorCode::Transport,
            Error::Busy { .. } => ErrorCode::Busy,
            Error::Draft { .. } => ErrorCode::Draft,
            Error::Asking { .. } => ErrorCode::Asking,
            Error::NotAnAgent { .. } => ErrorCode::NotAnAgent,
            Error::ResultUnknown { .. } => ErrorCode::ResultUnknown,
            Error::ReplyLost { .. } => ErrorCode::ReplyLost,
            Error::ReadOnly { .. } => ErrorCode::ReadOnly,
            Error::Cancelled => ErrorCode::Cancelled,
            Error::Internal { .. } => ErrorCode::Internal,
        }
    }

    pub fn message(&self) -> String {
        match self {
            Error::UnknownOp { op } => format!("unknown op '{op}'"),
            Error::UnsupportedVersion { version } => format!(
                "protocol v{version} is not supported; this plugin speaks v{PROTOCOL_VERSION}"
            ),
            Error::TabNotFound { tab, .. } => format!("there is no {tab}"),
            Error::WrongPaneKind { pane } => {
                format!("{pane} is a plugin pane; this needs a terminal pane")
            }
            Error::Transport { session, why } => {
                format!("lost the connection to session '{session}': {why}")
            }
            Error::ReadOnly { tool } => {
                format!("{tool} changes the session, and this server is read-only")
            }
            Error::Cancelled => "cancelled by the client".to_owned(),
            Error::Draft { pane, line } if line.is_empty() => format!(
                "{pane}'s shell shows no prompt where its cursor is, so its line may hold a person's text; nothing was typed"
            ),
            Error::Draft { pane, line } => format!(
                "{pane}'s line may hold text a person typed and did not send (the cursor's row reads `{line}`), and a run would send it; nothing was typed"
            ),
            Error::Asking { pane } => format!(
                "{pane} shows a dialog, question or menu, and anything typed would answer it; nothing was typed"
            ),
            Error::NotAnAgent { pane, program } => format!(
                "{pane} runs no agent program and has no agent name{}; a message would be typed into it as input, so none was queued",
                program.as_ref().map(|p| format!(" (it runs {p})")).unwrap_or_default()
            ),
            Error::NotReady { problem }
            | Error::BadRequest { problem, .. }
            | Error::PaneNotFound { problem }
            | Error::PermissionDenied { problem, .. }
            | Error::Unsupported { problem, .. }
            | Error::PluginNotLoaded { problem, .. }
            | Error::SessionNotFound { problem, .. }
            | Error::Timeout { problem }
            | Error::ResultUnknown { problem }
            | Error::Busy { problem, .. }
            | Error::ReplyLost { problem, .. }
            | Error::Internal { problem, .. } => problem.clone(),
        }
    }

    pub fn fix(&self) -> String {
        match self {
            Error::TabNotFound { tabs, .. } => format!("use one of: {tabs}"),
            Error::BadRequest { fix, .. }
            | Error::PermissionDenied { fix, .. }
            | Error::Unsupported { fix, .. }
            | Error::PluginNotLoaded { fix, .. }
            | Error::SessionNotFound { fix, .. }
            | Error::Busy { fix, .. }
            | Error::ReplyLost { fix, .. }
            | Error::Internal { fix: Some(fix), .. } => fix.clone(),
            _ => self.code().fix().to_owned(),
        }
    }
}

impl From<Error> for ErrorBody {
    fn from(error: Error) -> Self {
        ErrorBody {
            code: error.code(),
            message: error.message(),
            hint: Some(error.fix()),
        }
    }
}

/// A failed request on the wire: a code to branch on, a message, and how
/// to fix it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorBody {
    pub code: ErrorCode,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
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

    #[test]
    fn code_names_are_the_serialized_names() {
        for code in ErrorCode::ALL {
            let name = serde_json::to_value(code).unwrap();
            assert_eq!(name.as_str().unwrap(), code.as_str());
        }
    }

    #[test]
    fn an_error_becomes_its_code_message_and_fix() {
        let body = ErrorBody::from(Error::WrongPaneKind {
            pane: "plugin_2".into(),
        });
        assert_eq!(body.code, ErrorCode::WrongPaneKind);
        assert_eq!(
            body.to_string(),
            "wrong_pane_kind: plugin_2 is a plugin pane; this needs a terminal pane \
             Fix: pass a terminal_N pane id from zellij_list_panes"
        );
        let body = ErrorBody::from(Error::bad_request("missing pane_id", "pass pane_id"));
        assert_eq!(
            body.to_string(),
            "bad_request: missing pane_id Fix: pass pane_id"
        );
    }

    /// The errors table (docs/tools.md) says what [`ErrorCode::meaning`]
    /// and [`ErrorCode::fix`] say, for every code and no other.
    #[test]
    fn the_errors_table_lists_each_code_with_its_meaning_and_fix() {
        let page = include_str!("../../docs/tools.md");
        // The table under its header row, up to its first line that is no row.
        let rows: Vec<&str> = page
            .lines()
            .skip_while(|line| *line != "| code | means | usual fix (each error says its own) |")
            .skip(2)
            .take_while(|line| line.starts_with("| `"))
            .collect();
        let expected: Vec<String> = ErrorCode::ALL
            .iter()
            .map(|code| {
                format!(
                    "| `{}` | {} | {} |",
                    code.as_str(),
                    code.meaning(),
                    code.fix()
                )
            })
            .collect();
        assert_eq!(rows, expected, "the errors table, row for row");
    }
}
