//! Input and output schemas as published in `tools/list`, made compact: the
//! whole list must stay small enough for an agent's context (at most 24 KiB,
//! which a test keeps, with every field each tool can return named).

use std::sync::Arc;

use rmcp::handler::server::common::schema_for_type;
use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde_json::Value;

use zellij_mcp_protocol::ops::{PaneState, ReadEventsResult};
use zellij_mcp_protocol::{PaneRef, TabRef};

use super::{FromSession, InSession};

/// Keywords that only repeat what the type already says, or what the
/// server checks with a clearer error (a pane id's `pattern`).
const NOISE: &[&str] = &["$schema", "title", "format", "pattern"];
/// Output schemas name and type every field of a result; its name and the
/// tool's description say what it means (`tools/list` has no room for a
/// description per field), which are always there needs no saying (a
/// client checks a result against the types, not for missing fields), nor
/// the bound of a Rust integer type (`u16`).
const OUTPUT_NOISE: &[&str] = &["description", "default", "required", "maximum"];

/// The input schema of a tool taking `T` plus `session`. An optional
/// argument is simply not required (no `null` type): clients that map
/// schemas onto a one-type dialect (Gemini, OpenAPI 3.0) reject type arrays.
pub fn input<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    let mut schema = compact(schema_for_type::<InSession<T>>(), &[]);
    let map = Arc::make_mut(&mut schema);
    one_type_each(map);
    inline_defs(map);
    let shared = [
        schema_for_type::<PaneRef>(),
        schema_for_type::<TabRef>(),
        schema_for_type::<PaneState>(),
    ];
    let shared: Vec<&Value> = shared.iter().filter_map(|s| s.get("description")).collect();
    said_once(map, &shared);
    schema
}

/// Drops the description a property has from its type alone when many
/// tools take that type (a pane id, a tab, a state): the server's
/// instructions say once what a pane id and a tab are, and a state's
/// values are its `enum`.
fn said_once(schema: &mut JsonObject, shared: &[&Value]) {
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for property in properties.values_mut() {
            if let Value::Object(property) = property {
                if property
                    .get("description")
                    .is_some_and(|d| shared.contains(&d))
                {
                    property.remove("description");
                }
                said_once(property, shared);
            }
        }
    }
}

/// The output schema of a tool returning `T`: every field it can return,
/// nested ones too (a pane of a list, its flags only there when true), as
/// `properties`, so that an agent knows each one exists. A field without a
/// value is left out of the result rather than `null` (see `FromSession`),
/// so no type here includes `null`: one-type dialects take it as it is.
pub fn output<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    let mut schema = compact(schema_for_type::<T>(), OUTPUT_NOISE);
    let map = Arc::make_mut(&mut schema);
    one_type_each(map);
    inline_defs(map);
    one_enum(map);
    schema
}

/// The output schema of `zellij_read_events`: its events are the log's
/// lines as they are (JSON objects), typed here as one line of any kind.
pub fn events_output() -> Arc<JsonObject> {
    let mut schema = output_in_session::<ReadEventsResult>();
    let line = Value::Object((*output::<EventLine>()).clone());
    let events = Arc::make_mut(&mut schema)
        .get_mut("properties")
        .and_then(|properties| properties.get_mut("events"));
    if let Some(Value::Object(events)) = events {
        events.insert("items".into(), line);
    }
    schema
}

/// One line of the session's event log: every field of every kind of event
/// (`Happened`'s variants together), each there for the kinds that have it.
/// A test keeps it in step with the events.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct EventLine {
    seq: u64,
    at_ms: u64,
    event: String,
    message: u64,
    to: String,
    from: String,
    text: String,
    expires_at_ms: u64,
    client: String,
    pane_id: PaneRef,
    attempts: u32,
    /// A retry's reason, or a hold's (asking, draft, no_composer, working).
    why: String,
    next_in_ms: u64,
    name: String,
    first_line: String,
    code: i32,
}

/// Each `$ref` replaced by the type it names, and `$defs` gone: a client
/// that checks results against the schema (the Python SDK does, on every
/// call) resolves a reference per item of a list, which costs more than
/// the rest of its check together; one-type dialects (Gemini) take no
/// references; and no type is used twice in one schema, so a reference
/// saves no bytes (a definition's name and reference cost about 40).
fn inline_defs(schema: &mut JsonObject) {
    let Some(Value::Object(defs)) = schema.remove("$defs") else {
        return;
    };
    fn inline(value: &mut Value, defs: &JsonObject, depth: usize) {
        match value {
            Value::Object(map) => {
                let named = map.get("$ref").and_then(Value::as_str);
                let def = named
                    .and_then(|r| r.strip_prefix("#/$defs/"))
                    .and_then(|name| defs.get(name));
                match def {
                    Some(def) if depth < 8 => {
                        map.remove("$ref");
                        if let Value::Object(def) = def {
                            for (key, value) in def {
                                map.entry(key.clone()).or_insert_with(|| value.clone());
                            }
                        }
                        inline(value, defs, depth + 1);
                    }
                    _ => map.values_mut().for_each(|v| inline(v, defs, depth)),
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| inline(v, defs, depth)),
            _ => {}
        }
    }
    let mut root = Value::Object(std::mem::take(schema));
    inline(&mut root, &defs, 0);
    if let Value::Object(map) = root {
        *schema = map;
    }
    // A type that holds itself stays a reference.
    if Value::Object(schema.clone())
        .to_string()
        .contains(r#""$ref""#)
    {
        schema.insert("$defs".into(), Value::Object(defs));
    }
}

/// A choice of string values split into branches (`WaitOutcome`, to
/// describe one of them; descriptions are not in output schemas) as one
/// `enum`.
fn one_enum(schema: &mut JsonObject) {
    for key in ["oneOf", "anyOf"] {
        let values = match schema.get(key) {
            Some(Value::Array(branches)) => branches
                .iter()
                .map(string_values)
                .collect::<Option<Vec<_>>>(),
            _ => None,
        };
        if let Some(values) = values {
            schema.remove(key);
            schema.insert("type".into(), "string".into());
            schema.insert("enum".into(), Value::Array(values.concat()));
        }
    }
    below(schema, one_enum);
}

/// The values of a branch that is only a string `enum` or `const`.
fn string_values(branch: &Value) -> Option<Vec<Value>> {
    let branch = branch.as_object()?;
    let only =
        |keys: &[&str]| branch.len() == keys.len() && keys.iter().all(|k| branch.contains_key(*k));
    if branch.get("type")? != "string" {
        return None;
    }
    match (branch.get("enum"), branch.get("const")) {
        (Some(Value::Array(values)), None) if only(&["type", "enum"]) => Some(values.clone()),
        (None, Some(value)) if only(&["type", "const"]) => Some(vec![value.clone()]),
        _ => None,
    }
}

/// No `null` types (see [`not_null`]), and a choice of types as `anyOf`
/// branches of one type each (`tab`: integer or string), which one-type
/// dialects take.
fn one_type_each(schema: &mut JsonObject) {
    not_null(schema);
    split_type_lists(schema);
}

fn split_type_lists(schema: &mut JsonObject) {
    if let Some(Value::Array(types)) = schema.get("type") {
        let branches: Vec<Value> = types
            .iter()
            .map(|t| Value::Object([("type".to_owned(), t.clone())].into_iter().collect()))
            .collect();
        schema.remove("type");
        schema.insert("anyOf".into(), Value::Array(branches));
    }
    below(schema, split_type_lists);
}

/// Calls `f` on every object right below `schema`, in arrays too.
fn below(schema: &mut JsonObject, f: fn(&mut JsonObject)) {
    for child in schema.values_mut() {
        match child {
            Value::Object(child) => f(child),
            Value::Array(items) => items.iter_mut().for_each(|item| {
                if let Value::Object(item) = item {
                    f(item)
                }
            }),
            _ => {}
        }
    }
}

/// The output schema of a tool returning `T` plus its session.
pub fn output_in_session<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    output::<FromSession<T>>()
}

fn compact(schema: Arc<JsonObject>, extra_noise: &[&str]) -> Arc<JsonObject> {
    let mut map = (*schema).clone();
    // The root describes the Rust type, not the tool.
    map.remove("description");
    let mut value = Value::Object(map);
    strip(&mut value, extra_noise);
    match value {
        Value::Object(map) => Arc::new(map),
        _ => schema,
    }
}

/// Removes noise from a schema object and every schema below it.
fn strip(value: &mut Value, extra_noise: &[&str]) {
    match value {
        Value::Object(map) => {
            for key in NOISE.iter().chain(extra_noise) {
                map.remove(*key);
            }
            // An absent flag is false and an absent list empty: saying so
            // says nothing new.
            let empty = |v: &Value| v == &Value::Bool(false) || v == &Value::Array(vec![]);
            if map.get("default").is_some_and(empty) {
                map.remove("default");
            }
            // Counts and sizes are unsigned; "minimum: 0" says nothing new.
            if map.get("minimum") == Some(&Value::from(0)) {
                map.remove("minimum");
            }
            if map.get("default") == Some(&Value::Null) {
                map.remove("default");
            }
            for (key, child) in map.iter_mut() {
                match (key.as_str(), child) {
                    // Maps from names to schemas: the names are not keywords.
                    ("properties" | "$defs", Value::Object(named)) => {
                        named.values_mut().for_each(|s| strip(s, extra_noise))
                    }
                    (_, child) => strip(child, extra_noise),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|s| strip(s, extra_noise)),
        _ => {}
    }
}

/// Drops `null` from the types of properties that are not required, in
/// this object schema and every one below it.
fn not_null(map: &mut JsonObject) {
    let required: Vec<Value> = match map.get("required") {
        Some(Value::Array(names)) => names.clone(),
        _ => Vec::new(),
    };
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            if !required.contains(&Value::from(name.as_str())) {
                if let Value::Object(property) = property {
                    drop_null_type(property);
                }
            }
        }
    }
    below(map, not_null);
}

/// `{"type": [T, "null"]}` becomes `{"type": T}`, and `{"anyOf": [S, {"type":
/// "null"}]}` becomes `S`.
fn drop_null_type(schema: &mut JsonObject) {
    let null = Value::from("null");
    if let Some(Value::Array(types)) = schema.get_mut("type") {
        types.retain(|t| *t != null);
        if let [one] = types.as_slice() {
            let one = one.clone();
            schema.insert("type".into(), one);
        }
    }
    let Some(Value::Array(any_of)) = schema.get_mut("anyOf") else {
        return;
    };
    any_of.retain(|s| s.get("type") != Some(&null));
    if let [Value::Object(one)] = any_of.as_slice() {
        let one = one.clone();
        schema.remove("anyOf");
        schema.extend(one);
    }
}

#[cfg(test)]
mod fields;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use zellij_mcp_protocol::ops::ReadArgs;

    #[test]
    fn drops_noise_but_keeps_meaning() {
        let schema = Value::Object((*input::<ReadArgs>()).clone());
        let text = schema.to_string();
        assert!(!text.contains("\"format\""), "{text}");
        assert!(!text.contains("$schema"), "{text}");
        assert!(text.contains("\"pane_id\""), "{text}");
        assert!(text.contains("\"session\""), "{text}");
        assert_eq!(schema["required"], serde_json::json!(["pane_id"]));
    }

    #[test]
    fn optional_arguments_have_one_type_and_required_ones_keep_theirs() {
        use zellij_mcp_protocol::ops::{NewPaneArgs, RunArgs};
        let schema = Value::Object((*input::<RunArgs>()).clone());
        assert_eq!(schema["properties"]["timeout_ms"]["type"], "integer");
        assert_eq!(schema["properties"]["session"]["type"], "string");
        assert_eq!(
            schema["properties"]["tab"]["anyOf"],
            json!([{"type": "integer"}, {"type": "string"}]),
            "a choice of types is a choice of branches"
        );
        let text = Value::Object((*input::<NewPaneArgs>()).clone()).to_string();
        assert!(!text.contains("null"), "{text}");
    }

    #[test]
    fn a_property_named_like_a_keyword_stays() {
        use zellij_mcp_protocol::ops::SessionInfoResult;
        let schema = Value::Object((*output_in_session::<SessionInfoResult>()).clone());
        assert!(schema["properties"]["panes"].is_object(), "{schema}");
        assert!(!schema.to_string().contains("description"));
    }

    #[test]
    fn nested_output_objects_name_their_fields_in_place() {
        use zellij_mcp_protocol::ops::ListPanesResult;
        let schema = Value::Object((*output_in_session::<ListPanesResult>()).clone());
        let pane = &schema["properties"]["panes"]["items"]["properties"];
        for flag in ["exited", "floating", "is_self", "focused", "hidden", "held"] {
            assert_eq!(pane[flag], json!({"type": "boolean"}), "{flag}: {schema}");
        }
        assert_eq!(pane["exit_status"]["type"], "integer", "{schema}");
        assert!(pane["state"]["enum"]
            .as_array()
            .is_some_and(|states| states.contains(&json!("stalled"))));
        assert_eq!(pane["geometry"]["properties"]["rows"]["type"], "integer");
        assert!(!schema.to_string().contains("$ref"), "{schema}");
        assert!(schema.get("$defs").is_none(), "{schema}");
    }
}
