//! Panes the shim opens run `zellij-mcp tmux-pane <spec>` first: it takes
//! the environment and directory of the process that asked for the pane
//! (the lead agent), then runs the pane's command in them. A pane asked
//! for with tmux's idle placeholder (`cat`) waits instead, until
//! `respawn-pane` hands it the real command: the pane keeps its id, as a
//! respawned tmux pane does.
//!
//! The specs and hand-overs are files in a folder of this user's only
//! (0700), one per Zellij session.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// What a pane runs, and where.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Spec {
    pub cwd: String,
    pub env: BTreeMap<String, String>,
    /// A shell command line (`sh -c`); `None` for the user's shell.
    pub command: Option<String>,
}

/// tmux's idle placeholder, replaced later by `respawn-pane`.
const IDLE: &str = "cat";
/// How often a waiting pane looks for its command.
const LOOK: Duration = Duration::from_millis(25);

/// The session's folder for specs and hand-overs, made 0700.
pub fn folder(session: &str) -> std::io::Result<PathBuf> {
    let base = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|dir| dir.is_dir())
        .unwrap_or_else(std::env::temp_dir);
    let uid = crate::transport::sessions::user_id();
    let own = base.join(format!("zellij-mcp-{uid}"));
    std::fs::create_dir_all(&own)?;
    std::fs::set_permissions(&own, std::fs::Permissions::from_mode(0o700))?;
    let folder = own.join("tmux").join(session);
    std::fs::create_dir_all(&folder)?;
    Ok(folder)
}

/// Writes `spec` for a new pane; its path, for the pane's command.
pub fn write_spec(folder: &Path, spec: &Spec) -> std::io::Result<PathBuf> {
    let name = format!("spec-{}.json", crate::server::private::random_hex(8)?);
    let path = folder.join(name);
    write_whole(&path, spec)?;
    Ok(path)
}

/// How long a new placeholder pane may take to start waiting.
const STARTING: Duration = Duration::from_secs(10);

/// Whether `spec` opens a placeholder (`cat`), which `respawn-pane` hands
/// its real command.
pub fn is_placeholder(spec: &Spec) -> bool {
    spec.command.as_deref() == Some(IDLE)
}

/// Waits until the placeholder of the new pane `id` waits for its
/// command, as tmux's pane runs its own once `split-window` returns (a
/// `respawn-pane` right after finds it); at most [`STARTING`].
pub async fn until_waiting(folder: &Path, id: u32) {
    let began = std::time::Instant::now();
    while !waiting_file(folder, id).exists() && began.elapsed() < STARTING {
        tokio::time::sleep(LOOK).await;
    }
}

/// Hands `spec` to the waiting placeholder of pane `id`; false when no
/// placeholder waits there.
pub fn respawn(folder: &Path, id: u32, spec: &Spec) -> std::io::Result<bool> {
    if !waiting_file(folder, id).exists() {
        return Ok(false);
    }
    write_whole(&respawn_file(folder, id), spec)?;
    Ok(true)
}

/// Written to a temporary name, then renamed: a reader never sees half.
fn write_whole(path: &Path, spec: &Spec) -> std::io::Result<()> {
    let partial = path.with_extension("partial");
    std::fs::write(&partial, serde_json::to_vec(spec)?)?;
    std::fs::rename(&partial, path)
}

fn waiting_file(folder: &Path, id: u32) -> PathBuf {
    folder.join(format!("pane-{id}.waiting"))
}

fn respawn_file(folder: &Path, id: u32) -> PathBuf {
    folder.join(format!("pane-{id}.respawn"))
}

/// `zellij-mcp tmux-pane <spec>`: runs the pane's command as the spec says
/// (after a `respawn-pane` for the idle placeholder). Returns only when it
/// cannot.
pub fn run_pane(spec_path: &Path) -> String {
    let spec = match read_spec(spec_path) {
        Ok(spec) => spec,
        Err(e) => return format!("cannot read {}: {e}", spec_path.display()),
    };
    let _ = std::fs::remove_file(spec_path);
    let Some(id) = std::env::var("ZELLIJ_PANE_ID")
        .ok()
        .and_then(|id| id.parse().ok())
    else {
        return "not in a Zellij pane (no ZELLIJ_PANE_ID)".into();
    };
    let spec = match spec.command.as_deref() {
        Some(IDLE) => match spec_path
            .parent()
            .map(|folder| wait_for_respawn(folder, id))
        {
            Some(Ok(respawned)) => merged(spec, respawned),
            Some(Err(e)) => return format!("waiting for respawn-pane: {e}"),
            None => return "the spec has no folder".into(),
        },
        _ => spec,
    };
    exec(spec, id)
}

fn read_spec(path: &Path) -> std::io::Result<Spec> {
    Ok(serde_json::from_slice(&std::fs::read(path)?)?)
}

/// Waits until `respawn-pane` hands pane `id` its command.
fn wait_for_respawn(folder: &Path, id: u32) -> std::io::Result<Spec> {
    let waiting = waiting_file(folder, id);
    std::fs::write(&waiting, b"")?;
    let respawn = respawn_file(folder, id);
    loop {
        if let Ok(spec) = read_spec(&respawn) {
            let _ = std::fs::remove_file(&respawn);
            let _ = std::fs::remove_file(&waiting);
            return Ok(spec);
        }
        std::thread::sleep(LOOK);
    }
}

/// The respawn's command, in its directory when it names one, with its
/// environment over the pane's.
fn merged(first: Spec, respawned: Spec) -> Spec {
    let mut env = first.env;
    env.extend(respawned.env);
    Spec {
        cwd: Some(respawned.cwd)
            .filter(|c| !c.is_empty())
            .unwrap_or(first.cwd),
        env,
        command: respawned.command,
    }
}

/// Replaces this process with the pane's command. Zellij's own variables
/// (which pane this is) are kept; `TMUX_PANE` names this pane.
fn exec(spec: Spec, id: u32) -> String {
    let own_zellij: Vec<(String, String)> = std::env::vars()
        .filter(|(k, _)| k.starts_with("ZELLIJ"))
        .collect();
    let mut hooks = Vec::new();
    let mut command = match spec.command {
        Some(line) => {
            let mut argv = vec!["/bin/sh".to_owned(), "-c".to_owned(), line];
            if let Some((hooked, env)) = crate::commands::launch::with_hooks(&argv) {
                (argv, hooks) = (hooked, env);
            }
            let mut sh = std::process::Command::new(&argv[0]);
            sh.args(&argv[1..]);
            sh
        }
        None => std::process::Command::new(
            spec.env
                .get("SHELL")
                .cloned()
                .unwrap_or_else(|| "/bin/sh".into()),
        ),
    };
    command
        .env_clear()
        .envs(spec.env.iter().filter(|(k, _)| !k.starts_with("ZELLIJ")))
        .envs(own_zellij)
        .envs(hooks)
        .env("TMUX_PANE", super::format::tmux_pane_id(id))
        .current_dir(&spec.cwd);
    let error = command.exec();
    format!("cannot start the pane's command: {error}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_respawn_reaches_only_a_waiting_placeholder_and_keeps_its_env() {
        let folder = std::env::temp_dir().join(format!("zmcp-tmux-{}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        let spec = Spec {
            cwd: "/lead".into(),
            env: BTreeMap::from([("LEAD".into(), "1".into()), ("X".into(), "a".into())]),
            command: Some("claude".into()),
        };
        assert!(!respawn(&folder, 7, &spec).unwrap(), "no placeholder waits");
        std::fs::write(waiting_file(&folder, 7), b"").unwrap();
        let respawned = Spec {
            cwd: String::new(),
            env: BTreeMap::from([("X".into(), "b".into())]),
            command: Some("claude --agent x".into()),
        };
        assert!(respawn(&folder, 7, &respawned).unwrap());
        let got = wait_for_respawn(&folder, 7).unwrap();
        let both = merged(spec, got);
        assert_eq!(both.cwd, "/lead");
        assert_eq!(both.env["LEAD"], "1");
        assert_eq!(both.env["X"], "b");
        assert_eq!(both.command.as_deref(), Some("claude --agent x"));
        assert!(!waiting_file(&folder, 7).exists());
        std::fs::remove_dir_all(&folder).unwrap();
    }
}
