//! Carries the plugin: the release `zellij-mcp.wasm` built beside this
//! crate (`make plugin`; or the file `ZELLIJ_MCP_PLUGIN_WASM` names) goes
//! into the binary, with the build id found in it. Without one, the binary
//! carries no plugin and `zellij-mcp setup` says how to build it.

use std::path::{Path, PathBuf};

const MARK: &[u8] = b"zellij-mcp-build-id:";
const WASM: &str = "wasm32-wasip1/release/zellij-mcp.wasm";

fn main() {
    println!("cargo:rerun-if-env-changed=ZELLIJ_MCP_PLUGIN_WASM");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let wasm = plugin_wasm(&out);
    println!("cargo:rerun-if-changed={}", wasm.display());
    let bytes = std::fs::read(&wasm).unwrap_or_default();
    let build_id = build_id(&bytes).unwrap_or_default();
    std::fs::write(out.join("zellij-mcp.wasm"), &bytes).unwrap();
    println!("cargo:rustc-env=ZELLIJ_MCP_PLUGIN_BUILD_ID={build_id}");
}

/// `ZELLIJ_MCP_PLUGIN_WASM`, else the release plugin in the target folder
/// that holds `out` (whatever `CARGO_TARGET_DIR` is).
fn plugin_wasm(out: &Path) -> PathBuf {
    if let Some(path) = std::env::var_os("ZELLIJ_MCP_PLUGIN_WASM") {
        return PathBuf::from(path);
    }
    out.ancestors()
        .map(|dir| dir.join(WASM))
        .find(|wasm| wasm.exists())
        .unwrap_or_else(|| {
            let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
            manifest.join("../target").join(WASM)
        })
}

/// The 16 hex digits after the marker the plugin keeps in its data.
fn build_id(wasm: &[u8]) -> Option<String> {
    wasm.windows(MARK.len())
        .enumerate()
        .filter(|(_, w)| *w == MARK)
        .filter_map(|(at, _)| wasm.get(at + MARK.len()..at + MARK.len() + 16))
        .find(|id| id.iter().all(u8::is_ascii_hexdigit))
        .map(|id| String::from_utf8_lossy(id).into_owned())
}
