//! Reading, writing and signalling panes.

use std::time::Duration;

use zellij_mcp_protocol::agent_programs::{AgentScreen, Telling};
use zellij_mcp_protocol::agent_screen::Shown;
use zellij_mcp_protocol::keys::key_bytes;
use zellij_mcp_protocol::ops::{
    Happened, LocateArgs, LocateResult, PaneResult, PaneState, ReadArgs, ReadResult, RunInPaneArgs,
    SignalArgs, WriteArgs, WriteResult, MAX_SUBMIT_DELAY_MS, MAX_WRITE_BYTES,
};
use zellij_mcp_protocol::shell_line::{is_shell, ShellLine};
use zellij_mcp_protocol::text::{shape_read, trim_rows};
use zellij_mcp_protocol::{Error, ErrorBody, PaneKind, PaneRef};

use super::{bad_request, now, refuse_own_pane, Zellij};
use super::{Handled, HandlerResult};
use crate::host::Host;
use crate::state::agents::Named;
use crate::state::event_log::EventLog;
use crate::state::later::Asker;
use crate::state::pane_facts::PaneFacts;
use crate::state::shell_runs::{ShellRun, ShellRuns};
use crate::state::writes::{PendingWrite, WriteDone, WriteQueue};

/// A bracketed paste's two ends.
pub const PASTE_START: &[u8] = b"\x1b[200~";
pub const PASTE_END: &[u8] = b"\x1b[201~";

impl<'a, H: Host> Zellij<'a, H> {
    /// The pane's screen; scrollback reads (`full`, `since`) are the bridge's.
    /// `read` of the screen, with the pane's pid (from `facts`) for the
    /// bridge to tell its state.
    pub fn read(&self, facts: &mut PaneFacts, named: Named, args: ReadArgs) -> HandlerResult {
        let (max_bytes, _) = args.checked()?;
        if args.needs_scrollback() {
            return Err(ErrorBody::from(Error::Unsupported {
                problem: "the plugin reads only the screen; the bridge reads scrollbacks".into(),
                fix: "use the zellij-mcp bridge of the plugin's release".into(),
            }));
        }
        self.require_ready()?;
        // One read of the screen gives the text and what it shows; whether
        // the pane exists is asked only when it fails.
        let look = self.look_for(facts, args.pane_id, true, named);
        let read = match &look {
            Some(look) => self.host.screen_shown(args.pane_id, look.telling()),
            None => self.host.screen(args.pane_id).map(|rows| (rows, None)),
        };
        let (rows, shown) = read
            .map_err(|e| screen_failed(args.pane_id, e))
            .map_err(|e| self.require_pane(args.pane_id).err().unwrap_or(e))?;
        let screen = ScreenText::new(rows);
        let shaped = shape_read(&screen.lines(), None, args.tail_lines, max_bytes);
        let tab_id = self.view.tab_id_of(args.pane_id);
        let mut read = ReadResult::new(args.pane_id, tab_id, shaped);
        read.pid = self.pid_of(facts, args.pane_id);
        if let Some(look) = look {
            (read.state, read.line_draft) = state_shown(shown, look.is_agent());
        }
        now(read)
    }

    /// `locate`: the pane's tab and process, or `pane_not_found`; with
    /// `screen`, what its screen shows, for an agent (`named`, or by its
    /// program) or a shell.
    pub fn locate(&self, facts: &mut PaneFacts, named: Named, args: LocateArgs) -> HandlerResult {
        self.require_pane(args.pane_id)?;
        let (state, line_draft) = match args.screen {
            true => self.shown_state(facts, args.pane_id, true, named),
            false => (None, false),
        };
        let (program, cwd) = match args.screen {
            true => self.program_and_cwd(facts, args.pane_id),
            false => (None, None),
        };
        let told = self.known.filter(|_| args.screen);
        let told = told.and_then(|(hooks, _)| hooks.of(args.pane_id));
        now(LocateResult {
            pane_id: args.pane_id,
            tab_id: self.view.tab_id_of(args.pane_id),
            pid: self.pid_of(facts, args.pane_id),
            state,
            line_draft,
            program,
            cwd,
            turn_ended: told.and_then(|r| r.turn_ended.clone()),
            record: told.and_then(|r| r.record.clone()),
            conversation: told.and_then(|r| r.conversation.clone()),
        })
    }

    /// The program in the foreground and the folder it works in (facts
    /// asked once).
    fn program_and_cwd(
        &self,
        facts: &mut PaneFacts,
        pane: PaneRef,
    ) -> (Option<String>, Option<String>) {
        let known = facts.of(self.host, pane);
        let (cwd, running) = (known.cwd.clone(), known.running.clone());
        (self.program_of(pane, running.as_deref()), cwd)
    }

    /// What a live terminal pane's screen shows: for a pane that is an
    /// agent's (`named`) or runs an agent program, its state (`unknown`
    /// when the screen is not recognised); and, for a shell (when
    /// `shells`), whether its line holds text. A list reads no shell's
    /// screen: one read per pane.
    pub fn shown_state(
        &self,
        facts: &mut PaneFacts,
        pane: PaneRef,
        shells: bool,
        named: Named,
    ) -> (Option<PaneState>, bool) {
        match self.look_for(facts, pane, shells, named) {
            Some(look) => state_shown(self.shown(pane, look.telling()), look.is_agent()),
            None => (None, false),
        }
    }

    /// What a live terminal pane's screen tells: an agent's state (for a
    /// pane `named` as an agent's, or running an agent program), or a
    /// shell's line (when `shells`).
    pub fn look_for(
        &self,
        facts: &mut PaneFacts,
        pane: PaneRef,
        shells: bool,
        named: Named,
    ) -> Option<Look<'a>> {
        let exited = self.view.find(pane).is_some_and(|(_, info)| info.exited);
        if pane.kind != PaneKind::Terminal || exited {
            return None;
        }
        let running = facts.of(self.host, pane).running.as_deref();
        if running.is_some_and(is_shell) {
            return shells.then_some(Look::Shell);
        }
        let program = self.program_of(pane, running);
        let agent = named.any()
            || program
                .as_deref()
                .is_some_and(|p| self.programs.is_agent(p));
        agent.then(|| Look::Agent(self.telling(pane, program.as_deref(), named)))
    }

    /// A terminal pane's own process, asked of Zellij once per pane.
    pub fn pid_of(&self, facts: &mut PaneFacts, pane: PaneRef) -> Option<u32> {
        if pane.kind != PaneKind::Terminal {
            return None;
        }
        facts.pid(pane, || self.host.pid(pane))
    }

    /// `run_in_pane`: a command line for a shell pane, typed once the runs
    /// under way there are over (see [`crate::state::shell_runs`]).
    pub fn run_in_pane(
        &self,
        runs: &ShellRuns,
        args: RunInPaneArgs,
        asker: &Asker,
    ) -> HandlerResult {
        refuse_own_pane(args.pane_id, asker.caller, false, "a command line")?;
        if args.token.is_empty() || !args.token.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Err(bad_request(
                "token must be letters and digits",
                "pass the token the exit report's suffix names",
            ));
        }
        let pane = self.require_terminal(args.pane_id)?;
        if pane.exited {
            return Err(bad_request(
                format!("{} has exited", args.pane_id),
                "run the command in a live shell pane, or with argv in a new pane",
            ));
        }
        // A refused turn is dropped after its wait, as one not taken.
        if runs.types_now(args.pane_id, &args.token) {
            self.refuse_unless_at_empty_line(args.pane_id, args.at_prompt)?;
        }
        runs.room(asker.client())?;
        let deadline = self.host.now() + super::waiting::timeout(args.timeout_ms)?;
        let tab_id = self.view.tab_id_of(args.pane_id);
        let run = ShellRun::new(
            asker.clone(),
            args.pane_id,
            tab_id,
            args.token,
            args.text,
            deadline,
        );
        Ok(Handled::ShellRun(Box::new(run)))
    }

    /// A run is typed now only into a shell waiting at an empty line: at
    /// its prompt (`at_prompt`, which the bridge tells), and with no text a
    /// person typed there, which the run would send.
    fn refuse_unless_at_empty_line(&self, pane: PaneRef, at_prompt: bool) -> Result<(), ErrorBody> {
        if !at_prompt {
            return Err(ErrorBody::from(Error::Busy {
                problem: format!("{pane} is not at its shell's prompt"),
                fix: "wait for it (zellij_wait_for until_state: prompt), or run the command in a new pane".into(),
            }));
        }
        let line = self.host.shown(pane, None).map(|shown| shown.line);
        match line.unwrap_or(ShellLine::Unknown) {
            ShellLine::Empty => Ok(()),
            ShellLine::Draft(line) => Err(ErrorBody::from(Error::Draft {
                pane: pane.to_string(),
                line,
            })),
            ShellLine::Unknown => Err(ErrorBody::from(Error::Draft {
                pane: pane.to_string(),
                line: String::new(),
            })),
        }
    }

    /// The pane's screen.
    pub fn screen_of(&self, pane: PaneRef) -> Result<ScreenText, ErrorBody> {
        let rows = self.host.screen(pane).map_err(|e| screen_failed(pane, e))?;
        Ok(ScreenText::new(rows))
    }

    /// `write`: queued in the pane's write queue (`input`), answered once
    /// typed; `submit_delay_ms` is the layout's default pause.
    pub fn write(
        &self,
        input: &WriteQueue,
        telling: Option<Telling>,
        log: &mut EventLog,
        submit_delay_ms: u64,
        args: WriteArgs,
        asker: &Asker,
    ) -> HandlerResult {
        refuse_own_pane(args.pane_id, asker.caller, args.force, "typing there")?;
        let bytes = write_bytes(&args)?;
        let submit_delay = submit_delay(&args, submit_delay_ms)?;
        if bytes.is_empty() && submit_delay.is_none() {
            return Err(bad_request(
                "nothing to write",
                "pass text, keys, or submit: true",
            ));
        }
        let pane = self.require_terminal(args.pane_id)?;
        if pane.exited && !args.allow_exited {
            return Err(bad_request(
                format!(
                    "{} has exited{}; input there would re-run its command",
                    args.pane_id,
                    if pane.is_held {
                        " and is held open"
                    } else {
                        ""
                    }
                ),
                "pass allow_exited: true to type into it anyway, or pick a live pane",
            ));
        }
        input.room(args.pane_id)?;
        self.refuse_to_answer_unless_meant(telling, args.pane_id, args.answer, asker, log)?;
        Ok(Handled::Write(PendingWrite {
            done: WriteDone::Answer(asker.clone()),
            pane: args.pane_id,
            tab_id: self.view.tab_id_of(args.pane_id),
            bytes,
            submit_delay,
        }))
    }

    /// Anything typed into a dialog an agent shows (state `asking`) would
    /// answer it: refused unless the caller says it means to (`answer`),
    /// and then logged.
    fn refuse_to_answer_unless_meant(
        &self,
        telling: Option<Telling>,
        pane: PaneRef,
        answer: bool,
        asker: &Asker,
        log: &mut EventLog,
    ) -> Result<(), ErrorBody> {
        let agent = self.shown(pane, telling).and_then(|shown| shown.agent);
        if agent != Some(AgentScreen::Asking) {
            return Ok(());
        }
        if !answer {
            return Err(ErrorBody::from(Error::Asking {
                pane: pane.to_string(),
            }));
        }
        let client = asker.client().to_owned();
        log.record(
            self.host.unix_ms(),
            Happened::Answered {
                pane_id: pane,
                client,
            },
        );
        Ok(())
    }

    pub fn signal(&self, facts: &mut PaneFacts, args: SignalArgs, asker: &Asker) -> HandlerResult {
        refuse_own_pane(args.pane_id, asker.caller, args.force, "a signal")?;
        if self.require_terminal(args.pane_id)?.exited {
            return Err(bad_request(
                format!("{} has already exited", args.pane_id),
                "nothing to signal; close the pane with zellij_close if it is no longer needed",
            ));
        }
        self.host.signal(args.pane_id, args.signal);
        facts.forget(args.pane_id);
        now(PaneResult {
            pane_id: args.pane_id,
            tab_id: self.view.tab_id_of(args.pane_id),
        })
    }
}

/// The pause before a submit's CR (`default_ms` unless asked), `None`
/// without a submit.
fn submit_delay(args: &WriteArgs, default_ms: u64) -> Result<Option<Duration>, ErrorBody> {
    match (args.submit, args.submit_delay_ms) {
        (false, _) => Ok(None),
        (true, Some(ms)) if ms > MAX_SUBMIT_DELAY_MS => Err(bad_request(
            format!("submit_delay_ms {ms} is over the {MAX_SUBMIT_DELAY_MS} ms cap"),
            "pass a smaller submit_delay_ms, or omit it for the default",
        )),
        (true, ms) => Ok(Some(Duration::from_millis(ms.unwrap_or(default_ms)))),
    }
}

/// A pane's screen as Zellij gave it: rows without padding, and its height.
#[derive(Debug, Default)]
pub struct ScreenText {
    pub rows: Vec<String>,
    pub height: usize,
}

impl ScreenText {
    pub fn new(rows: Vec<String>) -> Self {
        let height = rows.len();
        ScreenText {
            rows: trim_rows(rows),
            height,
        }
    }

    pub fn lines(&self) -> Vec<&str> {
        self.rows.iter().map(String::as_str).collect()
    }
}

/// The text (maybe as a bracketed paste), then the keys, as bytes.
/// Whether a write may start or end what a pane runs: Enter (a shell
/// runs the line), a control key (Ctrl-C, Ctrl-D, Esc) or any named key, or
/// a submit. Plain text is typed into what runs already, so what the plugin
/// knows of the pane (its running command) still holds after it.
pub fn may_change_what_runs(args: &WriteArgs) -> bool {
    let control = |b: u8| b < 0x20 || b == 0x7f;
    let text = args.text.as_deref().unwrap_or_default();
    args.submit || !args.keys.is_empty() || text.bytes().any(control)
}

fn write_bytes(args: &WriteArgs) -> Result<Vec<u8>, ErrorBody> {
    let text = args.text.as_deref().unwrap_or_default();
    if text.len() > MAX_WRITE_BYTES {
        return Err(bad_request(
            format!(
                "text is {} bytes; one write takes at most {MAX_WRITE_BYTES}",
                text.len()
            ),
            "split the text over several writes",
        ));
    }
    let mut bytes = Vec::with_capacity(text.len() + 16);
    if args.paste && !text.is_empty() {
        bytes.extend(PASTE_START);
        bytes.extend(text.as_bytes());
        bytes.extend(PASTE_END);
    } else {
        bytes.extend(text.as_bytes());
    }
    for key in &args.keys {
        let key = key_bytes(key).map_err(|e| bad_request(e, "fix the name in keys"))?;
        bytes.extend(key);
    }
    Ok(bytes)
}

/// What to look for on a pane's screen.
pub enum Look<'a> {
    /// An agent's state, told so (`None`: its program is not described).
    Agent(Option<Telling<'a>>),
    /// A shell's line.
    Shell,
}

impl<'a> Look<'a> {
    pub fn telling(&self) -> Option<Telling<'a>> {
        match self {
            Look::Agent(telling) => *telling,
            Look::Shell => None,
        }
    }

    fn is_agent(&self) -> bool {
        matches!(self, Look::Agent(_))
    }
}

/// What a finished write answers with.
pub fn write_result(write: &PendingWrite) -> WriteResult {
    WriteResult {
        pane_id: write.pane,
        tab_id: write.tab_id,
        bytes_written: write.bytes_written(),
        submitted: write.submit_delay.is_some(),
    }
}

/// The state a screen shows: an agent's (`unknown` when not recognised),
/// or whether a shell's line holds text.
fn state_shown(shown: Option<Shown>, agent: bool) -> (Option<PaneState>, bool) {
    let Some(shown) = shown else {
        return (None, false);
    };
    match shown.agent {
        Some(screen) => (Some(screen.into()), false),
        None if agent => (Some(PaneState::Unknown), false),
        None => (None, matches!(shown.line, ShellLine::Draft(_))),
    }
}

fn screen_failed(pane: PaneRef, problem: String) -> ErrorBody {
    ErrorBody::from(Error::Internal {
        problem: format!("reading {pane} failed: {problem}"),
        fix: Some("check the pane still exists with zellij_list_panes".into()),
    })
}
