//! `zellij-mcp relay -- <argv>`: the program runs on a pty of the relay's
//! own, inside the pane. Bytes go both ways unchanged (the pane's terminal
//! in raw mode, so Ctrl-C, Ctrl-Z and the rest reach the program's own pty,
//! whose line discipline acts on them as the pane's would); the window size
//! follows the pane's; signals sent to the relay go on to the program; and
//! the relay ends as the program did, with its exit code, or killed by the
//! same signal. A person sees no difference (docs/relay.md).

mod pty;
mod signals;
mod terminal;

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, ExitStatus};

use signals::Caught;
use terminal::Outer;

/// The most bytes moved in one read.
const CHUNK: usize = 64 * 1024;

/// Runs `argv` under the relay; returns only for an exit code.
pub fn run(argv: &[String]) -> i32 {
    let outer = Outer::of_stdin();
    let size = terminal::size(io::stdin().as_fd());
    let started = pty::open(outer.settings(), size.as_ref()).and_then(|pair| {
        let caught = Caught::catch()?;
        // SAFETY: ignoring SIGPIPE has no preconditions; the program gets
        // the default back (std resets it in a child).
        unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
        let child = pty::spawn(argv, pair.far)?;
        Ok((pair.near, child, caught))
    });
    let (near, child, caught) = match started {
        Ok(started) => started,
        Err(e) => {
            let program = argv.first().map_or("", String::as_str);
            eprintln!("zellij-mcp relay: {program}: {e}");
            // As a shell says a command was not found, or could not run.
            return match e.kind() {
                io::ErrorKind::NotFound => 127,
                _ => 126,
            };
        }
    };
    let raw = outer.raw();
    let status = Relay {
        near,
        child,
        caught,
        stdin_open: true,
        stdout_open: true,
        hangs_up: outer.settings().is_some(),
    }
    .until_exit();
    drop(raw);
    end_as(status)
}

/// One program relayed.
struct Relay {
    near: OwnedFd,
    child: Child,
    caught: Caught,
    stdin_open: bool,
    stdout_open: bool,
    /// The relay's stdin is a terminal, whose end is a hang-up.
    hangs_up: bool,
}

impl Relay {
    /// Moves bytes both ways until the program ends; its status.
    fn until_exit(mut self) -> ExitStatus {
        let mut chunk = vec![0u8; CHUNK];
        loop {
            let stdin = io::stdin();
            let input = self.stdin_open.then(|| stdin.as_fd());
            let [signalled, output, typed] =
                poll([Some(self.caught.as_fd()), Some(self.near.as_fd()), input]);
            if signalled {
                for signal in self.caught.drain() {
                    self.on_signal(signal);
                }
                if let Ok(Some(status)) = self.child.try_wait() {
                    self.drain_output(&mut chunk);
                    return status;
                }
            }
            if output {
                match read(self.near.as_fd(), &mut chunk) {
                    Some(n) => self.write_out(&chunk[..n]),
                    // Nothing holds the program's terminal open any more.
                    None => return self.wait(),
                }
            }
            if typed {
                match read(stdin.as_fd(), &mut chunk) {
                    // A program gone meanwhile is seen at the next read.
                    Some(n) => _ = write_all(self.near.as_fd(), &chunk[..n]),
                    None => {
                        self.stdin_open = false;
                        // The pane's terminal is gone: the program is hung
                        // up on, as it would have been. (Input that is no
                        // terminal just ends.)
                        if self.hangs_up {
                            self.signal(libc::SIGHUP);
                        }
                    }
                }
            }
        }
    }

    fn on_signal(&self, signal: libc::c_int) {
        match signal {
            libc::SIGWINCH => {
                if let Some(size) = terminal::size(io::stdin().as_fd()) {
                    terminal::resize(self.near.as_fd(), &size);
                }
            }
            libc::SIGCHLD => {}
            signal => self.signal(signal),
        }
    }

    /// Sends `signal` to the program itself, as it would have got it as
    /// the pane's own process.
    fn signal(&self, signal: libc::c_int) {
        // SAFETY: kill has no memory preconditions; the child is not
        // reaped yet, so its pid is still its own.
        unsafe { libc::kill(self.child.id() as libc::pid_t, signal) };
    }

    /// What the program wrote before it ended and is still unread.
    fn drain_output(&mut self, chunk: &mut [u8]) {
        // SAFETY: fcntl on a descriptor this relay owns.
        unsafe { libc::fcntl(self.near.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK) };
        while let Some(n) = read(self.near.as_fd(), chunk) {
            self.write_out(&chunk[..n]);
        }
    }

    fn write_out(&mut self, bytes: &[u8]) {
        if self.stdout_open && !write_all(io::stdout().as_fd(), bytes) {
            // Nobody reads the pane any more: the program goes on, unheard.
            self.stdout_open = false;
        }
    }

    fn wait(&mut self) -> ExitStatus {
        loop {
            match self.child.wait() {
                Ok(status) => return status,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => return ExitStatus::from_raw(1 << 8),
            }
        }
    }
}

/// Which of `fds` can be read (or are closed); none given is never ready.
fn poll<const N: usize>(fds: [Option<BorrowedFd>; N]) -> [bool; N] {
    let mut polled = fds.map(|fd| libc::pollfd {
        fd: fd.map_or(-1, |fd| fd.as_raw_fd()),
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

/// Ends the relay as the program ended: its exit code, or killed by its
/// signal (without a core file of the relay's own).
fn end_as(status: ExitStatus) -> i32 {
    if let Some(code) = status.code() {
        return code;
    }
    let signal = status.signal().unwrap_or(libc::SIGKILL);
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
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &only, std::ptr::null_mut());
        libc::kill(libc::getpid(), signal);
    }
    // A signal that does not end a process (none of those a process dies
    // of): the shell's way of telling it.
    128 + signal
}
