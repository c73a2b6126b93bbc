//! Every op on the fake host: its happy path, with the reply parsed as the
//! op's typed result, and a bad input, which gets a typed error and changes
//! nothing. Ops with cases in `tests` get here only what those lack.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use zellij_mcp_protocol::agent_programs::AgentScreen;
use zellij_mcp_protocol::agent_screen::{Composing, Shown};
use zellij_mcp_protocol::ops::{
    op, ArrangePaneResult, ClientEntry, CloseResult, ClosedPane, DeliveryStatus, DumpLayoutResult,
    Geometry, HoldReason, NewTabResult, PaneResult, RequestState, TargetResult, WaitOutcome,
    NEW_TAB_SHOWN_WITHIN,
};
use zellij_mcp_protocol::shell_line::ShellLine;
use zellij_mcp_protocol::PaneRef;
use zellij_tile::prelude::*;

use crate::host::{Host, SessionSnapshot};
use crate::state::attention::TURN_SHOWS_WITHIN_MS;
use crate::state::later::{SETTLE_TIME, SHOWN_LOOK_EVERY};
use crate::state::relay_screens::STALE_OLD_WORD_MS;
use crate::state::waits::EXIT_SETTLE;
use crate::state::writes::{MOST_CR_WAIT, MOST_UNREAD_WAIT};
use crate::tests::{
    did, error_code, only_reply, plugin, replies_on, request, result_of, send, typed, FakeHost,
};
use crate::McpPlugin;

type Plugin = McpPlugin<FakeHost>;

/// A request from the pane `caller` (the bridge's own), as the envelope
/// carries it.
fn request_from(caller: &str, id: &str, op: &str, args: Value) -> String {
    json!({"v": 1, "id": id, "op": op, "args": args, "caller": caller}).to_string()
}

/// Sends a request and runs the work it left for the next timer.
fn ask(p: &mut Plugin, id: &str, op: &str, args: Value) {
    send(p, id, Some(&request(id, op, args)));
    p.on_timer();
}

/// The error code of a request refused at once, asserting that it made no
/// Zellij call and left nothing waiting.
fn refused(p: &mut Plugin, id: &str, op: &str, args: Value) -> String {
    let before = did(p).len();
    let waits = p.waits.len();
    ask(p, id, op, args.clone());
    let code = error_code(only_reply(p, id, id));
    assert_eq!(did(p)[before..], [] as [String; 0], "{op} {args}");
    assert_eq!(p.waits.len(), waits, "{op} {args} filed a wait");
    assert_eq!(p.requests.later.len(), 0, "{op} {args} is held");
    code
}

/// Adds the tab "logs" (tab_id 9, position 1) to the view, with a floating
/// terminal_7 and a hidden terminal_8.
fn with_logs_tab(p: &mut Plugin) {
    p.view.tabs.push(logs_tab());
    p.view.panes.as_mut().unwrap().panes.insert(1, logs_panes());
}

fn logs_panes() -> Vec<PaneInfo> {
    vec![
        PaneInfo {
            id: 7,
            title: "tail".into(),
            is_floating: true,
            ..Default::default()
        },
        PaneInfo {
            id: 8,
            is_suppressed: true,
            ..Default::default()
        },
    ]
}

fn logs_tab() -> TabInfo {
    TabInfo {
        position: 1,
        tab_id: 9,
        name: "logs".into(),
        ..Default::default()
    }
}

fn terminal_1(title: &str) -> PaneInfo {
    PaneInfo {
        id: 1,
        title: title.into(),
        is_selectable: true,
        ..Default::default()
    }
}

#[test]
fn ops_without_arguments_refuse_arguments_that_are_not_an_object() {
    let mut p = plugin("op-noargs");
    for (n, op) in ["hello", "session_info", "list_tabs"]
        .into_iter()
        .enumerate()
    {
        let code = refused(&mut p, &n.to_string(), op, json!(5));
        assert_eq!(code, "bad_request", "{op}");
    }
}

#[test]
fn session_info_answers_once_zellij_lists_the_clients() {
    let mut p = plugin("op-info");
    let ask = request_from("terminal_1", "1", "session_info", json!({}));
    send(&mut p, "p", Some(&ask));
    assert!(replies_on(&p, "p", "1").is_empty(), "waits for the clients");
    assert_eq!(did(&p), ["list_clients"]);
    p.on_clients(vec![ClientInfo {
        client_id: 1,
        pane_id: PaneId::Terminal(1),
        running_command: "bash".into(),
        is_current_client: true,
    }]);
    let info = result_of::<op::SessionInfo>(only_reply(&p, "p", "1"));
    let client = ClientEntry {
        client_id: 1,
        pane_id: PaneRef::terminal(1),
        tab_id: Some(3),
        running_command: "bash".into(),
    };
    assert_eq!(info.clients, [client]);
    assert_eq!(
        (info.own_pane_id, info.own_tab_id),
        (Some(PaneRef::terminal(1)), Some(3))
    );
    assert_eq!((info.tabs, info.panes, info.active_waits), (1, 2, 0));
    assert_eq!(info.zellij_version, "0.45.1");
}

#[test]
fn session_info_names_no_own_pane_for_a_caller_outside_the_session() {
    let mut p = plugin("op-info-outside");
    let ask = request_from("terminal_77", "1", "session_info", json!({}));
    send(&mut p, "p", Some(&ask));
    p.on_clients(Vec::new());
    let info = result_of::<op::SessionInfo>(only_reply(&p, "p", "1"));
    assert_eq!((info.own_pane_id, info.own_tab_id), (None, None));
    assert!(info.clients.is_empty());
}

#[test]
fn list_tabs_counts_each_tabs_panes_by_kind() {
    let mut p = plugin("op-tabs");
    with_logs_tab(&mut p);
    p.view.tabs[1].other_focused_clients = vec![2];
    send(&mut p, "p", Some(&request("1", "list_tabs", json!({}))));
    let tabs = result_of::<op::ListTabs>(only_reply(&p, "p", "1")).tabs;
    let seen: Vec<_> = tabs
        .iter()
        .map(|t| {
            let counts = (t.panes, t.tiled_panes, t.floating_panes, t.hidden_panes);
            (t.tab_id, t.name.as_str(), t.active, counts)
        })
        .collect();
    assert_eq!(
        seen,
        [
            (3, "main", false, (2, 2, 0, 0)),
            (9, "logs", true, (2, 0, 1, 1))
        ]
    );
}

#[test]
fn list_panes_of_a_tab_that_does_not_exist_is_tab_not_found_naming_the_tabs() {
    let mut p = plugin("op-panes-notab");
    send(
        &mut p,
        "p",
        Some(&request("1", "list_panes", json!({"tab": "nope"}))),
    );
    let error = only_reply(&p, "p", "1").into_result().unwrap_err();
    assert_eq!(error.code, zellij_mcp_protocol::ErrorCode::TabNotFound);
    assert!(error.hint.unwrap().contains("main (tab_id 3)"));
}

#[test]
fn a_new_tab_answers_once_zellij_shows_it_named_and_with_panes() {
    let mut p = plugin("op-newtab");
    send(
        &mut p,
        "p",
        Some(&request("1", "new_tab", json!({"name": "logs"}))),
    );
    assert!(did(&p).is_empty(), "created from the next timer");
    p.on_timer();
    assert_eq!(did(&p), [r#"new_tab Some("logs")"#], "and never focused");
    assert!(replies_on(&p, "p", "1").is_empty(), "not shown yet");
    p.host.show_tab(9, Some(logs_tab()));
    p.after_view_change();
    assert!(replies_on(&p, "p", "1").is_empty(), "no panes listed yet");
    with_logs_tab(&mut p);
    p.after_view_change();
    let tab = result_of::<op::NewTab>(only_reply(&p, "p", "1"));
    let expected = NewTabResult {
        tab_id: 9,
        position: 1,
        name: "logs".into(),
        pane_ids: vec![PaneRef::terminal(7), PaneRef::terminal(8)],
        focused: false,
    };
    assert_eq!(tab, expected);
}

#[test]
fn a_new_tab_whose_id_zellij_did_not_tell_is_the_new_tab_of_its_name() {
    let mut p = plugin("op-newtab-untold");
    p.host.show_tab(9, None);
    *p.host.tab_ids_untold.borrow_mut() = true;
    ask(&mut p, "1", "new_tab", json!({"name": "logs"}));
    p.on_timer();
    assert_eq!(did(&p), [r#"new_tab Some("logs")"#]);
    // A person's tab, made meanwhile, is not it.
    let scratch = TabInfo {
        tab_id: 10,
        position: 2,
        name: "scratch".into(),
        ..Default::default()
    };
    p.host.show_tab(10, Some(scratch));
    p.after_view_change();
    assert!(replies_on(&p, "1", "1").is_empty(), "not shown yet");
    p.host.show_tab(9, Some(logs_tab()));
    with_logs_tab(&mut p);
    p.after_view_change();
    let tab = result_of::<op::NewTab>(only_reply(&p, "1", "1"));
    assert_eq!((tab.tab_id, tab.pane_ids.len()), (9, 2), "{tab:?}");
}

#[test]
fn a_new_tab_zellij_neither_told_nor_showed_is_an_error_at_the_deadline() {
    let mut p = plugin("op-newtab-none");
    p.host.show_tab(9, None);
    *p.host.tab_ids_untold.borrow_mut() = true;
    ask(&mut p, "1", "new_tab", json!({}));
    p.on_timer();
    assert!(replies_on(&p, "1", "1").is_empty(), "it may still show");
    let late = Instant::now() + NEW_TAB_SHOWN_WITHIN + Duration::from_secs(1);
    for (asker, outcome) in p.requests.later.settle(&p.view, &p.host, late) {
        p.answer(&asker, outcome);
    }
    assert_eq!(error_code(only_reply(&p, "1", "1")), "internal");
}

#[test]
fn a_new_tab_in_a_view_zellij_stopped_feeding_is_answered_when_the_session_shows_its_panes() {
    let mut p = plugin("op-newtab-starved");
    // No pane events come: the view is refreshed from the session metadata.
    p.view.fed_ms = 0;
    p.host.show_tab(9, Some(logs_tab()));
    ask(&mut p, "1", "new_tab", json!({"name": "logs"}));
    p.on_timer();
    assert!(replies_on(&p, "1", "1").is_empty(), "no panes listed yet");
    let mut panes = p.view.panes.clone().unwrap();
    panes.panes.insert(1, logs_panes());
    let mut tabs = p.view.tabs.clone();
    tabs.push(logs_tab());
    *p.host.snapshot.borrow_mut() = Some(SessionSnapshot {
        tabs,
        panes,
        clients: 1,
    });
    p.host.advance(SHOWN_LOOK_EVERY);
    p.on_timer();
    let tab = result_of::<op::NewTab>(only_reply(&p, "1", "1"));
    assert_eq!(tab.pane_ids.len(), 2, "{tab:?}");
}

#[test]
fn a_new_tab_with_no_client_attached_is_unsupported_and_makes_nothing() {
    let mut p = plugin("op-newtab-headless");
    p.host.show_tab(
        3,
        Some(TabInfo {
            tab_id: 3,
            ..Default::default()
        }),
    );
    ask(&mut p, "1", "new_tab", json!({"name": "later"}));
    p.on_timer();
    assert_eq!(error_code(only_reply(&p, "1", "1")), "unsupported");
    assert!(
        !did(&p).iter().any(|d| d.contains("new_tab")),
        "{:?}",
        did(&p)
    );
}

#[test]
fn a_new_tab_zellij_never_shows_is_answered_at_the_deadline_all_the_same() {
    let mut p = plugin("op-newtab-unseen");
    p.host.show_tab(9, None);
    ask(&mut p, "1", "new_tab", json!({}));
    assert!(replies_on(&p, "1", "1").is_empty());
    let settled = Instant::now() + SETTLE_TIME + Duration::from_secs(1);
    assert!(
        p.requests
            .later
            .settle(&p.view, &p.host, settled)
            .is_empty(),
        "a tab may take longer to show"
    );
    let late = Instant::now() + NEW_TAB_SHOWN_WITHIN + Duration::from_secs(1);
    for (asker, outcome) in p.requests.later.settle(&p.view, &p.host, late) {
        p.answer(&asker, outcome);
    }
    assert_eq!(error_code(only_reply(&p, "1", "1")), "internal");
    assert_eq!(p.requests.later.len(), 0, "nothing left held");
}

#[test]
fn a_tab_from_a_layout_is_named_and_focus_is_given_back() {
    let mut p = plugin("op-newtab-layout");
    p.view.tabs[0].active = true;
    let args = json!({"layout": "compact", "name": "build"});
    ask(&mut p, "1", "new_tab", args);
    // Zellij focuses tabs made from a layout.
    assert_eq!(
        did(&p),
        ["new_tabs_with_layout", "rename_tab 9 build", "go_to_tab 0"]
    );
}

#[test]
fn a_new_tab_from_a_layout_that_is_not_valid_is_a_bad_request_and_creates_nothing() {
    let mut p = plugin("op-newtab-bad");
    for (n, layout) in ["tab {", "no-such-layout"].into_iter().enumerate() {
        let args = json!({"layout": layout});
        let code = refused(&mut p, &n.to_string(), "new_tab", args);
        assert_eq!(code, "bad_request", "{layout}");
    }
}

#[test]
fn a_new_pane_without_a_tab_opens_in_the_callers_tab() {
    let mut p = plugin("op-newpane-caller");
    with_logs_tab(&mut p);
    let from_logs = request_from("terminal_7", "1", "new_pane", json!({}));
    send(&mut p, "p", Some(&from_logs));
    p.on_timer();
    let pane = result_of::<op::NewPane>(only_reply(&p, "p", "1"));
    assert_eq!(
        pane,
        PaneResult {
            pane_id: PaneRef::terminal(101),
            tab_id: Some(9)
        }
    );
    // Without a caller: the first tab, as none is active.
    ask(&mut p, "2", "new_pane", json!({}));
    let pane = result_of::<op::NewPane>(only_reply(&p, "2", "2"));
    assert_eq!(pane.tab_id, Some(3));
    assert_eq!(
        did(&p),
        [
            "new_pane_in_tab 9 -> terminal_101",
            "new_pane_in_tab 3 -> terminal_102"
        ]
    );
}

#[test]
fn a_new_pane_with_an_empty_command_or_in_an_unknown_tab_is_refused_and_opens_nothing() {
    let mut p = plugin("op-newpane-bad");
    let cases = [
        (json!({"command": []}), "bad_request"),
        (json!({"command": [" "]}), "bad_request"),
        (json!({"tab": "nope"}), "tab_not_found"),
    ];
    for (n, (args, code)) in cases.into_iter().enumerate() {
        assert_eq!(refused(&mut p, &n.to_string(), "new_pane", args), code);
    }
}

#[test]
fn closing_a_pane_answers_once_zellij_no_longer_shows_it() {
    let mut p = plugin("op-close-pane");
    let build = PaneInfo {
        terminal_command: Some("make".into()),
        ..terminal_1("build")
    };
    p.host.show_pane(PaneRef::terminal(1), Some(build));
    ask(&mut p, "1", "close", json!({"pane_id": "terminal_1"}));
    assert_eq!(did(&p), ["close_pane terminal_1"]);
    assert!(replies_on(&p, "1", "1").is_empty(), "still shown");
    p.host.show_pane(PaneRef::terminal(1), None);
    p.after_view_change();
    let closed = result_of::<op::Close>(only_reply(&p, "1", "1"));
    let pane = ClosedPane {
        pane_id: PaneRef::terminal(1),
        title: "build".into(),
        command: Some("make".into()),
    };
    assert_eq!(
        closed,
        CloseResult {
            tab_id: None,
            closed: vec![pane]
        }
    );
}

#[test]
fn closing_a_tab_answers_with_its_panes_once_the_tab_is_gone() {
    let mut p = plugin("op-close-tab");
    with_logs_tab(&mut p);
    ask(&mut p, "1", "close", json!({"tab": "logs"}));
    assert_eq!(did(&p), ["close_tab 9"]);
    assert!(replies_on(&p, "1", "1").is_empty(), "still shown");
    p.host.show_tab(9, None);
    p.after_view_change();
    let closed = result_of::<op::Close>(only_reply(&p, "1", "1"));
    assert_eq!(closed.tab_id, Some(9));
    let panes: Vec<_> = closed
        .closed
        .iter()
        .map(|c| (c.pane_id, c.title.as_str()))
        .collect();
    assert_eq!(
        panes,
        [(PaneRef::terminal(7), "tail"), (PaneRef::terminal(8), "")]
    );
}

#[test]
fn rename_of_a_tab_answers_once_zellij_shows_the_new_name() {
    let mut p = plugin("op-rename-tab");
    ask(
        &mut p,
        "1",
        "rename",
        json!({"tab": "main", "name": "work"}),
    );
    assert_eq!(did(&p), ["rename_tab 3 work"]);
    assert!(replies_on(&p, "1", "1").is_empty(), "old name still shown");
    let renamed = TabInfo {
        tab_id: 3,
        name: "work".into(),
        ..Default::default()
    };
    p.host.show_tab(3, Some(renamed));
    p.after_view_change();
    let tab = result_of::<op::Rename>(only_reply(&p, "1", "1"));
    let expected = TargetResult {
        pane_id: None,
        tab_id: Some(3),
        name: "work".into(),
    };
    assert_eq!(tab, expected);
}

#[test]
fn rename_of_a_pane_answers_once_zellij_shows_the_new_title() {
    let mut p = plugin("op-rename-pane");
    ask(
        &mut p,
        "1",
        "rename",
        json!({"pane_id": 1, "name": "editor"}),
    );
    assert_eq!(did(&p), ["rename_pane terminal_1 editor"]);
    assert!(replies_on(&p, "1", "1").is_empty(), "old title still shown");
    p.host
        .show_pane(PaneRef::terminal(1), Some(terminal_1("editor")));
    p.after_view_change();
    let pane = result_of::<op::Rename>(only_reply(&p, "1", "1"));
    let expected = TargetResult {
        pane_id: Some(PaneRef::terminal(1)),
        tab_id: Some(3),
        name: "editor".into(),
    };
    assert_eq!(pane, expected);
}

#[test]
fn a_rename_to_a_blank_name_or_of_no_single_target_is_refused_and_renames_nothing() {
    let mut p = plugin("op-rename-bad");
    let cases = [
        (json!({"tab": 3, "name": "  "}), "bad_request"),
        (json!({"pane_id": 1, "tab": 3, "name": "x"}), "bad_request"),
        (json!({"tab": "nope", "name": "x"}), "tab_not_found"),
        (json!({"pane_id": 42, "name": "x"}), "pane_not_found"),
    ];
    for (n, (args, code)) in cases.into_iter().enumerate() {
        assert_eq!(refused(&mut p, &n.to_string(), "rename", args), code);
    }
}

#[test]
fn focus_answers_once_zellij_shows_the_pane_or_tab_focused() {
    let mut p = plugin("op-focus");
    with_logs_tab(&mut p);
    ask(&mut p, "1", "focus", json!({"pane_id": 1}));
    ask(&mut p, "2", "focus", json!({"tab": "logs"}));
    assert_eq!(did(&p), ["focus terminal_1", "go_to_tab 1"]);
    assert!(replies_on(&p, "1", "1").is_empty(), "not focused yet");
    assert!(replies_on(&p, "2", "2").is_empty(), "not active yet");
    let focused = PaneInfo {
        is_focused: true,
        ..terminal_1("bash")
    };
    p.host.show_pane(PaneRef::terminal(1), Some(focused));
    let active = TabInfo {
        active: true,
        ..logs_tab()
    };
    p.host.show_tab(9, Some(active));
    p.after_view_change();
    let pane = result_of::<op::Focus>(only_reply(&p, "1", "1"));
    assert_eq!(
        (pane.pane_id, pane.tab_id, pane.name.as_str()),
        (Some(PaneRef::terminal(1)), Some(3), "bash")
    );
    let tab = result_of::<op::Focus>(only_reply(&p, "2", "2"));
    assert_eq!(
        (tab.pane_id, tab.tab_id, tab.name.as_str()),
        (None, Some(9), "logs")
    );
}

#[test]
fn focusing_a_missing_or_unselectable_pane_is_refused_and_moves_nothing() {
    let mut p = plugin("op-focus-bad");
    let fixed = PaneInfo {
        id: 5,
        is_plugin: true,
        is_selectable: false,
        ..Default::default()
    };
    p.host.show_pane(PaneRef::plugin(5), Some(fixed));
    let cases = [
        (json!({"pane_id": "terminal_42"}), "pane_not_found"),
        (json!({"pane_id": "plugin_5"}), "bad_request"),
    ];
    for (n, (args, code)) in cases.into_iter().enumerate() {
        assert_eq!(refused(&mut p, &n.to_string(), "focus", args), code);
    }
}

#[test]
fn a_pane_zellij_was_too_busy_to_tell_is_a_timeout_not_a_pane_not_found() {
    let mut p = plugin("op-pane-untold");
    *p.host.pane_info_untold.borrow_mut() = true;
    // Not in the last events either (opened a moment ago, say): unknown,
    // not gone.
    let args = json!({"pane_id": "terminal_42"});
    assert_eq!(refused(&mut p, "1", "focus", args.clone()), "timeout");
    *p.host.pane_info_untold.borrow_mut() = false;
    assert_eq!(refused(&mut p, "2", "focus", args), "pane_not_found");
}

#[test]
fn arranging_a_pane_answers_once_zellij_shows_it_floating_with_its_geometry() {
    let mut p = plugin("op-arrange");
    let args =
        json!({"pane_id": 1, "floating": true, "resize": {"direction": "left", "amount": -2}});
    ask(&mut p, "1", "arrange_pane", args);
    let shrink = "resize terminal_1 false Some(Left)";
    assert_eq!(did(&p), ["toggle_floating terminal_1", shrink, shrink]);
    assert!(replies_on(&p, "1", "1").is_empty(), "still shown tiled");
    let floating = PaneInfo {
        is_floating: true,
        pane_x: 10,
        pane_y: 5,
        pane_rows: 20,
        pane_columns: 60,
        ..terminal_1("")
    };
    p.host.show_pane(PaneRef::terminal(1), Some(floating));
    p.after_view_change();
    let arranged = result_of::<op::ArrangePane>(only_reply(&p, "1", "1"));
    let expected = ArrangePaneResult {
        pane_id: PaneRef::terminal(1),
        tab_id: Some(3),
        floating: true,
        fullscreen: false,
        geometry: Geometry {
            x: 10,
            y: 5,
            rows: 20,
            cols: 60,
        },
    };
    assert_eq!(arranged, expected);
}

#[test]
fn an_arrangement_that_leaves_the_pane_as_it_is_answers_at_once() {
    let mut p = plugin("op-arrange-same");
    let args = json!({"pane_id": 1, "floating": false, "fullscreen": false});
    ask(&mut p, "1", "arrange_pane", args);
    assert!(did(&p).is_empty(), "nothing to toggle");
    let arranged = result_of::<op::ArrangePane>(only_reply(&p, "1", "1"));
    assert!(!arranged.floating && !arranged.fullscreen);
}

#[test]
fn an_arrangement_that_cannot_be_done_whole_is_refused_before_anything_moves() {
    let mut p = plugin("op-arrange-bad");
    let cases = [
        // The resize comes first in the order of changes; it must not happen.
        (
            json!({"pane_id": 1, "resize": {"amount": 3}, "pinned": true}),
            "bad_request",
        ),
        (json!({"pane_id": 1}), "bad_request"),
        (
            json!({"pane_id": 1, "floating": true, "move_to_tab": "nope"}),
            "tab_not_found",
        ),
        (
            json!({"pane_id": "terminal_42", "floating": true}),
            "pane_not_found",
        ),
    ];
    for (n, (args, code)) in cases.into_iter().enumerate() {
        assert_eq!(refused(&mut p, &n.to_string(), "arrange_pane", args), code);
    }
}

#[test]
fn pane_of_process_with_pids_that_are_not_process_ids_is_a_bad_request() {
    let mut p = plugin("op-pids-bad");
    for (n, pids) in [json!([-1]), json!("4321")].into_iter().enumerate() {
        let args = json!({ "pids": pids });
        let code = refused(&mut p, &n.to_string(), "pane_of_process", args);
        assert_eq!(code, "bad_request", "{pids}");
    }
}

#[test]
fn a_wait_that_cannot_be_waited_on_is_refused_and_files_no_wait() {
    let mut p = plugin("op-wait-bad");
    let cases = [
        (json!({"pane_id": 1, "pattern": "("}), "bad_request"),
        (json!({"pane_id": 1}), "bad_request"),
        (
            json!({"pane_id": 1, "pattern": "x", "timeout_ms": 0}),
            "bad_request",
        ),
        (
            json!({"pane_id": "plugin_5", "pattern": "x"}),
            "wrong_pane_kind",
        ),
        (json!({"pane_id": 42, "pattern": "x"}), "pane_not_found"),
    ];
    for (n, (args, code)) in cases.into_iter().enumerate() {
        assert_eq!(refused(&mut p, &n.to_string(), "wait_for", args), code);
    }
}

#[test]
fn a_pane_zellij_did_not_tell_is_never_opened_again() {
    let mut p = plugin("op-pane-untold-id");
    p.view.tabs[0].active = true;
    *p.host.pane_ids_untold.borrow_mut() = true;
    let asked = [
        ("run", json!({"command": ["make", "test"]})),
        ("new_pane", json!({"command": ["make"], "tab": 3})),
        // In place of a shell pane.
        ("open_file", json!({"path": "notes.txt"})),
    ];
    for (n, (op, args)) in asked.into_iter().enumerate() {
        let id = n.to_string();
        ask(&mut p, &id, op, args);
        assert_eq!(error_code(only_reply(&p, &id, &id)), "result_unknown");
    }
    let done = did(&p);
    let started = |how: &str| done.iter().filter(|d| d.starts_with(how)).count();
    assert_eq!(started("open_command"), 2, "{done:?}");
    assert_eq!(started("replace"), 1, "{done:?}");
    assert_eq!(done.len(), 4, "each opened once, nothing else: {done:?}");
}

#[test]
fn a_run_opens_a_hidden_command_pane_and_answers_with_its_exit_code() {
    let mut p = plugin("op-run");
    p.view.tabs[0].active = true;
    ask(&mut p, "1", "run", json!({"command": ["make", "test"]}));
    let done = did(&p);
    assert_eq!(done.len(), 1, "{done:?}");
    assert!(done[0].starts_with("open_command Hidden"), "{done:?}");
    assert!(done[0].ends_with("-> terminal_101"), "{done:?}");
    assert!(replies_on(&p, "1", "1").is_empty(), "waits for the exit");
    p.on_command_exited(101, Some(2));
    p.host.advance(EXIT_SETTLE);
    p.on_timer();
    let run = result_of::<op::Run>(only_reply(&p, "1", "1"));
    assert_eq!((run.pane_id, run.tab_id), (PaneRef::terminal(101), Some(3)));
    assert_eq!((run.exited, run.exit_code), (true, Some(2)));
    assert!(!run.timed_out && !run.killed);
    assert_eq!(p.waits.len(), 0);
}

#[test]
fn a_run_with_no_command_or_no_time_to_wait_is_refused_and_starts_nothing() {
    let mut p = plugin("op-run-bad");
    let cases = [
        (json!({"command": []}), "bad_request"),
        (json!({"command": ["make"], "timeout_ms": 0}), "bad_request"),
        (json!({"command": ["make"], "max_bytes": 0}), "bad_request"),
        (json!({"command": ["make"], "tab": "nope"}), "tab_not_found"),
    ];
    for (n, (args, code)) in cases.into_iter().enumerate() {
        assert_eq!(refused(&mut p, &n.to_string(), "run", args), code);
    }
}

#[test]
fn a_signal_reaches_the_pane_at_once() {
    let mut p = plugin("op-signal");
    let args = json!({"pane_id": "terminal_1", "signal": "sigint"});
    send(&mut p, "p", Some(&request("1", "signal", args)));
    let pane = result_of::<op::Signal>(only_reply(&p, "p", "1"));
    assert_eq!(
        pane,
        PaneResult {
            pane_id: PaneRef::terminal(1),
            tab_id: Some(3)
        }
    );
    assert_eq!(did(&p), ["signal terminal_1 Sigint"]);
}

#[test]
fn signalling_a_plugin_an_exited_pane_or_with_an_unknown_signal_is_refused_and_sends_nothing() {
    let mut p = plugin("op-signal-bad");
    let exited = PaneInfo {
        id: 2,
        exited: true,
        ..Default::default()
    };
    p.host.show_pane(PaneRef::terminal(2), Some(exited));
    let cases = [
        (
            json!({"pane_id": "plugin_5", "signal": "sigint"}),
            "wrong_pane_kind",
        ),
        (json!({"pane_id": 2, "signal": "sigkill"}), "bad_request"),
        (json!({"pane_id": 1, "signal": "sigterm"}), "bad_request"),
    ];
    for (n, (args, code)) in cases.into_iter().enumerate() {
        assert_eq!(refused(&mut p, &n.to_string(), "signal", args), code);
    }
}

#[test]
fn a_file_opens_in_an_editor_pane_at_its_line_in_the_tab_asked_for() {
    let mut p = plugin("op-open");
    with_logs_tab(&mut p);
    let args = json!({"path": "src/main.rs", "line": 12, "tab": "logs"});
    ask(&mut p, "1", "open_file", args);
    let pane = result_of::<op::OpenFile>(only_reply(&p, "1", "1"));
    assert_eq!(
        pane,
        PaneResult {
            pane_id: PaneRef::terminal(102),
            tab_id: Some(9)
        }
    );
    let done = did(&p);
    assert_eq!(done.len(), 2, "never focused: {done:?}");
    assert_eq!(done[0], "new_pane_in_tab 9 -> terminal_101");
    let editor = r#"replace terminal_101 Editor { path: "src/main.rs", line: Some(12)"#;
    assert!(done[1].starts_with(editor), "{done:?}");
}

#[test]
fn opening_a_blank_path_or_in_an_unknown_tab_is_refused_and_opens_nothing() {
    let mut p = plugin("op-open-bad");
    let cases = [
        (json!({"path": " "}), "bad_request"),
        (json!({"path": "a.rs", "tab": "nope"}), "tab_not_found"),
    ];
    for (n, (args, code)) in cases.into_iter().enumerate() {
        assert_eq!(refused(&mut p, &n.to_string(), "open_file", args), code);
    }
}

#[test]
fn dump_layout_gives_the_whole_sessions_or_one_tabs_layout() {
    let mut p = plugin("op-dump");
    send(&mut p, "a", Some(&request("a", "dump_layout", json!({}))));
    send(
        &mut p,
        "b",
        Some(&request("b", "dump_layout", json!({"tab": "main"}))),
    );
    let session = result_of::<op::DumpLayout>(only_reply(&p, "a", "a"));
    let tab = result_of::<op::DumpLayout>(only_reply(&p, "b", "b"));
    let expected = |tab_id: Option<usize>| DumpLayoutResult {
        tab_id,
        layout: format!("layout {{ // {tab_id:?} }}"),
    };
    assert_eq!((session, tab), (expected(None), expected(Some(3))));
}

#[test]
fn dump_layout_of_a_tab_that_does_not_exist_is_tab_not_found() {
    let mut p = plugin("op-dump-bad");
    let code = refused(&mut p, "1", "dump_layout", json!({"tab": 42}));
    assert_eq!(code, "tab_not_found");
}

#[test]
fn a_cancel_without_a_request_id_or_of_another_request_leaves_the_wait_running() {
    let mut p = plugin("op-cancel-bad");
    let wait = json!({"pane_id": 1, "pattern": "never"});
    send(&mut p, "w", Some(&request("w", "wait_for", wait)));
    assert_eq!(refused(&mut p, "c1", "cancel", json!({})), "bad_request");
    ask(&mut p, "c2", "cancel", json!({"request_id": "other"}));
    assert!(!result_of::<op::Cancel>(only_reply(&p, "c2", "c2")).cancelled);
    assert_eq!(p.waits.len(), 1);
    assert!(replies_on(&p, "w", "w").is_empty(), "still waiting");
}

#[test]
fn a_replay_naming_itself_is_refused_rather_than_waiting_on_itself() {
    let mut p = plugin("op-replay-self");
    let code = refused(&mut p, "r", "replay", json!({"request_id": "r"}));
    assert_eq!(code, "bad_request");
    assert_eq!(p.requests.replies.sizes().2, 0, "nothing in flight");
}

#[test]
fn status_tells_answered_in_flight_and_unknown_requests_apart() {
    let mut p = plugin("op-status");
    ask(&mut p, "w", "write", json!({"pane_id": 1, "text": "ls"}));
    let wait = json!({"pane_id": 1, "pattern": "never"});
    ask(&mut p, "x", "wait_for", wait);
    let mut state_of = |id: &str| {
        let status_id = format!("s-{id}");
        let args = json!({ "request_id": id });
        ask(&mut p, &status_id, "status", args);
        result_of::<op::Status>(only_reply(&p, &status_id, &status_id)).state
    };
    assert_eq!(state_of("w"), RequestState::Answered);
    assert_eq!(state_of("x"), RequestState::InFlight);
    assert_eq!(state_of("never"), RequestState::Unknown);
}

#[test]
fn status_without_a_request_id_is_a_bad_request() {
    let mut p = plugin("op-status-bad");
    assert_eq!(refused(&mut p, "1", "status", json!({})), "bad_request");
}

#[test]
fn an_agent_names_its_own_pane_and_new_panes_get_names_listed_with_them() {
    let mut p = plugin("op-agents");
    let register = request_from("terminal_1", "1", "register_agent", json!({"name": "main"}));
    send(&mut p, "1", Some(&register));
    let named = result_of::<op::RegisterAgent>(only_reply(&p, "1", "1"));
    assert_eq!(named.pane_id, Some(PaneRef::terminal(1)));
    assert_eq!(named.name, "main");
    let args = json!({"command": ["sleep", "9"], "agent_name": "main.child"});
    ask(&mut p, "2", "new_pane", args);
    let child = p.host.opened_panes()[0];
    p.after_view_change();
    assert_eq!(
        result_of::<op::NewPane>(only_reply(&p, "2", "2")).pane_id,
        child
    );
    let names = p.agents.by_pane();
    assert_eq!(
        names.get(&PaneRef::terminal(1)).map(String::as_str),
        Some("main")
    );
    assert_eq!(names.get(&child).map(String::as_str), Some("main.child"));
    send(&mut p, "3", Some(&request("3", "list_panes", json!({}))));
    let listed = result_of::<op::ListPanes>(only_reply(&p, "3", "3"));
    assert_eq!(listed.panes[0].agent.as_deref(), Some("main"));
}

#[test]
fn a_reply_the_bridge_read_is_logged_and_shown_in_its_agents_row() {
    let mut p = plugin("op-replied");
    let register = request_from("terminal_1", "1", "register_agent", json!({"name": "main"}));
    send(&mut p, "1", Some(&register));
    let long_line = "é".repeat(300);
    let reply = format!("\n  All 12 tests pass.  \n{long_line}");
    let args = json!({"pane_id": "terminal_1", "seq": 3, "first_line": reply});
    send(&mut p, "2", Some(&request("2", "replied", args)));
    let logged = result_of::<op::Replied>(only_reply(&p, "2", "2")).logged;
    let read = json!({"since_seq": logged - 1});
    send(&mut p, "3", Some(&request("3", "read_events", read)));
    let events = result_of::<op::ReadEvents>(only_reply(&p, "3", "3")).events;
    let event = serde_json::Value::Object(events[0].clone());
    assert_eq!(
        event,
        json!({"seq": logged, "at_ms": event["at_ms"], "event": "replied", "pane_id": "terminal_1",
               "name": "main", "message": 3, "first_line": "All 12 tests pass."})
    );
    let last = p.attention.last_reply(PaneRef::terminal(1)).unwrap();
    assert_eq!(
        last.first_line, "All 12 tests pass.",
        "the row's LAST REPLY"
    );
    let gone = json!({"pane_id": "terminal_99", "first_line": "x"});
    assert_eq!(refused(&mut p, "4", "replied", gone), "pane_not_found");
}

#[test]
fn a_bad_or_taken_agent_name_or_an_unknown_caller_is_refused_and_names_nothing() {
    let mut p = plugin("op-agents-bad");
    let register = request_from("terminal_1", "1", "register_agent", json!({"name": "main"}));
    send(&mut p, "1", Some(&register));
    only_reply(&p, "1", "1");
    let cases = [
        ("register_agent", json!({"name": "has space"})),
        ("register_agent", json!({"name": "parent"})),
        ("register_agent", json!({"name": "main.x"})),
        ("new_pane", json!({"agent_name": "main"})),
        ("run", json!({"command": ["true"], "agent_name": "a..b"})),
    ];
    for (n, (op, args)) in cases.into_iter().enumerate() {
        let id = format!("x{n}");
        // register_agent without a caller: the server's pane is unknown.
        assert_eq!(refused(&mut p, &id, op, args), "bad_request");
    }
    let names: Vec<String> = p.agents.all().into_keys().collect();
    assert_eq!(names, ["main"]);
}

#[test]
fn a_message_is_typed_with_its_header_then_submitted_and_answered_delivered() {
    let mut p = plugin("op-message");
    let register = request_from("terminal_1", "1", "register_agent", json!({"name": "main"}));
    send(&mut p, "1", Some(&register));
    only_reply(&p, "1", "1");
    let args = json!({"to": "main", "text": "tests pass\nall 12", "from": "ci"});
    send(&mut p, "2", Some(&request("2", "send_message", args)));
    let header = "[#2 from ci] tests pass\nall 12".to_owned();
    assert_eq!(typed(&p), [(PaneRef::terminal(1), header)]);
    assert!(replies_on(&p, "2", "2").is_empty(), "answered after the CR");
    p.host.advance(Duration::from_millis(160));
    p.on_timer();
    let sent = result_of::<op::SendMessage>(only_reply(&p, "2", "2"));
    assert_eq!(
        (sent.seq, sent.status, sent.attempts),
        (2, DeliveryStatus::Delivered, 1)
    );
    assert_eq!(sent.pane_id, Some(PaneRef::terminal(1)));
    assert_eq!(typed(&p)[1], (PaneRef::terminal(1), "\r".to_owned()));
}

#[test]
fn a_message_to_the_parent_waits_queued_until_the_parent_has_a_pane() {
    let mut p = plugin("op-message-parent");
    let register = request_from(
        "terminal_1",
        "1",
        "register_agent",
        json!({"name": "main.kid"}),
    );
    send(&mut p, "1", Some(&register));
    only_reply(&p, "1", "1");
    let args = json!({"to": "parent", "text": "done", "wait_ms": 0});
    send(
        &mut p,
        "2",
        Some(&request_from("terminal_1", "2", "send_message", args)),
    );
    let sent = result_of::<op::SendMessage>(only_reply(&p, "2", "2"));
    assert_eq!(sent.status, DeliveryStatus::Queued);
    assert!(typed(&p).is_empty(), "main has no pane yet");
    ask(&mut p, "3", "new_pane", json!({"agent_name": "main"}));
    let parent = p.host.opened_panes()[0];
    p.host.advance(Duration::from_millis(300));
    p.on_timer();
    assert_eq!(typed(&p)[0], (parent, "[#2 from main.kid] done".to_owned()));
}

#[test]
fn a_message_with_a_bad_target_sender_size_or_ttl_is_refused_and_types_nothing() {
    let mut p = plugin("op-message-bad");
    let cases = [
        json!({"to": "parent", "text": "x"}),
        json!({"to": "has space", "text": "x"}),
        json!({"to": "plugin_5", "text": "x"}),
        json!({"to": "main", "text": "x", "ttl_s": 0}),
        json!({"to": "main", "text": "x", "from": "a]b"}),
        json!({"to": "main", "text": "x".repeat(64 * 1024 + 1)}),
    ];
    for (n, args) in cases.into_iter().enumerate() {
        let id = format!("m{n}");
        assert_eq!(refused(&mut p, &id, "send_message", args), "bad_request");
    }
    assert!(typed(&p).is_empty());
    assert!(
        p.log.read(0, 1 << 20).events.is_empty(),
        "nothing was logged"
    );
}

#[test]
fn a_named_childs_exit_is_told_to_its_parent() {
    let mut p = plugin("op-child-exit");
    let register = request_from("terminal_1", "1", "register_agent", json!({"name": "main"}));
    send(&mut p, "1", Some(&register));
    only_reply(&p, "1", "1");
    let args = json!({"command": ["make"], "agent_name": "main.build", "wait": false});
    ask(&mut p, "2", "run", args);
    // The command replaced a shell pane in place: it is the last one opened.
    let child = *p.host.opened_panes().last().unwrap();
    p.on_command_exited(child.id, Some(2));
    let told = "[#4 from zellij-mcp] child main.build exited with code 2".to_owned();
    assert_eq!(typed(&p), [(PaneRef::terminal(1), told)]);
    let logged: Vec<String> = p
        .log
        .read(0, 1 << 20)
        .events
        .iter()
        .map(|e| {
            format!(
                "{} {}",
                e["event"],
                e.get("name")
                    .or(e.get("to"))
                    .and_then(Value::as_str)
                    .unwrap_or("")
            )
        })
        .collect();
    assert_eq!(
        logged,
        [
            r#""registered" main"#,
            r#""registered" main.build"#,
            r#""exited" main.build"#,
            r#""queued" main"#
        ]
    );
    // Turned off in the layout: nothing is sent.
    let mut quiet = plugin("op-child-exit-off");
    quiet.settings.child_events = false;
    send(&mut quiet, "1", Some(&register));
    ask(
        &mut quiet,
        "2",
        "run",
        json!({"command": ["make"], "agent_name": "main.build", "wait": false}),
    );
    let child = *quiet.host.opened_panes().last().unwrap();
    quiet.on_command_exited(child.id, Some(2));
    assert!(typed(&quiet).is_empty());
}

/// A shell's exit report, as `zellij pipe --name zellij-mcp-exit` sends it.
fn exit_report(p: &mut Plugin, pipe_id: &str, report: &str) {
    p.on_pipe(PipeMessage {
        source: PipeSource::Cli(pipe_id.into()),
        name: zellij_mcp_protocol::ops::EXIT_PIPE_NAME.into(),
        payload: Some(report.into()),
        args: Default::default(),
        is_private: true,
    });
}

#[test]
fn a_run_is_answered_and_released_by_the_instance_that_typed_it_after_the_lease_moved() {
    let dir = crate::fake::shared_dir("run-handover");
    let mut first = crate::fake::plugin_in(&dir, 1);
    let mut second = crate::fake::plugin_in(&dir, 2);
    let run = json!({"pane_id": "terminal_1", "text": "true; report t1\r", "token": "t1", "at_prompt": true, "timeout_ms": 60000});
    let asked = request("a", "run_in_pane", run);
    send_to_both([&mut first, &mut second], "a", &asked);
    assert_eq!(typed(&first).len(), 1, "the lease holder typed it");
    assert!(typed(&second).is_empty());

    // The first instance goes quiet (its client left); the second acts.
    second.host.advance(Duration::from_secs(10));
    send(&mut second, "h", Some(&request("h", "hello", json!({}))));
    assert_eq!(
        replies_on(&second, "h", "h").len(),
        1,
        "the second acts now"
    );

    for instance in [&mut second, &mut first] {
        exit_report(instance, "exit-1", "0 t1");
    }
    let answered = result_of::<op::RunInPane>(only_reply(&first, "a", "a"));
    assert_eq!(answered.exit_code, Some(0));
    let taken = crate::fake::Call::Output("exit-1".into(), "taken\n".into());
    assert!(first.host.calls.borrow().contains(&taken), "it says so");
    assert!(!second.host.calls.borrow().contains(&taken));
    assert!(
        replies_on(&second, "a", "a").is_empty(),
        "it never knew the run"
    );

    let release = request("r", "release", json!({"token": "t1"}));
    send_to_both([&mut second, &mut first], "r", &release);
    let unblocked = crate::fake::Call::Unblock("exit-1".into());
    assert!(
        first.host.calls.borrow().contains(&unblocked),
        "the shell goes on at once, not after the hold"
    );
    assert!(
        !first.shell_runs.busy(PaneRef::terminal(1)),
        "the pane takes runs again"
    );
}

/// Sends `payload` on `pipe` to each instance, in turn: Zellij gives every
/// instance every message.
fn send_to_both(instances: [&mut McpPlugin<FakeHost>; 2], pipe: &str, payload: &str) {
    for instance in instances {
        send(instance, pipe, Some(payload));
    }
}

/// Two instances; the first holds the lease and takes `asked` as `id`,
/// then goes quiet (its client left) and the second acts.
fn lease_moved_after(
    dir: &str,
    id: &str,
    asked: &str,
) -> (McpPlugin<FakeHost>, McpPlugin<FakeHost>) {
    let dir = crate::fake::shared_dir(dir);
    let mut first = crate::fake::plugin_in(&dir, 1);
    let mut second = crate::fake::plugin_in(&dir, 2);
    send_to_both([&mut first, &mut second], id, asked);
    second.host.advance(Duration::from_secs(10));
    send(&mut second, "h", Some(&request("h", "hello", json!({}))));
    assert_eq!(
        replies_on(&second, "h", "h").len(),
        1,
        "the second acts now"
    );
    (first, second)
}

#[test]
fn after_the_lease_moved_a_request_is_told_of_by_the_instance_that_took_it() {
    let wait = json!({"pane_id": "terminal_1", "pattern": "never", "timeout_ms": 60000});
    let asked = request("w", "wait_for", wait);
    let (mut first, mut second) = lease_moved_after("status-handover", "w", &asked);
    let status = request("s", "status", json!({"request_id": "w"}));
    send_to_both([&mut second, &mut first], "s", &status);
    assert!(
        replies_on(&second, "s", "s").is_empty(),
        "it leaves it to the first"
    );
    let told = result_of::<op::Status>(only_reply(&first, "s", "s"));
    assert_eq!(told.state, RequestState::InFlight);
    // A request no instance took is still told of, by the acting one.
    let unknown = request("u", "status", json!({"request_id": "never-sent"}));
    send_to_both([&mut second, &mut first], "u", &unknown);
    let told = result_of::<op::Status>(only_reply(&second, "u", "u"));
    assert_eq!(told.state, RequestState::Unknown);
    assert!(replies_on(&first, "u", "u").is_empty());
}

#[test]
fn after_the_lease_moved_a_reply_is_replayed_by_the_instance_that_kept_it() {
    let asked = request("l", "list_tabs", json!({}));
    let (mut first, mut second) = lease_moved_after("replay-handover", "l", &asked);
    let earlier = only_reply(&first, "l", "l");
    let replay = request("r", "replay", json!({"request_id": "l"}));
    send_to_both([&mut second, &mut first], "r", &replay);
    assert!(
        replies_on(&second, "r", "r").is_empty(),
        "no null: that would send it again"
    );
    let replayed = only_reply(&first, "r", "r").result.unwrap();
    assert_eq!(Some(&replayed["result"]), earlier.result.as_ref());
}

#[test]
fn a_message_typed_before_the_lease_moved_is_delivered_once_and_its_sender_told() {
    let dir = crate::fake::shared_dir("message-handover");
    let mut first = crate::fake::plugin_in(&dir, 1);
    let mut second = crate::fake::plugin_in(&dir, 2);
    let register = request_from("terminal_1", "1", "register_agent", json!({"name": "main"}));
    send_to_both([&mut first, &mut second], "1", &register);
    let args = json!({"to": "main", "text": "hello", "from": "ci", "wait_ms": 60000});
    send_to_both(
        [&mut first, &mut second],
        "m",
        &request("m", "send_message", args),
    );
    assert_eq!(typed(&first).len(), 1, "the holder types it");

    // The second takes the lease while the first types the message.
    second.host.advance(Duration::from_secs(10));
    send(&mut second, "h", Some(&request("h", "hello", json!({}))));
    assert_eq!(replies_on(&second, "h", "h").len(), 1, "the second acts");
    for _ in 0..3 {
        second.host.advance(Duration::from_millis(300));
        second.on_timer();
    }
    assert!(typed(&second).is_empty(), "not typed again");
    for _ in 0..3 {
        first.host.advance(Duration::from_millis(300));
        first.on_timer();
    }
    assert_eq!(typed(&first).last().unwrap().1, "\r");
    let sent = result_of::<op::SendMessage>(only_reply(&first, "m", "m"));
    assert_eq!(sent.status, DeliveryStatus::Delivered, "{sent:?}");
    second.host.advance(Duration::from_millis(300));
    second.on_timer();
    assert!(typed(&second).is_empty(), "its end is in the log");
    assert!(replies_on(&second, "m", "m").is_empty());

    // The next message is the second's to type.
    let args = json!({"to": "main", "text": "again", "from": "ci", "wait_ms": 60000});
    send_to_both(
        [&mut second, &mut first],
        "n",
        &request("n", "send_message", args),
    );
    assert_eq!(typed(&second).len(), 1, "{:?}", typed(&second));
    assert_eq!(typed(&first).len(), 2, "the first types no more");
}

#[test]
fn a_submit_taken_before_the_lease_moved_keeps_its_enter_next_to_its_text() {
    let submit = json!({"pane_id": "terminal_1", "text": "one", "submit": true});
    let (mut first, mut second) =
        lease_moved_after("submit-handover", "a", &request("a", "write", submit));
    assert_eq!(typed(&first), [(PaneRef::terminal(1), "one".to_owned())]);
    let write = request(
        "b",
        "write",
        json!({"pane_id": "terminal_1", "text": "two"}),
    );
    send_to_both([&mut second, &mut first], "b", &write);
    second.host.advance(Duration::from_millis(100));
    second.on_timer();
    assert!(typed(&second).is_empty(), "the first still types into it");
    // The first sends its CR, then lets the pane go after its quiet time.
    for _ in 0..2 {
        first.host.advance(Duration::from_secs(1));
        first.on_timer();
    }
    assert_eq!(typed(&first).last().unwrap().1, "\r");
    assert!(only_reply(&first, "a", "a").result.is_some());
    second.host.advance(Duration::from_millis(100));
    second.on_timer();
    assert_eq!(typed(&second), [(PaneRef::terminal(1), "two".to_owned())]);
    assert!(replies_on(&first, "b", "b").is_empty());
}

#[test]
fn runs_in_a_shell_pane_are_typed_in_turn_and_answered_by_their_exit_reports() {
    let mut p = plugin("shell-runs");
    let run = |token: &str, prompt: bool| json!({"pane_id": "terminal_1", "text": format!("true; report {token}\r"), "token": token, "at_prompt": prompt, "timeout_ms": 5000});
    send(
        &mut p,
        "a",
        Some(&request("a", "run_in_pane", run("tokena", true))),
    );
    send(
        &mut p,
        "b",
        Some(&request("b", "run_in_pane", run("tokenb", false))),
    );
    p.on_timer();
    let typed_now: Vec<String> = typed(&p).into_iter().map(|(_, t)| t).collect();
    assert_eq!(typed_now, ["true; report tokena\r"], "b waits for a");
    assert!(
        replies_on(&p, "a", "a").is_empty(),
        "a waits for its report"
    );

    exit_report(&mut p, "exit-a", "3 tokena");
    let answered = result_of::<op::RunInPane>(only_reply(&p, "a", "a"));
    assert_eq!((answered.exit_code, answered.timed_out), (Some(3), false));
    let held = p.host.calls.borrow().clone();
    assert!(
        held.contains(&crate::fake::Call::Block("exit-a".into())),
        "held for release"
    );
    assert!(replies_on(&p, "b", "b").is_empty(), "b waits for a's shell");

    send(
        &mut p,
        "r",
        Some(&request("r", "release", json!({"token": "tokena"}))),
    );
    let released = result_of::<op::Release>(only_reply(&p, "r", "r"));
    assert!(released.released);
    assert!(p
        .host
        .calls
        .borrow()
        .contains(&crate::fake::Call::Unblock("exit-a".into())));
    let turn = result_of::<op::RunInPane>(only_reply(&p, "b", "b"));
    assert!(turn.turn, "b's turn, not typed: {turn:?}");
    assert_eq!(typed(&p).len(), 1);

    // Sent again at the prompt, b is typed; its timeout passes; its late
    // report is logged.
    send(
        &mut p,
        "b2",
        Some(&request("b2", "run_in_pane", run("tokenb", true))),
    );
    let typed_now: Vec<String> = typed(&p).into_iter().map(|(_, t)| t).collect();
    assert_eq!(typed_now.last().unwrap(), "true; report tokenb\r", "then b");
    p.host.advance(Duration::from_secs(6));
    p.on_timer();
    let late = result_of::<op::RunInPane>(only_reply(&p, "b2", "b2"));
    assert!(late.timed_out, "{late:?}");
    let exit_wait = json!({"pane_id": "terminal_1", "exit": true, "timeout_ms": 60000});
    send(&mut p, "w", Some(&request("w", "wait_for", exit_wait)));
    assert!(replies_on(&p, "w", "w").is_empty(), "waits for b's exit");
    exit_report(&mut p, "exit-b", "4 tokenb");
    let waited = result_of::<op::WaitFor>(only_reply(&p, "w", "w")).result;
    assert_eq!(
        (waited.outcome, waited.exit_status),
        (WaitOutcome::Exited, Some(4))
    );
    let events = p.log.read(0, 1 << 16);
    let logged = serde_json::to_string(&events).unwrap();
    assert!(logged.contains("run_exited"), "{logged}");
}

#[test]
fn a_run_whose_exit_report_never_comes_is_settled_when_its_shell_is_seen_at_its_prompt() {
    let mut p = plugin("shell-run-unreported");
    let run = |token: &str| json!({"pane_id": "terminal_1", "text": format!("{token}\r"), "token": token, "at_prompt": true, "timeout_ms": 60000});
    send(
        &mut p,
        "a",
        Some(&request("a", "run_in_pane", run("tokena"))),
    );
    p.on_timer();
    assert_eq!(typed(&p).len(), 1, "a is typed");
    // Seen at the prompt right after: the line may not be read yet.
    send(
        &mut p,
        "b",
        Some(&request("b", "run_in_pane", run("tokenb"))),
    );
    assert!(replies_on(&p, "a", "a").is_empty(), "a still runs");
    assert_eq!(typed(&p).len(), 1, "b waits for a");

    p.host.advance(crate::state::shell_runs::REPORT_LOST_AFTER);
    send(
        &mut p,
        "c",
        Some(&request("c", "run_in_pane", run("tokenc"))),
    );
    assert_eq!(error_code(only_reply(&p, "a", "a")), "result_unknown");
    let turn = result_of::<op::RunInPane>(only_reply(&p, "b", "b"));
    assert!(turn.turn, "b's turn comes first: {turn:?}");
    assert_eq!(typed(&p).len(), 1, "c waits behind b");
    exit_report(&mut p, "exit-a", "0 tokena");
    assert!(
        replies_on(&p, "a", "a").len() == 1,
        "a report coming late is not taken"
    );
}

#[test]
fn a_run_in_a_busy_pane_or_with_a_bad_token_is_refused() {
    let mut p = plugin("shell-runs-refused");
    let busy = json!({"pane_id": "terminal_1", "text": "x", "token": "t1", "at_prompt": false});
    assert_eq!(refused(&mut p, "1", "run_in_pane", busy), "busy");
    let bad = json!({"pane_id": "terminal_1", "text": "x", "token": "a b", "at_prompt": true});
    assert_eq!(refused(&mut p, "2", "run_in_pane", bad), "bad_request");
    assert!(typed(&p).is_empty());
}

#[test]
fn a_run_never_types_after_a_persons_half_typed_line() {
    let mut p = plugin("shell-runs-draft");
    let shell = |line| {
        Some(Shown {
            still: 0,
            agent: None,
            described_by: None,
            composer: None,
            line,
        })
    };
    let run = |token: &str| json!({"pane_id": "terminal_1", "text": "true\r", "token": token, "at_prompt": true});
    for line in [
        ShellLine::Draft("$ touch notes.txt".into()),
        ShellLine::Unknown,
    ] {
        *p.host.shown.borrow_mut() = shell(line);
        assert_eq!(refused(&mut p, "1", "run_in_pane", run("t1")), "draft");
    }
    assert!(typed(&p).is_empty(), "nothing typed");
    *p.host.shown.borrow_mut() = shell(ShellLine::Empty);
    send(&mut p, "2", Some(&request("2", "run_in_pane", run("t2"))));
    p.on_timer();
    assert_eq!(typed(&p).len(), 1, "an empty line takes the run");
}

/// What every pane's screen shows from now on.
fn screen_shows(p: &mut Plugin, agent: Option<AgentScreen>, line: ShellLine) {
    *p.host.shown.borrow_mut() = Some(Shown {
        still: 0,
        agent,
        described_by: None,
        composer: None,
        line,
    });
}

/// The events of the log, by name.
fn events_named(p: &mut Plugin, id: &str, name: &str) -> Vec<Value> {
    send(p, id, Some(&request(id, "read_events", json!({}))));
    let read: Value =
        serde_json::to_value(result_of::<op::ReadEvents>(only_reply(p, id, id))).unwrap();
    let events = read["events"].as_array().cloned().unwrap_or_default();
    events.into_iter().filter(|e| e["event"] == name).collect()
}

#[test]
fn a_message_is_held_while_its_agent_asks_or_holds_a_draft_and_typed_once_it_is_free() {
    let mut p = plugin("op-message-held");
    let register = request_from("terminal_1", "1", "register_agent", json!({"name": "main"}));
    send(&mut p, "1", Some(&register));
    only_reply(&p, "1", "1");
    screen_shows(&mut p, Some(AgentScreen::Asking), ShellLine::Unknown);
    let args = json!({"to": "main", "text": "hello", "from": "ci", "wait_ms": 100});
    send(&mut p, "2", Some(&request("2", "send_message", args)));
    assert!(typed(&p).is_empty(), "nothing typed into the dialog");
    p.host.advance(Duration::from_millis(150));
    p.on_timer();
    let sent = result_of::<op::SendMessage>(only_reply(&p, "2", "2"));
    assert_eq!(
        (sent.status, sent.held_because),
        (DeliveryStatus::Held, Some(HoldReason::Asking))
    );
    screen_shows(&mut p, Some(AgentScreen::Draft), ShellLine::Unknown);
    p.host.advance(Duration::from_millis(300));
    p.on_timer();
    assert!(typed(&p).is_empty(), "nothing typed after a person's draft");
    let held: Vec<Value> = events_named(&mut p, "3", "held");
    let reasons: Vec<&Value> = held.iter().map(|e| &e["why"]).collect();
    assert_eq!(reasons, [&json!("asking"), &json!("draft")], "{held:?}");
    screen_shows(&mut p, Some(AgentScreen::Working), ShellLine::Unknown);
    p.host.advance(Duration::from_millis(300));
    p.on_timer();
    let header = "[#2 from ci] hello".to_owned();
    assert_eq!(
        typed(&p),
        [(PaneRef::terminal(1), header)],
        "typed once free"
    );
}

/// terminal_1 registers as `bot`, an agent that reads lines.
fn register_line_bot(p: &mut Plugin) {
    let register = json!({"name": "bot", "reads_lines": true});
    let register = request_from("terminal_1", "1", "register_agent", register);
    send(p, "1", Some(&register));
    only_reply(p, "1", "1");
}

#[test]
fn a_message_to_an_agent_that_reads_lines_gets_its_cr_once_its_prompt_shows_the_text() {
    let mut p = plugin("op-message-line-cr");
    register_line_bot(&mut p);
    *p.host.screen.borrow_mut() = vec!["bot ready".into(), "bot> ".into()];
    let args = json!({"to": "bot", "text": "hi", "from": "ci", "wait_ms": 60_000});
    send(&mut p, "2", Some(&request("2", "send_message", args)));
    assert_eq!(typed(&p).len(), 1, "the text");
    // Not drawn yet: a CR now would be read as an empty line.
    for _ in 0..10 {
        p.host.advance(Duration::from_millis(100));
        p.on_timer();
    }
    assert_eq!(typed(&p).len(), 1, "no CR before the text shows");
    *p.host.screen.borrow_mut() = vec!["bot ready".into(), "bot> [#2 from ci] hi".into()];
    p.host.advance(Duration::from_millis(20));
    p.on_timer();
    let texts: Vec<String> = typed(&p).into_iter().map(|(_, t)| t).collect();
    assert_eq!(texts, ["[#2 from ci] hi", "\r"]);
    *p.host.screen.borrow_mut() = vec!["bot ready, 1 lines read".into(), "bot> ".into()];
    while replies_on(&p, "2", "2").is_empty() {
        p.host.advance(Duration::from_millis(100));
        p.on_timer();
    }
    let sent = result_of::<op::SendMessage>(only_reply(&p, "2", "2"));
    assert_eq!(sent.status, DeliveryStatus::Delivered);
}

#[test]
fn a_message_right_after_a_write_left_text_waits_for_that_draft_to_go() {
    let mut p = plugin("op-message-after-write");
    register_line_bot(&mut p);
    *p.host.screen.borrow_mut() = vec!["bot> ".into()];
    ask(
        &mut p,
        "w",
        "write",
        json!({"pane_id": 1, "text": "my own"}),
    );
    only_reply(&p, "w", "w");
    // The program has not drawn the text yet: its line still reads empty.
    let args = json!({"to": "bot", "text": "hi", "from": "ci", "wait_ms": 100});
    send(&mut p, "2", Some(&request("2", "send_message", args)));
    p.host.advance(Duration::from_millis(150));
    p.on_timer();
    let sent = result_of::<op::SendMessage>(only_reply(&p, "2", "2"));
    assert_eq!(
        (sent.status, sent.held_because),
        (DeliveryStatus::Held, Some(HoldReason::Draft))
    );
    *p.host.screen.borrow_mut() = vec!["bot> my own".into()];
    p.host.advance(MOST_CR_WAIT);
    p.on_timer();
    let texts = |p: &Plugin| -> Vec<String> { typed(p).into_iter().map(|(_, t)| t).collect() };
    assert_eq!(texts(&p), ["my own"], "nothing typed into the draft");
    // The text was sent (a person pressed Enter): the message goes.
    *p.host.screen.borrow_mut() = vec!["bot> ".into()];
    p.host.advance(Duration::from_millis(300));
    p.on_timer();
    assert_eq!(texts(&p), ["my own", "[#2 from ci] hi"]);
}

#[test]
fn a_held_message_stays_held_while_zellij_is_too_busy_to_show_its_pane() {
    let mut p = plugin("op-message-unseen");
    register_line_bot(&mut p);
    *p.host.screen.borrow_mut() = vec!["bot> my own".into()];
    let args = json!({"to": "bot", "text": "hi", "from": "ci", "wait_ms": 1000});
    send(&mut p, "2", Some(&request("2", "send_message", args)));
    p.host.advance(Duration::from_millis(300));
    p.on_timer();
    // The draft was seen; then no look gets the screen until the wait ends.
    *p.host.screens_untold.borrow_mut() = true;
    while replies_on(&p, "2", "2").is_empty() {
        p.host.advance(Duration::from_millis(100));
        p.on_timer();
    }
    let sent = result_of::<op::SendMessage>(only_reply(&p, "2", "2"));
    assert_eq!(
        (sent.status, sent.held_because, sent.attempts),
        (DeliveryStatus::Held, Some(HoldReason::Draft), 0)
    );
    // The screen shows again, the draft gone: the message goes.
    *p.host.screens_untold.borrow_mut() = false;
    *p.host.screen.borrow_mut() = vec!["bot> ".into()];
    p.host.advance(Duration::from_millis(300));
    p.on_timer();
    let texts: Vec<String> = typed(&p).into_iter().map(|(_, t)| t).collect();
    assert_eq!(texts, ["[#2 from ci] hi"]);
}

#[test]
fn a_message_to_codex_waits_for_its_turn_to_end_and_goes_as_one_paste() {
    let mut p = plugin("op-message-codex");
    *p.host.running.borrow_mut() = vec!["node".into(), "/x/@openai/codex/bin/codex.js".into()];
    screen_shows(&mut p, Some(AgentScreen::Working), ShellLine::Unknown);
    let args = json!({"to": "terminal_1", "text": "one\ntwo", "from": "ci", "wait_ms": 100});
    send(&mut p, "1", Some(&request("1", "send_message", args)));
    p.host.advance(Duration::from_millis(150));
    p.on_timer();
    let sent = result_of::<op::SendMessage>(only_reply(&p, "1", "1"));
    assert_eq!(
        sent.held_because,
        Some(HoldReason::Working),
        "Enter would steer its turn"
    );
    assert!(typed(&p).is_empty());
    screen_shows(&mut p, Some(AgentScreen::Idle), ShellLine::Unknown);
    p.host.advance(Duration::from_millis(300));
    p.on_timer();
    let paste = "\u{1b}[200~[#1 from ci] one\ntwo\u{1b}[201~".to_owned();
    assert_eq!(typed(&p), [(PaneRef::terminal(1), paste)]);
}

/// Delivers a message to the Codex pane of `p` (its screen idle): typed,
/// drawn, its CR, the composer cleared; no working sign drawn yet. Its
/// header.
fn delivered_to_codex(p: &mut Plugin, id: &str, text: &str) -> String {
    screen_shows(p, Some(AgentScreen::Idle), ShellLine::Unknown);
    let args = json!({"to": "terminal_1", "text": text, "from": "ci", "wait_ms": 60_000});
    send(p, id, Some(&request(id, "send_message", args)));
    *p.host.shown.borrow_mut() = Some(Shown {
        still: 0,
        agent: Some(AgentScreen::Draft),
        described_by: None,
        composer: Some(Composing {
            draft: typed(p).last().unwrap().1.clone(),
            suggestion: String::new(),
            around: 1,
            drawn: 1,
            cursor_away: false,
            without_draft: AgentScreen::Idle,
        }),
        line: ShellLine::Unknown,
    });
    p.host.advance(Duration::from_millis(300));
    p.on_timer();
    screen_shows(p, Some(AgentScreen::Idle), ShellLine::Unknown);
    while replies_on(p, id, id).is_empty() {
        p.host.advance(Duration::from_millis(20));
        p.on_timer();
    }
    let sent = result_of::<op::SendMessage>(only_reply(p, id, id));
    assert_eq!(sent.status, DeliveryStatus::Delivered);
    format!("[#{} from ci]", sent.seq)
}

#[test]
fn a_message_to_codex_right_after_another_waits_until_that_ones_turn_shows() {
    let mut p = plugin("op-message-codex-turn-unshown");
    *p.host.running.borrow_mut() = vec!["node".into(), "/x/@openai/codex/bin/codex.js".into()];
    let texts = |p: &Plugin| -> Vec<String> { typed(p).into_iter().map(|(_, t)| t).collect() };
    delivered_to_codex(&mut p, "1", "one");
    // Its composer is clear, its working sign not drawn yet (its prompt
    // hook runs): Enter now would steer the turn "one" started.
    let args = json!({"to": "terminal_1", "text": "two", "from": "ci", "wait_ms": 100});
    send(&mut p, "2", Some(&request("2", "send_message", args)));
    p.host.advance(Duration::from_millis(150));
    p.on_timer();
    let sent = result_of::<op::SendMessage>(only_reply(&p, "2", "2"));
    assert_eq!(
        (sent.status, sent.held_because),
        (DeliveryStatus::Held, Some(HoldReason::Working))
    );
    assert_eq!(texts(&p).len(), 2, "the text and its CR: {:?}", texts(&p));
    // The turn shows, then ends: "two" goes.
    screen_shows(&mut p, Some(AgentScreen::Working), ShellLine::Unknown);
    p.host.advance(Duration::from_millis(300));
    p.on_timer();
    assert_eq!(texts(&p).len(), 2);
    screen_shows(&mut p, Some(AgentScreen::Idle), ShellLine::Unknown);
    p.host.advance(Duration::from_millis(300));
    p.on_timer();
    assert!(texts(&p).last().unwrap().ends_with("] two"));
}

#[test]
fn a_codex_turn_that_never_shows_holds_the_next_message_only_so_long_or_until_its_hook_ends_it() {
    let mut p = plugin("op-message-codex-turn-told");
    *p.host.running.borrow_mut() = vec!["node".into(), "/x/@openai/codex/bin/codex.js".into()];
    let texts = |p: &Plugin| -> Vec<String> { typed(p).into_iter().map(|(_, t)| t).collect() };
    // Its hooks tell the turn's end: the next message goes at once.
    let header = delivered_to_codex(&mut p, "1", "one");
    let told_ms = p.host.unix_ms();
    let ended = json!({"pane_id": "terminal_1", "told_ms": told_ms,
        "event": {"kind": "turn_ended", "prompt": format!("{header} one")}});
    send(&mut p, "h", Some(&request("h", "hook", ended)));
    only_reply(&p, "h", "h");
    let args = json!({"to": "terminal_1", "text": "two", "from": "ci", "wait_ms": 60_000});
    send(&mut p, "2", Some(&request("2", "send_message", args)));
    p.host.advance(Duration::from_millis(300));
    p.on_timer();
    assert!(texts(&p).last().unwrap().ends_with("] two"));
    // Another turn's end tells nothing of this one; nothing shows: the
    // next message goes once the turn had its time to show.
    delivered_to_codex(&mut p, "3", "three");
    let args = json!({"to": "terminal_1", "text": "four", "from": "ci", "wait_ms": 60_000});
    send(&mut p, "4", Some(&request("4", "send_message", args)));
    let start = p.host.now();
    while !texts(&p).last().unwrap().ends_with("] four") {
        p.host.advance(Duration::from_millis(250));
        p.on_timer();
    }
    let waited = p.host.now() - start;
    let within = Duration::from_millis(TURN_SHOWS_WITHIN_MS);
    assert!(waited + Duration::from_secs(1) >= within, "{waited:?}");
    assert!(waited <= within + Duration::from_secs(1), "{waited:?}");
}

#[test]
fn a_message_whose_text_stays_in_the_composer_after_its_cr_ends_unsent_and_is_not_typed_again() {
    let mut p = plugin("op-message-unsent");
    *p.host.running.borrow_mut() = vec!["node".into(), "/x/@openai/codex/bin/codex.js".into()];
    screen_shows(&mut p, Some(AgentScreen::Idle), ShellLine::Unknown);
    let args = json!({"to": "terminal_1", "text": "one", "from": "ci", "wait_ms": 60_000});
    send(&mut p, "1", Some(&request("1", "send_message", args)));
    assert_eq!(typed(&p).len(), 1);
    // The program takes each CR as a new line: the text stays, drawn
    // anew.
    let new_lines = |crs: usize| Shown {
        still: 0,
        agent: Some(AgentScreen::Draft),
        described_by: None,
        composer: Some(Composing {
            draft: "[#1 from ci] one\n".into(),
            suggestion: String::new(),
            around: 1,
            drawn: crs as u64,
            cursor_away: false,
            without_draft: AgentScreen::Idle,
        }),
        line: ShellLine::Unknown,
    };
    let start = p.host.now();
    while replies_on(&p, "1", "1").is_empty() && p.host.now() < start + Duration::from_secs(30) {
        let crs = typed(&p).iter().filter(|(_, t)| t == "\r").count();
        *p.host.shown.borrow_mut() = Some(new_lines(crs));
        p.host.advance(Duration::from_millis(100));
        p.on_timer();
    }
    let sent = result_of::<op::SendMessage>(only_reply(&p, "1", "1"));
    assert_eq!(
        (sent.status, sent.held_because, sent.pane_id),
        (
            DeliveryStatus::Failed,
            Some(HoldReason::Draft),
            Some(PaneRef::terminal(1))
        )
    );
    assert!(
        p.host.now() >= start + MOST_UNREAD_WAIT,
        "it had time to read the CR"
    );
    let unsent = events_named(&mut p, "2", "unsent");
    assert_eq!(unsent.len(), 1, "{unsent:?}");
    assert!(events_named(&mut p, "3", "delivered").is_empty());
    p.host.advance(Duration::from_secs(5));
    p.on_timer();
    let texts: Vec<String> = typed(&p).into_iter().map(|(_, t)| t).collect();
    // Its CR went again while the text stayed (Codex's description asks).
    assert_eq!(
        texts,
        ["[#1 from ci] one", "\r", "\r", "\r"],
        "typed once: never again"
    );
}

#[test]
fn a_write_into_a_dialog_of_a_program_that_is_no_agent_is_not_refused() {
    let mut p = plugin("op-write-not-agent");
    screen_shows(&mut p, Some(AgentScreen::Asking), ShellLine::Unknown);
    let keys = json!({"pane_id": "terminal_1", "keys": ["Enter"]});
    send(&mut p, "1", Some(&request("1", "write", keys)));
    only_reply(&p, "1", "1");
    assert_eq!(
        typed(&p).len(),
        1,
        "htop is no agent: its screen is not told"
    );
}

#[test]
fn a_message_to_a_pane_that_shows_no_agent_is_refused_and_nothing_is_typed() {
    let mut p = plugin("op-message-not-agent");
    screen_shows(&mut p, None, ShellLine::Draft("$ touch notes.txt".into()));
    let args = json!({"to": "terminal_1", "text": "hello", "from": "ci"});
    assert_eq!(refused(&mut p, "1", "send_message", args), "not_an_agent");
    p.host.advance(Duration::from_millis(300));
    p.on_timer();
    assert!(typed(&p).is_empty());
    // A name waits for its agent's composer instead.
    let args = json!({"to": "later", "text": "hello", "from": "ci", "wait_ms": 0});
    send(&mut p, "2", Some(&request("2", "send_message", args)));
    let sent = result_of::<op::SendMessage>(only_reply(&p, "2", "2"));
    assert_eq!(sent.status, DeliveryStatus::Queued);
}

#[test]
fn a_relayed_pane_runs_the_program_its_relay_told() {
    let mut p = plugin("op-foreground");
    // Zellij tells the relay's own line, whose program cannot be read for
    // sure.
    let relay = [
        "/b/zellij-mcp",
        "launch",
        "--relay",
        "--",
        "sh",
        "-c",
        "exec \"$@\"",
        "sh",
        "x",
    ];
    *p.host.running.borrow_mut() = relay.iter().map(|w| w.to_string()).collect();
    screen_shows(&mut p, None, ShellLine::Unknown);
    let args = json!({"to": "terminal_1", "text": "hello", "from": "ci", "wait_ms": 0});
    assert_eq!(
        refused(&mut p, "1", "send_message", args.clone()),
        "not_an_agent"
    );
    let told = json!({"pane_id": "terminal_1", "running": ["/usr/bin/codex"], "cwd": "/w"});
    send(&mut p, "2", Some(&request("2", "foreground", told)));
    only_reply(&p, "2", "2");
    send(&mut p, "3", Some(&request("3", "send_message", args)));
    let sent = result_of::<op::SendMessage>(only_reply(&p, "3", "3"));
    let taken = [DeliveryStatus::Queued, DeliveryStatus::Held];
    assert!(taken.contains(&sent.status), "codex is an agent");
    let gone = json!({"pane_id": "terminal_99", "running": ["vim"]});
    assert_eq!(refused(&mut p, "4", "foreground", gone), "pane_not_found");
    let list = json!({"details": true});
    send(&mut p, "5", Some(&request("5", "list_panes", list)));
    let listed = result_of::<op::ListPanes>(only_reply(&p, "5", "5"));
    let entry = listed
        .panes
        .iter()
        .find(|e| e.pane_id == PaneRef::terminal(1));
    let details = entry.and_then(|e| e.details.clone()).unwrap_or_default();
    assert_eq!(details.running, Some(vec!["/usr/bin/codex".to_owned()]));
    assert_eq!(details.cwd.as_deref(), Some("/w"));
}

#[test]
fn a_relayed_agents_live_screen_tells_its_state_over_a_stale_view_and_keys_still_wait() {
    let mut p = plugin("op-relay-screen");
    *p.host.running.borrow_mut() = vec!["/usr/bin/codex".into()];
    // A person scrolled the view up to a page that reads as a draft, while
    // the relay's live screen shows the program idle, as read just before.
    screen_shows(&mut p, Some(AgentScreen::Draft), ShellLine::Unknown);
    let read_ms = p.host.unix_ms() - 50;
    let told = json!({"pane_id": "terminal_1", "running": ["/usr/bin/codex"], "screen": "idle", "screen_ms": read_ms});
    send(&mut p, "1", Some(&request("1", "foreground", told)));
    only_reply(&p, "1", "1");
    let row = |p: &mut Plugin, id: &str| {
        send(p, id, Some(&request(id, "agents", json!({}))));
        let agents = result_of::<op::Agents>(only_reply(p, id, id)).agents;
        let row = agents
            .into_iter()
            .find(|a| a.pane_id == PaneRef::terminal(1));
        row.map(|r| (r.state, r.by_relay))
    };
    // The view may be ahead of a word read before it showed its state
    // (the relay's next word on its way): for a while, the view stands.
    assert_eq!(
        row(&mut p, "2"),
        Some((zellij_mcp_protocol::ops::PaneState::Draft, false))
    );
    p.host
        .advance(Duration::from_millis(STALE_OLD_WORD_MS - 500));
    p.on_timer();
    assert_eq!(
        row(&mut p, "2b"),
        Some((zellij_mcp_protocol::ops::PaneState::Draft, false))
    );
    p.host.advance(Duration::from_millis(600));
    p.on_timer();
    assert_eq!(
        row(&mut p, "3"),
        Some((zellij_mcp_protocol::ops::PaneState::Idle, true))
    );
    send(
        &mut p,
        "4",
        Some(&request("4", "explain", json!({"pane_id": "terminal_1"}))),
    );
    let explained = result_of::<op::Explain>(only_reply(&p, "4", "4"));
    let relay = explained.relay.unwrap_or_default();
    assert!(
        relay.starts_with("idle 5.1 s ago; the view has shown another"),
        "{relay}"
    );
    // Nothing is typed into what the view shows: the last look before
    // typing is the view's.
    let args = json!({"to": "terminal_1", "text": "hello", "from": "ci", "wait_ms": 100});
    send(&mut p, "5", Some(&request("5", "send_message", args)));
    p.host.advance(Duration::from_millis(150));
    p.on_timer();
    let sent = result_of::<op::SendMessage>(only_reply(&p, "5", "5"));
    assert_eq!(sent.status, DeliveryStatus::Held);
    assert!(typed(&p).is_empty());
    // The view back at the bottom: it tells the state again.
    screen_shows(&mut p, Some(AgentScreen::Working), ShellLine::Unknown);
    let told = json!({"pane_id": "terminal_1", "running": ["/usr/bin/codex"], "screen": "working"});
    send(&mut p, "6", Some(&request("6", "foreground", told)));
    only_reply(&p, "6", "6");
    assert_eq!(
        row(&mut p, "7"),
        Some((zellij_mcp_protocol::ops::PaneState::Working, false))
    );
}

#[test]
fn writing_into_a_dialog_needs_answer_and_is_logged() {
    let mut p = plugin("op-write-asking");
    *p.host.running.borrow_mut() = vec!["/usr/bin/codex".into()];
    screen_shows(&mut p, Some(AgentScreen::Asking), ShellLine::Unknown);
    let keys = json!({"pane_id": "terminal_1", "keys": ["Enter"]});
    assert_eq!(refused(&mut p, "1", "write", keys), "asking");
    assert!(typed(&p).is_empty());
    let meant = json!({"pane_id": "terminal_1", "keys": ["Esc"], "answer": true});
    send(&mut p, "2", Some(&request("2", "write", meant)));
    only_reply(&p, "2", "2");
    assert_eq!(typed(&p), [(PaneRef::terminal(1), "\u{1b}".to_owned())]);
    let answered = events_named(&mut p, "3", "answered");
    assert_eq!(answered.len(), 1, "{answered:?}");
    assert_eq!(answered[0]["pane_id"], json!("terminal_1"));
}

#[test]
fn locate_tells_what_an_agent_s_screen_shows_only_when_asked_to_look() {
    let mut p = plugin("op-locate-screen");
    let register = request_from("terminal_1", "1", "register_agent", json!({"name": "main"}));
    send(&mut p, "1", Some(&register));
    only_reply(&p, "1", "1");
    screen_shows(&mut p, Some(AgentScreen::Asking), ShellLine::Unknown);
    let locate = |p: &mut Plugin, id: &str, screen: bool| {
        let args = json!({"pane_id": "terminal_1", "screen": screen});
        send(p, id, Some(&request(id, "locate", args)));
        result_of::<op::Locate>(only_reply(p, id, id)).state
    };
    assert_eq!(
        locate(&mut p, "2", true),
        Some(zellij_mcp_protocol::ops::PaneState::Asking)
    );
    assert_eq!(locate(&mut p, "3", false), None, "no look at the screen");
}

#[test]
fn render_events_come_only_while_a_wait_is_under_way() {
    let mut p = plugin("op-render-events");
    let follows = |p: &Plugin| {
        p.host
            .calls
            .borrow()
            .iter()
            .filter_map(|call| match call {
                crate::fake::Call::RenderEvents(on) => Some(*on),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    send(
        &mut p,
        "1",
        Some(&request("1", "read", json!({"pane_id": 1}))),
    );
    assert!(follows(&p).is_empty(), "a read needs no render events");
    let args = json!({"pane_id": 1, "pattern": "never", "timeout_ms": 100});
    send(&mut p, "2", Some(&request("2", "wait_for", args)));
    assert_eq!(follows(&p), [true]);
    p.host.advance(Duration::from_millis(150));
    p.on_timer();
    only_reply(&p, "2", "2");
    assert_eq!(follows(&p), [true, false]);
}

#[test]
fn a_pane_whose_exit_zellij_reported_is_listed_exited_until_it_runs_again() {
    let mut p = plugin("op-exit-reported");
    let entry = |p: &McpPlugin<FakeHost>| {
        let entries = p.view.entries().into_iter();
        let mut found = entries.filter(|e| e.pane_id == PaneRef::terminal(1));
        found.next().map(|e| (e.exited, e.exit_status, e.state))
    };
    assert_eq!(entry(&p), Some((false, None, None)));
    p.on_command_exited(1, Some(3));
    assert_eq!(
        entry(&p),
        Some((
            true,
            Some(3),
            Some(zellij_mcp_protocol::ops::PaneState::Exited)
        ))
    );
    p.view.exit_codes.rerun(1);
    assert_eq!(entry(&p), Some((false, None, None)));
}

#[test]
fn a_dialog_on_the_screen_holds_messages_whatever_a_hook_tells_after_it() {
    let mut p = plugin("op-hook-dialog");
    let register = request_from("terminal_1", "1", "register_agent", json!({"name": "main"}));
    send(&mut p, "1", Some(&register));
    only_reply(&p, "1", "1");
    screen_shows(&mut p, Some(AgentScreen::Asking), ShellLine::Unknown);
    send(&mut p, "2", Some(&request("2", "list_panes", json!({}))));
    only_reply(&p, "2", "2");
    // The turn's start, told late (a loaded machine), and one out of order.
    p.host.advance(Duration::from_millis(500));
    let told_ms = p.host.unix_ms();
    let started =
        json!({"pane_id": "terminal_1", "event": {"kind": "turn_started"}, "told_ms": told_ms});
    send(&mut p, "3", Some(&request("3", "hook", started)));
    only_reply(&p, "3", "3");
    let ended = json!({"pane_id": "terminal_1", "event": {"kind": "turn_ended"}, "told_ms": told_ms - 5_000});
    send(&mut p, "4", Some(&request("4", "hook", ended)));
    only_reply(&p, "4", "4");
    let args = json!({"to": "main", "text": "hello", "from": "ci", "wait_ms": 100});
    send(&mut p, "5", Some(&request("5", "send_message", args)));
    p.host.advance(Duration::from_millis(150));
    p.on_timer();
    let sent = result_of::<op::SendMessage>(only_reply(&p, "5", "5"));
    assert_eq!(
        (sent.status, sent.held_because),
        (DeliveryStatus::Held, Some(HoldReason::Asking))
    );
    let keys = json!({"pane_id": "terminal_1", "keys": ["Enter"]});
    assert_eq!(refused(&mut p, "6", "write", keys), "asking");
    assert!(typed(&p).is_empty(), "nothing typed into the dialog");
    send(
        &mut p,
        "7",
        Some(&request("7", "explain", json!({"pane_id": "terminal_1"}))),
    );
    let explained = result_of::<op::Explain>(only_reply(&p, "7", "7"));
    let hooks = explained.hooks.unwrap_or_default();
    assert!(
        hooks.starts_with("turn_started"),
        "the older end ignored: {hooks}"
    );
}

#[test]
fn a_hook_report_is_kept_for_its_terminal_pane_and_shown_by_explain() {
    let mut p = plugin("op-hook");
    let told = json!({"pane_id": "terminal_1", "event": {"kind": "session_started"}, "conversation": "s1"});
    send(&mut p, "1", Some(&request("1", "hook", told)));
    only_reply(&p, "1", "1");
    let ended =
        json!({"pane_id": "terminal_1", "event": {"kind": "turn_ended", "last_message": "done."}});
    send(&mut p, "2", Some(&request("2", "hook", ended)));
    only_reply(&p, "2", "2");
    send(
        &mut p,
        "3",
        Some(&request("3", "explain", json!({"pane_id": "terminal_1"}))),
    );
    let explained = result_of::<op::Explain>(only_reply(&p, "3", "3"));
    let hooks = explained.hooks.unwrap_or_default();
    assert!(
        hooks.starts_with("turn_ended") && hooks.ends_with("(conversation s1)"),
        "{hooks}"
    );
    // Only a terminal pane that is there has an agent's hooks.
    let plugin_pane = json!({"pane_id": "plugin_5", "event": {"kind": "turn_started"}});
    assert_ne!(refused(&mut p, "4", "hook", plugin_pane), "");
    let gone = json!({"pane_id": "terminal_99", "event": {"kind": "turn_started"}});
    assert_eq!(refused(&mut p, "5", "hook", gone), "pane_not_found");
    let garbage = json!({"pane_id": "terminal_1", "event": {"kind": "nonsense"}});
    assert_eq!(refused(&mut p, "6", "hook", garbage), "bad_request");
}
