//! What setup did, kept beside the plugin, so that `--uninstall` undoes
//! exactly that: a block or a file setup made goes, one that was there
//! before loses only what setup added to it.

use std::path::Path;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Record {
    /// The config file did not exist.
    pub made_config: bool,
    /// The `plugins` block did not exist.
    pub made_alias_block: bool,
    /// The `load_plugins` block did not exist.
    pub made_autoload_block: bool,
    /// The permission cache did not exist.
    pub made_permissions: bool,
    /// MCP clients the server was added to (`--client`).
    pub clients: Vec<String>,
}

impl Record {
    /// The record, or an empty one.
    pub fn load(path: &Path) -> Record {
        std::fs::read(path)
            .ok()
            .filter(|bytes| bytes.len() <= 64 * 1024)
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text.into_bytes()
    }
}
