//! The MCP tools: one small function per tool, each calling one plugin op
//! through the shared [`PluginClient`].

use std::time::Duration;

use rmcp::handler::server::common::schema_for_type;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::IntoCallToolResult;
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, Implementation, JsonObject, ServerCapabilities,
    ServerConfig,
};
use rmcp::{tool, tool_handler, tool_router, ErrorData, Json, ServerHandler};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use zellij_mcp_protocol::ops::{
    names, ListPanesArgs, ListPanesResult, ReadArgs, ReadResult, WriteArgs, WriteResult,
    DEFAULT_SUBMIT_DELAY_MS,
};
use zellij_mcp_protocol::{ErrorBody, ErrorCode, PaneRef};

use crate::client::SharedClient;

/// A tool's arguments: the op's own, plus the session to act in.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct InSession<T> {
    /// Zellij session name. Default: --session / ZELLIJ_MCP_SESSION, else the
    /// session the bridge runs in, else the only live session.
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

type ToolResult<T> = Result<Json<T>, ToolFailure>;

/// Tool arguments, parsed here rather than by the router so that bad input is
/// a tool error the agent can read and fix, not a protocol error.
fn parse<T: DeserializeOwned>(args: JsonObject) -> Result<T, ToolFailure> {
    serde_json::from_value(serde_json::Value::Object(args)).map_err(|e| {
        ToolFailure(
            ErrorBody::new(ErrorCode::BadRequest, format!("invalid arguments: {e}"))
                .with_hint("check the arguments against the tool's input schema"),
        )
    })
}

#[derive(Clone)]
pub struct ZellijMcp {
    client: SharedClient,
    /// The pane the bridge runs in, and its session (from ZELLIJ_PANE_ID / ZELLIJ_SESSION_NAME).
    own_pane: Option<(String, PaneRef)>,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl ZellijMcp {
    pub fn new(client: SharedClient, own_pane: Option<(String, PaneRef)>) -> Self {
        ZellijMcp {
            client,
            own_pane,
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        name = "zellij_list_panes",
        description = "List every pane of a Zellij session, in all tabs: pane_id (terminal_N / plugin_N), \
            tab_id, tab_name, title, command, exited, exit_status, held, focused, floating, geometry, and \
            is_self (the pane this server runs in). Acts on: the session. Focus: never moves. State after: \
            unchanged (read-only). Call this first to get pane ids; do not guess ids. Precondition: the \
            session runs the zellij-mcp plugin (its layout loads it).",
        input_schema = schema_for_type::<InSession<ListPanesArgs>>(),
        output_schema = schema_for_type::<ListPanesResult>(),
        annotations(title = "List panes", read_only_hint = true, open_world_hint = false)
    )]
    async fn list_panes(&self, args: JsonObject) -> ToolResult<ListPanesResult> {
        let p: InSession<ListPanesArgs> = parse(args)?;
        let (session, mut result): (String, ListPanesResult) = self
            .call(p.session, names::LIST_PANES, &p.args, None)
            .await?;
        for pane in &mut result.panes {
            pane.is_self = self.own_pane.as_ref() == Some(&(session.clone(), pane.pane_id));
        }
        result.session = session;
        Ok(Json(result))
    }

    #[tool(
        name = "zellij_read",
        description = "Read a pane's text by pane_id: the visible screen (default) or, with full: true, the \
            whole scrollback. Plain text without colours; trailing blank padding removed; only the last \
            max_bytes (default 65536) are kept, with truncated: true when earlier text was dropped. Acts on: \
            one pane. Focus: never moves. State after: unchanged (read-only). Do not poll this in a tight \
            loop to wait for output; leave a short pause between reads. Precondition: pane_id from \
            zellij_list_panes.",
        input_schema = schema_for_type::<InSession<ReadArgs>>(),
        output_schema = schema_for_type::<ReadResult>(),
        annotations(title = "Read a pane", read_only_hint = true, open_world_hint = false)
    )]
    async fn read(&self, args: JsonObject) -> ToolResult<ReadResult> {
        let p: InSession<ReadArgs> = parse(args)?;
        let (session, mut result): (String, ReadResult) =
            self.call(p.session, names::READ, &p.args, None).await?;
        result.session = session;
        Ok(Json(result))
    }

    #[tool(
        name = "zellij_write",
        description = "Type into a terminal pane by pane_id, without focusing it: `text` as is, then `keys` \
            by name (Enter, Tab, Esc, Backspace, Up/Down/Left/Right, Home, End, PageUp, PageDown, F1-F12, \
            'Ctrl c', 'Alt b'). submit: true then sends a lone Enter (CR) after submit_delay_ms (default \
            150), which TUIs like Claude Code, Codex and other Ink apps need to accept the text; the call \
            returns after that Enter. Writes to one pane are applied in order, never interleaved. Acts on: \
            one terminal pane. Focus: never moves. State after: the pane has received the bytes; returns \
            pane_id, tab_id, session. Do not add \\r or \\n to text when using submit (that would submit \
            twice), and do not write again before reading the result when the program may still be busy. \
            Preconditions: a terminal_N pane from zellij_list_panes; text at most 262144 bytes.",
        input_schema = schema_for_type::<InSession<WriteArgs>>(),
        output_schema = schema_for_type::<WriteResult>(),
        annotations(
            title = "Type into a pane",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn write(&self, args: JsonObject) -> ToolResult<WriteResult> {
        let p: InSession<WriteArgs> = parse(args)?;
        // A submit waits for its CR, and maybe for earlier writes to the pane.
        let delay = match p.args.submit {
            true => 2 * p.args.submit_delay_ms.unwrap_or(DEFAULT_SUBMIT_DELAY_MS),
            false => 0,
        };
        let (session, mut result): (String, WriteResult) = self
            .call(
                p.session,
                names::WRITE,
                &p.args,
                Some(Duration::from_millis(delay)),
            )
            .await?;
        result.session = session;
        Ok(Json(result))
    }

    /// One op through the shared client; `extra` lengthens the timeout for ops
    /// that wait on purpose.
    async fn call<A: serde::Serialize, R: serde::de::DeserializeOwned>(
        &self,
        session: Option<String>,
        op: &str,
        args: &A,
        extra: Option<Duration>,
    ) -> Result<(String, R), ToolFailure> {
        let timeout = self.client.default_timeout() + extra.unwrap_or_default();
        Ok(self
            .client
            .call(session.as_deref(), op, args, timeout)
            .await?)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for ZellijMcp {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.server_info = Implementation::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"));
        info.instructions = Some(
            "Drive a live Zellij terminal session by pane id. Start with zellij_list_panes; then \
             zellij_read and zellij_write act on panes by pane_id without moving the user's focus."
                .into(),
        );
        info
    }
}
