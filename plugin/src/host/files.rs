//! Reads of the plugin's own small files (leases, agent names) with a size
//! cap: they sit in a folder anything running as the user can write to, and
//! an oversized one must not take the plugin past its memory.

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Lease and lock records.
pub const RECORD_BYTES: u64 = 4 * 1024;
/// The agent names of a session.
pub const AGENTS_BYTES: u64 = 1024 * 1024;

/// The file's text, or `None` when it is missing, not text, or over `cap`.
pub fn read_capped(path: &Path, cap: u64) -> Option<String> {
    let mut text = String::new();
    let read = File::open(path)
        .ok()?
        .take(cap + 1)
        .read_to_string(&mut text);
    (read.ok()? as u64 <= cap).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_over_the_cap_are_not_read() {
        let dir = crate::tests::shared_dir("files-capped");
        let path = dir.join("f");
        std::fs::write(&path, "x".repeat(10)).unwrap();
        assert_eq!(read_capped(&path, 10).as_deref(), Some("xxxxxxxxxx"));
        assert_eq!(read_capped(&path, 9), None);
        assert_eq!(read_capped(&dir.join("missing"), 9), None);
    }
}
