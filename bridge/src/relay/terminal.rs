//! The terminal the relay runs in (the pane's): its settings and size, put
//! in raw mode while the relay runs so that every byte, Ctrl-C among them,
//! reaches the program's own pty unchanged, and restored after.

use std::mem::MaybeUninit;
use std::os::fd::{AsRawFd, BorrowedFd};

/// The relay's stdin, where it is a terminal.
pub struct Outer {
    settings: Option<libc::termios>,
}

impl Outer {
    pub fn of_stdin() -> Outer {
        let mut settings = MaybeUninit::<libc::termios>::uninit();
        // SAFETY: tcgetattr fills the struct when it returns 0.
        let got = unsafe { libc::tcgetattr(0, settings.as_mut_ptr()) };
        Outer {
            // SAFETY: filled, as tcgetattr returned 0.
            settings: (got == 0).then(|| unsafe { settings.assume_init() }),
        }
    }

    pub fn settings(&self) -> Option<&libc::termios> {
        self.settings.as_ref()
    }

    /// Raw mode until the guard goes.
    pub fn raw(&self) -> Option<Raw> {
        let before = self.settings?;
        let mut raw = before;
        // SAFETY: cfmakeraw and tcsetattr on a copy of the terminal's own
        // settings.
        unsafe {
            libc::cfmakeraw(&mut raw);
            (libc::tcsetattr(0, libc::TCSANOW, &raw) == 0).then_some(Raw { before })
        }
    }
}

/// The outer terminal in raw mode; its settings come back when dropped.
pub struct Raw {
    before: libc::termios,
}

impl Drop for Raw {
    fn drop(&mut self) {
        // SAFETY: restores the settings read from this very terminal.
        unsafe { libc::tcsetattr(0, libc::TCSANOW, &self.before) };
    }
}

/// The window size of the terminal on `fd`, if it is one and its size is
/// set (Zellij sets a new pane's a moment after starting its program).
pub fn size(fd: BorrowedFd) -> Option<libc::winsize> {
    let mut size = MaybeUninit::<libc::winsize>::uninit();
    // SAFETY: TIOCGWINSZ fills a winsize when it returns 0.
    let got = unsafe { libc::ioctl(fd.as_raw_fd(), libc::TIOCGWINSZ as _, size.as_mut_ptr()) };
    // SAFETY: filled, as the ioctl returned 0.
    let size = (got == 0).then(|| unsafe { size.assume_init() })?;
    (size.ws_col > 0 && size.ws_row > 0).then_some(size)
}

/// Gives the pty on `fd` this size (its program then gets SIGWINCH).
pub fn resize(fd: BorrowedFd, size: &libc::winsize) {
    // SAFETY: TIOCSWINSZ only reads the winsize.
    unsafe {
        libc::ioctl(
            fd.as_raw_fd(),
            libc::TIOCSWINSZ as _,
            size as *const libc::winsize,
        )
    };
}
