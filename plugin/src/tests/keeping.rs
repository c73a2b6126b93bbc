//! Agents brought back after their session ended, on the fake host: each
//! kept agent's held pane takes its name, and is started again in its
//! conversation, one at a time; one a person turned off stays held.

use std::collections::BTreeMap;

use zellij_mcp_protocol::ops::ProcessMark;
use zellij_mcp_protocol::PaneRef;
use zellij_tile::prelude::{Event, PaneInfo};

use super::{did, plugin};
use crate::fake::Call;
use crate::state::kept::KeptAgent;

fn kept(argv: &[&str], y: usize, conversation: &str, resume: bool) -> KeptAgent {
    KeptAgent {
        pane: PaneRef::terminal(40 + y as u32),
        lines: false,
        description: "codex".into(),
        argv: argv.iter().map(|a| a.to_string()).collect(),
        cwd: Some("/w".into()),
        conversation: Some(conversation.into()),
        record_changed_ms: 0,
        at: (0, y, 0),
        resume,
        back: None,
        processes: Vec::new(),
    }
}

fn held(id: u32, command: &str, y: usize) -> PaneInfo {
    PaneInfo {
        id,
        is_held: true,
        exited: true,
        terminal_command: Some(command.into()),
        pane_y: y,
        ..Default::default()
    }
}

fn replaced(p: &crate::McpPlugin<crate::fake::FakeHost>) -> Vec<String> {
    let calls = p.host.calls.borrow();
    let done = calls.iter().filter_map(|c| match c {
        Call::Do(what) if what.starts_with("replace") => Some(what.clone()),
        _ => None,
    });
    done.collect()
}

#[test]
fn after_a_restart_each_agent_starts_again_in_its_conversation_once_and_one_at_a_time() {
    let mut p = plugin("keeping-restart");
    // What the server before kept.
    let argv = ["env", "K=1", "/bin/codex", "-a", "never"];
    p.keeping.kept.keep("top", kept(&argv, 0, "c-top", true));
    p.keeping
        .kept
        .keep("low", kept(&["codex"], 20, "c-low", true));
    p.keeping
        .kept
        .keep("off", kept(&["codex"], 30, "c-off", false));
    p.keeping.kept.now_kept_by(1);
    p.keeping.kept.save();
    // Zellij brought the session back at another size; a held command
    // that was no agent keeps Zellij's behaviour.
    let panes = p.view.panes.as_mut().unwrap().panes.get_mut(&0).unwrap();
    panes.extend([
        held(7, "node /bin/codex -a never", 0),
        held(8, "codex", 10),
        held(9, "codex", 15),
        held(10, "cargo test", 25),
    ]);

    p.keep_agents();
    let first = replaced(&p);
    assert_eq!(first.len(), 1, "one at a time: {first:?}");
    assert!(
        first[0].contains("replace terminal_7")
            && first[0]
                .contains(r#"["env", "K=1", "/bin/codex", "resume", "c-top", "-a", "never"]"#),
        "{first:?}"
    );
    let names = p.agents.all();
    assert_eq!(names["low"], PaneRef::terminal(8), "named before it starts");
    assert_eq!(names["off"], PaneRef::terminal(9));
    let off = &p.keeping.kept.agents()["off"];
    assert_eq!(
        off.back.as_deref(),
        Some("not resumed: turned off for this agent")
    );

    // The next one starts once the first one's screen tells a state.
    p.host.advance(crate::state::kept::NEXT_AFTER);
    p.keep_agents();
    let both = replaced(&p);
    assert_eq!(both.len(), 2, "{both:?}");
    assert!(both[1].contains("replace terminal_8"), "{both:?}");
    assert!(
        both[1].contains(r#"["codex", "resume", "c-low"]"#),
        "{both:?}"
    );

    // Nothing is resumed twice.
    p.host.advance(crate::state::kept::NEXT_AFTER);
    p.keep_agents();
    assert_eq!(replaced(&p).len(), 2);
    let top = &p.keeping.kept.agents()["top"];
    assert_eq!(top.back.as_deref(), Some("resumed"));
    assert_eq!(top.argv, argv, "the command line it was started with, kept");
}

#[test]
fn an_agent_whose_processes_outlived_its_session_starts_once_they_are_ended() {
    let mut p = plugin("keeping-leftovers");
    p.keeping.hello_from(Some("/bin/zellij-mcp"));
    let mark = ProcessMark {
        pid: 4242,
        started: 77,
        boot: "b".into(),
    };
    let agent = KeptAgent {
        processes: vec![mark],
        ..kept(&["codex"], 0, "c-1", true)
    };
    p.keeping.kept.keep("one", agent);
    p.keeping.kept.now_kept_by(1);
    p.keeping.kept.save();
    let panes = p.view.panes.as_mut().unwrap().panes.get_mut(&0).unwrap();
    panes.push(held(7, "codex", 0));

    p.keep_agents();
    let ran: Vec<String> = did(&p)
        .into_iter()
        .filter(|d| d.starts_with("run_command"))
        .collect();
    assert!(
        ran.iter()
            .any(|r| r
                .contains(r#""end-leftovers", "[{\"pid\":4242,\"started\":77,\"boot\":\"b\"}]""#)),
        "{ran:?}"
    );
    assert!(replaced(&p).is_empty(), "not before they are ended");
    p.host.advance(crate::state::kept::NEXT_AFTER);
    p.keep_agents();
    assert!(replaced(&p).is_empty());
    let context = BTreeMap::from([
        ("end-leftovers".to_owned(), "end-leftovers".to_owned()),
        ("name".to_owned(), "one".to_owned()),
    ]);
    p.handle(Event::RunCommandResult(
        Some(0),
        Vec::new(),
        Vec::new(),
        context,
    ));
    p.keep_agents();
    let started = replaced(&p);
    assert!(
        started.len() == 1 && started[0].contains("replace terminal_7"),
        "{started:?}"
    );
}

#[test]
fn an_agent_opened_by_another_instance_is_kept_as_its_relay_runs_it_in_its_folder() {
    let mut p = plugin("keeping-noted");
    let relayed = [
        "/b/zellij-mcp",
        "launch",
        "--relay",
        "--",
        "bash",
        "-c",
        "exec codex",
    ];
    *p.host.running.borrow_mut() = relayed.iter().map(|w| w.to_string()).collect();
    let pane = PaneRef::terminal(1);
    let now = std::time::Instant::now();
    p.agents
        .assign("worker", pane, false, |_| false, now)
        .unwrap();
    p.keep_agents();
    let kept = &p.keeping.kept.agents()["worker"];
    assert_eq!(
        kept.argv,
        ["bash", "-c", "exec codex"],
        "the relay is put back on resuming"
    );
    assert_eq!(kept.cwd.as_deref(), Some("/work"));
}
