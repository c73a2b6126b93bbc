//! The life of a request the plugin does not answer while handling it.
//!
//! A handler only says what its request waits for ([`Handled`]). [`McpPlugin::hold`]
//! then blocks the pipe and files the request where it waits:
//! - in [`crate::state::later`], for work that must run outside `pipe()` (from the
//!   next timer), or
//!   for a change the session has not shown yet (a new tab, a closed pane),
//!   which is answered once the view shows it or at a deadline with the
//!   state as it is then;
//! - with the waits ([`crate::state::waits`]), answered when the wait ends, times
//!   out or is cancelled;
//! - in its pane's write queue ([`crate::state::writes`]), answered after its submit;
//! - in the outbox ([`crate::state::messages`]), answered once its message is
//!   delivered, its wait is over (queued) or its TTL passed (failed);
//! - behind an earlier request (a `replay`), answered with that one.
//!
//! Whatever happens, the request gets exactly one answer, and the pipe is
//! released with it ([`McpPlugin::answer`]). One timer is armed, for the
//! earliest moment anything held here or in the waits is due.

use std::time::{Duration, Instant};

use crate::handlers::{write_result, Handled, HandlerResult};
use crate::host::Host;
use crate::state::later::{Asker, SETTLE_TIME};
use crate::state::writes::{PendingWrite, Step, WriteDone};
use crate::{McpPlugin, Task};

impl<H: Host> McpPlugin<H> {
    /// Answers a request now, or files it where it waits.
    pub fn hold(&mut self, asker: Asker, handled: HandlerResult) {
        let handled = match handled {
            Ok(Handled::Now(result)) => return self.answer(&asker, Ok(result)),
            Err(error) => return self.answer(&asker, Err(error)),
            Ok(Handled::Elsewhere) => return self.left_to_another(&asker.request_id),
            Ok(handled) => handled,
        };
        self.host.block(&asker.pipe_id);
        let now = self.host.now();
        match handled {
            Handled::WhenShown(settle) => {
                self.requests
                    .later
                    .when_shown(asker, settle, now + SETTLE_TIME);
                self.after_view_change();
            }
            Handled::WhenShownWithin(settle, within) => {
                self.requests.later.when_shown(asker, settle, now + within);
                self.after_view_change();
            }
            Handled::Wait(wait) => self.start_wait(*wait),
            Handled::Write(write) => {
                let steps = self.input.push(write, now);
                self.run_steps(steps);
            }
            Handled::Message(message) => {
                self.outbox.push(*message);
                self.pump_messages();
            }
            Handled::ShellRun(run) => {
                if let Some(typing) = self.shell_runs.push(*run) {
                    self.type_run(typing);
                }
                self.arm_wake(now);
            }
            Handled::Now(_) | Handled::WithEarlier | Handled::Elsewhere => {}
        }
    }

    /// Runs `task` from the next timer, after `pipe()` has returned: Zellij
    /// reports a new or changed pane or tab id to the `zellij pipe` client of
    /// the message being handled, and that makes the client exit before the
    /// reply arrives.
    pub fn outside_pipe(&mut self, asker: Asker, task: Task<H>) {
        self.host.block(&asker.pipe_id);
        self.requests.later.next_tick(asker, task);
        self.host.set_timeout(Duration::ZERO);
    }

    /// Runs the work due on this timer.
    pub fn run_due_tasks(&mut self) {
        for (asker, task) in self.requests.later.due_tasks() {
            // The pipe is blocked already; `hold` blocks it once more, harmlessly.
            let handled = task(self);
            self.hold(asker, handled);
            // It changed the session: the next request takes a new snapshot.
            self.view.snapshot_at = None;
        }
    }

    /// Answers the requests whose change the session now shows.
    pub fn settle_shown(&mut self) {
        let now = self.host.now();
        let view = &self.view;
        for (asker, outcome) in self.requests.later.settle(view, &self.host, now) {
            self.answer(&asker, outcome);
        }
    }

    /// Carries out a write queue's steps.
    pub fn run_steps(&mut self, steps: Vec<Step>) {
        for step in steps {
            match step {
                Step::Write(pane, bytes) => self.host.write(pane, bytes),
                Step::WriteCr(pane) => self.host.write(pane, b"\r".to_vec()),
                Step::ArmTimer(after) => self.host.set_timeout(after),
                Step::Reply(done) => self.written(done),
                Step::Unsent(PendingWrite {
                    done: WriteDone::Delivered(seq),
                    pane,
                    ..
                }) => self.unsent(seq, pane),
                Step::Unsent(done) => self.written(done),
            }
        }
    }

    /// A write is over: whom it tells learns so.
    fn written(&mut self, done: PendingWrite) {
        match &done.done {
            WriteDone::Answer(asker) => {
                let result = crate::handlers::to_json(write_result(&done));
                self.answer(asker, result);
            }
            WriteDone::Delivered(seq) => self.submitted(*seq),
            WriteDone::Typed(token) => {
                self.shell_runs.written(token, self.host.now());
            }
        }
    }

    /// Arms one timer for the earliest moment a wait or a held request is due.
    pub fn arm_wake(&mut self, now: Instant) {
        let due = self.waits.next_due(now).into_iter();
        let due = due.chain(self.requests.later.next_look(now));
        let due = due.chain(self.outbox.next_due());
        let due = due.chain(self.outbox.next_watch(now));
        let due = due.chain(self.shell_runs.next_due()).min();
        let Some(due) = due else { return };
        if let Some(after) = self.requests.later.timer_for(due, now) {
            self.host.set_timeout(after);
        }
    }
}
