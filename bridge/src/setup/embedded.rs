//! The plugin this binary carries (see `build.rs`): `setup` installs it,
//! and `doctor` compares a session's plugin with it.

/// The release `zellij-mcp.wasm` of this build; empty when the bridge was
/// built before the plugin.
pub const PLUGIN_WASM: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/zellij-mcp.wasm"));

/// The carried plugin's build id; empty when it carries none.
pub const PLUGIN_BUILD_ID: &str = env!("ZELLIJ_MCP_PLUGIN_BUILD_ID");

/// Whether this binary carries a plugin.
pub fn carries_plugin() -> bool {
    !PLUGIN_WASM.is_empty() && !PLUGIN_BUILD_ID.is_empty()
}
