//! Tools that create, close, rename, focus and arrange panes and tabs.

use std::time::Duration;

use rmcp::model::JsonObject;
use rmcp::{tool, tool_router, Json};
use zellij_mcp_protocol::ops::{
    op, ArrangePaneArgs, ArrangePaneResult, CloseArgs, CloseResult, NewPaneArgs, NewPaneResult,
    NewTabArgs, NewTabResult, OpenFileArgs, PaneResult, RegisterAgentArgs, RenameArgs, Target,
    TargetResult, NEW_TAB_SHOWN_WITHIN,
};

use super::relayed::recording_place;
use super::schema::{input, output_in_session as output};
use super::{parse, paths, FromSession, InSession, ToolResult, ZellijMcp};

#[tool_router(router = pane_tools, vis = "pub(super)")]
impl ZellijMcp {
    #[tool(
        name = "zellij_new_tab",
        description = "Create a tab, from a layout if given. On: the session. Focus: none unless focus: true. After: the tab exists. Don't: make a tab per command (use zellij_run). Needs: cwd exists.",
        input_schema = input::<NewTabArgs>(),
        output_schema = output::<NewTabResult>(),
        annotations(destructive_hint = false, open_world_hint = false)
    )]
    async fn new_tab(&self, args: JsonObject) -> ToolResult<NewTabResult> {
        let mut p: InSession<NewTabArgs> = parse(args)?;
        p.args.cwd = paths::cwd(p.args.cwd)?;
        p.args.layout = p.args.layout.map(paths::layout).transpose()?;
        // Zellij may take seconds to show a tab from a layout.
        self.send::<op::NewTab>(p.session.as_deref(), &p.args, NEW_TAB_SHOWN_WITHIN)
            .await
    }

    #[tool(
        name = "zellij_new_pane",
        description = "Open a pane running a command or a shell. On: a tab. Focus: none unless focus: true. After: the pane runs. Don't: use it for exit codes (zellij_run). Needs: cwd exists.",
        input_schema = input::<NewPaneArgs>(),
        output_schema = output::<NewPaneResult>(),
        annotations(destructive_hint = false, open_world_hint = false)
    )]
    async fn new_pane(&self, args: JsonObject) -> ToolResult<NewPaneResult> {
        let p: InSession<NewPaneArgs> = parse(args)?;
        let cwd = paths::cwd(p.args.cwd.clone())?;
        let session = self.client.resolve_session(p.session.as_deref()).await?;
        let (command, relay) = (p.args.command.is_some(), p.args.relay);
        let record_to = recording_place(&session, p.args.record, command, relay)?;
        let args = NewPaneArgs {
            cwd,
            record_to: record_to.clone(),
            ..p.args
        };
        let Json(opened) = self
            .send::<op::NewPane>(Some(&session), &args, Duration::ZERO)
            .await?;
        let result = NewPaneResult {
            pane: opened.result,
            recording: record_to,
        };
        Ok(Json(FromSession {
            session: opened.session,
            result,
        }))
    }

    #[tool(
        name = "zellij_register_agent",
        description = "Name this server's own pane as an agent others can address (main.auth's parent is main). On: this server's pane. Focus: none. After: named until the pane closes. Don't: take a live pane's name. Needs: to run in a pane of the session.",
        input_schema = input::<RegisterAgentArgs>(),
        output_schema = output::<TargetResult>(),
        annotations(destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn register_agent(&self, args: JsonObject) -> ToolResult<TargetResult> {
        self.forward::<op::RegisterAgent>(args).await
    }

    #[tool(
        name = "zellij_close",
        description = "Close a pane or a whole tab, killing what runs there. On: pane_id or tab. Focus: unchanged unless the closed pane had it. After: returns what was closed. Don't: reuse closed ids. Needs: not its own pane or tab, nor the last tab (or force).",
        input_schema = input::<CloseArgs>(),
        output_schema = output::<CloseResult>(),
        annotations(destructive_hint = true, open_world_hint = false)
    )]
    async fn close(&self, args: JsonObject) -> ToolResult<CloseResult> {
        let (session, args) = self.guarded(args, |a: &CloseArgs| a.force).await?;
        self.send::<op::Close>(Some(&session), &args, Duration::ZERO)
            .await
    }

    #[tool(
        name = "zellij_rename",
        description = "Rename a pane or a tab. On: pane_id or tab. Focus: none. After: the new name shows. Don't: rename to find panes later; keep the ids. Needs: a non-empty name.",
        input_schema = input::<RenameArgs>(),
        output_schema = output::<TargetResult>(),
        annotations(destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn rename(&self, args: JsonObject) -> ToolResult<TargetResult> {
        self.forward::<op::Rename>(args).await
    }

    #[tool(
        name = "zellij_focus",
        description = "Move focus to a pane (a hidden one is shown floating) or a tab. On: pane_id or tab. Focus: moves, for every attached client; the only tool that does. After: it has focus. Don't: call it unless the user asked. Needs: a selectable pane.",
        input_schema = input::<Target>(),
        output_schema = output::<TargetResult>(),
        annotations(destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn focus(&self, args: JsonObject) -> ToolResult<TargetResult> {
        self.forward::<op::Focus>(args).await
    }

    #[tool(
        name = "zellij_arrange_pane",
        description = "Float or embed, move to a tab, resize, fullscreen or pin a pane. On: pane_id. Focus: none, but fullscreen shows it in its tab. After: moved or resized. Don't: resize in a loop. Needs: a terminal pane, not its own (or force).",
        input_schema = input::<ArrangePaneArgs>(),
        output_schema = output::<ArrangePaneResult>(),
        annotations(destructive_hint = false, open_world_hint = false)
    )]
    async fn arrange_pane(&self, args: JsonObject) -> ToolResult<ArrangePaneResult> {
        let (session, args) = self.guarded(args, |a: &ArrangePaneArgs| a.force).await?;
        self.send::<op::ArrangePane>(Some(&session), &args, Duration::ZERO)
            .await
    }

    #[tool(
        name = "zellij_open_file",
        description = "Open path (at line) in the session's $EDITOR (else vi) in a new pane. On: a tab. Focus: none unless focus: true. After: the editor waits for the user. Don't: write into it to edit. Needs: the file's folder exists.",
        input_schema = input::<OpenFileArgs>(),
        output_schema = output::<PaneResult>(),
        annotations(destructive_hint = false, open_world_hint = false)
    )]
    async fn open_file(&self, args: JsonObject) -> ToolResult<PaneResult> {
        let p: InSession<OpenFileArgs> = parse(args)?;
        let cwd = paths::cwd(p.args.cwd)?;
        let args = OpenFileArgs {
            path: paths::file(&p.args.path, cwd.as_deref())?,
            cwd,
            ..p.args
        };
        self.send::<op::OpenFile>(p.session.as_deref(), &args, Duration::ZERO)
            .await
    }
}
