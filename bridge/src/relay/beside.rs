//! The relay of a program started from a shell (the relay does not lead
//! the pane's session, so it cannot hand the pane's terminal over): the
//! relay stays in the shell's job, runs the program as its child on the
//! relay's pty, passes on to it the signals it gets, and ends as the
//! program ended, with its exit code or by the same signal.

use std::io;

use super::relaying::Relay;
use super::signals::Caught;
use super::terminal::Outer;
use super::{pty, Record};

/// Runs `argv` on the pair's far end as the relay's child, relays it, and
/// gives its wait status; an error if it could not be started.
pub fn relay_child(
    pair: pty::Pair,
    argv: &[String],
    outer: &Outer,
    record: &Record,
) -> io::Result<libc::c_int> {
    let caught = Caught::catch()?;
    // SAFETY: fork in a process of one thread (`main` runs the relay
    // before any runtime starts); the child only execs or exits.
    let child = match unsafe { libc::fork() } {
        -1 => return Err(io::Error::last_os_error()),
        0 => {
            drop(pair.near);
            // SAFETY: the child starts a session of its own, whose
            // terminal the far end becomes.
            let e = unsafe {
                if libc::setsid() < 0 {
                    io::Error::last_os_error()
                } else {
                    pty::become_program(pair.far, argv)
                }
            };
            let code = super::failed(argv, e);
            // SAFETY: ends the child without running the parent's code.
            unsafe { libc::_exit(code) }
        }
        child => child,
    };
    drop(pair.far);
    // SAFETY: a write to a pane gone ends the relay, not by a signal.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    let raw = outer.raw();
    let status = Relay::start(pair.near, caught, record, Some(child)).until_done();
    drop(raw);
    Ok(status.unwrap_or(1 << 8))
}

/// Ends the relay as its child ended: its exit code (returned), or killed
/// by its signal (without a core file of the relay's own).
pub fn end_as(status: libc::c_int) -> i32 {
    if libc::WIFEXITED(status) {
        return libc::WEXITSTATUS(status);
    }
    let signal = libc::WTERMSIG(status);
    // SAFETY: these calls change only this process's own limits, signal
    // action and mask, on the way out.
    unsafe {
        let no_core = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        libc::setrlimit(libc::RLIMIT_CORE, &no_core);
        libc::signal(signal, libc::SIG_DFL);
        let mut only = std::mem::zeroed::<libc::sigset_t>();
        libc::sigemptyset(&mut only);
        libc::sigaddset(&mut only, signal);
        libc::sigprocmask(libc::SIG_UNBLOCK, &only, std::ptr::null_mut());
        libc::kill(libc::getpid(), signal);
    }
    128 + signal
}
