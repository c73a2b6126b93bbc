//! Screen text shaping shared by the plugin (which builds replies) and tests.

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
}
