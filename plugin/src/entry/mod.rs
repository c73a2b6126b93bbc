//! The plugin's exports to Zellij, in place of zellij-tile's
//! `register_plugin!`: the same calls, except that what Zellij hands over
//! is read from stdin piece by piece ([`read_line_bytes`]). Zellij writes each event and pipe
//! message as one line of JSON, an array of the protobuf's bytes as decimal
//! numbers (several times the message's size). `register_plugin!` reads
//! that line whole and decodes it before the plugin sees anything, so a
//! single 3 MB pipe message took the plugin past its 16 MiB. Here a pipe
//! message keeps at most [`MAX_PIPE_BYTES`]; a larger one is answered with
//! `bad_request` from what precedes its payload (the pipe id and name).

mod events;
pub(crate) mod pipe;
mod status;

use std::cell::RefCell;
use std::collections::BTreeMap;

use prost::Message;
use zellij_mcp_protocol::limits::MAX_REQUEST_BYTES;
use zellij_tile::prelude::*;
use zellij_tile::shim::plugin_api::action::ProtobufPluginConfiguration;
use zellij_tile::shim::plugin_api::event::ProtobufEvent;
use zellij_tile::shim::plugin_api::pipe_message::ProtobufPipeMessage;

use std::path::Path;

use crate::board::{self, BoardPlugin};
use crate::host::commands::read_line_bytes;
use crate::host::logging;
use crate::host::ZellijHost;
use crate::{permissions, McpPlugin, SHARED_DIR};

/// A pipe message's protobuf bytes kept at most: a request at its cap,
/// and room for the pipe id, name and arguments around it.
pub const MAX_PIPE_BYTES: usize = MAX_REQUEST_BYTES + 64 * 1024;

/// Registers the plugin's functions with Zellij; the plugin's binary
/// calls it once, at its top level.
#[macro_export]
macro_rules! export_to_zellij {
    () => {
        #[no_mangle]
        fn load() {
            $crate::entry::load();
        }
        #[no_mangle]
        pub fn update() -> bool {
            $crate::entry::update()
        }
        #[no_mangle]
        pub fn pipe() -> bool {
            $crate::entry::pipe()
        }
        #[no_mangle]
        pub fn render(rows: i32, cols: i32) {
            $crate::entry::render(rows, cols)
        }
        #[no_mangle]
        pub fn plugin_version() {
            $crate::entry::plugin_version()
        }
    };
}

impl ZellijPlugin for McpPlugin<ZellijHost> {
    fn load(&mut self, configuration: BTreeMap<String, String>) {
        // Grants are pre-seeded or answered by the user; never wait for the
        // PermissionRequestResult event (it does not come when pre-seeded).
        request_permission(&permissions());
        subscribe(&[
            EventType::PaneUpdate,
            EventType::TabUpdate,
            EventType::Timer,
            EventType::ListClients,
            EventType::CommandPaneExited,
            EventType::CommandPaneReRun,
            EventType::CwdChanged,
            EventType::CommandChanged,
            EventType::RunCommandResult,
        ]);
        // Not hide_self(): it does not hide a tiled pane in 0.45.1, and it
        // stops the pane and tab events this plugin lives on.
        set_selectable(false);
        logging::start(configuration.get("log_level").map(String::as_str));
        self.start(Path::new(SHARED_DIR), configuration);
    }

    fn update(&mut self, event: Event) -> bool {
        self.handle(event);
        self.follow_renders_while_waiting();
        self.status_changed()
    }

    fn pipe(&mut self, message: PipeMessage) -> bool {
        self.take_pipe(message);
        self.status_changed()
    }

    fn render(&mut self, _rows: usize, cols: usize) {
        print!("{}", status::line(&self.pane_status(), cols));
    }
}

thread_local! {
    static STATE: RefCell<McpPlugin<ZellijHost>> = RefCell::new(Default::default());
    /// Set when this instance is a board (see [`crate::board`]).
    static BOARD: RefCell<Option<BoardPlugin>> = const { RefCell::new(None) };
}

pub fn load() {
    let bytes: Vec<u8> = zellij_tile::shim::object_from_stdin().unwrap_or_default();
    let configuration = ProtobufPluginConfiguration::decode(bytes.as_slice())
        .ok()
        .and_then(|c| BTreeMap::try_from(&c).ok())
        .unwrap_or_default();
    if board::is_board(&configuration) {
        let mut board = BoardPlugin::default();
        board.load(Path::new(SHARED_DIR), &permissions());
        return BOARD.with(|b| *b.borrow_mut() = Some(board));
    }
    STATE.with(|state| state.borrow_mut().load(configuration));
}

/// Runs `f` on the board, if this instance is one.
fn on_board<T>(f: impl FnOnce(&mut BoardPlugin) -> T) -> Option<T> {
    BOARD.with(|b| b.borrow_mut().as_mut().map(f))
}

fn is_board() -> bool {
    BOARD.with(|b| b.borrow().is_some())
}

pub fn update() -> bool {
    let bytes = read_line_bytes(usize::MAX).bytes;
    let event = ProtobufEvent::decode(bytes.as_slice())
        .ok()
        .and_then(|e| Event::try_from(e).ok());
    drop(bytes);
    let Some(event) = event else {
        return false;
    };
    if is_board() {
        return on_board(|board| board.update(event)).unwrap_or(false);
    }
    STATE.with(|state| state.borrow_mut().update(event))
}

pub fn pipe() -> bool {
    let line = read_line_bytes(MAX_PIPE_BYTES);
    if is_board() {
        let message = ProtobufPipeMessage::decode(line.bytes.as_slice())
            .ok()
            .and_then(|m| PipeMessage::try_from(m).ok());
        return message.is_some_and(|m| on_board(|board| board.pipe(m)).unwrap_or(false));
    }
    STATE.with(|state| {
        let mut plugin = state.borrow_mut();
        if line.total > MAX_PIPE_BYTES {
            if let Some((pipe_id, name)) = pipe_id_and_name(&line.bytes) {
                plugin.on_oversized_pipe(&pipe_id, &name, line.total);
            }
            return false;
        }
        let message = ProtobufPipeMessage::decode(line.bytes.as_slice())
            .ok()
            .and_then(|m| PipeMessage::try_from(m).ok());
        drop(line);
        match message {
            Some(message) => plugin.pipe(message),
            None => false,
        }
    })
}

pub fn render(rows: i32, cols: i32) {
    let (rows, cols) = (rows.max(0) as usize, cols.max(0) as usize);
    if on_board(|board| board.render(rows, cols)).is_none() {
        STATE.with(|state| state.borrow_mut().render(rows, cols));
    }
}

pub fn plugin_version() {
    println!("{}", zellij_tile::prelude::VERSION);
}

/// The CLI pipe id (field 2) and name (field 4) of a pipe message, from its
/// first bytes: both come before the payload (field 5).
fn pipe_id_and_name(mut buf: &[u8]) -> Option<(String, String)> {
    use prost::encoding::{decode_key, decode_varint, WireType};
    let (mut pipe_id, mut name) = (None, None);
    while !buf.is_empty() && (pipe_id.is_none() || name.is_none()) {
        let (tag, wire_type) = decode_key(&mut buf).ok()?;
        match wire_type {
            WireType::Varint => {
                decode_varint(&mut buf).ok()?;
            }
            WireType::LengthDelimited => {
                let len = usize::try_from(decode_varint(&mut buf).ok()?).ok()?;
                let field = buf.get(..len)?;
                let text = || String::from_utf8_lossy(field).into_owned();
                match tag {
                    2 => pipe_id = Some(text()),
                    4 => name = Some(text()),
                    _ => {}
                }
                buf = &buf[len..];
            }
            _ => return None,
        }
    }
    Some((pipe_id?, name?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pipe_id_and_name_come_from_before_the_payload() {
        let message = ProtobufPipeMessage {
            source: 0,
            cli_source_id: Some("pipe-7".into()),
            plugin_source_id: None,
            name: "zellij-mcp".into(),
            payload: Some("x".repeat(5000)),
            args: vec![],
            is_private: false,
        };
        let bytes = message.encode_to_vec();
        let prefix = &bytes[..100];
        assert_eq!(
            pipe_id_and_name(prefix),
            Some(("pipe-7".into(), "zellij-mcp".into()))
        );
    }
}
