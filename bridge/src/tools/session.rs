//! Read-only tools: sessions, tabs, panes and layout.

use rmcp::model::JsonObject;
use rmcp::{tool, tool_router, Json};
use std::time::Duration;

use zellij_mcp_protocol::ops::{
    op, DumpLayoutArgs, DumpLayoutResult, ListPanesArgs, ListPanesResult, ListSessionsResult,
    ListTabsResult, NoArgs, SessionEntry, SessionInfoResult,
};

use super::schema::{input, output, output_in_session};
use super::{parse, InSession, Tabled, ToolFailure, ToolResult, ZellijMcp};
use crate::processes::pane_state::pane_state;

#[tool_router(router = session_tools, vis = "pub(super)")]
impl ZellijMcp {
    #[tool(
        name = "zellij_session_info",
        description = "The session's versions, clients and waits, and this server's own pane. On: the session. Focus: none. After: unchanged. Don't: poll it. Needs: the plugin.",
        input_schema = input::<NoArgs>(),
        output_schema = output_in_session::<SessionInfoResult>(),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn session_info(&self, args: JsonObject) -> ToolResult<SessionInfoResult> {
        let p: InSession<NoArgs> = parse(args)?;
        let Json(mut info) = self
            .send::<op::SessionInfo>(p.session.as_deref(), &p.args, Duration::ZERO)
            .await?;
        info.result.bridge_version = env!("CARGO_PKG_VERSION").to_owned();
        let transport = self.client.transport_of(&info.session);
        info.result.transport = transport.unwrap_or_default().to_owned();
        Ok(Json(info))
    }

    #[tool(
        name = "zellij_list_sessions",
        description = "Live sessions; default: used by calls without `session`; current: this server's. On: this machine. Focus: none. After: unchanged. Don't: guess session names. Needs: nothing.",
        input_schema = input::<NoArgs>(),
        output_schema = output::<ListSessionsResult>(),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn list_sessions(
        &self,
        args: JsonObject,
    ) -> Result<Json<ListSessionsResult>, ToolFailure> {
        let _: InSession<NoArgs> = parse(args)?;
        let (live, default) = self.client.sessions().await;
        let current = self.own_pane.session();
        let current = current.as_ref();
        let sessions = live
            .into_iter()
            .map(|name| SessionEntry {
                default: default.as_ref() == Some(&name),
                current: current == Some(&name),
                name,
            })
            .collect();
        Ok(Json(ListSessionsResult { sessions }))
    }

    #[tool(
        name = "zellij_list_tabs",
        description = "Every tab; tab_id is stable; counts and flags only when non-zero or true. On: the session. Focus: none. After: unchanged. Don't: address tabs by position. Needs: the plugin.",
        input_schema = input::<NoArgs>(),
        output_schema = output_in_session::<ListTabsResult>(),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn list_tabs(&self, args: JsonObject) -> ToolResult<ListTabsResult> {
        self.forward::<op::ListTabs>(args).await
    }

    #[tool(
        name = "zellij_list_panes",
        description = "Terminal panes of all tabs; flags only when true. Filters AND together. On: the session. Focus: none. After: unchanged. Don't: guess pane ids. Needs: the plugin.",
        input_schema = input::<ListPanesArgs>(),
        output_schema = output_in_session::<ListPanesResult>(),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn list_panes(&self, args: JsonObject) -> Result<Tabled<ListPanesResult>, ToolFailure> {
        let p: InSession<ListPanesArgs> = parse(args)?;
        let ahead = self.last_listed.read_ahead(p.session.as_deref());
        let Json(mut listed) = self
            .send::<op::ListPanes>(p.session.as_deref(), &p.args, Duration::ZERO)
            .await?;
        let mut ahead = ahead.await.unwrap_or_default();
        let own = self.own_pane_in(&listed.session).await;
        let mut told = Vec::new();
        for pane in &mut listed.result.panes {
            pane.is_self = Some(pane.pane_id) == own;
            if let (None, Some(pid)) = (pane.state, pane.pid) {
                pane.state = ahead.remove(&pid).unwrap_or_else(|| pane_state(Some(pid)));
                told.push(pid);
            }
            if !p.args.details {
                pane.pid = None;
            }
        }
        self.last_listed.remember(p.session.as_deref(), told);
        if let Some(state) = p.args.state {
            listed.result.panes.retain(|pane| pane.state == Some(state));
        }
        Ok(Tabled {
            tool: "zellij_list_panes",
            result: listed,
        })
    }

    #[tool(
        name = "zellij_dump_layout",
        description = "The session's layout as KDL, or one tab's. On: the session or a tab. Focus: none. After: unchanged. Don't: feed it whole to zellij_new_tab (it holds every tab). Needs: the plugin.",
        input_schema = input::<DumpLayoutArgs>(),
        output_schema = output_in_session::<DumpLayoutResult>(),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn dump_layout(&self, args: JsonObject) -> ToolResult<DumpLayoutResult> {
        self.forward::<op::DumpLayout>(args).await
    }
}
