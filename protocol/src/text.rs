//! Screen text shaping, shared by the plugin (screen reads) and the bridge
//! (scrollback reads), so both give the same text and cursors.

use crate::cursor::Cursor;

/// Text as plain text: control characters (escape sequences' ESC, CR,
/// backspace, C1 controls) removed, line feeds and tabs kept. Messages are
/// typed into agents' TUIs, where an ESC or a CR would act as a key.
pub fn plain_text(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
        .collect()
}

/// A pane's rows without screen padding: trailing spaces on each row and
/// trailing blank rows removed.
pub fn trim_rows(rows: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut rows: Vec<String> = rows
        .into_iter()
        .map(|mut row| {
            row.truncate(trimmed_len(&row));
            row
        })
        .collect();
    while rows.last().is_some_and(|r| r.is_empty()) {
        rows.pop();
    }
    rows
}

/// The row's length without its trailing whitespace. The spaces Zellij
/// pads rows with are skipped eight at a time: `trim_end` looks at each
/// character, which the plugin's interpreter does slowly.
fn trimmed_len(row: &str) -> usize {
    const SPACES: [u8; 8] = [b' '; 8];
    let bytes = row.as_bytes();
    let mut end = bytes.len();
    while end >= 8 && bytes[end - 8..end] == SPACES {
        end -= 8;
    }
    while end > 0 && bytes[end - 1] == b' ' {
        end -= 1;
    }
    // Only ASCII spaces were skipped: `end` is a character boundary.
    row[..end].trim_end().len()
}

/// What a read returns, before it names its pane and tab.
#[derive(Debug, Clone, PartialEq)]
pub struct Shaped {
    pub text: String,
    pub lines: usize,
    /// Earlier lines were dropped (`max_bytes` or `tail_lines`).
    pub truncated: bool,
    /// The cursor after all of `rows`.
    pub cursor: Cursor,
    /// `since` was not found in `rows`: the text starts over.
    pub cursor_reset: bool,
}

/// The text of a read of `rows` (already trimmed): the lines after `since`,
/// then the last `tail_lines`, then the tail within `max_bytes`.
pub fn shape_read(
    rows: &[&str],
    since: Option<&Cursor>,
    tail_lines: Option<usize>,
    max_bytes: usize,
) -> Shaped {
    let (start, cursor_reset) = match since.map(|c| c.find(rows)) {
        None => (0, false),
        Some(Some(start)) => (start, false),
        Some(None) => (0, true),
    };
    let mut lines = &rows[start..];
    let mut truncated = false;
    if let Some(n) = tail_lines.filter(|n| *n < lines.len()) {
        lines = &lines[lines.len() - n..];
        truncated = true;
    }
    let (text, cut) = tail_capped(lines.iter().copied(), max_bytes);
    Shaped {
        lines: if text.is_empty() {
            0
        } else {
            text.lines().count()
        },
        text,
        truncated: truncated || cut,
        cursor: Cursor::after(rows),
        cursor_reset,
    }
}

/// Joins screen lines into text, keeping the **tail** within `max_bytes`.
///
/// Trailing spaces on each line and trailing blank lines are dropped: they are
/// screen padding, not output. When the text is cut, whole lines are dropped
/// from the top; a single line longer than the cap keeps its last bytes.
/// Returns the text and whether anything was cut.
pub fn tail_capped<'a>(
    lines: impl IntoIterator<Item = &'a str>,
    max_bytes: usize,
) -> (String, bool) {
    let mut lines: Vec<&str> = lines.into_iter().map(str::trim_end).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    let mut kept: Vec<&str> = Vec::new();
    let mut size = 0usize;
    let mut truncated = false;
    for line in lines.iter().rev() {
        let cost = line.len() + usize::from(!kept.is_empty());
        if size + cost > max_bytes {
            truncated = true;
            if kept.is_empty() {
                kept.push(tail_of(line, max_bytes));
            }
            break;
        }
        size += cost;
        kept.push(line);
    }
    kept.reverse();
    (kept.join("\n"), truncated)
}

fn tail_of(line: &str, max_bytes: usize) -> &str {
    let mut start = line.len().saturating_sub(max_bytes);
    while !line.is_char_boundary(start) {
        start += 1;
    }
    &line[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_padding_but_keeps_inner_blank_rows() {
        let rows = trim_rows([
            "a  ".to_owned(),
            "".into(),
            "b".into(),
            " ".into(),
            "".into(),
        ]);
        assert_eq!(rows, ["a", "", "b"]);
    }

    proptest::proptest! {
        #[test]
        fn padding_is_trimmed_as_trim_end_trims(
            row in "[a é\t\u{3000}]{0,5}",
            spaces in 0usize..40,
        ) {
            let padded = format!("{row}{}", " ".repeat(spaces));
            proptest::prop_assert_eq!(trimmed_len(&padded), padded.trim_end().len());
        }
    }

    #[test]
    fn a_read_since_a_cursor_returns_only_what_came_after() {
        let first = shape_read(&["$ make", "built", "$ "], None, None, 100);
        assert_eq!((first.text.as_str(), first.lines), ("$ make\nbuilt\n$", 3));
        let now = ["$ make", "built", "$ ls", "a", "$ "];
        let next = shape_read(&now, Some(&first.cursor), None, 100);
        assert_eq!(next.text, "$ ls\na\n$");
        assert!(!next.cursor_reset);
        let lost = shape_read(&["other"], Some(&next.cursor), None, 100);
        assert!(lost.cursor_reset);
        assert_eq!(lost.text, "other");
    }

    #[test]
    fn tail_lines_and_max_bytes_keep_the_end() {
        let rows = ["1", "2", "3", "4"];
        let tail = shape_read(&rows, None, Some(2), 100);
        assert_eq!((tail.text.as_str(), tail.truncated), ("3\n4", true));
        let capped = shape_read(&rows, None, None, 3);
        assert_eq!((capped.text.as_str(), capped.lines), ("3\n4", 2));
    }

    #[test]
    fn keeps_everything_under_the_cap_without_padding() {
        let (text, cut) = tail_capped(["a  ", "b", "", "  "], 100);
        assert_eq!(text, "a\nb");
        assert!(!cut);
    }

    #[test]
    fn keeps_the_tail_in_whole_lines() {
        let (text, cut) = tail_capped(["first", "second", "third"], 12);
        assert_eq!(text, "second\nthird");
        assert!(cut);
    }

    #[test]
    fn a_long_single_line_keeps_its_end_on_a_char_boundary() {
        let (text, cut) = tail_capped(["ab€€"], 4);
        assert_eq!(text, "€");
        assert!(cut);
    }

    #[test]
    fn plain_text_keeps_line_feeds_and_tabs_only() {
        assert_eq!(
            plain_text("hello\x1b[Z\rworld\n\tnext\u{9b}2J\x08"),
            "hello[Zworld\n\tnext2J"
        );
    }
}
