//! End-to-end tests of the whole tool surface on real Zellij 0.45.1 sessions,
//! with a real client attached where focus matters: every mutating tool is
//! checked to leave that client's focus where it was (except zellij_focus).

mod common;

use std::time::{Duration, Instant};

use common::*;
use serde_json::{json, Value};
use zellij_mcp_harness::{wait_for, AttachedClient, Mcp, Session};

/// A session with a real client attached, and that client's focus.
fn attached(s: &Session) -> (AttachedClient, String) {
    s.attach_and_wait()
}

/// Fails if the attached client's focus moved.
fn assert_focus_kept(s: &Session, before: &str, after: &str) {
    assert_eq!(s.client_focus(), before, "{after} moved the client's focus");
}

fn id(value: &Value) -> String {
    value.as_str().expect("an id string").to_owned()
}

fn pane_in<'a>(panes: &'a [Value], pane: &str) -> Option<&'a Value> {
    panes.iter().find(|p| p["pane_id"] == json!(pane))
}

/// Asserts a tool error with this code and a fix.
fn assert_err(mcp: &Mcp, tool: &str, args: Value, code: &str) -> String {
    let text = mcp.err(tool, args.clone());
    assert!(text.starts_with(code), "{tool} {args}: {text}");
    assert!(text.contains("Fix:"), "{tool} {args}: no fix in {text}");
    text
}

#[test]
fn session_tabs_panes_and_layout_are_listed() {
    let s = session("list");
    let mcp = mcp(&s, "socket");
    let (_client, _) = attached(&s);
    let shell = shell_pane(&mcp);

    let info = mcp.ok("zellij_session_info", json!({}));
    assert_eq!(info["session"], json!(s.name()));
    assert_eq!(info["zellij_version"], "0.45.1");
    assert_eq!(info["transport"], "socket");
    assert_eq!(info["protocol"], 1);
    let clients = info["clients"].as_array().unwrap();
    assert_eq!(clients.len(), 1, "{info}");
    assert_eq!(clients[0]["pane_id"], json!(shell));

    let sessions = mcp.ok("zellij_list_sessions", json!({}));
    assert_eq!(
        sessions["sessions"],
        json!([{"name": s.name(), "default": true}])
    );

    // Active once Zellij has told the plugin the client shows it.
    let tabs = wait_for("the main tab shown", Duration::from_secs(20), || {
        let tabs = mcp.ok("zellij_list_tabs", json!({}))["tabs"].clone();
        (tabs[0]["active"] == true).then_some(tabs)
    });
    assert_eq!(tabs[0]["name"], "main");
    let in_main = s
        .zellij_panes()
        .into_iter()
        .filter(|p| p["tab_id"] == tabs[0]["tab_id"])
        .count();
    assert_eq!(tabs[0]["panes"], in_main, "{tabs}");

    let terminals = mcp.ok("zellij_list_panes", json!({"details": true}))["panes"].clone();
    let terminals = terminals.as_array().unwrap();
    assert_eq!(terminals.len(), 1, "plugins are left out by default");
    let work = s.sandbox().work().canonicalize().unwrap();
    assert_eq!(terminals[0]["cwd"], json!(work.display().to_string()));
    assert!(terminals[0]["running"][0].as_str().unwrap().contains("sh"));
    assert_eq!(
        panes(&mcp).len(),
        s.zellij_panes().len(),
        "include_plugins lists all"
    );
    let by_tab = mcp.ok("zellij_list_panes", json!({"tab": "main", "command": "sh"}));
    assert_eq!(by_tab["panes"][0]["pane_id"], json!(shell));
    let none = mcp.ok("zellij_list_panes", json!({"title": "no such title"}));
    assert_eq!(none["panes"], json!([]));

    let layout = mcp.ok("zellij_dump_layout", json!({}));
    assert!(
        layout["layout"]
            .as_str()
            .unwrap()
            .contains("tab name=\"main\""),
        "{layout}"
    );
    let one = mcp.ok("zellij_dump_layout", json!({"tab": "main"}));
    assert!(one["layout"].as_str().unwrap().contains("pane"), "{one}");

    assert_err(
        &mcp,
        "zellij_list_panes",
        json!({"tab": "nope"}),
        "tab_not_found",
    );
    assert_err(
        &mcp,
        "zellij_dump_layout",
        json!({"tab": 99}),
        "tab_not_found",
    );
    assert_err(
        &mcp,
        "zellij_list_tabs",
        json!({"session": "nope"}),
        "session_not_found",
    );
    assert_err(
        &mcp,
        "zellij_session_info",
        json!({"session": 5}),
        "bad_request",
    );
    assert_err(
        &mcp,
        "zellij_list_sessions",
        json!({"session": []}),
        "bad_request",
    );
    let last = assert_err(&mcp, "zellij_close", json!({"tab": "main"}), "bad_request");
    assert!(last.contains("last tab"), "{last}");
}

#[test]
fn creating_renaming_arranging_and_closing_never_move_focus() {
    let s = session("create");
    let mcp = mcp(&s, "socket");
    let (_client, focus) = attached(&s);
    let kept = |after: &str| assert_focus_kept(&s, &focus, after);
    let work = s.sandbox().work().display().to_string();

    let tab = mcp.ok("zellij_new_tab", json!({"name": "build", "cwd": work}));
    kept("zellij_new_tab");
    assert_eq!(
        (tab["name"].clone(), tab["focused"].clone()),
        (json!("build"), json!(false))
    );
    assert!(!tab["pane_ids"].as_array().unwrap().is_empty(), "{tab}");
    let tab_id = tab["tab_id"].clone();
    let split = mcp.ok(
        "zellij_new_tab",
        json!({"name": "split", "layout": "layout {\n    pane\n    pane\n}\n"}),
    );
    kept("zellij_new_tab with a layout");
    assert_eq!(split["pane_ids"].as_array().unwrap().len(), 2, "{split}");
    assert_eq!(split["name"], "split");

    // In a tab other than the plugin's, Zellij 0.45.1 may drop what a new
    // command prints in its first moments; this one waits a little.
    let tiled = mcp.ok(
        "zellij_new_pane",
        json!({"tab": "build", "command": ["sh", "-c", "sleep 0.5; echo tiled-$((2+3)); exec sleep 600"], "name": "worker"}),
    );
    kept("zellij_new_pane (tiled)");
    assert_eq!(tiled["tab_id"], tab_id);
    let tiled = id(&tiled["pane_id"]);
    read_until_line(&mcp, &tiled, "tiled-5");
    let floating = id(&mcp.ok(
        "zellij_new_pane",
        json!({"tab": tab_id, "placement": "floating"}),
    )["pane_id"]);
    kept("zellij_new_pane (floating)");
    let hidden = mcp.ok(
        "zellij_new_pane",
        json!({"placement": "background", "cwd": work}),
    );
    kept("zellij_new_pane (background)");
    let hidden_id = id(&hidden["pane_id"]);
    // The plugin lists a new pane once Zellij's pane events reach it,
    // which under load can come after the call's answer.
    let listed = wait_for("the new panes listed", Duration::from_secs(20), || {
        let listed = panes(&mcp);
        let all = [&tiled, &floating, &hidden_id]
            .iter()
            .all(|p| pane_in(&listed, p).is_some());
        all.then_some(listed)
    });
    assert_eq!(pane_in(&listed, &tiled).unwrap()["title"], "worker");
    assert_eq!(pane_in(&listed, &floating).unwrap()["floating"], true);
    let hidden_pane = pane_in(&listed, &hidden_id).unwrap();
    assert_eq!(hidden_pane["hidden"], true);
    assert_eq!(
        hidden_pane["tab_name"], "main",
        "the default tab is the active one"
    );

    let renamed = mcp.ok(
        "zellij_rename",
        json!({"pane_id": tiled, "name": "renamed"}),
    );
    assert_eq!(renamed["name"], "renamed");
    let renamed_tab = mcp.ok("zellij_rename", json!({"tab": tab_id, "name": "build2"}));
    assert_eq!(renamed_tab["name"], "build2");
    kept("zellij_rename");

    let pins = || s.zellij_layout().matches("pinned true").count();
    let pins_before = pins();
    let pinned = mcp.ok(
        "zellij_arrange_pane",
        json!({"pane_id": floating, "pinned": true}),
    );
    assert_eq!(pinned["floating"], true);
    wait_for(
        "Zellij to show the pane pinned",
        Duration::from_secs(10),
        || (pins() == pins_before + 1).then_some(()),
    );
    let floated = mcp.ok(
        "zellij_arrange_pane",
        json!({"pane_id": tiled, "floating": true}),
    );
    assert_eq!(floated["floating"], true);
    let embedded = mcp.ok(
        "zellij_arrange_pane",
        json!({"pane_id": tiled, "floating": false}),
    );
    assert_eq!(embedded["floating"], false);
    // Growing the top edge by three steps moves it up and adds rows; three
    // steps back restore the pane, as Zellij itself reports it.
    let zellij_geometry = || {
        let pane = s
            .zellij_panes()
            .into_iter()
            .find(|p| p["is_plugin"] == false && format!("terminal_{}", p["id"]) == tiled)
            .expect("Zellij lists the pane");
        (
            pane["pane_y"].as_u64().unwrap(),
            pane["pane_rows"].as_u64().unwrap(),
        )
    };
    let (y0, rows0) = zellij_geometry();
    let resize = |amount: i32| {
        mcp.ok(
            "zellij_arrange_pane",
            json!({"pane_id": tiled, "resize": {"direction": "up", "amount": amount}}),
        )
    };
    resize(1);
    let (y1, rows1) = zellij_geometry();
    assert!(
        y1 < y0 && rows1 > rows0,
        "one step up: ({y0}, {rows0}) -> ({y1}, {rows1})"
    );
    resize(2);
    let (y3, rows3) = zellij_geometry();
    assert!(
        y3 < y1 && y0 - y3 > y0 - y1 && rows3 - rows0 == y0 - y3,
        "three steps up: ({y0}, {rows0}) -> ({y3}, {rows3})"
    );
    let resized = resize(-3);
    assert_eq!(
        zellij_geometry(),
        (y0, rows0),
        "three steps back: {resized}"
    );
    let moved = mcp.ok(
        "zellij_arrange_pane",
        json!({"pane_id": hidden_id, "move_to_tab": "build2"}),
    );
    assert_eq!(moved["tab_id"], tab_id, "{moved}");
    kept("zellij_arrange_pane");

    let editor = mcp.ok(
        "zellij_open_file",
        json!({"path": "notes.txt", "cwd": work, "line": 7, "tab": "split"}),
    );
    kept("zellij_open_file");
    assert_eq!(editor["tab_id"], split["tab_id"]);
    let args_file = s.sandbox().root().join("home/editor-args");
    let args = wait_for("the editor to start", Duration::from_secs(20), || {
        std::fs::read_to_string(&args_file).ok()
    });
    let args: Vec<&str> = args.lines().collect();
    assert_eq!(args.len(), 2, "{args:?}");
    assert_eq!(args[0], "+7", "the line to open at");
    // The bridge may pass the folder through /proc/self/root (see paths.rs).
    let file = s.sandbox().work().join("notes.txt");
    assert!(args[1].ends_with(&*file.to_string_lossy()), "{args:?}");

    // Bad input: a typed error with a fix, and nothing changes.
    let before = panes(&mcp).len();
    assert_err(
        &mcp,
        "zellij_new_tab",
        json!({"cwd": "/no/such/dir"}),
        "bad_request",
    );
    assert_err(
        &mcp,
        "zellij_new_tab",
        json!({"layout": "layout { pane"}),
        "bad_request",
    );
    mcp.ok("zellij_new_tab", json!({"name": "dup"}));
    mcp.ok("zellij_new_tab", json!({"name": "dup"}));
    kept("two more tabs");
    let dup_panes = panes(&mcp).len();
    let ambiguous = assert_err(
        &mcp,
        "zellij_new_pane",
        json!({"tab": "dup"}),
        "bad_request",
    );
    assert!(ambiguous.contains("tab_id"), "{ambiguous}");
    assert_err(
        &mcp,
        "zellij_new_pane",
        json!({"command": []}),
        "bad_request",
    );
    assert_err(
        &mcp,
        "zellij_new_pane",
        json!({"command": [""]}),
        "bad_request",
    );
    assert_err(&mcp, "zellij_new_pane", json!({"tab": 99}), "tab_not_found");
    assert_err(
        &mcp,
        "zellij_new_pane",
        json!({"cwd": "/no/such/dir"}),
        "bad_request",
    );
    assert_err(
        &mcp,
        "zellij_rename",
        json!({"pane_id": tiled, "name": " "}),
        "bad_request",
    );
    assert_err(
        &mcp,
        "zellij_rename",
        json!({"pane_id": tiled, "tab": 0, "name": "x"}),
        "bad_request",
    );
    assert_err(
        &mcp,
        "zellij_rename",
        json!({"pane_id": "terminal_99", "name": "x"}),
        "pane_not_found",
    );
    assert_err(
        &mcp,
        "zellij_arrange_pane",
        json!({"pane_id": tiled}),
        "bad_request",
    );
    assert_err(
        &mcp,
        "zellij_arrange_pane",
        json!({"pane_id": tiled, "pinned": true}),
        "bad_request",
    );
    assert_err(
        &mcp,
        "zellij_arrange_pane",
        json!({"pane_id": tiled, "resize": {"amount": 50}}),
        "bad_request",
    );
    assert_err(
        &mcp,
        "zellij_open_file",
        json!({"path": "/no/such/dir/x.txt"}),
        "bad_request",
    );
    assert_err(&mcp, "zellij_open_file", json!({"path": ""}), "bad_request");
    assert_err(&mcp, "zellij_close", json!({"tab": "dup"}), "bad_request");
    assert_err(
        &mcp,
        "zellij_close",
        json!({"pane_id": "terminal_99"}),
        "pane_not_found",
    );
    let own_tab = assert_err(&mcp, "zellij_close", json!({"tab": "main"}), "bad_request");
    assert!(own_tab.contains("plugin"), "{own_tab}");
    let plugin = plugin_pane(&mcp, &s);
    assert_err(
        &mcp,
        "zellij_close",
        json!({"pane_id": plugin["pane_id"]}),
        "bad_request",
    );
    assert_eq!(panes(&mcp).len(), dup_panes, "bad input changed nothing");
    assert!(dup_panes > before);

    let closed = mcp.ok("zellij_close", json!({"pane_id": hidden_id}));
    assert_eq!(closed["closed"][0]["pane_id"], json!(hidden_id));
    assert!(!s.zellij_has_pane(&hidden_id), "Zellij no longer lists it");
    let closed_tab = mcp.ok("zellij_close", json!({"tab": tab_id}));
    assert_eq!(closed_tab["tab_id"], tab_id);
    let closed_ids: Vec<Value> = closed_tab["closed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["pane_id"].clone())
        .collect();
    assert!(closed_ids.contains(&json!(tiled)), "{closed_tab}");
    let tabs = mcp.ok("zellij_list_tabs", json!({}));
    assert!(tabs["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["tab_id"] != tab_id));
    kept("zellij_close");
    // Nothing the plugin does later moves it either.
    wait_for(
        "the plugin to hold no requests",
        Duration::from_secs(20),
        || {
            let info = mcp.ok("zellij_session_info", json!({}));
            let memory = &info["plugin_memory"];
            let idle = memory["pending_replies"] == 0 && memory["queued_writes"] == 0;
            idle.then_some(())
        },
    );
    kept("everything the plugin held");
}

#[test]
fn focus_is_the_one_tool_that_moves_focus() {
    let s = session("focus");
    let mcp = mcp(&s, "cli");
    let (_client, focus) = attached(&s);
    let shell = shell_pane(&mcp);
    mcp.ok("zellij_new_tab", json!({"name": "other"}));
    let pane = id(&mcp.ok("zellij_new_pane", json!({"tab": "other"}))["pane_id"]);
    assert_focus_kept(&s, &focus, "creating a pane");

    let focused = mcp.ok("zellij_focus", json!({"pane_id": pane}));
    assert_eq!(focused["pane_id"], json!(pane));
    wait_for("the client to follow", Duration::from_secs(10), || {
        s.client_focus().contains(&pane).then_some(())
    });
    let back = mcp.ok("zellij_focus", json!({"tab": "main"}));
    assert_eq!(back["name"], "main");
    wait_for("the client to go back", Duration::from_secs(10), || {
        s.client_focus().contains(&shell).then_some(())
    });

    let plugin = plugin_pane(&mcp, &s);
    assert_err(
        &mcp,
        "zellij_focus",
        json!({"pane_id": plugin["pane_id"]}),
        "bad_request",
    );
    assert_err(
        &mcp,
        "zellij_focus",
        json!({"tab": "nope"}),
        "tab_not_found",
    );
    assert_err(&mcp, "zellij_focus", json!({}), "bad_request");
    assert!(s.client_focus().contains(&shell), "bad input moved nothing");
}

#[test]
fn run_reports_exit_codes_output_timeouts_and_kills() {
    let s = session("run");
    let mcp = mcp(&s, "socket");
    let (_client, focus) = attached(&s);

    let failed = mcp.ok(
        "zellij_run",
        json!({"command": ["sh", "-c", "echo run-out; exit 3"]}),
    );
    assert_eq!(
        (failed["exited"].clone(), failed["exit_code"].clone()),
        (json!(true), json!(3)),
        "{failed}"
    );
    assert!(
        failed["output"].as_str().unwrap().contains("run-out"),
        "{failed}"
    );
    assert_eq!(failed["timed_out"], false);
    let ok = mcp.ok("zellij_run", json!({"command": ["true"]}));
    assert_eq!(ok["exit_code"], 0, "{ok}");

    let work = s.sandbox().work();
    let pwd = mcp.ok(
        "zellij_run",
        json!({"command": ["sh", "-c", "pwd -P"], "cwd": work.display().to_string(), "close_on_exit": true}),
    );
    assert_eq!(
        pwd["output"],
        json!(work.canonicalize().unwrap().display().to_string())
    );
    assert_eq!(pwd["closed"], true);
    assert!(!s.zellij_has_pane(&id(&pwd["pane_id"])), "closed on exit");

    let long = mcp.ok(
        "zellij_run",
        json!({"command": ["seq", "1", "5000"], "max_bytes": 200}),
    );
    let output = long["output"].as_str().unwrap();
    assert_eq!(long["truncated"], true);
    assert!(
        output.len() <= 200 && output.ends_with("4999\n5000"),
        "{output}"
    );

    let start = Instant::now();
    let slow = mcp.ok(
        "zellij_run",
        json!({"command": ["sleep", "30"], "timeout_ms": 700}),
    );
    assert!(start.elapsed() < Duration::from_secs(10));
    assert_eq!(
        (
            slow["timed_out"].clone(),
            slow["exited"].clone(),
            slow["killed"].clone()
        ),
        (json!(true), json!(false), json!(false))
    );
    let slow_id = id(&slow["pane_id"]);
    let still = s
        .zellij_panes()
        .into_iter()
        .find(|p| p["is_plugin"] == false && format!("terminal_{}", p["id"]) == slow_id)
        .expect("Zellij still lists the pane");
    assert_eq!(still["exited"], false, "left running after the timeout");

    let killed = mcp.ok(
        "zellij_run",
        json!({"command": ["sleep", "30"], "timeout_ms": 500, "kill_on_timeout": true}),
    );
    assert_eq!(killed["killed"], true);
    let after = mcp.ok(
        "zellij_wait_for",
        json!({"pane_id": killed["pane_id"], "exit": true, "timeout_ms": 10000}),
    );
    assert_eq!(after["outcome"], "exited", "{after}");

    let started = mcp.ok(
        "zellij_run",
        json!({"command": ["sleep", "5"], "wait": false}),
    );
    assert_eq!(started["exited"], false);
    assert!(s.zellij_has_pane(&id(&started["pane_id"])));
    assert_focus_kept(&s, &focus, "zellij_run");

    assert_err(&mcp, "zellij_run", json!({"command": []}), "bad_request");
    assert_err(
        &mcp,
        "zellij_run",
        json!({"command": ["true"], "timeout_ms": 700000}),
        "bad_request",
    );
    assert_err(
        &mcp,
        "zellij_run",
        json!({"command": ["true"], "cwd": "/no/such/dir"}),
        "bad_request",
    );
    assert_err(
        &mcp,
        "zellij_run",
        json!({"command": ["true"], "tab": "nope"}),
        "tab_not_found",
    );
    assert_err(
        &mcp,
        "zellij_run",
        json!({"command": "ls -la"}),
        "bad_request",
    );
}

/// Screens the plugin's waits have read on their own so far.
fn wait_looks(s: &Session) -> u64 {
    let hello = json!({"v": 1, "id": "looks", "op": "hello", "args": {}});
    let reply: Value = serde_json::from_str(&raw_request(s, &hello)[0]).expect("hello");
    reply["result"]["wait_looks"].as_u64().expect("wait_looks")
}

/// With no client attached Zellij sends the plugin no render events; the
/// bridge's subscription to the pane says when it changes, so a wait on a
/// quiet pane looks at it a few times a second, not fifty, and still sees
/// new output.
#[test]
fn with_no_client_attached_a_wait_looks_when_zellij_says_its_pane_changed() {
    let s = session("told");
    for transport in ["socket", "cli"] {
        let mcp = mcp(&s, transport);
        let pane = shell_pane(&mcp);
        let before = wait_looks(&s);
        let quiet = std::thread::scope(|scope| {
            let args = json!({"pane_id": pane, "pattern": "never-appears", "timeout_ms": 4000});
            let waiter = scope.spawn(|| mcp.ok("zellij_wait_for", args));
            until_waiting(&mcp, 1);
            // The subscription is not a client.
            let info = mcp.ok("zellij_session_info", json!({}));
            assert_eq!(info["clients"], json!([]), "{transport}: {info}");
            waiter.join().unwrap()
        });
        assert_eq!(quiet["outcome"], "timeout", "{quiet}");
        let looks = wait_looks(&s) - before;
        eprintln!("{transport}: {looks} looks in 4 s");
        assert!(
            looks <= 60,
            "{transport}: {looks} looks at a quiet pane in 4 s (one every 20 ms would be 200)"
        );
        type_line(&mcp, &pane, "sleep 1; echo told-$((40+2))");
        let matched = mcp.ok(
            "zellij_wait_for",
            json!({"pane_id": pane, "pattern": r"told-\d+", "timeout_ms": 15000}),
        );
        assert_eq!(matched["matched"], "told-42", "{transport}: {matched}");
    }
}

#[test]
fn wait_for_matches_stops_idles_exits_times_out_and_cancels() {
    let s = session("wait");
    let mcp = mcp(&s, "socket");
    let (_client, focus) = attached(&s);
    let pane = shell_pane(&mcp);
    let type_line = |line: &str| type_line(&mcp, &pane, line);

    type_line("sleep 1; echo ready-$((40+2))");
    let matched = mcp.ok(
        "zellij_wait_for",
        json!({"pane_id": pane, "pattern": r"ready-\d+", "timeout_ms": 15000}),
    );
    assert_eq!(matched["outcome"], "matched", "{matched}");
    assert_eq!(matched["matched"], "ready-42");
    assert_eq!(matched["line"], "ready-42");
    assert!(matched["elapsed_ms"].as_u64().unwrap() >= 500, "{matched}");

    type_line("sleep 0.5; printf 'FA%sIL\\n' x; sleep 3; echo fine");
    let stopped = mcp.ok(
        "zellij_wait_for",
        json!({"pane_id": pane, "pattern": "fine", "stop": ["FAxIL"], "literal": true, "timeout_ms": 15000}),
    );
    assert_eq!(
        (stopped["outcome"].clone(), stopped["matched"].clone()),
        (json!("stopped"), json!("FAxIL")),
        "{stopped}"
    );

    type_line("for i in 1 2 3; do echo tick; sleep 0.2; done");
    let idle = mcp.ok(
        "zellij_wait_for",
        json!({"pane_id": pane, "idle_ms": 800, "timeout_ms": 15000}),
    );
    assert_eq!(idle["outcome"], "idle", "{idle}");
    assert!(idle["elapsed_ms"].as_u64().unwrap() >= 800);

    let exiting = mcp.ok(
        "zellij_run",
        json!({"command": ["sh", "-c", "sleep 1; exit 4"], "wait": false, "placement": "tiled"}),
    );
    let exited = mcp.ok(
        "zellij_wait_for",
        json!({"pane_id": exiting["pane_id"], "exit": true, "timeout_ms": 15000}),
    );
    assert_eq!(
        (exited["outcome"].clone(), exited["exit_status"].clone()),
        (json!("exited"), json!(4)),
        "{exited}"
    );

    let timeout = mcp.ok(
        "zellij_wait_for",
        json!({"pane_id": pane, "pattern": "never-appears", "timeout_ms": 600}),
    );
    assert_eq!(timeout["outcome"], "timeout");
    assert!(timeout["elapsed_ms"].as_u64().unwrap() >= 600);

    // The plugin's wait (a relayed pane's waits are its relay's: relay.rs).
    let doomed = json!({"command": ["sleep", "600"], "relay": false});
    let doomed = id(&mcp.ok("zellij_new_pane", doomed)["pane_id"]);
    let closed = std::thread::scope(|scope| {
        let waiter = scope.spawn(|| {
            mcp.ok(
                "zellij_wait_for",
                json!({"pane_id": doomed, "pattern": "never", "timeout_ms": 20000}),
            )
        });
        until_waiting(&mcp, 1);
        mcp.ok("zellij_close", json!({"pane_id": doomed}));
        waiter.join().unwrap()
    });
    assert_eq!(closed["outcome"], "pane_closed", "{closed}");

    let waits = || {
        mcp.ok("zellij_session_info", json!({}))["active_waits"]
            .as_u64()
            .unwrap()
    };
    std::thread::scope(|scope| {
        let waiter = scope.spawn(|| {
            mcp.call_and_cancel(
                "zellij_wait_for",
                json!({"pane_id": pane, "pattern": "never", "timeout_ms": 60000}),
                Duration::from_millis(2500),
            )
        });
        until_waiting(&mcp, 1);
        waiter.join().unwrap();
    });
    assert!(
        mcp.progress_count() >= 1,
        "progress was reported while waiting"
    );
    wait_for("the cancelled wait to end", Duration::from_secs(5), || {
        (waits() == 0).then_some(())
    });
    assert_focus_kept(&s, &focus, "zellij_wait_for");

    assert_err(
        &mcp,
        "zellij_wait_for",
        json!({"pane_id": pane, "pattern": "("}),
        "bad_request",
    );
    assert_err(
        &mcp,
        "zellij_wait_for",
        json!({"pane_id": pane, "pattern": "x", "timeout_ms": 700000}),
        "bad_request",
    );
    assert_err(
        &mcp,
        "zellij_wait_for",
        json!({"pane_id": pane}),
        "bad_request",
    );
    assert_err(
        &mcp,
        "zellij_wait_for",
        json!({"pane_id": "plugin_2", "exit": true}),
        "wrong_pane_kind",
    );
    assert_err(
        &mcp,
        "zellij_wait_for",
        json!({"pane_id": "terminal_99", "exit": true}),
        "pane_not_found",
    );
}

#[test]
fn read_since_paste_exited_panes_and_signals() {
    let s = session("io");
    let mcp = mcp(&s, "socket");
    let (_client, focus) = attached(&s);
    let pane = shell_pane(&mcp);
    let type_line = |line: &str| type_line(&mcp, &pane, line);

    type_line("echo first-$((1))");
    read_until_line(&mcp, &pane, "first-1");
    let cursor = mcp.ok("zellij_read", json!({"pane_id": pane}))["cursor"].clone();
    type_line("echo second-$((2))");
    read_until_line(&mcp, &pane, "second-2");
    let since = mcp.ok("zellij_read", json!({"pane_id": pane, "since": cursor}));
    let text = since["text"].as_str().unwrap();
    assert!(
        text.contains("second-2") && !text.contains("first-1"),
        "{since}"
    );
    assert_eq!(since["cursor_reset"], false);
    let tail = mcp.ok(
        "zellij_read",
        json!({"pane_id": pane, "full": true, "tail_lines": 1}),
    );
    assert_eq!(
        (tail["lines"].clone(), tail["truncated"].clone()),
        (json!(1), json!(true)),
        "{tail}"
    );
    assert_err(
        &mcp,
        "zellij_read",
        json!({"pane_id": pane, "since": "garbage"}),
        "bad_request",
    );

    let out = s.sandbox().work().join("pasted.txt");
    let cat = mcp.ok(
        "zellij_new_pane",
        json!({"command": ["sh", "-c", format!("cat -v > {}", out.display())], "placement": "background"}),
    );
    mcp.ok(
        "zellij_write",
        json!({"pane_id": cat["pane_id"], "text": "a\nb", "paste": true, "keys": ["Enter", "Ctrl d"]}),
    );
    let pasted = file_lines(&out, 2);
    assert_eq!(pasted, ["^[[200~a", "b^[[201~"]);

    let done = mcp.ok("zellij_run", json!({"command": ["true"]}));
    let held = done["pane_id"].clone();
    let refused = assert_err(
        &mcp,
        "zellij_write",
        json!({"pane_id": held, "text": "x"}),
        "bad_request",
    );
    assert!(refused.contains("exited"), "{refused}");
    mcp.ok(
        "zellij_write",
        json!({"pane_id": held, "text": "x", "allow_exited": true}),
    );

    let trap = mcp.ok(
        "zellij_new_pane",
        json!({"command": ["sh", "-c", "trap 'echo got-int' INT; echo armed; while :; do sleep 0.1; done"]}),
    );
    let trapped = trap["pane_id"].clone();
    read_until_line(&mcp, trapped.as_str().unwrap(), "armed");
    let signalled = mcp.ok(
        "zellij_signal",
        json!({"pane_id": trapped, "signal": "interrupt"}),
    );
    assert_eq!(signalled["pane_id"], trapped);
    let got = mcp.ok("zellij_wait_for", json!({"pane_id": trapped, "pattern": "got-int", "include_existing": true, "timeout_ms": 10000}));
    assert_eq!(got["outcome"], "matched", "{got}");
    mcp.ok(
        "zellij_signal",
        json!({"pane_id": trapped, "signal": "sigkill"}),
    );
    let dead = mcp.ok(
        "zellij_wait_for",
        json!({"pane_id": trapped, "exit": true, "timeout_ms": 10000}),
    );
    assert_eq!(dead["outcome"], "exited", "{dead}");
    assert_focus_kept(&s, &focus, "zellij_write, zellij_run and zellij_signal");

    assert_err(
        &mcp,
        "zellij_signal",
        json!({"pane_id": trapped, "signal": "sigint"}),
        "bad_request",
    );
    assert_err(
        &mcp,
        "zellij_signal",
        json!({"pane_id": pane, "signal": "hup"}),
        "bad_request",
    );
    assert_err(
        &mcp,
        "zellij_signal",
        json!({"pane_id": "plugin_2", "signal": "sigint"}),
        "wrong_pane_kind",
    );
}

#[test]
fn without_any_client_new_panes_are_listed_and_run_works() {
    let s = session("headless");
    let mcp = mcp(&s, "socket");
    let info = mcp.ok("zellij_session_info", json!({}));
    assert_eq!(info["clients"], json!([]), "{info}");
    let pane = id(&mcp.ok("zellij_new_pane", json!({"command": ["sleep", "600"]}))["pane_id"]);
    // No pane events reach a plugin without clients; the listing catches up
    // from Zellij's session metadata.
    wait_for("the new pane to be listed", Duration::from_secs(10), || {
        pane_in(&panes(&mcp), &pane).map(|_| ())
    });
    let ran = mcp.ok(
        "zellij_run",
        json!({"command": ["sh", "-c", "echo headless-ok; exit 5"]}),
    );
    assert_eq!(ran["exit_code"], 5, "{ran}");
    assert!(
        ran["output"].as_str().unwrap().contains("headless-ok"),
        "{ran}"
    );
}

#[test]
fn panes_tell_whether_they_are_at_a_prompt_running_waiting_for_input_or_exited() {
    let s = session("states");
    let mcp = mcp(&s, "socket");
    let open = |argv: &[&str]| {
        let pane = mcp.ok(
            "zellij_new_pane",
            json!({"command": argv, "placement": "tiled"}),
        );
        pane["pane_id"].as_str().unwrap().to_owned()
    };
    let until = |pane: &str, state: &str| {
        let waited = mcp.ok(
            "zellij_wait_for",
            json!({"pane_id": pane, "until_state": state, "timeout_ms": 60000}),
        );
        assert_eq!(waited["outcome"], "state", "{pane} to be {state}: {waited}");
    };
    // Headless, a list can lag a new pane by a moment.
    let listed_state = |pane: &str| {
        wait_for(&format!("{pane} listed"), Duration::from_secs(20), || {
            let listed = mcp.ok("zellij_list_panes", json!({}));
            let panes = listed["panes"].as_array()?.clone();
            let entry = panes.into_iter().find(|p| p["pane_id"] == pane)?;
            Some(entry["state"].clone())
        })
    };

    let bash = open(&["bash", "--norc", "--noprofile"]);
    until(&bash, "prompt");
    assert_eq!(listed_state(&bash), "prompt");
    type_line(&mcp, &bash, "sleep 30");
    until(&bash, "running");
    let read = mcp.ok("zellij_read", json!({"pane_id": bash}));
    assert_eq!(read["state"], "running", "{read}");
    assert!(read["pid"].as_u64().is_some(), "{read}");
    mcp.ok("zellij_write", json!({"pane_id": bash, "keys": ["Ctrl c"]}));
    until(&bash, "prompt");
    type_line(&mcp, &bash, "read answer");
    until(&bash, "waiting_input");

    let cat = open(&["cat"]);
    until(&cat, "waiting_input");
    assert_eq!(listed_state(&cat), "waiting_input");
    // A state filter lists the panes in that state only.
    let waiting = mcp.ok("zellij_list_panes", json!({"state": "waiting_input"}));
    let mut ids: Vec<&str> = waiting["panes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["pane_id"].as_str().unwrap())
        .collect();
    ids.sort();
    let mut expected = vec![bash.as_str(), cat.as_str()];
    expected.sort();
    assert_eq!(ids, expected, "{waiting}");

    let done = open(&["sh", "-c", "exit 3"]);
    mcp.ok(
        "zellij_wait_for",
        json!({"pane_id": done, "exit": true, "timeout_ms": 20000}),
    );
    wait_for(
        "the exited pane listed as exited",
        Duration::from_secs(20),
        || (listed_state(&done) == "exited").then_some(()),
    );
    let exited = mcp.ok("zellij_list_panes", json!({"exited": true}));
    let entry = pane_in(exited["panes"].as_array().unwrap(), &done)
        .unwrap()
        .clone();
    assert_eq!(
        (entry["exited"].clone(), entry["exit_status"].clone()),
        (json!(true), json!(3)),
        "{entry}"
    );

    let mixed = mcp.err(
        "zellij_wait_for",
        json!({"pane_id": bash, "until_state": "prompt", "pattern": "x"}),
    );
    assert!(mixed.starts_with("bad_request"), "{mixed}");
}
