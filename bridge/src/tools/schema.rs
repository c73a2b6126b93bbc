//! Input and output schemas as published in `tools/list`, made compact: the
//! whole list must stay small enough for an agent's context (under 24 KB).

use std::sync::Arc;

use rmcp::handler::server::common::schema_for_type;
use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde_json::Value;

use super::{FromSession, InSession};

/// Keywords that only repeat what the type already says, or what the
/// server checks with a clearer error (a pane id's `pattern`).
const NOISE: &[&str] = &["$schema", "title", "format", "pattern"];
/// Output schemas describe the shape of a result; the tool description
/// explains its fields, and which are always there needs no saying (a
/// client checks a result against the types, not for missing fields).
const OUTPUT_NOISE: &[&str] = &["description", "default", "required"];

/// The input schema of a tool taking `T` plus `session`. An optional
/// argument is simply not required (no `null` type): clients that map
/// schemas onto a one-type dialect (Gemini, OpenAPI 3.0) reject type arrays.
pub fn input<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    let mut schema = compact(schema_for_type::<InSession<T>>(), &[]);
    one_type_each(Arc::make_mut(&mut schema));
    schema
}

/// The output schema of a tool returning `T`. A field without a value is
/// left out of the result rather than `null` (see `FromSession`), so no
/// type here includes `null`: one-type dialects take it as it is.
pub fn output<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    let mut schema = compact(schema_for_type::<T>(), OUTPUT_NOISE);
    let map = Arc::make_mut(&mut schema);
    one_type_each(map);
    shallow(map);
    inline_defs(map);
    untyped_items(map);
    schema
}

/// Output objects nested in a result (a pane of a list, a client) are
/// typed `object` without their fields: the tool's description names
/// them, and listing every field of every nested type took a tenth of
/// `tools/list`.
fn shallow(schema: &mut JsonObject) {
    if let Some(Value::Object(defs)) = schema.get_mut("$defs") {
        for def in defs.values_mut() {
            if let Value::Object(def) = def {
                def.remove("properties");
            }
        }
    }
}

/// Each `$ref` replaced by the (shallow) type it names, and `$defs` gone:
/// a client that checks results against the schema (the Python SDK does,
/// on every call) resolves a reference per item of a list, which cost more
/// than the rest of its check together.
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

/// A list of objects is typed `array` alone: the tool's description names
/// its items' fields, and a client that checks results (the Python SDK)
/// would check each item for being an object, 0.4 ms for 100 panes.
fn untyped_items(schema: &mut JsonObject) {
    let object = serde_json::json!({"type": "object"});
    if schema.get("type").and_then(Value::as_str) == Some("array")
        && schema.get("items") == Some(&object)
    {
        schema.remove("items");
    }
    below(schema, untyped_items);
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
    fn nested_output_objects_are_typed_without_their_fields() {
        use zellij_mcp_protocol::ops::ListPanesResult;
        let schema = Value::Object((*output_in_session::<ListPanesResult>()).clone());
        let panes = &schema["properties"]["panes"];
        assert_eq!(panes["type"], "array");
        assert_eq!(*panes, json!({"type": "array"}));
        assert!(!schema.to_string().contains("$ref"), "{schema}");
        assert!(schema.get("$defs").is_none(), "{schema}");
    }
}
