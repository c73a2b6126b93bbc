//! The relay's loop: the program's output to the pane (and to the pane's
//! truth, and to a recording), what is typed to the program, the pane's
//! size to the program's pty; until the program's pty or the pane's
//! terminal is gone, or the relayed program (where the relay is its
//! parent) ended.

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::foreground::Foreground;
use super::recording::Recording;
use super::signals::Caught;
use super::truth::{Kept, Truth};
use super::{terminal, wire, Record};

/// The most bytes moved in one read.
const CHUNK: usize = 64 * 1024;
/// The most pieces of output the keeper may be behind by (at most a
/// chunk each): the relay then waits for it.
const KEEPER_BEHIND: usize = 16;

/// What the keeper thread is given: the relay passes bytes on at once, and
/// the keeper draws them into the pane's truth and its recording, on a
/// core of its own where there is one.
pub enum Change {
    Output(Vec<u8>),
    Typed(Vec<u8>),
    Resized(usize, usize),
    /// A recording begun (or, none, stopped) while the program runs; told
    /// on the sender once it is so.
    Record(Option<Recording>, SyncSender<()>),
    /// Nothing holds the program's pty any more: all it wrote is drawn.
    ProgramGone,
    /// The relay ends: all before this is drawn and recorded.
    End,
}

/// One program relayed.
pub struct Relay {
    near: OwnedFd,
    caught: Caught,
    socket: Option<PathBuf>,
    keeper: Option<(SyncSender<Change>, JoinHandle<()>)>,
    /// The program, where the relay is its parent: signals that would end
    /// the relay go to it instead, and its end ends the relay.
    child: Option<libc::pid_t>,
    /// Nothing holds the program's pty any more.
    program_gone: bool,
    foreground: Foreground,
}

impl Relay {
    /// Starts keeping the pane's truth, answering its readers and
    /// recording it as asked.
    pub fn start(
        near: OwnedFd,
        caught: Caught,
        record: &Record,
        child: Option<libc::pid_t>,
    ) -> Relay {
        let size = terminal::size(io::stdin().as_fd());
        // The pane's size as it is now that the relay hears of its changes
        // (it may have changed while the relay started).
        if let Some(size) = &size {
            terminal::resize(near.as_fd(), size);
        }
        // A size not set yet: a terminal's usual, until the pane's comes.
        let (cols, rows) = size.map_or((80, 24), |s| (s.ws_col.into(), s.ws_row.into()));
        let kept = Arc::new(Kept::new(Truth::new(cols, rows)));
        let (changes, taken) = sync_channel(KEEPER_BEHIND);
        let socket = told(&kept, &changes);
        let recording = record.to.as_deref().and_then(|path| {
            Recording::begin(path, cols, rows, record.typed_too)
                .inspect_err(|e| {
                    eprintln!("zellij-mcp relay: no recording at {}: {e}", path.display())
                })
                .ok()
        });
        let foreground = Foreground::new(kept.clone());
        let teller = foreground.teller();
        let tell_recording = move |recording: &Option<Recording>| {
            let file = recording.as_ref().map(|r| r.path().display().to_string());
            teller
                .iter()
                .for_each(|teller| teller.recording(file.clone()));
        };
        tell_recording(&recording);
        let keeping = std::thread::spawn(move || {
            let mut recording = recording;
            for change in taken {
                let mut truth = kept.lock();
                match change {
                    Change::Output(bytes) => {
                        truth.feed(&bytes);
                        drop(truth);
                        kept.changed();
                        if let Some(recording) = recording.as_mut() {
                            recording.output(&bytes);
                        }
                    }
                    Change::Typed(bytes) => {
                        if let Some(recording) = recording.as_mut() {
                            recording.typed(&bytes);
                        }
                    }
                    Change::Resized(cols, rows) => {
                        truth.resize(cols, rows);
                        drop(truth);
                        if let Some(recording) = recording.as_mut() {
                            recording.resized(cols, rows);
                        }
                    }
                    Change::Record(new, done) => {
                        // The screen as it is, drawn in the new recording
                        // before what follows.
                        recording = new.map(|mut begun| {
                            begun.screen_drawn(&truth.dump());
                            begun
                        });
                        tell_recording(&recording);
                        let _ = done.send(());
                    }
                    Change::ProgramGone => {
                        truth.ended = true;
                        drop(truth);
                        kept.changed();
                    }
                    Change::End => return,
                }
            }
        });
        Relay {
            near,
            caught,
            socket,
            keeper: Some((changes, keeping)),
            child,
            program_gone: false,
            foreground,
        }
    }

    fn keep(&self, change: Change) {
        if let Some((changes, _)) = &self.keeper {
            let _ = changes.send(change);
        }
    }

    /// Moves bytes both ways until the program's pty or the pane's
    /// terminal is gone, or a signal ends the relay; the relayed child's
    /// wait status, where there is one.
    pub fn until_done(&mut self) -> Option<libc::c_int> {
        let mut chunk = vec![0u8; CHUNK];
        let stdin = io::stdin();
        loop {
            let ready = poll(
                [self.caught.as_fd(), self.near.as_fd(), stdin.as_fd()],
                self.foreground.within(),
            );
            self.foreground.look(self.near.as_fd());
            let [signalled, output, typed] = ready;
            if signalled {
                for signal in self.caught.drain() {
                    match (signal, self.child) {
                        (libc::SIGWINCH, _) => self.follow_size(),
                        (libc::SIGCHLD, _) => {}
                        // SAFETY: signals the relay's own child, not reaped.
                        (signal, Some(child)) => unsafe {
                            libc::kill(child, signal);
                        },
                        (_, None) => return None,
                    }
                }
                if let Some(status) = self.child_ended(libc::WNOHANG) {
                    self.drain_output(&mut chunk);
                    return Some(status);
                }
            }
            if output {
                match read(self.near.as_fd(), &mut chunk) {
                    // The pane gone: the program is hung up on.
                    Some(n) if !self.write_out(&chunk[..n]) => return self.hung_up(),
                    Some(_) => self.foreground.soon(),
                    // Nothing holds the program's pty open any more.
                    None => {
                        self.program_gone = true;
                        return self.child_ended(0);
                    }
                }
            }
            if typed {
                match read(stdin.as_fd(), &mut chunk) {
                    Some(n) => {
                        // A program gone meanwhile is seen at the next read.
                        write_all(self.near.as_fd(), &chunk[..n]);
                        self.keep(Change::Typed(chunk[..n].to_vec()));
                        self.foreground.soon();
                    }
                    None => return self.hung_up(),
                }
            }
        }
    }

    /// The pane's terminal is gone: the program is hung up on (its pty
    /// closed, or as the parent, SIGHUP), and waited for where it is the
    /// relay's child.
    fn hung_up(&self) -> Option<libc::c_int> {
        let child = self.child?;
        // SAFETY: signals the relay's own child, not reaped.
        unsafe { libc::kill(child, libc::SIGHUP) };
        self.child_ended(0)
    }

    /// The child's wait status, once it ended (`WNOHANG`: if it has).
    fn child_ended(&self, how: libc::c_int) -> Option<libc::c_int> {
        let child = self.child?;
        let mut status = 0;
        loop {
            // SAFETY: waits for the relay's own child.
            match unsafe { libc::waitpid(child, &mut status, how) } {
                pid if pid == child => return Some(status),
                -1 if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => {}
                _ => return None,
            }
        }
    }

    /// What the program wrote before it ended and is still unread.
    fn drain_output(&mut self, chunk: &mut [u8]) {
        // SAFETY: fcntl on a descriptor this relay owns.
        unsafe { libc::fcntl(self.near.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK) };
        while let Some(n) = read(self.near.as_fd(), chunk) {
            if !self.write_out(&chunk[..n]) {
                return;
            }
        }
    }

    /// Output to the pane, the truth and the recording; false once the
    /// pane is gone.
    fn write_out(&mut self, bytes: &[u8]) -> bool {
        if !write_all(io::stdout().as_fd(), bytes) {
            return false;
        }
        self.keep(Change::Output(bytes.to_vec()));
        true
    }

    /// Once its program is gone, goes on answering the pane's readers
    /// (the whole output of a run among them) until the pane is gone, a
    /// signal ends the relay, or `within` passed.
    pub fn linger(&mut self, within: Duration) {
        if !self.program_gone {
            return;
        }
        self.keep(Change::ProgramGone);
        let until = Instant::now() + within;
        let stdin = io::stdin();
        let mut chunk = [0u8; 1024];
        while let Some(left) = until.checked_duration_since(Instant::now()) {
            let [signalled, typed] = poll([self.caught.as_fd(), stdin.as_fd()], Some(left));
            if signalled
                && self
                    .caught
                    .drain()
                    .iter()
                    .any(|s| ![libc::SIGWINCH, libc::SIGCHLD].contains(s))
            {
                return;
            }
            // What is typed has no program to go to.
            if typed && read(stdin.as_fd(), &mut chunk).is_none() {
                return;
            }
        }
    }

    fn follow_size(&mut self) {
        if let Some(size) = terminal::size(io::stdin().as_fd()) {
            terminal::resize(self.near.as_fd(), &size);
            self.keep(Change::Resized(size.ws_col.into(), size.ws_row.into()));
        }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        // The keeper ends once it drew (and recorded) everything sent
        // before (the socket's thread holds a sender too).
        if let Some((changes, keeping)) = self.keeper.take() {
            if changes.send(Change::End).is_ok() {
                let _ = keeping.join();
            }
        }
        if let Some(socket) = &self.socket {
            let _ = std::fs::remove_file(socket);
        }
    }
}

/// Answers readers of the pane (by its session and id, as Zellij gave
/// them to the pane) from `truth`, and begins and stops recordings by
/// `changes`; the socket, if there is one.
fn told(kept: &Arc<Kept>, changes: &SyncSender<Change>) -> Option<PathBuf> {
    let session = std::env::var("ZELLIJ_SESSION_NAME").ok()?;
    let pane = std::env::var("ZELLIJ_PANE_ID").ok()?.parse().ok()?;
    let socket = wire::socket(&session, pane, true)?;
    wire::serve(&socket, kept.clone(), changes.clone()).ok()?;
    Some(socket)
}

/// Which of `fds` can be read (or are closed), once one can (or, given,
/// within `within`).
pub fn poll<const N: usize>(fds: [BorrowedFd; N], within: Option<Duration>) -> [bool; N] {
    let timeout = within.map_or(-1, |w| w.as_millis().min(i32::MAX as u128) as libc::c_int);
    let mut polled = fds.map(|fd| libc::pollfd {
        fd: fd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    });
    // SAFETY: polls an array of its own length.
    let n = unsafe { libc::poll(polled.as_mut_ptr(), N as libc::nfds_t, timeout) };
    if n <= 0 {
        // Interrupted by a signal: its byte is on the pipe for the next poll.
        return [false; N];
    }
    polled.map(|p| p.revents & (libc::POLLIN | libc::POLLHUP | libc::POLLERR) != 0)
}

/// Bytes read from `fd`; `None` at its end, or once it failed.
pub fn read(fd: BorrowedFd, chunk: &mut [u8]) -> Option<usize> {
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
pub fn write_all(fd: BorrowedFd, mut bytes: &[u8]) -> bool {
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
