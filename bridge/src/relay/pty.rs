//! The relay's own pty: a pair made with the outer terminal's settings and
//! size, and the program started on its far end as the leader of a session
//! of its own, with that end as its controlling terminal, as a terminal
//! emulator starts it.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};

/// The pty's near end (what the program writes is read here) and its far
/// end (the program's terminal).
pub struct Pair {
    pub near: OwnedFd,
    pub far: OwnedFd,
}

/// A pty with `settings` and `size` where given (a relay whose stdin is
/// no terminal gives none: the kernel's defaults).
pub fn open(settings: Option<&libc::termios>, size: Option<&libc::winsize>) -> io::Result<Pair> {
    let (mut near, mut far) = (-1, -1);
    let settings = settings.map_or(std::ptr::null(), |s| s as *const libc::termios);
    let size = size.map_or(std::ptr::null(), |s| s as *const libc::winsize);
    // SAFETY: the out pointers are valid; the others are null or point at
    // values that outlive the call (openpty only reads them).
    let made = unsafe {
        libc::openpty(
            &mut near,
            &mut far,
            std::ptr::null_mut(),
            settings as *mut _,
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
    // Neither end may leak into the program: it gets the far end as its
    // stdio only.
    close_on_exec(&pair.near)?;
    close_on_exec(&pair.far)?;
    Ok(pair)
}

/// `argv` started on the pair's far end.
pub fn spawn(argv: &[String], far: OwnedFd) -> io::Result<Child> {
    let (program, args) = argv
        .split_first()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no program given"))?;
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::from(far.try_clone()?))
        .stdout(Stdio::from(far.try_clone()?))
        .stderr(Stdio::from(far));
    // SAFETY: setsid and ioctl are async-signal-safe, as code run between
    // fork and exec must be.
    unsafe {
        command.pre_exec(|| {
            if libc::setsid() < 0 {
                return Err(io::Error::last_os_error());
            }
            if libc::ioctl(0, libc::TIOCSCTTY as _, 0) < 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    command.spawn()
}

fn close_on_exec(fd: &OwnedFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor this process owns.
    let done = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFD, libc::FD_CLOEXEC) };
    match done {
        0 => Ok(()),
        _ => Err(io::Error::last_os_error()),
    }
}
