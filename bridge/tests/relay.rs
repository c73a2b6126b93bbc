//! `zellij-mcp relay`: the commands zellij-mcp starts run on a pty of the
//! relay's own inside real Zellij panes (`relay: false` runs them bare),
//! and end, size and take keys as they do without it.

mod common;

use std::time::Duration;

use common::{agent_row, bridge, mcp, screen, session};
use serde_json::{json, Value};
#[cfg(target_os = "linux")]
use zellij_mcp_harness::relay_peak_kib;
use zellij_mcp_harness::{poll_for, wait_for, workspace_root, Mcp, Session};

/// `argv` with the relay in front, as a person would start it.
fn relayed(argv: &[&str]) -> Vec<String> {
    let relay = [bridge().display().to_string(), "relay".into(), "--".into()];
    relay
        .into_iter()
        .chain(argv.iter().map(|a| a.to_string()))
        .collect()
}

/// What `zellij_run` tells of a run's end: exited, its code, its output.
fn ending(ran: &Value) -> (Value, Value, Value) {
    (
        ran["exited"].clone(),
        ran["exit_code"].clone(),
        ran["output"].clone(),
    )
}

#[test]
fn a_relayed_program_ends_as_it_does_without_the_relay() {
    let s = session("relay-ends");
    let mcp = mcp(&s, "socket");
    let cases: [(&[&str], Option<i64>); 4] = [
        (&["sh", "-c", "echo out; exit 0"], Some(0)),
        (&["sh", "-c", "echo out; exit 3"], Some(3)),
        (&["sh", "-c", "echo out; kill -INT $$"], None),
        (&["sh", "-c", "echo out; kill -KILL $$"], None),
    ];
    for (argv, code) in cases {
        let run = |relay: bool| {
            let ran = mcp.ok(
                "zellij_run",
                json!({"command": argv, "timeout_ms": 20000, "relay": relay}),
            );
            assert_eq!(ran["timed_out"], false, "{argv:?}: {ran}");
            ending(&ran)
        };
        let plain = run(false);
        let through = run(true);
        assert_eq!(through, plain, "{argv:?}: relayed, then not");
        assert_eq!(plain.2, "out", "{argv:?}: the output");
        if let Some(code) = code {
            assert_eq!(plain.1, code, "{argv:?}: the exit code");
        }
    }
    // A program that cannot be started: as a shell tells it.
    let missing = mcp.ok(
        "zellij_run",
        json!({"command": ["no-such-program-here"], "timeout_ms": 20000, "relay": true}),
    );
    assert_eq!(missing["exit_code"], 127, "{missing}");
}

#[test]
fn a_relayed_runs_output_is_whole_past_zellijs_scrollback() {
    let s = session("relay-run");
    let mcp = mcp(&s, "socket");
    let ran = mcp.ok(
        "zellij_run",
        json!({"command": ["seq", "1", "30000"], "timeout_ms": 20000, "max_bytes": 4194304, "relay": true}),
    );
    let output = ran["output"].as_str().unwrap();
    let lines: Vec<&str> = output.lines().collect();
    assert_eq!(lines.len(), 30000, "{}", &output[..100.min(output.len())]);
    assert_eq!((lines[0], lines[29999]), ("1", "30000"));
    assert_eq!(
        (ran["exit_code"].clone(), ran["truncated"].clone()),
        (json!(0), json!(false))
    );
    // Capped: the newest lines, and said so.
    let capped = mcp.ok(
        "zellij_run",
        json!({"command": ["seq", "1", "30000"], "timeout_ms": 20000, "max_bytes": 60, "relay": true}),
    );
    assert_eq!(capped["truncated"], true, "{capped}");
    assert!(
        capped["output"].as_str().unwrap().ends_with("29999\n30000"),
        "{capped}"
    );
}

/// The size the relayed program's terminal has, and the pane's content
/// size as Zellij tells it.
fn sizes(s: &Session, mcp: &Mcp, pane: &str, asked: usize) -> (String, String) {
    mcp.ok("zellij_write", json!({"pane_id": pane, "keys": ["Enter"]}));
    let said = wait_for("the size asked", Duration::from_secs(20), || {
        let shown = screen(mcp, pane);
        let lines: Vec<&str> = shown.lines().filter(|l| l.starts_with("size ")).collect();
        (lines.len() > asked).then(|| lines[asked].trim().to_owned())
    });
    let listed = s
        .zellij_panes()
        .into_iter()
        .find(|p| p["is_plugin"] == false && format!("terminal_{}", p["id"]) == pane)
        .expect("Zellij lists the pane");
    let content = format!(
        "size {} {}",
        listed["pane_content_rows"], listed["pane_content_columns"]
    );
    (said, content)
}

#[test]
fn a_relayed_program_gets_the_panes_size_and_its_changes() {
    let s = session("relay-size");
    let mcp = mcp(&s, "socket");
    let (_client, _) = s.attach_and_wait();
    let script = "while read x; do echo size $(stty size); done";
    let opened = mcp.ok(
        "zellij_new_pane",
        json!({"command": relayed(&["sh", "-c", script]), "placement": "tiled", "relay": false}),
    );
    let pane = opened["pane_id"].as_str().unwrap().to_owned();
    let (said, content) = sizes(&s, &mcp, &pane, 0);
    assert_eq!(said, content, "the program's size is the pane's");
    mcp.ok(
        "zellij_arrange_pane",
        json!({"pane_id": pane, "resize": {"direction": "up", "amount": 3}}),
    );
    let (resized, content_after) = sizes(&s, &mcp, &pane, 1);
    assert_ne!(content_after, content, "the pane was resized");
    assert_eq!(resized, content_after, "the program's size followed");
}

#[test]
fn keys_and_job_control_reach_a_relayed_shell() {
    let s = session("relay-keys");
    let mcp = mcp(&s, "socket");
    let mark = format!("RELAY_MARK=keys-{}", std::process::id());
    let shell = [
        "env",
        &mark,
        "PS1=relayed$ ",
        "bash",
        "--norc",
        "--noprofile",
    ];
    let opened = mcp.ok(
        "zellij_new_pane",
        json!({"command": shell, "placement": "tiled", "relay": true}),
    );
    let pane = opened["pane_id"].as_str().unwrap().to_owned();
    let until = |what: &str, shows: &dyn Fn(&[&str]) -> bool| {
        wait_for(what, Duration::from_secs(20), || {
            let shown = screen(&mcp, &pane);
            let lines: Vec<&str> = shown
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect();
            shows(&lines).then_some(())
        })
    };
    let write = |text: &str, keys: &[&str]| {
        mcp.ok(
            "zellij_write",
            json!({"pane_id": pane, "text": text, "keys": keys}),
        );
    };
    // The pane's process is the shell itself: its state, and runs typed
    // into it, are told as without the relay.
    let waited = mcp.ok(
        "zellij_wait_for",
        json!({"pane_id": pane, "until_state": "prompt", "timeout_ms": 20000}),
    );
    assert_eq!(waited["outcome"], "state", "{waited}");
    let ran = mcp.ok(
        "zellij_run",
        json!({"pane_id": pane, "command": "echo via-$((6*7)); false", "timeout_ms": 20000}),
    );
    assert_eq!(
        (ran["output"].clone(), ran["exit_code"].clone()),
        (json!("via-42"), json!(1)),
        "{ran}"
    );
    write("sleep 100", &["Enter"]);
    until("sleep running", &|l| {
        l.last() == Some(&"relayed$ sleep 100")
    });
    wait_for("the shell running sleep", Duration::from_secs(20), || {
        let read = mcp.ok("zellij_read", json!({"pane_id": pane}));
        (read["state"] == "running").then_some(())
    });
    // Ctrl z stops the job; fg brings it back; Ctrl c ends it, so that the
    // next line runs.
    write("", &["Ctrl z"]);
    until("the job stopped", &|l| {
        l.iter()
            .any(|l| l.ends_with("Stopped                 sleep 100"))
    });
    write("fg", &["Enter"]);
    until("the job back", &|l| l.last() == Some(&"sleep 100"));
    write("", &["Ctrl c"]);
    write("echo after-$((6*7))", &["Enter"]);
    until("the next line run", &|l| l.contains(&"after-42"));
    write("exit 7", &["Enter"]);
    let ended = mcp.ok(
        "zellij_wait_for",
        json!({"pane_id": pane, "exit": true, "timeout_ms": 20000}),
    );
    assert_eq!(
        (ended["outcome"].clone(), ended["exit_status"].clone()),
        (json!("exited"), json!(7)),
        "{ended}"
    );
    // The relay answers the pane's readers until the pane is closed.
    mcp.ok("zellij_close", json!({"pane_id": pane}));
    until_none_left(&mark);
}

/// The pane's entry in a detailed list.
fn listed(mcp: &Mcp, pane: &str) -> Value {
    let list = mcp.ok("zellij_list_panes", json!({"details": true}));
    let panes = list["panes"].as_array().unwrap();
    let entry = panes.iter().find(|p| p["pane_id"] == pane);
    entry.cloned().unwrap_or(Value::Null)
}

#[test]
fn a_relayed_pane_is_listed_with_what_its_shell_runs_and_where() {
    let s = session("relay-foreground");
    let mcp = mcp(&s, "socket");
    let shell = ["bash", "--norc", "--noprofile"];
    let opened = mcp.ok(
        "zellij_new_pane",
        json!({"command": shell, "placement": "tiled"}),
    );
    let pane = opened["pane_id"].as_str().unwrap().to_owned();
    let waited = mcp.ok(
        "zellij_wait_for",
        json!({"pane_id": pane, "until_state": "prompt", "timeout_ms": 20000}),
    );
    assert_eq!(waited["outcome"], "state", "{waited}");
    // Zellij names the relay (the pane's terminal's foreground); the
    // relay tells what runs on its own pty, and in which folder.
    let folder = s.sandbox().work().join("elsewhere");
    std::fs::create_dir_all(&folder).unwrap();
    let line = format!("cd '{}' && sleep 321", folder.display());
    mcp.ok(
        "zellij_write",
        json!({"pane_id": pane, "text": line, "keys": ["Enter"]}),
    );
    let entry = wait_for("sleep listed", Duration::from_secs(20), || {
        let entry = listed(&mcp, &pane);
        (entry["running"] == json!(["sleep", "321"])).then_some(entry)
    });
    assert_eq!(entry["program"], "sleep", "{entry}");
    assert_eq!(entry["cwd"], json!(folder.display().to_string()), "{entry}");
    mcp.ok("zellij_close", json!({"pane_id": pane}));
}

/// How many processes have `mark` in their command line.
fn processes_with(mark: &str) -> usize {
    let listed = std::process::Command::new("ps")
        .args(["-A", "-o", "args="])
        .output()
        .expect("ps");
    let listed = String::from_utf8_lossy(&listed.stdout).into_owned();
    listed.lines().filter(|l| l.contains(mark)).count()
}

/// Waits until no process has `mark` in its command line: the relay ended
/// with its program.
fn until_none_left(mark: &str) {
    wait_for("the relay gone", Duration::from_secs(20), || {
        (processes_with(mark) == 0).then_some(())
    });
}

#[test]
fn a_pane_closed_hangs_up_its_relayed_program_and_the_relay_ends() {
    let s = session("relay-close");
    let mcp = mcp(&s, "socket");
    // A long sleep of its own length, to be told apart from others'.
    let mark = format!("sleep 7{}", std::process::id());
    let opened = mcp.ok(
        "zellij_new_pane",
        json!({"command": ["sh", "-c", &format!("{mark}; :")], "placement": "tiled", "relay": true}),
    );
    let pane = opened["pane_id"].as_str().unwrap().to_owned();
    // The relay, the program (the pane's process became the program) and
    // its child.
    wait_for("the relay and its program", Duration::from_secs(20), || {
        (processes_with(&mark) == 3).then_some(())
    });
    mcp.ok("zellij_close", json!({"pane_id": pane}));
    until_none_left(&mark);
}

/// The highest `tick-N` in `text`.
fn last_tick(text: &str) -> u64 {
    text.split_whitespace()
        .filter_map(|w| w.strip_prefix("tick-")?.parse().ok())
        .max()
        .unwrap_or(0)
}

#[test]
fn a_relayed_pane_reads_and_waits_live_while_a_person_has_it_scrolled_up_and_past_zellijs_scrollback(
) {
    let s = session("relay-read");
    let mcp = mcp(&s, "socket");
    let (mut client, _) = s.attach_and_wait();
    let ticker = "seq 1 30000; i=0; while :; do i=$((i+1)); echo tick-$i; sleep 0.1; done";
    let opened = mcp.ok(
        "zellij_new_pane",
        json!({"command": ["sh", "-c", ticker], "placement": "tiled", "relay": true}),
    );
    let pane = opened["pane_id"].as_str().unwrap().to_owned();
    mcp.ok("zellij_focus", json!({"pane_id": pane}));
    wait_for("ticks", Duration::from_secs(20), || {
        (last_tick(&screen(&mcp, &pane)) >= 3).then_some(())
    });
    // Every line, though Zellij keeps 10,000 of them.
    let full = mcp.ok(
        "zellij_read",
        json!({"pane_id": pane, "full": true, "max_bytes": 4194304}),
    );
    let text = full["text"].as_str().unwrap();
    assert!(
        text.starts_with("1\n2\n3\n"),
        "{}",
        &text[..100.min(text.len())]
    );
    assert!(
        text.contains("\n29999\n30000\ntick-1\n"),
        "the lines in order"
    );
    // Scrolled up (scroll mode, pages up), the person's view holds still
    // while a read shows the ticks going on. The keys go to the pane the
    // client views, once it views this one; a page up again until the view
    // holds (on a loaded machine the view once never held).
    wait_for(
        "the client to view the pane",
        Duration::from_secs(10),
        || {
            let focus = s.client_focus();
            focus.split_whitespace().any(|w| w == pane).then_some(())
        },
    );
    client.type_keys(b"\x13");
    let held = poll_for(Duration::from_secs(20), || {
        client.type_keys(b"\x1b[5~");
        let (view, read) = (client.screen(), screen(&mcp, &pane));
        (last_tick(&read) > last_tick(&view) + 10).then_some(())
    });
    assert!(
        held.is_some(),
        "no live read of a held view; the view: {}; a read: {}",
        client.screen(),
        screen(&mcp, &pane)
    );
    // A wait sees the ticks as they come, the view still held.
    let next = last_tick(&screen(&mcp, &pane)) + 5;
    let waited = mcp.ok(
        "zellij_wait_for",
        json!({"pane_id": pane, "pattern": format!("tick-{next}\\b"), "timeout_ms": 20000}),
    );
    assert_eq!(waited["outcome"], "matched", "{waited}");
    assert_eq!(waited["line"], format!("tick-{next}"));
    assert!(
        last_tick(&client.screen()) + 10 < next,
        "the view held: {}",
        client.screen()
    );
    let quiet = mcp.ok(
        "zellij_wait_for",
        json!({"pane_id": pane, "pattern": "never-printed", "stop": ["tick-\\d+0\\b"], "timeout_ms": 20000}),
    );
    assert_eq!(quiet["outcome"], "stopped", "{quiet}");
    client.type_keys(b"\x03");
}

/// Sends `signal` (`STOP`, `CONT`) to the bridge behind `mcp`; whether
/// it went.
fn signal_bridge(mcp: &Mcp, signal: &str) -> bool {
    let pid = mcp.pid().expect("the bridge's process").to_string();
    let sent = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &pid])
        .status();
    sent.is_ok_and(|status| status.success())
}

/// The bridge behind an `Mcp`, stopped until this goes (a failed step
/// leaves no call hanging on it).
struct StoppedBridge<'a>(&'a Mcp);

impl<'a> StoppedBridge<'a> {
    fn stop(mcp: &'a Mcp) -> Self {
        assert!(signal_bridge(mcp, "STOP"), "the bridge stopped");
        StoppedBridge(mcp)
    }
}

impl Drop for StoppedBridge<'_> {
    fn drop(&mut self) {
        signal_bridge(self.0, "CONT");
    }
}

#[test]
fn a_relayed_wait_that_lines_went_by_unsearched_says_so_and_never_times_out() {
    let s = session("relay-outrun");
    let mcp = mcp(&s, "socket");
    let go = s.sandbox().root().join("go");
    // 20 MB of lines, the line waited for, 20 MB more: far past the 2 MiB
    // of lines its relay keeps.
    let flood = "seq 1 3000000; echo wanted-line; seq 1 3000000; echo flood-done; exec sleep 1000";
    let script = format!("while [ ! -e \"$0\" ]; do sleep 0.05; done; {flood}");
    let opened = mcp.ok(
        "zellij_new_pane",
        json!({"command": ["sh", "-c", script, go], "placement": "tiled"}),
    );
    let pane = opened["pane_id"].as_str().unwrap().to_owned();
    let waiter = common::mcp(&s, "socket");
    let waited = std::thread::scope(|scope| {
        let waiting = scope.spawn(|| {
            let args = json!({"pane_id": pane, "pattern": "^wanted-line$", "timeout_ms": 60000});
            waiter.err("zellij_wait_for", args)
        });
        // The wait under way, its bridge held still while the whole flood
        // goes by (a person's machine that stalls it under load).
        wait_for("the wait under way", Duration::from_secs(20), || {
            (waiter.progress_count() >= 1).then_some(())
        });
        let stopped = StoppedBridge::stop(&waiter);
        std::fs::write(&go, "").unwrap();
        wait_for("the flood through", Duration::from_secs(240), || {
            screen(&mcp, &pane).contains("flood-done").then_some(())
        });
        drop(stopped);
        waiting.join().unwrap()
    });
    // Not a timeout: the line may have gone by unsearched.
    assert!(waited.starts_with("result_unknown: "), "{waited}");
}

#[test]
fn a_flood_through_a_relay_never_blocks_and_its_memory_stays_bounded() {
    let s = session("relay-flood");
    let mcp = mcp(&s, "socket");
    let mark = format!("flood-{}", std::process::id());
    // About 50 MB of lines, nobody reading the relay meanwhile.
    let script = format!(
        "head -c 37500000 /dev/zero | tr '\\0' 'x' | fold -w 75 | base64 -w 100; echo {mark}-done; exec sleep 1000"
    );
    let opened = mcp.ok(
        "zellij_new_pane",
        json!({"command": ["sh", "-c", &script], "placement": "tiled", "relay": true}),
    );
    let pane = opened["pane_id"].as_str().unwrap().to_owned();
    let done = format!("{mark}-done");
    wait_for("the flood through", Duration::from_secs(240), || {
        screen(&mcp, &pane).contains(&done).then_some(())
    });
    let full = mcp.ok("zellij_read", json!({"pane_id": pane, "full": true}));
    let text = full["text"].as_str().unwrap();
    assert!(text.trim_end().ends_with(&done), "the flood's end");
    assert_eq!(full["truncated"], true, "the lines let go are told");
    // Against a relay that relayed next to nothing: the flood costs the
    // lines it keeps (2 MiB at most, with what allocating them costs), not
    // the 50 MB that went through.
    #[cfg(target_os = "linux")]
    {
        let idle_mark = format!("idle-{}", std::process::id());
        let idle = format!("echo up; sleep 1000; : {idle_mark}");
        let opened = mcp.ok(
            "zellij_new_pane",
            json!({"command": ["sh", "-c", &idle], "placement": "tiled", "relay": true}),
        );
        // Once it told what runs after the shell wrote, it has read the
        // agent descriptions, as the flood's relay had.
        let idle_pane = opened["pane_id"].as_str().unwrap();
        wait_for("the idle relay's word", Duration::from_secs(20), || {
            (listed(&mcp, idle_pane)["running"][0] == "sh").then_some(())
        });
        let idle = relay_peak_kib(&idle_mark).expect("the idle relay's memory");
        let peak = relay_peak_kib(&mark).expect("the relay's memory");
        assert!(
            peak < idle + 6 * 1024,
            "the relay peaked at {peak} KiB, one relaying nothing at {idle} KiB"
        );
    }
}

#[test]
fn a_recording_played_back_by_asciinema_ends_on_the_screen_the_relay_showed() {
    let asciinema = workspace_root().join("target/test-tools/asciinema/bin/asciinema");
    assert!(asciinema.exists(), "asciinema: run `make test-deps`");
    let s = session("relay-record");
    let mcp = mcp(&s, "socket");
    let cast = s.sandbox().root().join("pane.cast");
    let played = s.sandbox().root().join("played");
    // Colours, an accent, lines enough to scroll, a move up, then a
    // wait while the screen is read.
    let draw = "printf '\\033[31mred\\033[0m and plain é\\n'; seq 1 60; \
                printf '\\033[3;5Hmoved here'; printf '\\033[12;1H'; echo drawn; sleep 3";
    // Started from a shell, the relay is the program's parent; once it
    // ended, the shell clears the pane and plays the recording back.
    let shell = "\"$0\" relay --record \"$2\" -- sh -c \"$1\"; clear; \
                 \"$3\" play -i 0.2 \"$2\"; touch \"$4\"; exec sleep 1000";
    let argv = [
        "sh",
        "-c",
        shell,
        &bridge().display().to_string(),
        draw,
        &cast.display().to_string(),
        &asciinema.display().to_string(),
        &played.display().to_string(),
    ];
    let opened = mcp.ok(
        "zellij_new_pane",
        json!({"command": argv, "placement": "tiled"}),
    );
    let pane = opened["pane_id"].as_str().unwrap().to_owned();
    let rows =
        |text: String| -> Vec<String> { text.lines().map(|l| l.trim_end().to_owned()).collect() };
    let shown = wait_for("the drawing", Duration::from_secs(20), || {
        let text = screen(&mcp, &pane);
        text.contains("drawn").then(|| rows(text))
    });
    assert!(shown.iter().any(|r| r.contains("moved here")), "{shown:?}");
    wait_for("the playback", Duration::from_secs(60), || {
        played.exists().then_some(())
    });
    assert_eq!(rows(screen(&mcp, &pane)), shown, "played back");
    let recorded = std::fs::read_to_string(&cast).unwrap();
    let header: Value = serde_json::from_str(recorded.lines().next().unwrap()).unwrap();
    assert_eq!(header["version"], 2, "{header}");
}

#[test]
fn a_relayed_pane_is_recorded_from_its_screen_as_it_is_until_stopped() {
    let s = session("relay-record-later");
    let mcp = mcp(&s, "socket");
    let ticker = "i=0; while :; do i=$((i+1)); echo tick-$i; sleep 0.1; done";
    let opened = mcp.ok(
        "zellij_new_pane",
        json!({"command": ["sh", "-c", ticker], "placement": "tiled", "relay": true,
            "agent_name": "ticker"}),
    );
    let pane = opened["pane_id"].as_str().unwrap().to_owned();
    wait_for("ticks", Duration::from_secs(20), || {
        (last_tick(&screen(&mcp, &pane)) >= 3).then_some(())
    });
    let record = |pane: &str, extra: &[&str]| {
        std::process::Command::new(bridge())
            .args(["--session", s.name(), "record", pane])
            .args(extra)
            .envs(s.sandbox().env())
            .output()
            .expect("zellij-mcp record")
    };
    let cast = s.sandbox().root().join("later.cast");
    let began = record(&pane, &["--to", &cast.display().to_string()]);
    assert!(began.status.success(), "{began:?}");
    assert_eq!(
        String::from_utf8_lossy(&began.stdout).trim(),
        cast.display().to_string()
    );
    // Its first output draws the screen as it was; ticks follow.
    let events = || -> Vec<Value> {
        let recorded = std::fs::read_to_string(&cast).unwrap_or_default();
        recorded
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    };
    let seen = wait_for("ticks recorded", Duration::from_secs(20), || {
        let events = events();
        (events.len() >= 4).then_some(events)
    });
    assert_eq!(seen[0]["version"], 2, "{:?}", seen[0]);
    let first = seen[1][2].as_str().unwrap_or_default();
    assert!(last_tick(first) >= 3, "the screen as it was: {first:?}");
    // The board and `agents` show it recorded, while it is.
    let recording = || agent_row(&s, &pane).map(|row| row["recording"].clone());
    wait_for("the agent shown recorded", Duration::from_secs(20), || {
        (recording()? == json!(cast)).then_some(())
    });
    let stopped = record(&pane, &["--stop"]);
    assert!(stopped.status.success(), "{stopped:?}");
    wait_for(
        "the agent shown not recorded",
        Duration::from_secs(20),
        || recording()?.is_null().then_some(()),
    );
    // Stopped, the recording grows no more while the program goes on.
    let kept = events();
    let last: u64 = kept
        .iter()
        .map(|e| last_tick(e[2].as_str().unwrap_or_default()))
        .max()
        .unwrap();
    wait_for("ticks after the stop", Duration::from_secs(20), || {
        (last_tick(&screen(&mcp, &pane)) > last + 10).then_some(())
    });
    assert_eq!(events(), kept, "nothing recorded after the stop");
    // A pane that runs no relay cannot be recorded.
    let plain = mcp.ok(
        "zellij_new_pane",
        json!({"command": ["sh", "-c", "exec sleep 1000"], "placement": "tiled", "relay": false}),
    );
    let refused = record(plain["pane_id"].as_str().unwrap(), &[]);
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    assert!(String::from_utf8_lossy(&refused.stderr).contains("runs no relay"));
}

#[test]
fn a_pane_opened_or_run_with_record_is_recorded_from_its_first_byte() {
    let s = session("relay-record-tools");
    let mcp = mcp(&s, "socket");
    let recorded = |answer: &Value, text: &str| {
        let cast = std::path::PathBuf::from(answer["recording"].as_str().expect("recording"));
        assert!(cast.starts_with(s.sandbox().root()), "{}", cast.display());
        let events = wait_for("the output recorded", Duration::from_secs(20), || {
            let file = std::fs::read_to_string(&cast).unwrap_or_default();
            file.contains(text).then_some(file)
        });
        let header: Value = serde_json::from_str(events.lines().next().unwrap()).unwrap();
        assert_eq!(header["version"], 2, "{header}");
    };
    let ran = mcp.ok(
        "zellij_run",
        json!({"command": ["sh", "-c", "echo run-recorded"], "record": true}),
    );
    assert_eq!(ran["exit_code"], 0, "{ran}");
    recorded(&ran, "run-recorded");
    let command = ["sh", "-c", "echo pane-recorded; exec sleep 1000"];
    let opened = mcp.ok(
        "zellij_new_pane",
        json!({"command": command, "placement": "tiled", "record": true,
            "agent_name": "recorded"}),
    );
    recorded(&opened, "pane-recorded");
    let pane = opened["pane_id"].as_str().unwrap();
    wait_for("the agent shown recorded", Duration::from_secs(20), || {
        let row = agent_row(&s, pane)?;
        (row["recording"] == opened["recording"]).then_some(())
    });

    // Refused with nothing opened: with the relay off, with no command, in
    // a shell's pane; a file named by the caller is never written.
    let panes = || {
        mcp.ok("zellij_list_panes", json!({}))["panes"]
            .as_array()
            .unwrap()
            .len()
    };
    let before = panes();
    for (tool, args) in [
        (
            "zellij_new_pane",
            json!({"command": ["true"], "record": true, "relay": false}),
        ),
        ("zellij_new_pane", json!({"record": true})),
        (
            "zellij_run",
            json!({"command": "true", "pane_id": opened["pane_id"], "record": true}),
        ),
    ] {
        let refused = mcp.err(tool, args);
        assert!(refused.starts_with("bad_request: "), "{refused}");
    }
    assert_eq!(panes(), before, "nothing opened");
    let forged = s.sandbox().root().join("forged.cast");
    let args = json!({"command": ["sh", "-c", "echo not-recorded; exec sleep 1000"],
        "placement": "tiled", "record_to": forged});
    let pane = mcp.ok("zellij_new_pane", args)["pane_id"].clone();
    wait_for("its output", Duration::from_secs(20), || {
        screen(&mcp, pane.as_str().unwrap())
            .contains("not-recorded")
            .then_some(())
    });
    assert!(!forged.exists(), "a caller names no file to write");
}
