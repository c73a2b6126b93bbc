//! The size caps every request passes. The bridge checks them before it
//! sends a request, and the plugin again before it acts (and the request's
//! whole size before it decodes anything), so that one oversized call is a
//! `bad_request` naming the cap instead of a plugin that runs out of its
//! 16 MiB. The limits table (docs/limits.md) lists each one.

use serde_json::Value;

use crate::ops::{MAX_WAIT_PATTERNS, MAX_WRITE_BYTES};
use crate::{Error, ErrorBody, Request};

/// A whole request, as the JSON the plugin receives.
pub const MAX_REQUEST_BYTES: usize = 1024 * 1024;
/// Any string argument without a cap of its own (titles, names, paths,
/// filters, ids).
pub const MAX_FIELD_BYTES: usize = 4096;
/// Any list argument without a cap of its own.
pub const MAX_ITEMS: usize = 256;
/// Inline layout KDL.
pub const MAX_LAYOUT_BYTES: usize = 256 * 1024;
/// One item of a command's argv (a `sh -c` script is one).
pub const MAX_ARG_BYTES: usize = 64 * 1024;
/// One wait pattern (`pattern`, or one of `stop`).
pub const MAX_PATTERN_BYTES: usize = 1024;

/// Fields whose strings may be longer than [`MAX_FIELD_BYTES`].
const LONG_FIELDS: &[(&str, usize)] = &[
    ("text", MAX_WRITE_BYTES),
    ("layout", MAX_LAYOUT_BYTES),
    ("command", MAX_ARG_BYTES),
    // A wait's own baseline: the last row of a screen, handed back on resume.
    ("growing", MAX_ARG_BYTES),
    ("pattern", MAX_PATTERN_BYTES),
    ("stop", MAX_PATTERN_BYTES),
];

/// Lists whose length has a cap of its own.
const LONG_LISTS: &[(&str, usize)] = &[("stop", MAX_WAIT_PATTERNS - 1)];

/// `bad_request` when the request's JSON is over [`MAX_REQUEST_BYTES`].
pub fn check_request_size(bytes: usize) -> Result<(), ErrorBody> {
    if bytes <= MAX_REQUEST_BYTES {
        return Ok(());
    }
    Err(ErrorBody::from(Error::BadRequest {
        problem: format!(
            "the request is {bytes} bytes; a request takes at most {MAX_REQUEST_BYTES}"
        ),
        fix: "send less in one call (split long text over several writes)".into(),
    }))
}

/// The whole request and each of its fields, as the bridge checks them
/// before sending.
pub fn check_request(request: &Request) -> Result<(), ErrorBody> {
    check_fields(&request.args)?;
    let bytes = serde_json::to_vec(request).map_or(usize::MAX, |json| json.len());
    check_request_size(bytes)
}

/// Checks every string and list in an op's arguments against its cap.
pub fn check_fields(args: &Value) -> Result<(), ErrorBody> {
    check_value(args, "args")
}

fn check_value(value: &Value, field: &str) -> Result<(), ErrorBody> {
    match value {
        Value::String(text) => {
            let cap = cap_of(LONG_FIELDS, field, MAX_FIELD_BYTES);
            if text.len() > cap {
                return Err(over(field, format!("{} bytes", text.len()), cap, "bytes"));
            }
            Ok(())
        }
        Value::Array(items) => {
            let cap = cap_of(LONG_LISTS, field, MAX_ITEMS);
            if items.len() > cap {
                return Err(over(field, format!("{} items", items.len()), cap, "items"));
            }
            items.iter().try_for_each(|item| check_value(item, field))
        }
        Value::Object(members) => members
            .iter()
            .try_for_each(|(name, member)| check_value(member, name)),
        _ => Ok(()),
    }
}

fn cap_of(caps: &[(&str, usize)], field: &str, default: usize) -> usize {
    caps.iter()
        .find(|(name, _)| *name == field)
        .map_or(default, |(_, cap)| *cap)
}

fn over(field: &str, size: String, cap: usize, unit: &str) -> ErrorBody {
    ErrorBody::from(Error::BadRequest {
        problem: format!("`{field}` is {size}; it takes at most {cap} {unit}"),
        fix: format!("shorten `{field}` (docs/limits.md lists every cap)"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;
    use serde_json::json;

    #[test]
    fn every_string_and_list_has_a_cap_and_the_error_names_it() {
        assert!(check_fields(&json!({"title": "x".repeat(MAX_FIELD_BYTES)})).is_ok());
        let e = check_fields(&json!({"title": "x".repeat(MAX_FIELD_BYTES + 1)})).unwrap_err();
        assert_eq!(e.code, ErrorCode::BadRequest);
        assert!(
            e.message.contains("`title`") && e.message.contains("4096"),
            "{e}"
        );
        let nested = json!({"at": {"tab": "y".repeat(5000)}});
        assert!(check_fields(&nested).unwrap_err().message.contains("`tab`"));
        let keys = json!({"keys": vec!["Enter"; MAX_ITEMS + 1]});
        assert!(check_fields(&keys).unwrap_err().message.contains("items"));
    }

    #[test]
    fn long_fields_take_their_own_caps() {
        assert!(check_fields(&json!({"text": "x".repeat(100_000)})).is_ok());
        assert!(check_fields(&json!({"command": ["sh", "-c", "x".repeat(10_000)]})).is_ok());
        let stops = vec!["a"; MAX_WAIT_PATTERNS];
        assert!(check_fields(&json!({"stop": stops})).is_err());
        let long = "p".repeat(MAX_PATTERN_BYTES + 1);
        assert!(check_fields(&json!({"pattern": long})).is_err());
    }

    #[test]
    fn the_whole_request_is_capped() {
        assert!(check_request_size(MAX_REQUEST_BYTES).is_ok());
        let e = check_request_size(3 << 20).unwrap_err();
        assert!(e.message.contains("3145728"), "{e}");
    }
}
