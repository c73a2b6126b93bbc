//! Whether a shell's line, as its pane shows it, holds text a person typed
//! and did not send: the row the cursor is on, split at the cursor.
//!
//! A line editor draws its prompt, then the line, and leaves the cursor
//! after what it drew (or where the person moved it). So the line is taken
//! as empty only when nothing follows the cursor on its row and what comes
//! before it ends as a prompt does: a prompt sign (`$ # % > ❯ …`) and a
//! space. A sign people also type in command lines (`$ # % >`) counts
//! only right after a word or at the row's start, as prompts draw it
//! (`host$ `), never after a space (`echo a > `). Anything else is a
//! draft, or a line that cannot be told apart from one, and a run never
//! types after it.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Shells, by the name their process has.
pub const SHELLS: &[&str] = &[
    "bash", "zsh", "fish", "sh", "dash", "ksh", "mksh", "tcsh", "csh", "nu", "elvish", "xonsh",
    "yash", "ash",
];

/// Whether `argv` is a shell's (a login shell's name starts with `-`).
pub fn is_shell(argv: &[String]) -> bool {
    argv.first().is_some_and(|program| {
        let name = program.rsplit('/').next().unwrap_or(program);
        SHELLS.contains(&name.trim_start_matches('-'))
    })
}

/// The signs prompts end with, before their last space, that command
/// lines hold too.
pub const TYPED_SIGNS: [char; 4] = ['$', '#', '%', '>'];

/// The signs only prompts end with.
pub const PROMPT_SIGNS: [char; 5] = ['❯', '➜', '»', 'λ', '→'];

/// What a shell's line holds, as far as the screen tells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShellLine {
    /// The cursor follows a prompt, with nothing after it.
    Empty,
    /// The row the cursor is on, which holds (or may hold) a person's text.
    Draft(String),
    /// The cursor is not shown, so the line cannot be told.
    Unknown,
}

/// The line of a shell whose screen is `rows`, with the cursor at
/// `cursor` (column and row within the screen, in display cells).
pub fn shell_line<S: AsRef<str>>(rows: &[S], cursor: Option<(usize, usize)>) -> ShellLine {
    let Some((column, row)) = cursor else {
        return ShellLine::Unknown;
    };
    let text = rows.get(row).map(AsRef::as_ref).unwrap_or_default();
    let (before, after) = split_at_cell(text, column);
    // Zellij drops a row's trailing spaces when it rewraps it (a client of
    // another size attached): a cursor past the text has blanks before it.
    let blanks = column.saturating_sub(before.width());
    let before = format!("{before}{}", " ".repeat(blanks));
    let draft = || ShellLine::Draft(text.trim_end().to_owned());
    if !after.trim().is_empty() {
        return draft();
    }
    let Some(prompt) = before.strip_suffix(' ') else {
        return draft();
    };
    match ends_with_prompt_sign(prompt) {
        true => ShellLine::Empty,
        false => draft(),
    }
}

/// The line of a program that reads lines at a prompt, from its screen's
/// last row with text, cursor or not (Ink apps hide the terminal's cursor
/// and draw their own): empty when the row ends with a prompt sign, else a
/// draft; unknown on a blank screen.
pub fn prompt_line<S: AsRef<str>>(rows: &[S]) -> ShellLine {
    let Some(row) = rows
        .iter()
        .map(|r| r.as_ref().trim_end())
        .rfind(|r| !r.is_empty())
    else {
        return ShellLine::Unknown;
    };
    match ends_with_prompt_sign(row) {
        true => ShellLine::Empty,
        false => ShellLine::Draft(row.to_owned()),
    }
}

/// Whether `text` ends as a prompt does: a sign only prompts end with, or
/// one people also type right after a word or at the row's start (never
/// after a space: `echo a >`).
fn ends_with_prompt_sign(text: &str) -> bool {
    let mut back = text.chars().rev();
    match (back.next(), back.next()) {
        (Some(sign), _) if PROMPT_SIGNS.contains(&sign) => true,
        (Some(sign), before) if TYPED_SIGNS.contains(&sign) => before.is_none_or(|c| c != ' '),
        _ => false,
    }
}

/// `text` split where display cell `column` starts; past its end, all of
/// it is before.
fn split_at_cell(text: &str, column: usize) -> (&str, &str) {
    let mut cells = 0;
    for (at, c) in text.char_indices() {
        if cells >= column {
            return text.split_at(at);
        }
        cells += c.width().unwrap_or(0);
    }
    (text, "")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(row: &str, column: usize) -> ShellLine {
        shell_line(&["earlier output", row, ""], Some((column, 1)))
    }

    #[test]
    fn a_line_readers_last_row_ends_with_its_prompt_when_its_line_is_empty() {
        assert_eq!(
            prompt_line(&["bot ready", "bot> ", "", ""]),
            ShellLine::Empty
        );
        assert_eq!(prompt_line(&["sink$"]), ShellLine::Empty);
        assert_eq!(
            prompt_line(&["bot> my own"]),
            ShellLine::Draft("bot> my own".into())
        );
        assert_eq!(
            prompt_line(&["bot> echo a >"]),
            ShellLine::Draft("bot> echo a >".into()),
            "a sign after a space is typed"
        );
        assert_eq!(prompt_line(&["", "  "]), ShellLine::Unknown);
    }

    #[test]
    fn a_cursor_after_a_prompt_is_an_empty_line() {
        assert_eq!(line("bash-5.2# ", 10), ShellLine::Empty);
        assert_eq!(line("user@host:~/src$ ", 17), ShellLine::Empty);
        assert_eq!(line("host% ", 6), ShellLine::Empty);
        assert_eq!(line("root@host /w/main# ", 19), ShellLine::Empty);
        assert_eq!(line("~/src ❯ ", 8), ShellLine::Empty, "one cell a sign");
        assert_eq!(line("日本$ ", 6), ShellLine::Empty, "wide cells");
        assert_eq!(line("no-newlinebash-5.2# ", 20), ShellLine::Empty);
        assert_eq!(
            line("bash-5.2#", 10),
            ShellLine::Empty,
            "a trailing space dropped"
        );
    }

    #[test]
    fn text_after_the_prompt_or_the_cursor_is_a_draft() {
        let draft = |row: &str| ShellLine::Draft(row.trim_end().to_owned());
        assert_eq!(
            line("bash-5.2# touch notes.txt", 25),
            draft("bash-5.2# touch notes.txt")
        );
        assert_eq!(
            line("bash-5.2# touch notes.txt", 10),
            draft("bash-5.2# touch notes.txt"),
            "the cursor moved home"
        );
        assert_eq!(line("bash-5.2# ls ", 13), draft("bash-5.2# ls "));
        assert_eq!(
            line("bash-5.2#", 9),
            draft("bash-5.2#"),
            "no space after the sign"
        );
        assert_eq!(
            line("  more lines of a draft", 23),
            draft("  more lines of a draft")
        );
        assert_eq!(
            line("bash-5.2# echo a > ", 19),
            draft("bash-5.2# echo a > ")
        );
        assert_eq!(line("$ echo $ ", 9), draft("$ echo $ "));
        assert_eq!(line("$ ", 2), ShellLine::Empty, "a sign at the row's start");
        assert_eq!(line("", 0), draft(""), "no prompt at all");
    }

    #[test]
    fn a_hidden_cursor_tells_nothing() {
        assert_eq!(shell_line(&["$ "], None), ShellLine::Unknown);
        assert_eq!(
            shell_line(&["$ "], Some((2, 5))),
            ShellLine::Draft(String::new())
        );
    }
}
