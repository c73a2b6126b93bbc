//! What an agent program's hook says: each program's payload (the JSON its
//! hook gets on stdin, or the JSON argument Codex's `notify` passes) read
//! into one [`HookEvent`] for the pane it runs in (`zellij-mcp hook`).
//! Payloads are read by their own field names, so one reader serves every
//! program whose hooks use them (Claude Code, Qwen Code, Codex's hooks and
//! `notify`, Gemini CLI, and opencode's events as zellij-mcp's plugin for
//! it passes them); a payload it does not know is no event.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::agent_programs::GivenHooks;
use crate::launcher;

/// Most bytes of a payload read; a longer one is no event.
pub const MAX_PAYLOAD_BYTES: usize = 1024 * 1024;
/// Most bytes of a turn's last message, prompt or question kept (a
/// request's field holds no more, see [`crate::limits::MAX_FIELD_BYTES`]).
pub const MAX_TOLD_BYTES: usize = crate::limits::MAX_FIELD_BYTES;

/// What a program's hook tells of its agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HookEvent {
    /// Its session started (or was resumed): the record it writes.
    SessionStarted {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        record: Option<String>,
    },
    /// A prompt was submitted: a turn is under way, and its prompt.
    TurnStarted {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        prompt: Option<String>,
    },
    /// The turn ended, with its last message, and its prompt where the
    /// program gives them.
    TurnEnded {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        last_message: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        prompt: Option<String>,
    },
    /// A tool is about to be called: the turn goes on, and its reply is
    /// more than its last message.
    ToolCalled,
    /// A tool ran: the turn goes on (a question asked before it is
    /// answered).
    ToolDone,
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
            HookEvent::TurnStarted { .. } => "turn_started",
            HookEvent::TurnEnded { .. } => "turn_ended",
            HookEvent::ToolCalled => "tool_called",
            HookEvent::ToolDone => "tool_done",
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
        // Its inputs are the thread's so far: the turn's own is the last.
        let inputs = json.get("input-messages").and_then(Value::as_array);
        let prompt = inputs.and_then(|m| m.last()?.as_str().map(kept));
        return Some(Told {
            event: HookEvent::TurnEnded {
                last_message: field("last-assistant-message"),
                prompt,
            },
            // Its thread may be a side one (a title's), not the agent's.
            conversation: None,
        });
    }
    let event = match json.get("hook_event_name").and_then(Value::as_str)? {
        "SessionStart" => HookEvent::SessionStarted {
            record: field("transcript_path"),
        },
        "UserPromptSubmit" | "BeforeAgent" => HookEvent::TurnStarted {
            prompt: field("prompt"),
        },
        "Stop" => HookEvent::TurnEnded {
            last_message: field("last_assistant_message"),
            prompt: None,
        },
        // A turn that failed: what it last said is no reply.
        "StopFailure" => HookEvent::TurnEnded {
            last_message: None,
            prompt: None,
        },
        "AfterAgent" => HookEvent::TurnEnded {
            last_message: field("prompt_response"),
            prompt: field("prompt"),
        },
        "PreToolUse" | "BeforeTool" => HookEvent::ToolCalled,
        "PostToolUse" | "AfterTool" => HookEvent::ToolDone,
        "PermissionRequest" => HookEvent::Asking {
            what: field("tool_name"),
        },
        "Notification" if asks(field("notification_type").as_deref()) => HookEvent::Asking {
            what: field("message"),
        },
        "SessionEnd" => HookEvent::SessionEnded,
        // opencode's events, as zellij-mcp's plugin for it passes them.
        "session.created" => HookEvent::SessionStarted { record: None },
        "session.status" if field("status").as_deref() == Some("busy") => {
            HookEvent::TurnStarted { prompt: None }
        }
        "session.idle" => HookEvent::TurnEnded {
            last_message: None,
            prompt: None,
        },
        "permission.asked" => HookEvent::Asking {
            what: field("permission"),
        },
        "permission.replied" => HookEvent::ToolDone,
        _ => return None,
    };
    Some(Told {
        event,
        conversation: field("session_id"),
    })
}

/// The variable an agent launched with zellij-mcp's hooks has set when
/// those hooks tell each tool call (see [`tells_tool_calls`]): its hooks'
/// reports then count a turn's tool calls, so a turn told without any
/// is its last message alone.
pub const TELLS_TOOLS: &str = "ZELLIJ_MCP_HOOKS_TELL_TOOLS";

/// Whether hooks on `events` tell each tool call before it is made.
pub fn tells_tool_calls(events: &[String]) -> bool {
    events.iter().any(|name| {
        let payload = json!({ "hook_event_name": name }).to_string();
        read(payload.as_bytes()).is_some_and(|told| told.event == HookEvent::ToolCalled)
    })
}

/// Whether a notification is a permission asked (Claude Code's
/// `permission_prompt`, Gemini CLI's `ToolPermission`), not an idle nudge.
fn asks(kind: Option<&str>) -> bool {
    matches!(kind, Some("permission_prompt" | "ToolPermission"))
}

/// `text`, cut to [`MAX_TOLD_BYTES`] at a character's end.
fn kept(text: &str) -> String {
    let mut end = text.len().min(MAX_TOLD_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

/// The configuration form of Codex CLI's hooks (`-c hooks.Stop=[…]`).
pub const CODEX_CONFIG: &str = "codex";
/// The form of opencode's: a plugin of zellij-mcp's, named in
/// `OPENCODE_CONFIG_CONTENT`, that passes its events to the hook.
pub const OPENCODE_CONFIG: &str = "opencode";
/// The configuration forms there are.
const CONFIG_FORMS: [&str; 2] = [CODEX_CONFIG, OPENCODE_CONFIG];

/// Where a description's `hooks` arguments take the settings file's path.
pub const SETTINGS: &str = "{settings}";
/// Where they take the path of `zellij-mcp` itself, as the body of a quoted
/// string (`notify=["{bridge}","hook"]`).
pub const BRIDGE: &str = "{bridge}";

/// Why a description's hooks cannot be given; `Ok` when they can.
pub fn check(hooks: &GivenHooks) -> Result<(), String> {
    let names_file = hooks.env.is_some() || hooks.args.iter().any(|a| a.contains(SETTINGS));
    let in_config = hooks.config.is_some();
    match () {
        _ if hooks.config.as_deref().is_some_and(|form| !CONFIG_FORMS.contains(&form)) => Err(
            format!("config names the form of the program's configuration: one of {CONFIG_FORMS:?}"),
        ),
        _ if in_config && hooks.events.is_empty() => {
            Err("hooks in the configuration need the program's events (hook-events \"Stop\" …)".into())
        }
        _ if in_config => Ok(()),
        _ if hooks.user.is_some() && hooks.events.is_empty() => {
            Err("hooks in the person's settings need the program's events (hook-events \"Stop\" …)".into())
        }
        _ if hooks.user.is_some() && hooks.args.is_empty() && hooks.env.is_none() => Ok(()),
        _ if hooks.args.is_empty() && hooks.env.is_none() => {
            Err("hooks gives the arguments or env=\"NAME\" that give the program its hooks (hooks \"--settings\" \"{settings}\")".into())
        }
        _ if names_file && hooks.events.is_empty() => {
            Err("a settings file of hooks needs the program's events (hook-events \"Stop\" …)".into())
        }
        _ if !names_file && !hooks.events.is_empty() => {
            Err("hook-events go in a settings file: name it in hooks (\"{settings}\", or env=\"NAME\")".into())
        }
        _ if hooks.replaces.is_some() && hooks.env.is_none() => {
            Err("replaces= names the file env=\"NAME\" stands in for".into())
        }
        _ => Ok(()),
    }
}

/// The settings file that runs `zellij-mcp hook` (at `bridge`) on each of
/// `events`, over `theirs` (the settings of the file it stands in for,
/// whose own hooks stay).
pub fn settings(events: &[String], bridge: &str, theirs: Option<Value>) -> Value {
    let mut settings = match theirs {
        Some(Value::Object(theirs)) => Value::Object(theirs),
        _ => json!({}),
    };
    let command = hook_command(bridge);
    let ours = json!({"hooks": [{"type": "command", "command": command}]});
    if !settings["hooks"].is_object() {
        settings["hooks"] = json!({});
    }
    for event in events {
        let entries = &mut settings["hooks"][event.as_str()];
        match entries.as_array_mut() {
            Some(entries) => entries.push(ours.clone()),
            None => *entries = json!([ours.clone()]),
        }
    }
    settings
}

/// A command line and the variables to set for it.
pub type Launch = (Vec<String>, Vec<(String, String)>);

/// One launch of `argv` given `hooks`: the command line, with the hooks'
/// arguments right after the program (unless it has them already), and
/// the variables to set; `settings` is the settings file's path.
pub fn launch(
    hooks: &GivenHooks,
    argv: &[String],
    bridge: &str,
    settings: &str,
    config: &[String],
) -> Result<Launch, String> {
    let quoted_bridge = quoted(bridge);
    let mut args: Vec<String> = hooks
        .args
        .iter()
        .map(|a| {
            a.replace(SETTINGS, settings)
                .replace(BRIDGE, &quoted_bridge)
        })
        .collect();
    args.extend_from_slice(config);
    let has_them = !args.is_empty() && argv.windows(args.len()).any(|w| w == args.as_slice());
    let argv = match args.is_empty() || has_them {
        true => argv.to_vec(),
        false => launcher::read(argv)
            .map_err(|e| format!("its command line cannot be read for sure ({e})"))?
            .with_args(argv, &args),
    };
    let env = hooks
        .env
        .iter()
        .map(|name| (name.clone(), settings.to_owned()));
    let tells_tools = tells_tool_calls(&hooks.events).then(|| (TELLS_TOOLS.into(), "1".into()));
    Ok((argv, env.chain(tells_tools).collect()))
}

/// `text` as the body of a double-quoted string (JSON, TOML).
pub fn quoted(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The command each hook runs.
pub fn hook_command(bridge: &str) -> String {
    format!("{} hook", shell_quoted(bridge))
}

/// `word` as one word of a POSIX shell's line.
fn shell_quoted(word: &str) -> String {
    format!("'{}'", word.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_launch_gets_the_hooks_arguments_after_its_program_and_its_variable() {
        let claude = GivenHooks {
            events: vec!["Stop".into()],
            args: vec!["--settings".into(), SETTINGS.into()],
            ..GivenHooks::default()
        };
        let argv = |words: &[&str]| words.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        let (line, env) = launch(
            &claude,
            &argv(&["env", "A=1", "claude", "-c"]),
            "/b/zellij-mcp",
            "/s.json",
            &[],
        )
        .unwrap();
        assert_eq!(
            line,
            argv(&["env", "A=1", "claude", "--settings", "/s.json", "-c"])
        );
        assert!(env.is_empty());
        let told_tools = GivenHooks {
            events: vec!["Stop".into(), "PreToolUse".into()],
            ..claude.clone()
        };
        let (_, env) = launch(&told_tools, &argv(&["claude"]), "/b", "/s.json", &[]).unwrap();
        assert_eq!(
            env,
            vec![(TELLS_TOOLS.into(), "1".into())],
            "each call told"
        );
        let again = launch(&claude, &line, "/b/zellij-mcp", "/s.json", &[])
            .unwrap()
            .0;
        assert_eq!(again, line, "given once");
        let gemini = GivenHooks {
            events: vec!["AfterAgent".into()],
            env: Some("GEMINI_CLI_SYSTEM_SETTINGS_PATH".into()),
            ..GivenHooks::default()
        };
        let (line, env) = launch(&gemini, &argv(&["gemini"]), "/b", "/s.json", &[]).unwrap();
        assert_eq!(line, argv(&["gemini"]));
        assert_eq!(
            env,
            vec![("GEMINI_CLI_SYSTEM_SETTINGS_PATH".into(), "/s.json".into())]
        );
        let codex = GivenHooks {
            args: vec!["-c".into(), format!("notify=[\"{BRIDGE}\",\"hook\"]")],
            ..GivenHooks::default()
        };
        let line = launch(
            &codex,
            &argv(&["sh", "-c", "codex resume"]),
            "/my \"b\"/zm",
            "",
            &[],
        )
        .unwrap()
        .0;
        assert_eq!(
            line[2],
            r#"codex -c 'notify=["/my \"b\"/zm","hook"]' resume"#
        );
        assert!(launch(&codex, &argv(&["sh", "-c", "a; b"]), "/b", "", &[]).is_err());
    }

    #[test]
    fn the_settings_file_runs_the_hook_on_each_event_and_keeps_theirs() {
        let theirs = json!({"ui": {"x": 1}, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "theirs"}]}]}});
        let events = vec!["Stop".to_owned(), "AfterAgent".to_owned()];
        let settings = settings(&events, "/o'k/zellij-mcp", Some(theirs));
        assert_eq!(settings["ui"]["x"], 1);
        assert_eq!(
            settings["hooks"]["Stop"][0]["hooks"][0]["command"],
            "theirs"
        );
        let ours = "'/o'\\''k/zellij-mcp' hook";
        assert_eq!(settings["hooks"]["Stop"][1]["hooks"][0]["command"], ours);
        assert_eq!(
            settings["hooks"]["AfterAgent"][0]["hooks"][0]["command"],
            ours
        );
        let bad = GivenHooks {
            events: vec!["Stop".into()],
            args: vec!["-x".into()],
            ..GivenHooks::default()
        };
        assert!(check(&bad).is_err(), "events with no file");
        assert!(check(&GivenHooks::default()).is_err());
    }

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
                last_message: Some("done.".into()),
                prompt: None,
            }
        );
        let gemini = told(
            r#"{"hook_event_name":"AfterAgent","session_id":"g","prompt":"q","prompt_response":"ok"}"#,
        );
        assert_eq!(
            gemini.unwrap().event,
            HookEvent::TurnEnded {
                last_message: Some("ok".into()),
                prompt: Some("q".into()),
            }
        );
        let codex = told(
            r#"{"type":"agent-turn-complete","thread-id":"t1","turn-id":"1","input-messages":["a","b"],"last-assistant-message":"hi"}"#,
        );
        assert_eq!(
            codex,
            Some(Told {
                event: HookEvent::TurnEnded {
                    last_message: Some("hi".into()),
                    prompt: Some("b".into()),
                },
                conversation: None,
            })
        );
        for submitted in ["UserPromptSubmit", "BeforeAgent"] {
            let payload = format!(r#"{{"hook_event_name":"{submitted}","prompt":"p"}}"#);
            let prompt = Some("p".into());
            assert_eq!(
                told(&payload).unwrap().event,
                HookEvent::TurnStarted { prompt }
            );
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
        for called in ["PreToolUse", "BeforeTool"] {
            let payload = format!(r#"{{"hook_event_name":"{called}","tool_name":"Bash"}}"#);
            assert_eq!(told(&payload).unwrap().event, HookEvent::ToolCalled);
        }
        let failed =
            told(r#"{"hook_event_name":"StopFailure","last_assistant_message":"API Error: 500"}"#);
        let (last_message, prompt) = (None, None);
        assert_eq!(
            failed.unwrap().event,
            HookEvent::TurnEnded {
                last_message,
                prompt
            },
            "a failure's words are no reply"
        );
        let events = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        assert!(tells_tool_calls(&events(&["Stop", "PreToolUse"])));
        assert!(tells_tool_calls(&events(&["BeforeTool"])));
        assert!(!tells_tool_calls(&events(&[
            "Stop",
            "PostToolUse",
            "permission.asked"
        ])));
    }

    #[test]
    fn opencodes_events_are_read_as_its_plugin_passes_them() {
        let event = |payload: &str| told(payload).map(|t| (t.event, t.conversation));
        let ses = Some("ses_1".to_owned());
        let created = event(r#"{"hook_event_name":"session.created","session_id":"ses_1"}"#);
        let started = HookEvent::SessionStarted { record: None };
        assert_eq!(created, Some((started, ses.clone())));
        let busy = r#"{"hook_event_name":"session.status","session_id":"ses_1","status":"busy"}"#;
        let turn = HookEvent::TurnStarted { prompt: None };
        assert_eq!(event(busy), Some((turn, ses.clone())));
        let idle = r#"{"hook_event_name":"session.status","session_id":"ses_1","status":"idle"}"#;
        assert_eq!(event(idle), None, "session.idle tells it");
        let ended = event(r#"{"hook_event_name":"session.idle","session_id":"ses_1"}"#);
        let (last_message, prompt) = (None, None);
        assert_eq!(
            ended.unwrap().0,
            HookEvent::TurnEnded {
                last_message,
                prompt
            }
        );
        let asked =
            r#"{"hook_event_name":"permission.asked","session_id":"ses_1","permission":"bash"}"#;
        let what = Some("bash".to_owned());
        assert_eq!(event(asked).unwrap().0, HookEvent::Asking { what });
        let replied = r#"{"hook_event_name":"permission.replied","session_id":"ses_1"}"#;
        assert_eq!(event(replied).unwrap().0, HookEvent::ToolDone);
    }

    #[test]
    fn what_does_not_matter_or_cannot_be_read_is_no_event() {
        let idle = r#"{"hook_event_name":"Notification","notification_type":"idle_prompt"}"#;
        assert_eq!(told(idle), None, "an idle nudge asks nothing");
        let tool = told(r#"{"hook_event_name":"AfterTool"}"#).unwrap();
        assert_eq!(tool.event, HookEvent::ToolDone);
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
            "é".repeat(MAX_TOLD_BYTES)
        );
        let HookEvent::TurnEnded {
            last_message: Some(message),
            ..
        } = told(&kept).unwrap().event
        else {
            panic!("a turn's end")
        };
        assert_eq!(
            message.len(),
            MAX_TOLD_BYTES,
            "whole characters, within a field's bytes"
        );
    }
}
