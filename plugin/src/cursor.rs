//! Read cursors: an opaque token that marks how far an agent has read a
//! pane's scrollback, so a later read returns only what came after.
//!
//! A cursor counts the *complete* lines (all but the last, which may still be
//! growing) and hashes the last few of them. A later read finds that anchor
//! again, even when the scrollback has since dropped lines from its top; when
//! the anchor is gone (the screen was cleared) the cursor is lost and the
//! reader starts over.

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
    /// anchor is gone.
    pub fn find(&self, lines: &[&str]) -> Option<usize> {
        let width = self.complete.min(ANCHOR_LINES);
        if width == 0 {
            return Some(0);
        }
        let matches_at = |end: usize| anchor(&lines[..end]) == self.anchor;
        if self.complete <= lines.len() && matches_at(self.complete) {
            return Some(self.complete);
        }
        (width..=lines.len()).rev().find(|&end| matches_at(end))
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
    fn round_trips_and_rejects_garbage() {
        let cursor = Cursor::after(&["one", "two"]);
        assert_eq!(Cursor::decode(&cursor.encode()), Some(cursor));
        for bad in ["", "x", "1.", "1.zz", ".1"] {
            assert_eq!(Cursor::decode(bad), None, "{bad}");
        }
        assert_eq!(Cursor::after(&[]).find(&["a"]), Some(0));
    }
}
