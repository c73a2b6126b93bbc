//! The patterns a wait looks for. The plugin matches them on the screen as it
//! changes; the bridge matches the same patterns in scrollback rows that
//! went by between two looks.
//!
//! Each pattern is compiled up front to a deterministic automaton (a dense
//! DFA, forward and reverse) of bounded size, so a search costs one table
//! step per byte whatever the pattern: no pattern can stall the plugin for
//! other callers, and one too complex to compile within the caps is a
//! `bad_request` before the wait starts. Classes (`\w`, `\d`, `\s`, `\b`)
//! and `(?i)` are ASCII unless a pattern turns Unicode on with `(?u)`, which
//! makes their automata far larger.

use regex_automata::dfa::{dense, regex::Regex};
use regex_automata::nfa::thompson;
use regex_automata::util::syntax;
use regex_automata::Input;

use crate::limits::MAX_PATTERN_BYTES;
use crate::ops::{WaitForArgs, WaitOutcome, MAX_WAIT_PATTERNS};
use crate::{Error, ErrorBody};

/// Largest automaton (each direction) one pattern may compile to.
const DFA_BYTES: usize = 64 * 1024;
/// The NFA the automaton is built from, and the work of building it.
const NFA_BYTES: usize = 256 * 1024;
const DETERMINIZE_BYTES: usize = 512 * 1024;
/// Automata of one wait's patterns, all together.
pub const MAX_PATTERNS_MEMORY: usize = 256 * 1024;

/// A wait's `pattern` and `stop` patterns, compiled.
#[derive(Debug, Clone, Default)]
pub struct Patterns {
    pub pattern: Option<Regex>,
    pub stop: Vec<Regex>,
}

/// Where a pattern matched.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// `Stopped` for a stop pattern, `Matched` for the pattern.
    pub outcome: WaitOutcome,
    pub matched: String,
    /// The whole line the match is in.
    pub line: String,
}

fn bad(message: impl Into<String>, hint: &str) -> ErrorBody {
    ErrorBody::from(Error::BadRequest {
        problem: message.into(),
        fix: hint.into(),
    })
}

impl Patterns {
    /// Compiles the patterns of `args`; bad ones are `bad_request` with a fix.
    pub fn of(args: &WaitForArgs) -> Result<Patterns, ErrorBody> {
        let count = args.pattern.iter().count() + args.stop.len();
        if count > MAX_WAIT_PATTERNS {
            return Err(bad(
                format!("{count} patterns; a wait takes at most {MAX_WAIT_PATTERNS} (pattern and stop together)"),
                "merge stop patterns into one alternation (a|b|c), or wait in several calls",
            ));
        }
        let pattern = match &args.pattern {
            Some(p) if p.is_empty() => {
                return Err(bad("pattern is empty", "pass text or a regex to wait for"))
            }
            Some(p) => Some(compile(p, args.literal).map_err(|e| {
                bad(
                    e,
                    "fix the regex, or pass literal: true to match the text as is",
                )
            })?),
            None => None,
        };
        let stop = args
            .stop
            .iter()
            .map(|p| compile(p, args.literal))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| bad(e, "fix the stop pattern, or pass literal: true"))?;
        let patterns = Patterns { pattern, stop };
        let memory = patterns.memory();
        if memory > MAX_PATTERNS_MEMORY {
            return Err(bad(
                format!("the patterns compile to {memory} bytes; a wait's take at most {MAX_PATTERNS_MEMORY}"),
                "use fewer or simpler patterns (ASCII classes, no long counted repetitions)",
            ));
        }
        Ok(patterns)
    }

    /// The first stop pattern found in `text`, else the pattern.
    pub fn search(&self, text: &str) -> Option<Found> {
        let stops = self.stop.iter().map(|r| (r, WaitOutcome::Stopped));
        let pattern = self.pattern.iter().map(|r| (r, WaitOutcome::Matched));
        stops
            .chain(pattern)
            .find_map(|(regex, outcome)| found(regex, text, outcome))
    }

    /// Bytes the compiled automata take.
    pub fn memory(&self) -> usize {
        let size = |r: &Regex| r.forward().memory_usage() + r.reverse().memory_usage();
        self.pattern.iter().chain(&self.stop).map(size).sum()
    }
}

/// Compiles a pattern as a multi-line regex, or as literal text, within
/// the size caps.
pub fn compile(pattern: &str, literal: bool) -> Result<Regex, String> {
    if pattern.len() > MAX_PATTERN_BYTES {
        return Err(format!(
            "a pattern is {} bytes; one takes at most {MAX_PATTERN_BYTES}",
            pattern.len()
        ));
    }
    let source = if literal {
        regex_syntax::escape(pattern)
    } else {
        pattern.to_owned()
    };
    Regex::builder()
        .syntax(
            syntax::Config::new()
                .multi_line(true)
                .unicode(false)
                .utf8(false),
        )
        .thompson(thompson::Config::new().nfa_size_limit(Some(NFA_BYTES)))
        .dense(
            dense::Config::new()
                .dfa_size_limit(Some(DFA_BYTES))
                .determinize_size_limit(Some(DETERMINIZE_BYTES)),
        )
        .build(&source)
        .map_err(|e| {
            let mut why = e.to_string();
            let mut source = std::error::Error::source(&e);
            while let Some(inner) = source {
                why = format!("{why}: {inner}");
                source = inner.source();
            }
            let hint = if why.contains("size limit") || why.contains("exceeded") {
                " (it compiles to more than the cap: simplify it; Unicode classes with (?u) and long counted repetitions are large)"
            } else {
                ""
            };
            format!("invalid regex '{pattern}': {why}{hint}")
        })
}

fn found(regex: &Regex, text: &str, outcome: WaitOutcome) -> Option<Found> {
    let m = regex.try_search(&Input::new(text)).ok()??;
    // ASCII classes can end a match inside a character: widen to whole ones.
    let start = char_floor(text, m.start());
    let end = char_ceil(text, m.end());
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i);
    Some(Found {
        outcome,
        matched: text[start..end].to_owned(),
        line: text[line_start..line_end].to_owned(),
    })
}

fn char_floor(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn char_ceil(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    fn args(pattern: Option<&str>, stop: &[&str], literal: bool) -> WaitForArgs {
        WaitForArgs {
            pattern: pattern.map(Into::into),
            stop: stop.iter().map(|s| s.to_string()).collect(),
            literal,
            ..serde_json::from_value(serde_json::json!({"pane_id": 1})).unwrap()
        }
    }

    fn patterns(pattern: Option<&str>, stop: &[&str], literal: bool) -> Patterns {
        Patterns::of(&args(pattern, stop, literal)).unwrap()
    }

    #[test]
    fn stop_patterns_win_and_the_whole_line_is_returned() {
        let p = patterns(Some("ok"), &["error[E"], true);
        let found = p.search("ok\nerror[E0308]: mismatched").unwrap();
        assert_eq!(found.outcome, WaitOutcome::Stopped);
        assert_eq!(found.matched, "error[E");
        assert_eq!(found.line, "error[E0308]: mismatched");
        let p = patterns(Some(r"done \d"), &[], false);
        let found = p.search("x\ndone 2\n$ ").unwrap();
        assert_eq!(
            (found.outcome, found.line.as_str()),
            (WaitOutcome::Matched, "done 2")
        );
    }

    #[test]
    fn bad_patterns_say_why_and_how_to_fix_them() {
        let e = Patterns::of(&args(Some("("), &[], false)).unwrap_err();
        assert!(e.message.contains("invalid regex"), "{e}");
        assert!(e.hint.unwrap().contains("literal"));
        assert_eq!(
            Patterns::of(&args(Some(""), &[], false)).unwrap_err().code,
            ErrorCode::BadRequest
        );
        assert!(compile("(", true).is_ok());
    }

    #[test]
    fn common_patterns_compile_small_and_match_anywhere_on_a_line() {
        for (pattern, text) in [
            (r"\w+ passed", "test result: 12 passed"),
            (r"^\$ $", "out\n$ "),
            (r"(?i)ERROR|WARN", "a warn here"),
            (r"\bfoo\b", "a foo b"),
            (r"\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}", "ip 10.0.0.1 up"),
            ("é+", "café"),
            ("Compiling .* v\\d+", "   Compiling serde v1.0"),
        ] {
            let p = patterns(Some(pattern), &[], false);
            assert!(p.memory() < 32 * 1024, "{pattern}: {}", p.memory());
            assert!(p.search(text).is_some(), "{pattern} in {text}");
        }
    }

    #[test]
    fn costly_patterns_are_refused_up_front() {
        // Unicode word classes repeated: the automaton is past its cap.
        let e = Patterns::of(&args(Some(r"(?u)\w{20}0"), &[], false)).unwrap_err();
        assert!(e.message.contains("simplify"), "{e}");
        let stops: Vec<String> = (0..24).map(|i| format!(r"\w{{20}}{i}")).collect();
        let stops: Vec<&str> = stops.iter().map(String::as_str).collect();
        let e = Patterns::of(&args(None, &stops, false)).unwrap_err();
        assert!(e.message.contains("at most 16"), "{e}");
        let long = "a".repeat(MAX_PATTERN_BYTES + 1);
        assert!(Patterns::of(&args(Some(&long), &[], true)).is_err());
    }

    #[test]
    fn a_match_inside_a_character_is_widened_to_whole_characters() {
        let p = patterns(Some("caf."), &[], false);
        let found = p.search("un café noir").unwrap();
        assert_eq!(found.matched, "café");
    }
}
