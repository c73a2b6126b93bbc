//! A reply read from the pane, for a program whose description names no
//! record: the rows between the delivered message and the composer, less
//! the rows the description knows as the program's own. It is what the
//! program drew (wrapped, rendered), and says so (`source: "screen"`).

use zellij_mcp_protocol::agent_programs::{Description, Hit};

/// The reply under the row holding `header`, as drawn on `rows`; `None`
/// when that row is no longer on them (the reply's start scrolled away).
pub fn reply(
    rows: &[String],
    header: &str,
    message: &str,
    program: &Description,
) -> Option<String> {
    let start = rows.iter().rposition(|row| row.contains(header))?;
    let reading = program.read(rows, "");
    let mut end = match &reading.composer {
        Ok(composer) if composer.rows.start > start => composer.rows.start,
        _ => rows.len(),
    };
    for hit in [&reading.working, &reading.asking].into_iter().flatten() {
        if let Hit::Row(row, _) = hit {
            if *row > start {
                end = end.min(*row);
            }
        }
    }
    // The message's own lines, echoed under its first.
    let echoed = |row: &str| {
        let row = row.trim();
        !row.is_empty()
            && message
                .lines()
                .any(|line| !line.trim().is_empty() && row.ends_with(line.trim()))
    };
    let after = rows[start + 1..end].iter().skip_while(|r| echoed(r));
    let mut lines: Vec<&str> = after.map(|r| r.trim_end()).collect();
    while lines.last().is_some_and(|r| program.is_composer_edge(r)) {
        lines.pop();
    }
    let text = lines.join("\n");
    Some(text.trim_matches('\n').to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use zellij_mcp_protocol::agent_programs::Programs;

    #[test]
    fn a_reply_is_the_rows_between_the_message_and_the_composer() {
        let file = "agent \"bot\" {\n  programs \"bot\"\n  prompt \"»\"\n  composer start=\"^┄{20,}$\" end=\"^┄{20,}$\"\n  working \"^✻ thinking\"\n}";
        let programs = Programs::with_file(file, "f").unwrap();
        let bot = programs.named("bot").unwrap();
        let rule = "┄".repeat(30);
        let screen = |tail: &[&str]| {
            let mut rows = vec!["bot · 1 turn", "you: [#4 from lead] look", "you: at this"];
            rows.extend(tail);
            rows.into_iter().map(String::from).collect::<Vec<_>>()
        };
        let done = screen(&["bot: first", "bot: second  ", &rule, "» ", &rule]);
        let text = reply(&done, "[#4 from lead]", "look\nat this", bot);
        assert_eq!(text.as_deref(), Some("bot: first\nbot: second"));
        let gone = done[3..].to_vec();
        assert_eq!(reply(&gone, "[#4 from lead]", "look", bot), None);
    }
}
