//! Waiting on a pane's output, idleness or exit, driven by events: the plugin
//! calls [`Wait::check`] when the pane renders, when the pane list changes and
//! when a timer fires; there is no polling loop. Plain state, tested natively.

use std::time::{Duration, Instant};

use regex::{Regex, RegexBuilder};
use zellij_mcp_protocol::ops::WaitOutcome;
use zellij_mcp_protocol::PaneRef;

use crate::cursor::{hash_lines, Cursor};

/// A command's last output can land on its pane just after Zellij reports
/// the exit; an exit ends a wait only after this much time.
pub const EXIT_SETTLE: Duration = Duration::from_millis(100);

/// What ends a wait, besides the pane exiting or closing.
#[derive(Debug, Clone)]
pub struct Conditions {
    pub pattern: Option<Regex>,
    pub stop: Vec<Regex>,
    pub idle: Option<Duration>,
    pub deadline: Instant,
}

/// Compiles a pattern as multi-line regex, or as literal text.
pub fn compile(pattern: &str, literal: bool) -> Result<Regex, String> {
    let source = if literal {
        regex::escape(pattern)
    } else {
        pattern.to_owned()
    };
    RegexBuilder::new(&source)
        .multi_line(true)
        .size_limit(1 << 20)
        .build()
        .map_err(|e| format!("invalid regex '{pattern}': {e}"))
}

/// The pane as the session view shows it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PaneState {
    Running,
    Exited(Option<i32>),
    Closed,
}

/// How a wait ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Finished {
    pub outcome: WaitOutcome,
    pub matched: Option<String>,
    pub line: Option<String>,
    pub exit_status: Option<i32>,
}

impl Finished {
    pub fn plain(outcome: WaitOutcome) -> Self {
        Finished {
            outcome,
            matched: None,
            line: None,
            exit_status: None,
        }
    }
}

/// Where "new" output starts: after this cursor, minus the part of the
/// growing line that was already there.
#[derive(Debug, Clone)]
struct Baseline {
    cursor: Cursor,
    growing_line: String,
}

/// One waiting request, for `wait_for` or `run`.
#[derive(Debug)]
pub struct Wait<P> {
    pub pipe_id: String,
    pub request_id: String,
    pub pane: PaneRef,
    pub started: Instant,
    /// The pane has been listed once (a new pane takes a moment to appear).
    pub seen: bool,
    /// What the request does once the wait is over.
    pub purpose: P,
    conditions: Conditions,
    baseline: Option<Baseline>,
    last_change: Instant,
    last_hash: Option<u64>,
    exited_at: Option<Instant>,
}

impl<P> Wait<P> {
    /// Starts a wait. With `existing` set to the pane's current lines, only
    /// output after them counts; with `None`, the text already there counts too.
    pub fn new(
        ids: (String, String),
        pane: PaneRef,
        conditions: Conditions,
        existing: Option<&[&str]>,
        purpose: P,
        now: Instant,
    ) -> Self {
        Wait {
            pipe_id: ids.0,
            request_id: ids.1,
            pane,
            started: now,
            seen: false,
            purpose,
            conditions,
            baseline: existing.map(|lines| Baseline {
                cursor: Cursor::after(lines),
                growing_line: lines.last().map(|l| l.to_string()).unwrap_or_default(),
            }),
            last_change: now,
            last_hash: existing.map(hash_lines),
            exited_at: None,
        }
    }

    pub fn deadline(&self) -> Instant {
        self.conditions.deadline
    }

    /// When the idle condition would hold if nothing changes.
    pub fn idle_due(&self) -> Option<Instant> {
        self.conditions.idle.map(|idle| self.last_change + idle)
    }

    /// When a seen exit ends the wait.
    pub fn exit_due(&self) -> Option<Instant> {
        self.exited_at.map(|at| at + EXIT_SETTLE)
    }

    /// Looks at the pane now (its lines, without screen padding); `Some` when
    /// the wait is over. Stop patterns win over the pattern, output over exit.
    pub fn check(&mut self, lines: &[&str], state: PaneState, now: Instant) -> Option<Finished> {
        let hash = hash_lines(lines);
        if self.last_hash != Some(hash) {
            self.last_hash = Some(hash);
            self.last_change = now;
        }
        let fresh = self.fresh_text(lines);
        for stop in &self.conditions.stop {
            if let Some(found) = found(stop, &fresh, WaitOutcome::Stopped) {
                return Some(found);
            }
        }
        if let Some(pattern) = &self.conditions.pattern {
            if let Some(found) = found(pattern, &fresh, WaitOutcome::Matched) {
                return Some(found);
            }
        }
        match state {
            PaneState::Exited(status) => {
                let exited_at = *self.exited_at.get_or_insert(now);
                if now >= exited_at + EXIT_SETTLE {
                    return Some(Finished {
                        exit_status: status,
                        ..Finished::plain(WaitOutcome::Exited)
                    });
                }
            }
            PaneState::Closed => return Some(Finished::plain(WaitOutcome::PaneClosed)),
            PaneState::Running => {}
        }
        if self.idle_due().is_some_and(|due| now >= due) {
            return Some(Finished::plain(WaitOutcome::Idle));
        }
        (now >= self.conditions.deadline).then(|| Finished::plain(WaitOutcome::Timeout))
    }

    /// The text that counts as new for this wait.
    fn fresh_text(&self, lines: &[&str]) -> String {
        let Some(baseline) = &self.baseline else {
            return lines.join("\n");
        };
        let Some(start) = baseline.cursor.find(lines) else {
            // The screen was cleared: everything on it is new.
            return lines.join("\n");
        };
        let mut fresh: Vec<&str> = lines[start..].to_vec();
        if let Some(first) = fresh.first_mut() {
            if let Some(rest) = first.strip_prefix(baseline.growing_line.as_str()) {
                *first = rest;
            }
        }
        fresh.join("\n")
    }
}

fn found(regex: &Regex, text: &str, outcome: WaitOutcome) -> Option<Finished> {
    let m = regex.find(text)?;
    let line_start = text[..m.start()].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[m.end()..]
        .find('\n')
        .map_or(text.len(), |i| m.end() + i);
    Some(Finished {
        outcome,
        matched: Some(m.as_str().to_owned()),
        line: Some(text[line_start..line_end].to_owned()),
        exit_status: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wait(
        pattern: Option<&str>,
        stop: &[&str],
        idle_ms: Option<u64>,
        existing: Option<&[&str]>,
        t0: Instant,
    ) -> Wait<()> {
        let conditions = Conditions {
            pattern: pattern.map(|p| compile(p, false).unwrap()),
            stop: stop.iter().map(|p| compile(p, true).unwrap()).collect(),
            idle: idle_ms.map(Duration::from_millis),
            deadline: t0 + Duration::from_secs(5),
        };
        Wait::new(
            ("pipe".into(), "req".into()),
            PaneRef::terminal(1),
            conditions,
            existing,
            (),
            t0,
        )
    }

    #[test]
    fn matches_only_output_that_appears_after_the_start() {
        let t0 = Instant::now();
        let before = ["done 1", "$ "];
        let mut w = wait(Some(r"done \d"), &[], None, Some(&before), t0);
        assert_eq!(w.check(&before, PaneState::Running, t0), None);
        let after = ["done 1", "$ echo hi", "hi", "done 2", "$ "];
        let found = w.check(&after, PaneState::Running, t0).unwrap();
        assert_eq!(found.outcome, WaitOutcome::Matched);
        assert_eq!(found.matched.as_deref(), Some("done 2"));
        assert_eq!(found.line.as_deref(), Some("done 2"));
    }

    #[test]
    fn the_growing_line_counts_only_for_what_was_added() {
        let t0 = Instant::now();
        let mut w = wait(Some(r"^\$ "), &[], None, Some(&["$ "]), t0);
        assert_eq!(w.check(&["$ typing"], PaneState::Running, t0), None);
        let mut w = wait(Some("typing"), &[], None, Some(&["$ "]), t0);
        let found = w.check(&["$ typing"], PaneState::Running, t0).unwrap();
        assert_eq!(found.line.as_deref(), Some("typing"));
    }

    #[test]
    fn include_existing_matches_what_is_already_there() {
        let t0 = Instant::now();
        let mut w = wait(Some("ready"), &[], None, None, t0);
        let found = w.check(&["server ready"], PaneState::Running, t0).unwrap();
        assert_eq!(found.line.as_deref(), Some("server ready"));
    }

    #[test]
    fn stop_patterns_win_and_are_literal_when_asked() {
        let t0 = Instant::now();
        let mut w = wait(Some("ok"), &["error[E"], None, Some(&[]), t0);
        let found = w
            .check(&["ok", "error[E0308]"], PaneState::Running, t0)
            .unwrap();
        assert_eq!(found.outcome, WaitOutcome::Stopped);
        assert_eq!(found.matched.as_deref(), Some("error[E"));
    }

    #[test]
    fn idle_counts_from_the_last_change() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let mut w = wait(None, &[], Some(300), Some(&["a"]), t0);
        assert_eq!(w.check(&["a", "b"], PaneState::Running, t0 + ms(200)), None);
        assert_eq!(w.check(&["a", "b"], PaneState::Running, t0 + ms(400)), None);
        let done = w.check(&["a", "b"], PaneState::Running, t0 + ms(500));
        assert_eq!(done.unwrap().outcome, WaitOutcome::Idle);
    }

    #[test]
    fn exit_close_and_timeout_end_the_wait() {
        let t0 = Instant::now();
        let mut w = wait(Some("never"), &[], None, Some(&[]), t0);
        assert_eq!(w.check(&["x"], PaneState::Exited(Some(3)), t0), None);
        let settled = t0 + EXIT_SETTLE;
        let exited = w
            .check(&["x"], PaneState::Exited(Some(3)), settled)
            .unwrap();
        assert_eq!(
            (exited.outcome, exited.exit_status),
            (WaitOutcome::Exited, Some(3))
        );
        let closed = w.check(&[], PaneState::Closed, t0).unwrap();
        assert_eq!(closed.outcome, WaitOutcome::PaneClosed);
        let late = t0 + Duration::from_secs(6);
        assert_eq!(
            w.check(&["x"], PaneState::Running, late).unwrap().outcome,
            WaitOutcome::Timeout
        );
    }

    #[test]
    fn bad_regexes_say_why() {
        assert!(compile("(", false).unwrap_err().contains("invalid regex"));
        assert!(compile("(", true).is_ok());
    }
}
