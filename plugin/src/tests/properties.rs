//! Property tests of request handling on the fake host: any sequence of
//! payloads, well-formed or not, never panics the plugin, and every request
//! gets exactly one reply (a result or a typed error) and one release of its
//! pipe, once everything under way has run its course.

use std::time::{Duration, Instant};

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use zellij_mcp_protocol::ops::op;
use zellij_mcp_protocol::ops::WaitOutcome;
use zellij_mcp_protocol::testing::property_config;
use zellij_mcp_protocol::Reply;

use crate::tests::{plugin_in, replies_on, send, shared_dir, FakeHost};
use crate::McpPlugin;

/// Ids the requests of one case use, so cancels and replays can hit.
const IDS: &[&str] = &["a", "b", "c", "d", "e"];

/// A JSON value of any shape.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-2.0e9f64..2.0e9).prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map("[a-z_]{1,8}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A value for a field the ops know, often a plausible one.
fn field_value(field: &'static str) -> BoxedStrategy<Value> {
    let plausible: BoxedStrategy<Value> = match field {
        "pane_id" => prop::sample::select(vec![
            json!("terminal_1"),
            json!(1),
            json!("plugin_5"),
            json!("terminal_9"),
            json!("x"),
            json!(-1),
            json!(u64::MAX),
        ])
        .boxed(),
        "tab" | "move_to_tab" => prop::sample::select(vec![
            json!(3),
            json!("main"),
            json!(9),
            json!("nope"),
            json!(-3),
        ])
        .boxed(),
        "keys" => prop::collection::vec(
            prop::sample::select(vec!["Enter", "Ctrl c", "Up", "Hyper", "", "Alt ["]),
            0..3,
        )
        .prop_map(|keys| json!(keys))
        .boxed(),
        "command" => prop::collection::vec("[a-z ]{0,6}", 0..3)
            .prop_map(|argv| json!(argv))
            .boxed(),
        "request_id" => prop::sample::select(IDS.to_vec())
            .prop_map(Value::from)
            .boxed(),
        "resize" => (
            any::<i32>(),
            prop::sample::select(vec!["up", "left", "sideways"]),
        )
            .prop_map(|(amount, direction)| json!({"amount": amount, "direction": direction}))
            .boxed(),
        "pattern" | "since" | "text" | "name" | "layout" | "path" | "cwd" => {
            "\\PC{0,10}".prop_map(Value::from).boxed()
        }
        _ => prop_oneof![
            any::<bool>().prop_map(Value::from),
            (0u64..2_000_000).prop_map(Value::from),
            Just(json!(u64::MAX)),
        ]
        .boxed(),
    };
    prop_oneof![4 => plausible, 1 => any_json()].boxed()
}

const FIELDS: &[&str] = &[
    "pane_id",
    "tab",
    "text",
    "keys",
    "submit",
    "submit_delay_ms",
    "paste",
    "allow_exited",
    "full",
    "since",
    "tail_lines",
    "max_bytes",
    "pattern",
    "literal",
    "idle_ms",
    "exit",
    "timeout_ms",
    "include_existing",
    "last_lines",
    "command",
    "name",
    "placement",
    "wait",
    "force",
    "resize",
    "floating",
    "fullscreen",
    "pinned",
    "move_to_tab",
    "request_id",
    "layout",
    "path",
    "line",
    "cwd",
    "focus",
    "signal",
];

fn args() -> impl Strategy<Value = Value> {
    let fields = prop::collection::vec(prop::sample::select(FIELDS.to_vec()), 0..6);
    let object = fields.prop_flat_map(|fields| {
        let values: Vec<BoxedStrategy<(&'static str, Value)>> = fields
            .into_iter()
            .map(|f| field_value(f).prop_map(move |v| (f, v)).boxed())
            .collect();
        values.prop_map(|pairs| {
            let map: Map<String, Value> =
                pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
            Value::Object(map)
        })
    });
    prop_oneof![8 => object, 1 => any_json()]
}

/// What one pipe message carries: a request, or anything at all.
fn payload(id: &'static str) -> impl Strategy<Value = String> {
    let request = (
        prop::sample::select([op::NAMES, &["fly", ""]].concat()),
        args(),
        prop_oneof![9 => Just(1u32), 1 => any::<u32>()],
        prop_oneof![Just(Value::Null), Just(json!("terminal_1")), any_json()],
    )
        .prop_map(move |(op, args, v, caller)| {
            json!({"v": v, "id": id, "op": op, "args": args, "caller": caller}).to_string()
        });
    prop_oneof![12 => request, 1 => "\\PC{0,40}"]
}

fn payloads() -> impl Strategy<Value = Vec<String>> {
    (1..=IDS.len()).prop_flat_map(|n| IDS[..n].iter().map(|id| payload(id)).collect::<Vec<_>>())
}

/// Lets everything under way finish: deferred work, writes and their
/// submit CRs, replies waiting for Zellij, and waits (which are cancelled).
fn run_everything_out(p: &mut McpPlugin<FakeHost>) {
    p.on_timer();
    let mut late = Instant::now();
    for _ in 0..200 {
        late += Duration::from_secs(20);
        let steps = p
            .input
            .on_timer(late, |_| crate::state::writes::Shows::Unlooked);
        p.run_steps(steps);
        for (asker, outcome) in p.requests.later.settle(&p.view, &p.host, late) {
            p.answer(&asker, outcome);
        }
        for (asker, result) in p.outbox.answers_due(late).0 {
            p.answer(
                &asker,
                Ok(zellij_mcp_protocol::JsonText::of(&result).unwrap()),
            );
        }
        while !p.waits.is_empty() {
            let mut wait = p.waits.swap_remove(0);
            let finished = wait.finish(WaitOutcome::Cancelled, None);
            p.finish_wait(wait, finished);
        }
        p.on_timer();
        let idle = p.input.pending() == 0 && p.outbox.len() == 0;
        if idle && p.requests.later.len() == 0 && p.waits.is_empty() {
            return;
        }
    }
    panic!("work never finished");
}

proptest! {
    #![proptest_config(property_config())]

    #[test]
    fn every_request_is_answered_exactly_once(payloads in payloads()) {
        let mut p = plugin_in(&shared_dir("fuzz"), 1);
        for (n, payload) in payloads.iter().enumerate() {
            send(&mut p, &format!("pipe-{n}"), Some(payload));
        }
        run_everything_out(&mut p);
        for (n, payload) in payloads.iter().enumerate() {
            let id = serde_json::from_str::<Value>(payload)
                .ok()
                .and_then(|v| v.get("id")?.as_str().map(str::to_owned))
                .unwrap_or_default();
            let replies: Vec<Reply> = replies_on(&p, &format!("pipe-{n}"), &id);
            prop_assert_eq!(replies.len(), 1, "{}", payload);
        }
        prop_assert_eq!(p.requests.replies.sizes().2, 0, "nothing stays in flight");
    }
}
