//! Tools that create, close, rename, focus and arrange panes and tabs.

use std::time::Duration;

use rmcp::model::JsonObject;
use rmcp::{tool, tool_router};
use zellij_mcp_protocol::ops::{
    names, ArrangePaneArgs, ArrangePaneResult, CloseArgs, CloseResult, NewPaneArgs, NewTabArgs,
    NewTabResult, OpenFileArgs, PaneResult, RenameArgs, Target, TargetResult,
};

use super::schema::{input, output};
use super::{parse, paths, InSession, ToolResult, ZellijMcp};

#[tool_router(router = pane_tools, vis = "pub(super)")]
impl ZellijMcp {
    #[tool(
        name = "zellij_new_tab",
        description = "Create a tab (name, cwd, optional layout: KDL, a layout name or a .kdl path). \
            Focus: none; created in the background unless focus: true. After: returns tab_id and its \
            pane_ids. Don't create a tab per command; use zellij_run. Needs: cwd must exist.",
        input_schema = input::<NewTabArgs>(),
        output_schema = output::<NewTabResult>(),
        annotations(title = "New tab", read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = false)
    )]
    async fn new_tab(&self, args: JsonObject) -> ToolResult<NewTabResult> {
        let mut p: InSession<NewTabArgs> = parse(args)?;
        p.args.cwd = paths::cwd(p.args.cwd)?;
        p.args.layout = p.args.layout.map(paths::layout).transpose()?;
        self.send(p.session, names::NEW_TAB, &p.args, Duration::ZERO).await
    }

    #[tool(
        name = "zellij_new_pane",
        description = "Open a pane in a tab (default: the caller's tab, else the active one), running \
            command (argv) or a shell, with cwd and name. placement: tiled (default), floating, or \
            background (hidden). Focus: none unless focus: true. After: returns pane_id, tab_id, \
            session. To run a command and get its exit code use zellij_run instead. Needs: cwd must \
            exist.",
        input_schema = input::<NewPaneArgs>(),
        output_schema = output::<PaneResult>(),
        annotations(title = "New pane", read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = false)
    )]
    async fn new_pane(&self, args: JsonObject) -> ToolResult<PaneResult> {
        let p: InSession<NewPaneArgs> = parse(args)?;
        let session = self.client.resolve_session(p.session.as_deref()).await?;
        let args = NewPaneArgs {
            cwd: paths::cwd(p.args.cwd)?,
            caller: self.own_pane_in(&session),
            ..p.args
        };
        self.send(Some(session), names::NEW_PANE, &args, Duration::ZERO).await
    }

    #[tool(
        name = "zellij_close",
        description = "Close a pane (pane_id) or a whole tab (tab), killing what runs there. \
            Destructive. Refuses this server's own pane or tab and the last tab unless force: true. \
            Focus: unchanged, unless the closed pane had it. After: returns what was closed. Don't use \
            the closed ids again.",
        input_schema = input::<CloseArgs>(),
        output_schema = output::<CloseResult>(),
        annotations(title = "Close pane or tab", read_only_hint = false, destructive_hint = true, idempotent_hint = false, open_world_hint = false)
    )]
    async fn close(&self, args: JsonObject) -> ToolResult<CloseResult> {
        let p: InSession<CloseArgs> = parse(args)?;
        let session = self.client.resolve_session(p.session.as_deref()).await?;
        let args = CloseArgs {
            caller: self.own_pane_in(&session),
            ..p.args
        };
        self.send(Some(session), names::CLOSE, &args, Duration::ZERO).await
    }

    #[tool(
        name = "zellij_rename",
        description = "Rename a pane (pane_id) or a tab (tab). Focus: never moves. After: returns the \
            new name and ids.",
        input_schema = input::<RenameArgs>(),
        output_schema = output::<TargetResult>(),
        annotations(title = "Rename", read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn rename(&self, args: JsonObject) -> ToolResult<TargetResult> {
        self.forward::<RenameArgs, _>(args, names::RENAME).await
    }

    #[tool(
        name = "zellij_focus",
        description = "The only tool that moves focus: to a pane (pane_id; a hidden pane is shown \
            floating) or a tab (tab). Every attached client can see the change; call it only when \
            the user asked. After: returns the focused ids.",
        input_schema = input::<Target>(),
        output_schema = output::<TargetResult>(),
        annotations(title = "Focus", read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn focus(&self, args: JsonObject) -> ToolResult<TargetResult> {
        self.forward::<Target, _>(args, names::FOCUS).await
    }

    #[tool(
        name = "zellij_arrange_pane",
        description = "Change a pane by pane_id: floating (true floats, false embeds), move_to_tab, \
            resize (direction, amount in steps; negative shrinks), fullscreen, pinned (floating only). \
            Focus: never moves, except fullscreen: true, which shows that pane in its tab. After: \
            returns floating, fullscreen and geometry.",
        input_schema = input::<ArrangePaneArgs>(),
        output_schema = output::<ArrangePaneResult>(),
        annotations(title = "Arrange pane", read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = false)
    )]
    async fn arrange_pane(&self, args: JsonObject) -> ToolResult<ArrangePaneResult> {
        self.forward::<ArrangePaneArgs, _>(args, names::ARRANGE_PANE).await
    }

    #[tool(
        name = "zellij_open_file",
        description = "Open path (at line) in the session's $EDITOR (else vi) in a new pane; tab and \
            placement as zellij_new_pane. Focus: none unless focus: true. After: returns pane_id; \
            the editor waits for a user. Needs: the file's folder exists.",
        input_schema = input::<OpenFileArgs>(),
        output_schema = output::<PaneResult>(),
        annotations(title = "Open file", read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = false)
    )]
    async fn open_file(&self, args: JsonObject) -> ToolResult<PaneResult> {
        let p: InSession<OpenFileArgs> = parse(args)?;
        let session = self.client.resolve_session(p.session.as_deref()).await?;
        let cwd = paths::cwd(p.args.cwd)?;
        let args = OpenFileArgs {
            path: paths::file(&p.args.path, cwd.as_deref())?,
            cwd,
            caller: self.own_pane_in(&session),
            ..p.args
        };
        self.send(Some(session), names::OPEN_FILE, &args, Duration::ZERO).await
    }
}
