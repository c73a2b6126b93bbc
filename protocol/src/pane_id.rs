//! Pane ids as agents see them: `terminal_N` or `plugin_N`; a bare `N` is a terminal.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PaneKind {
    Terminal,
    Plugin,
}

/// A pane in a session, by kind and Zellij's numeric id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PaneRef {
    pub kind: PaneKind,
    pub id: u32,
}

impl PaneRef {
    pub fn terminal(id: u32) -> Self {
        PaneRef {
            kind: PaneKind::Terminal,
            id,
        }
    }

    pub fn plugin(id: u32) -> Self {
        PaneRef {
            kind: PaneKind::Plugin,
            id,
        }
    }
}

impl fmt::Display for PaneRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            PaneKind::Terminal => write!(f, "terminal_{}", self.id),
            PaneKind::Plugin => write!(f, "plugin_{}", self.id),
        }
    }
}

impl FromStr for PaneRef {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        let (kind, digits) = if let Some(rest) = s.strip_prefix("terminal_") {
            (PaneKind::Terminal, rest)
        } else if let Some(rest) = s.strip_prefix("plugin_") {
            (PaneKind::Plugin, rest)
        } else {
            (PaneKind::Terminal, s)
        };
        digits
            .parse::<u32>()
            .ok()
            .filter(|_| !digits.starts_with('+'))
            .map(|id| PaneRef { kind, id })
            .ok_or_else(|| {
                format!("'{s}' is not a pane id; use terminal_N, plugin_N or a bare number N")
            })
    }
}

impl Serialize for PaneRef {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for PaneRef {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Text(String),
            Number(u32),
        }
        match Raw::deserialize(deserializer)? {
            Raw::Text(s) => s.parse().map_err(serde::de::Error::custom),
            Raw::Number(n) => Ok(PaneRef::terminal(n)),
        }
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for PaneRef {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "PaneId".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^(terminal_|plugin_)?[0-9]+$",
            "description": "terminal_N or plugin_N"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_all_accepted_forms() {
        assert_eq!("terminal_3".parse(), Ok(PaneRef::terminal(3)));
        assert_eq!("plugin_12".parse(), Ok(PaneRef::plugin(12)));
        assert_eq!(" 7 ".parse(), Ok(PaneRef::terminal(7)));
        let n: PaneRef = serde_json::from_str("5").unwrap();
        assert_eq!(n, PaneRef::terminal(5));
    }

    #[test]
    fn rejects_garbage_with_a_fix() {
        for bad in [
            "",
            "terminal_",
            "pane_1",
            "-1",
            "+1",
            "terminal_x",
            "plugin_1.5",
        ] {
            let err = bad.parse::<PaneRef>().unwrap_err();
            assert!(err.contains("terminal_N"), "{bad}: {err}");
        }
    }

    #[test]
    fn displays_and_serializes_as_kind_underscore_id() {
        assert_eq!(PaneRef::plugin(2).to_string(), "plugin_2");
        assert_eq!(
            serde_json::to_string(&PaneRef::terminal(4)).unwrap(),
            "\"terminal_4\""
        );
    }
}
