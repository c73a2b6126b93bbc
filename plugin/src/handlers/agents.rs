//! Agent names: `register_agent`, and the names new panes are given; the
//! board's rows (`agents`); the person's agent descriptions
//! (`describe_programs`).

use std::collections::BTreeMap;

use zellij_mcp_protocol::agent_name::check_agent_name;
use zellij_mcp_protocol::agent_programs::{Description, Programs, FILE_NAME};
use zellij_mcp_protocol::agent_screen::Shown;
use zellij_mcp_protocol::launcher::{program_name, program_of_command};
use zellij_mcp_protocol::ops::{
    AgentRow, AgentsResult, DescribeProgramsArgs, DescribeProgramsResult, ExplainArgs,
    ExplainResult, ForegroundArgs, ForegroundResult, Happened, HoldReason, HookArgs, HookResult,
    PaneEntry, PaneState, RegisterAgentArgs, TargetResult,
};
use zellij_mcp_protocol::{ErrorBody, PaneRef};

use super::{bad_request, now, HandlerResult, Zellij};
use crate::host::Host;
use crate::state::agents::{Agents, Named};
use crate::state::attention::{Attention, Seen};
use crate::state::event_log::EventLog;
use crate::state::hooks::{HookReports, Source};
use crate::state::kept::{Keeping, Kept};
use crate::state::later::Asker;
use crate::state::messages::{Outbox, Recipient};
use crate::state::pane_facts::{Facts, PaneFacts};
use crate::state::programs_file::ProgramsFile;
use crate::state::relay_screens::RelayScreens;

/// What naming a pane touches: the names, and the log that records them.
pub struct Naming<'a> {
    pub agents: &'a mut Agents,
    pub log: &'a mut EventLog,
    /// Where a named pane's command line is kept: what resumes it.
    pub keeping: &'a mut Keeping,
}

impl Naming<'_> {
    /// Checks a new pane's agent name before the pane is made.
    pub fn check_free<H: Host>(&self, z: &Zellij<H>, name: Option<&str>) -> Result<(), ErrorBody> {
        let Some(name) = name else { return Ok(()) };
        check_agent_name(name)?;
        self.agents
            .check_free(name, None, |p| z.pane_now(p).is_some())
    }

    /// Gives `pane` its agent name, and logs it.
    pub fn name<H: Host>(
        &mut self,
        z: &Zellij<H>,
        name: Option<&str>,
        pane: PaneRef,
        lines: bool,
    ) -> Result<(), ErrorBody> {
        let Some(name) = name else { return Ok(()) };
        let exists = |p| p == pane || z.pane_now(p).is_some();
        self.agents
            .assign(name, pane, lines, exists, z.host.now())?;
        let registered = Happened::Registered {
            name: name.to_owned(),
            pane_id: pane,
        };
        self.log.record(z.host.unix_ms(), registered);
        Ok(())
    }
}

impl<H: Host> Zellij<'_, H> {
    /// `register_agent`: the caller's own pane takes the name.
    pub fn register_agent(
        &self,
        naming: &mut Naming,
        args: RegisterAgentArgs,
        asker: &Asker,
    ) -> HandlerResult {
        check_agent_name(&args.name)?;
        let Some(pane) = asker.caller else {
            return Err(bad_request(
                "this server does not know which pane it runs in",
                "call it from an agent that runs in a Zellij pane of this session",
            ));
        };
        self.require_terminal(pane)?;
        let exists = |p| self.pane_now(p).is_some();
        naming
            .agents
            .assign(&args.name, pane, args.reads_lines, exists, self.host.now())?;
        let registered = Happened::Registered {
            name: args.name.clone(),
            pane_id: pane,
        };
        naming.log.record(self.host.unix_ms(), registered);
        now(TargetResult {
            pane_id: Some(pane),
            tab_id: self.view.tab_id_of(pane),
            name: args.name,
        })
    }
}

impl<H: Host> Zellij<'_, H> {
    /// `explain`: what each description the pane's state is told by makes
    /// of its screen; for a pane that is no agent's, every description, so
    /// a person can write one for it.
    pub fn explain(
        &self,
        facts: &mut PaneFacts,
        named: Named,
        (name, (hooks, relay)): (Option<String>, (Option<String>, Option<String>)),
        args: ExplainArgs,
    ) -> HandlerResult {
        let pane = args.pane_id;
        self.require_terminal(pane)?;
        let telling = self
            .look_for(facts, pane, false, named)
            .and_then(|l| l.telling());
        let running = facts.known(pane).and_then(|f| f.running.as_deref());
        let program = self.program_of(pane, running);
        let title = self.view.find(pane).map_or("", |(_, i)| i.title.as_str());
        let (rows, cursor) = self
            .host
            .screen_cursor(pane)
            .map_err(|e| bad_request(e, "try again"))?;
        let (told, tried) = match telling {
            Some(t) if t.descriptions.len() == 1 => (t, "its program's description".into()),
            Some(t) if named.any() => (
                t,
                "every description: it has an agent name, and none names its program".into(),
            ),
            Some(t) => (
                t,
                "the descriptions with a composer between start and end rows: none names its program".into(),
            ),
            None => (
                self.programs.telling(None, true, title),
                "every description, for a person writing one: its state is not told (no agent name, and no description names its program)".into(),
            ),
        };
        let shown = Shown::of(&rows, cursor, telling);
        let readings = told
            .descriptions
            .iter()
            .map(|d| d.explain(&rows, cursor, title))
            .collect();
        let mut rows: Vec<String> = rows.iter().map(|r| r.trim_end().to_owned()).collect();
        while rows.last().is_some_and(String::is_empty) {
            rows.pop();
        }
        now(ExplainResult {
            pane_id: pane,
            program,
            name,
            title: title.to_owned(),
            state: telling.map(|_| shown.agent.map_or(PaneState::Unknown, PaneState::from)),
            described_by: shown.described_by,
            tried,
            rows,
            readings,
            hooks,
            relay,
        })
    }

    /// `hook`: notes what the hook of the program in a terminal pane told.
    pub fn hook(&self, reports: &mut HookReports, args: HookArgs) -> HandlerResult {
        self.require_terminal(args.pane_id)?;
        // When the hook ran, not when it came: a late report is no newer
        // than a screen drawn after its event.
        let now_ms = self.host.unix_ms();
        let at_ms = args.told_ms.map_or(now_ms, |told| told.min(now_ms));
        let at = (at_ms, now_ms);
        let (pane, event, conversation) = (args.pane_id, args.event, args.conversation);
        reports.note_arrived(pane, event, conversation, at, args.tells_tools);
        now(HookResult {})
    }

    /// `foreground`: notes the program a relayed terminal pane runs, the
    /// file it is recorded to and the state its live screen shows, as its
    /// relay told them.
    pub fn foreground(
        &self,
        (facts, relays): (&mut PaneFacts, &mut RelayScreens),
        args: ForegroundArgs,
    ) -> HandlerResult {
        self.require_terminal(args.pane_id)?;
        let told = Facts {
            running: Some(args.running).filter(|argv| !argv.is_empty()),
            cwd: args.cwd,
        };
        let at_ms = self.host.unix_ms();
        // A word read at an unknown time is as old as can be; a relay's
        // clock ahead of the plugin's must not make its word newer.
        let read_ms = args.screen_ms.map_or(0, |ms| ms.min(at_ms));
        relays.told(args.pane_id, args.screen, (read_ms, at_ms));
        facts.foreground_told(args.pane_id, (told, args.recording), at_ms);
        now(ForegroundResult {})
    }
}

/// `describe_programs`: the person's descriptions over the built-in ones,
/// for every instance; a wrong file changes nothing.
pub fn describe_programs(
    file: &mut ProgramsFile,
    programs: &mut Programs,
    args: DescribeProgramsArgs,
) -> HandlerResult {
    *programs = file.replace(args.text.as_deref()).map_err(|error| {
        bad_request(
            format!("{FILE_NAME}: {error}"),
            "correct the file; `zellij-mcp doctor` checks it",
        )
    })?;
    now(DescribeProgramsResult {
        described: programs.from_file().map(Description::label).collect(),
        digest: file.digest.clone(),
    })
}

/// What the board's rows are made of.
pub struct Board<'a> {
    pub attention: &'a Attention,
    pub outbox: &'a Outbox,
    pub facts: &'a PaneFacts,
    pub names: BTreeMap<PaneRef, String>,
    /// Each agent's conversation, and how it came back.
    pub kept: &'a Kept,
}

impl Board<'_> {
    /// `agents`: a row for each agent the last look saw, in `entries` (the
    /// session's panes), who needs someone first.
    pub fn rows(&self, entries: Vec<PaneEntry>, at_ms: u64) -> AgentsResult {
        let held = self.held();
        let mut agents: Vec<AgentRow> = entries
            .into_iter()
            .filter_map(|entry| {
                let seen = self.attention.of(entry.pane_id)?;
                Some(self.row(entry, seen, &held))
            })
            .collect();
        agents.sort_by_key(|row| (row.urgency(), row.since_ms, row.pane_id));
        AgentsResult { agents, at_ms }
    }

    fn row(
        &self,
        entry: PaneEntry,
        seen: Seen,
        held: &BTreeMap<PaneRef, (usize, Option<HoldReason>)>,
    ) -> AgentRow {
        let pane = entry.pane_id;
        let details = entry.details.unwrap_or_default();
        let running = self.facts.known(pane).and_then(|f| f.running.as_deref());
        let program = match running {
            Some(argv) => program_name(argv),
            None => details.command.as_deref().and_then(program_of_command),
        };
        let name = self.names.get(&pane).cloned();
        let sender = name.clone().unwrap_or_else(|| pane.to_string());
        let (held, held_because) = held.get(&pane).copied().unwrap_or_default();
        let kept = name.as_ref().and_then(|n| self.kept.agents().get(n));
        let kept = kept.filter(|k| k.pane == pane);
        let exited = seen.state == PaneState::Exited;
        AgentRow {
            pane_id: pane,
            tab_id: entry.tab_id.unwrap_or_default(),
            tab_name: details.tab_name,
            program,
            described_by: self.attention.described_by(pane).cloned(),
            state: seen.state,
            by_hooks: self.attention.source(pane) == Source::Hooks,
            by_relay: self.attention.source(pane) == Source::Relay,
            since_ms: seen.since_ms,
            exit_status: entry.exit_status,
            held,
            held_because,
            last_in: self.attention.last_in(pane).cloned(),
            last_out: self.attention.last_out(&sender).cloned(),
            last_reply: self.attention.last_reply(pane).cloned(),
            conversation: kept.and_then(|k| k.conversation.clone()),
            back: kept.and_then(|k| k.back.clone()),
            // A relay ends with its program: the file is whole.
            recording: self.facts.recording(pane).filter(|_| !exited).cloned(),
            name,
        }
    }

    /// The messages waiting for each pane, and why the first one waits.
    fn held(&self) -> BTreeMap<PaneRef, (usize, Option<HoldReason>)> {
        let by_name: BTreeMap<&String, PaneRef> = self
            .names
            .iter()
            .map(|(pane, name)| (name, *pane))
            .collect();
        let mut held: BTreeMap<PaneRef, (usize, Option<HoldReason>)> = BTreeMap::new();
        for (to, why) in self.outbox.waiting() {
            let pane = match to {
                Recipient::Pane(pane) => Some(*pane),
                Recipient::Agent(name) => by_name.get(name).copied(),
            };
            if let Some(pane) = pane {
                let (count, first_why) = held.entry(pane).or_default();
                *count += 1;
                *first_why = first_why.or(why);
            }
        }
        held
    }
}
