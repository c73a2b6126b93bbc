//! Reads and waits of a pane whose program runs under zellij-mcp's relay,
//! answered by the relay (docs/relay.md): its live screen and every line
//! the program wrote, whether or not a person has the pane scrolled up.
//! A pane whose relay cannot be reached is read and waited on through the
//! plugin, as any other.

use std::time::{Duration, Instant};

use rmcp::Json;
use zellij_mcp_protocol::fresh::Baseline;
use zellij_mcp_protocol::matching::Patterns;
use zellij_mcp_protocol::ops::{
    PaneState, ReadArgs, ReadResult, WaitForArgs, WaitForResult, WaitOutcome, DEFAULT_LAST_LINES,
    DEFAULT_WAIT_MS, MAX_WAIT_MS,
};
use zellij_mcp_protocol::shell_line::ShellLine;
use zellij_mcp_protocol::text::shape_read;
use zellij_mcp_protocol::{Error, ErrorBody, ErrorCode, PaneKind, PaneRef};

use super::{bad_request, FromSession, ToolFailure, ZellijMcp};
use crate::processes::pane_state::pane_state;
use crate::relay::wire::{self, Ask, Lines, MOST_BYTES, MOST_WAIT};
use crate::relay::{recording, KEPT_BYTES};

/// Lines above the screen each look of a wait takes too: what it saw last
/// ends there once the screen scrolled.
const ANCHOR_LINES: u64 = 4;

/// Whether `pane` runs under a relay that may answer.
fn relayed(session: &str, pane: PaneRef) -> bool {
    pane.kind == PaneKind::Terminal
        && wire::socket(session, pane.id, false).is_some_and(|s| s.exists())
}

/// The file a new pane is recorded to, for `record`: a new one in the
/// recordings folder. Only a command runs under the relay that records.
pub(super) fn recording_place(
    session: &str,
    record: bool,
    command: bool,
    relay: Option<bool>,
) -> Result<Option<String>, ToolFailure> {
    if !record {
        return Ok(None);
    }
    if !command || relay == Some(false) {
        return Err(bad_request(
            "record needs a command run under the relay",
            "pass command (a shell too, e.g. [\"bash\"]) and leave relay out",
        ));
    }
    let place = recording::new_place(session, "new").ok_or_else(|| {
        ToolFailure(ErrorBody::from(Error::Internal {
            problem: "there is no recordings folder (neither XDG_STATE_HOME nor HOME is set, or it cannot be made)".into(),
            fix: Some("set XDG_STATE_HOME for the server, or start without record".into()),
        }))
    })?;
    Ok(Some(place.display().to_string()))
}

/// How a wait on a relay went.
pub(super) enum RelayedWait {
    Over(FromSession<WaitForResult>),
    /// The pane runs no relay, or its relay went (its program ended, or
    /// the pane closed) after this long: the wait is the plugin's.
    NotRelayed(Duration),
}

impl ZellijMcp {
    /// A read of a pane whose program runs under a relay, from the relay:
    /// live while a person has the pane scrolled up, and past Zellij's
    /// scrollback. `None` for a pane with no relay.
    pub(super) async fn read_relayed(
        &self,
        session: &str,
        args: &ReadArgs,
    ) -> Result<Option<Json<FromSession<ReadResult>>>, ToolFailure> {
        let pane = args.pane_id;
        if !relayed(session, pane) {
            return Ok(None);
        }
        let (max_bytes, since) = args.checked()?;
        let (asked_in, whole) = (session.to_owned(), args.needs_scrollback());
        // A read after a cursor looks for the cursor's lines, which may be
        // older than the text it answers.
        let most = match since {
            Some(_) => MOST_BYTES,
            None => max_bytes,
        };
        let read = tokio::task::spawn_blocking(move || wire::read(&asked_in, pane.id, whole, most));
        let (read, located) = tokio::join!(read, self.locate(session, pane, true));
        let Some(read) = read.ok().flatten() else {
            return Ok(None);
        };
        let (session, located) = located?;
        let rows: Vec<&str> = read.rows.iter().map(String::as_str).collect();
        let shaped = shape_read(&rows, since.as_ref(), args.tail_lines, max_bytes);
        let mut result = ReadResult::new(pane, located.tab_id, shaped);
        // Lines the relay let go, or left out for max_bytes, are dropped
        // lines too.
        result.truncated |= read.earlier_left_out && since.is_none();
        result.pid = located.pid;
        // A shell's line as the text answered shows it (Zellij's screen,
        // which the plugin looked at, may be behind it).
        let line_draft = matches!(read.line, ShellLine::Draft(_));
        result.state = PaneState::of(located.state, line_draft, pane_state(located.pid));
        Ok(Some(Json(FromSession { session, result })))
    }

    /// `wait_for` a pattern, a stop pattern or `idle_ms` on a relayed
    /// pane, from its relay: each look waits there for the program's next
    /// bytes, and searches the lines they made, so a wait is live while a
    /// person has the pane scrolled up, and sees every line. An exit or a
    /// state is waited for through the plugin.
    pub(super) async fn wait_relayed(
        &self,
        session: &str,
        args: &WaitForArgs,
    ) -> Result<RelayedWait, ErrorBody> {
        let pane = args.pane_id;
        let for_output = args.pattern.is_some() || !args.stop.is_empty() || args.idle_ms.is_some();
        if !for_output || args.exit || args.until_state.is_some() || !relayed(session, pane) {
            return Ok(RelayedWait::NotRelayed(Duration::ZERO));
        }
        let patterns = Patterns::of(args)?;
        let timeout =
            Duration::from_millis(args.timeout_ms.unwrap_or(DEFAULT_WAIT_MS).min(MAX_WAIT_MS));
        let idle = args.idle_ms.map(Duration::from_millis);
        let started = Instant::now();
        let (session, located) = self.locate(session, pane, false).await?;
        let look = |from: u64, after: u64, within: Duration| {
            let ask = Ask::Next {
                from,
                max_bytes: MOST_BYTES,
                after,
                within_ms: within.as_millis() as u64,
            };
            lines_of(&session, pane, ask)
        };
        // What the screen shows as the wait begins (at once: it waits for
        // bytes past none).
        let Some(mut seen) = look(u64::MAX, u64::MAX, Duration::ZERO).await else {
            return Ok(RelayedWait::NotRelayed(started.elapsed()));
        };
        let mut found = args
            .include_existing
            .then(|| patterns.search(&seen.lines.join("\n")))
            .flatten();
        let mut quiet_since = Instant::now();
        let searches = args.pattern.is_some() || !args.stop.is_empty();
        let outcome = loop {
            if let Some(found) = &found {
                break found.outcome;
            }
            let waited = started.elapsed();
            let quiet = quiet_since.elapsed();
            if idle.is_some_and(|idle| quiet >= idle) {
                break WaitOutcome::Idle;
            }
            if waited >= timeout {
                break WaitOutcome::Timeout;
            }
            let left = idle.map_or(timeout - waited, |idle| {
                (idle - quiet).min(timeout - waited)
            });
            let from = seen.lines_above.saturating_sub(ANCHOR_LINES);
            let next = look(from, seen.written, left.min(MOST_WAIT));
            let Some(next) = next.await else {
                // The relay went: with its pane, or its program's end.
                match self.locate(&session, pane, false).await {
                    Err(e) if e.code == ErrorCode::PaneNotFound => break WaitOutcome::PaneClosed,
                    _ => return Ok(RelayedWait::NotRelayed(started.elapsed())),
                }
            };
            if next.written == seen.written {
                continue;
            }
            quiet_since = Instant::now();
            let (before, after) = (rows(&seen), rows(&next));
            let fresh = Baseline::after(&before).fresh(&after);
            // A screen drawn anew (the anchor gone) is searched whole.
            found = patterns.search(&fresh.map_or_else(|| after.join("\n"), |f| f.text()));
            // Lines its relay let go before this look could search them.
            let unsearched = next.first.saturating_sub(from);
            if found.is_none() && searches && unsearched > 0 {
                return Err(went_by_unsearched(pane, unsearched));
            }
            seen = next;
        };
        let (matched, line) = found.map(|f| (f.matched, f.line)).unzip();
        let last_lines = args.last_lines.unwrap_or(DEFAULT_LAST_LINES);
        let tail = last_lines_of(&session, pane, seen, last_lines).await;
        let result = WaitForResult {
            pane_id: pane,
            tab_id: located.tab_id,
            outcome,
            matched,
            line,
            exit_status: None,
            elapsed_ms: started.elapsed().as_millis() as u64,
            last_lines: tail.join("\n"),
        };
        Ok(RelayedWait::Over(FromSession { session, result }))
    }
}

/// A wait that found nothing, while lines went by that it never searched:
/// whether they held what it waits for is unknown.
fn went_by_unsearched(pane: PaneRef, lines: u64) -> ErrorBody {
    let mut error = ErrorBody::from(Error::ResultUnknown {
        problem: format!(
            "{lines} lines {pane}'s program wrote went by faster than the wait could search them (its relay keeps its last {} MiB), so whether they held the pattern is unknown",
            KEPT_BYTES >> 20
        ),
    });
    error.hint =
        Some("read the pane (zellij_read) to see where its program is, then wait again".into());
    error
}

/// What the relay of `pane` answers `ask` with; `None` when it is gone.
async fn lines_of(session: &str, pane: PaneRef, ask: Ask) -> Option<Lines> {
    let asked_in = session.to_owned();
    let asked = move || wire::ask::<Lines>(&asked_in, pane.id, &ask);
    tokio::task::spawn_blocking(asked).await.ok().flatten()
}

fn rows(lines: &Lines) -> Vec<&str> {
    lines.lines.iter().map(String::as_str).collect()
}

/// The last `count` lines as the wait last saw them (`seen`), with the
/// lines above the ones it looked at where it needs them (a line gone off
/// the screen never changes).
async fn last_lines_of(session: &str, pane: PaneRef, seen: Lines, count: usize) -> Vec<String> {
    let wanted = count.saturating_sub(seen.lines.len()) as u64;
    let from = seen.first.saturating_sub(wanted);
    let mut lines = seen.lines;
    if from < seen.first {
        let ask = Ask::Lines {
            from,
            max_bytes: MOST_BYTES,
        };
        let earlier = lines_of(session, pane, ask).await;
        if let Some(earlier) = earlier.filter(|e| e.first == from) {
            let above = earlier.lines.into_iter().take((seen.first - from) as usize);
            lines = above.chain(lines).collect();
        }
    }
    lines.split_off(lines.len().saturating_sub(count))
}
