//! Read cursors: an opaque token that marks how far an agent has read a
//! pane's scrollback, so a later read returns only what came after.
//!
//! A cursor counts the *complete* lines (all but the last, which may still be
//! growing) and hashes the last few of them. A later read finds that anchor
//! again, even when the scrollback has since dropped lines from its top; when
//! the anchor is gone (the screen was cleared) the cursor is lost and the
//! reader starts over.
//!
//! The plugin and the bridge both make and read cursors (the bridge for reads
//! of the whole scrollback), so one token means the same thing on both sides.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Lines hashed into the anchor.
const ANCHOR_LINES: usize = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    complete: usize,
    anchor: u64,
}

impl Cursor {
    /// The cursor after reading `lines` (screen padding already removed).
    pub fn after(lines: &[&str]) -> Cursor {
        let complete = lines.len().saturating_sub(1);
        Cursor {
            complete,
            anchor: anchor(&lines[..complete]),
        }
    }

    /// Marks the very start: there was nothing to anchor on.
    pub fn is_start(&self) -> bool {
        self.complete == 0
    }

    pub fn encode(&self) -> String {
        format!("{}.{:x}", self.complete, self.anchor)
    }

    pub fn decode(token: &str) -> Option<Cursor> {
        let (complete, anchor) = token.split_once('.')?;
        Some(Cursor {
            complete: complete.parse().ok()?,
            anchor: u64::from_str_radix(anchor, 16).ok()?,
        })
    }

    /// Where the lines after this cursor start in `lines`, or `None` when the
    /// anchor is gone. The position the count names is tried first, then the
    /// latest place the anchor appears.
    pub fn find(&self, lines: &[&str]) -> Option<usize> {
        let width = self.complete.min(ANCHOR_LINES);
        if width == 0 {
            return Some(0);
        }
        let matches_at = |end: usize| hash_lines(&lines[end - width..end]) == self.anchor;
        if self.complete <= lines.len() && matches_at(self.complete) {
            return Some(self.complete);
        }
        (width..=lines.len()).rev().find(|&end| matches_at(end))
    }
}

impl Serialize for Cursor {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.encode())
    }
}

impl<'de> Deserialize<'de> for Cursor {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let token = String::deserialize(deserializer)?;
        Cursor::decode(&token)
            .ok_or_else(|| serde::de::Error::custom(format!("'{token}' is not a read cursor")))
    }
}

fn anchor(lines: &[&str]) -> u64 {
    hash_lines(&lines[lines.len().saturating_sub(ANCHOR_LINES)..])
}

/// FNV-1a over lines: stable across builds and instances, unlike std's hasher.
pub fn hash_lines(lines: &[&str]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for line in lines {
        for byte in line.bytes().chain([b'\n']) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn returns_what_came_after_including_the_line_that_was_growing() {
        let cursor = Cursor::after(&["$ make", "building", "$ "]);
        let now = ["$ make", "building", "$ ls", "a b", "$ "];
        assert_eq!(cursor.find(&now), Some(2));
    }

    #[test]
    fn survives_lines_dropped_from_the_top() {
        let cursor = Cursor::after(&["a", "b", "c", "d", ""]);
        let now = ["b", "c", "d", "", "e"];
        assert_eq!(cursor.find(&now), Some(3));
    }

    #[test]
    fn is_lost_when_the_screen_was_cleared() {
        let cursor = Cursor::after(&["x", "y", "z", ""]);
        assert_eq!(cursor.find(&["$ "]), None);
    }

    #[test]
    fn a_short_anchor_is_found_after_the_top_scrolled_away() {
        let cursor = Cursor::after(&["$ ls", "a", "$ "]);
        let now = ["a", "$ ls", "a", "$ cat x", "x", "$ "];
        assert_eq!(cursor.find(&now), Some(3));
    }

    #[test]
    fn serializes_as_its_token() {
        let cursor = Cursor::after(&["one", "two", "three"]);
        let json = serde_json::to_value(cursor).unwrap();
        assert_eq!(json, serde_json::json!(cursor.encode()));
        assert_eq!(serde_json::from_value::<Cursor>(json).unwrap(), cursor);
        assert!(serde_json::from_value::<Cursor>(serde_json::json!("x")).is_err());
    }

    #[test]
    fn round_trips_and_rejects_garbage() {
        let cursor = Cursor::after(&["one", "two"]);
        assert_eq!(Cursor::decode(&cursor.encode()), Some(cursor));
        for bad in ["", "x", "1.", "1.zz", ".1"] {
            assert_eq!(Cursor::decode(bad), None, "{bad}");
        }
        assert_eq!(Cursor::after(&[]).find(&["a"]), Some(0));
    }
}
