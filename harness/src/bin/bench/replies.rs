//! Replies (`zellij_ask`): from the model's last byte to the reply, per
//! agent program, for real against the stand-in model API; and a 1 MB
//! reply read from the end of a 100 MB record.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::json;
use zellij_mcp::replies::place::Place;
use zellij_mcp::replies::{Following, Started};
use zellij_mcp_harness::programs::{ModelApi, Program};
use zellij_mcp_harness::Mcp;
use zellij_mcp_protocol::agent_programs::Record;

use crate::table::Table;

/// Each ask's time from the model's last byte (as the stand-in logged it)
/// to the reply, `rounds` times in the idle `pane`.
pub fn last_byte_to_reply(
    mcp: &Mcp,
    api: &ModelApi,
    pane: &str,
    program: Program,
    rounds: usize,
) -> Vec<Duration> {
    (0..rounds)
        .map(|round| {
            let text = format!("SAY {program:?}-{round}");
            let args = json!({"to": pane, "text": text, "from": "bench", "timeout_s": 120});
            let asked = mcp.ok("zellij_ask", args);
            let replied = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
            assert_eq!(asked["state"], "idle", "{asked}");
            let finished = api.finished_at(&text).expect("the stand-in's answer");
            replied.saturating_sub(Duration::from_secs_f64(finished))
        })
        .collect()
}

/// Lines of a Codex record: `turns` turns of about 1 KB each, then the
/// asked turn with a reply of `reply` bytes.
fn codex_record(turns: usize, reply: usize) -> String {
    let line = |value: serde_json::Value| value.to_string() + "\n";
    let prompt = |text: &str| {
        let item = json!({"type": "UserMessage", "content": [{"type": "text", "text": text}]});
        line(json!({"type": "event_msg", "payload": {"type": "item_completed", "item": item}}))
    };
    let said = |text: &str| {
        let content = [json!({"type": "output_text", "text": text})];
        line(
            json!({"type": "response_item", "payload": {"type": "message", "role": "assistant", "content": content}}),
        )
    };
    let done = line(json!({"type": "event_msg", "payload": {"type": "task_complete"}}));
    let filler = "an earlier turn's words ".repeat(40);
    let mut record = String::new();
    for turn in 0..turns {
        record += &prompt(&format!("[#{turn} from bench] go on"));
        record += &said(&filler);
        record += &done;
    }
    record += &prompt("[#999999 from bench] the big one");
    record += &said(&"a line of the long reply\n".repeat(reply / 25));
    record + &done
}

/// A 1 MB reply found and read from the end of a 100 MB Codex record.
pub fn big_record(table: &mut Table, rounds: usize) {
    table.section("a reply read from the end of a big record");
    let home = tempfile::tempdir().expect("a home");
    let day = home.path().join(".codex/sessions/2026/11/27");
    std::fs::create_dir_all(&day).expect("the record's folder");
    let record = codex_record(77_000, 1 << 20);
    let path = day.join("rollout-2026-11-27T00-00-00-bench.jsonl");
    std::fs::write(&path, &record).expect("the record");
    let size_mb = record.len() as f64 / 1e6;
    drop(record);
    let place = Place::new(&[("HOME", home.path())], None);
    let rss_before = crate::rss_kib(std::process::id()).unwrap_or(0);
    let mut samples = Vec::new();
    let mut reply_bytes = 0;
    for _ in 0..rounds {
        let started = Started::By("[#999999 from bench]".into());
        let mut following = Following::new(Record::Codex, place.clone(), UNIX_EPOCH, started);
        let began = Instant::now();
        let turn = following
            .turn()
            .expect("the record read")
            .expect("the turn");
        samples.push(began.elapsed());
        reply_bytes = turn.reply().len();
    }
    let grew = crate::rss_kib(std::process::id())
        .unwrap_or(0)
        .saturating_sub(rss_before);
    table.timed(
        &format!(
            "zellij_ask's reading of a {:.1} MB reply at the end of a {size_mb:.0} MB record",
            reply_bytes as f64 / 1e6
        ),
        samples,
        &format!("target ≤ 50 ms; this process grew {} MiB", grew / 1024),
    );
}
