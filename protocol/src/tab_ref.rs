//! Tabs as agents name them: a stable `tab_id` (a JSON number) or a name (a string).

use serde::{Deserialize, Serialize};
use std::fmt;

/// A tab by stable id or by name. Names are resolved by the plugin; a name
/// shared by several tabs is an error, never a guess.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum TabRef {
    Id(usize),
    Name(String),
}

impl fmt::Display for TabRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TabRef::Id(id) => write!(f, "tab_id {id}"),
            TabRef::Name(name) => write!(f, "tab '{name}'"),
        }
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for TabRef {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Tab".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": ["integer", "string"],
            "description": "tab_id or name"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_ids_and_strings_are_names() {
        assert_eq!(serde_json::from_str::<TabRef>("3").unwrap(), TabRef::Id(3));
        assert_eq!(
            serde_json::from_str::<TabRef>("\"logs\"").unwrap(),
            TabRef::Name("logs".into())
        );
        assert!(serde_json::from_str::<TabRef>("-1").is_err());
    }
}
