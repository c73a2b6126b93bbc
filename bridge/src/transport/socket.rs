//! Direct socket transport: the bridge acts as a `zellij pipe` CLI client on
//! the session's socket, `<socket dir>/contract_version_1/<session>`.
//!
//! Frames are a 4-byte little-endian length and a protobuf message. Each
//! request is sent with its own pipe id (the request id), so many requests
//! share one connection; a reader task routes `CliPipeOutput` and
//! `UnblockCliPipeInput` to the waiting call by pipe id.
//!
//! A scrollback read is a short connection of its own, as `zellij subscribe`
//! makes: it subscribes to the pane's renders, takes the first update (which
//! carries the scrollback), and leaves.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use interprocess::local_socket::tokio::{prelude::*, Stream};
use interprocess::local_socket::{GenericFilePath, ToFsName};
use prost::Message;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;
use zellij_mcp_protocol::Request;

use zellij_mcp_protocol::PaneRef;

use super::wire::{self, server_to_client::Message as ServerMsg, ServerToClientMsg};
use super::{within, CallError, Carrier, Destination, ReplyReader};

/// Larger frames from the server are treated as a broken stream.
const MAX_SERVER_FRAME: usize = 64 * 1024 * 1024;

enum PipeEvent {
    Output(String),
    Unblocked,
    Closed(String),
}

type Waiters = Arc<Mutex<HashMap<String, mpsc::UnboundedSender<PipeEvent>>>>;

struct Connection {
    stream: Arc<Stream>,
    /// Serializes whole frames onto the stream.
    write_lock: tokio::sync::Mutex<()>,
    waiters: Waiters,
    reader: tokio::task::JoinHandle<()>,
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

pub struct SocketTransport {
    path: PathBuf,
    connection: tokio::sync::Mutex<Option<Arc<Connection>>>,
}

impl SocketTransport {
    pub fn new(path: PathBuf) -> Self {
        SocketTransport {
            path,
            connection: tokio::sync::Mutex::new(None),
        }
    }

    async fn connection(&self) -> Result<Arc<Connection>, CallError> {
        let mut slot = self.connection.lock().await;
        if let Some(conn) = slot.as_ref() {
            if !conn.reader.is_finished() {
                return Ok(conn.clone());
            }
        }
        let stream = Arc::new(self.connect().await?);
        let waiters: Waiters = Arc::default();
        let reader = tokio::spawn(read_frames(stream.clone(), waiters.clone()));
        let conn = Arc::new(Connection {
            stream,
            write_lock: tokio::sync::Mutex::new(()),
            waiters,
            reader,
        });
        *slot = Some(conn.clone());
        Ok(conn)
    }

    async fn connect(&self) -> Result<Stream, CallError> {
        let name = self
            .path
            .clone()
            .to_fs_name::<GenericFilePath>()
            .map_err(|e| CallError::Transport(format!("bad socket path: {e}")))?;
        Stream::connect(name).await.map_err(|e| {
            CallError::Transport(format!("cannot connect to {}: {e}", self.path.display()))
        })
    }
}

impl Carrier for SocketTransport {
    const KIND: &'static str = "socket";

    async fn send(
        &self,
        request: &Request,
        target: &Destination,
        timeout: Duration,
    ) -> Result<zellij_mcp_protocol::Reply, CallError> {
        let conn = self.connection().await?;
        let pipe_id = request.id.clone();
        let (tx, mut rx) = mpsc::unbounded_channel();
        conn.waiters.lock().unwrap().insert(pipe_id.clone(), tx);
        let _unregister = Unregister(&conn.waiters, &pipe_id);

        let payload =
            serde_json::to_string(request).map_err(|e| CallError::Transport(e.to_string()))?;
        let plugin = match target {
            Destination::Broadcast => None,
            Destination::Plugin { url, configuration } => Some((
                url.clone(),
                configuration
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            )),
        };
        {
            let _writing = conn.write_lock.lock().await;
            write_frame(&conn.stream, &wire::pipe_message(&pipe_id, payload, plugin)).await?;
        }

        let mut reader = ReplyReader::new(&request.id);
        let wait = async {
            while let Some(event) = rx.recv().await {
                match event {
                    PipeEvent::Output(text) => {
                        if let Some(reply) = reader.push(&text) {
                            return Ok(reply);
                        }
                    }
                    PipeEvent::Unblocked => return Err(CallError::NoReply),
                    PipeEvent::Closed(why) => return Err(CallError::Transport(why)),
                }
            }
            Err(CallError::Transport("connection closed".into()))
        };
        within(timeout, wait).await
    }

    /// The pane's rows (scrollback, then screen) on a connection of their own.
    async fn read_rows(
        &self,
        pane: PaneRef,
        tail: Option<usize>,
    ) -> Result<Vec<String>, CallError> {
        let stream = self.connect().await?;
        write_frame(&stream, &wire::subscribe(pane, tail)).await?;
        loop {
            match read_frame(&stream).await?.message {
                // Dropping the connection ends the subscription. No
                // `ClientExited`: Zellij 0.45.1 removes such a client
                // twice, and the second removal can hit a newer client
                // that was given the same (reused) id.
                Some(ServerMsg::PaneRenderUpdate(update)) if update.is_initial => {
                    let mut rows = update.scrollback;
                    rows.extend(update.viewport);
                    return Ok(rows);
                }
                Some(ServerMsg::LogError(log)) => {
                    return Err(CallError::Refused(log.lines.join("; ")))
                }
                Some(ServerMsg::SubscribedPaneClosed(_)) => {
                    return Err(CallError::Refused(format!("{pane} closed")))
                }
                Some(ServerMsg::Exit(exit)) => {
                    return Err(CallError::Transport(format!(
                        "Zellij ended the connection (reason {})",
                        exit.exit_reason
                    )))
                }
                _ => {}
            }
        }
    }

    /// A subscription on a connection of its own, for as long as it lasts.
    async fn watch_changes(
        &self,
        pane: PaneRef,
        changed: mpsc::Sender<()>,
    ) -> Result<(), CallError> {
        let stream = self.connect().await?;
        write_frame(&stream, &wire::subscribe(pane, Some(1))).await?;
        loop {
            match read_frame(&stream).await?.message {
                Some(ServerMsg::PaneRenderUpdate(_)) => {
                    let _ = changed.try_send(());
                }
                Some(ServerMsg::LogError(log)) => {
                    return Err(CallError::Refused(log.lines.join("; ")))
                }
                Some(ServerMsg::SubscribedPaneClosed(_)) => return Ok(()),
                Some(ServerMsg::Exit(exit)) => {
                    return Err(CallError::Transport(format!(
                        "Zellij ended the connection (reason {})",
                        exit.exit_reason
                    )))
                }
                _ => {}
            }
        }
    }
}

/// Removes a call's waiter however the call ends, so late output is dropped.
struct Unregister<'a>(&'a Waiters, &'a str);

impl Drop for Unregister<'_> {
    fn drop(&mut self) {
        self.0.lock().unwrap().remove(self.1);
    }
}

/// Writes one length-prefixed message.
async fn write_frame(stream: &Stream, msg: &wire::ClientToServerMsg) -> Result<(), CallError> {
    let body = msg.encode_to_vec();
    let frame = [&(body.len() as u32).to_le_bytes()[..], &body].concat();
    let mut send = stream;
    send.write_all(&frame)
        .await
        .map_err(|e| CallError::Transport(format!("write to Zellij failed: {e}")))
}

/// Reads one length-prefixed message; an undecodable one reads as empty.
async fn read_frame(stream: &Stream) -> Result<ServerToClientMsg, CallError> {
    let mut recv = stream;
    let closed =
        |e: std::io::Error| CallError::Transport(format!("Zellij closed the connection: {e}"));
    let mut len = [0u8; 4];
    recv.read_exact(&mut len).await.map_err(closed)?;
    let len = u32::from_le_bytes(len) as usize;
    if len > MAX_SERVER_FRAME {
        return Err(CallError::Transport(format!(
            "frame of {len} bytes from Zellij"
        )));
    }
    let mut body = vec![0u8; len];
    recv.read_exact(&mut body).await.map_err(closed)?;
    Ok(
        ServerToClientMsg::decode(body.as_slice()).unwrap_or_else(|_| {
            tracing::debug!("skipping an undecodable frame of {len} bytes");
            ServerToClientMsg { message: None }
        }),
    )
}

async fn read_frames(stream: Arc<Stream>, waiters: Waiters) {
    let why = loop {
        let msg = match read_frame(&stream).await {
            Ok(msg) => msg,
            Err(e) => break e.to_string(),
        };
        let (pipe, event) = match msg.message {
            Some(ServerMsg::CliPipeOutput(out)) => (out.pipe_name, PipeEvent::Output(out.output)),
            Some(ServerMsg::UnblockCliPipeInput(p)) => (p.pipe_name, PipeEvent::Unblocked),
            Some(ServerMsg::LogError(log)) => break format!("Zellij: {}", log.lines.join("; ")),
            Some(ServerMsg::Exit(exit)) => {
                break format!("Zellij ended the connection (reason {})", exit.exit_reason)
            }
            Some(ServerMsg::Log(log)) => {
                tracing::debug!("zellij log: {:?}", log.lines);
                continue;
            }
            _ => continue,
        };
        if let Some(tx) = waiters.lock().unwrap().get(&pipe) {
            let _ = tx.send(event);
        }
    };
    tracing::debug!("socket reader stops: {why}");
    for (_, tx) in waiters.lock().unwrap().drain() {
        let _ = tx.send(PipeEvent::Closed(why.clone()));
    }
}
