//! Clients coming and going while calls go on. One client stays, on a tab
//! without the plugin; others attach to the plugin's tab and leave every
//! way people's clients do. Each time the acting client leaves, another
//! instance of the plugin takes the lease, and no caller may notice.

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use common::*;
use serde_json::{json, Value};
use zellij_mcp_harness::{churn, text_of, wait_for, Mcp};

/// Handovers the test waits for: the lease moves when the client of the
/// acting instance leaves while another views the plugin's tab.
const HANDOVERS: usize = 8;
/// Most clients that come, the acting one leaving each of the four ways
/// in turn, waiting for those handovers.
const MOST_CHURNED_CLIENTS: usize = 16;

#[test]
fn a_lease_moving_between_instances_is_invisible_to_callers() {
    let s = session("handover");
    let writers = [mcp(&s, "socket"), mcp(&s, "socket")];
    let runner = mcp(&s, "socket");
    let out = s.sandbox().work().join("tokens.txt");
    let cat = format!("cat > {}", out.display());
    let cat = new_pane(&runner, json!(["sh", "-c", cat]));
    let bash = new_pane(&runner, json!(["bash", "--norc", "--noprofile"]));
    let ticker = "n=0; while :; do n=$((n+1)); echo tick-$n; sleep 0.2; done";
    let ticker = new_pane(&runner, json!(["sh", "-c", ticker]));
    // An agent that takes messages: the Ink composer, named as agents
    // name themselves, from a bridge in its pane.
    let inbox = s.sandbox().work().join("messages.jsonl");
    let composer = ink_pane(&runner, &inbox);
    let agent = composer.trim_start_matches("terminal_").parse().unwrap();
    let agent = Mcp::start_in_pane(&bridge(), s.sandbox(), s.name(), agent);
    agent.ok("zellij_register_agent", json!({"name": "inbox"}));
    let messenger = mcp(&s, "socket");
    wait_for("bash at its prompt", Duration::from_secs(20), || {
        let read = runner.ok("zellij_read", json!({"pane_id": bash}));
        (read["state"] == "prompt").then_some(())
    });

    let stayer = churn::stay_away(&s, &runner);

    let stop = AtomicBool::new(false);
    let errors = Mutex::new(Vec::new());
    let failed = |tool: &str, what: String| errors.lock().unwrap().push(format!("{tool}: {what}"));
    let holders = AtomicUsize::new(0);
    let (written, ran, sent) = std::thread::scope(|scope| {
        let (cat, stop) = (&cat, &stop);
        let (holders, root) = (&holders, s.sandbox().root());
        let watch = scope.spawn(move || churn::count_lease_holders(root, holders, stop));
        let writes: Vec<_> = writers
            .iter()
            .enumerate()
            .map(|(w, mcp)| scope.spawn(move || write_tokens(mcp, w, cat, stop, failed)))
            .collect();
        let runs = scope.spawn(|| run_lines(&runner, &bash, &ticker, stop, failed));
        let messages = scope.spawn(|| send_messages(&messenger, stop, failed));
        let enough = || holders.load(Ordering::SeqCst) > HANDOVERS;
        churn::churn_clients(
            &s,
            &stayer.away_panes,
            MOST_CHURNED_CLIENTS,
            enough,
            |what| failed("leaving", what),
        );
        stop.store(true, Ordering::SeqCst);
        let written: Vec<Vec<String>> = writes.into_iter().map(|w| w.join().unwrap()).collect();
        let sent = messages.join().unwrap();
        watch.join().unwrap();
        (written, runs.join().unwrap(), sent)
    });
    let holders = holders.into_inner();
    eprintln!(
        "the lease changed hands {} times; {} writes, {ran} runs and waits, {} messages",
        holders.saturating_sub(1),
        written.iter().map(Vec::len).sum::<usize>(),
        sent.len()
    );
    let errors = errors.into_inner().unwrap();
    assert!(
        errors.is_empty(),
        "calls that failed: {errors:#?}\nthe composer: {}",
        screen(&runner, &composer)
    );
    assert!(
        holders > HANDOVERS,
        "the lease moved often ({holders} holders)"
    );

    // Every token typed once, whole, and each bridge's in its order.
    let total = written.iter().map(Vec::len).sum::<usize>();
    let lines = file_lines(&out, total);
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for line in &lines {
        *seen.entry(line.as_str()).or_default() += 1;
    }
    for tokens in &written {
        let order: Vec<&String> = lines.iter().filter(|l| tokens.contains(l)).collect();
        assert_eq!(
            order,
            tokens.iter().collect::<Vec<_>>(),
            "in order, once each"
        );
    }
    assert_eq!(lines.len(), total, "no line merged or doubled: {lines:?}");

    // Every message delivered once, in the order sent.
    let received: Vec<String> = file_lines(&inbox, sent.len())
        .iter()
        .map(|line| serde_json::from_str(line).expect("a JSON string"))
        .collect();
    let texts: Vec<&str> = received
        .iter()
        .map(|m| m.split_once("] ").map_or(m.as_str(), |(_, text)| text))
        .collect();
    assert_eq!(texts, sent, "each message once, in order");

    // No pane is left stuck, and nothing but the runs showed in bash.
    let last = runner.ok(
        "zellij_run",
        json!({"pane_id": bash, "command": "echo after"}),
    );
    assert_eq!(last["output"], "after", "{last}");
    let screen = runner.ok("zellij_read", json!({"pane_id": bash}))["text"].clone();
    assert!(
        !screen.as_str().unwrap().contains("no active session"),
        "{screen}"
    );
}

fn new_pane(mcp: &Mcp, command: Value) -> String {
    let opened = mcp.ok(
        "zellij_new_pane",
        json!({"command": command, "placement": "tiled"}),
    );
    opened["pane_id"].as_str().expect("a pane").to_owned()
}

/// Writes tokens into `pane` until `stop`, half of them submitted and half
/// ended by an Enter key; the tokens answered ok.
fn write_tokens(
    mcp: &Mcp,
    writer: usize,
    pane: &str,
    stop: &AtomicBool,
    failed: impl Fn(&str, String),
) -> Vec<String> {
    let mut written = Vec::new();
    for n in 0.. {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let token = format!("tok-{writer}-{n:04}");
        let args = match n % 2 {
            0 => json!({"pane_id": pane, "text": token, "submit": true}),
            _ => json!({"pane_id": pane, "text": token, "keys": ["Enter"]}),
        };
        let result = mcp.call("zellij_write", args);
        match result.is_error {
            Some(true) => failed("zellij_write", text_of(&result)),
            _ => written.push(token),
        }
    }
    written
}

/// Sends messages to the agent `inbox` until `stop`, each waited for
/// until delivered; the messages sent.
fn send_messages(mcp: &Mcp, stop: &AtomicBool, failed: impl Fn(&str, String)) -> Vec<String> {
    let mut sent = Vec::new();
    while !stop.load(Ordering::SeqCst) {
        let text = format!("msg-{:04}", sent.len());
        let args = json!({"to": "inbox", "text": text, "from": "churn", "wait_ms": 20000});
        let result = mcp.call("zellij_send_message", args);
        let status = result
            .structured_content
            .as_ref()
            .map(|r| r["status"].clone());
        match (result.is_error, status) {
            (Some(true), _) => failed("zellij_send_message", text_of(&result)),
            (_, Some(status)) if status == "delivered" => {}
            _ => failed(
                "zellij_send_message",
                format!("not delivered: {}", text_of(&result)),
            ),
        }
        sent.push(text);
    }
    sent
}

/// Runs command lines in `bash` and waits for a tick in `ticker` until
/// `stop`; how many.
fn run_lines(
    mcp: &Mcp,
    bash: &str,
    ticker: &str,
    stop: &AtomicBool,
    failed: impl Fn(&str, String),
) -> usize {
    let mut done = 0;
    while !stop.load(Ordering::SeqCst) {
        let line = format!("echo run-{done}");
        let ran = mcp.call("zellij_run", json!({"pane_id": bash, "command": line}));
        let ran_ok = ran
            .structured_content
            .as_ref()
            .filter(|_| ran.is_error != Some(true));
        match ran_ok {
            Some(r) if r["exit_code"] == 0 && r["output"] == format!("run-{done}") => {}
            _ => failed("zellij_run", format!("{line}: {}", text_of(&ran))),
        }
        let wait = json!({"pane_id": ticker, "pattern": "tick-", "timeout_ms": 10000});
        let waited = mcp.call("zellij_wait_for", wait);
        let outcome = waited
            .structured_content
            .as_ref()
            .map(|w| w["outcome"].clone());
        if waited.is_error == Some(true) || outcome != Some(json!("matched")) {
            failed("zellij_wait_for", text_of(&waited));
        }
        done += 1;
    }
    done
}
