//! Each program's record as it wrote it (`bridge/tests/fixtures/records`,
//! two turns: a long reply, and a text, a shell call and a text), laid out
//! under a home as the program lays it out, read through [`Following`].

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use zellij_mcp_protocol::agent_programs::Record;

use super::place::Place;
use super::{Following, Started};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn long_reply() -> String {
    std::fs::read_to_string(fixtures().join("long-reply.md")).unwrap()
}

/// A home of its own, removed on drop.
struct Home(PathBuf);

impl Home {
    fn new(name: &str) -> Home {
        let dir = std::env::temp_dir().join(format!("zellij-mcp-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Home(dir)
    }

    /// The fixture file `from` at `to` under the home.
    fn put(&self, from: &str, to: &str) {
        let target = self.0.join(to);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(fixtures().join("records").join(from), target).unwrap();
    }

    fn place(&self, cwd: &str) -> Place {
        Place::new(&[("HOME", &self.0)], Some(Path::new(cwd)))
    }
}

impl Drop for Home {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Both turns read back, and a turn that is not there is none.
fn reads_both_turns(record: Record, place: Place, tool: &str) {
    let turn = |started: Started| {
        let mut following = Following::new(record, place.clone(), UNIX_EPOCH, started);
        following.turn().unwrap()
    };
    let long = turn(Started::By("[#7 from tester]".into())).unwrap();
    assert!(long.ended, "{record:?}");
    assert_eq!(long.reply(), long_reply(), "{record:?}");
    let tools = turn(Started::By("[#8 from tester]".into())).unwrap();
    let expected =
        format!("STANDIN-BEFORE-TOOL: running it.\n\n[tool: {tool}]\n\nSTANDIN-AFTER-TOOL: done.");
    assert_eq!(tools.reply(), expected, "{record:?}");
    assert_eq!(
        tools.prompt, "[#8 from tester] TOOLTEXT echo hi",
        "{record:?}"
    );
    assert_eq!(turn(Started::By("[#9 from tester]".into())), None);
    let last = turn(Started::Last).unwrap();
    assert_eq!(last.reply(), expected, "{record:?}: the last turn");
}

#[test]
fn claude_code_replies_are_read_from_its_project_folder() {
    let home = Home::new("claude");
    let id = "46f3b131-2f36-41cf-af89-adec7bf68bba.jsonl";
    let to = format!(".claude/projects/-tmp-lr-claude-work/{id}");
    home.put(&format!("claude-code/{id}"), &to);
    reads_both_turns(
        Record::ClaudeCode,
        home.place("/tmp/lr/claude-work"),
        "Bash",
    );
}

#[test]
fn codex_replies_are_read_from_its_newest_days() {
    let home = Home::new("codex");
    let file = "rollout-2026-11-27T17-11-53-01a21dfd-f7a8-7a40-9512-49cc023eb245.jsonl";
    home.put(
        &format!("codex/{file}"),
        &format!(".codex/sessions/2026/11/27/{file}"),
    );
    reads_both_turns(
        Record::Codex,
        home.place("/tmp/lr/codex-work"),
        "exec_command",
    );
}

#[test]
fn gemini_cli_replies_count_a_message_written_again_once() {
    let home = Home::new("gemini");
    let file = "session-2026-11-27T17-12-5b744875.jsonl";
    home.put(
        &format!("gemini-cli/{file}"),
        &format!(".gemini/tmp/gemini-work/chats/{file}"),
    );
    reads_both_turns(
        Record::GeminiCli,
        home.place("/tmp/lr/gemini-work"),
        "run_shell_command",
    );
}

#[test]
fn qwen_code_replies_are_read_from_its_chats() {
    let home = Home::new("qwen");
    let file = "31ead35f-52e3-4add-b6cb-bfdf240e2146.jsonl";
    home.put(
        &format!("qwen-code/{file}"),
        &format!(".qwen/projects/-tmp-lr-qwen-work/chats/{file}"),
    );
    reads_both_turns(
        Record::QwenCode,
        home.place("/tmp/lr/qwen-work"),
        "run_shell_command",
    );
}

#[test]
fn opencode_replies_are_read_from_its_database() {
    let home = Home::new("opencode");
    let dump =
        std::fs::read_to_string(fixtures().join("records/opencode/opencode-db.json")).unwrap();
    let dump: serde_json::Value = serde_json::from_str(&dump).unwrap();
    let path = home.0.join(".local/share/opencode/opencode.db");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let db = rusqlite::Connection::open(&path).unwrap();
    for (table, content) in dump["tables"].as_object().unwrap() {
        let columns: Vec<&str> = content["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        db.execute(
            &format!("CREATE TABLE {table} ({})", columns.join(", ")),
            [],
        )
        .unwrap();
        let marks = vec!["?"; columns.len()].join(", ");
        let insert = format!("INSERT INTO {table} VALUES ({marks})");
        for row in content["rows"].as_array().unwrap() {
            let values: Vec<rusqlite::types::Value> = columns
                .iter()
                .map(|c| match &row[*c] {
                    serde_json::Value::Null => rusqlite::types::Value::Null,
                    serde_json::Value::String(s) => rusqlite::types::Value::Text(s.clone()),
                    serde_json::Value::Number(n) if n.is_i64() => {
                        rusqlite::types::Value::Integer(n.as_i64().unwrap())
                    }
                    serde_json::Value::Number(n) => {
                        rusqlite::types::Value::Real(n.as_f64().unwrap())
                    }
                    other => rusqlite::types::Value::Text(other.to_string()),
                })
                .collect();
            db.execute(&insert, rusqlite::params_from_iter(values))
                .unwrap();
        }
    }
    drop(db);
    reads_both_turns(
        Record::Opencode,
        home.place("/tmp/lr/opencode-work"),
        "bash",
    );
}
