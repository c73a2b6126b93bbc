//! zellij-mcp's hooks in the person's own settings, for the agents they
//! start by hand: for each installed program whose description names its
//! user settings file (`hooks user="~/.claude/settings.json"`), setup adds
//! one hook per event that runs `zellij-mcp hook`, beside the person's
//! own; for a program that takes a plugin file instead (`hooks
//! config="opencode" user="~/.config/opencode/plugin/zellij-mcp.js"`),
//! setup writes that file; for Codex CLI (`hooks config="codex"
//! user="~/.codex/config.toml"`), its `config.toml` gets them with the
//! trust Codex asks for. `setup --remove-hooks` (and `--uninstall`) takes
//! out only those; `doctor` says which programs have them.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};
use zellij_mcp_protocol::agent_programs::{Description, Programs};
use zellij_mcp_protocol::hooks::{self, hook_command};

use super::codex_config;
use crate::commands::launch::{opencode_plugin, OPENCODE_PLUGIN_FIRST_LINE};

/// One program's settings file with its hooks added or taken out, when
/// that changes it: the path and its new text (none: the file goes).
pub struct Edit {
    pub program: String,
    pub path: PathBuf,
    pub text: Option<String>,
}

/// Where each described, installed program's user settings are, and
/// whether they hold zellij-mcp's hooks (`None`: the file cannot be read).
pub fn status(programs: &Programs) -> Vec<(String, PathBuf, Option<bool>)> {
    described(programs)
        .map(|(d, path)| {
            let events = events_of(d);
            let has = match Form::of(d) {
                Form::PluginFile => {
                    plugin_file(&path).map(|file| file.is_some_and(|f| is_our_plugin(&f)))
                }
                Form::CodexConfig => plugin_file(&path).and_then(|text| {
                    codex_config::holds_ours(&path, &text.unwrap_or_default(), &events)
                }),
                Form::Settings => read(&path).map(|settings| {
                    let hooks = settings.get("hooks").and_then(Value::as_object);
                    hooks.is_some_and(|h| h.values().any(holds_ours))
                }),
            };
            (d.name.clone(), path, has)
        })
        .collect()
}

/// The edits that add (`add`) or take out zellij-mcp's hooks at `bridge`;
/// notes for the files that cannot be edited.
pub fn edits(programs: &Programs, bridge: &Path, add: bool) -> (Vec<Edit>, Vec<String>) {
    let command = hook_command(&bridge.display().to_string());
    let (mut edits, mut notes) = (Vec::new(), Vec::new());
    for (description, path) in described(programs) {
        let events = events_of(description);
        let edit = match Form::of(description) {
            Form::PluginFile => plugin_file_edit(&path, &events, bridge, add),
            Form::CodexConfig => codex_config_edit(&path, &events, &command, add),
            Form::Settings => settings_edit(&path, &events, &command, add),
        };
        match edit {
            Ok(Some(text)) => edits.push(Edit {
                program: description.name.clone(),
                path,
                text,
            }),
            Ok(None) => {}
            Err(note) => notes.push(note),
        }
    }
    (edits, notes)
}

/// The hook events a program's description names.
fn events_of(description: &Description) -> Vec<String> {
    let hooks = description.hooks.as_ref();
    hooks.map(|h| h.events.clone()).unwrap_or_default()
}

/// The form a program takes hooks in, in the person's own files.
enum Form {
    /// A JSON settings file with a `hooks` object.
    Settings,
    /// A plugin file of zellij-mcp's own (opencode).
    PluginFile,
    /// A `config.toml` of Codex CLI's form, hooks and their trust.
    CodexConfig,
}

impl Form {
    fn of(description: &Description) -> Form {
        let config = description.hooks.as_ref().and_then(|h| h.config.as_deref());
        match config {
            Some(hooks::OPENCODE_CONFIG) => Form::PluginFile,
            Some(hooks::CODEX_CONFIG) => Form::CodexConfig,
            _ => Form::Settings,
        }
    }
}

/// A `config.toml`'s new text with zellij-mcp's hooks and their trust
/// added or taken out; `None` when that changes nothing.
fn codex_config_edit(
    path: &Path,
    events: &[String],
    command: &str,
    add: bool,
) -> Result<Option<Option<String>>, String> {
    let unreadable = || {
        format!(
            "{} cannot be read: its hooks are not changed",
            path.display()
        )
    };
    let text = plugin_file(path)
        .ok_or_else(unreadable)?
        .unwrap_or_default();
    let edited = codex_config::edit(path, &text, events, command, add)?;
    Ok(edited.map(Some))
}

/// A settings file's new text with zellij-mcp's hooks added or taken
/// out; `None` when that changes nothing.
fn settings_edit(
    path: &Path,
    events: &[String],
    command: &str,
    add: bool,
) -> Result<Option<Option<String>>, String> {
    let Some(mut settings) = read(path) else {
        return Err(format!(
            "{} is not plain JSON: its hooks are not changed",
            path.display()
        ));
    };
    let changed = match add {
        true => with_ours(&mut settings, events, command),
        false => without_ours(&mut settings),
    };
    let mut text = serde_json::to_string_pretty(&settings).unwrap_or_default();
    text.push('\n');
    Ok(changed.then_some(Some(text)))
}

/// zellij-mcp's plugin file written (or, `add` false, removed); `None`
/// when that changes nothing. A file of the person's own at that name is
/// left alone.
fn plugin_file_edit(
    path: &Path,
    events: &[String],
    bridge: &Path,
    add: bool,
) -> Result<Option<Option<String>>, String> {
    let theirs = || format!("{} is not zellij-mcp's: it is left alone", path.display());
    let now = plugin_file(path).ok_or_else(theirs)?;
    if now.as_deref().is_some_and(|text| !is_our_plugin(text)) {
        return Err(theirs());
    }
    let plugin = Some(opencode_plugin(&bridge.display().to_string(), events));
    Ok(match add {
        true => (now != plugin).then_some(plugin),
        false => now.is_some().then_some(None),
    })
}

/// A file's text (none there: `Some(None)`); `None` when it cannot be
/// read.
fn plugin_file(path: &Path) -> Option<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(text) => Some(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(None),
        Err(_) => None,
    }
}

fn is_our_plugin(text: &str) -> bool {
    text.starts_with(OPENCODE_PLUGIN_FIRST_LINE)
}

/// The descriptions whose hooks go in the person's settings, of programs
/// installed here, with the settings file's path.
fn described(programs: &Programs) -> impl Iterator<Item = (&Description, PathBuf)> {
    programs.all().iter().filter_map(|description| {
        let given = description.hooks.as_ref()?;
        let user = given.user.as_deref()?;
        let installed = description
            .programs
            .iter()
            .any(|p| super::clients::installed(p));
        installed.then(|| (description, user_file(user, given.user_env.as_deref())))
    })
}

/// The person's settings file: `user`, or the file of that name in the
/// folder `variable` names where it is set (resolved, as the programs
/// resolve it).
fn user_file(user: &str, variable: Option<&str>) -> PathBuf {
    let folder = variable
        .and_then(std::env::var_os)
        .filter(|f| !f.is_empty());
    let name = Path::new(user).file_name();
    match (folder, name) {
        (Some(folder), Some(name)) => {
            let folder = PathBuf::from(folder);
            folder.canonicalize().unwrap_or(folder).join(name)
        }
        _ => expand_home(user),
    }
}

/// `~/` is the home folder, and `~/.config/` the configuration folder
/// (`$XDG_CONFIG_HOME`, where set).
fn expand_home(path: &str) -> PathBuf {
    if let Some(rest) = path.strip_prefix("~/.config/") {
        return super::clients::config_home().join(rest);
    }
    match path.strip_prefix("~/") {
        Some(rest) => super::clients::home().join(rest),
        None => PathBuf::from(path),
    }
}

/// The settings as JSON (none yet: empty); `None` for a file that is not a
/// JSON object.
fn read(path: &Path) -> Option<Map<String, Value>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(_) => return None,
    };
    match text.trim() {
        "" => Some(Map::new()),
        text => match serde_json::from_str(text) {
            Ok(Value::Object(settings)) => Some(settings),
            _ => None,
        },
    }
}

/// Whether an event's entries hold one of zellij-mcp's hooks (any
/// `zellij-mcp`'s: the binary may have moved).
fn holds_ours(entries: &Value) -> bool {
    entries
        .as_array()
        .is_some_and(|entries| entries.iter().any(is_ours))
}

fn is_ours(entry: &Value) -> bool {
    let hooks = entry.get("hooks").and_then(Value::as_array);
    hooks.is_some_and(|hooks| {
        hooks.iter().any(|hook| {
            let command = hook.get("command").and_then(Value::as_str);
            command.is_some_and(|c| c.ends_with("zellij-mcp' hook"))
        })
    })
}

/// Adds one entry running `command` to each of `events`, where the event
/// holds none of zellij-mcp's yet; whether anything changed.
fn with_ours(settings: &mut Map<String, Value>, events: &[String], command: &str) -> bool {
    let hooks = settings.entry("hooks").or_insert_with(|| json!({}));
    let Some(hooks) = hooks.as_object_mut() else {
        return false;
    };
    let mut changed = false;
    for event in events {
        let entries = hooks.entry(event.clone()).or_insert_with(|| json!([]));
        let Some(list) = entries.as_array_mut() else {
            continue;
        };
        if !list.iter().any(is_ours) {
            list.push(json!({"hooks": [{"type": "command", "command": command}]}));
            changed = true;
        }
    }
    changed
}

/// Takes out zellij-mcp's entries, and what they leave empty; whether
/// anything changed.
fn without_ours(settings: &mut Map<String, Value>) -> bool {
    let Some(hooks) = settings.get_mut("hooks").and_then(Value::as_object_mut) else {
        return false;
    };
    let mut changed = false;
    for entries in hooks.values_mut() {
        if let Some(list) = entries.as_array_mut() {
            let before = list.len();
            list.retain(|entry| !is_ours(entry));
            changed |= list.len() != before;
        }
    }
    if changed {
        hooks.retain(|_, entries| entries.as_array().is_none_or(|l| !l.is_empty()));
        if hooks.is_empty() {
            settings.remove("hooks");
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ours_are_added_once_beside_the_persons_and_taken_out_alone() {
        let theirs = json!({
            "theme": "dark",
            "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}
        });
        let Value::Object(mut settings) = theirs.clone() else {
            unreachable!()
        };
        let events = vec!["Stop".to_owned(), "SessionStart".to_owned()];
        let command = hook_command("/opt/bin/zellij-mcp");
        assert!(with_ours(&mut settings, &events, &command));
        assert!(!with_ours(&mut settings, &events, &command), "once");
        let stop = settings["hooks"]["Stop"].as_array().unwrap();
        assert_eq!(stop.len(), 2);
        assert_eq!(stop[0]["hooks"][0]["command"], "notify-send done");
        assert_eq!(stop[1]["hooks"][0]["command"], "'/opt/bin/zellij-mcp' hook");
        assert!(holds_ours(&settings["hooks"]["SessionStart"]));
        assert!(without_ours(&mut settings));
        assert_eq!(
            Value::Object(settings.clone()),
            theirs,
            "theirs as they were"
        );
        assert!(!without_ours(&mut settings));
    }

    #[test]
    fn our_plugin_file_is_written_once_and_removed_and_the_persons_left_alone() {
        let dir = std::env::temp_dir().join(format!("zmcp-plugin-file-{}", std::process::id()));
        let path = dir.join("plugin/zellij-mcp.js");
        let events = vec!["session.idle".to_owned()];
        let bridge = Path::new("/opt/bin/zellij-mcp");
        let edit = |add| plugin_file_edit(&path, &events, bridge, add);
        let Ok(Some(Some(text))) = edit(true) else {
            panic!("the file is written")
        };
        assert!(is_our_plugin(&text) && text.contains("\"/opt/bin/zellij-mcp\""));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &text).unwrap();
        assert!(matches!(edit(true), Ok(None)), "once");
        assert!(matches!(edit(false), Ok(Some(None))), "removed");
        std::fs::write(&path, "export const Mine = async () => ({});\n").unwrap();
        assert!(edit(true).is_err() && edit(false).is_err(), "theirs kept");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
