//! Reading, writing and signalling panes.

use std::time::{Duration, Instant};

use zellij_mcp_protocol::keys::key_bytes;
use zellij_mcp_protocol::ops::{
    PaneResult, ReadArgs, ReadResult, SignalArgs, WriteArgs, WriteResult, DEFAULT_READ_MAX_BYTES,
    MAX_READ_MAX_BYTES, MAX_SUBMIT_DELAY_MS, MAX_WRITE_BYTES,
};
use zellij_mcp_protocol::text::tail_capped;
use zellij_mcp_protocol::{ErrorBody, ErrorCode, PaneRef};
use zellij_tile::prelude::PaneContents;

use super::{bad_request, now};
use crate::cursor::Cursor;
use crate::host::Host;
use crate::pipe::{Handled, HandlerResult};
use crate::writes::PendingWrite;
use crate::McpPlugin;

const PASTE_START: &[u8] = b"\x1b[200~";
const PASTE_END: &[u8] = b"\x1b[201~";

impl<H: Host> McpPlugin<H> {
    pub fn read(&mut self, args: ReadArgs) -> HandlerResult {
        let max_bytes = check_max_bytes(args.max_bytes)?;
        let since = match &args.since {
            Some(token) => Some(Cursor::decode(token).ok_or_else(|| {
                bad_request(
                    format!("'{token}' is not a read cursor"),
                    "pass the `cursor` of an earlier zellij_read, or omit `since`",
                )
            })?),
            None => None,
        };
        self.require_pane(args.pane_id)?;
        let tab_id = self.view.tab_id_of(args.pane_id);
        let all = self.screen_lines(args.pane_id, args.full || since.is_some())?;
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        let cursor = Cursor::after(&all).encode();
        let (start, cursor_reset) = match since.map(|c| c.find(&all)) {
            None => (0, false),
            Some(Some(start)) => (start, false),
            Some(None) => (0, true),
        };
        let mut lines = &all[start..];
        let mut truncated = false;
        if let Some(n) = args.tail_lines.filter(|n| *n < lines.len()) {
            lines = &lines[lines.len() - n..];
            truncated = true;
        }
        let (text, cut) = tail_capped(lines.iter().copied(), max_bytes);
        now(ReadResult {
            session: String::new(),
            pane_id: args.pane_id,
            tab_id,
            lines: if text.is_empty() {
                0
            } else {
                text.lines().count()
            },
            text,
            truncated: truncated || cut,
            cursor,
            cursor_reset,
        })
    }

    /// The pane's text as lines, without trailing padding.
    pub fn screen_lines(&self, pane: PaneRef, full: bool) -> Result<Vec<String>, ErrorBody> {
        let contents = self.host.scrollback(pane, full).map_err(|e| {
            ErrorBody::new(ErrorCode::Internal, format!("reading {pane} failed: {e}"))
                .with_hint("check the pane still exists with zellij_list_panes")
        })?;
        Ok(lines_of(contents))
    }

    pub fn write(&mut self, args: WriteArgs, request_id: &str, pipe_id: &str) -> HandlerResult {
        let bytes = write_bytes(&args)?;
        let submit_delay = match (args.submit, args.submit_delay_ms) {
            (false, _) => None,
            (true, Some(ms)) if ms > MAX_SUBMIT_DELAY_MS => {
                return Err(bad_request(
                    format!("submit_delay_ms {ms} is over the {MAX_SUBMIT_DELAY_MS} ms cap"),
                    "pass a smaller submit_delay_ms, or omit it for the default",
                ))
            }
            (true, ms) => Some(Duration::from_millis(ms.unwrap_or(self.submit_delay_ms))),
        };
        if bytes.is_empty() && submit_delay.is_none() {
            return Err(bad_request(
                "nothing to write",
                "pass text, keys, or submit: true",
            ));
        }
        let pane = self.require_terminal(args.pane_id)?;
        if pane.exited && !args.allow_exited {
            return Err(ErrorBody::new(
                ErrorCode::BadRequest,
                format!(
                    "{} has exited{}; input there would re-run its command",
                    args.pane_id,
                    if pane.is_held {
                        " and is held open"
                    } else {
                        ""
                    }
                ),
            )
            .with_hint("pass allow_exited: true to type into it anyway, or pick a live pane"));
        }
        let tab_id = self.view.tab_id_of(args.pane_id);
        self.host.block(pipe_id);
        let write = PendingWrite {
            pipe_id: pipe_id.to_owned(),
            request_id: request_id.to_owned(),
            pane: args.pane_id,
            tab_id,
            bytes,
            submit_delay,
        };
        let steps = self.writes.push(write, Instant::now());
        self.run_steps(steps);
        Ok(Handled::Later)
    }

    pub fn signal(&mut self, args: SignalArgs) -> HandlerResult {
        if self.require_terminal(args.pane_id)?.exited {
            return Err(bad_request(
                format!("{} has already exited", args.pane_id),
                "nothing to signal; close the pane with zellij_close if it is no longer needed",
            ));
        }
        self.host.signal(args.pane_id, args.signal);
        now(PaneResult {
            session: String::new(),
            pane_id: args.pane_id,
            tab_id: self.view.tab_id_of(args.pane_id),
        })
    }
}

pub fn check_max_bytes(max_bytes: Option<usize>) -> Result<usize, ErrorBody> {
    let max_bytes = max_bytes.unwrap_or(DEFAULT_READ_MAX_BYTES);
    if max_bytes == 0 || max_bytes > MAX_READ_MAX_BYTES {
        return Err(bad_request(
            format!("max_bytes {max_bytes} is out of range"),
            format!("pass max_bytes between 1 and {MAX_READ_MAX_BYTES}"),
        ));
    }
    Ok(max_bytes)
}

/// Scrollback, screen and lines below, right-trimmed, without trailing blank lines.
pub fn lines_of(contents: PaneContents) -> Vec<String> {
    let mut lines: Vec<String> = contents
        .lines_above_viewport
        .into_iter()
        .chain(contents.viewport)
        .chain(contents.lines_below_viewport)
        .map(|mut l| {
            l.truncate(l.trim_end().len());
            l
        })
        .collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

/// The text (maybe as a bracketed paste), then the keys, as bytes.
fn write_bytes(args: &WriteArgs) -> Result<Vec<u8>, ErrorBody> {
    let text = args.text.as_deref().unwrap_or_default();
    if text.len() > MAX_WRITE_BYTES {
        return Err(bad_request(
            format!(
                "text is {} bytes; one write takes at most {MAX_WRITE_BYTES}",
                text.len()
            ),
            "split the text over several writes",
        ));
    }
    let mut bytes = Vec::with_capacity(text.len() + 16);
    if args.paste && !text.is_empty() {
        bytes.extend(PASTE_START);
        bytes.extend(text.as_bytes());
        bytes.extend(PASTE_END);
    } else {
        bytes.extend(text.as_bytes());
    }
    for key in &args.keys {
        let key = key_bytes(key).map_err(|e| bad_request(e, "fix the name in keys"))?;
        bytes.extend(key);
    }
    Ok(bytes)
}

/// What a finished write answers with.
pub fn write_result(write: &PendingWrite) -> WriteResult {
    WriteResult {
        session: String::new(),
        pane_id: write.pane,
        tab_id: write.tab_id,
        bytes_written: write.bytes_written(),
        submitted: write.submit_delay.is_some(),
    }
}
