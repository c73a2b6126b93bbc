//! An agent's processes that outlive its session (Gemini CLI's two node
//! processes do): marked while it runs ([`marks`]), ended before it is
//! resumed in the same conversation ([`end`]), so that no two processes of
//! one agent hold one conversation. Only the processes of its own program
//! are marked, never what it started (a server it left running is the
//! person's), and a mark ends only that very process: same pid, same
//! start, same boot.

use std::time::{Duration, Instant};

use zellij_mcp_protocol::launcher;
use zellij_mcp_protocol::ops::ProcessMark;

use super::{Lookup, ProcessTable};

/// How long ended processes get to exit on SIGTERM before SIGKILL.
const TERM_GRACE: Duration = Duration::from_secs(3);
/// How long processes killed with SIGKILL are waited for.
const KILL_GRACE: Duration = Duration::from_secs(2);
const LOOK_EVERY: Duration = Duration::from_millis(50);

/// The processes under `pid` (a pane's process) that run the same program
/// as it; none where the platform cannot tell their command lines.
pub fn marks(table: &dyn ProcessTable, pid: u32) -> Vec<ProcessMark> {
    let program = |p| launcher::program_name(&table.command_line(p)?);
    let (Some(own), Some(tree), Some(boot)) = (program(pid), table.tree(pid), table.boot()) else {
        return Vec::new();
    };
    tree.into_iter()
        .filter(|p| program(*p).as_ref() == Some(&own))
        .filter_map(|p| match table.process(p) {
            Lookup::Found(process) if !process.zombie => Some(ProcessMark {
                pid: p,
                started: process.started,
                boot: boot.clone(),
            }),
            _ => None,
        })
        .collect()
}

/// Whether the process `mark` names still runs.
fn runs(table: &dyn ProcessTable, mark: &ProcessMark, boot: &str) -> bool {
    mark.boot == boot
        && matches!(table.process(mark.pid),
            Lookup::Found(p) if p.started == mark.started && !p.zombie)
}

/// Ends the processes `marks` name that still run: SIGTERM, then SIGKILL
/// for those still there after [`TERM_GRACE`], waited for until they are
/// gone ([`KILL_GRACE`] at most). The pids it ended.
pub fn end(table: &dyn ProcessTable, marks: &[ProcessMark]) -> Vec<u32> {
    let Some(boot) = table.boot() else {
        return Vec::new();
    };
    let alive = |m: &&ProcessMark| runs(table, m, &boot);
    let ended: Vec<&ProcessMark> = marks.iter().filter(alive).collect();
    signal(&ended, libc::SIGTERM);
    let until = Instant::now() + TERM_GRACE;
    while ended.iter().any(alive) && Instant::now() < until {
        std::thread::sleep(LOOK_EVERY);
    }
    let stubborn: Vec<&ProcessMark> = ended.iter().copied().filter(alive).collect();
    signal(&stubborn, libc::SIGKILL);
    // A big process takes a moment to exit even so: the agent starts
    // again only once its old processes are gone.
    let until = Instant::now() + KILL_GRACE;
    while stubborn.iter().any(alive) && Instant::now() < until {
        std::thread::sleep(LOOK_EVERY);
    }
    ended.iter().map(|m| m.pid).collect()
}

fn signal(marks: &[&ProcessMark], signal: libc::c_int) {
    for mark in marks {
        if let Ok(pid) = libc::pid_t::try_from(mark.pid) {
            // SAFETY: kill has no memory effects; the pid was checked to be
            // this very process an instant ago.
            unsafe { libc::kill(pid, signal) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::processes::linux::Procfs;
    use std::process::{Command, Stdio};

    /// Waits (10 s at most) until `pid` runs `sleep`: a child just spawned
    /// may not have started its program yet.
    fn until_sleeping(table: &Procfs, pid: Option<u32>) {
        let until = Instant::now() + Duration::from_secs(10);
        let sleeps = || {
            let line = pid.and_then(|p| table.command_line(p));
            line.is_some_and(|c| c.first().is_some_and(|w| w == "sleep"))
        };
        while !sleeps() && Instant::now() < until {
            std::thread::sleep(LOOK_EVERY);
        }
    }

    /// A process of this test's own, with its mark.
    fn sleeper() -> (std::process::Child, ProcessMark) {
        let child = Command::new("sleep")
            .arg("60")
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let table = Procfs::at(std::path::Path::new("/proc"));
        until_sleeping(&table, Some(child.id()));
        let mark = marks(&table, child.id()).pop().expect("its own mark");
        (child, mark)
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_mark_ends_its_own_process_and_nothing_that_took_another_start_or_boot() {
        let table = Procfs::at(std::path::Path::new("/proc"));
        let (mut child, mark) = sleeper();
        let (mut other, other_mark) = sleeper();
        let later = ProcessMark {
            started: other_mark.started + 1,
            ..other_mark.clone()
        };
        let earlier_boot = ProcessMark {
            boot: "another boot".into(),
            ..other_mark
        };
        assert_eq!(
            end(&table, &[mark.clone(), later, earlier_boot]),
            [mark.pid]
        );
        assert!(child.wait().unwrap().code().is_none(), "ended by a signal");
        assert!(
            other.try_wait().unwrap().is_none(),
            "another start: left alone"
        );
        other.kill().unwrap();
        other.wait().unwrap();
        assert!(end(&table, &[mark]).is_empty(), "gone already");
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn only_the_processes_of_the_panes_own_program_are_marked() {
        // sh runs sleep: a process of another program, never marked.
        let mut shell = Command::new("sh")
            .args(["-c", "sleep 60; true"])
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let table = Procfs::at(std::path::Path::new("/proc"));
        let child = || table.tree(shell.id())?.get(1).copied();
        let until = Instant::now() + Duration::from_secs(10);
        while child().is_none() && Instant::now() < until {
            std::thread::sleep(LOOK_EVERY);
        }
        until_sleeping(&table, child());
        let marked: Vec<u32> = marks(&table, shell.id()).iter().map(|m| m.pid).collect();
        assert_eq!(marked, [shell.id()]);
        for pid in table.tree(shell.id()).unwrap_or_default() {
            // SAFETY: kill has no memory effects; these are this test's own.
            unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
        }
        shell.wait().unwrap();
    }
}
