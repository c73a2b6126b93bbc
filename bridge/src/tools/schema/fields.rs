//! Every field a tool can return is named in its output schema, with its
//! type: an agent reads the schema to know what a result may hold, and a
//! flag listed only when true (`exited`, `is_self`) is otherwise never seen.
//!
//! Two checks per tool, both from the real types: a fully populated result
//! (every `Option` set, every flag true, every list holding one item; the
//! structs written out field by field, so a new field does not compile
//! until it is filled in here) serialized as the tool returns it; and the
//! fields `schemars` finds in the result's type, at any depth.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::{json, Value};
use zellij_mcp_protocol::ops::{
    ArrangePaneResult, CancelMessagesResult, ClientEntry, CloseResult, ClosedPane, DeliveryStatus,
    DumpLayoutResult, Geometry, Happened, HoldReason, ListPanesResult, ListSessionsResult,
    ListTabsResult, LoggedEvent, NewPaneResult, NewTabResult, PaneDetails, PaneEntry, PaneResult,
    PaneState, PluginMemory, ReadEventsResult, ReadResult, RunResult, SendMessageResult,
    SessionEntry, SessionInfoResult, TabEntry, TargetResult, WaitForResult, WaitOutcome,
    WriteResult,
};
use zellij_mcp_protocol::PaneRef;

use crate::tools::ask::{AskResult, AskState, ReplySource};
use crate::tools::{FromSession, ZellijMcp};

/// Each tool's output schema, as `tools/list` publishes it.
fn published() -> BTreeMap<String, Value> {
    let router = ZellijMcp::session_tools()
        + ZellijMcp::pane_tools()
        + ZellijMcp::io_tools()
        + ZellijMcp::ask_tools();
    router
        .list_all()
        .into_iter()
        .map(|tool| {
            let schema = tool.output_schema.map(|s| Value::Object((*s).clone()));
            (tool.name.to_string(), schema.unwrap_or_default())
        })
        .collect()
}

/// What a tool returns: its type's fields (from `schemars`) and fully
/// populated results, serialized as the tool sends them.
struct Returns {
    type_fields: BTreeSet<String>,
    results: Vec<Value>,
}

fn returns<R: Serialize + schemars::JsonSchema>(results: Vec<R>) -> Returns {
    let schema = serde_json::to_value(schemars::schema_for!(R)).unwrap();
    let defs = schema.get("$defs").cloned().unwrap_or_default();
    let mut type_fields = BTreeSet::new();
    paths(&schema, &defs, "", &mut type_fields);
    let results = results
        .iter()
        .map(|r| serde_json::to_value(r).unwrap())
        .collect();
    Returns {
        type_fields,
        results,
    }
}

fn in_session<R>(result: R) -> FromSession<R> {
    FromSession {
        session: "main".into(),
        result,
    }
}

/// Every tool, and what it returns.
fn every_tool() -> BTreeMap<&'static str, Returns> {
    let pane = PaneRef::terminal(3);
    let panes = ["zellij_open_file", "zellij_signal"];
    let targets = ["zellij_rename", "zellij_focus", "zellij_register_agent"];
    let mut all = BTreeMap::from([
        (
            "zellij_session_info",
            returns(vec![in_session(session_info())]),
        ),
        (
            "zellij_list_sessions",
            returns(vec![ListSessionsResult {
                sessions: vec![SessionEntry {
                    name: "main".into(),
                    default: true,
                    current: true,
                }],
            }]),
        ),
        (
            "zellij_list_tabs",
            returns(vec![in_session(ListTabsResult { tabs: vec![tab()] })]),
        ),
        (
            "zellij_list_panes",
            returns(vec![in_session(ListPanesResult {
                panes: vec![listed_pane()],
            })]),
        ),
        (
            "zellij_dump_layout",
            returns(vec![in_session(DumpLayoutResult {
                tab_id: Some(1),
                layout: "layout {}".into(),
            })]),
        ),
        (
            "zellij_new_tab",
            returns(vec![in_session(NewTabResult {
                tab_id: 1,
                position: 0,
                name: "build".into(),
                pane_ids: vec![pane],
                focused: true,
            })]),
        ),
        (
            "zellij_close",
            returns(vec![in_session(CloseResult {
                tab_id: Some(1),
                closed: vec![ClosedPane {
                    pane_id: pane,
                    title: "build".into(),
                    command: Some("cargo build".into()),
                }],
            })]),
        ),
        (
            "zellij_arrange_pane",
            returns(vec![in_session(ArrangePaneResult {
                pane_id: pane,
                tab_id: Some(1),
                floating: true,
                fullscreen: true,
                geometry: geometry(),
            })]),
        ),
        ("zellij_read", returns(vec![in_session(read())])),
        (
            "zellij_write",
            returns(vec![in_session(WriteResult {
                pane_id: pane,
                tab_id: Some(1),
                bytes_written: 5,
                submitted: true,
            })]),
        ),
        (
            "zellij_wait_for",
            returns(vec![in_session(WaitForResult {
                pane_id: pane,
                tab_id: Some(1),
                outcome: WaitOutcome::Exited,
                matched: Some("ok".into()),
                line: Some("test ok".into()),
                exit_status: Some(1),
                elapsed_ms: 10,
                last_lines: "test ok".into(),
            })]),
        ),
        ("zellij_run", returns(vec![in_session(run())])),
        (
            "zellij_send_message",
            returns(vec![in_session(SendMessageResult {
                seq: 4,
                status: DeliveryStatus::Held,
                attempts: 2,
                pane_id: Some(pane),
                from: "main.tests".into(),
                held_because: Some(HoldReason::Draft),
            })]),
        ),
        (
            "zellij_cancel_messages",
            returns(vec![in_session(CancelMessagesResult {
                cancelled: vec![4],
            })]),
        ),
        (
            "zellij_read_events",
            returns(vec![in_session(ReadEventsResult {
                events: every_event(),
                last_seq: 9,
                more: true,
            })]),
        ),
        (
            "zellij_ask",
            returns(vec![in_session(AskResult {
                seq: 4,
                pane_id: Some(pane),
                state: AskState::Undelivered,
                reply: "done".into(),
                source: Some(ReplySource::Transcript),
                timed_out: true,
                held_because: Some(HoldReason::Asking),
                elapsed_ms: 10,
            })]),
        ),
        (
            "zellij_new_pane",
            returns(vec![in_session(NewPaneResult {
                pane: PaneResult {
                    pane_id: pane,
                    tab_id: Some(1),
                },
                recording: Some("/state/recordings/main-new.cast".into()),
            })]),
        ),
    ]);
    for tool in panes {
        let result = PaneResult {
            pane_id: pane,
            tab_id: Some(1),
        };
        all.insert(tool, returns(vec![in_session(result)]));
    }
    for tool in targets {
        let result = TargetResult {
            pane_id: Some(pane),
            tab_id: Some(1),
            name: "build".into(),
        };
        all.insert(tool, returns(vec![in_session(result)]));
    }
    all
}

fn session_info() -> SessionInfoResult {
    SessionInfoResult {
        zellij_version: "0.45.1".into(),
        plugin_version: "1".into(),
        bridge_version: "1".into(),
        protocol: 1,
        transport: "socket".into(),
        clients: vec![ClientEntry {
            client_id: 1,
            pane_id: PaneRef::terminal(3),
            tab_id: Some(1),
            running_command: "bash".into(),
        }],
        own_pane_id: Some(PaneRef::terminal(7)),
        own_tab_id: Some(1),
        tabs: 1,
        panes: 2,
        active_waits: 1,
        plugin_memory: PluginMemory {
            heap_bytes: 1,
            heap_limit_bytes: 1,
            kept_replies: 1,
            kept_reply_bytes: 1,
            in_flight: 1,
            pending_replies: 1,
            queued_writes: 1,
            exit_codes: 1,
        },
    }
}

fn tab() -> TabEntry {
    TabEntry {
        tab_id: 1,
        position: 0,
        name: "build".into(),
        active: true,
        panes: 3,
        tiled_panes: 1,
        floating_panes: 1,
        hidden_panes: 1,
        fullscreen: true,
        floating_visible: true,
    }
}

fn geometry() -> Geometry {
    Geometry {
        x: 1,
        y: 1,
        rows: 24,
        cols: 80,
    }
}

/// A pane as `zellij_list_panes` lists it with `details: true`, every flag
/// set.
fn listed_pane() -> PaneEntry {
    PaneEntry {
        pane_id: PaneRef::terminal(3),
        tab_id: Some(1),
        title: "build".into(),
        agent: Some("main.tests".into()),
        program: Some("claude".into()),
        state: Some(PaneState::Stalled),
        exit_status: Some(1),
        exited: true,
        focused: true,
        floating: true,
        hidden: true,
        is_self: true,
        pid: Some(42),
        details: Some(PaneDetails {
            tab_position: 0,
            tab_name: "build".into(),
            command: Some("claude".into()),
            running: Some(vec!["claude".into()]),
            cwd: Some("/".into()),
            plugin_url: Some("file:/p.wasm".into()),
            held: true,
            fullscreen: true,
            selectable: true,
            geometry: geometry(),
        }),
    }
}

fn read() -> ReadResult {
    ReadResult {
        pane_id: PaneRef::terminal(3),
        tab_id: Some(1),
        text: "ok".into(),
        lines: 1,
        truncated: true,
        cursor: "c".into(),
        cursor_reset: true,
        pid: Some(42),
        state: Some(PaneState::Idle),
        // Between the plugin and the bridge only: the tool clears it
        // (`zellij_read`), and its type skips it in schemas.
        line_draft: false,
        prompt: Some("hello".into()),
    }
}

fn run() -> RunResult {
    RunResult {
        pane_id: PaneRef::terminal(3),
        tab_id: Some(1),
        exited: true,
        exit_code: Some(1),
        output: "ok".into(),
        truncated: true,
        elapsed_ms: 10,
        timed_out: true,
        killed: true,
        closed: true,
        cursor: Some("c".into()),
        recording: Some("/state/recordings/main-new.cast".into()),
    }
}

/// One event of each kind, as log lines.
fn every_event() -> Vec<serde_json::Map<String, Value>> {
    let pane_id = PaneRef::terminal(3);
    let name = || "main.tests".to_owned();
    let happened = [
        Happened::Queued {
            message: 1,
            to: name(),
            from: name(),
            text: "hi".into(),
            expires_at_ms: 1,
            client: "c".into(),
        },
        Happened::Delivered {
            message: 1,
            pane_id,
            attempts: 1,
        },
        Happened::Retry {
            message: 1,
            attempts: 1,
            why: "busy".into(),
            next_in_ms: 1,
        },
        Happened::Held {
            message: 1,
            pane_id,
            why: HoldReason::NoComposer,
        },
        Happened::Asking {
            pane_id,
            name: Some(name()),
        },
        Happened::Stalled {
            pane_id,
            name: Some(name()),
        },
        Happened::Replied {
            pane_id,
            name: Some(name()),
            message: Some(1),
            first_line: "done".into(),
        },
        Happened::Answered {
            pane_id,
            client: "c".into(),
        },
        Happened::Unsent {
            message: 1,
            pane_id,
            attempts: 1,
        },
        Happened::Expired {
            message: 1,
            attempts: 1,
        },
        Happened::Cancelled { message: 1 },
        Happened::Registered {
            name: name(),
            pane_id,
        },
        Happened::Exited {
            name: name(),
            pane_id,
            code: Some(1),
        },
        Happened::Closed {
            name: name(),
            pane_id,
        },
        Happened::RunExited {
            pane_id,
            code: Some(1),
        },
        Happened::Rotated,
    ];
    // One of each kind: a new kind does not compile until it is added above.
    let kinds: BTreeSet<&str> = happened.iter().map(kind).collect();
    assert_eq!(kinds.len(), happened.len());
    happened
        .into_iter()
        .enumerate()
        .map(|(seq, what)| {
            let line = LoggedEvent {
                seq: seq as u64,
                at_ms: 1,
                what,
            };
            match serde_json::to_value(line).unwrap() {
                Value::Object(line) => line,
                other => panic!("an event is an object: {other}"),
            }
        })
        .collect()
}

fn kind(happened: &Happened) -> &'static str {
    match happened {
        Happened::Queued { .. } => "queued",
        Happened::Delivered { .. } => "delivered",
        Happened::Retry { .. } => "retry",
        Happened::Held { .. } => "held",
        Happened::Asking { .. } => "asking",
        Happened::Stalled { .. } => "stalled",
        Happened::Replied { .. } => "replied",
        Happened::Answered { .. } => "answered",
        Happened::Unsent { .. } => "unsent",
        Happened::Expired { .. } => "expired",
        Happened::Cancelled { .. } => "cancelled",
        Happened::Registered { .. } => "registered",
        Happened::Exited { .. } => "exited",
        Happened::Closed { .. } => "closed",
        Happened::RunExited { .. } => "run_exited",
        Happened::Rotated => "rotated",
    }
}

/// The paths of the fields `schema` names (`panes[].geometry.rows`), its
/// references followed.
fn paths(schema: &Value, defs: &Value, at: &str, out: &mut BTreeSet<String>) {
    let Value::Object(map) = schema else {
        return;
    };
    if let Some(name) = map
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
    {
        paths(&defs[name], defs, at, out);
    }
    if let Some(Value::Object(properties)) = map.get("properties") {
        for (name, property) in properties {
            let path = format!("{at}{}{name}", if at.is_empty() { "" } else { "." });
            out.insert(path.clone());
            paths(property, defs, &path, out);
        }
    }
    if let Some(items) = map.get("items") {
        paths(items, defs, &format!("{at}[]"), out);
    }
    for branches in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(branches)) = map.get(branches) {
            for branch in branches {
                paths(branch, defs, at, out);
            }
        }
    }
}

/// The paths of the members of `value` that `schema` does not name, or
/// names with another type.
fn unnamed(value: &Value, schema: &Value, at: &str, out: &mut Vec<String>) {
    if !fits(value, schema) {
        out.push(format!("{at}: {value} is not of {schema}"));
        return;
    }
    match value {
        Value::Object(fields) => {
            for (name, field) in fields {
                let path = format!("{at}{}{name}", if at.is_empty() { "" } else { "." });
                match property(schema, name) {
                    Some(property) => unnamed(field, property, &path, out),
                    None => out.push(path),
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                match schema.get("items") {
                    Some(items) => unnamed(item, items, &format!("{at}[]"), out),
                    None => out.push(format!("{at}[] (its items have no schema)")),
                }
            }
        }
        _ => {}
    }
}

/// The schema `schema` gives its object's member `name`, in any branch.
fn property<'a>(schema: &'a Value, name: &str) -> Option<&'a Value> {
    if let Some(property) = schema.get("properties").and_then(|p| p.get(name)) {
        return Some(property);
    }
    ["anyOf", "oneOf"]
        .iter()
        .filter_map(|key| schema.get(key).and_then(Value::as_array))
        .flatten()
        .find_map(|branch| property(branch, name))
}

/// Whether `value` is of the type (or among the values) `schema` says.
fn fits(value: &Value, schema: &Value) -> bool {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values.contains(value);
    }
    if let Some(constant) = schema.get("const") {
        return constant == value;
    }
    let branches = ["anyOf", "oneOf"]
        .iter()
        .filter_map(|key| schema.get(key).and_then(Value::as_array))
        .flatten()
        .collect::<Vec<_>>();
    if !branches.is_empty() {
        return branches.iter().any(|branch| fits(value, branch));
    }
    match schema.get("type").and_then(Value::as_str) {
        None => true,
        Some("object") => value.is_object(),
        Some("array") => value.is_array(),
        Some("string") => value.is_string(),
        Some("integer") => value.is_i64() || value.is_u64(),
        Some("number") => value.is_number(),
        Some("boolean") => value.is_boolean(),
        Some(_) => false,
    }
}

#[test]
fn every_field_a_tool_can_return_is_in_its_output_schema() {
    let published = published();
    let every = every_tool();
    assert_eq!(
        published.keys().map(String::as_str).collect::<Vec<_>>(),
        every.keys().copied().collect::<Vec<_>>(),
        "every tool's results are written out in this test"
    );
    let mut missing = Vec::new();
    for (tool, returns) in &every {
        let schema = &published[*tool];
        assert_eq!(schema["type"], "object", "{tool} has an output schema");
        let mut named = BTreeSet::new();
        paths(schema, &Value::Null, "", &mut named);
        for field in returns.type_fields.difference(&named) {
            missing.push(format!("{tool}: {field} (in its type)"));
        }
        for result in &returns.results {
            let mut unnamed_here = Vec::new();
            unnamed(result, schema, "", &mut unnamed_here);
            missing.extend(unnamed_here.into_iter().map(|p| format!("{tool}: {p}")));
        }
    }
    assert!(
        missing.is_empty(),
        "fields missing from output schemas:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_fully_populated_results_hold_the_flags_listed_only_when_true() {
    let every = every_tool();
    let pane = &every["zellij_list_panes"].results[0]["panes"][0];
    for flag in ["exited", "floating", "is_self", "focused", "hidden", "held"] {
        assert_eq!(pane[flag], json!(true), "{flag}: {pane}");
    }
    assert_eq!(pane["exit_status"], 1);
    assert_eq!(pane["state"], "stalled");
}

#[test]
fn a_field_missing_from_a_schema_is_found() {
    let schema = json!({"type": "object", "properties": {
        "panes": {"type": "array", "items": {"type": "object", "properties": {
            "pane_id": {"type": "string"}
        }}},
        "count": {"type": "integer"}
    }});
    let result = json!({"panes": [{"pane_id": "terminal_1", "is_self": true}], "count": "x"});
    let mut missing = Vec::new();
    unnamed(&result, &schema, "", &mut missing);
    missing.sort();
    assert_eq!(missing.len(), 2, "{missing:?}");
    assert!(
        missing[0].starts_with("count: \"x\" is not of "),
        "{missing:?}"
    );
    assert_eq!(missing[1], "panes[].is_self");
    let untyped_items = json!({"type": "object", "properties": {"panes": {"type": "array"}}});
    let mut missing = Vec::new();
    unnamed(
        &result["panes"],
        &untyped_items["properties"]["panes"],
        "panes",
        &mut missing,
    );
    assert_eq!(missing, ["panes[] (its items have no schema)"]);
}
