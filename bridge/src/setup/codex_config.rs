//! zellij-mcp's hooks in a `config.toml` of Codex CLI's form (`hooks
//! config="codex" user="~/.codex/config.toml"`): one group per event under
//! `[hooks]`, and, since Codex runs only the hooks it was told to trust,
//! the trust it keeps for each group (`[hooks.state."FILE:event:GROUP:0"]`,
//! the hash of the group's definition). The person's lines, hooks and
//! trust stay as they were; when ours go, the trust of the person's groups
//! after ours moves with them to their new place.

use std::path::Path;

use toml_edit::{value, Array, DocumentMut, InlineTable, Item, Table, TableLike, Value};

use crate::commands::launch::{codex_trusted_hash, snake_case, CODEX_HOOK_TIMEOUT_S};

/// `text` (the file at `path`) with zellij-mcp's hooks for `events`
/// running `command` added (`add`) or taken out; `None` when that changes
/// nothing.
pub fn edit(
    path: &Path,
    text: &str,
    events: &[String],
    command: &str,
    add: bool,
) -> Result<Option<String>, String> {
    let mut doc: DocumentMut = text.parse().map_err(|e| {
        format!(
            "{} is not TOML ({e}): its hooks are not changed",
            path.display()
        )
    })?;
    let file = path.display().to_string();
    let done = match add {
        true => events
            .iter()
            .all(|event| with_ours(&mut doc, &file, event, command).is_some()),
        false => without_ours(&mut doc, &file).is_some(),
    };
    if !done {
        return Err(format!(
            "{}'s hooks are not in a form setup edits: they are not changed",
            path.display()
        ));
    }
    let new = doc.to_string();
    Ok((new != text).then_some(new))
}

/// Whether each of `events` holds one of zellij-mcp's hooks, trusted;
/// `None` when `text` is not TOML.
pub fn holds_ours(path: &Path, text: &str, events: &[String]) -> Option<bool> {
    let doc: DocumentMut = text.parse().ok()?;
    let file = path.display().to_string();
    let hooks = doc.get("hooks").and_then(Item::as_table_like);
    Some(events.iter().all(|event| {
        let groups = hooks.and_then(|h| h.get(event)).map(groups);
        let ours = groups
            .into_iter()
            .flatten()
            .enumerate()
            .find_map(|(at, g)| {
                let command = our_command(g)?;
                Some((at, codex_trusted_hash(event, &command)))
            });
        ours.is_some_and(|(at, hash)| {
            hooks.and_then(|h| trusted(h, &key(&file, event, at))) == Some(hash)
        })
    }))
}

/// Adds a group running `command` to `event`, with its trust, unless one
/// is there already; one of ours with another command (the binary moved)
/// is taken out first. `None` when the file's hooks have another form.
fn with_ours(doc: &mut DocumentMut, file: &str, event: &str, command: &str) -> Option<()> {
    let hash = codex_trusted_hash(event, command);
    let hooks = doc
        .entry("hooks")
        .or_insert_with(|| Item::Table(Table::new()))
        .as_table_mut()?;
    let held = hooks.get(event).map(groups).unwrap_or_default();
    let at = match held
        .iter()
        .position(|g| our_command(*g).as_deref() == Some(command))
    {
        Some(at) => at,
        None => {
            remove_ours(hooks, file, event)?;
            append_ours(hooks, event, command)?
        }
    };
    let state = hooks.entry("state").or_insert_with(|| {
        let mut state = Table::new();
        state.set_implicit(true);
        Item::Table(state)
    });
    let state = state.as_table_like_mut()?;
    let key = key(file, event, at);
    if trusted_in(state, &key).as_deref() != Some(hash.as_str()) {
        let mut trust = Table::new();
        trust.insert("trusted_hash", value(hash));
        state.insert(&key, Item::Table(trust));
    }
    Some(())
}

/// Takes zellij-mcp's groups out of every event, and what they leave
/// empty. `None` when the file's hooks have another form.
fn without_ours(doc: &mut DocumentMut, file: &str) -> Option<()> {
    let Some(hooks) = doc.get_mut("hooks") else {
        return Some(());
    };
    let hooks = hooks.as_table_mut()?;
    let events: Vec<String> = hooks
        .iter()
        .filter(|(name, _)| *name != "state")
        .map(|(name, _)| name.to_owned())
        .collect();
    for event in &events {
        remove_ours(hooks, file, event)?;
        if hooks.get(event).is_some_and(|g| groups(g).is_empty()) {
            hooks.remove(event);
        }
    }
    let state_empty = hooks
        .get("state")
        .and_then(Item::as_table_like)
        .is_some_and(|s| s.is_empty());
    if state_empty {
        hooks.remove("state");
    }
    if hooks.is_empty() {
        doc.remove("hooks");
    }
    Some(())
}

/// Appends a group running `command` to `event`'s, in the form they are
/// written in; its place.
fn append_ours(hooks: &mut Table, event: &str, command: &str) -> Option<usize> {
    let mut hook = InlineTable::new();
    hook.insert("type", "command".into());
    hook.insert("command", command.into());
    hook.insert("timeout", i64::from(CODEX_HOOK_TIMEOUT_S).into());
    let mut list = Array::new();
    list.push(hook);
    let mut group = InlineTable::new();
    group.insert("hooks", Value::Array(list));
    match hooks
        .entry(event)
        .or_insert_with(|| Item::Value(Array::new().into()))
    {
        Item::ArrayOfTables(tables) => {
            tables.push(group.into_table());
            Some(tables.len() - 1)
        }
        Item::Value(Value::Array(list)) => {
            list.push(group);
            Some(list.len() - 1)
        }
        _ => None,
    }
}

/// Takes zellij-mcp's groups out of `event`'s with their trust, the trust
/// of each later group following it to its new place.
fn remove_ours(hooks: &mut Table, file: &str, event: &str) -> Option<()> {
    loop {
        let Some(item) = hooks.get_mut(event) else {
            return Some(());
        };
        let at = groups(item).iter().position(|g| our_command(*g).is_some());
        let Some(at) = at else {
            return Some(());
        };
        match item {
            Item::ArrayOfTables(tables) => {
                tables.remove(at);
            }
            Item::Value(Value::Array(list)) => {
                list.remove(at);
            }
            _ => return None,
        }
        let Some(state) = hooks.get_mut("state").and_then(Item::as_table_like_mut) else {
            continue;
        };
        state.remove(&key(file, event, at));
        move_trust_up(state, file, event, at);
    }
}

/// Renames the trust of `event`'s groups after `removed` to the place one
/// before.
fn move_trust_up(state: &mut dyn TableLike, file: &str, event: &str, removed: usize) {
    let prefix = format!("{file}:{}:", snake_case(event));
    let mut later: Vec<(usize, String, String)> = state
        .iter()
        .filter_map(|(key, _)| {
            let (group, hook) = key.strip_prefix(&prefix)?.split_once(':')?;
            let group: usize = group.parse().ok()?;
            (group > removed).then(|| (group, hook.to_owned(), key.to_owned()))
        })
        .collect();
    later.sort();
    for (group, hook, old) in later {
        if let Some(trust) = state.remove(&old) {
            state.insert(&format!("{prefix}{}:{hook}", group - 1), trust);
        }
    }
}

/// The trust Codex keeps for a hook at `key`.
fn trusted(hooks: &dyn TableLike, key: &str) -> Option<String> {
    trusted_in(hooks.get("state")?.as_table_like()?, key)
}

fn trusted_in(state: &dyn TableLike, key: &str) -> Option<String> {
    let trust = state.get(key)?.as_table_like()?;
    trust.get("trusted_hash")?.as_str().map(str::to_owned)
}

/// Where Codex keeps the trust of the first hook of `event`'s group `at`
/// in `file`.
fn key(file: &str, event: &str, at: usize) -> String {
    format!("{file}:{}:{at}:0", snake_case(event))
}

/// An event's groups, in either form TOML writes them.
fn groups(item: &Item) -> Vec<&dyn TableLike> {
    match item {
        Item::ArrayOfTables(tables) => tables.iter().map(|t| t as &dyn TableLike).collect(),
        Item::Value(Value::Array(list)) => list
            .iter()
            .filter_map(Value::as_inline_table)
            .map(|t| t as &dyn TableLike)
            .collect(),
        _ => Vec::new(),
    }
}

/// The command of the group's zellij-mcp hook (any `zellij-mcp`'s: the
/// binary may have moved).
fn our_command(group: &dyn TableLike) -> Option<String> {
    let hooks = group.get("hooks")?;
    let commands: Vec<String> = match hooks {
        Item::ArrayOfTables(tables) => tables
            .iter()
            .filter_map(|t| t.get("command")?.as_str().map(str::to_owned))
            .collect(),
        Item::Value(Value::Array(list)) => list
            .iter()
            .filter_map(|h| {
                h.as_inline_table()?
                    .get("command")?
                    .as_str()
                    .map(str::to_owned)
            })
            .collect(),
        _ => Vec::new(),
    };
    commands
        .into_iter()
        .find(|c| c.ends_with("zellij-mcp' hook"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const THEIRS: &str = "# my settings\nmodel = \"o3\"\n\n[hooks]\nStop = [{ hooks = [{ type = \"command\", command = \"notify-send done\" }] }]\n\n[[hooks.UserPromptSubmit]]\nhooks = [{ type = \"command\", command = \"log-prompt\" }]\n\n[hooks.state.\"/h/.codex/config.toml:stop:0:0\"]\ntrusted_hash = \"sha256:theirs\"\n\n[hooks.state.\"/h/.codex/config.toml:user_prompt_submit:0:0\"]\ntrusted_hash = \"sha256:theirs-too\"\n";

    fn events() -> Vec<String> {
        vec![
            "Stop".into(),
            "UserPromptSubmit".into(),
            "SessionStart".into(),
        ]
    }

    #[test]
    fn ours_are_added_once_with_their_trust_beside_the_persons_and_taken_out_alone() {
        let path = Path::new("/h/.codex/config.toml");
        let command = "'/opt/bin/zellij-mcp' hook";
        let added = edit(path, THEIRS, &events(), command, true)
            .unwrap()
            .unwrap();
        assert!(
            added.starts_with("# my settings\nmodel = \"o3\"\n"),
            "{added}"
        );
        assert_eq!(holds_ours(path, &added, &events()), Some(true), "{added}");
        assert_eq!(holds_ours(path, THEIRS, &events()), Some(false));
        let doc: DocumentMut = added.parse().unwrap();
        let state = doc["hooks"]["state"].as_table_like().unwrap();
        let hash = codex_trusted_hash("Stop", command);
        assert_eq!(
            trusted_in(state, "/h/.codex/config.toml:stop:1:0"),
            Some(hash)
        );
        assert!(trusted_in(state, "/h/.codex/config.toml:session_start:0:0").is_some());
        assert_eq!(
            trusted_in(state, "/h/.codex/config.toml:stop:0:0").as_deref(),
            Some("sha256:theirs")
        );
        assert_eq!(
            edit(path, &added, &events(), command, true),
            Ok(None),
            "once"
        );
        let removed = edit(path, &added, &events(), command, false)
            .unwrap()
            .unwrap();
        assert_eq!(removed, THEIRS, "theirs as they were");
        assert_eq!(edit(path, &removed, &events(), command, false), Ok(None));
    }

    #[test]
    fn the_trust_of_the_persons_groups_after_ours_follows_them_when_ours_go() {
        let path = Path::new("/h/.codex/config.toml");
        let command = "'/opt/bin/zellij-mcp' hook";
        let added = edit(path, THEIRS, &events(), command, true)
            .unwrap()
            .unwrap();
        // The person adds a Stop group after ours, and trusts it.
        let later = added.replacen(
            "timeout = 30 }] }]",
            "timeout = 30 }] }, { hooks = [{ type = \"command\", command = \"later\" }] }]",
            1,
        );
        let later = format!(
            "{later}\n[hooks.state.\"/h/.codex/config.toml:stop:2:0\"]\ntrusted_hash = \"sha256:later\"\n"
        );
        let removed = edit(path, &later, &events(), command, false)
            .unwrap()
            .unwrap();
        let doc: DocumentMut = removed.parse().unwrap();
        let state = doc["hooks"]["state"].as_table_like().unwrap();
        let at = |n| trusted_in(state, &format!("/h/.codex/config.toml:stop:{n}:0"));
        assert_eq!(at(0).as_deref(), Some("sha256:theirs"));
        assert_eq!(at(1).as_deref(), Some("sha256:later"), "{removed}");
        assert_eq!(at(2), None);
    }

    #[test]
    fn a_moved_binary_gets_its_own_hook_and_trust_and_a_new_file_gets_both() {
        let path = Path::new("/h/.codex/config.toml");
        let old = edit(path, "", &events(), "'/old/zellij-mcp' hook", true)
            .unwrap()
            .unwrap();
        let new = edit(path, &old, &events(), "'/new/zellij-mcp' hook", true)
            .unwrap()
            .unwrap();
        assert!(!new.contains("/old/") && new.contains("/new/"), "{new}");
        assert_eq!(holds_ours(path, &new, &events()), Some(true));
        let gone = edit(path, &new, &events(), "'/new/zellij-mcp' hook", false)
            .unwrap()
            .unwrap();
        assert_eq!(gone.trim(), "");
        assert!(edit(path, "hooks = 3\n", &events(), "x", true).is_err());
        assert!(edit(path, "not toml [", &events(), "x", true).is_err());
    }
}
