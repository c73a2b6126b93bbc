//! The relay of a pane whose own process runs it (the pane's session
//! leader): that process gives the pane's terminal up to a relay it starts
//! (detached, so that the program has no child it does not know of), and
//! becomes the program on the relay's pty. So Zellij, and everything that
//! asks about the pane's process (its state, its conversation, its end,
//! the signals sent to it), reach the program itself.

use std::io;
use std::os::fd::{AsFd, FromRawFd, OwnedFd};
use std::time::Duration;

use super::relaying::{read, write_all, Relay};
use super::signals::Caught;
use super::terminal::Outer;
use super::{pty, Record};

/// How long a relay whose program is gone still answers the pane's
/// readers (a run's whole output is read then), unless the pane goes.
const LINGER: Duration = Duration::from_secs(30);

/// Starts the relay on the pair's near end and gives it the pane's
/// terminal; the far end, for the program, once the relay leads the pane's
/// terminal.
pub fn hand_over(pair: pty::Pair, outer: &Outer, record: &Record) -> io::Result<OwnedFd> {
    let (released, on_release) = baton()?;
    let (taken, on_taken) = baton()?;
    // Giving the terminal up hangs up its foreground group: this process
    // and the relay, until the relay has a session of its own.
    // SAFETY: changing this process's own signal action.
    unsafe { libc::signal(libc::SIGHUP, libc::SIG_IGN) };
    // SAFETY: fork in a process of one thread (`main` runs the relay
    // before any runtime starts); each side goes on with its own copies.
    match unsafe { libc::fork() } {
        -1 => return Err(io::Error::last_os_error()),
        0 => {
            drop((pair.far, released, on_taken));
            // The first child starts the relay and ends at once: the relay
            // is no child of the program's.
            // SAFETY: as above; `_exit` ends each child without running
            // anything of the parent's.
            unsafe {
                if libc::fork() == 0 {
                    libc::_exit(relay(pair.near, on_release, taken, outer, record));
                }
                libc::_exit(0);
            }
        }
        first => {
            // SAFETY: reaps the first child, which ends at once.
            unsafe { libc::waitpid(first, std::ptr::null_mut(), 0) };
        }
    }
    drop((pair.near, on_release, taken));
    pty::release_terminal()?;
    released.pass()?;
    let took = on_taken.wait();
    // SAFETY: the program gets SIGHUP's default action back.
    unsafe { libc::signal(libc::SIGHUP, libc::SIG_DFL) };
    match took {
        Some(()) => Ok(pair.far),
        None => {
            // The relay could not lead the pane's terminal: take it back,
            // so that the program runs as it would have without it.
            pty::take_back_terminal()?;
            Err(io::Error::other(
                "the relay could not take the pane's terminal",
            ))
        }
    }
}

/// The relay's side: takes the pane's terminal once released, then moves
/// bytes until the program's pty or the pane's terminal is gone.
fn relay(near: OwnedFd, on_release: Waiter, taken: Passer, outer: &Outer, record: &Record) -> i32 {
    if on_release.wait().is_none() || pty::take_terminal().is_err() {
        return 1;
    }
    let Ok(caught) = Caught::catch() else {
        return 1;
    };
    // SAFETY: a write to a pane gone ends the relay, not by a signal.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    let raw = outer.raw();
    if taken.pass().is_err() {
        return 1;
    }
    let mut relay = Relay::start(near, caught, record, None);
    relay.until_done();
    relay.linger(LINGER);
    drop(relay);
    drop(raw);
    0
}

/// A one-byte message between the pane's process and the relay, over a
/// pipe: its sending end, and its waiting end. Each side keeps only its
/// own end, so that a side that ended is seen as such.
fn baton() -> io::Result<(Passer, Waiter)> {
    let mut ends = [-1; 2];
    // SAFETY: pipe fills two descriptors when it returns 0.
    if unsafe { libc::pipe(ends.as_mut_ptr()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    for end in ends {
        // SAFETY: fcntl on a descriptor this process owns; neither end
        // leaks into the program.
        unsafe { libc::fcntl(end, libc::F_SETFD, libc::FD_CLOEXEC) };
    }
    // SAFETY: two open descriptors this process now owns.
    unsafe {
        Ok((
            Passer(OwnedFd::from_raw_fd(ends[1])),
            Waiter(OwnedFd::from_raw_fd(ends[0])),
        ))
    }
}

struct Passer(OwnedFd);

impl Passer {
    fn pass(&self) -> io::Result<()> {
        match write_all(self.0.as_fd(), &[1]) {
            true => Ok(()),
            false => Err(io::Error::last_os_error()),
        }
    }
}

struct Waiter(OwnedFd);

impl Waiter {
    /// Waits for the other side to pass; `None` if it never will (it
    /// ended).
    fn wait(&self) -> Option<()> {
        let mut byte = [0u8; 1];
        read(self.0.as_fd(), &mut byte).map(|_| ())
    }
}
