//! Property tests over everything here that takes outside input: key names,
//! cursors and baselines, text shaping and reply framing. No input may panic.
//! `PROPTEST_CASES` sets the number of cases (default 10,000; `make fuzz`
//! runs many more).

use proptest::prelude::*;
use serde_json::json;

use crate::cursor::Cursor;
use crate::frames::{encode_reply, Assembler};
use crate::fresh::Baseline;
use crate::keys::key_bytes;
use crate::testing::property_config;
use crate::text::{shape_read, tail_capped, trim_rows};
use crate::Reply;

/// Screen rows: short, with repeats, blanks and multi-byte text.
fn rows() -> impl Strategy<Value = Vec<String>> {
    let row = prop_oneof![
        Just(String::new()),
        Just("$ ".to_owned()),
        "[a-c]{1,3}",
        "[ -~]{0,20}",
        "[é€😀 x]{0,6}",
    ];
    prop::collection::vec(row, 0..30)
}

fn as_strs(rows: &[String]) -> Vec<&str> {
    rows.iter().map(String::as_str).collect()
}

proptest! {
    #![proptest_config(property_config())]

    #[test]
    fn key_names_never_panic(name in "\\PC{0,12}") {
        if let Ok(bytes) = key_bytes(&name) {
            prop_assert!(!bytes.is_empty());
        }
    }

    #[test]
    fn modifiers_and_keys_in_any_spelling_parse(
        modifier in prop::sample::select(vec!["", "Ctrl ", "ctrl+", "C-", "Alt ", "M-"]),
        key in prop::sample::select(vec!["a", "z", "Enter", "Tab", "Up", "F5", "Esc", "["]),
    ) {
        let name = format!("{modifier}{key}");
        // Ctrl goes with single characters only.
        let ctrl = modifier.starts_with(['C', 'c']);
        let expected = !ctrl || key.chars().count() == 1;
        prop_assert_eq!(key_bytes(&name).is_ok(), expected, "{}", name);
    }

    #[test]
    fn cursor_tokens_never_panic(token in "\\PC{0,30}") {
        if let Some(cursor) = Cursor::decode(&token) {
            prop_assert_eq!(Cursor::decode(&cursor.encode()), Some(cursor));
        }
    }

    #[test]
    fn a_cursor_finds_where_it_was_made_and_what_came_after(rows in rows(), more in rows()) {
        let rows = trim_rows(rows);
        let before = as_strs(&rows);
        let cursor = Cursor::after(&before);
        let mut all = before.clone();
        all.extend(as_strs(&more));
        let start = cursor.find(&all).expect("the anchor is still there");
        prop_assert_eq!(start, before.len().saturating_sub(1));
        let base = Baseline::after(&before);
        let fresh = base.fresh(&all).unwrap();
        prop_assert_eq!(&fresh.rows[fresh.rows.len().min(1)..], &all[(start + 1).min(all.len())..]);
    }

    #[test]
    fn finding_a_cursor_in_any_rows_never_panics(made in rows(), other in rows()) {
        let cursor = Cursor::after(&as_strs(&made));
        let other = as_strs(&other);
        if let Some(start) = cursor.find(&other) {
            prop_assert!(start <= other.len());
        }
        let _ = Baseline::after(&as_strs(&made)).fresh(&other);
    }

    #[test]
    fn the_tail_keeps_within_the_cap_and_ends_the_text(rows in rows(), cap in 1usize..200) {
        let rows = trim_rows(rows);
        let (text, cut) = tail_capped(as_strs(&rows), cap);
        prop_assert!(text.len() <= cap);
        let whole = rows.join("\n");
        prop_assert!(whole.ends_with(&text));
        prop_assert_eq!(cut, text.len() < whole.len());
    }

    #[test]
    fn reads_never_panic_and_stay_in_bounds(
        rows in rows(),
        since in rows(),
        tail in prop::option::of(0usize..40),
        cap in 1usize..300,
    ) {
        let rows = trim_rows(rows);
        let since = Cursor::after(&as_strs(&since));
        let read = shape_read(&as_strs(&rows), Some(&since), tail, cap);
        prop_assert!(read.text.len() <= cap);
        prop_assert!(read.lines <= rows.len());
        if let Some(n) = tail {
            prop_assert!(read.lines <= n.max(1) || read.text.is_empty());
        }
    }

    #[test]
    fn any_reply_is_framed_and_rebuilt(text in "\\PC{0,3000}", id in "[a-z0-9-]{0,12}") {
        let reply = Reply::ok(id.clone(), json!({"text": text}));
        let mut asm = Assembler::new(id);
        let mut rebuilt = None;
        for line in encode_reply(&reply) {
            rebuilt = asm.push_line(&line).or(rebuilt);
        }
        prop_assert_eq!(rebuilt, Some(reply));
    }

    #[test]
    fn garbage_lines_never_panic_the_assembler(lines in prop::collection::vec("\\PC{0,80}", 0..20)) {
        let mut asm = Assembler::new("x");
        for line in &lines {
            let _ = asm.push_line(line);
        }
    }
}
