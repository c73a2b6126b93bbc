//! `zellij-mcp relay -- <argv>`: the program runs on a pty of the relay's
//! own, inside its pane, and a person sees no difference (docs/relay.md).
//!
//! The pane's own process becomes the program: it gives the pane's
//! terminal up to a relay process it starts (detached, so that the program
//! has no child it does not know of), takes the new pty as its terminal
//! and execs the program. So Zellij and everything that asks about the
//! pane's process (its state, its conversation, its end, the signals sent
//! to it) reach the program itself. The relay leads the pane's terminal:
//! it puts it in raw mode, so that every byte, Ctrl-C and Ctrl-Z among
//! them, reaches the program's pty unchanged (whose line discipline acts on
//! them as the pane's would), passes the bytes both ways, and gives the pty
//! the pane's size when it changes. It ends once nothing holds the
//! program's pty any more, or when the pane's terminal goes (the program
//! is then hung up on).

mod pty;
mod signals;
mod terminal;
mod truth;
pub mod wire;

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use signals::Caught;
use terminal::Outer;
use truth::Truth;

/// The most bytes moved in one read.
const CHUNK: usize = 64 * 1024;

/// Becomes `argv` under a relay; returns only when the program could not
/// be started (its exit code, as a shell gives it).
pub fn run(argv: &[String]) -> i32 {
    let outer = Outer::of_stdin();
    // Outside a terminal there is nothing to relay for a person.
    let Some(settings) = outer.settings() else {
        return failed(argv, pty::become_program_here(argv));
    };
    let size = terminal::size(io::stdin().as_fd());
    let handed = pty::open(settings, size.as_ref()).and_then(|pair| hand_over(pair, &outer));
    match handed {
        Ok(far) => failed(argv, pty::become_program(far, argv)),
        // No relay: the program runs as it would have without it.
        Err(e) => {
            eprintln!("zellij-mcp relay: no relay ({e}); running without it");
            failed(argv, pty::become_program_here(argv))
        }
    }
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

/// Starts the relay on the pair's near end and gives it the pane's
/// terminal; the far end, for the program, once the relay leads the pane's
/// terminal.
fn hand_over(pair: pty::Pair, outer: &Outer) -> io::Result<OwnedFd> {
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
                    libc::_exit(relay(pair.near, on_release, taken, outer));
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
fn relay(near: OwnedFd, on_release: Waiter, taken: Passer, outer: &Outer) -> i32 {
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
    let size = terminal::size(io::stdin().as_fd());
    let (cols, rows) = size.map_or((80, 24), |s| (s.ws_col.into(), s.ws_row.into()));
    let truth = Arc::new(Mutex::new(Truth::new(cols, rows)));
    let socket = told(&truth);
    Relay {
        near,
        caught,
        truth,
    }
    .until_done();
    if let Some(socket) = socket {
        let _ = std::fs::remove_file(socket);
    }
    drop(raw);
    0
}

/// Answers readers of the pane (by its session and id, as Zellij gave
/// them to the pane) from `truth`; the socket, if there is one.
fn told(truth: &Arc<Mutex<Truth>>) -> Option<PathBuf> {
    let session = std::env::var("ZELLIJ_SESSION_NAME").ok()?;
    let pane = std::env::var("ZELLIJ_PANE_ID").ok()?.parse().ok()?;
    let socket = wire::socket(&session, pane, true)?;
    wire::serve(&socket, truth.clone()).ok()?;
    Some(socket)
}

/// One program relayed.
struct Relay {
    near: OwnedFd,
    caught: Caught,
    truth: Arc<Mutex<Truth>>,
}

impl Relay {
    /// Moves bytes both ways until the program's pty or the pane's
    /// terminal is gone, or a signal ends the relay.
    fn until_done(&self) {
        let mut chunk = vec![0u8; CHUNK];
        let stdin = io::stdin();
        loop {
            let ready = poll([self.caught.as_fd(), self.near.as_fd(), stdin.as_fd()]);
            let [signalled, output, typed] = ready;
            if signalled {
                for signal in self.caught.drain() {
                    match signal {
                        libc::SIGWINCH => self.follow_size(),
                        _ => return,
                    }
                }
            }
            if output {
                match read(self.near.as_fd(), &mut chunk) {
                    Some(n) => {
                        // The pane gone: the program is hung up on.
                        if !write_all(io::stdout().as_fd(), &chunk[..n]) {
                            return;
                        }
                        self.truth().feed(&chunk[..n]);
                    }
                    // Nothing holds the program's pty open any more.
                    None => return,
                }
            }
            if typed {
                match read(stdin.as_fd(), &mut chunk) {
                    // A program gone meanwhile is seen at the next read.
                    Some(n) => _ = write_all(self.near.as_fd(), &chunk[..n]),
                    None => return,
                }
            }
        }
    }

    fn follow_size(&self) {
        if let Some(size) = terminal::size(io::stdin().as_fd()) {
            terminal::resize(self.near.as_fd(), &size);
            self.truth().resize(size.ws_col.into(), size.ws_row.into());
        }
    }

    fn truth(&self) -> std::sync::MutexGuard<'_, Truth> {
        self.truth.lock().unwrap_or_else(PoisonError::into_inner)
    }
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

/// Which of `fds` can be read (or are closed).
fn poll<const N: usize>(fds: [BorrowedFd; N]) -> [bool; N] {
    let mut polled = fds.map(|fd| libc::pollfd {
        fd: fd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    });
    // SAFETY: polls an array of its own length.
    let n = unsafe { libc::poll(polled.as_mut_ptr(), N as libc::nfds_t, -1) };
    if n <= 0 {
        // Interrupted by a signal: its byte is on the pipe for the next poll.
        return [false; N];
    }
    polled.map(|p| p.revents & (libc::POLLIN | libc::POLLHUP | libc::POLLERR) != 0)
}

/// Bytes read from `fd`; `None` at its end, or once it failed.
fn read(fd: BorrowedFd, chunk: &mut [u8]) -> Option<usize> {
    loop {
        // SAFETY: reads into a buffer of its own size.
        let n = unsafe { libc::read(fd.as_raw_fd(), chunk.as_mut_ptr().cast(), chunk.len()) };
        match n {
            n if n > 0 => return Some(n as usize),
            0 => return None,
            _ if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => continue,
            _ => return None,
        }
    }
}

/// Writes all of `bytes`; false once the other end is gone.
fn write_all(fd: BorrowedFd, mut bytes: &[u8]) -> bool {
    while !bytes.is_empty() {
        // SAFETY: writes from a buffer of its own size.
        let n = unsafe { libc::write(fd.as_raw_fd(), bytes.as_ptr().cast(), bytes.len()) };
        match n {
            n if n > 0 => bytes = &bytes[n as usize..],
            _ if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => continue,
            _ => return false,
        }
    }
    true
}
