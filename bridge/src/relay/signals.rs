//! Signals the relay gets, as bytes on a pipe its loop polls (a handler
//! may do little more than write one byte).

use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicI32, Ordering};

/// The pipe's write end, for the handler.
static WRITE_END: AtomicI32 = AtomicI32::new(-1);

/// Signals that end the relay (its pane's terminal gone, or a `kill`):
/// the program is then hung up on, as by a terminal closed. A relay that
/// is the program's parent passes them on to it instead.
pub const ENDING: [libc::c_int; 4] = [libc::SIGHUP, libc::SIGINT, libc::SIGQUIT, libc::SIGTERM];

/// The pipe the caught signals come out of.
pub struct Caught {
    read_end: OwnedFd,
    _write_end: OwnedFd,
}

impl Caught {
    /// Catches the window's size changes, a child's end, and the signals
    /// that end it.
    pub fn catch() -> io::Result<Caught> {
        let mut ends = [-1; 2];
        // SAFETY: pipe fills two descriptors when it returns 0.
        if unsafe { libc::pipe(ends.as_mut_ptr()) } != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: two open descriptors this process now owns.
        let (read_end, write_end) =
            unsafe { (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])) };
        for end in [&read_end, &write_end] {
            // SAFETY: fcntl on descriptors this process owns.
            unsafe {
                libc::fcntl(end.as_raw_fd(), libc::F_SETFD, libc::FD_CLOEXEC);
                libc::fcntl(end.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK);
            }
        }
        WRITE_END.store(write_end.as_raw_fd(), Ordering::SeqCst);
        let caught = [libc::SIGWINCH, libc::SIGCHLD].into_iter().chain(ENDING);
        for signal in caught {
            // SAFETY: the handler only writes one byte to a pipe, which is
            // async-signal-safe; SA_RESTART keeps blocking writes going.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_signal as *const () as libc::sighandler_t;
                action.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut action.sa_mask);
                if libc::sigaction(signal, &action, std::ptr::null_mut()) != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
        }
        Ok(Caught {
            read_end,
            _write_end: write_end,
        })
    }

    /// The signals caught since the last call, in order.
    pub fn drain(&self) -> Vec<libc::c_int> {
        let mut bytes = [0u8; 64];
        let mut signals = Vec::new();
        loop {
            // SAFETY: reads into a buffer of its own size.
            let n = unsafe {
                libc::read(
                    self.read_end.as_raw_fd(),
                    bytes.as_mut_ptr().cast(),
                    bytes.len(),
                )
            };
            if n <= 0 {
                return signals;
            }
            signals.extend(bytes[..n as usize].iter().map(|b| libc::c_int::from(*b)));
        }
    }
}

impl AsFd for Caught {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.read_end.as_fd()
    }
}

extern "C" fn on_signal(signal: libc::c_int) {
    let byte = signal as u8;
    let end = WRITE_END.load(Ordering::SeqCst);
    // SAFETY: write is async-signal-safe; a full pipe drops the byte, and
    // the loop then still has bytes to wake on. errno is kept as it was:
    // the code the signal interrupted may be about to read it.
    unsafe {
        let errno = errno();
        let before = *errno;
        libc::write(end, (&byte as *const u8).cast(), 1);
        *errno = before;
    }
}

#[cfg(target_os = "linux")]
unsafe fn errno() -> *mut libc::c_int {
    libc::__errno_location()
}

#[cfg(target_os = "macos")]
unsafe fn errno() -> *mut libc::c_int {
    libc::__error()
}
