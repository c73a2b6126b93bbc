//! The request plumbing every tool shares: pick the session, reach its plugin
//! over a transport, send one op, and turn the outcome into a result or a
//! typed error that says how to fix it.

use std::collections::HashMap;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::OnceCell;
use tracing::Instrument;
use zellij_mcp_protocol::limits;
use zellij_mcp_protocol::ops::{op, DescribeProgramsArgs, HelloArgs, HelloResult, Op, ReplayArgs};
use zellij_mcp_protocol::text::trim_rows;
use zellij_mcp_protocol::{Error, ErrorBody, PaneRef, Reply, Request};

use crate::setup::agent_file::{AgentFile, Checked};
use crate::transport::cli::CliTransport;
use crate::transport::sessions::{self, SessionDefaults};
use crate::transport::socket::SocketTransport;
use crate::transport::{CallError, Destination, Transport};
use zellij_mcp_protocol::agent_programs::{Programs, FILE_NAME};

/// How long to wait for the plugin to say hello before calling it not loaded.
const HELLO_TIMEOUT: Duration = Duration::from_secs(3);
/// How long a plugin that answered may take to be ready (its permissions
/// and the session's state come after it loads, later on a loaded machine).
const STARTING_WAIT: Duration = Duration::from_secs(10);
/// Pause before asking a plugin that is still starting again.
const HELLO_RETRY: Duration = Duration::from_millis(100);

/// Reads of a pane's rows made again when their connection is ended.
const ROW_READ_TRIES: usize = 5;
/// How long a request no instance of the plugin answered is looked after:
/// past the time another instance takes a lease whose holder went (3 s).
const NO_REPLY_PATIENCE: Duration = Duration::from_secs(5);
/// How often, meanwhile, the plugin is asked whether it took the request.
const NO_REPLY_ASK_EVERY: Duration = Duration::from_millis(250);

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TransportChoice {
    /// The socket when Zellij's socket contract folder exists, else the CLI.
    Auto,
    Socket,
    Cli,
}

#[derive(Debug, Clone)]
pub struct ClientConfig {
    pub transport: TransportChoice,
    pub zellij: PathBuf,
    /// Used when the plugin does not report its own URL.
    pub plugin_url: String,
    pub timeout: Duration,
    pub sessions: SessionDefaults,
    /// The person's agent descriptions, sent to each session's plugin
    /// (none: the plugin's are left as they are).
    pub agents_file: Option<PathBuf>,
}

/// How one request is sent: its id, how long to wait for the reply, and
/// the pane it comes from.
#[derive(Debug, Clone)]
pub struct Sending {
    pub id: String,
    pub timeout: Duration,
    pub caller: Option<PaneRef>,
}

impl Sending {
    /// Waits `extra` longer than usual (ops that wait on purpose).
    pub fn longer(mut self, extra: Duration) -> Self {
        self.timeout += extra;
        self
    }

    pub fn within(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    pub fn by_caller(mut self, caller: Option<PaneRef>) -> Self {
        self.caller = caller;
        self
    }
}

/// A session's transport and the plugin target learned from its hello.
struct Link {
    transport: Box<dyn Transport>,
    target: Destination,
    /// The session's Zellij server process.
    server_pid: u32,
    /// The digest of the person's descriptions the plugin holds.
    programs_digest: std::sync::Mutex<String>,
}

/// A session's link, made once by the first call that needs it; calls to
/// other sessions never wait for it.
type LinkCell = Arc<OnceCell<Arc<Link>>>;

/// The live sessions, and the transport to one: this machine's Zellij, or
/// a fake in tests.
pub trait Reach: Send + Sync {
    fn live<'a>(&'a self, config: &'a ClientConfig) -> SessionsFuture<'a>;
    fn connect(&self, config: &ClientConfig, session: &str) -> Box<dyn Transport>;
    /// A session failed: the next listing must not come from memory.
    fn forget_live(&self) {}
}

pub type SessionsFuture<'a> = Pin<Box<dyn Future<Output = Vec<String>> + Send + 'a>>;

/// This machine's Zellij: its session sockets, else its CLI.
#[derive(Default)]
struct ThisMachine {
    /// The socket folder's entries at the last probe, and which of them
    /// were live. A probe connects to every socket, which costs a server
    /// with a client attached about 10 ms of redrawing, so a call without
    /// `session` probes only when the folder's entries changed.
    probed: std::sync::Mutex<Option<(Vec<String>, Vec<String>)>>,
}

impl Reach for ThisMachine {
    fn live<'a>(&'a self, config: &'a ClientConfig) -> SessionsFuture<'a> {
        Box::pin(async move {
            let socket_dir = sessions::socket_dir();
            if !socket_dir.is_dir() {
                return sessions::live_sessions_from_cli(&config.zellij).await;
            }
            let sockets = sessions::socket_names(&socket_dir);
            if let Some((seen, live)) = self.probed.lock().unwrap().as_ref() {
                if *seen == sockets {
                    return live.clone();
                }
            }
            let live = sessions::live_sessions(&socket_dir).await;
            *self.probed.lock().unwrap() = Some((sockets, live.clone()));
            live
        })
    }

    fn forget_live(&self) {
        self.probed.lock().unwrap().take();
    }

    /// The transport the configuration asks for.
    fn connect(&self, config: &ClientConfig, session: &str) -> Box<dyn Transport> {
        let use_socket = match config.transport {
            TransportChoice::Socket => true,
            TransportChoice::Cli => false,
            TransportChoice::Auto => sessions::socket_dir().is_dir(),
        };
        if use_socket {
            Box::new(SocketTransport::new(sessions::socket_dir().join(session)))
        } else {
            Box::new(CliTransport::new(config.zellij.clone(), session.to_owned()))
        }
    }
}

pub struct PluginClient {
    config: ClientConfig,
    reach: Box<dyn Reach>,
    agent_file: Option<AgentFile>,
    links: std::sync::Mutex<HashMap<String, LinkCell>>,
    next_id: AtomicU64,
    id_prefix: String,
}

/// This client's request ids start `zmcp-<pid>.<n>-`: unique to the client,
/// even among several in one process (`serve --http` makes one per MCP
/// session). The plugin tells clients apart by it, and a request it has seen
/// by its id.
fn client_prefix() -> String {
    static CLIENTS: AtomicU64 = AtomicU64::new(1);
    let n = CLIENTS.fetch_add(1, Ordering::Relaxed);
    format!("zmcp-{}.{n}-", std::process::id())
}

impl PluginClient {
    pub fn new(config: ClientConfig) -> Self {
        Self::reaching(config, Box::<ThisMachine>::default())
    }

    /// A client whose sessions and transports come from `reach` (tests
    /// pass a fake plugin).
    pub fn reaching(config: ClientConfig, reach: Box<dyn Reach>) -> Self {
        PluginClient {
            agent_file: config.agents_file.clone().map(AgentFile::at),
            config,
            reach,
            links: Default::default(),
            next_id: AtomicU64::new(1),
            id_prefix: client_prefix(),
        }
    }

    /// A request to send: a new id, the default timeout, no caller.
    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    pub fn sending(&self) -> Sending {
        Sending {
            id: self.new_id(),
            timeout: self.config.timeout,
            caller: None,
        }
    }

    /// Runs op `O` in the session the caller means; returns the session's
    /// name and the result. Each call is one tracing span.
    pub async fn call<O: Op>(
        &self,
        session: Option<&str>,
        args: &O::Args,
        how: Sending,
    ) -> Result<(String, O::Result), ErrorBody> {
        let span = tracing::debug_span!(
            "call",
            op = O::NAME,
            id = %how.id,
            session = tracing::field::Empty,
            transport = tracing::field::Empty,
        );
        let started = std::time::Instant::now();
        let outcome = self
            .exchange::<O>(session, args, how)
            .instrument(span.clone())
            .await;
        let _entered = span.enter();
        match &outcome {
            Ok(_) => tracing::debug!(
                elapsed_ms = started.elapsed().as_millis() as u64,
                "answered"
            ),
            Err(e) => tracing::debug!(
                elapsed_ms = started.elapsed().as_millis() as u64,
                code = e.code.as_str(),
                "failed: {}",
                e.message
            ),
        }
        outcome
    }

    async fn exchange<O: Op>(
        &self,
        session: Option<&str>,
        args: &O::Args,
        how: Sending,
    ) -> Result<(String, O::Result), ErrorBody> {
        // Checked before anything else happens, the session lookup included.
        let request = Request::of::<O>(how.id, args)?.by_caller(how.caller);
        limits::check_request(&request)?;
        let session = self.resolve_session(session).await?;
        let span = tracing::Span::current();
        span.record("session", session.as_str());
        let link = self.link(&session).await?;
        span.record("transport", link.transport.kind());
        self.send_programs(&session, &link).await;
        let result = self
            .send::<O>(&session, &link, &request, how.timeout)
            .await?;
        Ok((session, result))
    }

    async fn send<O: Op>(
        &self,
        session: &str,
        link: &Link,
        request: &Request,
        timeout: Duration,
    ) -> Result<O::Result, ErrorBody> {
        let mut outcome = link.transport.call(request, &link.target, timeout).await;
        if outcome == Err(CallError::NoReply) {
            outcome = self.after_no_reply(link, request, timeout).await;
        }
        if matches!(outcome, Err(CallError::Transport(_))) {
            self.forget(session);
        }
        let value = outcome
            .map_err(|e| call_error(e, session, timeout))?
            .into_result()?;
        serde_json::from_value(value).map_err(|e| {
            ErrorBody::from(Error::Internal {
                problem: format!("unexpected reply from the plugin: {e}"),
                fix: Some("use the bridge and plugin from the same zellij-mcp release".into()),
            })
        })
    }

    /// No instance of the plugin answered `request`. When the acting one
    /// went with its client, none takes requests until another takes the
    /// lease. `replay` tells, once one acts, whether an instance took it:
    /// its reply, or `null` (none did), and then it is sent again. Still no
    /// answer: `reply_lost` when the plugin answers other requests (an
    /// instance took it, and went), else `NoReply`.
    async fn after_no_reply(
        &self,
        link: &Link,
        request: &Request,
        timeout: Duration,
    ) -> Result<Reply, CallError> {
        let deadline = tokio::time::Instant::now() + NO_REPLY_PATIENCE;
        let args = ReplayArgs {
            request_id: request.id.clone(),
        };
        while tokio::time::Instant::now() < deadline {
            tokio::time::sleep(NO_REPLY_ASK_EVERY).await;
            let replay = Request::of::<op::Replay>(self.new_id(), &args)
                .map_err(|e| CallError::Transport(e.message))?;
            let reply = match link.transport.call(&replay, &link.target, timeout).await {
                Err(CallError::NoReply) => continue,
                reply => reply?,
            };
            tracing::debug!("{} was not answered; its replay was", request.id);
            return match reply.into_result() {
                Ok(Value::Null) => link.transport.call(request, &link.target, timeout).await,
                Ok(earlier) => serde_json::from_value(earlier)
                    .map_err(|e| CallError::Transport(format!("a replay's reply: {e}"))),
                Err(error) => Ok(Reply::err(&request.id, error)),
            };
        }
        let hello = Request::of::<op::Hello>(self.new_id(), &HelloArgs::this_bridge())
            .map_err(|e| CallError::Transport(e.message))?;
        match link.transport.call(&hello, &link.target, HELLO_TIMEOUT).await {
            Ok(_) => Ok(Reply::err(
                &request.id,
                ErrorBody::from(Error::ReplyLost {
                    problem: "the plugin instance that took this request went with its client before it answered".into(),
                    fix: "look at the state it left (list or read) before sending it again".into(),
                }),
            )),
            Err(_) => Err(CallError::NoReply),
        }
    }

    /// The agent descriptions in force: the person's file over the
    /// built-in ones (the built-in ones alone while the file is wrong).
    pub fn programs(&self) -> Programs {
        let checked = self.agent_file.as_ref().map(AgentFile::now);
        match checked.as_deref() {
            Some(Checked::Good { text, .. }) => {
                Programs::with_file(text, FILE_NAME).unwrap_or_else(|_| Programs::built_in())
            }
            _ => Programs::built_in(),
        }
    }

    /// Sends the person's agent descriptions when the plugin holds others
    /// (a look at the file's metadata per call). A wrong file is not sent,
    /// and a failed send leaves the call to go on.
    async fn send_programs(&self, session: &str, link: &Link) {
        let Some(file) = &self.agent_file else {
            return;
        };
        let checked = file.now();
        let Some((text, digest)) = checked.to_send() else {
            return;
        };
        if *link.programs_digest.lock().unwrap() == digest {
            return;
        }
        let args = DescribeProgramsArgs {
            text: text.map(str::to_owned),
        };
        let sent = match Request::of::<op::DescribePrograms>(self.new_id(), &args) {
            Ok(request) => {
                let timeout = self.config.timeout;
                let sent = self.send::<op::DescribePrograms>(session, link, &request, timeout);
                sent.await.map(|_| ())
            }
            Err(error) => Err(error),
        };
        match sent {
            Ok(()) => tracing::info!(session, "sent {}", file.path().display()),
            Err(error) => tracing::warn!(session, "{} not sent: {error}", file.path().display()),
        }
        *link.programs_digest.lock().unwrap() = digest;
    }

    /// A pane's rows (scrollback, then screen) without padding, read by
    /// Zellij outside the plugin: the last `tail` rows, else all of them.
    pub async fn rows(
        &self,
        session: &str,
        pane: PaneRef,
        tail: Option<usize>,
    ) -> Result<Vec<String>, ErrorBody> {
        let link = self.link(session).await?;
        let timeout = self.config.timeout;
        let mut tries = 0;
        loop {
            // A read's own short connection can be ended by Zellij (a
            // client id reused while an older one is removed twice): a
            // read changes nothing, so it is made again.
            match link.transport.rows(pane, tail, timeout).await {
                Err(CallError::Transport(why)) if tries < ROW_READ_TRIES => {
                    tracing::debug!("reading {pane} again: {why}");
                    tries += 1;
                    tokio::time::sleep(Duration::from_millis(10 * tries as u64)).await;
                }
                read => {
                    return Ok(trim_rows(
                        read.map_err(|e| call_error(e, session, timeout))?,
                    ))
                }
            }
        }
    }

    /// Sends on `changed` each time Zellij says `pane` changed, until the
    /// pane closes or the subscription ends (see [`Transport::changes`]).
    pub async fn watch_changes(
        &self,
        session: &str,
        pane: PaneRef,
        changed: tokio::sync::mpsc::Sender<()>,
    ) -> Result<(), ErrorBody> {
        let link = self.link(session).await?;
        let timeout = self.config.timeout;
        link.transport
            .changes(pane, changed)
            .await
            .map_err(|e| call_error(e, session, timeout))
    }

    /// The transport a linked session uses (`socket` or `cli`).
    /// Where the session's plugin takes pipes: its URL and configuration.
    pub async fn destination(&self, session: &str) -> Result<Destination, ErrorBody> {
        Ok(self.link(session).await?.target.clone())
    }

    pub fn transport_of(&self, session: &str) -> Option<&'static str> {
        let cell = self.links.lock().unwrap().get(session).cloned()?;
        cell.get().map(|link| link.transport.kind())
    }

    /// The process id of the session's Zellij server.
    pub async fn server_pid(&self, session: &str) -> Result<u32, ErrorBody> {
        Ok(self.link(session).await?.server_pid)
    }

    fn forget(&self, session: &str) {
        self.links.lock().unwrap().remove(session);
        self.reach.forget_live();
    }

    /// Live sessions, and the one a call without `session` would use.
    pub async fn sessions(&self) -> (Vec<String>, Option<String>) {
        let live = self.live_sessions().await;
        let default = sessions::resolve(None, &self.config.sessions, &live).ok();
        (live, default)
    }

    async fn live_sessions(&self) -> Vec<String> {
        self.reach.live(&self.config).await
    }

    pub fn new_id(&self) -> String {
        format!(
            "{}{}",
            self.id_prefix,
            self.next_id.fetch_add(1, Ordering::Relaxed)
        )
    }

    pub async fn resolve_session(&self, requested: Option<&str>) -> Result<String, ErrorBody> {
        let defaults = &self.config.sessions;
        let named = requested
            .filter(|s| !s.is_empty())
            .or(defaults.configured.as_deref())
            .or(defaults.enclosing.as_deref());
        // A linked session needs no listing; if it has gone, its transport says so.
        if let Some(name) = named {
            if self.transport_of(name).is_some() {
                return Ok(name.to_owned());
            }
        }
        let live = self.live_sessions().await;
        sessions::resolve(requested, defaults, &live)
    }

    /// The session's link, made on first use: a transport plus a hello.
    async fn link(&self, session: &str) -> Result<Arc<Link>, ErrorBody> {
        let cell = self
            .links
            .lock()
            .unwrap()
            .entry(session.to_owned())
            .or_default()
            .clone();
        let made = cell.get_or_try_init(|| self.make_link(session)).await;
        made.cloned()
    }

    async fn make_link(&self, session: &str) -> Result<Arc<Link>, ErrorBody> {
        let transport = self.reach.connect(&self.config, session);
        let hello = self.hello(transport.as_ref(), session).await?;
        tracing::info!(
            session,
            transport = transport.kind(),
            plugin_url = ?hello.plugin_url,
            "connected to the zellij-mcp plugin"
        );
        let Some(url) = hello.plugin_url else {
            return Err(not_ready(session));
        };
        crate::server::private::keep_plugin_folder_private(&url);
        Ok(Arc::new(Link {
            transport,
            target: Destination::Plugin {
                url,
                configuration: hello.configuration,
            },
            server_pid: hello.zellij_pid,
            programs_digest: std::sync::Mutex::new(hello.programs_digest),
        }))
    }

    /// Asks every plugin in the session for ours: a broadcast never launches
    /// a plugin, so a missing plugin is an error here instead of a stray
    /// pane. A plugin that has not got the session state yet does not know
    /// its own URL; it is asked again (piping to a guessed URL could start a
    /// second copy).
    async fn hello(
        &self,
        transport: &dyn Transport,
        session: &str,
    ) -> Result<HelloResult, ErrorBody> {
        let started = tokio::time::Instant::now();
        let mut deadline = started + HELLO_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let hello = self.hello_once(transport, session, left).await?;
            if hello.ready && hello.plugin_url.is_some() {
                return Ok(hello);
            }
            // It answered: loaded, still starting.
            deadline = started + STARTING_WAIT;
            if tokio::time::Instant::now() + HELLO_RETRY >= deadline {
                return Err(not_ready(session));
            }
            tokio::time::sleep(HELLO_RETRY).await;
        }
    }

    async fn hello_once(
        &self,
        transport: &dyn Transport,
        session: &str,
        timeout: Duration,
    ) -> Result<HelloResult, ErrorBody> {
        let request = Request::of::<op::Hello>(self.new_id(), &HelloArgs::this_bridge())?;
        match transport.call(&request, &Destination::Broadcast, timeout).await {
            Ok(reply) => {
                let value = reply.into_result()?;
                serde_json::from_value(value).map_err(|e| {
                    ErrorBody::from(Error::Internal { problem: format!("unexpected hello from the plugin: {e}"), fix: Some("use the bridge and plugin from the same zellij-mcp release".into()) })
                })
            }
            Err(CallError::NoReply | CallError::Timeout) => Err(ErrorBody::from(Error::PluginNotLoaded { problem: format!("the zellij-mcp plugin is not loaded in session '{session}'"), fix: format!(
                "run `zellij-mcp setup` (every new session then loads the plugin) and start the session again, \
                 or load {} in it and grant its permissions; `zellij-mcp doctor` says what is missing",
                self.config.plugin_url
            ) })),
            Err(other) => Err(call_error(other, session, timeout)),
        }
    }
}

fn not_ready(session: &str) -> ErrorBody {
    ErrorBody::from(Error::NotReady {
        problem: format!("the zellij-mcp plugin in session '{session}' is still starting"),
    })
}

fn call_error(error: CallError, session: &str, timeout: Duration) -> ErrorBody {
    match error {
        CallError::NoReply => ErrorBody::from(Error::PluginNotLoaded {
            problem: format!("no zellij-mcp plugin answered in session '{session}'"),
            fix: "the plugin pane may have been closed; reload the zellij-mcp layout".into(),
        }),
        CallError::Timeout => ErrorBody::from(Error::Timeout {
            problem: format!(
                "no reply from the plugin in session '{session}' within {} ms",
                timeout.as_millis()
            ),
        }),
        CallError::Transport(why) => ErrorBody::from(Error::Transport {
            session: session.to_owned(),
            why,
        }),
        CallError::Refused(why) => ErrorBody::from(Error::PaneNotFound {
            problem: format!("Zellij could not read the pane: {why}"),
        }),
    }
}

/// Shared by tools: the plugin client behind an Arc.
pub type SharedClient = Arc<PluginClient>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::Carrier;
    use std::sync::atomic::AtomicUsize;
    use zellij_mcp_protocol::testing::hello;
    use zellij_mcp_protocol::ErrorCode;
    use zellij_mcp_protocol::Reply;

    /// A plugin that is still starting for its first `starting` hellos, and
    /// takes `delay` to answer each.
    struct Starting {
        hellos: AtomicUsize,
        starting: usize,
        delay: Duration,
    }

    impl Carrier for Arc<Starting> {
        const KIND: &'static str = "fake";

        async fn send(
            &self,
            request: &Request,
            _: &Destination,
            _: Duration,
        ) -> Result<Reply, CallError> {
            tokio::time::sleep(self.delay).await;
            let n = self.hellos.fetch_add(1, Ordering::SeqCst);
            let ready = n >= self.starting;
            let hello = hello(ready.then_some("file:/reported.wasm"));
            Ok(Reply::ok(&request.id, serde_json::to_value(hello).unwrap()))
        }

        async fn read_rows(&self, _: PaneRef, _: Option<usize>) -> Result<Vec<String>, CallError> {
            Ok(Vec::new())
        }
    }

    fn client(plugins: HashMap<&'static str, Arc<Starting>>) -> PluginClient {
        let config = ClientConfig {
            transport: TransportChoice::Auto,
            zellij: "zellij".into(),
            plugin_url: "file:/guessed.wasm".into(),
            timeout: Duration::from_secs(5),
            sessions: SessionDefaults::default(),
            agents_file: None,
        };
        PluginClient::reaching(config, Box::new(Plugins(plugins)))
    }

    struct Plugins(HashMap<&'static str, Arc<Starting>>);

    impl Reach for Plugins {
        fn live<'a>(&'a self, _: &'a ClientConfig) -> SessionsFuture<'a> {
            Box::pin(async { self.0.keys().map(|s| s.to_string()).collect() })
        }

        fn connect(&self, _: &ClientConfig, session: &str) -> Box<dyn Transport> {
            Box::new(self.0[session].clone())
        }
    }

    fn starting(starting: usize, delay_ms: u64) -> Arc<Starting> {
        Arc::new(Starting {
            hellos: AtomicUsize::new(0),
            starting,
            delay: Duration::from_millis(delay_ms),
        })
    }

    #[tokio::test]
    async fn a_plugin_still_starting_is_asked_again_and_its_url_never_guessed() {
        let plugin = starting(2, 0);
        let client = client(HashMap::from([("s", plugin.clone())]));
        let link = client.link("s").await.unwrap();
        let Destination::Plugin { url, .. } = &link.target else {
            panic!("no plugin target");
        };
        assert_eq!(url, "file:/reported.wasm");
        assert_eq!(plugin.hellos.load(Ordering::SeqCst), 3);
    }

    #[tokio::test]
    async fn a_plugin_that_never_gets_ready_is_not_ready_and_not_linked() {
        let client = client(HashMap::from([("s", starting(usize::MAX, 0))]));
        let error = client.link("s").await.err().unwrap();
        assert_eq!(error.code, ErrorCode::NotReady);
        assert_eq!(client.transport_of("s"), None);
    }

    #[tokio::test]
    async fn a_slow_session_does_not_hold_up_another() {
        let client = client(HashMap::from([
            ("slow", starting(0, 2_000)),
            ("fast", starting(0, 0)),
        ]));
        let started = tokio::time::Instant::now();
        let (slow, fast) = tokio::join!(client.link("slow"), async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            let linked = client.link("fast").await;
            (linked, started.elapsed())
        });
        assert!(slow.is_ok() && fast.0.is_ok());
        assert!(
            fast.1 < Duration::from_millis(1_000),
            "fast took {:?}",
            fast.1
        );
    }
}
