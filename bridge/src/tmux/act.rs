//! One function per tmux verb, each a few plugin ops; what tmux would
//! print is returned, or tmux's error.

use std::collections::BTreeMap;

use zellij_mcp_protocol::agent_name::check_agent_name;
use zellij_mcp_protocol::keys::key_bytes;
use zellij_mcp_protocol::ops::{
    op, ArrangePaneArgs, CloseArgs, ListPanesArgs, NewPaneArgs, NewTabArgs, Opening, PaneEntry,
    Placement, ReadArgs, RegisterAgentArgs, RenameArgs, Target, WriteArgs,
};
use zellij_mcp_protocol::text::tail_capped;
use zellij_mcp_protocol::{PaneKind, PaneRef, TabRef};

use super::format::{expand, pane_variables, tmux_pane_id, window_variables};
use super::placeholder::{self, Spec};
use super::verbs::*;
use super::{Failure, Shim};

/// tmux's default `-F` for a new pane, and for lists.
const PANE_FORMAT: &str = "#{session_name}:#{window_index}.#{pane_index}";
const LIST_PANES_FORMAT: &str = "#{pane_index}: [#{pane_width}x#{pane_height}] #{pane_id}";
const LIST_WINDOWS_FORMAT: &str = "#{window_index}: #{window_name} (#{window_panes} panes)";

type Output = Result<String, Failure>;

/// The tab teammates open in (`zellij-mcp claude --tab`), else beside the
/// lead.
pub const TEAM_TAB: &str = "ZELLIJ_MCP_TEAM_TAB";

impl Shim<'_> {
    pub async fn act(&self, verb: Verb) -> Output {
        match verb {
            Verb::SplitWindow(a) => self.split_window(a).await,
            Verb::SelectPane(a) => self.select_pane(a).await,
            Verb::RespawnPane(a) => self.respawn_pane(a).await,
            Verb::DisplayMessage(a) => self.display_message(a).await,
            Verb::ListPanes(a) => self.list_panes(a).await,
            Verb::ListWindows(a) => self.list_windows(a).await,
            Verb::HasSession(a) => self.has_session(a),
            Verb::KillPane(a) => self.kill_pane(a).await,
            Verb::SendKeys(a) => self.send_keys(a).await,
            Verb::CapturePane(a) => self.capture_pane(a).await,
            Verb::NewWindow(a) => {
                let window = a.window;
                self.new_window(window.name, a.launch, window.printing)
                    .await
            }
            Verb::NewSession(a) => {
                let name = a.name.or(a.window_name);
                self.new_window(name, a.launch, a.printing).await
            }
            Verb::BreakPane(a) => self.break_pane(a).await,
            Verb::JoinPane(a) => self.join_pane(a).await,
            Verb::ShowOptions(a) => Ok(show_options(&a)),
            Verb::Styling(_) => Ok(String::new()),
        }
    }

    /// A new pane in the target's tab, running the command (or waiting, for
    /// `cat`) with the caller's environment and directory.
    /// In the team tab when `zellij-mcp claude --tab` named one.
    async fn split_window(&self, a: SplitWindow) -> Output {
        let target = self.pane(a.position.target.get())?;
        let beside = self.locate(target).await?.tab_id.map(TabRef::Id);
        let (tab, spare) = match std::env::var(TEAM_TAB) {
            Ok(name) if !name.is_empty() => self.team_tab(&name).await?,
            _ => (beside, Vec::new()),
        };
        let pane = self.open(tab, a.launch).await?;
        self.close_all_but(&spare, pane).await;
        self.printed(pane, a.printing).await
    }

    /// The tab named `name`, made when missing; a new tab's own panes, to
    /// close once a teammate is in it.
    async fn team_tab(&self, name: &str) -> Result<(Option<TabRef>, Vec<PaneRef>), Failure> {
        let tabs = self.call::<op::ListTabs>(&Default::default()).await?.tabs;
        if let Some(tab) = tabs.iter().find(|t| t.name == name) {
            return Ok((Some(TabRef::Id(tab.tab_id)), Vec::new()));
        }
        let tab = NewTabArgs {
            name: Some(name.to_owned()),
            ..Default::default()
        };
        let made = self.call::<op::NewTab>(&tab).await?;
        Ok((Some(TabRef::Id(made.tab_id)), made.pane_ids))
    }

    /// Opens a placeholder pane (see [`placeholder`]) in `tab`.
    async fn open(&self, tab: Option<TabRef>, launch: Launch) -> Result<PaneRef, Failure> {
        let spec = spec_of(launch, std::env::vars().collect(), current_dir);
        let folder = placeholder::folder(&self.session).map_err(io_failure)?;
        let spec_path = placeholder::write_spec(&folder, &spec).map_err(io_failure)?;
        let waits = placeholder::is_placeholder(&spec);
        let exe = std::env::current_exe().map_err(io_failure)?;
        let args = NewPaneArgs {
            command: Some(vec![
                exe.display().to_string(),
                "tmux-pane".into(),
                spec_path.display().to_string(),
            ]),
            cwd: Some(spec.cwd),
            at: Opening {
                tab,
                placement: Placement::Tiled,
                focus: false,
            },
            ..Default::default()
        };
        let pane = self.call::<op::NewPane>(&args).await?.pane_id;
        if waits {
            placeholder::until_waiting(&folder, pane.id).await;
        }
        Ok(pane)
    }

    /// What `-P` prints for `pane`: `-F`'s format, else tmux's default.
    async fn printed(&self, pane: PaneRef, printing: Printing) -> Output {
        if !printing.print {
            return Ok(String::new());
        }
        let format = printing.format.unwrap_or_else(|| PANE_FORMAT.into());
        let vars = match self.entry(pane).await? {
            Some((entry, index)) => pane_variables(&entry, &self.session, index),
            None => BTreeMap::from([("pane_id", tmux_pane_id(pane.id))]),
        };
        Ok(format!("{}\n", expand(&format, &vars)))
    }

    /// A pane as listed, with its index in its tab; `None` while a new pane
    /// is not listed yet.
    async fn entry(&self, pane: PaneRef) -> Result<Option<(PaneEntry, usize)>, Failure> {
        let panes = self.terminal_panes(None).await?;
        let found = panes.iter().find(|p| p.pane_id == pane).cloned();
        Ok(found.map(|entry| {
            let index = panes
                .iter()
                .filter(|p| p.tab_id == entry.tab_id)
                .position(|p| p.pane_id == pane)
                .unwrap_or_default();
            (entry, index)
        }))
    }

    /// The terminal panes, of one tab or of all.
    async fn terminal_panes(&self, tab: Option<usize>) -> Result<Vec<PaneEntry>, Failure> {
        let args = ListPanesArgs {
            tab: tab.map(TabRef::Id),
            details: true,
            ..Default::default()
        };
        let listed = self.call::<op::ListPanes>(&args).await?;
        let terminals = listed.panes.into_iter();
        Ok(terminals
            .filter(|p| p.pane_id.kind == PaneKind::Terminal)
            .collect())
    }

    /// A title (`-T`) names the pane and, when it is a valid agent name,
    /// registers it as that agent. Focus never moves.
    async fn select_pane(&self, a: SelectPane) -> Output {
        let pane = self.pane(a.target.get())?;
        let Some(title) = a.title else {
            self.locate(pane).await?;
            return Ok(String::new());
        };
        let rename = RenameArgs {
            target: pane_target(pane),
            name: title.clone(),
        };
        self.call::<op::Rename>(&rename).await?;
        if check_agent_name(&title).is_ok() {
            let register = RegisterAgentArgs {
                name: title,
                reads_lines: false,
            };
            if let Err(e) = self
                .call_as::<op::RegisterAgent>(&register, Some(pane))
                .await
            {
                tracing::warn!("{pane} keeps no agent name: {e}");
            }
        }
        Ok(String::new())
    }

    /// Hands the command to the pane's waiting placeholder: the pane keeps
    /// its id, as in tmux.
    async fn respawn_pane(&self, a: RespawnPane) -> Output {
        let pane = self.pane(a.target.get())?;
        self.locate(pane).await?;
        let spec = spec_of(a.launch, BTreeMap::new(), String::new);
        let folder = placeholder::folder(&self.session).map_err(io_failure)?;
        match placeholder::respawn(&folder, pane.id, &spec).map_err(io_failure)? {
            true => Ok(String::new()),
            false => Err(Failure(format!(
                "respawn pane failed: pane %{} still active (only a pane opened with `cat` by this shim can be respawned)",
                pane.id
            ))),
        }
    }

    async fn display_message(&self, a: DisplayMessage) -> Output {
        if !a.print {
            return Ok(String::new());
        }
        let pane = self.pane(a.target.get())?;
        self.locate(pane).await?;
        let vars = match self.entry(pane).await? {
            Some((entry, index)) => pane_variables(&entry, &self.session, index),
            None => BTreeMap::from([("pane_id", tmux_pane_id(pane.id))]),
        };
        Ok(format!("{}\n", expand(&a.message.join(" "), &vars)))
    }

    async fn list_panes(&self, a: ListPanes) -> Output {
        let tab = match a.listing.all || a.session {
            true => None,
            false => self.tab(a.listing.target.get()).await?,
        };
        let panes = self.terminal_panes(tab).await?;
        let format = a.listing.format.unwrap_or_else(|| LIST_PANES_FORMAT.into());
        let mut out = String::new();
        let mut index_in_tab = BTreeMap::new();
        for pane in &panes {
            let index = index_in_tab.entry(pane.tab_id).or_insert(0usize);
            let vars = pane_variables(pane, &self.session, *index);
            *index += 1;
            out.push_str(&expand(&format, &vars));
            out.push('\n');
        }
        Ok(out)
    }

    async fn list_windows(&self, a: Listing) -> Output {
        let tabs = self.call::<op::ListTabs>(&Default::default()).await?.tabs;
        let panes = self.terminal_panes(None).await?;
        let format = a.format.unwrap_or_else(|| LIST_WINDOWS_FORMAT.into());
        let mut out = String::new();
        for tab in tabs {
            let first = panes.iter().find(|p| p.tab_id == Some(tab.tab_id));
            let mut vars = first
                .map(|p| window_variables(p, &self.session))
                .unwrap_or_default();
            vars.extend([
                ("window_id", format!("@{}", tab.tab_id)),
                ("window_index", tab.position.to_string()),
                ("window_name", tab.name.clone()),
                ("window_active", u8::from(tab.active).to_string()),
                ("window_panes", tab.panes.to_string()),
                ("session_name", self.session.clone()),
            ]);
            out.push_str(&expand(&format, &vars));
            out.push('\n');
        }
        Ok(out)
    }

    /// The one session there is: the Zellij session the shim runs in.
    fn has_session(&self, a: TmuxTarget) -> Output {
        let name = a.get().unwrap_or_default();
        let name = name.trim_start_matches('=');
        let name = name.split(':').next().unwrap_or_default();
        match name.is_empty() || name == self.session {
            true => Ok(String::new()),
            false => Err(Failure(format!("can't find session: {name}"))),
        }
    }

    async fn kill_pane(&self, a: KillPane) -> Output {
        if a.all_but {
            return Err(Failure(
                "kill-pane -a is not supported by zellij-mcp tmux".into(),
            ));
        }
        let pane = self.pane(a.target.get())?;
        self.locate(pane).await?;
        let close = CloseArgs {
            target: pane_target(pane),
            force: false,
        };
        self.call::<op::Close>(&close).await?;
        Ok(String::new())
    }

    /// Each argument is a tmux key name or literal text (all text with
    /// `-l`), typed in order.
    async fn send_keys(&self, a: SendKeys) -> Output {
        let pane = self.pane(a.target.get())?;
        self.locate(pane).await?;
        for _ in 0..a.repeat.unwrap_or(1).max(1) {
            for key in &a.keys {
                let write = match (a.literal, zellij_key(key)) {
                    (false, Some(key)) => WriteArgs {
                        keys: vec![key],
                        ..write_to(pane)
                    },
                    _ => WriteArgs {
                        text: Some(key.clone()),
                        ..write_to(pane)
                    },
                };
                self.call::<op::Write>(&write).await?;
            }
        }
        Ok(String::new())
    }

    /// `-p` prints the screen, or with `-S -` (or a negative start) the
    /// scrollback too.
    async fn capture_pane(&self, a: CapturePane) -> Output {
        let pane = self.pane(a.target.get())?;
        self.locate(pane).await?;
        if !a.print {
            return Ok(String::new());
        }
        // The scrollback is read outside the plugin (see `tools::scrollback`).
        if a.start.as_deref().is_some_and(|s| s.starts_with('-')) {
            let rows = self.client.rows(&self.session, pane, None).await?;
            let (text, _) = tail_capped(rows.iter().map(String::as_str), usize::MAX);
            return Ok(format!("{text}\n"));
        }
        let read = ReadArgs::screen(pane);
        let text = self.call::<op::Read>(&read).await?.text;
        Ok(format!("{text}\n"))
    }

    /// A new tab (tmux window) with one pane: the command's, or a shell,
    /// with the caller's environment and directory.
    async fn new_window(&self, name: Option<String>, launch: Launch, printing: Printing) -> Output {
        let tab = NewTabArgs {
            name,
            cwd: launch.cwd.clone(),
            ..Default::default()
        };
        let made = self.call::<op::NewTab>(&tab).await?;
        let pane = self.open(Some(TabRef::Id(made.tab_id)), launch).await?;
        self.close_all_but(&made.pane_ids, pane).await;
        self.printed(pane, printing).await
    }

    /// Closes a new tab's own panes once the shim's pane is in it.
    async fn close_all_but(&self, panes: &[PaneRef], keep: PaneRef) {
        for &pane in panes.iter().filter(|&&p| p != keep) {
            let close = CloseArgs {
                target: pane_target(pane),
                force: false,
            };
            if let Err(e) = self.call::<op::Close>(&close).await {
                tracing::warn!("could not close {pane} of a new tab: {e}");
            }
        }
    }

    /// Moves the pane into a new tab of its own.
    async fn break_pane(&self, a: BreakPane) -> Output {
        let pane = self.pane(a.source.as_deref())?;
        self.locate(pane).await?;
        let tab = NewTabArgs {
            name: a.window.name,
            ..Default::default()
        };
        let made = self.call::<op::NewTab>(&tab).await?;
        self.move_to(pane, made.tab_id).await?;
        self.close_all_but(&made.pane_ids, pane).await;
        self.printed(pane, a.window.printing).await
    }

    /// Moves the source pane into the target pane's tab.
    async fn join_pane(&self, a: JoinPane) -> Output {
        let pane = self.pane(a.source.as_deref())?;
        self.locate(pane).await?;
        let target = self.pane(a.position.target.get())?;
        let Some(tab) = self.locate(target).await?.tab_id else {
            return Err(Failure(format!("can't find window of pane %{}", target.id)));
        };
        self.move_to(pane, tab).await?;
        Ok(String::new())
    }

    async fn move_to(&self, pane: PaneRef, tab: usize) -> Result<(), Failure> {
        let arrange = ArrangePaneArgs {
            pane_id: pane,
            resize: None,
            floating: None,
            fullscreen: None,
            pinned: None,
            move_to_tab: Some(TabRef::Id(tab)),
            force: false,
        };
        self.call::<op::ArrangePane>(&arrange).await?;
        Ok(())
    }
}

/// `show-options`: the prefix (asked by Claude Code), nothing else set.
fn show_options(a: &ShowOptions) -> String {
    match (a.option.as_deref(), a.value_only) {
        (Some("prefix"), true) => "C-b\n".into(),
        (Some("prefix"), false) => "prefix C-b\n".into(),
        _ => String::new(),
    }
}

/// A tmux key name as the plugin names keys; `None` for text.
fn zellij_key(key: &str) -> Option<String> {
    let named = match key {
        "BSpace" => "Backspace",
        "PPage" | "PgUp" => "PageUp",
        "NPage" | "PgDn" => "PageDown",
        "DC" => "Delete",
        "IC" => "Insert",
        "BTab" => "BackTab",
        other => other,
    };
    // One character is text; a longer name is a key when the plugin knows it.
    let is_key = named.chars().count() > 1 && key_bytes(named).is_ok();
    is_key.then(|| named.to_owned())
}

fn write_to(pane: PaneRef) -> WriteArgs {
    WriteArgs {
        pane_id: pane,
        text: None,
        keys: Vec::new(),
        paste: false,
        submit: false,
        submit_delay_ms: None,
        allow_exited: false,
        answer: false,
        force: false,
    }
}

fn pane_target(pane: PaneRef) -> Target {
    Target {
        pane_id: Some(pane),
        tab: None,
    }
}

/// What a placeholder pane runs: the command line joined, in `-c` (else
/// `cwd()`), with `-e NAME=VALUE` assignments over `env`.
fn spec_of(launch: Launch, mut env: BTreeMap<String, String>, cwd: fn() -> String) -> Spec {
    for assignment in &launch.env {
        if let Some((name, value)) = assignment.split_once('=') {
            env.insert(name.to_owned(), value.to_owned());
        }
    }
    Spec {
        cwd: launch.cwd.unwrap_or_else(cwd),
        env,
        command: (!launch.command.is_empty()).then(|| launch.command.join(" ")),
    }
}

fn current_dir() -> String {
    std::env::current_dir()
        .map(|d| d.display().to_string())
        .unwrap_or_else(|_| "/".into())
}

fn io_failure(e: std::io::Error) -> Failure {
    Failure(format!("zellij-mcp tmux: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tmux_key_names_become_keys_and_other_words_text() {
        assert_eq!(zellij_key("Enter").as_deref(), Some("Enter"));
        assert_eq!(zellij_key("C-c").as_deref(), Some("C-c"));
        assert_eq!(zellij_key("BSpace").as_deref(), Some("Backspace"));
        assert_eq!(zellij_key("Escape").as_deref(), Some("Escape"));
        assert_eq!(zellij_key("hello"), None);
        assert_eq!(zellij_key("y"), None);
        assert_eq!(zellij_key("echo hi"), None);
    }
}
