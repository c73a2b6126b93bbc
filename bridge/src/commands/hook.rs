//! `zellij-mcp hook`: the command an agent program's hooks run. It reads
//! the program's payload (stdin, or the JSON argument Codex's `notify`
//! passes), finds its pane and session in the environment the program
//! inherited (`ZELLIJ_PANE_ID`, `ZELLIJ_SESSION_NAME`), and tells the
//! plugin one event. It never slows or stops the program beyond reading
//! its payload: outside Zellij, with no plugin, for a payload it cannot
//! read or on any error it ends at once, printing nothing, and it always
//! exits 0; it decides nothing for the program (a permission is never
//! answered here).
//!
//! `zellij-mcp foreground`, run by a relay, tells the plugin the same way
//! what runs in its pane's foreground (see `relay::foreground`).

use std::io::{IsTerminal, Read};
use std::time::Duration;

use zellij_mcp_protocol::hooks::{self, MAX_PAYLOAD_BYTES};
use zellij_mcp_protocol::ops::{op, ForegroundArgs, HookArgs};
use zellij_mcp_protocol::PaneRef;

use crate::transport::client::PluginClient;

/// How long stdin may take to end: on a loaded machine Qwen Code wrote a
/// hook's payload up to 4 s after starting it (measured), and a report
/// lost leaves the state it told before standing. Only a program that
/// passes no payload and leaves stdin open waits this long (none of the
/// programs described does).
const STDIN_WAIT: Duration = Duration::from_secs(10);
/// How long the plugin may take to answer: long enough for a loaded
/// machine (a report lost leaves the state it told before standing).
const TELL_WAIT: Duration = Duration::from_secs(5);

/// Tells the plugin what the payload says, if it can; never fails.
pub async fn run(client: &PluginClient, argument: Option<String>) {
    let told_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .map(|since| since.as_millis() as u64);
    let Some((session, pane)) = pane() else {
        return;
    };
    let payload = match argument {
        Some(argument) => argument.into_bytes(),
        None => stdin_within(STDIN_WAIT).unwrap_or_default(),
    };
    let Some(told) = hooks::read(&payload) else {
        return;
    };
    let args = HookArgs {
        pane_id: pane,
        event: told.event,
        conversation: told.conversation,
        told_ms,
        tells_tools: std::env::var_os(hooks::TELLS_TOOLS).is_some_and(|v| v == "1"),
    };
    let call = client.call::<op::Hook>(Some(&session), &args, client.sending());
    let _ = tokio::time::timeout(TELL_WAIT, call).await;
}

/// `zellij-mcp foreground`: tells the plugin what runs in the foreground
/// of this relayed pane, where it is recorded to and the state its screen
/// shows (its wire name) and when it was read, as its relay saw them;
/// never fails.
pub async fn foreground(
    client: &PluginClient,
    running: Vec<String>,
    cwd: Option<String>,
    (recording, screen, screen_ms): (Option<String>, Option<String>, Option<u64>),
) {
    let Some((session, pane_id)) = pane() else {
        return;
    };
    let args = ForegroundArgs {
        pane_id,
        running,
        cwd,
        recording,
        screen: screen.and_then(|s| serde_json::from_value(serde_json::Value::String(s)).ok()),
        screen_ms,
    };
    let call = client.call::<op::Foreground>(Some(&session), &args, client.sending());
    let _ = tokio::time::timeout(TELL_WAIT, call).await;
}

/// The session and pane this process runs in, as its environment says.
fn pane() -> Option<(String, PaneRef)> {
    let session = env("ZELLIJ_SESSION_NAME")?;
    let pane = env("ZELLIJ_PANE_ID")?.parse::<u32>().ok()?;
    Some((session, PaneRef::terminal(pane)))
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// Stdin, up to one byte past [`MAX_PAYLOAD_BYTES`] (so that a longer one
/// is known as such), if it ends within `wait`; none from a terminal.
fn stdin_within(wait: Duration) -> Option<Vec<u8>> {
    if std::io::stdin().is_terminal() {
        return None;
    }
    let (sent, read) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut payload = Vec::new();
        let most = MAX_PAYLOAD_BYTES as u64 + 1;
        let whole = std::io::stdin().take(most).read_to_end(&mut payload);
        let _ = sent.send(whole.ok().map(|_| payload));
    });
    read.recv_timeout(wait).ok().flatten()
}
