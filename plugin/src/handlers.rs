//! One handler per op. Each validates its arguments against the session view
//! before touching a pane, so bad input changes nothing.

use std::time::{Duration, Instant};

use zellij_mcp_protocol::keys::key_bytes;
use zellij_mcp_protocol::ops::{
    HelloResult, ListPanesResult, ReadArgs, ReadResult, WriteArgs, WriteResult,
    DEFAULT_READ_MAX_BYTES, MAX_READ_MAX_BYTES, MAX_SUBMIT_DELAY_MS, MAX_WRITE_BYTES,
};
use zellij_mcp_protocol::text::tail_capped;
use zellij_mcp_protocol::{ErrorBody, ErrorCode, PaneKind, PaneRef, PROTOCOL_VERSION};

use crate::host::Host;
use crate::pipe::{Handled, HandlerResult};
use crate::writes::PendingWrite;
use crate::McpPlugin;

fn to_value<T: serde::Serialize>(value: T) -> HandlerResult {
    serde_json::to_value(value)
        .map(Handled::Now)
        .map_err(|e| ErrorBody::new(ErrorCode::Internal, e.to_string()))
}

impl<H: Host> McpPlugin<H> {
    pub fn hello(&mut self) -> HandlerResult {
        let ids = self.host.ids();
        let own_pane = self.view.find(PaneRef::plugin(ids.plugin_id));
        to_value(HelloResult {
            plugin_version: env!("CARGO_PKG_VERSION").to_owned(),
            protocol: PROTOCOL_VERSION,
            plugin_id: ids.plugin_id,
            client_id: ids.client_id,
            zellij_pid: ids.zellij_pid,
            plugin_url: own_pane.and_then(|(_, p)| p.plugin_url.clone()),
            configuration: self.configuration.clone(),
            ready: self.view.is_ready(),
        })
    }

    pub fn list_panes(&mut self) -> HandlerResult {
        self.require_ready()?;
        to_value(ListPanesResult {
            session: String::new(),
            panes: self.view.entries(),
        })
    }

    pub fn read(&mut self, args: ReadArgs) -> HandlerResult {
        let max_bytes = args.max_bytes.unwrap_or(DEFAULT_READ_MAX_BYTES);
        if max_bytes == 0 || max_bytes > MAX_READ_MAX_BYTES {
            return Err(ErrorBody::new(
                ErrorCode::BadRequest,
                format!("max_bytes {max_bytes} is out of range"),
            )
            .with_hint(format!("pass max_bytes between 1 and {MAX_READ_MAX_BYTES}")));
        }
        let tab_id = self.require_pane(args.pane_id)?;
        let contents = self.host.scrollback(args.pane_id, args.full).map_err(|e| {
            ErrorBody::new(ErrorCode::Internal, format!("reading the pane failed: {e}"))
        })?;
        let lines = contents
            .lines_above_viewport
            .iter()
            .chain(&contents.viewport)
            .chain(&contents.lines_below_viewport)
            .map(String::as_str);
        let (text, truncated) = tail_capped(lines, max_bytes);
        to_value(ReadResult {
            session: String::new(),
            pane_id: args.pane_id,
            tab_id,
            lines: if text.is_empty() {
                0
            } else {
                text.lines().count()
            },
            text,
            truncated,
        })
    }

    pub fn write(&mut self, args: WriteArgs, request_id: &str, pipe_id: &str) -> HandlerResult {
        let bytes = write_bytes(&args)?;
        let submit_delay = match (args.submit, args.submit_delay_ms) {
            (false, _) => None,
            (true, Some(ms)) if ms > MAX_SUBMIT_DELAY_MS => {
                return Err(ErrorBody::new(
                    ErrorCode::BadRequest,
                    format!("submit_delay_ms {ms} is over the {MAX_SUBMIT_DELAY_MS} ms cap"),
                )
                .with_hint("pass a smaller submit_delay_ms, or omit it for the default"))
            }
            (true, ms) => Some(Duration::from_millis(ms.unwrap_or(self.submit_delay_ms))),
        };
        if bytes.is_empty() && submit_delay.is_none() {
            return Err(ErrorBody::new(ErrorCode::BadRequest, "nothing to write")
                .with_hint("pass text, keys, or submit: true"));
        }
        if args.pane_id.kind != PaneKind::Terminal {
            return Err(ErrorBody::new(
                ErrorCode::WrongPaneKind,
                format!(
                    "{} is a plugin pane; only terminal panes take input",
                    args.pane_id
                ),
            )
            .with_hint("pass a terminal_N pane id from zellij_list_panes"));
        }
        let tab_id = self.require_pane(args.pane_id)?;
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

    fn require_ready(&self) -> Result<(), ErrorBody> {
        if self.view.is_ready() {
            Ok(())
        } else {
            Err(ErrorBody::new(
                ErrorCode::NotReady,
                "the plugin has not received the session's pane list yet",
            )
            .with_hint("retry in a moment"))
        }
    }

    /// The pane's tab id, or `pane_not_found`.
    fn require_pane(&self, pane: PaneRef) -> Result<Option<usize>, ErrorBody> {
        self.require_ready()?;
        if self.view.find(pane).is_none() {
            return Err(ErrorBody::new(
                ErrorCode::PaneNotFound,
                format!("there is no pane {pane} in this session"),
            )
            .with_hint("call zellij_list_panes for the current pane ids"));
        }
        Ok(self.view.tab_id_of(pane))
    }
}

/// The text then the keys, as bytes.
fn write_bytes(args: &WriteArgs) -> Result<Vec<u8>, ErrorBody> {
    let text = args.text.as_deref().unwrap_or_default();
    if text.len() > MAX_WRITE_BYTES {
        return Err(ErrorBody::new(
            ErrorCode::BadRequest,
            format!(
                "text is {} bytes; one write takes at most {MAX_WRITE_BYTES}",
                text.len()
            ),
        )
        .with_hint("split the text over several writes"));
    }
    let mut bytes = text.as_bytes().to_vec();
    for key in &args.keys {
        let key = key_bytes(key).map_err(|e| {
            ErrorBody::new(ErrorCode::BadRequest, e).with_hint("fix the name in keys")
        })?;
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
