//! The patterns a wait looks for. The plugin matches them on the screen as it
//! changes; the bridge matches the same patterns in scrollback rows that
//! went by between two looks.

use regex::{Regex, RegexBuilder};

use crate::ops::{WaitForArgs, WaitOutcome};
use crate::{ErrorBody, ErrorCode};

/// Largest compiled program one pattern may take.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

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

impl Patterns {
    /// Compiles the patterns of `args`; bad ones are `bad_request` with a fix.
    pub fn of(args: &WaitForArgs) -> Result<Patterns, ErrorBody> {
        let bad = |message: String, hint: &str| {
            ErrorBody::new(ErrorCode::BadRequest, message).with_hint(hint)
        };
        let pattern = match &args.pattern {
            Some(p) if p.is_empty() => {
                return Err(bad(
                    "pattern is empty".into(),
                    "pass text or a regex to wait for",
                ))
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
        Ok(Patterns { pattern, stop })
    }

    /// The first stop pattern found in `text`, else the pattern.
    pub fn search(&self, text: &str) -> Option<Found> {
        let stops = self.stop.iter().map(|r| (r, WaitOutcome::Stopped));
        let pattern = self.pattern.iter().map(|r| (r, WaitOutcome::Matched));
        stops
            .chain(pattern)
            .find_map(|(regex, outcome)| found(regex, text, outcome))
    }
}

/// Compiles a pattern as a multi-line regex, or as literal text.
pub fn compile(pattern: &str, literal: bool) -> Result<Regex, String> {
    let source = if literal {
        regex::escape(pattern)
    } else {
        pattern.to_owned()
    };
    RegexBuilder::new(&source)
        .multi_line(true)
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map_err(|e| format!("invalid regex '{pattern}': {e}"))
}

fn found(regex: &Regex, text: &str, outcome: WaitOutcome) -> Option<Found> {
    let m = regex.find(text)?;
    let line_start = text[..m.start()].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[m.end()..]
        .find('\n')
        .map_or(text.len(), |i| m.end() + i);
    Some(Found {
        outcome,
        matched: m.as_str().to_owned(),
        line: text[line_start..line_end].to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn patterns(pattern: Option<&str>, stop: &[&str], literal: bool) -> Patterns {
        let args = WaitForArgs {
            pattern: pattern.map(Into::into),
            stop: stop.iter().map(|s| s.to_string()).collect(),
            literal,
            ..serde_json::from_value(serde_json::json!({"pane_id": 1})).unwrap()
        };
        Patterns::of(&args).unwrap()
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
        let args = |pattern: &str| -> WaitForArgs {
            serde_json::from_value(serde_json::json!({"pane_id": 1, "pattern": pattern})).unwrap()
        };
        let e = Patterns::of(&args("(")).unwrap_err();
        assert!(e.message.contains("invalid regex"), "{e}");
        assert!(e.hint.unwrap().contains("literal"));
        assert_eq!(
            Patterns::of(&args("")).unwrap_err().code,
            ErrorCode::BadRequest
        );
        assert!(compile("(", true).is_ok());
    }
}
