//! A shell run's exit report (see `tools::in_shell`), sent to the plugin
//! on the session's socket as `zellij pipe` would send it, by this binary's
//! hidden `exit-report` command: the run's script waits for the report's
//! sender to start, and this one starts in a fraction of Zellij's time (a
//! quarter of a `zellij pipe`'s 12 ms here). Like `zellij pipe`, it prints
//! what the plugin answers on the pipe and ends when the plugin lets the
//! pipe go; unlike it, it prints nothing into the person's pane when the
//! session is gone, and ends with a failing status.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

use prost::Message;
use zellij_mcp_protocol::ops::{EXIT_PIPE_NAME, RUN_TAKEN};

use super::wire::{self, server_to_client::Message as ServerMsg, ServerToClientMsg};

/// The largest message from Zellij this reads (its pipe outputs are short).
const MOST_FRAME: usize = 1 << 20;

/// Longest the report waits for the plugin to let its pipe go: past the
/// plugin's own hold (10 s), so a pipe nobody lets go (an instance gone, a
/// pipe Zellij lost) keeps the person's shell only this long.
const MOST_WAIT: Duration = Duration::from_secs(15);

/// How long, and how often, a report no instance took is sent again.
const RESEND_FOR: Duration = Duration::from_secs(2);
const RESEND_EVERY: Duration = Duration::from_millis(50);

/// Sends `payload` on the exit pipe to the plugin at `plugin` with
/// `configuration` (`k=v,k2=v2`, as `zellij pipe -c` takes it), through
/// the session's `socket`, again while no instance says it took it (for
/// [`RESEND_FOR`]); prints what the plugin answers, until it lets the pipe
/// go, or for [`MOST_WAIT`] (then failing).
pub fn send(
    socket: &Path,
    plugin: &str,
    configuration: &str,
    payload: &str,
) -> std::io::Result<()> {
    let mut stream = UnixStream::connect(socket)?;
    let sent_first = Instant::now();
    let deadline = sent_first + MOST_WAIT;
    let pipe_id = format!("{EXIT_PIPE_NAME}-{}", std::process::id());
    let plugin = (plugin.to_owned(), parse_configuration(configuration));
    let message =
        wire::named_pipe_message(&pipe_id, EXIT_PIPE_NAME, payload.to_owned(), Some(plugin));
    let body = message.encode_to_vec();
    let frame = [&(body.len() as u32).to_le_bytes()[..], &body].concat();
    stream.write_all(&frame)?;
    let taken_line = format!("{RUN_TAKEN}\n");
    let mut taken = false;
    let mut out = std::io::stdout().lock();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        stream.set_read_timeout(Some(left.max(Duration::from_millis(1))))?;
        match read_frame(&mut stream)?.message {
            Some(ServerMsg::CliPipeOutput(o)) if o.pipe_name == pipe_id => {
                if o.output == taken_line {
                    taken = true;
                    continue;
                }
                out.write_all(o.output.as_bytes())?;
                out.flush()?;
            }
            Some(ServerMsg::UnblockCliPipeInput(p)) if p.pipe_name == pipe_id => {
                if taken || sent_first.elapsed() >= RESEND_FOR {
                    return Ok(());
                }
                std::thread::sleep(RESEND_EVERY);
                stream.write_all(&frame)?;
            }
            Some(ServerMsg::Exit(_) | ServerMsg::LogError(_)) => {
                return Err(std::io::Error::other("Zellij refused the report"))
            }
            _ => {}
        }
    }
}

/// `k=v,k2=v2` as Zellij splits it: on `,`, then on the first `=`.
fn parse_configuration(text: &str) -> HashMap<String, String> {
    let pairs = text.split(',').filter(|pair| !pair.is_empty());
    pairs
        .map(|pair| match pair.split_once('=') {
            Some((key, value)) => (key.to_owned(), value.to_owned()),
            None => (pair.to_owned(), String::new()),
        })
        .collect()
}

fn read_frame(stream: &mut UnixStream) -> std::io::Result<ServerToClientMsg> {
    let mut len = [0u8; 4];
    stream.read_exact(&mut len)?;
    let len = u32::from_le_bytes(len) as usize;
    if len > MOST_FRAME {
        return Err(std::io::Error::other("a frame too big"));
    }
    let mut body = vec![0u8; len];
    stream.read_exact(&mut body)?;
    Ok(ServerToClientMsg::decode(body.as_slice()).unwrap_or(ServerToClientMsg { message: None }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configuration_reads_back_as_zellij_splits_it() {
        let parsed = parse_configuration("a=1,b=x=y,c=");
        assert_eq!(parsed.len(), 3);
        assert_eq!(parsed["b"], "x=y");
        assert_eq!(parsed["c"], "");
        assert!(parse_configuration("").is_empty());
    }
}
