//! One handler per op, grouped by what they act on. Each validates its
//! arguments against the session view before touching anything, so bad input
//! changes nothing.

mod agents;
mod info;
mod io;
mod messages;
mod panes;
mod requests;
mod waiting;

pub use io::{write_result, ScreenText};

use serde::Serialize;
use zellij_mcp_protocol::{Error, ErrorBody, JsonText, PaneKind, PaneRef};
use zellij_tile::prelude::PaneInfo;

pub use crate::handled::{Handled, HandlerResult};
use crate::host::Host;
use crate::later::{Live, Settle};
use crate::session::SessionView;
use crate::McpPlugin;

/// The result as JSON, serialized once from its typed value.
pub fn to_json<T: Serialize>(value: T) -> Result<JsonText, ErrorBody> {
    JsonText::of(&value).map_err(|e| ErrorBody::from(Error::internal(e.to_string())))
}

fn now<T: Serialize>(value: T) -> HandlerResult {
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

/// See [`McpPlugin::pane_now`]; for callers that hold other parts mutably.
pub fn pane_now(host: &impl Host, view: &SessionView, pane: PaneRef) -> Option<PaneInfo> {
    host.pane_info(pane)
        .or_else(|| view.find(pane).map(|(_, info)| info.clone()))
}

impl<H: Host> McpPlugin<H> {
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
        pane_now(&self.host, &self.view, pane)
    }

    /// The pane as Zellij has it now, or `pane_not_found`.
    fn require_pane(&self, pane: PaneRef) -> Result<PaneInfo, ErrorBody> {
        self.require_ready()?;
        self.pane_now(pane)
            .ok_or_else(|| Error::no_pane(pane).into())
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
