//! Agent names: dotted paths such as `main.feature.auth`, each part letters,
//! digits, `_` or `-`. The parent of `main.feature.auth` is `main.feature`.

use crate::{Error, ErrorBody};

/// Longest name, in bytes.
pub const MAX_AGENT_NAME: usize = 128;
/// Stands for the sender's parent where a message is addressed; never a name.
pub const PARENT: &str = "parent";
/// The sender of the server's own messages (child events); never a name.
pub const SERVER_NAME: &str = "zellij-mcp";
/// The sender of a message from outside any pane that gave no name.
pub const OUTSIDE_SENDER: &str = "outside";

/// `bad_request`, with the fix, unless `name` is a valid agent name.
pub fn check_agent_name(name: &str) -> Result<(), ErrorBody> {
    let part_ok = |part: &str| {
        !part.is_empty()
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    };
    let why = if name.len() > MAX_AGENT_NAME {
        Some(format!("is over {MAX_AGENT_NAME} bytes"))
    } else if name == PARENT {
        Some(format!("'{PARENT}' is reserved (it addresses the parent)"))
    } else if name == SERVER_NAME || name == OUTSIDE_SENDER {
        Some(format!("'{name}' is reserved (a sender the server names)"))
    } else if !name.split('.').all(part_ok) {
        Some("is not dotted parts of letters, digits, _ or -".to_owned())
    } else {
        None
    };
    match why {
        None => Ok(()),
        Some(why) => Err(ErrorBody::from(Error::BadRequest {
            problem: format!("agent name '{name}' {why}"),
            fix: "pass a dotted name such as main.feature.auth".into(),
        })),
    }
}

/// The parent of a name: everything before its last dot.
pub fn parent_of(name: &str) -> Option<&str> {
    name.rsplit_once('.').map(|(parent, _)| parent)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    #[test]
    fn dotted_names_are_valid_and_have_parents() {
        for name in ["main", "main.feature.auth", "a-b_c.D9"] {
            assert!(check_agent_name(name).is_ok(), "{name}");
        }
        assert_eq!(parent_of("main.feature.auth"), Some("main.feature"));
        assert_eq!(parent_of("main"), None);
    }

    #[test]
    fn bad_names_say_how_to_fix_them() {
        let long = "a".repeat(MAX_AGENT_NAME + 1);
        for name in [
            "",
            ".main",
            "main.",
            "a..b",
            "has space",
            "ümlaut",
            "parent",
            &long,
        ] {
            let error = check_agent_name(name).unwrap_err();
            assert_eq!(error.code, ErrorCode::BadRequest, "{name}");
            assert!(error.hint.unwrap().contains("main.feature.auth"));
        }
    }
}
