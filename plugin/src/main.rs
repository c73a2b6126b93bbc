//! The plugin's binary, `zellij-mcp.wasm`: it registers the library's
//! functions with Zellij (see `zellij_mcp_plugin::entry`), and nothing else.

zellij_mcp_plugin::export_to_zellij!();

/// A panic is reported in Zellij's log.
fn main() {
    std::panic::set_hook(Box::new(zellij_tile::prelude::report_panic));
}
