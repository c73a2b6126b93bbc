//! The built `zellij-mcp` binary driven as an MCP client (rmcp over stdio).

use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ProgressNotificationParam, ReadResourceRequestParams,
    ResourceContents, ResourceUpdatedNotificationParam, SubscribeRequestParams, Tool,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::Value;

use crate::Sandbox;

/// The client side: counts the server's progress notifications, and notes
/// the resources it says were updated.
#[derive(Clone, Default)]
pub struct Recorder {
    progress: Arc<AtomicUsize>,
    updated: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Recorder {
    async fn on_progress(
        &self,
        _params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.fetch_add(1, Ordering::SeqCst);
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.updated.lock().unwrap().push(params.uri);
    }
}

pub struct Mcp {
    runtime: tokio::runtime::Runtime,
    /// The bridge's process, when this started it.
    pid: Option<u32>,
    client: Option<RunningService<RoleClient, Recorder>>,
    progress: Arc<AtomicUsize>,
    updated: Arc<Mutex<Vec<String>>>,
}

impl Mcp {
    /// Starts `bridge` with the sandbox's environment and `args`.
    pub fn start(bridge: &Path, sandbox: &Sandbox, args: &[&str]) -> Mcp {
        Self::start_with_env(bridge, sandbox, args, &[])
    }

    /// Starts `bridge` as if it ran in pane `terminal_<pane>` of `session`,
    /// the way Zellij starts a pane's processes.
    pub fn start_in_pane(bridge: &Path, sandbox: &Sandbox, session: &str, pane: u32) -> Mcp {
        let pane = pane.to_string();
        let env = [("ZELLIJ_SESSION_NAME", session), ("ZELLIJ_PANE_ID", &pane)];
        Self::start_with_env(bridge, sandbox, &[], &env)
    }

    /// Starts `bridge` with the sandbox's environment, `args`, and `env`
    /// added (no `ZELLIJ_*` of the caller's).
    pub fn start_with_env(
        bridge: &Path,
        sandbox: &Sandbox,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Mcp {
        let mut cmd = tokio::process::Command::new(bridge);
        cmd.args(args)
            .arg("--zellij")
            .arg(sandbox.zellij_path())
            .envs(sandbox.env())
            .env_remove("ZELLIJ")
            .env_remove("ZELLIJ_SESSION_NAME")
            .env_remove("ZELLIJ_PANE_ID")
            .env_remove("ZELLIJ_MCP_SESSION")
            .env_remove("ZELLIJ_MCP_TRANSPORT")
            .envs(env.iter().copied());
        let pid = Arc::new(Mutex::new(None));
        let spawned = pid.clone();
        let mut mcp = Self::serve(|recorder| async move {
            let (transport, _) = TokioChildProcess::builder(cmd)
                .stderr(Stdio::inherit())
                .spawn()
                .expect("spawn the bridge");
            *spawned.lock().unwrap() = transport.id();
            recorder.serve(transport).await.expect("MCP initialize")
        });
        mcp.pid = *pid.lock().unwrap();
        mcp
    }

    /// Talks to a server that `cmd` starts (e.g. a bridge behind a shell,
    /// as `ssh host zellij-mcp` starts one), over the child's stdio.
    pub fn over_command(cmd: tokio::process::Command) -> Mcp {
        Self::serve(|recorder| async move {
            let (transport, _) = TokioChildProcess::builder(cmd)
                .stderr(Stdio::inherit())
                .spawn()
                .expect("spawn the server");
            recorder.serve(transport).await.expect("MCP initialize")
        })
    }

    /// The bridge's process id, when this started it.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Talks to a bridge started elsewhere (e.g. in a pane), whose stdin and
    /// stdout are the FIFOs `to_bridge` and `from_bridge`. Opens them in the
    /// order a shell's `< to_bridge > from_bridge` does.
    pub fn over_fifos(to_bridge: &Path, from_bridge: &Path) -> Mcp {
        let writer = std::fs::OpenOptions::new()
            .write(true)
            .open(to_bridge)
            .expect("open the bridge's stdin");
        let reader = std::fs::File::open(from_bridge).expect("open the bridge's stdout");
        Self::over(
            tokio::fs::File::from_std(reader),
            tokio::fs::File::from_std(writer),
        )
    }

    /// Talks to a server that reads what is written to `to_server` and
    /// writes to `from_server` (e.g. one in this process, on a duplex pipe).
    pub fn over<R, W>(from_server: R, to_server: W) -> Mcp
    where
        R: tokio::io::AsyncRead + Send + Unpin + 'static,
        W: tokio::io::AsyncWrite + Send + Unpin + 'static,
    {
        Self::serve(|recorder| async move {
            let transport = (from_server, to_server);
            recorder.serve(transport).await.expect("MCP initialize")
        })
    }

    fn serve<F>(connect: impl FnOnce(Recorder) -> F) -> Mcp
    where
        F: std::future::Future<Output = RunningService<RoleClient, Recorder>>,
    {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("tokio runtime");
        let recorder = Recorder::default();
        let progress = recorder.progress.clone();
        let updated = recorder.updated.clone();
        let client = runtime.block_on(connect(recorder));
        Mcp {
            runtime,
            pid: None,
            client: Some(client),
            progress,
            updated,
        }
    }

    /// Progress notifications received so far.
    pub fn progress_count(&self) -> usize {
        self.progress.load(Ordering::SeqCst)
    }

    /// Starts a call and abandons it after `after`, which makes the client
    /// send `notifications/cancelled`.
    pub fn call_and_cancel(&self, tool: &str, args: Value, after: Duration) {
        let Value::Object(args) = args else {
            panic!("tool arguments must be a JSON object");
        };
        let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(args);
        let peer = self.client().peer().clone();
        self.runtime.block_on(async move {
            let outcome = tokio::time::timeout(after, peer.call_tool(params)).await;
            assert!(
                outcome.is_err(),
                "{tool} ended before it was cancelled: {outcome:?}"
            );
        });
    }

    fn client(&self) -> &RunningService<RoleClient, Recorder> {
        self.client.as_ref().expect("client is running")
    }

    /// The server's name and version from `initialize`.
    pub fn server_name_and_version(&self) -> (String, String) {
        let info = self.client().peer_info().expect("server info");
        let implementation = info.server_info.clone().expect("serverInfo");
        (implementation.name, implementation.version)
    }

    /// The URIs of `resources/list`.
    pub fn list_resources(&self) -> Vec<String> {
        let resources = self.runtime.block_on(self.client().list_all_resources());
        resources
            .expect("resources/list")
            .into_iter()
            .map(|r| r.uri)
            .collect()
    }

    /// A resource's text.
    pub fn read_resource(&self, uri: &str) -> String {
        let params = ReadResourceRequestParams::new(uri);
        let read = self.runtime.block_on(self.client().read_resource(params));
        match read.expect("resources/read").contents.into_iter().next() {
            Some(ResourceContents::TextResourceContents { text, .. }) => text,
            other => panic!("{uri} has no text: {other:?}"),
        }
    }

    /// The `resources/subscribe` that clients send today.
    #[allow(deprecated)]
    pub fn subscribe(&self, uri: &str) {
        let params = SubscribeRequestParams::new(uri);
        self.runtime
            .block_on(self.client().subscribe(params))
            .expect("resources/subscribe");
    }

    /// The URIs `notifications/resources/updated` named so far.
    pub fn updated(&self) -> Vec<String> {
        self.updated.lock().unwrap().clone()
    }

    pub fn list_tools(&self) -> Vec<Tool> {
        self.runtime
            .block_on(self.client().list_all_tools())
            .expect("tools/list")
    }

    pub fn call(&self, tool: &str, args: Value) -> CallToolResult {
        let Value::Object(args) = args else {
            panic!("tool arguments must be a JSON object");
        };
        let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(args);
        self.runtime
            .block_on(self.client().call_tool(params))
            .unwrap_or_else(|e| panic!("{tool}: protocol error {e}"))
    }

    /// Runs the calls at the same time; results in the order given.
    pub fn call_concurrently(&self, calls: Vec<(&str, Value)>) -> Vec<CallToolResult> {
        let peer = self.client().peer().clone();
        self.runtime.block_on(async move {
            let tasks: Vec<_> = calls
                .into_iter()
                .map(|(tool, args)| {
                    let peer = peer.clone();
                    let Value::Object(args) = args else {
                        panic!("tool arguments must be a JSON object");
                    };
                    let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(args);
                    tokio::spawn(async move { peer.call_tool(params).await })
                })
                .collect();
            let mut results = Vec::new();
            for task in tasks {
                results.push(task.await.expect("task").expect("tools/call"));
            }
            results
        })
    }

    /// Runs the calls from `workers` tasks at once, each taking the next
    /// call when its last one is answered; results (or protocol errors) in
    /// the order given.
    pub fn call_in_parallel(
        &self,
        calls: Vec<(String, Value)>,
        workers: usize,
    ) -> Vec<Result<CallToolResult, String>> {
        let timed = self.call_in_parallel_timed(calls, workers);
        timed.into_iter().map(|call| call.result).collect()
    }

    /// [`Self::call_in_parallel`], with how long each call took and which
    /// worker made it.
    pub fn call_in_parallel_timed(
        &self,
        calls: Vec<(String, Value)>,
        workers: usize,
    ) -> Vec<Timed> {
        let peer = self.client().peer().clone();
        let total = calls.len();
        let queue = Arc::new(std::sync::Mutex::new(calls.into_iter().enumerate()));
        self.runtime.block_on(async move {
            let tasks: Vec<_> = (0..workers)
                .map(|caller| {
                    let (peer, queue) = (peer.clone(), queue.clone());
                    tokio::spawn(async move {
                        let mut done = Vec::new();
                        loop {
                            let next = queue.lock().unwrap().next();
                            let Some((index, (tool, args))) = next else {
                                return done;
                            };
                            let Value::Object(args) = args else {
                                panic!("tool arguments must be a JSON object");
                            };
                            let params = CallToolRequestParams::new(tool).with_arguments(args);
                            let started = std::time::Instant::now();
                            let result = peer.call_tool(params).await.map_err(|e| e.to_string());
                            let elapsed = started.elapsed();
                            done.push((
                                index,
                                Timed {
                                    result,
                                    elapsed,
                                    caller,
                                },
                            ));
                        }
                    })
                })
                .collect();
            let mut results: Vec<Option<Timed>> = (0..total).map(|_| None).collect();
            for task in tasks {
                for (index, result) in task.await.expect("task") {
                    results[index] = Some(result);
                }
            }
            results
                .into_iter()
                .map(|r| r.expect("every call answered"))
                .collect()
        })
    }

    /// The structured result of a call that must succeed.
    pub fn ok(&self, tool: &str, args: Value) -> Value {
        let result = self.call(tool, args);
        assert_ne!(
            result.is_error,
            Some(true),
            "{tool} failed: {}",
            text_of(&result)
        );
        result
            .structured_content
            .unwrap_or_else(|| panic!("{tool} returned no structured content"))
    }

    /// The error text of a call that must fail as a tool error.
    pub fn err(&self, tool: &str, args: Value) -> String {
        let result = self.call(tool, args);
        assert_eq!(
            result.is_error,
            Some(true),
            "{tool} should have failed: {result:?}"
        );
        text_of(&result)
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        if let Some(client) = self.client.take() {
            let _ = self.runtime.block_on(client.cancel());
        }
    }
}

/// One call made by [`Mcp::call_in_parallel_timed`].
pub struct Timed {
    pub result: Result<CallToolResult, String>,
    pub elapsed: std::time::Duration,
    /// Which of the workers made it.
    pub caller: usize,
}

pub use zellij_mcp::commands::call::text_of;
