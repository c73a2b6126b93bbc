//! The relay's own pty, and the handing over of the pane's terminal: the
//! pane's process gives the pane's terminal up to the relay and becomes
//! the program, on the new pty's far end, as its controlling terminal.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// The pty's near end (what the program writes is read here) and its far
/// end (the program's terminal).
pub struct Pair {
    pub near: OwnedFd,
    pub far: OwnedFd,
}

/// A pty with `settings` and `size`.
pub fn open(settings: &libc::termios, size: Option<&libc::winsize>) -> io::Result<Pair> {
    let (mut near, mut far) = (-1, -1);
    let size = size.map_or(std::ptr::null(), |s| s as *const libc::winsize);
    // SAFETY: the out pointers are valid; the others are null or point at
    // values that outlive the call (openpty only reads them).
    let made = unsafe {
        libc::openpty(
            &mut near,
            &mut far,
            std::ptr::null_mut(),
            settings as *const libc::termios as *mut _,
            size as *mut _,
        )
    };
    if made != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: openpty returned two open descriptors this process owns.
    let pair = unsafe {
        Pair {
            near: OwnedFd::from_raw_fd(near),
            far: OwnedFd::from_raw_fd(far),
        }
    };
    // Neither end leaks into the program but as its stdio.
    close_on_exec(&pair.near)?;
    close_on_exec(&pair.far)?;
    Ok(pair)
}

/// Gives up the pane's terminal (stdin) as this session's controlling
/// terminal, so that another session can take it.
pub fn release_terminal() -> io::Result<()> {
    // SAFETY: TIOCNOTTY takes no argument.
    check(unsafe { libc::ioctl(0, libc::TIOCNOTTY as _) })
}

/// Makes the pane's terminal (stdin) the controlling terminal of a new
/// session this process leads.
pub fn take_terminal() -> io::Result<()> {
    // SAFETY: setsid and TIOCSCTTY act on this process only.
    unsafe {
        check(libc::setsid())?;
        check(libc::ioctl(0, libc::TIOCSCTTY as _, 0))
    }
}

/// Takes the pane's terminal (stdin) back as this session's controlling
/// terminal, after the relay could not take it.
pub fn take_back_terminal() -> io::Result<()> {
    // SAFETY: TIOCSCTTY acts on this process's session only.
    check(unsafe { libc::ioctl(0, libc::TIOCSCTTY as _, 0) })
}

/// Becomes `argv` on the far end, which becomes this session's controlling
/// terminal and the program's stdio; returns only if that failed.
pub fn become_program(far: OwnedFd, argv: &[String]) -> io::Error {
    let fd = far.as_raw_fd();
    // SAFETY: descriptors this process owns.
    unsafe {
        if let Err(e) = check(libc::ioctl(fd, libc::TIOCSCTTY as _, 0)) {
            return e;
        }
        for stdio in 0..3 {
            if let Err(e) = check(libc::dup2(fd, stdio)) {
                return e;
            }
        }
    }
    drop(far);
    become_program_here(argv)
}

/// Becomes `argv`, on the terminal this process has; returns only if that
/// failed.
pub fn become_program_here(argv: &[String]) -> io::Error {
    let words: Result<Vec<CString>, _> = argv.iter().map(|w| CString::new(w.as_bytes())).collect();
    let Ok(words) = words else {
        return io::Error::new(io::ErrorKind::InvalidInput, "an argument holds a NUL byte");
    };
    let Some(program) = words.first() else {
        return io::Error::new(io::ErrorKind::InvalidInput, "no program given");
    };
    let mut pointers: Vec<*const libc::c_char> = words.iter().map(|w| w.as_ptr()).collect();
    pointers.push(std::ptr::null());
    // SAFETY: NUL-terminated strings and a null-terminated array that
    // outlive the call.
    unsafe { libc::execvp(program.as_ptr(), pointers.as_ptr()) };
    io::Error::last_os_error()
}

fn close_on_exec(fd: &OwnedFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor this process owns.
    check(unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFD, libc::FD_CLOEXEC) })
}

fn check(result: libc::c_int) -> io::Result<()> {
    match result {
        r if r >= 0 => Ok(()),
        _ => Err(io::Error::last_os_error()),
    }
}
