//! Keeping agents across their session's end, the plugin's own work once a
//! heartbeat in the acting instance: noting each agent pane (its command
//! line, folder, place and conversation, see [`crate::state::kept`]);
//! after Zellij brings the session back, each agent's held pane started
//! again in its conversation, one at a time, under its name; and
//! `resume`, which does the same for one agent whose program ended.

use std::collections::BTreeMap;
use std::time::Instant;

use zellij_mcp_protocol::launcher;
use zellij_mcp_protocol::ops::{Conversation, PaneState, ResumeArgs, TargetResult};
use zellij_mcp_protocol::{Error, ErrorBody, PaneKind, PaneRef};

use crate::handlers::{now, HandlerResult, Zellij};
use crate::host::{Content, Host};
use crate::state::kept::{
    program_of, runs_command, HeldPane, KeptAgent, BACK_WITHIN, ENDING_WITHIN, NEXT_AFTER,
};
use crate::McpPlugin;

/// What the conversation look-up's context carries.
pub const LOOK_UP: &str = "conversation";
/// What the context of ending an agent's leftover processes carries.
pub const END_LEFTOVERS: &str = "end-leftovers";

impl<H: Host> McpPlugin<H> {
    /// Once a heartbeat, in the acting instance, after the agents' screens
    /// were looked at.
    pub fn keep_agents(&mut self) {
        if !self.view.is_ready() {
            return;
        }
        let (server, now) = (self.host.ids().zellij_pid, self.host.now());
        let keeping = &mut self.keeping;
        keeping.kept.reload();
        if keeping.restarting.is_none() && keeping.kept.kept_by_another_server(server) {
            if !keeping.kept.claim_restart(server) {
                // Another instance brings them back.
                return;
            }
            keeping.kept.restart();
            keeping.restarting = Some(now);
        }
        match self.keeping.restarting {
            Some(since) => self.bring_back(since, server, now),
            None => self.note_agents(),
        }
        self.start_next(now);
        self.look_up_conversations(now);
        self.keeping.kept.save();
    }

    /// After a restart: each kept agent's held pane, as soon as Zellij
    /// shows it, takes its name and is queued to start again; those not
    /// shown within [`BACK_WITHIN`] are given up.
    fn bring_back(&mut self, since: Instant, server: u32, now: Instant) {
        // Zellij may send no pane events for a while after it brings a
        // session back; the metadata is asked (once a request was served:
        // asked earlier, it may be refused, which stops the plugin).
        if self.requests.served > 0 {
            self.refresh_view();
        }
        let taken = self.keeping.kept.taken_panes();
        let mut held = self.held_panes();
        held.retain(|h| !taken.contains(&h.pane));
        for (name, pane) in self.keeping.kept.match_held(&held) {
            self.take_back(&name, pane, now);
        }
        let waiting = self
            .keeping
            .kept
            .agents()
            .values()
            .any(|a| a.back.is_none());
        if waiting && now < since + BACK_WITHIN {
            return;
        }
        self.keeping.kept.retain_back();
        self.keeping.kept.now_kept_by(server);
        self.keeping.restarting = None;
    }

    /// The held pane takes the agent's name; it is queued to start again
    /// when it can be, else told why not.
    fn take_back(&mut self, name: &str, pane: PaneRef, now: Instant) {
        let Some(agent) = self.keeping.kept.get_mut(name) else {
            return;
        };
        agent.pane = pane;
        let lines = agent.lines;
        let why_not = self.why_not_resumed(name);
        let agent = self.keeping.kept.get_mut(name).expect("kept above");
        agent.back = Some(why_not.clone().unwrap_or_else(|| "resuming".into()));
        let _ = self.agents.assign(name, pane, lines, |_| true, now);
        if why_not.is_none() {
            self.end_leftovers(name, now);
            self.keeping.queue.push_back((name.to_owned(), pane));
        }
    }

    /// Ends the processes agent `name`'s program left running when its
    /// session ended (Gemini CLI's do), so that no two of its processes
    /// hold its conversation; it starts once that is done.
    fn end_leftovers(&mut self, name: &str, now: Instant) {
        let Some(agent) = self.keeping.kept.agents().get(name) else {
            return;
        };
        let (Some(bridge), false) = (self.keeping.bridge(), agent.processes.is_empty()) else {
            return;
        };
        let Ok(marks) = serde_json::to_string(&agent.processes) else {
            return;
        };
        let context = BTreeMap::from([
            (END_LEFTOVERS.to_owned(), END_LEFTOVERS.to_owned()),
            ("name".to_owned(), name.to_owned()),
        ]);
        self.host
            .run_command(&[bridge, END_LEFTOVERS.into(), marks], context);
        self.keeping.ending.insert(name.to_owned(), now);
    }

    /// The leftover processes of the agent the context names are ended.
    pub fn leftovers_ended(&mut self, context: &BTreeMap<String, String>) {
        if let Some(name) = context.get("name") {
            self.keeping.ending.remove(name);
        }
    }

    /// Why the agent `name` cannot be started in its conversation; `None`
    /// when it can.
    fn why_not_resumed(&self, name: &str) -> Option<String> {
        let agent = self.keeping.kept.agents().get(name)?;
        let why = match self.programs.named(&agent.description) {
            _ if !self.keeping.resume_on => "resuming is off (resume_agents false)".into(),
            _ if !agent.resume => "turned off for this agent".into(),
            None => format!("no description is named {}", agent.description),
            Some(description) => {
                let conversation = agent.conversation.as_deref().unwrap_or_default();
                description
                    .resume_command(&agent.argv, conversation)
                    .err()?
            }
        };
        Some(format!("not resumed: {why}"))
    }

    /// Starts the next queued agent once the one before tells a state on
    /// its screen (or after [`NEXT_AFTER`]): programs started together
    /// can get each other's terminal answers.
    fn start_next(&mut self, now: Instant) {
        if let Some((pane, at)) = self.keeping.starting {
            let told = self
                .attention
                .of(pane)
                .is_some_and(|seen| seen.state != PaneState::Unknown);
            if !told && now < at + NEXT_AFTER {
                return;
            }
            self.keeping.starting = None;
        }
        if let Some((name, _)) = self.keeping.queue.front() {
            let ending = self.keeping.ending.get(name);
            if ending.is_some_and(|since| now < *since + ENDING_WITHIN) {
                return;
            }
        }
        let Some((name, pane)) = self.keeping.queue.pop_front() else {
            return;
        };
        self.keeping.ending.remove(&name);
        match self.resume_in(&name, pane, now) {
            Ok(new) => self.keeping.starting = Some((new, now)),
            Err(error) => {
                if let Some(agent) = self.keeping.kept.get_mut(&name) {
                    agent.back = Some(format!("not resumed: {}", error.message));
                }
            }
        }
    }

    /// Starts agent `name`'s program again in its conversation, in place
    /// of `pane`; the new pane, which takes the name.
    fn resume_in(&mut self, name: &str, pane: PaneRef, now: Instant) -> Result<PaneRef, ErrorBody> {
        let agent = self.keeping.kept.agents().get(name).cloned();
        let agent = agent.ok_or_else(|| not_kept(name))?;
        let description = self.programs.named(&agent.description);
        let conversation = agent.conversation.as_deref().unwrap_or_default();
        let argv = description
            .ok_or_else(|| format!("no description is named {}", agent.description))
            .and_then(|d| d.resume_command(&agent.argv, conversation))
            .map_err(|why| {
                ErrorBody::from(Error::BadRequest {
                    problem: format!("agent '{name}' cannot be resumed ({why})"),
                    fix: "start it again with zellij_new_pane".into(),
                })
            })?;
        let content = Content::Command {
            argv: self.keeping.launch_line(argv, &self.programs, None, None),
            cwd: agent.cwd.clone(),
        };
        let new = self.host.replace(pane, &content).ok_or_else(|| {
            ErrorBody::from(Error::Internal {
                problem: format!("Zellij did not start agent '{name}' again"),
                fix: Some("see the Zellij log".into()),
            })
        })?;
        // The name moves from the pane replaced; Zellij is asked which of
        // the other named panes are there (its events may lag).
        let zellij = Zellij::of(&self.host, &self.view, &self.programs);
        let exists = |p: PaneRef| p != pane && zellij.pane_now(p).is_some();
        self.agents.assign(name, new, agent.lines, exists, now)?;
        self.keeping
            .launched(new, agent.argv.clone(), agent.cwd.clone());
        let kept = self.keeping.kept.get_mut(name).expect("kept above");
        kept.pane = new;
        kept.back = Some("resumed".into());
        self.keeping.kept.save();
        Ok(new)
    }

    /// `resume`: the named agent's program, which ended, started again in
    /// its conversation in its pane; or, with `turn`, whether it is after
    /// its session ends.
    pub fn resume_agent(&mut self, args: ResumeArgs) -> HandlerResult {
        let name = args.name;
        let pane = self.agents.all().get(&name).copied();
        let pane = pane.ok_or_else(|| {
            ErrorBody::from(Error::BadRequest {
                problem: format!("no agent is named '{name}'"),
                fix: "`zellij-mcp agents` lists the agents and their names".into(),
            })
        })?;
        self.keeping.kept.reload();
        if let Some(turn) = args.turn {
            let agent = self
                .keeping
                .kept
                .get_mut(&name)
                .ok_or_else(|| not_kept(&name))?;
            agent.resume = turn;
            self.keeping.kept.save();
            let tab_id = self.view.tab_id_of(pane);
            return now(TargetResult {
                pane_id: Some(pane),
                tab_id,
                name,
            });
        }
        let info = self.zellij().pane_now(pane);
        if !info.as_ref().is_some_and(|i| i.exited) {
            return Err(ErrorBody::from(Error::BadRequest {
                problem: format!("agent '{name}' ({pane}) has not exited: its program still runs"),
                fix: "resume an agent whose state is exited".into(),
            }));
        }
        let now_at = self.host.now();
        let new = self.resume_in(&name, pane, now_at)?;
        now(TargetResult {
            pane_id: Some(new),
            tab_id: self.view.tab_id_of(pane),
            name,
        })
    }

    /// Every agent pane as it is now: its command line (as it was opened,
    /// never one that resumed it), folder, program's description and place.
    fn note_agents(&mut self) {
        let names = self.agents.all();
        for (name, pane) in &names {
            if let Some(agent) = self.noted(name, *pane) {
                self.keeping.kept.keep(name, agent);
            }
        }
        self.keeping.kept.retain(|name| names.contains_key(name));
    }

    /// Agent `name` in `pane` as it is now; `None` when its pane is not
    /// shown or runs no described program.
    fn noted(&mut self, name: &str, pane: PaneRef) -> Option<KeptAgent> {
        let (tab, info) = self.view.find(pane)?;
        let at = (tab, info.pane_y, info.pane_x);
        let earlier = self.keeping.kept.agents().get(name).cloned();
        let earlier = earlier.filter(|a| a.pane == pane);
        if let Some(mut agent) = earlier {
            agent.at = at;
            if agent.cwd.is_none() {
                // A folder not known when it was first noted, known now.
                agent
                    .cwd
                    .clone_from(&self.pane_facts.of(&self.host, pane).cwd);
            }
            return Some(agent);
        }
        let facts = self.pane_facts.of(&self.host, pane).clone();
        // Opened by another instance: the line Zellij runs, less the
        // relay that this line puts before it (it is put back on resuming).
        let running = facts
            .running
            .clone()
            .map(|argv| match launcher::relayed(&argv) {
                Some(inner) => inner.to_vec(),
                None => argv,
            });
        let (argv, cwd) = self
            .keeping
            .launch_of(pane)
            .or_else(|| Some((running?, facts.cwd.clone())))?;
        // A line that cannot be read is kept all the same, named by the
        // program that runs: it comes back held, under its name.
        let running = || launcher::program_name(facts.running.as_deref()?);
        let program = program_of(&argv).or_else(running)?;
        let description = self.programs.for_program(&program)?.name.clone();
        Some(KeptAgent {
            pane,
            lines: self.agents.named(pane) == crate::state::agents::Named::ReadsLines,
            description,
            argv,
            cwd: cwd.or(facts.cwd),
            conversation: None,
            record_changed_ms: 0,
            at,
            resume: true,
            back: None,
            processes: Vec::new(),
        })
    }

    /// Asks the bridge which conversation each live agent pane holds, for
    /// the programs whose record it reads (see `zellij-mcp conversation`).
    fn look_up_conversations(&mut self, now: Instant) {
        let Some(bridge) = self.keeping.bridge() else {
            return;
        };
        let agents: Vec<(String, KeptAgent)> = self
            .keeping
            .kept
            .agents()
            .iter()
            .map(|(n, a)| (n.clone(), a.clone()))
            .collect();
        let panes: Vec<PaneRef> = agents.iter().map(|(_, a)| a.pane).collect();
        self.keeping.looked_only(&panes);
        for (name, agent) in agents {
            let told = self
                .hooks
                .of(agent.pane)
                .and_then(|r| r.conversation.clone());
            if told.is_some() && told != agent.conversation {
                if let Some(kept) = self.keeping.kept.get_mut(&name) {
                    kept.conversation = told;
                }
                // Its processes are marked by a look-up: one now, while
                // the program that told runs.
                self.keeping.look_now(agent.pane);
            }
            let record = self
                .programs
                .named(&agent.description)
                .and_then(|d| d.record);
            let live = self
                .attention
                .of(agent.pane)
                .is_some_and(|seen| seen.state != PaneState::Exited);
            let Some(record) = record.filter(|_| live) else {
                continue;
            };
            // Known once its conversation and its processes are: a
            // conversation its hooks told leaves the processes to a look-up.
            let known = agent.conversation.is_some() && !agent.processes.is_empty();
            if !self.keeping.look_due(agent.pane, known, now) {
                continue;
            }
            let host = &self.host;
            let Some(pid) = self.pane_facts.pid(agent.pane, || host.pid(agent.pane)) else {
                continue;
            };
            let mut argv = vec![bridge.clone(), LOOK_UP.into(), "--record".into()];
            argv.extend([record.name().into(), "--pid".into(), pid.to_string()]);
            if let Some(cwd) = &agent.cwd {
                argv.extend(["--cwd".into(), cwd.clone()]);
            }
            let context = BTreeMap::from([
                ("look_up".to_owned(), LOOK_UP.to_owned()),
                ("name".to_owned(), name),
                ("pane".to_owned(), agent.pane.to_string()),
            ]);
            self.host.run_command(&argv, context);
        }
    }

    /// What a conversation look-up found.
    pub fn conversation_found(&mut self, stdout: &[u8], context: &BTreeMap<String, String>) {
        let (Some(name), Some(pane)) = (context.get("name"), context.get("pane")) else {
            return;
        };
        let Ok(found) = serde_json::from_slice::<Conversation>(stdout) else {
            return;
        };
        self.keeping.kept.reload();
        let Some(agent) = self.keeping.kept.get_mut(name) else {
            return;
        };
        if agent.pane.to_string() == *pane {
            // The conversation its program's hooks named is its own; the
            // look-up's may be the folder's newest.
            let told = self
                .hooks
                .of(agent.pane)
                .and_then(|r| r.conversation.clone());
            agent.conversation = Some(told.unwrap_or(found.id));
            agent.record_changed_ms = found.changed_ms;
            agent.processes = found.processes;
            self.keeping.kept.save();
        }
    }

    /// The panes Zellij brought back held ("Waiting to run"), with the
    /// program each would run.
    fn held_panes(&self) -> Vec<HeldPane> {
        let all = self.view.panes.iter().flat_map(|m| m.panes.iter());
        let panes = all.flat_map(|(tab, panes)| panes.iter().map(move |p| (*tab, p)));
        panes
            .filter(|(_, p)| !p.is_plugin && p.is_held)
            .map(|(tab, p)| HeldPane {
                pane: PaneRef {
                    kind: PaneKind::Terminal,
                    id: p.id,
                },
                runs: runs_command(p.terminal_command.as_deref().unwrap_or_default()),
                at: (tab, p.pane_y, p.pane_x),
            })
            .collect()
    }
}

fn not_kept(name: &str) -> ErrorBody {
    ErrorBody::from(Error::BadRequest {
        problem: format!("nothing is kept of agent '{name}': how it was started is not known"),
        fix: "start it again with zellij_new_pane".into(),
    })
}
