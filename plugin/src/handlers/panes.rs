//! Ops that create, close, rename, focus and arrange panes and tabs. Only
//! `focus` (and an explicit `focus: true`) moves focus.

use zellij_mcp_protocol::ops::{
    ArrangePaneArgs, ArrangePaneResult, CloseArgs, CloseResult, ClosedPane, Geometry, NewPaneArgs,
    NewTabArgs, NewTabResult, OpenFileArgs, PaneResult, Placement, RenameArgs, Target,
    TargetResult, NEW_TAB_SHOWN_WITHIN,
};
use zellij_mcp_protocol::{Error, ErrorBody, PaneRef, TabRef};
use zellij_tile::prelude::{PaneInfo, TabInfo};

use super::{bad_request, once_pane_shows, refuse_own_pane, to_json, Naming, Zellij};
use super::{Handled, HandlerResult, Said, ZELLIJ_ACTION_WAIT};
use crate::host::{Content, Host, Landing};
use crate::state::later::{Asker, Live, Settle};
use crate::state::session::{ref_of_info, SessionView};

/// Most resize steps one call takes.
const MAX_RESIZE_STEPS: u32 = 20;

/// Tabs made since the view's last event that `client_attached` asks about.
const UNSEEN_TABS: usize = 8;

/// A pane or a tab, resolved.
enum Resolved {
    Pane(PaneRef),
    Tab(TabInfo),
}

impl<H: Host> Zellij<'_, H> {
    pub fn new_tab(&self, args: NewTabArgs) -> HandlerResult {
        self.require_ready()?;
        let tabs_before = self.tabs_now();
        if !tabs_before.iter().any(|t| t.active) {
            return Err(ErrorBody::from(Error::Unsupported {
                problem: "Zellij 0.45.1 makes no tab while no client is attached to the session"
                    .into(),
                fix: "attach a client (zellij attach <session>) first, or open the pane in an existing tab with zellij_new_pane".into(),
            }));
        }
        let previous = self.view.tabs.iter().find(|t| t.active).map(|t| t.position);
        let tab_id = match &args.layout {
            // Zellij answers with the id only when it made the tab within 1 s.
            None => self.host.new_tab(args.name.as_deref(), args.cwd.as_deref()),
            Some(layout) => {
                let kdl = self.layout_kdl(layout)?;
                let ids = self.host.new_tabs_with_layout(&kdl);
                let first = *ids
                    .first()
                    .ok_or_else(|| internal("Zellij created no tab from the layout"))?;
                if let Some(name) = &args.name {
                    self.host.rename_tab(first, name);
                }
                // Zellij focuses tabs made from a layout; give the tab back.
                if let (false, Some(position)) = (args.focus, previous) {
                    self.host.go_to_tab(position);
                }
                Some(first)
            }
        };
        if args.focus && args.layout.is_none() {
            // New tabs are appended, so it sits after the existing ones.
            self.host.go_to_tab(self.view.tabs.len());
        }
        let want_name = args.name.clone();
        let known: Vec<usize> = tabs_before.iter().map(|t| t.tab_id).collect();
        let mut tab_id = tab_id.map(Ok);
        let settle = move |view: &SessionView, live: &dyn Live, overdue: bool| {
            if tab_id.is_none() {
                tab_id = tab_made_since(view, live, &known, want_name.as_deref());
            }
            let tab_id = match &tab_id {
                Some(Ok(tab_id)) => *tab_id,
                Some(Err(e)) => return Some(Err(e.clone())),
                None => {
                    return overdue.then(|| {
                        Err(internal(format!(
                            "Zellij made no tab within {} s",
                            NEW_TAB_SHOWN_WITHIN.as_secs()
                        )))
                    })
                }
            };
            let Some(tab) = live.tab(tab_id).or_else(|| view.tab_by_id(tab_id).cloned()) else {
                // An overdue reply must decide, even when Zellij never shows the tab.
                return overdue.then(|| {
                    Err(ErrorBody::from(Error::Internal {
                        problem: format!(
                            "Zellij made tab_id {tab_id} but did not show it within {} s",
                            NEW_TAB_SHOWN_WITHIN.as_secs()
                        ),
                        fix: Some(
                            "call zellij_list_tabs before making it again: it may still appear"
                                .into(),
                        ),
                    }))
                });
            };
            let panes: Vec<PaneRef> = view.panes_in(tab.position).map(ref_of_info).collect();
            let named = want_name.as_ref().is_none_or(|n| &tab.name == n);
            ((!panes.is_empty() && named) || overdue).then(|| {
                to_json(NewTabResult {
                    tab_id,
                    position: tab.position,
                    name: tab.name.clone(),
                    pane_ids: panes,
                    focused: tab.active,
                })
            })
        };
        Ok(Handled::WhenShownWithin(
            Box::new(settle),
            NEW_TAB_SHOWN_WITHIN,
        ))
    }

    /// The session's tabs, asked now: the events may lag, so the few ids
    /// after the newest known tab are asked too. Each attached client has a
    /// tab it shows, which Zellij reports `active`.
    fn tabs_now(&self) -> Vec<TabInfo> {
        let known = self.view.tabs.iter().map(|t| t.tab_id);
        let newest = known.clone().max().unwrap_or(0);
        known
            .chain(newest + 1..=newest + UNSEEN_TABS)
            .filter_map(|tab_id| self.host.tab_info(tab_id))
            .collect()
    }

    /// A layout argument as KDL: inline KDL as is, otherwise a layout name.
    fn layout_kdl(&self, layout: &str) -> Result<String, ErrorBody> {
        let kdl = if layout.contains('{') {
            layout.to_owned()
        } else {
            self.host.named_layout(layout).map_err(|e| {
                bad_request(
                    format!("there is no layout named '{layout}': {e}"),
                    "pass layout KDL, a built-in layout name (default, compact, ...) or a .kdl path",
                )
            })?
        };
        self.host.check_layout(&kdl).map_err(|e| {
            bad_request(
                format!("the layout is not valid: {e}"),
                "fix the KDL; a tab layout looks like `layout { pane; pane split_direction=\"vertical\" { pane; pane } }`",
            )
        })?;
        Ok(kdl)
    }

    /// `new_pane`; a pane opened with an agent name takes it in `naming`.
    pub fn new_pane(&self, naming: &mut Naming, args: NewPaneArgs, asker: &Asker) -> HandlerResult {
        self.require_ready()?;
        let tab = self.target_tab(args.at.tab.as_ref(), asker.caller)?;
        let argv = args.command.map(check_argv).transpose()?;
        let content = match &argv {
            Some(argv) => Content::Command {
                argv: naming.keeping.launch_line(
                    argv.clone(),
                    self.programs,
                    args.relay,
                    args.record_to.clone(),
                ),
                cwd: args.cwd.clone(),
            },
            None => Content::Shell {
                cwd: args.cwd.clone(),
            },
        };
        naming.check_free(self, args.agent_name.as_deref())?;
        let pane = self.spawn(
            &tab,
            &content,
            args.at.placement,
            args.name.as_deref(),
            args.at.focus,
        )?;
        naming.name(self, args.agent_name.as_deref(), pane, args.reads_lines)?;
        if let (Some(_), Some(argv)) = (&args.agent_name, argv) {
            naming.keeping.launched(pane, argv, args.cwd);
        }
        Ok(pane_when_listed(pane, tab.tab_id))
    }

    pub fn open_file(&self, args: OpenFileArgs, asker: &Asker) -> HandlerResult {
        self.require_ready()?;
        if args.path.trim().is_empty() {
            return Err(bad_request("path is empty", "pass the file to open"));
        }
        let tab = self.target_tab(args.at.tab.as_ref(), asker.caller)?;
        let content = Content::Editor {
            path: args.path,
            line: args.line,
            cwd: args.cwd,
        };
        let pane = self.spawn(&tab, &content, args.at.placement, None, args.at.focus)?;
        Ok(pane_when_listed(pane, tab.tab_id))
    }

    /// The tab asked for, else the caller's, else the active one.
    pub fn target_tab(
        &self,
        tab: Option<&TabRef>,
        caller: Option<PaneRef>,
    ) -> Result<TabInfo, ErrorBody> {
        match tab {
            Some(tab) => self.view.resolve_tab(tab).cloned(),
            None => self
                .view
                .default_tab(caller)
                .cloned()
                .ok_or_else(|| internal("the session has no tabs")),
        }
    }

    /// Opens a pane in `tab` without moving focus. Commands open directly
    /// when the tab allows it (see [`Self::open_command`]); anything else
    /// starts as a shell pane added to the tab and replaced in place.
    pub fn spawn(
        &self,
        tab: &TabInfo,
        content: &Content,
        placement: Placement,
        name: Option<&str>,
        focus: bool,
    ) -> Result<PaneRef, ErrorBody> {
        let opened = match content {
            Content::Command { .. } => self.open_command(tab, content, placement),
            _ => None,
        };
        let (pane, placed) = match opened {
            Some(Said::Yes(pane)) => (pane, true),
            // Opened again in place, the command would run twice.
            Some(Said::Untold) => return Err(pane_untold()),
            // Not offered here, or Zellij said at once it opened nothing.
            Some(Said::No) | None => (self.open_in_place(tab, content)?, false),
        };
        if let Some(name) = name {
            self.host.rename_pane(pane, name);
        }
        match placement {
            _ if placed => {}
            Placement::Tiled => {}
            Placement::Floating => self.host.toggle_floating(pane),
            Placement::Background => self.host.hide(pane),
        }
        if focus {
            self.host.focus(pane);
        }
        Ok(pane)
    }

    /// A command pane opened in one step, where Zellij offers one for this
    /// tab and placement: the plugin's own tab, or (hidden) the tab the
    /// plugin's client is on. Output a command prints at once survives only
    /// this way: Zellij 0.45.1 drops output that arrives before an in-place
    /// replacement is done.
    fn open_command(
        &self,
        tab: &TabInfo,
        content: &Content,
        placement: Placement,
    ) -> Option<Said<PaneRef>> {
        let own_tab = self
            .view
            .tab_id_of(PaneRef::plugin(self.host.ids().plugin_id));
        // Zellij puts hidden command panes in the plugin client's active tab,
        // or in tab 0 when no client is attached.
        let landing_tab = self
            .view
            .tabs
            .iter()
            .find(|t| t.active)
            .map_or(0, |t| t.tab_id);
        let landing = match placement {
            Placement::Background if landing_tab == tab.tab_id => Landing::Hidden,
            Placement::Tiled if own_tab == Some(tab.tab_id) => Landing::BesidePlugin,
            Placement::Floating if own_tab == Some(tab.tab_id) => Landing::FloatingBesidePlugin,
            _ => return None,
        };
        Some(self.ask_zellij(ZELLIJ_ACTION_WAIT, || {
            self.host.open_command(content, landing)
        }))
    }

    /// A shell pane added to `tab`, replaced in place by `content`.
    fn open_in_place(&self, tab: &TabInfo, content: &Content) -> Result<PaneRef, ErrorBody> {
        let shell = self
            .host
            .new_pane_in_tab(tab.tab_id)
            .ok_or_else(|| internal(format!("Zellij opened no pane in tab_id {}", tab.tab_id)))?;
        if let Content::Shell { cwd: None } = content {
            return Ok(shell);
        }
        match self.ask_zellij(ZELLIJ_ACTION_WAIT, || self.host.replace(shell, content)) {
            Said::Yes(pane) => Ok(pane),
            Said::Untold => Err(pane_untold()),
            Said::No => {
                let what = match content {
                    Content::Editor { .. } => "the editor ($EDITOR, else vi) could not start",
                    _ => "the command could not start",
                };
                Err(ErrorBody::from(Error::BadRequest {
                    problem: what.into(),
                    fix: "check the command is installed and on PATH".into(),
                }))
            }
        }
    }

    /// `close`; also the panes it closed, whose agent names are then free.
    pub fn close(
        &self,
        args: CloseArgs,
        asker: &Asker,
    ) -> Result<(Handled, Vec<PaneRef>), ErrorBody> {
        self.require_ready()?;
        let target = self.resolve(&args.target)?;
        self.refuse_to_close(&target, asker.caller, args.force)?;
        let (tab_id, closed) = match target {
            Resolved::Pane(pane) => {
                let info = self.require_pane(pane)?;
                self.host.close_pane(pane);
                (None, vec![closed_pane(&info)])
            }
            Resolved::Tab(tab) => {
                let closed: Vec<ClosedPane> =
                    self.view.panes_in(tab.position).map(closed_pane).collect();
                self.host.close_tab(tab.tab_id);
                (Some(tab.tab_id), closed)
            }
        };
        let ids: Vec<PaneRef> = closed.iter().map(|c| c.pane_id).collect();
        Ok((Handled::WhenShown(once_gone(tab_id, closed)), ids))
    }

    /// Refuses to close the plugin's own pane, and unless `force`, what holds
    /// the caller or the plugin, or the last tab.
    fn refuse_to_close(
        &self,
        target: &Resolved,
        caller: Option<PaneRef>,
        force: bool,
    ) -> Result<(), ErrorBody> {
        let own_plugin = PaneRef::plugin(self.host.ids().plugin_id);
        let tab_of = |pane: Option<PaneRef>| pane.and_then(|p| self.view.tab_id_of(p));
        let refusal = match target {
            Resolved::Pane(pane) if *pane == own_plugin => {
                return Err(ErrorBody::from(Error::BadRequest {
                    problem: format!("{pane} is the zellij-mcp plugin itself"),
                    fix: ("close other panes; closing this one ends zellij-mcp for the session")
                        .into(),
                }))
            }
            _ if force => return Ok(()),
            Resolved::Pane(pane) if Some(*pane) == caller => {
                format!("{pane} is the pane this agent runs in")
            }
            Resolved::Pane(_) => return Ok(()),
            Resolved::Tab(tab) if self.view.tabs.len() == 1 => {
                format!(
                    "'{}' is the last tab; closing it ends the session",
                    tab.name
                )
            }
            Resolved::Tab(tab) if tab_of(caller) == Some(tab.tab_id) => {
                format!("'{}' holds the pane this agent runs in", tab.name)
            }
            Resolved::Tab(tab) if tab_of(Some(own_plugin)) == Some(tab.tab_id) => format!(
                "'{}' holds the zellij-mcp plugin; closing it ends zellij-mcp for the session",
                tab.name
            ),
            Resolved::Tab(_) => return Ok(()),
        };
        Err(ErrorBody::from(Error::BadRequest {
            problem: refusal,
            fix: "pass force: true if you really mean it".into(),
        }))
    }

    pub fn rename(&self, args: RenameArgs) -> HandlerResult {
        self.require_ready()?;
        if args.name.trim().is_empty() {
            return Err(bad_request("name is empty", "pass the new name"));
        }
        let name = args.name;
        match self.resolve(&args.target)? {
            Resolved::Pane(pane) => {
                self.require_pane(pane)?;
                self.host.rename_pane(pane, &name);
                let wanted = name.clone();
                let settle = once_pane_shows(pane, pane_target(pane), move |p| p.title == wanted);
                Ok(Handled::WhenShown(settle))
            }
            Resolved::Tab(tab) => {
                self.host.rename_tab(tab.tab_id, &name);
                let settle = tab_settle(tab.tab_id, move |t| t.name == name);
                Ok(Handled::WhenShown(settle))
            }
        }
    }

    pub fn focus(&self, args: Target) -> HandlerResult {
        self.require_ready()?;
        match self.resolve(&args)? {
            Resolved::Pane(pane) => {
                if !self.require_pane(pane)?.is_selectable {
                    return Err(bad_request(
                        format!("{pane} cannot take focus (it is not selectable)"),
                        "focus a terminal pane, or the pane's tab",
                    ));
                }
                self.host.focus(pane);
                let settle = once_pane_shows(pane, pane_target(pane), |p| p.is_focused);
                Ok(Handled::WhenShown(settle))
            }
            Resolved::Tab(tab) => {
                self.host.go_to_tab(tab.position);
                Ok(Handled::WhenShown(tab_settle(tab.tab_id, |t| t.active)))
            }
        }
    }

    pub fn arrange_pane(&self, args: ArrangePaneArgs, asker: &Asker) -> HandlerResult {
        refuse_own_pane(args.pane_id, asker.caller, args.force, "moving it")?;
        let info = self.require_pane(args.pane_id)?;
        let plan = self.plan_arrangement(&args, &info)?;
        self.apply_arrangement(&args, &info, &plan);
        Ok(Handled::WhenShown(once_arranged(args.pane_id, info, plan)))
    }

    /// What an arrangement changes, checked before anything is touched.
    fn plan_arrangement(
        &self,
        args: &ArrangePaneArgs,
        info: &PaneInfo,
    ) -> Result<Arrangement, ErrorBody> {
        let pane = args.pane_id;
        if info.is_plugin && !info.is_selectable {
            return Err(bad_request(
                format!("{pane} is a fixed plugin pane"),
                "arrange terminal panes",
            ));
        }
        let steps = args.resize.as_ref().map_or(0, |r| r.amount);
        if steps.unsigned_abs() > MAX_RESIZE_STEPS {
            return Err(bad_request(
                format!("resize amount {steps} is over the limit of {MAX_RESIZE_STEPS} steps"),
                "pass a smaller amount (each step is one Zellij resize increment)",
            ));
        }
        let floating = args.floating.unwrap_or(info.is_floating);
        if args.pinned.is_some() && !floating {
            return Err(bad_request(
                format!("{pane} is tiled; only floating panes can be pinned"),
                "pass floating: true together with pinned",
            ));
        }
        let to_tab = args
            .move_to_tab
            .as_ref()
            .map(|tab| self.movable_to(tab))
            .transpose()?;
        let nothing = args.resize.is_none()
            && args.floating.is_none()
            && args.fullscreen.is_none()
            && args.pinned.is_none()
            && to_tab.is_none();
        if nothing {
            return Err(bad_request(
                "nothing to change",
                "pass resize, floating, fullscreen, pinned or move_to_tab",
            ));
        }
        let shows_change = floating != info.is_floating
            || to_tab.is_some()
            || steps != 0
            || args.fullscreen.is_some_and(|f| f != info.is_fullscreen);
        Ok(Arrangement {
            floating,
            fullscreen: args.fullscreen,
            to_tab,
            shows_change,
        })
    }

    /// The id of a tab panes can be moved to.
    fn movable_to(&self, tab: &TabRef) -> Result<usize, ErrorBody> {
        let tab = self.view.resolve_tab(tab)?;
        // Zellij 0.45.1 mixes up tab ids and positions when moving panes.
        if tab.tab_id != tab.position {
            return Err(ErrorBody::from(Error::Unsupported {
                problem: format!(
                    "Zellij 0.45.1 cannot move panes to '{}' (tab_id {} at position {})",
                    tab.name, tab.tab_id, tab.position
                ),
                fix: "move it to a tab whose tab_id equals its position, or open a new pane there"
                    .into(),
            }));
        }
        Ok(tab.tab_id)
    }

    /// Makes the changes, in the documented order.
    fn apply_arrangement(&self, args: &ArrangePaneArgs, info: &PaneInfo, plan: &Arrangement) {
        let pane = args.pane_id;
        if plan.floating != info.is_floating {
            self.host.toggle_floating(pane);
        }
        if let Some(tab_id) = plan.to_tab {
            self.host.move_to_tab(pane, tab_id);
        }
        if let Some(resize) = &args.resize {
            for _ in 0..resize.amount.unsigned_abs() {
                self.host.resize(pane, resize.amount > 0, resize.direction);
            }
        }
        if plan.fullscreen.is_some_and(|f| f != info.is_fullscreen) {
            self.host.toggle_fullscreen(pane);
        }
        if let Some(pinned) = args.pinned {
            self.host.set_pinned(pane, pinned);
        }
    }

    /// Exactly one of `pane_id` and `tab`.
    fn resolve(&self, target: &Target) -> Result<Resolved, ErrorBody> {
        match (target.pane_id, &target.tab) {
            (Some(pane), None) => Ok(Resolved::Pane(pane)),
            (None, Some(tab)) => Ok(Resolved::Tab(self.view.resolve_tab(tab)?.clone())),
            _ => Err(bad_request(
                "pass exactly one of pane_id and tab",
                "pane_id for a pane, or tab (tab_id or name) for a whole tab",
            )),
        }
    }
}

/// What an arrangement leaves the pane as.
struct Arrangement {
    floating: bool,
    fullscreen: Option<bool>,
    to_tab: Option<usize>,
    /// Zellij will show the pane changed (a pin, or asking for what already
    /// holds, does not).
    shows_change: bool,
}

/// Settles once Zellij shows the pane arranged (changed from `before`).
fn once_arranged(pane: PaneRef, before: PaneInfo, plan: Arrangement) -> Settle {
    Box::new(move |view: &SessionView, live: &dyn Live, overdue: bool| {
        let now = live.pane(pane);
        let tab_now = view.tab_id_of(pane);
        let changed = now.as_ref().is_some_and(|p| {
            p.is_floating == plan.floating
                && plan.fullscreen.is_none_or(|f| p.is_fullscreen == f)
                && plan.to_tab.is_none_or(|t| tab_now == Some(t))
                && (*p != before || !plan.shows_change)
        });
        (changed || overdue).then(|| {
            let p = now.as_ref().unwrap_or(&before);
            to_json(ArrangePaneResult {
                pane_id: pane,
                tab_id: tab_now,
                floating: p.is_floating,
                fullscreen: p.is_fullscreen,
                geometry: Geometry {
                    x: p.pane_x,
                    y: p.pane_y,
                    rows: p.pane_rows,
                    cols: p.pane_columns,
                },
            })
        })
    })
}

/// Settles once the closed panes (and tab) are gone.
fn once_gone(tab_id: Option<usize>, closed: Vec<ClosedPane>) -> Settle {
    let gone: Vec<PaneRef> = closed.iter().map(|p| p.pane_id).collect();
    Box::new(move |_: &SessionView, live: &dyn Live, overdue: bool| {
        let all_gone = gone.iter().all(|p| live.pane(*p).is_none())
            && tab_id.is_none_or(|id| live.tab(id).is_none());
        (all_gone || overdue).then(|| {
            to_json(CloseResult {
                tab_id,
                closed: closed.clone(),
            })
        })
    })
}

/// Answers a new pane with its id and tab once Zellij lists it.
fn pane_when_listed(pane: PaneRef, tab_id: usize) -> Handled {
    let make = move |view: &SessionView, _: Option<&PaneInfo>| PaneResult {
        pane_id: pane,
        tab_id: view.tab_id_of(pane).or(Some(tab_id)),
    };
    Handled::WhenShown(once_pane_shows(pane, make, |_| true))
}

/// A pane's id, tab and title, as a rename or focus answers.
fn pane_target(pane: PaneRef) -> impl FnMut(&SessionView, Option<&PaneInfo>) -> TargetResult {
    move |view, info| TargetResult {
        pane_id: Some(pane),
        tab_id: view.tab_id_of(pane),
        name: info.map(|p| p.title.clone()).unwrap_or_default(),
    }
}

/// Settles once the tab satisfies `ready`, answering with its id and name.
fn tab_settle(tab_id: usize, ready: impl Fn(&TabInfo) -> bool + 'static) -> Settle {
    Box::new(move |_: &SessionView, live: &dyn Live, overdue: bool| {
        let tab = live.tab(tab_id);
        (tab.as_ref().is_some_and(&ready) || overdue).then(|| {
            to_json(TargetResult {
                pane_id: None,
                tab_id: Some(tab_id),
                name: tab.map(|t| t.name.clone()).unwrap_or_default(),
            })
        })
    })
}

fn closed_pane(info: &PaneInfo) -> ClosedPane {
    ClosedPane {
        pane_id: ref_of_info(info),
        title: info.title.clone(),
        command: info.terminal_command.clone(),
    }
}

pub fn check_argv(argv: Vec<String>) -> Result<Vec<String>, ErrorBody> {
    if argv.first().is_none_or(|program| program.trim().is_empty()) {
        return Err(bad_request(
            "command is empty",
            "pass argv with the program first, e.g. [\"ls\", \"-la\"]; for a shell line use [\"sh\", \"-c\", \"...\"]",
        ));
    }
    Ok(argv)
}

/// The tab a `new_tab` made, when Zellij did not say its id: the one tab
/// not `known` before (named `name`, if one was asked for); `None` while
/// none shows; an error when more than one could be it.
fn tab_made_since(
    view: &SessionView,
    live: &dyn Live,
    known: &[usize],
    name: Option<&str>,
) -> Option<Result<usize, ErrorBody>> {
    let newest = known.iter().max().copied().unwrap_or(0);
    let listed = view.tabs.iter().map(|t| t.tab_id);
    let mut new: Vec<usize> = listed
        .chain(newest + 1..=newest + UNSEEN_TABS)
        .filter(|id| !known.contains(id))
        .filter_map(|id| live.tab(id).or_else(|| view.tab_by_id(id).cloned()))
        .filter(|t| name.is_none_or(|n| t.name == n))
        .map(|t| t.tab_id)
        .collect();
    new.sort_unstable();
    new.dedup();
    match new[..] {
        [] => None,
        [tab_id] => Some(Ok(tab_id)),
        _ => Some(Err(ErrorBody::from(Error::Internal {
            problem: format!(
                "Zellij made the tab without telling its id, and tabs {new:?} are all new"
            ),
            fix: Some("call zellij_list_tabs to find it; do not make it again".into()),
        }))),
    }
}

fn internal(message: impl Into<String>) -> ErrorBody {
    ErrorBody::from(Error::Internal {
        problem: message.into(),
        fix: Some("retry; if it persists, check Zellij's log".into()),
    })
}

/// A pane Zellij did not say the id of within [`ZELLIJ_ACTION_WAIT`]: what
/// it runs may be running all the same.
fn pane_untold() -> ErrorBody {
    Error::ResultUnknown {
        problem:
            "Zellij did not say the new pane's id within its 1 s (a busy session); \
what it runs may have started in a pane of its own: call zellij_list_panes before starting it again"
                .into(),
    }
    .into()
}
