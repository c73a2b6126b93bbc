//! Finding Zellij sessions: the socket folder, the live sessions, and which
//! session a tool call means.

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use zellij_mcp_protocol::{Error, ErrorBody};

/// Zellij's folder name for the socket contract the socket transport speaks.
pub const CONTRACT_DIR: &str = "contract_version_1";

/// Where Zellij keeps session sockets: `$ZELLIJ_SOCKET_DIR`, else
/// `$XDG_RUNTIME_DIR/zellij`, else `$TMPDIR/zellij-<uid>`, as Zellij itself
/// decides. An MCP client may have stripped `XDG_RUNTIME_DIR` from this
/// server's environment; then `/run/user/<uid>/zellij` is used if it exists.
pub fn socket_base() -> PathBuf {
    if let Some(dir) = std::env::var_os("ZELLIJ_SOCKET_DIR") {
        return PathBuf::from(dir);
    }
    if let Some(runtime) = std::env::var_os("XDG_RUNTIME_DIR") {
        return PathBuf::from(runtime).join("zellij");
    }
    let uid = user_id();
    let runtime = PathBuf::from(format!("/run/user/{uid}/zellij"));
    if runtime.join(CONTRACT_DIR).is_dir() {
        return runtime;
    }
    std::env::temp_dir().join(format!("zellij-{uid}"))
}

/// This process's user, from the OS (there is no `/proc` on macOS).
pub fn user_id() -> u32 {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
}

/// The folder of the socket contract the socket transport speaks.
pub fn socket_dir() -> PathBuf {
    socket_base().join(CONTRACT_DIR)
}

/// Longest wait for one session's socket to accept a connection.
const CONNECT_TIMEOUT: Duration = Duration::from_millis(500);

/// Sessions whose socket accepts a connection, sorted by name. The sockets
/// are tried at once, each for at most [`CONNECT_TIMEOUT`]: a server that
/// hangs must not hold up the bridge.
pub async fn live_sessions(dir: &Path) -> Vec<String> {
    let mut tries = tokio::task::JoinSet::new();
    for name in socket_names(dir) {
        let path = dir.join(&name);
        tries.spawn(async move {
            let connect = tokio::net::UnixStream::connect(path);
            let live = matches!(
                tokio::time::timeout(CONNECT_TIMEOUT, connect).await,
                Ok(Ok(_))
            );
            live.then_some(name)
        });
    }
    let mut names: Vec<String> = tries.join_all().await.into_iter().flatten().collect();
    names.sort();
    names
}

/// The names of the sockets in `dir`, sorted; live or not.
pub fn socket_names(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_socket()))
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    names
}

/// Live sessions as `zellij list-sessions` reports them (for the CLI transport,
/// when the socket folder is not where this bridge expects it).
pub async fn live_sessions_from_cli(zellij: &Path) -> Vec<String> {
    let output = tokio::process::Command::new(zellij)
        .args(["list-sessions", "--short", "--no-formatting"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .await;
    let Ok(output) = output else {
        return Vec::new();
    };
    let mut names: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| l.trim().to_owned())
        .filter(|l| !l.is_empty())
        .collect();
    names.sort();
    names
}

/// Where the session name comes from, most specific first.
#[derive(Debug, Clone, Default)]
pub struct SessionDefaults {
    /// `--session` or `ZELLIJ_MCP_SESSION`.
    pub configured: Option<String>,
    /// `ZELLIJ_SESSION_NAME`, when the bridge runs inside a pane.
    pub enclosing: Option<String>,
}

/// Picks the session: the tool's argument, the configured one, the one the
/// bridge runs in, or the only live one; else an error listing the live ones.
pub fn resolve(
    requested: Option<&str>,
    defaults: &SessionDefaults,
    live: &[String],
) -> Result<String, ErrorBody> {
    let chosen = requested
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .or_else(|| defaults.configured.clone())
        .or_else(|| defaults.enclosing.clone());
    match chosen {
        Some(name) if live.contains(&name) => Ok(name),
        Some(name) => Err(ErrorBody::from(Error::SessionNotFound {
            problem: format!(
                "no live Zellij session named '{name}'; live sessions: {}",
                list(live)
            ),
            fix: "pass one of the live sessions as `session`, or start it with `zellij -s NAME`"
                .into(),
        })),
        None if live.len() == 1 => Ok(live[0].clone()),
        None if live.is_empty() => Err(ErrorBody::from(Error::SessionNotFound {
            problem: "no live Zellij session found".into(),
            fix: ("start one with `zellij` (after `zellij-mcp setup` every session loads the plugin)")
                .into(),
        })),
        None => Err(ErrorBody::from(Error::SessionNotFound {
            problem: format!(
                "several sessions are live ({}); which one is meant?",
                list(live)
            ),
            fix: "pass `session`, or start the bridge with --session NAME".into(),
        })),
    }
}

fn list(live: &[String]) -> String {
    if live.is_empty() {
        "none".to_owned()
    } else {
        live.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zellij_mcp_protocol::ErrorCode;

    fn live() -> Vec<String> {
        vec!["a".into(), "b".into()]
    }

    #[test]
    fn the_most_specific_source_wins() {
        let defaults = SessionDefaults {
            configured: Some("a".into()),
            enclosing: Some("b".into()),
        };
        assert_eq!(resolve(Some("b"), &defaults, &live()).unwrap(), "b");
        assert_eq!(resolve(None, &defaults, &live()).unwrap(), "a");
        let inside = SessionDefaults {
            configured: None,
            enclosing: Some("b".into()),
        };
        assert_eq!(resolve(None, &inside, &live()).unwrap(), "b");
    }

    #[test]
    fn the_only_live_session_is_the_default() {
        let one = vec!["solo".to_owned()];
        assert_eq!(
            resolve(None, &SessionDefaults::default(), &one).unwrap(),
            "solo"
        );
    }

    #[tokio::test]
    async fn a_socket_that_never_accepts_does_not_hold_up_the_listing() {
        let dir = std::env::temp_dir().join(format!("zellij-mcp-sockets-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // A listener that never accepts: once its backlog is full, a
        // blocking connect would wait forever.
        let stuck = std::os::unix::net::UnixListener::bind(dir.join("stuck")).unwrap();
        let held = fill_backlog(&dir.join("stuck"));
        assert!(!held.is_empty());
        let _live = std::os::unix::net::UnixListener::bind(dir.join("live")).unwrap();
        let started = std::time::Instant::now();
        let names = live_sessions(&dir).await;
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(names, ["live"]);
        for fd in held {
            // SAFETY: each fd is a socket this test opened and still owns.
            unsafe { libc::close(fd) };
        }
        drop(stuck);
    }

    /// Non-blocking connections to `path` until its backlog is full.
    fn fill_backlog(path: &Path) -> Vec<i32> {
        use std::os::unix::ffi::OsStrExt;
        // SAFETY: a zeroed sockaddr_un is valid; the path fits (checked).
        let mut addr: libc::sockaddr_un = unsafe { std::mem::zeroed() };
        addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
        let bytes = path.as_os_str().as_bytes();
        assert!(bytes.len() < addr.sun_path.len());
        for (slot, byte) in addr.sun_path.iter_mut().zip(bytes) {
            *slot = *byte as libc::c_char;
        }
        let mut fds = Vec::new();
        while fds.len() < 100_000 {
            // SAFETY: plain socket calls on a socket this function owns.
            let fd =
                unsafe { libc::socket(libc::AF_UNIX, libc::SOCK_STREAM | libc::SOCK_NONBLOCK, 0) };
            let len = std::mem::size_of::<libc::sockaddr_un>() as libc::socklen_t;
            let rc = unsafe { libc::connect(fd, &addr as *const _ as *const libc::sockaddr, len) };
            if rc != 0 {
                unsafe { libc::close(fd) };
                break;
            }
            fds.push(fd);
        }
        fds
    }

    #[test]
    fn errors_list_the_live_sessions() {
        let e = resolve(None, &SessionDefaults::default(), &live()).unwrap_err();
        assert_eq!(e.code, ErrorCode::SessionNotFound);
        assert!(e.message.contains("a, b"));
        let e = resolve(Some("zz"), &SessionDefaults::default(), &live()).unwrap_err();
        assert!(e.message.contains("'zz'") && e.message.contains("a, b"));
        let e = resolve(None, &SessionDefaults::default(), &[]).unwrap_err();
        assert!(e.hint.unwrap().contains("zellij-mcp setup"));
    }
}
