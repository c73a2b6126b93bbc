//! `zellij_run` in a shell pane the user already has: real bash, zsh and
//! fish panes in a real session, driven through the built bridge.

mod common;

use std::time::Duration;

use common::{mcp, session, type_line};
use serde_json::{json, Value};
use zellij_mcp_harness::{wait_for, Mcp};

/// The shells runs are typed into, without the user's configuration.
const SHELLS: [&[&str]; 3] = [
    &["bash", "--norc", "--noprofile"],
    &["zsh", "-f"],
    &["fish", "--no-config"],
];

/// A new tiled pane running `argv`, once its shell is at its prompt.
fn shell(mcp: &Mcp, argv: &[&str]) -> String {
    let opened = mcp.ok(
        "zellij_new_pane",
        json!({"command": argv, "placement": "tiled"}),
    );
    let pane = opened["pane_id"].as_str().unwrap().to_owned();
    at_prompt(mcp, &pane);
    pane
}

fn at_prompt(mcp: &Mcp, pane: &str) {
    let waited = mcp.ok(
        "zellij_wait_for",
        json!({"pane_id": pane, "until_state": "prompt", "timeout_ms": 60000}),
    );
    assert_eq!(waited["outcome"], "state", "{pane} at its prompt: {waited}");
}

fn run(mcp: &Mcp, pane: &str, line: &str) -> Value {
    mcp.ok(
        "zellij_run",
        json!({"pane_id": pane, "command": line, "timeout_ms": 20000}),
    )
}

/// Exit codes, output without prompt or echo, and the shell's own cwd and
/// environment, the same in each shell.
fn runs_with_exit_codes_and_only_its_output(mcp: &Mcp, pane: &str, dir: &str) {
    let ran = run(mcp, pane, "echo one; echo two");
    assert_eq!(ran["exit_code"], 0, "{ran}");
    assert_eq!(ran["exited"], true, "{ran}");
    assert_eq!(ran["output"], "one\ntwo", "only the command's lines: {ran}");

    let ran = run(mcp, pane, "sh -c 'echo failing; exit 3'");
    assert_eq!(ran["exit_code"], 3, "{ran}");
    assert_eq!(ran["output"], "failing", "{ran}");

    let ran = run(mcp, pane, "sh -c 'kill -INT $$'");
    assert_eq!(ran["exit_code"], 130, "killed by SIGINT: {ran}");

    // A `cd` and a variable set by an earlier run stay in the shell.
    run(mcp, pane, &format!("cd {dir}"));
    let ran = run(mcp, pane, "pwd");
    assert_eq!(ran["output"], dir, "{ran}");
    let set = match pane_shell(mcp, pane).as_str() {
        "fish" => "set -x ZMCP_SEEN kept",
        _ => "export ZMCP_SEEN=kept",
    };
    run(mcp, pane, set);
    let ran = run(mcp, pane, "sh -c 'echo \"$ZMCP_SEEN\"'");
    assert_eq!(ran["output"], "kept", "{ran}");
}

/// The name of the pane's process, as the kernel has it.
fn pane_shell(mcp: &Mcp, pane: &str) -> String {
    let read = mcp.ok("zellij_read", json!({"pane_id": pane}));
    let pid = read["pid"].as_u64().expect("the pane's pid");
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap();
    comm.trim().to_owned()
}

#[test]
fn a_command_line_runs_in_an_existing_bash_zsh_and_fish_shell() {
    let s = session("in-shell");
    let mcp = mcp(&s, "socket");
    let dir = s.sandbox().work();
    std::fs::create_dir_all(&dir).unwrap();
    let dir = dir.to_str().unwrap();
    for argv in SHELLS {
        let pane = shell(&mcp, argv);
        runs_with_exit_codes_and_only_its_output(&mcp, &pane, dir);
        // Its prompt comes back: the pane takes another run at once.
        at_prompt(&mcp, &pane);
    }
}

#[test]
fn tricky_command_lines_arrive_verbatim() {
    let s = session("in-shell-verbatim");
    let mcp = mcp(&s, "socket");
    let pane = shell(&mcp, &["bash", "--norc", "--noprofile"]);
    // Short lines: a pane's rows wrap at its width.
    let body = [
        r#"quotes ' " ` and $HOME"#,
        r"$(echo no) ${PATH} \$ \",
        r"back\slash \n",
        "ünïcödé 日本語 ✓",
        "  leading spaces, then \\",
        "!! history ! and # hash",
    ];
    let line = format!("cat <<'ZMCP_END'\n{}\nZMCP_END", body.join("\n"));
    let ran = run(&mcp, &pane, &line);
    assert_eq!(ran["exit_code"], 0, "{ran}");
    assert_eq!(ran["output"], body.join("\n"), "{ran}");

    let ran = run(&mcp, &pane, "echo first\necho second\nfalse");
    assert_eq!(ran["output"], "first\nsecond", "{ran}");
    assert_eq!(ran["exit_code"], 1, "the last line's status: {ran}");
}

#[test]
fn runs_queue_in_order_and_a_busy_or_foreign_pane_is_refused() {
    let s = session("in-shell-busy");
    let mcp = mcp(&s, "socket");
    let pane = shell(&mcp, &["bash", "--norc", "--noprofile"]);
    let runs = (1..=3)
        .map(|n| {
            let line = format!("sleep 0.3; echo run-{n}");
            let args = json!({"pane_id": pane, "command": line, "timeout_ms": 20000});
            ("zellij_run", args)
        })
        .collect();
    // Each gets its own output, whatever order they reached the plugin in.
    for (n, result) in mcp.call_concurrently(runs).iter().enumerate() {
        let ran = result.structured_content.clone().expect("a result");
        assert_eq!(ran["output"], format!("run-{}", n + 1), "{ran}");
        assert_eq!(ran["exit_code"], 0, "{ran}");
    }
    let screen = common::screen(&mcp, &pane);
    assert!(
        !screen.contains("\u{1b}") && !screen.contains("^["),
        "no paste typed early: {screen}"
    );

    type_line(&mcp, &pane, "sleep 60");
    wait_for("the pane to be running", Duration::from_secs(20), || {
        let read = mcp.ok("zellij_read", json!({"pane_id": pane}));
        (read["state"] == "running").then_some(())
    });
    let busy = mcp.err("zellij_run", json!({"pane_id": pane, "command": "true"}));
    assert!(busy.starts_with("busy"), "{busy}");

    let cat = mcp.ok(
        "zellij_new_pane",
        json!({"command": ["cat"], "placement": "tiled"}),
    );
    let refused = mcp.err(
        "zellij_run",
        json!({"pane_id": cat["pane_id"], "command": "true"}),
    );
    assert!(refused.starts_with("unsupported"), "{refused}");
    assert!(refused.contains("cat"), "names what runs there: {refused}");

    let argv = mcp.err(
        "zellij_run",
        json!({"pane_id": pane, "command": ["echo", "x"]}),
    );
    assert!(argv.starts_with("bad_request"), "{argv}");
}

#[test]
fn a_run_that_times_out_goes_on_and_its_exit_is_waited_for_and_logged() {
    let s = session("in-shell-timeout");
    let mcp = mcp(&s, "socket");
    let pane = shell(&mcp, &["bash", "--norc", "--noprofile"]);
    let ran = mcp.ok(
        "zellij_run",
        json!({"pane_id": pane, "command": "echo started; sleep 3; echo done; (exit 7)",
               "timeout_ms": 1000}),
    );
    assert_eq!(ran["timed_out"], true, "{ran}");
    assert_eq!(ran["output"], "started", "the partial output: {ran}");
    let cursor = ran["cursor"].as_str().expect("a cursor").to_owned();
    let waited = mcp.ok(
        "zellij_wait_for",
        json!({"pane_id": pane, "exit": true, "timeout_ms": 20000}),
    );
    assert_eq!(waited["outcome"], "exited", "{waited}");
    assert_eq!(waited["exit_status"], 7, "{waited}");
    assert_eq!(run_exit_codes(&mcp, &pane), [7]);
    let rest = mcp.ok("zellij_read", json!({"pane_id": pane, "since": cursor}));
    // The cursor is after the echo (the growing last row counts as new).
    let rest = rest["text"].as_str().unwrap();
    assert!(rest.starts_with("started\ndone"), "{rest}");

    let ran = mcp.ok(
        "zellij_run",
        json!({"pane_id": pane, "command": "sleep 60", "timeout_ms": 1000, "kill_on_timeout": true}),
    );
    assert_eq!(
        (&ran["timed_out"], &ran["killed"]),
        (&json!(true), &json!(true)),
        "{ran}"
    );
    wait_for("the killed run's exit", Duration::from_secs(20), || {
        (run_exit_codes(&mcp, &pane).len() == 2).then_some(())
    });
    assert_eq!(run_exit_codes(&mcp, &pane), [7, 130], "Ctrl-C ended it");
    at_prompt(&mcp, &pane);
    let ran = run(&mcp, &pane, "echo after");
    assert_eq!(ran["output"], "after", "the pane takes runs again: {ran}");
}

/// The codes of the `run_exited` events of `pane`, oldest first.
fn run_exit_codes(mcp: &Mcp, pane: &str) -> Vec<Value> {
    let events = mcp.ok("zellij_read_events", json!({}));
    let events = events["events"].as_array().unwrap().clone();
    events
        .into_iter()
        .filter(|e| e["event"] == "run_exited" && e["pane_id"] == pane)
        .map(|e| e["code"].clone())
        .collect()
}

#[test]
fn a_run_works_with_several_clients_attached() {
    let s = session("in-shell-clients");
    let (_clients, _) = s.attach_clients_and_wait(2);
    let mcp = mcp(&s, "socket");
    let pane = shell(&mcp, &["bash", "--norc", "--noprofile"]);
    for n in 0..3 {
        let ran = run(&mcp, &pane, &format!("echo two-clients-{n}; (exit {n})"));
        assert_eq!(ran["output"], format!("two-clients-{n}"), "{ran}");
        assert_eq!(ran["exit_code"], n, "{ran}");
    }
}

/// One run's exactness: its exit code and its whole output.
fn exact(mcp: &Mcp, pane: &str, line: &str, code: i64, output: &str) {
    let ran = mcp.ok(
        "zellij_run",
        json!({"pane_id": pane, "command": line, "timeout_ms": 60000, "max_bytes": 1 << 20}),
    );
    assert_eq!(ran["exit_code"], code, "{line}: {ran}");
    assert_eq!(ran["output"], output, "{line}: {ran}");
    assert_eq!(ran["truncated"], false, "{line}: {ran}");
}

#[test]
fn runs_are_exact_beside_a_busy_neighbour_with_two_clients_and_leave_one_short_line() {
    let s = session("in-shell-load");
    let (_clients, _) = s.attach_clients_and_wait(2);
    let mcp = mcp(&s, "socket");
    mcp.ok(
        "zellij_new_pane",
        json!({"command": ["sh", "-c", "while :; do date +%s%N; sleep 0.02; done"],
               "placement": "tiled"}),
    );
    let long: Vec<String> = (1..=300).map(|n| n.to_string()).collect();
    for shell_argv in SHELLS {
        let pane = shell(&mcp, shell_argv);
        for n in 0..20 {
            match n % 5 {
                0 => exact(
                    &mcp,
                    &pane,
                    "sh -c 'echo dying; kill -INT $$'",
                    130,
                    "dying",
                ),
                1 => exact(&mcp, &pane, "true", 0, ""),
                2 => exact(&mcp, &pane, "seq 1 300", 0, &long.join("\n")),
                3 => exact(&mcp, &pane, "printf no-newline", 0, "no-newline"),
                _ => exact(
                    &mcp,
                    &pane,
                    &format!("echo run-{n}; sh -c 'exit {n}'"),
                    n,
                    &format!("run-{n}"),
                ),
            }
        }
        // What a person sees: each command line and one short line after
        // it, no report command, no marker.
        let screen = wait_for("the last marker erased", Duration::from_secs(20), || {
            let screen = common::screen(&mcp, &pane);
            (!screen.contains("zellij-mcp:")).then_some(screen)
        });
        assert!(
            !screen.contains("zellij pipe"),
            "no report command: {screen}"
        );
        assert!(screen.contains("source "), "the short line: {screen}");
    }
    // Every run's script is gone once its output was read.
    let folder = s.sandbox().root().join("run/zellij-mcp");
    let left: Vec<_> = std::fs::read_dir(&folder)
        .expect("the scripts' folder")
        .collect();
    assert!(left.is_empty(), "scripts left: {left:?}");
}

#[test]
fn a_run_never_runs_a_persons_half_typed_line() {
    let s = session("in-shell-draft");
    let mcp = mcp(&s, "socket");
    let dir = s.sandbox().work();
    std::fs::create_dir_all(&dir).unwrap();
    for (n, argv) in SHELLS.into_iter().enumerate() {
        let pane = shell(&mcp, argv);
        let notes = dir.join(format!("notes-{n}.txt"));
        let draft = format!("touch {}", notes.display());
        // A person types a line and does not send it.
        mcp.ok("zellij_write", json!({"pane_id": pane, "text": draft}));
        wait_for("the draft on screen", Duration::from_secs(20), || {
            let screen = common::screen(&mcp, &pane)
                .split_whitespace()
                .collect::<String>();
            screen
                .contains(&draft.split_whitespace().collect::<String>())
                .then_some(())
        });
        let refused = mcp.err(
            "zellij_run",
            json!({"pane_id": pane, "command": "echo RUN", "timeout_ms": 20000}),
        );
        assert!(refused.starts_with("draft"), "{argv:?}: {refused}");
        // The pane's state says so, and a message is no command line.
        let read = mcp.ok("zellij_read", json!({"pane_id": pane}));
        assert_eq!(read["state"], "draft", "{argv:?}: {read}");
        let refused = mcp.err("zellij_send_message", json!({"to": pane, "text": "RUN"}));
        assert!(refused.starts_with("not_an_agent"), "{argv:?}: {refused}");
        // Had it run, the file would be there by the time a marker typed
        // after the refusal shows.
        // (Rows wrap: the screen is compared without its spaces.)
        let squeezed = |text: &str| text.split_whitespace().collect::<String>();
        mcp.ok(
            "zellij_write",
            json!({"pane_id": pane, "text": " zmcp-after"}),
        );
        let line = squeezed(&format!("{draft} zmcp-after"));
        let screen = wait_for(
            "the marker after the draft",
            Duration::from_secs(20),
            || {
                let screen = common::screen(&mcp, &pane);
                squeezed(&screen).contains(&line).then_some(screen)
            },
        );
        assert!(!notes.exists(), "{argv:?}: the person's line ran");
        assert!(!screen.contains("RUN"), "{argv:?}: nothing typed: {screen}");
    }
}

#[test]
fn a_run_whose_exit_report_never_comes_is_settled_and_the_pane_takes_runs_again() {
    let s = session("in-shell-unreported");
    let mcp = mcp(&s, "socket");
    let pane = shell(&mcp, &["bash", "--norc", "--noprofile"]);
    // The line makes the shell skip the script that sends the run's exit
    // report: the report never comes, and the shell is back at its prompt.
    let lost = std::thread::scope(|scope| {
        let lost = scope.spawn(|| {
            let started = std::time::Instant::now();
            let line = json!({"pane_id": pane, "command": "source() { :; }", "timeout_ms": 60000});
            (mcp.err("zellij_run", line), started.elapsed())
        });
        wait_for("the line typed", Duration::from_secs(20), || {
            common::screen(&mcp, &pane)
                .contains("source() { :; }")
                .then_some(())
        });
        let after = wait_for("a run after it", Duration::from_secs(40), || {
            let line = json!({"pane_id": pane, "command": "unset -f source; echo after", "timeout_ms": 3000});
            let ran = mcp.call("zellij_run", line);
            let ran = ran
                .structured_content
                .filter(|_| ran.is_error != Some(true));
            ran.filter(|ran| ran["exit_code"] == 0)
        });
        assert_eq!(after["output"], "after", "{after}");
        lost.join().unwrap()
    });
    let (error, took) = lost;
    assert!(error.starts_with("result_unknown"), "{error}");
    assert!(
        took < Duration::from_secs(30),
        "settled before its timeout: {took:?}"
    );
    let ran = run(&mcp, &pane, "echo again");
    assert_eq!(ran["output"], "again", "{ran}");

    // Its timeout passed with the shell at its prompt: the line ran, with
    // an exit code nobody knows; the next run settles it.
    let line = json!({"pane_id": pane, "command": "source() { :; }", "timeout_ms": 2500});
    let error = mcp.err("zellij_run", line);
    assert!(error.starts_with("result_unknown"), "{error}");
    let ran = run(&mcp, &pane, "unset -f source; echo after");
    assert_eq!(ran["output"], "after", "{ran}");
}
