//! Where setup puts things, found the way Zellij finds them.

use std::path::{Path, PathBuf};

/// The files setup reads and writes.
#[derive(Debug, Clone)]
pub struct Places {
    /// The installed plugin.
    pub plugin: PathBuf,
    /// Zellij's `config.kdl`.
    pub config: PathBuf,
    /// Zellij's permission cache.
    pub permissions: PathBuf,
    /// What setup did, for `--uninstall`.
    pub record: PathBuf,
}

impl Places {
    /// From the environment; `config` overrides Zellij's config file.
    pub fn find(config: Option<PathBuf>) -> Places {
        let data = plugin_dir();
        Places {
            plugin: data.join("zellij-mcp.wasm"),
            config: config.unwrap_or_else(zellij_config_file),
            permissions: zellij_cache_dir().join("permissions.kdl"),
            record: data.join("setup.json"),
        }
    }

    /// The plugin's URL, as the alias, the layouts and the bridge name it.
    pub fn plugin_url(&self) -> String {
        format!("file:{}", self.plugin.display())
    }
}

fn home() -> PathBuf {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default()
}

fn env_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// `$XDG_DATA_HOME/zellij-mcp`, else `~/.local/share/zellij-mcp`.
pub fn plugin_dir() -> PathBuf {
    let data = env_path("XDG_DATA_HOME").unwrap_or_else(|| home().join(".local/share"));
    data.join("zellij-mcp")
}

/// Where `setup` installs the plugin.
pub fn installed_plugin_url() -> String {
    format!("file:{}", plugin_dir().join("zellij-mcp.wasm").display())
}

/// Zellij's config file: `ZELLIJ_CONFIG_FILE`, else `config.kdl` in
/// `ZELLIJ_CONFIG_DIR`, else in `~/.config/zellij` (which Zellij makes and
/// reads first).
fn zellij_config_file() -> PathBuf {
    if let Some(file) = env_path("ZELLIJ_CONFIG_FILE") {
        return file;
    }
    let dir = env_path("ZELLIJ_CONFIG_DIR").unwrap_or_else(|| home().join(".config/zellij"));
    dir.join("config.kdl")
}

/// Zellij's cache folder, where it keeps granted permissions.
fn zellij_cache_dir() -> PathBuf {
    directories::ProjectDirs::from("org", "Zellij Contributors", "Zellij")
        .map(|dirs| dirs.cache_dir().to_path_buf())
        .unwrap_or_else(|| home().join(".cache/zellij"))
}

/// `path` with the home folder written as `~`, for messages.
pub fn shown(path: &Path) -> String {
    let home = home();
    match path.strip_prefix(&home) {
        Ok(rest) if !home.as_os_str().is_empty() => format!("~/{}", rest.display()),
        _ => path.display().to_string(),
    }
}
