//! What an agent program's hook says: each program's payload (the JSON its
//! hook gets on stdin, or the JSON argument Codex's `notify` passes) read
//! into one [`HookEvent`] for the pane it runs in (`zellij-mcp hook`).
//! Payloads are read by their own field names, so one reader serves every
//! program whose hooks use them (Claude Code, Qwen Code, Codex's hooks and
//! `notify`, Gemini CLI); a payload it does not know is no event.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Most bytes of a payload read; a longer one is no event.
pub const MAX_PAYLOAD_BYTES: usize = 1024 * 1024;
/// Most characters of a turn's last message or a question kept.
pub const MAX_TOLD_CHARS: usize = 4096;

/// What a program's hook tells of its agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HookEvent {
    /// Its session started (or was resumed): the record it writes.
    SessionStarted {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        record: Option<String>,
    },
    /// A prompt was submitted: a turn is under way.
    TurnStarted,
    /// The turn ended, with its last message where the program gives it.
    TurnEnded {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        last_message: Option<String>,
    },
    /// It asks the person (a permission): what it asks.
    Asking {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        what: Option<String>,
    },
    /// Its session ended.
    SessionEnded,
}

impl HookEvent {
    /// Its name, as `agents --explain` shows it.
    pub fn name(&self) -> &'static str {
        match self {
            HookEvent::SessionStarted { .. } => "session_started",
            HookEvent::TurnStarted => "turn_started",
            HookEvent::TurnEnded { .. } => "turn_ended",
            HookEvent::Asking { .. } => "asking",
            HookEvent::SessionEnded => "session_ended",
        }
    }
}

/// A payload read: its event, and the conversation it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Told {
    pub event: HookEvent,
    pub conversation: Option<String>,
}

/// The event `payload` tells; `None` for one that is not JSON, too long,
/// or of an event that does not matter here.
pub fn read(payload: &[u8]) -> Option<Told> {
    if payload.len() > MAX_PAYLOAD_BYTES {
        return None;
    }
    let json: Value = serde_json::from_slice(payload).ok()?;
    let field = |name: &str| json.get(name).and_then(Value::as_str).map(kept);
    // Codex's `notify`: its one kind of call.
    if json.get("type").and_then(Value::as_str) == Some("agent-turn-complete") {
        return Some(Told {
            event: HookEvent::TurnEnded {
                last_message: field("last-assistant-message"),
            },
            conversation: field("thread-id"),
        });
    }
    let event = match json.get("hook_event_name").and_then(Value::as_str)? {
        "SessionStart" => HookEvent::SessionStarted {
            record: field("transcript_path"),
        },
        "UserPromptSubmit" | "BeforeAgent" => HookEvent::TurnStarted,
        "Stop" | "StopFailure" => HookEvent::TurnEnded {
            last_message: field("last_assistant_message"),
        },
        "AfterAgent" => HookEvent::TurnEnded {
            last_message: field("prompt_response"),
        },
        "PermissionRequest" => HookEvent::Asking {
            what: field("tool_name"),
        },
        "Notification" if asks(field("notification_type").as_deref()) => HookEvent::Asking {
            what: field("message"),
        },
        "SessionEnd" => HookEvent::SessionEnded,
        _ => return None,
    };
    Some(Told {
        event,
        conversation: field("session_id"),
    })
}

/// Whether a notification is a permission asked (Claude Code's
/// `permission_prompt`, Gemini CLI's `ToolPermission`), not an idle nudge.
fn asks(kind: Option<&str>) -> bool {
    matches!(kind, Some("permission_prompt" | "ToolPermission"))
}

/// `text`, cut to [`MAX_TOLD_CHARS`].
fn kept(text: &str) -> String {
    text.chars().take(MAX_TOLD_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn told(payload: &str) -> Option<Told> {
        read(payload.as_bytes())
    }

    #[test]
    fn each_programs_payload_is_read_into_its_event() {
        let start = told(
            r#"{"hook_event_name":"SessionStart","session_id":"s1","transcript_path":"/h/s1.jsonl","source":"startup"}"#,
        );
        assert_eq!(
            start,
            Some(Told {
                event: HookEvent::SessionStarted {
                    record: Some("/h/s1.jsonl".into())
                },
                conversation: Some("s1".into()),
            })
        );
        let stop = told(
            r#"{"hook_event_name":"Stop","session_id":"s1","last_assistant_message":"done."}"#,
        );
        assert_eq!(
            stop.unwrap().event,
            HookEvent::TurnEnded {
                last_message: Some("done.".into())
            }
        );
        let gemini =
            told(r#"{"hook_event_name":"AfterAgent","session_id":"g","prompt_response":"ok"}"#);
        assert_eq!(
            gemini.unwrap().event,
            HookEvent::TurnEnded {
                last_message: Some("ok".into())
            }
        );
        let codex = told(
            r#"{"type":"agent-turn-complete","thread-id":"t1","turn-id":"1","last-assistant-message":"hi"}"#,
        );
        assert_eq!(
            codex,
            Some(Told {
                event: HookEvent::TurnEnded {
                    last_message: Some("hi".into())
                },
                conversation: Some("t1".into()),
            })
        );
        for submitted in ["UserPromptSubmit", "BeforeAgent"] {
            let payload = format!(r#"{{"hook_event_name":"{submitted}"}}"#);
            assert_eq!(told(&payload).unwrap().event, HookEvent::TurnStarted);
        }
        let asked = told(
            r#"{"hook_event_name":"Notification","notification_type":"ToolPermission","message":"Allow ls?"}"#,
        );
        assert_eq!(
            asked.unwrap().event,
            HookEvent::Asking {
                what: Some("Allow ls?".into())
            }
        );
        let permission = told(r#"{"hook_event_name":"PermissionRequest","tool_name":"Bash"}"#);
        assert_eq!(
            permission.unwrap().event,
            HookEvent::Asking {
                what: Some("Bash".into())
            }
        );
        let end = told(r#"{"hook_event_name":"SessionEnd"}"#);
        assert_eq!(end.unwrap().event, HookEvent::SessionEnded);
    }

    #[test]
    fn what_does_not_matter_or_cannot_be_read_is_no_event() {
        let idle = r#"{"hook_event_name":"Notification","notification_type":"idle_prompt"}"#;
        assert_eq!(told(idle), None, "an idle nudge asks nothing");
        assert_eq!(told(r#"{"hook_event_name":"PreToolUse"}"#), None);
        assert_eq!(told("not json"), None);
        assert_eq!(told(r#"{"no":"event"}"#), None);
        assert_eq!(told(""), None);
        let long = format!(
            r#"{{"hook_event_name":"Stop","last_assistant_message":"{}"}}"#,
            "x".repeat(MAX_PAYLOAD_BYTES)
        );
        assert_eq!(told(&long), None, "past the limit");
        let kept = format!(
            r#"{{"hook_event_name":"Stop","last_assistant_message":"{}"}}"#,
            "é".repeat(MAX_TOLD_CHARS * 2)
        );
        let HookEvent::TurnEnded {
            last_message: Some(message),
        } = told(&kept).unwrap().event
        else {
            panic!("a turn's end")
        };
        assert_eq!(message.chars().count(), MAX_TOLD_CHARS);
    }
}
