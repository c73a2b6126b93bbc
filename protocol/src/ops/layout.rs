//! Files in the editor, and layouts.

#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{PaneRef, TabRef};

use super::Placement;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct OpenFileArgs {
    /// File to open (absolute, or relative to cwd).
    pub path: String,
    /// 1-based line to open at.
    pub line: Option<usize>,
    pub cwd: Option<String>,
    pub tab: Option<TabRef>,
    #[serde(default)]
    pub placement: Placement,
    #[serde(default)]
    pub focus: bool,
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub caller: Option<PaneRef>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct DumpLayoutArgs {
    /// One tab only; default the whole session.
    pub tab: Option<TabRef>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct DumpLayoutResult {
    #[serde(default)]
    pub session: String,
    pub tab_id: Option<usize>,
    /// KDL.
    pub layout: String,
}
