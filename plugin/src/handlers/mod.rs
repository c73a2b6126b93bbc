//! One handler per op, grouped by what they act on. A handler is a method
//! of [`Zellij`] (the host and the session view) and takes the other parts
//! of the plugin it uses as arguments, so the dispatch table
//! (`crate::entry::pipe`) shows what each op touches. Each validates its arguments
//! against the session view before touching anything, so bad input changes
//! nothing. What a request waits for after its handler is the lifecycle's
//! ([`crate::work::lifecycle`]); delivering messages and watching waits are the
//! plugin's own work ([`crate::work::delivery`], [`crate::work::watching`]).

mod agents;
mod info;
mod io;
mod messages;
mod panes;
mod requests;
mod waiting;

pub use agents::{describe_programs, Board, Naming};
pub use io::{may_change_what_runs, write_result, ScreenText, PASTE_END, PASTE_START};
pub use messages::{cancel_messages, read_events, replied, send_message};
pub use requests::{replay, status};
pub use waiting::run_result;

use std::time::Duration;

use serde::Serialize;
use zellij_mcp_protocol::agent_programs::Programs;
use zellij_mcp_protocol::agent_programs::Telling;
use zellij_mcp_protocol::agent_screen::Shown;
use zellij_mcp_protocol::launcher::{program_name, program_of_command};
use zellij_mcp_protocol::{Error, ErrorBody, JsonText, PaneKind, PaneRef};
use zellij_tile::prelude::PaneInfo;

use crate::host::Host;
use crate::state::agents::Named;
use crate::state::attention::Attention;
pub use crate::state::handled::{Handled, HandlerResult};
use crate::state::hooks::HookReports;
use crate::state::later::{Live, Settle};
use crate::state::session::SessionView;
use crate::McpPlugin;

/// The result as JSON, serialized once from its typed value.
pub fn to_json<T: Serialize>(value: T) -> Result<JsonText, ErrorBody> {
    JsonText::of(&value).map_err(|e| ErrorBody::from(Error::internal(e.to_string())))
}

/// The answer, now.
pub fn now<T: Serialize>(value: T) -> HandlerResult {
    to_json(value).map(Handled::Now)
}

fn bad_request(message: impl Into<String>, hint: impl Into<String>) -> ErrorBody {
    ErrorBody::from(Error::BadRequest {
        problem: message.into(),
        fix: hint.into(),
    })
}

/// Refuses the caller's own pane unless `force`: `what` would reach the
/// agent that asks for it.
fn refuse_own_pane(
    pane: PaneRef,
    caller: Option<PaneRef>,
    force: bool,
    what: &str,
) -> Result<(), ErrorBody> {
    if force || caller != Some(pane) {
        return Ok(());
    }
    Err(bad_request(
        format!("{pane} is the caller's own pane; {what} would reach the agent itself"),
        "pass force: true if that is really meant, or pick another pane",
    ))
}

/// What a handler reads before it acts: Zellij, through the host, the
/// session as its events showed it, and how agent programs show their
/// state.
pub struct Zellij<'a, H> {
    pub host: &'a H,
    pub view: &'a SessionView,
    pub programs: &'a Programs,
    /// What agents' hooks told, and what earlier looks saw of their
    /// composers, for the states told to callers; none where only the
    /// screen may count (what is typed).
    pub known: Option<(&'a HookReports, &'a Attention)>,
}

impl<'a, H: Host> Zellij<'a, H> {
    pub fn of(host: &'a H, view: &'a SessionView, programs: &'a Programs) -> Self {
        Zellij {
            host,
            view,
            programs,
            known: None,
        }
    }

    /// The same, telling agents' states from their hooks and earlier looks
    /// too.
    pub fn with_known(self, hooks: &'a HookReports, attention: &'a Attention) -> Self {
        Zellij {
            known: Some((hooks, attention)),
            ..self
        }
    }

    /// What `pane`'s screen shows, an agent's state told from its hooks
    /// and earlier looks too where they are known (see
    /// [`HookReports::state`], [`Attention::recall`]).
    pub fn shown(&self, pane: PaneRef, telling: Option<Telling>) -> Option<Shown> {
        let agent = telling.is_some();
        let mut shown = self.host.shown(pane, telling)?;
        if let (Some((hooks, attention)), true) = (self.known, agent) {
            let now_ms = self.host.unix_ms();
            let live = hooks.live_over(pane, shown.agent, now_ms);
            attention.recall(pane, &mut shown);
            let seen = (live.or(shown.agent), shown.still);
            shown.agent = hooks.state(pane, seen, now_ms).0;
        }
        Some(shown)
    }

    /// The program a terminal pane runs (`running`, as Zellij last told),
    /// else the one its command started.
    pub fn program_of(&self, pane: PaneRef, running: Option<&[String]>) -> Option<String> {
        match running {
            Some(argv) => program_name(argv),
            None => self
                .view
                .find(pane)
                .and_then(|(_, info)| info.terminal_command.as_deref())
                .and_then(program_of_command),
        }
    }

    /// How to tell the state of `pane`, which runs `program` (see
    /// [`Programs::telling`]), under its title as the events showed it.
    pub fn telling(
        &self,
        pane: PaneRef,
        program: Option<&str>,
        named: Named,
    ) -> Option<Telling<'a>> {
        let view: &'a SessionView = self.view;
        let title = view.find(pane).map_or("", |(_, info)| info.title.as_str());
        let mut telling = self.programs.telling(program, named.any(), title);
        telling.reads_lines = named == Named::ReadsLines;
        Some(telling)
    }

    fn require_ready(&self) -> Result<(), ErrorBody> {
        if self.view.is_ready() {
            Ok(())
        } else {
            Err(Error::NotReady {
                problem: "the plugin has not received the session's pane list yet".into(),
            }
            .into())
        }
    }

    /// The pane as Zellij has it now. Zellij answers that query within
    /// 100 ms or not at all (a busy session), so a pane the last events
    /// listed counts too: "not found" must not come from a slow answer.
    pub fn pane_now(&self, pane: PaneRef) -> Option<PaneInfo> {
        self.host
            .pane_info(pane)
            .or_else(|| self.view.find(pane).map(|(_, info)| info.clone()))
    }

    /// The pane as Zellij has it now, or `pane_not_found`; `timeout` when
    /// Zellij let its 100 ms pass without saying (a busy session: a pane
    /// just opened may not be in the last events yet).
    fn require_pane(&self, pane: PaneRef) -> Result<PaneInfo, ErrorBody> {
        self.require_ready()?;
        match self.ask_zellij(ZELLIJ_PANE_INFO_WAIT, || self.pane_now(pane)) {
            Said::Yes(info) => Ok(info),
            Said::No => Err(Error::no_pane(pane).into()),
            Said::Untold => {
                let problem = format!(
                    "Zellij did not say within {} ms whether {pane} is there (the session is busy)",
                    ZELLIJ_PANE_INFO_WAIT.as_millis()
                );
                Err(Error::Timeout { problem }.into())
            }
        }
    }

    /// Zellij's answer to `ask`, told apart from its silence: a none that
    /// came only after `wait` is Zellij not saying in time, not saying no.
    pub fn ask_zellij<T>(&self, wait: Duration, ask: impl FnOnce() -> Option<T>) -> Said<T> {
        let asked = self.host.now();
        match ask() {
            Some(answer) => Said::Yes(answer),
            None if self.host.now() - asked >= wait => Said::Untold,
            None => Said::No,
        }
    }

    /// Like [`Self::require_pane`], for ops that need a terminal pane.
    fn require_terminal(&self, pane: PaneRef) -> Result<PaneInfo, ErrorBody> {
        if pane.kind != PaneKind::Terminal {
            let pane = pane.to_string();
            return Err(Error::WrongPaneKind { pane }.into());
        }
        self.require_pane(pane)
    }
}

/// How long Zellij 0.45.1 waits for its screen to tell a pane's info
/// before it answers none (`get_pane_info` in its plugin exports).
const ZELLIJ_PANE_INFO_WAIT: Duration = Duration::from_millis(100);

/// What Zellij said to a question it answers within a bound or not at all.
pub enum Said<T> {
    Yes(T),
    No,
    /// Nothing within the bound: the answer is unknown.
    Untold,
}

/// How long Zellij 0.45.1 waits for a plugin command that makes a tab or
/// pane to say its id before it answers none (`ACTION_COMPLETION_TIMEOUT`
/// in its `route.rs`); the tab or pane may still come.
pub const ZELLIJ_ACTION_WAIT: Duration = Duration::from_secs(1);

impl<H: Host> McpPlugin<H> {
    /// The parts every handler reads.
    pub fn zellij(&self) -> Zellij<'_, H> {
        Zellij::of(&self.host, &self.view, &self.programs).with_known(&self.hooks, &self.attention)
    }

    /// The parts a handler that names agents gets.
    pub fn zellij_naming(&mut self) -> (Zellij<'_, H>, Naming<'_>) {
        let naming = Naming {
            agents: &mut self.agents,
            log: &mut self.log,
            keeping: &mut self.keeping,
        };
        (Zellij::of(&self.host, &self.view, &self.programs), naming)
    }
}

/// Settles when Zellij shows `pane` as `ready` (or at the deadline), with
/// `make`'s result.
fn once_pane_shows<T: Serialize + 'static>(
    pane: PaneRef,
    mut make: impl FnMut(&SessionView, Option<&PaneInfo>) -> T + 'static,
    ready: impl Fn(&PaneInfo) -> bool + 'static,
) -> Settle {
    Box::new(move |view: &SessionView, live: &dyn Live, overdue: bool| {
        let info = live.pane(pane);
        (info.as_ref().is_some_and(&ready) || overdue).then(|| to_json(make(view, info.as_ref())))
    })
}
