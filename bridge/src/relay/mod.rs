//! `zellij-mcp relay -- <argv>`: the program runs on a pty of the relay's
//! own, inside its pane, and a person sees no difference (docs/relay.md).
//! The relay puts the pane's terminal in raw mode, so that every byte,
//! Ctrl-C and Ctrl-Z among them, reaches the program's pty unchanged
//! (whose line discipline acts on them as the pane's would), passes the
//! bytes both ways, gives the pty the pane's size when it changes, keeps
//! the pane's truth for readers, and records it where asked.
//!
//! Where the relay is the pane's own process, that process becomes the
//! program and a detached relay takes the pane's terminal ([`handover`]);
//! started from a shell, the relay is the program's parent ([`beside`]).

mod beside;
mod foreground;
mod handover;
mod pty;
pub mod recording;
mod relaying;
mod signals;
mod terminal;
mod text;
mod truth;
pub use truth::KEPT_BYTES;
pub mod wire;

use std::io;
use std::os::fd::AsFd;
use std::path::PathBuf;

use terminal::Outer;

/// What to record of a relayed pane, if anything.
#[derive(Debug, Clone, Default)]
pub struct Record {
    /// The asciicast file to write.
    pub to: Option<PathBuf>,
    /// Record what is typed too.
    pub typed_too: bool,
}

/// Becomes `argv` under a relay; returns only when the program could not
/// be started (its exit code, as a shell gives it).
pub fn run(argv: &[String], record: &Record) -> i32 {
    let outer = Outer::of_stdin();
    // Outside a terminal there is nothing to relay for a person.
    let Some(settings) = outer.settings() else {
        return failed(argv, pty::become_program_here(argv));
    };
    let size = terminal::size(io::stdin().as_fd());
    let pair = match pty::open(settings, size.as_ref()) {
        Ok(pair) => pair,
        Err(e) => return without_relay(argv, e),
    };
    // SAFETY: getsid and getpid have no preconditions.
    let leads_session = unsafe { libc::getsid(0) == libc::getpid() };
    if !leads_session {
        return match beside::relay_child(pair, argv, &outer, record) {
            Ok(status) => beside::end_as(status),
            Err(e) => without_relay(argv, e),
        };
    }
    match handover::hand_over(pair, &outer, record) {
        Ok(far) => failed(argv, pty::become_program(far, argv)),
        Err(e) => without_relay(argv, e),
    }
}

/// The program, run as it would have been without the relay, which could
/// not be made.
fn without_relay(argv: &[String], e: io::Error) -> i32 {
    eprintln!("zellij-mcp relay: no relay ({e}); running without it");
    failed(argv, pty::become_program_here(argv))
}

/// The program's exit code for an error starting it, as a shell says it.
fn failed(argv: &[String], e: io::Error) -> i32 {
    let program = argv.first().map_or("", String::as_str);
    eprintln!("zellij-mcp relay: {program}: {e}");
    match e.kind() {
        io::ErrorKind::NotFound => 127,
        _ => 126,
    }
}
