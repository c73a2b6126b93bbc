//! What counts as new output in a pane, between two looks at its rows.
//!
//! A [`Baseline`] remembers the rows last seen by their anchor (see
//! [`Cursor`]) and the last row, which may still be growing. The plugin looks
//! only at the screen; when the anchor has scrolled off it, rows went by
//! unseen, and the bridge finds the same baseline again in the whole
//! scrollback, which it reads outside the plugin.

use serde::{Deserialize, Serialize};

use crate::cursor::Cursor;

/// Where new output starts: after the rows last seen, minus what the last
/// (growing) row already held.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    pub cursor: Cursor,
    pub growing: String,
}

/// The rows that are new since a baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct Fresh<'a> {
    /// The first row is the old growing row: only what was added to it, when
    /// it was only added to (`continues`), else the whole row.
    pub rows: Vec<&'a str>,
    /// The first row continues the growing row.
    pub continues: bool,
}

impl Baseline {
    /// The baseline after seeing `rows` (screen padding already removed).
    pub fn after(rows: &[&str]) -> Baseline {
        Baseline {
            cursor: Cursor::after(rows),
            growing: rows.last().map(|r| r.to_string()).unwrap_or_default(),
        }
    }

    /// What `rows` holds after this baseline; `None` when the anchor is not
    /// in `rows` (it scrolled away, or the screen was cleared or redrawn).
    pub fn fresh<'a>(&self, rows: &[&'a str]) -> Option<Fresh<'a>> {
        let start = self.cursor.find(rows)?;
        let mut fresh = rows[start..].to_vec();
        let mut continues = false;
        if let Some(first) = fresh.first_mut() {
            if let Some(rest) = first.strip_prefix(self.growing.as_str()) {
                *first = rest;
                continues = true;
            }
        }
        Some(Fresh {
            rows: fresh,
            continues,
        })
    }
}

impl Fresh<'_> {
    /// Anything new: more than the old growing row, unchanged.
    pub fn has_new(&self) -> bool {
        self.rows.len() > 1 || self.rows.first().is_some_and(|r| !r.is_empty()) || !self.continues
    }

    /// The new text, rows joined with `\n`.
    pub fn text(&self) -> String {
        self.rows.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_rows_and_the_rest_of_the_growing_row_are_fresh() {
        let base = Baseline::after(&["$ make", "building", "$ "]);
        let fresh = base
            .fresh(&["$ make", "building", "$ ls", "a b", "$ "])
            .unwrap();
        assert_eq!(fresh.rows, ["ls", "a b", "$ "]);
        assert!(fresh.continues);
    }

    #[test]
    fn a_rewritten_growing_row_is_fresh_whole() {
        let base = Baseline::after(&["job", "50%"]);
        let fresh = base.fresh(&["job", "60%"]).unwrap();
        assert_eq!((fresh.rows, fresh.continues), (vec!["60%"], false));
    }

    #[test]
    fn is_found_in_a_longer_scrollback_and_lost_when_scrolled_away() {
        let screen = ["c", "d", "e", "$ "];
        let base = Baseline::after(&screen);
        let scrollback = ["a", "b", "c", "d", "e", "$ echo x", "x", "$ "];
        assert_eq!(base.fresh(&scrollback).unwrap().text(), "echo x\nx\n$ ");
        assert_eq!(base.fresh(&["x", "y", "z", "$ "]), None);
    }

    #[test]
    fn nothing_seen_means_everything_is_fresh() {
        let base = Baseline::after(&[]);
        let fresh = base.fresh(&["a", "b"]).unwrap();
        assert_eq!(fresh.text(), "a\nb");
    }

    #[test]
    fn round_trips_as_json() {
        let base = Baseline::after(&["a", "b", "$ "]);
        let json = serde_json::to_string(&base).unwrap();
        assert_eq!(serde_json::from_str::<Baseline>(&json).unwrap(), base);
    }
}
