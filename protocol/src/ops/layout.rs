//! Files in the editor, and layouts.

#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::TabRef;

use super::Opening;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct OpenFileArgs {
    /// File to open (absolute, or relative to cwd).
    pub path: String,
    /// 1-based line to open at.
    pub line: Option<usize>,
    pub cwd: Option<String>,
    #[serde(flatten)]
    pub at: Opening,
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
    pub tab_id: Option<usize>,
    /// KDL.
    pub layout: String,
}
