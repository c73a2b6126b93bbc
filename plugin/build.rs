//! The plugin's build id: a hash of its sources and the protocol's, so a
//! bridge can tell whether the plugin a session runs is the build it
//! carries (`zellij-mcp doctor`). It is kept in the wasm as
//! `zellij-mcp-build-id:<16 hex digits>`, where the bridge's build finds it.

use std::collections::hash_map::DefaultHasher;
use std::hash::Hasher;
use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let inputs = [
        manifest.join("src"),
        manifest.join("Cargo.toml"),
        manifest.join("../protocol/src"),
        manifest.join("../protocol/Cargo.toml"),
    ];
    let mut files = Vec::new();
    for input in &inputs {
        println!("cargo:rerun-if-changed={}", input.display());
        collect(input, &mut files);
    }
    files.sort();
    let mut hasher = DefaultHasher::new();
    for file in &files {
        let relative = file.strip_prefix(&manifest).unwrap_or(file);
        hasher.write(relative.to_string_lossy().as_bytes());
        hasher.write(&std::fs::read(file).unwrap_or_default());
    }
    println!(
        "cargo:rustc-env=ZELLIJ_MCP_BUILD_ID={:016x}",
        hasher.finish()
    );
}

fn collect(path: &Path, files: &mut Vec<PathBuf>) {
    if path.is_file() {
        files.push(path.to_path_buf());
    } else if let Ok(entries) = std::fs::read_dir(path) {
        for entry in entries.flatten() {
            collect(&entry.path(), files);
        }
    }
}
