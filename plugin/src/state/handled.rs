//! What a handler did with its request: answered it, or what the answer
//! waits for (see [`crate::work::lifecycle`] for what happens then).

use std::time::Duration;

use zellij_mcp_protocol::{ErrorBody, JsonText};

use crate::state::later::Settle;
use crate::state::messages::Message;
use crate::state::shell_runs::ShellRun;
use crate::state::waits::{Purpose, Wait};
use crate::state::writes::PendingWrite;

/// What a handler did with its request.
pub enum Handled {
    /// Answer now with this result.
    Now(JsonText),
    /// Answer once the session shows the change (see [`Settle`]).
    WhenShown(Settle),
    /// The same, waiting `Duration` rather than the usual time (a new tab).
    WhenShownWithin(Settle, Duration),
    /// Answer when this wait ends.
    Wait(Box<Wait<Purpose>>),
    /// Answer once this write (and any submit) is typed.
    Write(PendingWrite),
    /// Answer once this message is delivered, or its wait or TTL is over.
    Message(Box<Message>),
    /// Answer once the shell reports this run's exit, or its timeout passes.
    ShellRun(Box<ShellRun>),
    /// Another request's answer answers this one too (a `replay`).
    WithEarlier,
    /// Another instance answers it: it took the request this one is about.
    Elsewhere,
}

pub type HandlerResult = Result<Handled, ErrorBody>;
