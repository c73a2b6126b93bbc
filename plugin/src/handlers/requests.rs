//! Ops about other requests: `replay` and `status` (`cancel`, which ends a
//! wait, is with the waits).

use zellij_mcp_protocol::ops::{ReplayArgs, RequestState, StatusResult};
use zellij_mcp_protocol::{Error, ErrorBody, JsonText};

use super::{bad_request, now};
use super::{Handled, HandlerResult};
use crate::state::later::Asker;
use crate::state::replay::{Known, Replies};

/// `replay`: the reply to an earlier request, now or once it is ready;
/// `null` when this plugin never saw it (then it is safe to send again).
/// Left to another instance that took it (`elsewhere`).
pub fn replay(
    replies: &mut Replies,
    elsewhere: bool,
    args: ReplayArgs,
    asker: &Asker,
) -> HandlerResult {
    let id = &args.request_id;
    if *id == asker.request_id {
        return Err(bad_request(
            "a replay cannot name its own request",
            "pass the id of the earlier request",
        ));
    }
    match replies.lookup(id) {
        Known::Answered(line) => Ok(Handled::Now(JsonText::trusted(line))),
        Known::InFlight => {
            if !replies.also_send_to(id, &asker.pipe_id, &asker.request_id) {
                return Err(ErrorBody::from(Error::Busy {
                    problem: format!("request {id} is already being replayed"),
                    fix: "wait for one of the replays to answer".into(),
                }));
            }
            Ok(Handled::WithEarlier)
        }
        Known::Lost => Err(ErrorBody::from(Error::ReplyLost {
            problem: format!("request {id} ran, but its reply is no longer kept"),
            fix: ("look at the state it left (list or read) instead of sending it again").into(),
        })),
        Known::Unknown if elsewhere => Ok(Handled::Elsewhere),
        Known::Unknown => Ok(Handled::Now(JsonText::trusted("null"))),
    }
}

/// `status`: what this plugin knows of an earlier request; left to
/// another instance that took it (`elsewhere`).
pub fn status(replies: &Replies, elsewhere: bool, args: ReplayArgs) -> HandlerResult {
    let state = match replies.lookup(&args.request_id) {
        Known::Unknown if elsewhere => return Ok(Handled::Elsewhere),
        Known::Answered(_) => RequestState::Answered,
        Known::InFlight => RequestState::InFlight,
        Known::Lost => RequestState::Lost,
        Known::Unknown => RequestState::Unknown,
    };
    now(StatusResult { state })
}
