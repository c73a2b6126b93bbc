//! The bridge without Zellij: the MCP server runs in this process on the
//! real plugin logic (the plugin crate's `FakeSession`, on a fake host), and
//! a real MCP client talks to it over a pipe. Cancellation, progress, a
//! dropped link and the caller's pane in the request envelope are checked
//! here; and `tools/list` against its snapshot, so every change to a
//! description, schema or annotation shows in a diff.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use serde_json::json;
use tokio::sync::oneshot;
use zellij_mcp::server::own_pane::OwnPane;
use zellij_mcp::tools::{Options, ZellijMcp};
use zellij_mcp::transport::client::{
    ClientConfig, PluginClient, Reach, SessionsFuture, TransportChoice,
};
use zellij_mcp::transport::sessions::SessionDefaults;
use zellij_mcp::transport::{CallError, Carrier, Destination, Transport};
use zellij_mcp_harness::Mcp;
use zellij_mcp_plugin::fake::{shared_dir, FakeSession};
use zellij_mcp_protocol::ops::{op, Op};
use zellij_mcp_protocol::{Assembler, PaneRef, Reply, Request};

const SESSION: &str = "fake";
const SNAPSHOT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/snapshots/tools-list.json"
);

/// A request for the plugin's thread, and where its reply's lines go.
type Piped = (String, String, oneshot::Sender<Vec<String>>);

/// The real plugin logic on its own thread (its fake host is not `Send`),
/// with its clock following this one; and what the bridge sent it.
struct Plugin {
    requests: Mutex<mpsc::Sender<Piped>>,
    seen: Mutex<Vec<Request>>,
    /// Links made to it (one hello each).
    links: AtomicUsize,
    /// The next list_tabs finds the connection gone.
    drop_next: AtomicBool,
}

impl Plugin {
    fn start(test: &str) -> Arc<Plugin> {
        let dir = shared_dir(&format!("in-process-{test}"));
        let (requests, incoming) = mpsc::channel::<Piped>();
        std::thread::spawn(move || run_plugin(&dir, incoming));
        Arc::new(Plugin {
            requests: Mutex::new(requests),
            seen: Mutex::default(),
            links: AtomicUsize::default(),
            drop_next: AtomicBool::default(),
        })
    }

    fn seen(&self, name: &str) -> Vec<Request> {
        let seen = self.seen.lock().unwrap();
        seen.iter().filter(|r| r.op == name).cloned().collect()
    }
}

/// Hands each request to the plugin as a pipe message, fires its timers as
/// the clock passes them, and sends each pipe's lines once it is released.
fn run_plugin(dir: &std::path::Path, incoming: mpsc::Receiver<Piped>) {
    let mut session = FakeSession::start(dir);
    let mut waiting: Vec<(String, oneshot::Sender<Vec<String>>)> = Vec::new();
    let mut last = Instant::now();
    loop {
        let until_timer = session.next_timer().unwrap_or(Duration::from_millis(50));
        let message = incoming.recv_timeout(until_timer.min(Duration::from_millis(50)));
        session.advance(last.elapsed());
        last = Instant::now();
        match message {
            Ok((pipe_id, payload, reply)) => {
                session.pipe(&pipe_id, &payload);
                waiting.push((pipe_id, reply));
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return,
        }
        waiting = waiting
            .into_iter()
            .filter_map(|(pipe_id, reply)| match session.released(&pipe_id) {
                Some(lines) => {
                    let _ = reply.send(lines);
                    None
                }
                None => Some((pipe_id, reply)),
            })
            .collect();
    }
}

/// A link to the plugin.
struct Link(Arc<Plugin>);

impl Carrier for Link {
    const KIND: &'static str = "fake";

    async fn send(
        &self,
        request: &Request,
        _: &Destination,
        timeout: Duration,
    ) -> Result<Reply, CallError> {
        let plugin = &self.0;
        plugin.seen.lock().unwrap().push(request.clone());
        if request.op == op::ListTabs::NAME && plugin.drop_next.swap(false, Ordering::SeqCst) {
            return Err(CallError::Transport("the session's socket closed".into()));
        }
        let payload = serde_json::to_string(request).unwrap();
        let (reply, lines) = oneshot::channel();
        let pipe_id = format!("pipe-{}", request.id);
        let sent = plugin
            .requests
            .lock()
            .unwrap()
            .send((pipe_id, payload, reply));
        sent.map_err(|_| CallError::Transport("the plugin's thread ended".into()))?;
        let lines = match tokio::time::timeout(timeout, lines).await {
            Ok(Ok(lines)) => lines,
            Ok(Err(_)) => return Err(CallError::NoReply),
            Err(_) => return Err(CallError::Timeout),
        };
        let mut assembler = Assembler::new(&request.id);
        let reply = lines.iter().find_map(|line| assembler.push_line(line));
        reply.ok_or(CallError::NoReply)
    }

    async fn read_rows(&self, _: PaneRef, _: Option<usize>) -> Result<Vec<String>, CallError> {
        Ok(Vec::new())
    }
}

struct OneSession(Arc<Plugin>);

impl Reach for OneSession {
    fn live<'a>(&'a self, _: &'a ClientConfig) -> SessionsFuture<'a> {
        Box::pin(async { vec![SESSION.to_owned()] })
    }

    fn connect(&self, _: &ClientConfig, _: &str) -> Box<dyn Transport> {
        self.0.links.fetch_add(1, Ordering::SeqCst);
        Box::new(Link(self.0.clone()))
    }
}

/// The server in this process, on `plugin`, as if run from pane `terminal_7`
/// of the session; and an MCP client talking to it.
fn connect(plugin: &Arc<Plugin>) -> Mcp {
    let config = ClientConfig {
        transport: TransportChoice::Auto,
        zellij: "zellij".into(),
        plugin_url: "file:/guessed.wasm".into(),
        timeout: Duration::from_secs(5),
        sessions: SessionDefaults::default(),
        agents_file: None,
    };
    let client = PluginClient::reaching(config, Box::new(OneSession(plugin.clone())));
    let own_pane = OwnPane::new(Some(SESSION.into()), Some(PaneRef::terminal(7)));
    let server = ZellijMcp::new(Arc::new(client), own_pane, &Options::default()).unwrap();
    let (client_end, server_end) = tokio::io::duplex(1 << 20);
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(async move {
            let running = server.serve(tokio::io::split(server_end)).await;
            let _ = running.expect("serve").waiting().await;
        });
    });
    let (from_server, to_server) = tokio::io::split(client_end);
    Mcp::over(from_server, to_server)
}

fn wait_until(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_cancelled_wait_sends_progress_then_ends_the_request_in_the_plugin() {
    let plugin = Plugin::start("cancel");
    let mcp = connect(&plugin);
    let args = json!({"pane_id": "terminal_1", "pattern": "never"});
    mcp.call_and_cancel("zellij_wait_for", args, Duration::from_millis(2_500));
    wait_until("the plugin is asked to cancel", || {
        !plugin.seen(op::Cancel::NAME).is_empty()
    });
    let waits = plugin.seen(op::WaitFor::NAME);
    let cancels = plugin.seen(op::Cancel::NAME);
    assert_eq!(waits.len(), 1);
    assert_eq!(cancels.len(), 1);
    assert_eq!(cancels[0].args["request_id"], json!(waits[0].id));
    assert!(
        mcp.progress_count() >= 2,
        "{} progress",
        mcp.progress_count()
    );
    assert!(
        !plugin.seen(op::Status::NAME).is_empty(),
        "a waiting tool checks the plugin still has its request"
    );
}

#[test]
fn a_dropped_link_is_an_error_and_the_next_call_links_again() {
    let plugin = Plugin::start("dropped");
    let mcp = connect(&plugin);
    mcp.ok("zellij_list_tabs", json!({}));
    assert_eq!(plugin.links.load(Ordering::SeqCst), 1);
    plugin.drop_next.store(true, Ordering::SeqCst);
    let error = mcp.err("zellij_list_tabs", json!({}));
    assert!(error.starts_with("transport:"), "{error}");
    let listed = mcp.ok("zellij_list_tabs", json!({}));
    assert_eq!(listed["session"], SESSION);
    assert_eq!(plugin.links.load(Ordering::SeqCst), 2, "linked again");
    assert_eq!(plugin.seen(op::Hello::NAME).len(), 2);
}

#[test]
fn requests_carry_the_callers_pane_in_the_envelope_not_in_the_args() {
    let plugin = Plugin::start("caller");
    let mcp = connect(&plugin);
    let opened = mcp.ok("zellij_new_pane", json!({}));
    assert_eq!(opened["pane_id"], "terminal_101", "{opened}");
    assert_eq!(opened["session"], SESSION);
    let sent = plugin.seen(op::NewPane::NAME);
    assert_eq!(sent[0].caller, Some(PaneRef::terminal(7)));
    assert_eq!(sent[0].args.get("caller"), None);
}

#[test]
fn tools_list_matches_its_snapshot() {
    let mcp = connect(&Plugin::start("tools"));
    let mut tools = mcp.list_tools();
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    let tools = serde_json::to_value(tools).unwrap();
    let listed = serde_json::to_string_pretty(&tools).unwrap() + "\n";
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(std::path::Path::new(SNAPSHOT).parent().unwrap()).unwrap();
        std::fs::write(SNAPSHOT, &listed).unwrap();
    }
    let snapshot = std::fs::read_to_string(SNAPSHOT).unwrap_or_default();
    let compact = serde_json::to_string(&tools).unwrap();
    assert!(
        compact.len() <= 24 * 1024,
        "tools/list is {} bytes",
        compact.len()
    );
    // One-type schema dialects (Gemini, OpenAPI 3.0) take every schema.
    assert!(!compact.contains(r#""null""#), "a schema allows null");
    assert!(
        listed == snapshot,
        "tools/list differs from {SNAPSHOT}; if the change is meant, run the test with \
         UPDATE_SNAPSHOTS=1 and commit the file"
    );
}
