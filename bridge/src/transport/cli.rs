//! CLI fallback transport: persistent `zellij pipe` children, one JSON line
//! per request on their stdin, replies read from their stdout.
//!
//! A child handles one request at a time (the CLI reads its next line only
//! after the plugin releases the pipe), so idle children are pooled per
//! target and new ones are started for concurrent calls. A child whose call
//! timed out is killed rather than reused. The child's stdin is always our
//! pipe, never the bridge's own stdin (which carries MCP).
//!
//! A scrollback read runs `zellij subscribe` and keeps only its first update.
//!
//! A `zellij pipe` child sometimes exits in the middle of a request, after
//! the plugin got it. The reply is then fetched on a new child with a
//! `replay` request rather than by sending the request again; only a request
//! the plugin never saw is sent again.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Mutex;
use std::time::Duration;

use serde::Deserialize;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::time::Instant;
use zellij_mcp_protocol::ops::{op, ReplayArgs};
use zellij_mcp_protocol::{PaneRef, Reply, Request, PIPE_NAME};

use super::{within, CallError, Carrier, Destination, ReplyReader};

/// Idle children kept per target.
const MAX_IDLE: usize = 4;

/// How often a call looks whether its session's socket is still there.
const SESSION_LOOK_EVERY: Duration = Duration::from_millis(200);

struct PipeChild {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

pub struct CliTransport {
    zellij: PathBuf,
    session: String,
    idle: Mutex<HashMap<Destination, Vec<PipeChild>>>,
}

impl CliTransport {
    pub fn new(zellij: PathBuf, session: String) -> Self {
        CliTransport {
            zellij,
            session,
            idle: Mutex::default(),
        }
    }

    fn spawn(&self, target: &Destination) -> Result<PipeChild, CallError> {
        let mut cmd = self.command();
        cmd.arg("--session")
            .arg(&self.session)
            .arg("pipe")
            .arg("--name")
            .arg(PIPE_NAME);
        if let Destination::Plugin { url, configuration } = target {
            cmd.arg("--plugin").arg(url);
            if !configuration.is_empty() {
                let config = cli_configuration(configuration).map_err(CallError::Transport)?;
                cmd.arg("--plugin-configuration").arg(config);
            }
        }
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = self.start(&mut cmd)?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(CallError::Transport("zellij pipe has no stdio".into()));
        };
        Ok(PipeChild {
            child,
            stdin,
            stdout: BufReader::new(stdout),
        })
    }

    /// `zellij subscribe` to a pane, asking for the last `tail` rows of
    /// its scrollback (else all of them) in the first update.
    fn subscribe(&self, pane: PaneRef, tail: Option<usize>) -> Result<Child, CallError> {
        let mut cmd = self.command();
        cmd.arg("--session")
            .arg(&self.session)
            .args(["subscribe", "--format", "json", "--pane-id"])
            .arg(pane.to_string())
            .arg("--scrollback");
        if let Some(n) = tail {
            cmd.arg(n.max(1).to_string());
        }
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        self.start(&mut cmd)
    }

    /// The rows of one `zellij subscribe`'s first update; the child dies
    /// with the future.
    async fn subscribe_once(
        &self,
        pane: PaneRef,
        tail: Option<usize>,
    ) -> Result<Vec<String>, CallError> {
        let mut child = self.subscribe(pane, tail)?;
        let (Some(stdout), Some(mut stderr)) = (child.stdout.take(), child.stderr.take()) else {
            return Err(CallError::Transport("zellij subscribe has no stdio".into()));
        };
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .await
            .map_err(|e| CallError::Transport(e.to_string()))?;
        if line.trim().is_empty() {
            let mut said = String::new();
            let _ = tokio::io::AsyncReadExt::read_to_string(&mut stderr, &mut said).await;
            return Err(CallError::Refused(said.trim().to_owned()));
        }
        let update: SubscribedUpdate = serde_json::from_str(&line)
            .map_err(|e| CallError::Transport(format!("zellij subscribe printed {e}")))?;
        let mut rows = update.scrollback.unwrap_or_default();
        rows.extend(update.viewport);
        Ok(rows)
    }

    /// Starts `cmd`; the child dies with its handle.
    fn start(&self, cmd: &mut Command) -> Result<Child, CallError> {
        cmd.kill_on_drop(true)
            .spawn()
            .map_err(|e| CallError::Transport(format!("cannot run {}: {e}", self.zellij.display())))
    }

    /// `zellij`, looking for sessions where this bridge does.
    fn command(&self) -> Command {
        let mut cmd = Command::new(&self.zellij);
        cmd.env("ZELLIJ_SOCKET_DIR", super::sessions::socket_base());
        cmd
    }

    /// Resolves once the session's socket, there when the call began, is
    /// gone: Zellij removes it when a session ends, and a `zellij pipe`
    /// whose server went away without telling it never exits (it reads
    /// nothing, forever). Without a socket to look at, never resolves.
    async fn session_ended(&self) {
        let socket = super::sessions::socket_dir().join(&self.session);
        if !socket.exists() {
            return std::future::pending().await;
        }
        while socket.exists() {
            tokio::time::sleep(SESSION_LOOK_EVERY).await;
        }
    }

    fn take_idle(&self, target: &Destination) -> Option<PipeChild> {
        let mut idle = self.idle.lock().unwrap();
        let pool = idle.get_mut(target)?;
        while let Some(mut child) = pool.pop() {
            if matches!(child.child.try_wait(), Ok(None)) {
                return Some(child);
            }
        }
        None
    }

    fn put_idle(&self, target: &Destination, child: PipeChild) {
        let mut idle = self.idle.lock().unwrap();
        let pool = idle.entry(target.clone()).or_default();
        if pool.len() < MAX_IDLE {
            pool.push(child);
        }
    }
}

impl Exchanger for CliTransport {
    /// One request on a pooled or new child, which goes back to the pool
    /// only after a whole exchange.
    async fn exchange(
        &self,
        request: &Request,
        target: &Destination,
        timeout: Duration,
    ) -> Result<Reply, Exchange> {
        let mut child = match self.take_idle(target) {
            Some(child) => child,
            None => self.spawn(target).map_err(Exchange::Failed)?,
        };
        let exchange = async {
            tokio::select! {
                result = child.exchange(request) => result,
                () = self.session_ended() => Err(Exchange::Failed(CallError::Transport(
                    format!("the session {} ended", self.session),
                ))),
            }
        };
        let result = within(timeout, exchange).await;
        if result.is_ok() {
            self.put_idle(target, child);
        }
        result
    }
}

impl PipeChild {
    /// Writes the request as one line, then reads until its reply.
    async fn exchange(&mut self, request: &Request) -> Result<Reply, Exchange> {
        let line = serde_json::to_string(request).map_err(|e| failed(e.to_string()))? + "\n";
        self.stdin
            .write_all(line.as_bytes())
            .await
            .map_err(|e| Exchange::ChildExited(format!("zellij pipe stdin: {e}")))?;
        self.stdin
            .flush()
            .await
            .map_err(|e| Exchange::ChildExited(e.to_string()))?;
        self.read_reply(&request.id).await
    }

    /// Reads output until the reply to `id`; a child that exits first says
    /// so, with the last thing it printed.
    async fn read_reply(&mut self, id: &str) -> Result<Reply, Exchange> {
        let mut reader = ReplyReader::new(id);
        let mut out = String::new();
        let mut last = String::new();
        loop {
            if !out.trim().is_empty() {
                last = out.trim().to_owned();
            }
            out.clear();
            let n = self
                .stdout
                .read_line(&mut out)
                .await
                .map_err(|e| failed(e.to_string()))?;
            if n == 0 {
                let said = match last.is_empty() {
                    true => String::new(),
                    false => format!("; it printed '{last}'"),
                };
                return Err(Exchange::ChildExited(format!(
                    "zellij pipe exited without a reply (is the session alive?){said}"
                )));
            }
            if let Some(reply) = reader.push(&out) {
                return Ok(reply);
            }
        }
    }
}

fn failed(why: String) -> Exchange {
    Exchange::Failed(CallError::Transport(why))
}

/// One request on one child, as [`send_once`] sees it.
trait Exchanger: Sync {
    fn exchange(
        &self,
        request: &Request,
        target: &Destination,
        timeout: Duration,
    ) -> impl Future<Output = Result<Reply, Exchange>> + Send;
}

/// How many children a request, or the replay of it, may lose before the
/// call fails: a child now and then exits with no reply (Zellij's CLI
/// client is told to exit), and rarely two in a row.
const CHILDREN_LOST_AT_MOST: usize = 3;

/// Sends `request` once. When its child exits mid-request, the plugin may
/// have it: a `replay` on a new child fetches its reply (now, or once it is
/// ready), and only a request the plugin never saw is sent again.
async fn send_once<E: Exchanger>(
    exchanger: &E,
    request: &Request,
    target: &Destination,
    timeout: Duration,
) -> Result<Reply, CallError> {
    let deadline = Instant::now() + timeout;
    let mut lost = String::new();
    for _ in 0..CHILDREN_LOST_AT_MOST {
        let left = deadline.saturating_duration_since(Instant::now());
        match exchanger.exchange(request, target, left).await {
            Err(Exchange::ChildExited(why)) => lost = why,
            other => return other.map_err(Exchange::into_call_error),
        }
        if let Some(reply) = replayed(exchanger, request, target, deadline).await? {
            return Ok(reply);
        }
    }
    Err(CallError::Transport(lost))
}

/// The plugin's reply to a request whose child exited, asked with `replay`
/// (each try its own id, so none is taken for one already seen); `None`
/// when the plugin never saw the request.
async fn replayed<E: Exchanger>(
    exchanger: &E,
    request: &Request,
    target: &Destination,
    deadline: Instant,
) -> Result<Option<Reply>, CallError> {
    let args = ReplayArgs {
        request_id: request.id.clone(),
    };
    let mut lost = String::new();
    for attempt in 1..=CHILDREN_LOST_AT_MOST {
        let replay = Request::of::<op::Replay>(format!("{}-replay{attempt}", request.id), &args)
            .map_err(|e| CallError::Transport(e.to_string()))?;
        let left = deadline.saturating_duration_since(Instant::now());
        let earlier = match exchanger.exchange(&replay, target, left).await {
            Err(Exchange::ChildExited(why)) => {
                lost = why;
                continue;
            }
            other => other.map_err(Exchange::into_call_error)?,
        };
        // The replay's own error (e.g. the reply is gone) answers the request.
        return match earlier.into_result() {
            Err(error) => Ok(Some(Reply::err(&request.id, error))),
            Ok(earlier) if earlier.is_null() => Ok(None),
            Ok(earlier) => serde_json::from_value(earlier)
                .map(Some)
                .map_err(|e| CallError::Transport(e.to_string())),
        };
    }
    Err(CallError::Transport(lost))
}

impl Carrier for CliTransport {
    const KIND: &'static str = "cli";

    async fn send(
        &self,
        request: &Request,
        target: &Destination,
        timeout: Duration,
    ) -> Result<Reply, CallError> {
        send_once(self, request, target, timeout).await
    }

    /// The pane's rows from the first update of `zellij subscribe`. A
    /// subscriber that says nothing at all (seen rarely, under load) is
    /// asked again.
    async fn read_rows(
        &self,
        pane: PaneRef,
        tail: Option<usize>,
    ) -> Result<Vec<String>, CallError> {
        let mut tries = 0;
        loop {
            match self.subscribe_once(pane, tail).await {
                Err(CallError::Refused(said)) if said.is_empty() && tries < 2 => tries += 1,
                other => return other,
            }
        }
    }

    /// Each line `zellij subscribe` prints is one update.
    async fn watch_changes(
        &self,
        pane: PaneRef,
        changed: tokio::sync::mpsc::Sender<()>,
    ) -> Result<(), CallError> {
        let mut child = self.subscribe(pane, Some(1))?;
        let stdout = child.stdout.take();
        let stdout =
            stdout.ok_or_else(|| CallError::Transport("zellij subscribe has no stdout".into()))?;
        let mut lines = BufReader::new(stdout).lines();
        while let Some(line) = lines
            .next_line()
            .await
            .map_err(|e| CallError::Transport(e.to_string()))?
        {
            if !line.trim().is_empty() {
                let _ = changed.try_send(());
            }
        }
        Ok(())
    }
}

/// How one exchange with a child failed.
enum Exchange {
    /// The child went away mid-request: the plugin may have the request.
    ChildExited(String),
    Failed(CallError),
}

impl From<CallError> for Exchange {
    fn from(error: CallError) -> Self {
        Exchange::Failed(error)
    }
}

impl Exchange {
    fn into_call_error(self) -> CallError {
        match self {
            Exchange::ChildExited(why) => CallError::Transport(why),
            Exchange::Failed(error) => error,
        }
    }
}

/// A plugin configuration as `zellij pipe --plugin-configuration` takes it:
/// `k=v,k2=v2`. Zellij splits on `,` and then on the first `=`, so a key
/// with `,` or `=`, or a value with `,`, cannot be passed this way.
pub fn cli_configuration(configuration: &BTreeMap<String, String>) -> Result<String, String> {
    let mut pairs = Vec::new();
    for (key, value) in configuration {
        if key.is_empty() || key.contains([',', '=']) || value.contains(',') {
            return Err(format!(
                "the plugin's configuration entry '{key}' cannot be passed to `zellij pipe` \
                 (a ',' or '=' in the key, or a ',' in the value); use the socket transport, \
                 or change that entry in the layout"
            ));
        }
        pairs.push(format!("{key}={value}"));
    }
    Ok(pairs.join(","))
}

/// The first line `zellij subscribe --format json` prints.
#[derive(Deserialize)]
struct SubscribedUpdate {
    viewport: Vec<String>,
    scrollback: Option<Vec<String>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};
    use zellij_mcp_protocol::ops::Op;
    use zellij_mcp_protocol::{Error, ErrorBody, ErrorCode};

    /// Children whose first `dying` exit mid-request; a replay gets
    /// `replayed`.
    struct ChildrenDie {
        dying: usize,
        replayed: Result<Value, ErrorBody>,
        sent: Mutex<Vec<String>>,
    }

    impl Exchanger for ChildrenDie {
        async fn exchange(
            &self,
            request: &Request,
            _: &Destination,
            _: Duration,
        ) -> Result<Reply, Exchange> {
            let dies = {
                let mut sent = self.sent.lock().unwrap();
                sent.push(request.id.clone());
                sent.len() <= self.dying
            };
            if dies {
                return Err(Exchange::ChildExited("gone".into()));
            }
            Ok(match (request.op.as_str(), &self.replayed) {
                (op::Replay::NAME, Ok(value)) => Reply::ok(&request.id, value.clone()),
                (op::Replay::NAME, Err(error)) => Reply::err(&request.id, error.clone()),
                _ => Reply::ok(&request.id, json!("sent again")),
            })
        }
    }

    async fn send_after_dead_children(
        dying: usize,
        replayed: Result<Value, ErrorBody>,
    ) -> (Result<Value, ErrorBody>, Vec<String>) {
        let children = ChildrenDie {
            dying,
            replayed,
            sent: Mutex::default(),
        };
        let request = Request::new("r1", "new_tab", json!({}));
        let timeout = Duration::from_secs(1);
        let reply = send_once(&children, &request, &Destination::Broadcast, timeout).await;
        let reply = reply.expect("a reply");
        assert_eq!(reply.id, "r1");
        (reply.into_result(), children.sent.into_inner().unwrap())
    }

    #[tokio::test]
    async fn a_request_the_plugin_answered_is_replayed_not_sent_again() {
        let earlier = serde_json::to_value(Reply::ok("r1", json!({"tab_id": 4}))).unwrap();
        let (reply, sent) = send_after_dead_children(1, Ok(earlier)).await;
        assert_eq!(reply.unwrap(), json!({"tab_id": 4}));
        assert_eq!(sent, ["r1", "r1-replay1"]);
    }

    #[tokio::test]
    async fn a_replay_whose_child_exits_too_is_asked_again_under_a_new_id() {
        let earlier = serde_json::to_value(Reply::ok("r1", json!({"tab_id": 4}))).unwrap();
        let (reply, sent) = send_after_dead_children(2, Ok(earlier)).await;
        assert_eq!(reply.unwrap(), json!({"tab_id": 4}));
        assert_eq!(sent, ["r1", "r1-replay1", "r1-replay2"]);
    }

    #[tokio::test]
    async fn children_that_keep_exiting_fail_the_call_after_a_few() {
        let children = ChildrenDie {
            dying: usize::MAX,
            replayed: Ok(Value::Null),
            sent: Mutex::default(),
        };
        let request = Request::new("r1", "new_tab", json!({}));
        let reply = send_once(
            &children,
            &request,
            &Destination::Broadcast,
            Duration::from_secs(1),
        );
        assert!(matches!(reply.await, Err(CallError::Transport(_))));
        let sent = children.sent.into_inner().unwrap();
        assert_eq!(sent.len(), 1 + CHILDREN_LOST_AT_MOST, "{sent:?}");
    }

    #[tokio::test]
    async fn a_request_the_plugin_never_saw_is_sent_again_once() {
        let (reply, sent) = send_after_dead_children(1, Ok(Value::Null)).await;
        assert_eq!(reply.unwrap(), json!("sent again"));
        assert_eq!(sent, ["r1", "r1-replay1", "r1"]);
    }

    #[tokio::test]
    async fn a_reply_no_longer_kept_is_the_requests_error() {
        let lost = ErrorBody::from(Error::ReplyLost {
            problem: "gone".into(),
            fix: "look at the state it left".into(),
        });
        let (reply, sent) = send_after_dead_children(1, Err(lost)).await;
        assert_eq!(reply.unwrap_err().code, ErrorCode::ReplyLost);
        assert_eq!(sent, ["r1", "r1-replay1"]);
    }

    #[test]
    fn configurations_zellij_cannot_parse_are_refused() {
        let config = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let ok = config(&[("submit_delay_ms", "200"), ("url", "a=b")]);
        assert_eq!(
            cli_configuration(&ok).unwrap(),
            "submit_delay_ms=200,url=a=b"
        );
        for bad in [[("k", "a,b")], [("k,x", "1")], [("k=x", "1")]] {
            let error = cli_configuration(&config(&bad)).unwrap_err();
            assert!(error.contains("socket transport"), "{error}");
        }
    }
}
