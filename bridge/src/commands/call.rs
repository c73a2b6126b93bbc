//! `zellij-mcp call` and `zellij-mcp tools`: any tool from a shell, through
//! the MCP server itself (served in this process to an MCP client in this
//! process), so a call here is a tool call like any other: the same
//! checks, policy and audit log. Pane and tab lists print as tables, a
//! read as its text, anything else as JSON; `--json` prints the result as
//! JSON. The exit code says whether the tool failed.

use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject, Tool};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;

use crate::tools::tables;
use crate::tools::ZellijMcp;

#[derive(Debug, clap::Args)]
pub struct CallArgs {
    /// The tool, e.g. zellij_list_panes.
    pub tool: String,
    /// Arguments as key=value (a value that parses as JSON is taken as
    /// JSON: 12, true, ["Enter"]), or one JSON object.
    pub arguments: Vec<String>,
    /// Print the tool's result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs the call; the exit code (0 done, 1 the tool failed, 2 bad input).
pub async fn call(server: ZellijMcp, args: CallArgs) -> i32 {
    let arguments = match parse_arguments(&args.arguments) {
        Ok(arguments) => arguments,
        Err(problem) => {
            eprintln!("zellij-mcp call: {problem}");
            return 2;
        }
    };
    let settled = server.clone();
    let client = match connect(server).await {
        Ok(client) => client,
        Err(problem) => {
            eprintln!("zellij-mcp call: {problem}");
            return 2;
        }
    };
    let params = CallToolRequestParams::new(args.tool.clone()).with_arguments(arguments);
    let result = match client.call_tool(params).await {
        Ok(result) => result,
        Err(e) => {
            eprintln!("zellij-mcp call: {e}");
            return 2;
        }
    };
    let _ = client.cancel().await;
    settled.settle().await;
    if result.is_error == Some(true) {
        eprintln!("{}", text_of(&result));
        return 1;
    }
    let structured = result.structured_content.clone();
    match (args.json, structured) {
        (true, Some(value)) => println!("{}", pretty(&value)),
        (false, Some(value)) => print!("{}", human(&args.tool, &value)),
        (_, None) => println!("{}", text_of(&result)),
    }
    0
}

/// `zellij-mcp tools`: each tool with the first sentence of its description.
pub async fn list(server: ZellijMcp) -> i32 {
    let client = match connect(server).await {
        Ok(client) => client,
        Err(problem) => {
            eprintln!("zellij-mcp tools: {problem}");
            return 2;
        }
    };
    let tools = client.list_all_tools().await.unwrap_or_default();
    let _ = client.cancel().await;
    let width = tools.iter().map(|t| t.name.len()).max().unwrap_or(0);
    for tool in &tools {
        println!("{:width$}  {}", tool.name, summary(tool));
    }
    0
}

/// The server on one end of an in-process pipe, an MCP client on the other.
async fn connect(server: ZellijMcp) -> Result<RunningService<RoleClient, ()>, String> {
    let (client_end, server_end) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(tokio::io::split(server_end)).await {
            let _ = running.waiting().await;
        }
    });
    ().serve(tokio::io::split(client_end))
        .await
        .map_err(|e| format!("the server did not start: {e}"))
}

/// `key=value …` or one JSON object, as a tool's arguments.
fn parse_arguments(arguments: &[String]) -> Result<JsonObject, String> {
    if let [only] = arguments {
        if only.trim_start().starts_with('{') {
            return match serde_json::from_str(only) {
                Ok(Value::Object(object)) => Ok(object),
                _ => Err(format!("{only} is not a JSON object")),
            };
        }
    }
    let mut object = JsonObject::new();
    for argument in arguments {
        let Some((key, value)) = argument.split_once('=') else {
            return Err(format!(
                "'{argument}' is not key=value (or pass the arguments as one JSON object)"
            ));
        };
        let value = serde_json::from_str(value).unwrap_or_else(|_| Value::from(value));
        object.insert(key.to_owned(), value);
    }
    Ok(object)
}

fn summary(tool: &Tool) -> String {
    let description = tool.description.as_deref().unwrap_or_default();
    let first = description.split(". ").next().unwrap_or(description);
    first.trim_end_matches('.').to_owned()
}

/// A result's text content, one block a line.
pub fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// A result as a person reads it.
fn human(tool: &str, result: &Value) -> String {
    if let Some(table) = tables::of(tool, result) {
        return table;
    }
    match tool {
        "zellij_read" => {
            let text = result["text"].as_str().unwrap_or_default();
            format!("{}\n", text.trim_end_matches('\n'))
        }
        _ => format!("{}\n", pretty(result)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_key_values_with_json_values_or_one_object() {
        let args = |list: &[&str]| {
            parse_arguments(&list.iter().map(|s| s.to_string()).collect::<Vec<_>>())
        };
        let parsed = args(&[
            "pane_id=terminal_1",
            "tail_lines=5",
            "keys=[\"Enter\"]",
            "text=a=b",
        ])
        .unwrap();
        assert_eq!(
            Value::Object(parsed),
            serde_json::json!({"pane_id": "terminal_1", "tail_lines": 5, "keys": ["Enter"], "text": "a=b"})
        );
        let object = args(&[r#"{"pane_id": "terminal_2"}"#]).unwrap();
        assert_eq!(object["pane_id"], "terminal_2");
        assert!(args(&["pane_id"]).is_err());
        assert!(args(&["{not json"]).is_err());
    }
}
