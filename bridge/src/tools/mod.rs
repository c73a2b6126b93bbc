//! The MCP tools: one small function per tool, each calling one plugin op
//! through the shared plumbing here.
//!
//! - [`session`]: sessions, tabs, panes, layout (read-only).
//! - [`panes`]: creating, closing, renaming, focusing, arranging.
//! - [`io`]: reading, writing, waiting, running, signalling.
//! - [`ask`]: a message to an agent, and its reply.
//! - [`in_shell`]: a command line run in a pane's own shell.
//! - [`scrollback`]: the work on whole scrollbacks that stays out of the plugin.
//! - [`resources`]: the session's event log as a resource, with subscriptions.
//! - [`tables`]: pane, tab, session and agent lists as text tables (a list
//!   tool's text, and what the commands for people print).

mod ask;
pub mod in_shell;
mod io;
mod panes;
mod paths;
mod policy;
mod relayed;
mod resources;
mod schema;
mod scrollback;
mod session;
pub mod tables;

use std::time::Duration;

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::{IntoCallToolResult, ToolCallContext};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams,
    ProgressNotificationParam, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities,
    ServerConfig, SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::{tool_handler, ErrorData, Json, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio_util::task::TaskTracker;
use zellij_mcp_protocol::ops::{op, CancelArgs, Op, ReplayArgs, RequestState, SendMessageResult};
use zellij_mcp_protocol::{Error, ErrorBody, ErrorCode, PaneRef};

use crate::processes::pane_state::LastListed;
use crate::server::own_pane::{OwnPane, Whereabouts};
use crate::transport::client::{Sending, SharedClient};
use policy::{Outcome, Policy};

/// A tool's arguments: the op's own, plus the session to act in.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct InSession<T> {
    // Not described in each tool's schema (it would cost every tool the
    // same words): the server's instructions say it once.
    #[serde(default)]
    pub session: Option<String>,
    #[serde(flatten)]
    pub args: T,
}

/// A failed call, reported to the agent as a tool error (`isError: true`)
/// whose text names the error code and the fix.
#[derive(Debug)]
pub struct ToolFailure(pub ErrorBody);

impl From<ErrorBody> for ToolFailure {
    fn from(body: ErrorBody) -> Self {
        ToolFailure(body)
    }
}

impl IntoCallToolResult for ToolFailure {
    fn into_call_tool_result(self) -> Result<CallToolResponse, ErrorData> {
        Ok(CallToolResult::error(vec![ContentBlock::text(self.0.to_string())]).into())
    }
}

/// A tool's result: the op's own, plus the session it belongs to (the
/// plugin does not know its session's name). Serialized without the fields
/// that have no value, so the output schemas need no `null` type (see
/// [`schema::output`]).
#[derive(Debug, JsonSchema)]
pub struct FromSession<R> {
    #[serde(default)]
    pub session: String,
    #[serde(flatten)]
    pub result: R,
}

impl<R: Serialize> Serialize for FromSession<R> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut value = serde_json::to_value(&self.result).map_err(serde::ser::Error::custom)?;
        drop_nulls(&mut value);
        if let serde_json::Value::Object(fields) = &mut value {
            fields.insert("session".into(), self.session.clone().into());
        }
        value.serialize(serializer)
    }
}

/// Removes the members whose value is `null`, at every depth.
fn drop_nulls(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(fields) => {
            fields.retain(|_, v| !v.is_null());
            fields.values_mut().for_each(drop_nulls);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(drop_nulls),
        _ => {}
    }
}

type ToolResult<R> = Result<Json<FromSession<R>>, ToolFailure>;

/// A list's result: structured as any other, its text the list as a table
/// (see [`tables`]) rather than the same JSON again.
pub struct Tabled<R> {
    tool: &'static str,
    result: FromSession<R>,
}

impl<R: Serialize> IntoCallToolResult for Tabled<R> {
    fn into_call_tool_result(self) -> Result<CallToolResponse, ErrorData> {
        let value = serde_json::to_value(&self.result)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let text = tables::of(self.tool, &value).unwrap_or_else(|| value.to_string());
        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
        result.structured_content = Some(value);
        Ok(result.into())
    }
}

fn in_session<R>((session, result): (String, R)) -> Json<FromSession<R>> {
    Json(FromSession { session, result })
}

/// Tool arguments, parsed here rather than by the router so that bad input is
/// a tool error the agent can read and fix, not a protocol error.
fn parse<T: DeserializeOwned>(args: JsonObject) -> Result<T, ToolFailure> {
    serde_json::from_value(serde_json::Value::Object(args)).map_err(|e| {
        ToolFailure(ErrorBody::from(Error::BadRequest {
            problem: format!("invalid arguments: {e}"),
            fix: "check the arguments against the tool's input schema".into(),
        }))
    })
}

fn bad_request(message: impl Into<String>, hint: impl Into<String>) -> ToolFailure {
    ToolFailure(ErrorBody::from(Error::BadRequest {
        problem: message.into(),
        fix: hint.into(),
    }))
}

#[derive(Clone)]
pub struct ZellijMcp {
    client: SharedClient,
    /// The pane the bridge runs in.
    own_pane: Arc<OwnPane>,
    policy: Arc<Policy>,
    tool_router: ToolRouter<Self>,
    subscriptions: Arc<resources::Subscriptions>,
    /// What each session's last pane list showed (see [`LastListed`]).
    last_listed: Arc<LastListed>,
    /// The shell panes' processes runs found (see [`in_shell::ShellPids`]).
    shell_pids: Arc<in_shell::ShellPids>,
    /// Work a call leaves running after its answer (a run's release).
    background: TaskTracker,
}

/// How the server is run.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Only tools that change nothing are listed and callable.
    pub read_only: bool,
    /// Where each call of a tool that changes something is recorded.
    pub audit_log: Option<PathBuf>,
}

impl ZellijMcp {
    pub fn new(
        client: SharedClient,
        own_pane: OwnPane,
        options: &Options,
    ) -> std::io::Result<Self> {
        let mut tool_router =
            Self::session_tools() + Self::pane_tools() + Self::io_tools() + Self::ask_tools();
        let policy = Policy::new(
            &tool_router.list_all(),
            options.read_only,
            options.audit_log.as_deref(),
        )?;
        for hidden in policy.hidden() {
            tool_router.remove_route(hidden);
        }
        Ok(ZellijMcp {
            client,
            own_pane: Arc::new(own_pane),
            policy: Arc::new(policy),
            tool_router,
            subscriptions: Arc::default(),
            last_listed: Arc::default(),
            shell_pids: Arc::default(),
            background: TaskTracker::new(),
        })
    }

    /// Waits for the work calls left running after their answers: a
    /// process that ends after one call (`zellij-mcp call`) waits first.
    pub async fn settle(&self) {
        self.background.close();
        self.background.wait().await;
    }

    /// The bridge's own pane, when it runs inside `session`.
    async fn own_pane_in(&self, session: &str) -> Option<PaneRef> {
        self.own_pane.in_session(&self.client, session).await
    }

    /// For tools that may act on this server's own pane: the plugin
    /// refuses the caller's own pane unless `force`, which it can only do
    /// when it is told that pane. Running in the session without knowing
    /// which pane is refused here, unless `force`.
    async fn guard_own_pane(&self, session: &str, force: bool) -> Result<(), ToolFailure> {
        let whereabouts = self.own_pane.whereabouts(&self.client, session).await;
        if force || whereabouts != Whereabouts::Unknown {
            return Ok(());
        }
        Err(ToolFailure(
            ErrorBody::from(Error::PermissionDenied { problem: format!(
                    "this server cannot tell which pane of session '{session}' is its own, if any \
                     (it may run in one), so it cannot keep from acting on itself"
                ), fix: "start the server from the agent's pane with ZELLIJ_PANE_ID set, or pass force: true".into() }),
        ))
    }

    /// A tool's arguments and session, once [`Self::guard_own_pane`]
    /// lets it through.
    async fn guarded<T: DeserializeOwned>(
        &self,
        args: JsonObject,
        force: fn(&T) -> bool,
    ) -> Result<(String, T), ToolFailure> {
        let p: InSession<T> = parse(args)?;
        let session = self.client.resolve_session(p.session.as_deref()).await?;
        self.guard_own_pane(&session, force(&p.args)).await?;
        Ok((session, p.args))
    }

    /// The common tool: parse, send one op, name the session in the result.
    async fn forward<O: Op>(&self, args: JsonObject) -> ToolResult<O::Result> {
        let p: InSession<O::Args> = parse(args)?;
        self.send::<O>(p.session.as_deref(), &p.args, Duration::ZERO)
            .await
    }

    /// One op from this server's pane, in the session the caller means;
    /// `extra` lengthens the timeout for ops that wait on purpose.
    async fn send<O: Op>(
        &self,
        session: Option<&str>,
        args: &O::Args,
        extra: Duration,
    ) -> ToolResult<O::Result> {
        let session = self.client.resolve_session(session).await?;
        let how = self.sending(&session).await.longer(extra);
        let sent = self.client.call::<O>(Some(&session), args, how).await?;
        Ok(in_session(sent))
    }

    /// A request from this server's pane in `session`.
    async fn sending(&self, session: &str) -> Sending {
        let caller = self.own_pane_in(session).await;
        self.client.sending().by_caller(caller)
    }

    /// Sends an op that waits on purpose, `extra` longer than others, under
    /// a new request id that `on` notes (so a cancel can name it).
    async fn send_noted<O: Op>(
        &self,
        session: &str,
        args: &O::Args,
        extra: Duration,
        on: &OnRequest,
    ) -> Result<(String, O::Result), ErrorBody> {
        let how = self.sending(session).await.longer(extra);
        *on.0.lock().unwrap() = how.id.clone();
        self.client.call::<O>(Some(session), args, how).await
    }

    /// Runs `work`, which waits on purpose: sends MCP progress every second
    /// while it runs and, when the client cancels, asks the plugin to end
    /// the request `work` is on.
    async fn waiting<T>(
        &self,
        session: &str,
        op: &str,
        on: &OnRequest,
        context: &RequestContext<RoleServer>,
        work: impl std::future::Future<Output = Result<T, ErrorBody>>,
    ) -> Result<T, ToolFailure> {
        tokio::pin!(work);
        let started = tokio::time::Instant::now();
        let mut ticks = tokio::time::interval(Duration::from_secs(1));
        ticks.tick().await;
        let mut checks = tokio::time::interval(STILL_THERE_EVERY);
        checks.tick().await;
        let mut missing = 0;
        loop {
            tokio::select! {
                outcome = &mut work => return Ok(outcome?),
                _ = checks.tick() => {
                    missing = match self.plugin_has(session, on).await {
                        false => missing + 1,
                        true => 0,
                    };
                    // A few times over: a check can overtake its request, and
                    // the lease can take a moment to pass to another instance.
                    if missing >= CHECKS_BEFORE_GIVING_UP {
                        return Err(ToolFailure(ErrorBody::from(Error::ReplyLost { problem: format!("the zellij-mcp plugin no longer has this {op} (it was reloaded, or stopped answering)"), fix: "call the tool again; if the plugin does not answer, reload the zellij-mcp layout".into() })));
                    }
                }
                _ = context.ct.cancelled() => return Err(self.cancel_in_plugin(session, on).await),
                _ = ticks.tick() => progress(context, op, started.elapsed()).await,
            }
        }
    }

    /// The client cancelled a waiting tool: the plugin ends the request too.
    async fn cancel_in_plugin(&self, session: &str, on: &OnRequest) -> ToolFailure {
        let id = on.0.lock().unwrap().clone();
        let cancel = CancelArgs { request_id: id };
        let how = self.client.sending();
        let ended = self.client.call::<op::Cancel>(Some(session), &cancel, how);
        let ended = ended.await;
        tracing::debug!(?ended, "cancelled {}", cancel.request_id);
        ToolFailure(Error::Cancelled.into())
    }
}

impl ZellijMcp {
    /// `zellij_send_message` from a shell (`zellij-mcp notify`), under the
    /// same policy as a call through MCP: refused when read-only, and
    /// recorded in the audit log.
    pub async fn notify(&self, arguments: JsonObject) -> Result<SendMessageResult, ErrorBody> {
        const TOOL: &str = "zellij_send_message";
        let audit = self.policy.audit_call(TOOL, arguments.clone());
        let outcome = match self.policy.refusal(TOOL) {
            Some(refusal) => Err(refusal),
            None => self
                .send_message(arguments)
                .await
                .map(|Json(sent)| sent)
                .map_err(|ToolFailure(e)| e),
        };
        if let Some(audit) = audit {
            let done = outcome.as_ref().map(|sent| json!(sent));
            self.policy.record(audit, &Outcome::Done(done));
        }
        outcome.map(|sent| sent.result)
    }
}

/// Tells a client that asked for progress how long `op` has waited.
async fn progress(context: &RequestContext<RoleServer>, op: &str, waited: Duration) {
    if let Some(token) = context.meta.get_progress_token() {
        let waited = waited.as_secs_f64();
        let note = ProgressNotificationParam::new(token, waited)
            .with_message(format!("{op}: waited {waited:.0} s"));
        let _ = context.peer.notify_progress(note).await;
    }
}

/// How often a waiting tool checks that the plugin still has its request,
/// and how many checks in a row must say no before the tool gives up.
const STILL_THERE_EVERY: Duration = Duration::from_secs(2);
const CHECKS_BEFORE_GIVING_UP: u32 = 3;

impl ZellijMcp {
    /// Whether the plugin still knows the request a waiting tool is on: a
    /// reloaded plugin forgets it and never answers. No answer at all counts
    /// as no; an error from the bridge's side (the session) as yes, since
    /// the call itself will see it.
    async fn plugin_has(&self, session: &str, on: &OnRequest) -> bool {
        let id = on.0.lock().unwrap().clone();
        // A tool whose requests are each short (`ask` follows a turn with
        // many) is on none between them: each of its calls has its own
        // timeout.
        if id.is_empty() {
            return true;
        }
        let args = ReplayArgs { request_id: id };
        let how = self.client.sending().within(STILL_THERE_EVERY);
        let status = self
            .client
            .call::<op::Status>(Some(session), &args, how)
            .await;
        tracing::debug!(?status, "is {} still there", args.request_id);
        match status {
            Ok((_, status)) => status.state != RequestState::Unknown,
            // Gone: the plugin lost it (`reply_lost` when an instance took
            // it and went).
            Err(e) => !matches!(
                e.code,
                ErrorCode::Timeout | ErrorCode::PluginNotLoaded | ErrorCode::ReplyLost
            ),
        }
    }
}

/// The request a waiting tool is on now; it may send several in turn.
#[derive(Default)]
pub struct OnRequest(std::sync::Mutex<String>);

#[tool_handler(router = self.tool_router)]
impl ServerHandler for ZellijMcp {
    /// Every call passes the policy (read-only mode, the audit log).
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let audit = self.policy.audit(&request);
        if let Some(refusal) = self.policy.refusal(&request.name) {
            if let Some(audit) = audit {
                self.policy.record(audit, &Outcome::Refused(&refusal));
            }
            return ToolFailure(refusal).into_call_tool_result();
        }
        let call = ToolCallContext::new(self, request, context);
        let response = self.tool_router.call(call).await;
        if let Some(audit) = audit {
            self.policy.record(audit, &Outcome::Response(&response));
        }
        response
    }

    async fn list_resources(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(
            self.event_resources().await,
        ))
    }

    async fn list_resource_templates(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            Self::event_template(),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        Ok(self.read_event_resource(&request.uri).await?.into())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscribe_events(request.uri, context.peer).await
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.unsubscribe_events(&request.uri);
        Ok(())
    }

    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_resources_subscribe()
            .build();
        let mut info = ServerConfig::new(capabilities);
        info.server_info = Implementation::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"));
        info.instructions = Some(
            "Drive a live Zellij session by pane id without moving the user's focus. Start with \
             zellij_list_panes (or zellij_session_info); act on panes by pane_id. Only zellij_focus \
             moves focus. Pane ids are terminal_N or plugin_N; a tab is its tab_id or its name. \
             Every tool takes an optional `session`; without it, the tool acts in the session \
             this server runs in (or the one configured, or the only one)."
                .into(),
        );
        info
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use zellij_mcp_protocol::ops::SendMessageResult;

    #[test]
    fn a_result_leaves_out_what_has_no_value_at_any_depth() {
        let sent = FromSession {
            session: "s".into(),
            result: SendMessageResult {
                seq: 3,
                status: zellij_mcp_protocol::ops::DeliveryStatus::Queued,
                attempts: 0,
                pane_id: None,
                from: "ci".into(),
                held_because: None,
            },
        };
        let value = serde_json::to_value(&sent).unwrap();
        assert_eq!(
            value,
            json!({"session": "s", "seq": 3, "status": "queued", "attempts": 0, "from": "ci"})
        );
        let mut nested = json!({"a": [{"b": null, "c": 1}], "d": null});
        drop_nulls(&mut nested);
        assert_eq!(nested, json!({"a": [{"c": 1}]}));
    }
}
