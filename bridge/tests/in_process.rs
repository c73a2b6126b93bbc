//! The bridge without Zellij: the MCP server runs in this process on a fake
//! plugin (a `Carrier` that answers as the plugin does), and a real MCP
//! client talks to it over a pipe. Cancellation, progress, a dropped link and
//! the caller's pane in the request envelope are checked here; and
//! `tools/list` against its snapshot, so every change to a description,
//! schema or annotation shows in a diff.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use serde::Serialize;
use serde_json::json;
use zellij_mcp::client::{ClientConfig, PluginClient, Reach, SessionsFuture, TransportChoice};
use zellij_mcp::own_pane::OwnPane;
use zellij_mcp::sessions::SessionDefaults;
use zellij_mcp::tools::{Options, ZellijMcp};
use zellij_mcp::transport::{CallError, Carrier, Destination, Transport};
use zellij_mcp_harness::Mcp;
use zellij_mcp_protocol::ops::{
    op, CancelResult, ListTabsResult, Op, PaneResult, RequestState, StatusResult,
};
use zellij_mcp_protocol::testing::hello;
use zellij_mcp_protocol::{PaneRef, Reply, Request};

const SESSION: &str = "fake";
const SNAPSHOT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/snapshots/tools-list.json"
);

/// Answers as the plugin would; a wait never ends by itself.
#[derive(Default)]
struct FakePlugin {
    seen: Mutex<Vec<Request>>,
    /// Links made to it (one hello each).
    links: AtomicUsize,
    /// The next list_tabs finds the connection gone.
    drop_next: AtomicBool,
}

impl FakePlugin {
    fn seen(&self, name: &str) -> Vec<Request> {
        let seen = self.seen.lock().unwrap();
        seen.iter().filter(|r| r.op == name).cloned().collect()
    }
}

fn answer<O: Op>(request: &Request, result: O::Result) -> Result<Reply, CallError>
where
    O::Result: Serialize,
{
    Ok(Reply::ok(
        &request.id,
        serde_json::to_value(result).unwrap(),
    ))
}

/// A link to the fake plugin.
struct Link(Arc<FakePlugin>);

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
        match request.op.as_str() {
            op::Hello::NAME => {
                answer::<op::Hello>(request, hello(Some("file:/fake/zellij-mcp.wasm")))
            }
            op::WaitFor::NAME => {
                tokio::time::sleep(timeout).await;
                Err(CallError::Timeout)
            }
            op::Cancel::NAME => answer::<op::Cancel>(request, CancelResult { cancelled: true }),
            op::Status::NAME => {
                let state = RequestState::InFlight;
                answer::<op::Status>(request, StatusResult { state })
            }
            op::ListTabs::NAME if plugin.drop_next.swap(false, Ordering::SeqCst) => {
                Err(CallError::Transport("the session's socket closed".into()))
            }
            op::ListTabs::NAME => answer::<op::ListTabs>(request, ListTabsResult { tabs: vec![] }),
            op::NewPane::NAME => {
                let pane_id = PaneRef::terminal(9);
                answer::<op::NewPane>(
                    request,
                    PaneResult {
                        pane_id,
                        tab_id: Some(0),
                    },
                )
            }
            _ => Err(CallError::NoReply),
        }
    }

    async fn read_rows(
        &self,
        _: PaneRef,
        _: Option<usize>,
        _: Duration,
    ) -> Result<Vec<String>, CallError> {
        Ok(Vec::new())
    }
}

struct OneSession(Arc<FakePlugin>);

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
fn connect(plugin: &Arc<FakePlugin>) -> Mcp {
    let config = ClientConfig {
        transport: TransportChoice::Auto,
        zellij: "zellij".into(),
        plugin_url: "file:/guessed.wasm".into(),
        timeout: Duration::from_secs(5),
        sessions: SessionDefaults::default(),
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
    let plugin = Arc::new(FakePlugin::default());
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
    let plugin = Arc::new(FakePlugin::default());
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
    let plugin = Arc::new(FakePlugin::default());
    let mcp = connect(&plugin);
    let opened = mcp.ok("zellij_new_pane", json!({}));
    assert_eq!(opened["pane_id"], "terminal_9");
    assert_eq!(opened["session"], SESSION);
    let sent = plugin.seen(op::NewPane::NAME);
    assert_eq!(sent[0].caller, Some(PaneRef::terminal(7)));
    assert_eq!(sent[0].args.get("caller"), None);
}

#[test]
fn tools_list_matches_its_snapshot() {
    let mcp = connect(&Arc::new(FakePlugin::default()));
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
        compact.len() <= 25 * 1024,
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
