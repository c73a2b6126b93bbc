//! What the server writes stays the user's own: its audit log is created
//! 0600, and the plugin's folder (its event logs with message text, agent
//! names and leases) is made 0700 when the bridge first reaches a session.
//! The plugin cannot set modes itself (WASI has no chmod), so its files
//! keep the Zellij server's umask; the folder keeps others out of them.

use std::fs::{File, OpenOptions, Permissions};
use std::io::Read;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// `n` random bytes as hex, for secrets and tokens no one may guess.
pub fn random_hex(n: usize) -> std::io::Result<String> {
    let mut bytes = vec![0u8; n];
    File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Opens `path` for appending, creating it 0600, and narrows it to 0600
/// if it was wider.
pub fn append_privately(path: &Path) -> std::io::Result<File> {
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)?;
    file.set_permissions(Permissions::from_mode(0o600))?;
    Ok(file)
}

/// Makes the folder Zellij gives the plugin at `plugin_url` (a `file:`
/// URL) 0700, when it is on this machine under this user's cache.
pub fn keep_plugin_folder_private(plugin_url: &str) {
    let Some(folder) = plugin_folder(plugin_url) else {
        return;
    };
    if folder.is_dir() {
        if let Err(e) = std::fs::set_permissions(&folder, Permissions::from_mode(0o700)) {
            tracing::warn!("could not make {} private: {e}", folder.display());
        }
    }
}

/// `$XDG_CACHE_HOME/zellij/<url>/plugin_cache` (else under `~/.cache`), as
/// Zellij 0.45.1 names a plugin's shared folder.
fn plugin_folder(plugin_url: &str) -> Option<PathBuf> {
    if !plugin_url.starts_with("file:") {
        return None;
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))?;
    Some(cache.join("zellij").join(plugin_url).join("plugin_cache"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_audit_log_is_the_users_alone() {
        let dir = std::env::temp_dir().join(format!("zmcp-private-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("audit.jsonl");
        std::fs::write(&path, "").unwrap();
        std::fs::set_permissions(&path, Permissions::from_mode(0o644)).unwrap();
        append_privately(&path).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
