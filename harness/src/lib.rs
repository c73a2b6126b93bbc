//! Real-Zellij sandboxes for zellij-mcp's end-to-end tests, demo and bench.
//!
//! - [`Sandbox`]: isolated socket, cache (with pre-seeded plugin permissions),
//!   config and home folders; the plugin is installed into the sandbox home
//!   exactly where `make install` puts it, so the repo's layout works as is.
//! - [`Session`]: a headless Zellij session started in a sandbox, killed on drop.
//! - [`AttachedClient`]: a real `zellij attach` client on a pseudo-terminal.
//! - [`Mcp`]: the built bridge binary, driven as an MCP client over stdio.
//! - [`churn`]: clients coming and going, the lease moving between instances.

pub mod churn;
mod mcp;
pub mod programs;
mod sandbox;

pub use mcp::{text_of, Mcp, Timed};
pub use sandbox::{run_with_timeout, AttachedClient, Ending, Leaving, Sandbox, Session, Sibling};

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime};

/// The Zellij version everything here is pinned to.
pub const ZELLIJ_VERSION: &str = "0.45.1";

/// The workspace root (this crate sits one level below it).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("harness is inside the workspace")
        .to_path_buf()
}

/// The release plugin that `make plugin` builds, built again first when it
/// is missing or older than its sources (once per test process).
pub fn built_plugin() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let root = workspace_root();
            let wasm = root.join("target/wasm32-wasip1/release/zellij-mcp.wasm");
            if modified(&wasm) < newest_source(&root) {
                let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
                let status = std::process::Command::new(cargo)
                    .args(["build", "--release", "-p", "zellij-mcp-plugin"])
                    .args(["--target", "wasm32-wasip1"])
                    .current_dir(&root)
                    .status()
                    .expect("run cargo");
                assert!(status.success(), "building the plugin failed");
            }
            wasm
        })
        .clone()
}

/// When a file was last changed (the epoch for a missing one).
fn modified(path: &Path) -> SystemTime {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .unwrap_or(SystemTime::UNIX_EPOCH)
}

/// The newest change to what the plugin is built from.
fn newest_source(root: &Path) -> SystemTime {
    let mut newest = SystemTime::UNIX_EPOCH;
    let mut pending: Vec<PathBuf> = ["plugin", "protocol", "Cargo.lock", "Cargo.toml"]
        .iter()
        .map(|p| root.join(p))
        .collect();
    while let Some(path) = pending.pop() {
        match std::fs::read_dir(&path) {
            Ok(entries) => pending.extend(entries.flatten().map(|e| e.path())),
            Err(_) => newest = newest.max(modified(&path)),
        }
    }
    newest
}

/// For the bench and soak programs: the bridge to drive and a count, from
/// `[PATH-TO-zellij-mcp] [N]`, and a session of the repo's layout named
/// for the program.
pub fn program_setup(program: &str, default_count: usize) -> (PathBuf, usize, Session) {
    let mut args = std::env::args().skip(1);
    let bridge = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target/release/zellij-mcp"));
    let count = args
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default_count);
    let name = format!("zellij-mcp-{program}-{}", std::process::id());
    let session = Sandbox::new().start_session(&name, &repo_layout(), true);
    (bridge, count, session)
}

/// The repo's layout that loads the plugin.
/// A program (for `sh`) that draws what Claude Code draws: an empty
/// composer, and a permission dialog while the file it is given exists
/// (looked at every 50 ms, or every `$2` seconds).
/// Agents in panes for tests and the bench of the board, which are about the
/// board and not about telling Claude Code's screens (that is tested with
/// Claude Code itself).
pub const AGENT_SCREENS: &str = r#"rule=──────────────────────────────────────────
idle() { printf '\033[2J\033[H%s\n❯ \n%s\n  ? for shortcuts\n' "$rule" "$rule"; }
ask() { printf '\033[2J\033[H Bash command\n Do you want to proceed?\n ❯ 1. Yes\n   2. No\n Esc to cancel\n'; }
shown=
# Drawn again at a new size, as agent programs do.
trap 'shown=' WINCH
while :; do
  if [ -e "$1" ]; then want=ask; else want=idle; fi
  # Noted before drawing: a resize while drawing must draw again.
  if [ "$want" != "$shown" ]; then shown=$want; $want; fi
  sleep "${2:-0.05}" & wait $!
done
"#;

pub fn repo_layout() -> PathBuf {
    workspace_root().join("layouts/zellij-mcp.kdl")
}

/// `$ZELLIJ_BIN`, else `zellij` on PATH, else `~/.cargo/bin/zellij`; checked to be the pinned version.
pub fn zellij_bin() -> PathBuf {
    let candidates = std::env::var_os("ZELLIJ_BIN")
        .map(PathBuf::from)
        .into_iter()
        .chain(std::env::var_os("PATH").into_iter().flat_map(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join("zellij"))
                .collect::<Vec<_>>()
        }))
        .chain(std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo/bin/zellij")));
    for bin in candidates {
        if bin.is_file() {
            let version = std::process::Command::new(&bin).arg("--version").output();
            let version = version.map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
            assert!(
                version.as_deref().is_ok_and(|v| v.contains(ZELLIJ_VERSION)),
                "{} is not Zellij {ZELLIJ_VERSION} ({version:?}): run `make zellij`",
                bin.display()
            );
            return bin;
        }
    }
    panic!("no zellij binary found: run `make zellij`");
}

/// Polls `probe` every 50 ms until it returns `Some`, or panics after `timeout`.
pub fn wait_for<T>(what: &str, timeout: Duration, probe: impl FnMut() -> Option<T>) -> T {
    poll_for(timeout, probe)
        .unwrap_or_else(|| panic!("timed out after {timeout:?} waiting for {what}"))
}

/// The first file under `dir` (at any depth, links not followed) whose
/// name `named` accepts, as the plugin's `/cache` files are found.
pub fn file_under(dir: &Path, named: &dyn Fn(&str) -> bool) -> Option<PathBuf> {
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        if named(&entry.file_name().to_string_lossy()) {
            return Some(path);
        }
        if path.is_dir() && !path.is_symlink() {
            if let Some(found) = file_under(&path, named) {
                return Some(found);
            }
        }
    }
    None
}

/// The peak memory (KiB, `VmHWM`) of the relay (`zellij-mcp relay`, or the
/// `zellij-mcp launch` the plugin starts commands with) whose command line
/// holds `mark`, as Linux tells it.
pub fn relay_peak_kib(mark: &str) -> Option<u64> {
    let all = std::fs::read_dir("/proc").ok()?;
    all.flatten().find_map(|entry| {
        let words = std::fs::read(entry.path().join("cmdline")).ok()?;
        let words: Vec<&[u8]> = words.split(|b| *b == 0).collect();
        let relay = [Some(&&b"relay"[..]), Some(&&b"launch"[..])].contains(&words.get(1));
        let marked = words
            .iter()
            .any(|w| String::from_utf8_lossy(w).contains(mark));
        if !(relay && marked) {
            return None;
        }
        let status = std::fs::read_to_string(entry.path().join("status")).ok()?;
        let peak = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        peak.split_whitespace().nth(1)?.parse().ok()
    })
}

/// Polls `probe` every 50 ms until it returns `Some`; `None` after `timeout`.
pub fn poll_for<T>(timeout: Duration, mut probe: impl FnMut() -> Option<T>) -> Option<T> {
    let start = Instant::now();
    loop {
        if let Some(value) = probe() {
            return Some(value);
        }
        if start.elapsed() >= timeout {
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
