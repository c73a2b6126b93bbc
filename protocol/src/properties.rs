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
use crate::launcher::{self, EnvChange};
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

/// An environment change as a launcher writes it: `env`'s options, in one
/// of their spellings, or an assignment.
fn env_change() -> impl Strategy<Value = (EnvChange, Vec<String>)> {
    let name = "[A-Z_][A-Z0-9_]{0,8}";
    let value = "[a-z0-9/:.=-]{0,8}";
    prop_oneof![
        (name, 0..3usize).prop_map(|(n, spelling)| {
            let words = match spelling {
                0 => vec!["-u".to_owned(), n.clone()],
                1 => vec![format!("--unset={n}")],
                _ => vec![format!("-u{n}")],
            };
            (EnvChange::Unset(n), words)
        }),
        Just((EnvChange::Clear, vec!["-i".to_owned()])),
        ("/[a-z]{1,6}", any::<bool>()).prop_map(|(d, long)| {
            let words = match long {
                true => vec![format!("--chdir={d}")],
                false => vec!["-C".to_owned(), d.clone()],
            };
            (EnvChange::Chdir(d), words)
        }),
        (name, value).prop_map(|(n, v)| (
            EnvChange::Set(n.clone(), v.clone()),
            vec![format!("{n}={v}")]
        )),
    ]
}

/// A program as a command line names it, with the name it is known by.
fn launched_program() -> impl Strategy<Value = (Vec<String>, &'static str)> {
    let forms: [(&[&str], &str); 8] = [
        (&["codex"], "codex"),
        (&["/usr/local/bin/claude"], "claude"),
        (
            &[
                "node",
                "--no-warnings",
                "/x/@google/gemini-cli/bundle/gemini.js",
            ],
            "gemini",
        ),
        (&["npx", "-y", "@openai/codex@0.1"], "codex"),
        (&["npm", "exec", "--yes", "--", "opencode-ai"], "opencode"),
        (&["uvx", "--from", "aider-chat", "aider"], "aider"),
        (&["python3", "-m", "aider"], "aider"),
        (&["bunx", "@qwen-code/qwen-code"], "qwen"),
    ];
    prop::sample::select(forms.to_vec())
        .prop_map(|(words, name)| (words.iter().map(|w| w.to_string()).collect(), name))
}

/// Wrappers put before a program.
fn wrappers() -> impl Strategy<Value = Vec<Vec<String>>> {
    let forms: [&[&str]; 6] = [
        &["nohup"],
        &["nice", "-n", "5"],
        &["timeout", "--foreground", "1h"],
        &["setsid", "-w"],
        &["stdbuf", "-oL"],
        &["/usr/bin/time", "-p"],
    ];
    let form = prop::sample::select(forms.to_vec())
        .prop_map(|w| w.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    prop::collection::vec(form, 0..3)
}

/// `word` as one word of a shell string.
fn shell_quoted(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./=:,+%@".contains(c);
    match !word.is_empty() && word.chars().all(plain) {
        true => word.to_owned(),
        false => format!("'{word}'"),
    }
}

proptest! {
    #![proptest_config(property_config())]

    /// However a program is launched (env and its options, wrappers,
    /// runners, interpreters, a shell's `-c`), it is found, its arguments
    /// and the environment changes are read whole, and resuming it adds
    /// the arguments after it and changes nothing else.
    #[test]
    fn launchers_keep_the_program_its_arguments_and_its_environment(
        changes in prop::collection::vec(env_change(), 0..5),
        outer in wrappers(),
        (program, name) in launched_program(),
        args in prop::collection::vec("[a-z0-9 =./-]{1,8}", 0..4),
        in_shell in any::<bool>(),
    ) {
        // Options first, then assignments, as env reads them.
        let (sets, options): (Vec<_>, Vec<_>) = changes
            .into_iter()
            .partition(|(change, _)| matches!(change, EnvChange::Set(..)));
        let env: Vec<EnvChange> = options.iter().chain(&sets).map(|(c, _)| c.clone()).collect();
        let mut words: Vec<String> = outer.concat();
        if !env.is_empty() {
            words.push("env".into());
            words.extend(options.iter().chain(&sets).flat_map(|(_, w)| w.clone()));
        }
        words.extend(program);
        words.extend(args.iter().cloned());
        let argv = match in_shell {
            true => {
                let script: Vec<String> = words.iter().map(|w| shell_quoted(w)).collect();
                vec!["bash".into(), "-lc".into(), format!("exec {}", script.join(" "))]
            }
            false => words,
        };
        let launch = launcher::read(&argv).map_err(|e| TestCaseError::fail(format!("{argv:?}: {e}")))?;
        prop_assert_eq!(launch.name(), name);
        prop_assert_eq!(launch.args(), args.iter().map(String::as_str).collect::<Vec<_>>());
        prop_assert_eq!(&launch.env, &env);
        let resume = vec!["--resume".to_owned(), "1f2e-id".to_owned()];
        let resumed = launch.with_args(&argv, &resume);
        let again = launcher::read(&resumed).map_err(|e| TestCaseError::fail(e.0))?;
        prop_assert_eq!(again.name(), name);
        prop_assert_eq!(&again.env, &env);
        let mut expected: Vec<&str> = resume.iter().map(String::as_str).collect();
        expected.extend(args.iter().map(String::as_str));
        prop_assert_eq!(again.args(), expected);
    }

    #[test]
    fn any_command_line_is_read_or_unreadable_without_panicking(
        argv in prop::collection::vec("[ -~é]{0,12}", 0..8),
    ) {
        if let Ok(launch) = launcher::read(&argv) {
            let _ = launch.with_args(&argv, &["x y".to_owned()]);
        }
        let _ = launcher::read_command(&argv.join(" "));
    }
}
