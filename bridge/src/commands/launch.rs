//! `zellij-mcp launch [--relay] -- ARGV`: how the plugin starts the
//! commands it opens panes for with hooks or under the relay. It gives an
//! agent program whose description gives it hooks zellij-mcp's hooks for
//! this launch only (a settings file of its own, named by an argument or
//! a variable, as the description says), then becomes the program (by
//! exec, or with `--relay` under the relay), so the pane runs the program
//! itself. The person's own settings and hooks are left as they are, and
//! still run. On any problem the program starts as it was given, without
//! them.

use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use zellij_mcp_protocol::agent_programs::GivenHooks;
use zellij_mcp_protocol::{hooks, launcher};

use crate::relay;
use crate::setup::agent_file;

/// Becomes `argv` with its hooks, under the relay when `relay` says what
/// it records; returns only when it cannot start.
pub fn run(argv: &[String], relay: Option<&relay::Record>) -> String {
    let (argv, env) = with_hooks(argv).unwrap_or((argv.to_vec(), Vec::new()));
    let Some((program, args)) = argv.split_first() else {
        return "nothing to launch: zellij-mcp launch -- PROGRAM [ARGS]".into();
    };
    let Some(record) = relay else {
        let error = std::process::Command::new(program)
            .args(args)
            .envs(env)
            .exec();
        return format!("cannot start {program}: {error}");
    };
    // No thread runs yet, and the relay's program inherits these.
    for (name, value) in env {
        std::env::set_var(name, value);
    }
    std::process::exit(relay::run(&argv, record))
}

/// `argv` and the variables it needs so that its program, as the person's
/// descriptions know it, runs zellij-mcp's hooks; `None` when it takes
/// none or they cannot be given.
pub fn with_hooks(argv: &[String]) -> Option<hooks::Launch> {
    let program = launcher::read(argv).ok()?.name();
    let programs = agent_file::programs();
    let description = programs.for_program(&program)?;
    let given = description.hooks.as_ref().filter(|h| h.per_launch())?;
    let bridge = std::env::current_exe().ok()?.display().to_string();
    let (settings, config) = match given.config.as_deref() {
        Some(hooks::CODEX_CONFIG) => (String::new(), codex_config(&given.events, &bridge)),
        Some(hooks::OPENCODE_CONFIG) => {
            let variable = opencode_config(&description.name, &given.events, &bridge)?;
            return Some((argv.to_vec(), vec![variable]));
        }
        Some(_) => return None,
        None if given.events.is_empty() => (String::new(), Vec::new()),
        None => {
            let file = settings_file(&description.name, given, &bridge)?;
            (file.display().to_string(), Vec::new())
        }
    };
    hooks::launch(given, argv, &bridge, &settings, &config).ok()
}

/// How zellij-mcp's plugin for opencode begins (setup knows its own file
/// by it).
pub const OPENCODE_PLUGIN_FIRST_LINE: &str = "// zellij-mcp's hooks for opencode";

/// zellij-mcp's plugin for opencode, passing `events` to `bridge hook`.
pub fn opencode_plugin(bridge: &str, events: &[String]) -> String {
    include_str!("opencode_plugin.js")
        .replace("__BRIDGE__", &serde_json::Value::from(bridge).to_string())
        .replace("__EVENTS__", &serde_json::Value::from(events).to_string())
}

/// The variable that loads zellij-mcp's plugin for opencode (written for
/// `events`), over the configuration it already holds: opencode merges
/// it into the person's own, whose plugins still load.
fn opencode_config(name: &str, events: &[String], bridge: &str) -> Option<(String, String)> {
    const VARIABLE: &str = "OPENCODE_CONFIG_CONTENT";
    let file = written(name, "js", &opencode_plugin(bridge, events))?;
    let mut config = match std::env::var(VARIABLE) {
        Ok(theirs) if !theirs.trim().is_empty() => serde_json::from_str(&theirs).ok()?,
        _ => serde_json::json!({}),
    };
    let url = file_url(&file);
    match config.as_object_mut()?.entry("plugin") {
        serde_json::map::Entry::Occupied(mut plugins) => {
            plugins.get_mut().as_array_mut()?.push(url.into())
        }
        serde_json::map::Entry::Vacant(plugins) => {
            plugins.insert(serde_json::json!([url]));
        }
    }
    Some((VARIABLE.to_owned(), config.to_string()))
}

/// How long Codex CLI may run each hook (s); given, since its default
/// differs by event and goes into the hook's trust.
pub const CODEX_HOOK_TIMEOUT_S: u32 = 30;

/// Codex CLI's configuration overrides that give it `events`' hooks for
/// this launch (`-c hooks.Stop=[…]`), and trust them: Codex runs a hook
/// only when its configuration holds the hash of the hook's definition,
/// which it otherwise asks the person for at start and writes into their
/// `config.toml` for good.
fn codex_config(events: &[String], bridge: &str) -> Vec<String> {
    let command = hooks::hook_command(bridge);
    let mut args = Vec::new();
    let mut trusted = Vec::new();
    for event in events {
        args.push("-c".to_owned());
        args.push(format!(
            "hooks.{event}=[{{hooks=[{{type=\"command\",command=\"{}\",timeout={CODEX_HOOK_TIMEOUT_S}}}]}}]",
            hooks::quoted(&command)
        ));
        let key = format!("/<session-flags>/config.toml:{}:0:0", snake_case(event));
        let hash = codex_trusted_hash(event, &command);
        trusted.push(format!("\"{key}\"={{trusted_hash=\"{hash}\"}}"));
    }
    args.push("-c".to_owned());
    args.push(format!("hooks.state={{{}}}", trusted.join(",")));
    args
}

/// The trust Codex CLI keeps for a group of `event` holding one hook that
/// runs `command`: the hash of its definition as Codex writes it, keys
/// sorted, compact.
pub fn codex_trusted_hash(event: &str, command: &str) -> String {
    let definition = serde_json::json!({
        "event_name": snake_case(event),
        "hooks": [{"async": false, "command": command, "timeout": CODEX_HOOK_TIMEOUT_S, "type": "command"}],
    });
    let digest = Sha256::digest(definition.to_string().as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// `UserPromptSubmit` as `user_prompt_submit`.
pub fn snake_case(name: &str) -> String {
    let mut snake = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            snake.push('_');
        }
        snake.push(c.to_ascii_lowercase());
    }
    snake
}

/// `path` as a `file://` URL.
fn file_url(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut url = String::from("file://");
    for &byte in path.as_os_str().as_bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'.' | b'_' | b'-' | b'~' => {
                url.push(byte as char)
            }
            _ => url.push_str(&format!("%{byte:02X}")),
        }
    }
    url
}

/// Writes the settings file that gives `name`'s program its hooks, in a
/// folder only this user can open; the file's name follows its content,
/// so launches at once share one file. `None` when the settings it stands
/// in for cannot be read (their settings would be lost).
fn settings_file(name: &str, given: &GivenHooks, bridge: &str) -> Option<PathBuf> {
    let theirs = match replaced(given) {
        Some(path) if path.exists() => {
            Some(serde_json::from_slice(&std::fs::read(&path).ok()?).ok()?)
        }
        _ => None,
    };
    let settings = hooks::settings(&given.events, bridge, theirs);
    let text = serde_json::to_string_pretty(&settings).ok()?;
    written(name, "json", &text)
}

/// `text` in the hooks' folder, in a file named for `name` and the text
/// itself (`name-TAG.extension`), so launches at once share one file.
fn written(name: &str, extension: &str, text: &str) -> Option<PathBuf> {
    let digest = Sha256::digest(text.as_bytes());
    let tag: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    let folder = folder()?;
    let path = folder.join(format!("{name}-{tag}.{extension}"));
    if std::fs::read_to_string(&path).ok().as_deref() != Some(text) {
        let partial = folder.join(format!(".{name}-{tag}.{}", std::process::id()));
        std::fs::write(&partial, text).ok()?;
        std::fs::rename(&partial, &path).ok()?;
    }
    Some(path)
}

/// The file the hooks' variable stands in for: the one it already names,
/// else the description's `replaces`.
fn replaced(given: &GivenHooks) -> Option<PathBuf> {
    let named = given.env.as_deref().and_then(std::env::var_os);
    named
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or_else(|| given.replaces.as_ref().map(PathBuf::from))
}

/// `$XDG_RUNTIME_DIR/zellij-mcp-hooks`, else one in the temporary folder
/// named for this user, made 0700 (and refused if another user owns it).
fn folder() -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let runtime = std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty());
    // SAFETY: getuid has no preconditions and cannot fail.
    let uid = unsafe { libc::getuid() };
    let folder = match runtime {
        Some(dir) => Path::new(&dir).join("zellij-mcp-hooks"),
        None => std::env::temp_dir().join(format!("zellij-mcp-hooks-{uid}")),
    };
    let _ = std::fs::DirBuilder::new().mode(0o700).create(&folder);
    let meta = std::fs::symlink_metadata(&folder).ok()?;
    if !meta.is_dir() || meta.uid() != uid {
        return None;
    }
    if meta.permissions().mode() & 0o077 != 0 {
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o700)).ok()?;
    }
    Some(folder)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plugins_path_is_a_file_url() {
        let path = Path::new("/run/user/1000/zellij-mcp-hooks/opencode-ab12.js");
        assert_eq!(file_url(path), format!("file://{}", path.display()));
        let odd = Path::new("/tmp/a b/ü%.js");
        assert_eq!(file_url(odd), "file:///tmp/a%20b/%C3%BC%25.js");
    }

    #[test]
    fn codex_is_given_each_hook_with_the_trust_codex_computes_for_it() {
        let config = codex_config(&["Stop".into(), "UserPromptSubmit".into()], "/b/zellij-mcp");
        assert_eq!(config[0], "-c");
        assert_eq!(
            config[1],
            r#"hooks.Stop=[{hooks=[{type="command",command="'/b/zellij-mcp' hook",timeout=30}]}]"#
        );
        // Its hash as Codex CLI 0.169.0 computes it (the way checked
        // against the hashes it wrote into config.toml itself).
        let stop = "\"/<session-flags>/config.toml:stop:0:0\"={trusted_hash=\"sha256:011dc9ed808dbca543174b305fa10e6cba345ba64d3bb9117e23951618c7f092\"}";
        assert!(
            config[5].starts_with(&format!("hooks.state={{{stop},")),
            "{}",
            config[5]
        );
        assert!(config[5].contains(":user_prompt_submit:0:0"));
    }
}
