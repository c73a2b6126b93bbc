//! Claude Code, Codex CLI, Gemini CLI, opencode, Qwen Code and aider for
//! real in Zellij panes, each against the project's stand-in for its model API
//! ([`ModelApi`]), under a home of its own that skips every first-run
//! screen, in the mode where it asks before running a shell command; and
//! askbot, a home-made agent that only the person's description file tells.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};

use crate::{poll_for, workspace_root, AttachedClient, Mcp, Session};

/// The stand-in for the model API, killed on drop. With a requests log, each
/// request's last user text is a line of it.
pub struct ModelApi {
    child: std::process::Child,
    pub port: String,
    pub requests: PathBuf,
}

impl ModelApi {
    pub fn start(requests: &Path) -> ModelApi {
        use std::io::BufRead;
        let script = workspace_root().join("bridge/tests/clients/model_api.py");
        let mut child = std::process::Command::new("python3")
            .arg(script)
            .arg(requests)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("start the model API stand-in");
        let mut port = String::new();
        let stdout = child.stdout.take().unwrap();
        std::io::BufReader::new(stdout)
            .read_line(&mut port)
            .unwrap();
        ModelApi {
            child,
            port: port.trim().to_owned(),
            requests: requests.to_path_buf(),
        }
    }

    /// The last user texts of the agent's turns (not side requests, such
    /// as a title for the session) the model API was sent, in order.
    pub fn user_texts(&self) -> Vec<String> {
        let log = std::fs::read_to_string(&self.requests).unwrap_or_default();
        log.lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|v| v["turn"] == true)
            .filter_map(|v| v["last_user_text"].as_str().map(str::to_owned))
            .collect()
    }

    /// What the first turn whose last user text holds `text` carried of
    /// the conversation before it (its `REMEMBER-…` words).
    pub fn carried_by(&self, text: &str) -> Option<Vec<String>> {
        let log = std::fs::read_to_string(&self.requests).unwrap_or_default();
        let found = log
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|v| v["turn"] == true)
            .find(|v| {
                v["last_user_text"]
                    .as_str()
                    .is_some_and(|t| t.contains(text))
            })?;
        let carries = found["carries"].as_array()?.iter();
        Some(
            carries
                .filter_map(|c| c.as_str().map(str::to_owned))
                .collect(),
        )
    }

    /// When (Unix time, s) the last answer to a turn (not a side request,
    /// as Gemini CLI's router sends before the turn) whose last user text
    /// holds `text` sent its last byte.
    pub fn finished_at(&self, text: &str) -> Option<f64> {
        let log = std::fs::read_to_string(&self.requests).unwrap_or_default();
        log.lines()
            .rev()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|v| v["turn"] == true)
            .filter(|v| v["finished"].as_str().is_some_and(|t| t.contains(text)))
            .find_map(|v| v["at"].as_f64())
    }
}

impl Drop for ModelApi {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An agent program of a fixture, and how a person clears a draft there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Program {
    /// The newest Claude Code tested (`fixtures/claude-code`).
    ClaudeCode,
    Codex,
    GeminiCli,
    Opencode,
    QwenCode,
    /// From PyPI, in a venv of its own under `target/` (`make test-deps`).
    Aider,
    /// `fixtures/askbot`, described by [`ASKBOT`] in the person's file.
    Askbot,
}

/// askbot's description, as its author would write it in their
/// `agents.kdl`.
pub const ASKBOT: &str = r#"// askbot, our own agent: a prompt between two rules of ┄.
agent "askbot" {
    programs "askbot"
    prompt "»"
    composer start="^┄{20,}$" end="^┄{20,}$"
    working "^✻ thinking"
    asking "^Allow askbot to run this command\\?$"
    message multiline="paste"
}
"#;

/// Scrolls `pane` up in `client`'s view, as a person does (the pane
/// focused, scroll mode, a page up), and waits for the view to move: the
/// pane's screen shows `bottom`, a text on its last page, then no longer.
/// Zellij then holds the pane's output until the view comes back (Ctrl c
/// in scroll mode). `false` when there is nothing to scroll up to: the
/// program keeps no lines in Zellij's scrollback (it draws its whole
/// screen anew, or on the alternate screen), so no person can scroll its
/// pane in Zellij. Panics with the screen when the view does not move.
pub fn scroll_up(
    s: &Session,
    client: &mut AttachedClient,
    mcp: &Mcp,
    pane: &str,
    bottom: &str,
) -> bool {
    let dumped = |full: bool| String::from_utf8_lossy(&s.dump_screen(pane, full)).into_owned();
    let shows = || (in_view(s, pane, bottom), dumped(false));
    mcp.ok("zellij_focus", json!({"pane_id": pane}));
    let focused = poll_for(Duration::from_secs(10), || {
        let focus = s.client_focus();
        focus.split_whitespace().any(|w| w == pane).then_some(())
    });
    assert!(
        focused.is_some(),
        "the client views {pane}: {}",
        s.client_focus()
    );
    let rows = |full: bool| dumped(full).trim_end().lines().count();
    if rows(true) <= rows(false) {
        return false;
    }
    let drawn = poll_for(Duration::from_secs(10), || shows().0.then_some(()));
    assert!(drawn.is_some(), "{bottom:?} not on {pane}:\n{}", shows().1);
    // Scroll mode (Ctrl s), then a page up (PageUp) until the view moves.
    // A program that draws its whole screen anew may clear what there was
    // to scroll up to meanwhile: scroll mode is then left (Ctrl s again).
    client.type_keys(b"\x13");
    let moved = poll_for(Duration::from_secs(10), || {
        client.type_keys(b"\x1b[5~");
        if !shows().0 {
            return Some(true);
        }
        (rows(true) <= rows(false)).then_some(false)
    });
    match moved {
        Some(true) => true,
        Some(false) => {
            client.type_keys(b"\x13");
            false
        }
        None => panic!("{pane} not scrolled up:\n{}", shows().1),
    }
}

/// Whether Zellij's own view of `pane` shows `text` (however it is
/// wrapped and framed): a relayed pane's reads are live, its view may not
/// be.
pub fn in_view(s: &Session, pane: &str, text: &str) -> bool {
    let view = String::from_utf8_lossy(&s.dump_screen(pane, false)).into_owned();
    squeezed(&view).contains(&squeezed(text))
}

/// `text` without blanks and box lines: as it reads however a program
/// wraps and frames it.
fn squeezed(text: &str) -> String {
    let framing = |c: &char| c.is_whitespace() || ('\u{2500}'..='\u{259F}').contains(c);
    text.chars().filter(|c| !framing(c)).collect()
}

/// A first run of Claude Code that asks nothing: onboarding done, the
/// folder `project` trusted, the stand-in's `key` approved.
pub fn seed_claude_home(home: &Path, project: &Path, key: &str) {
    let seeded = json!({
        "hasCompletedOnboarding": true,
        "theme": "dark",
        "projects": {project.display().to_string(): {
            "hasTrustDialogAccepted": true,
            "hasCompletedProjectOnboarding": true,
        }},
        "customApiKeyResponses": {"approved": [&key[key.len() - 20..]], "rejected": []},
    });
    std::fs::create_dir_all(home).unwrap();
    std::fs::write(home.join(".claude.json"), seeded.to_string()).unwrap();
}

/// The key Claude Code is given for the stand-in.
pub const CLAUDE_KEY: &str = "sk-ant-stand-in-0123456789abcdefghij";

impl Program {
    /// The built-in description that tells its screen.
    pub fn description(self) -> &'static str {
        match self {
            Program::ClaudeCode => "claude-code",
            Program::Codex => "codex",
            Program::GeminiCli => "gemini-cli",
            Program::Opencode => "opencode",
            Program::QwenCode => "qwen-code",
            Program::Aider => "aider",
            Program::Askbot => "askbot",
        }
    }

    /// The fixture folder and the program in its `node_modules/.bin`.
    fn fixture(self) -> (&'static str, &'static str) {
        match self {
            Program::ClaudeCode => ("claude-code", "claude"),
            Program::Codex => ("codex", "codex"),
            Program::GeminiCli => ("gemini-cli", "gemini"),
            Program::Opencode => ("opencode", "opencode"),
            Program::QwenCode => ("qwen-code", "qwen"),
            Program::Aider => ("aider", "aider"),
            Program::Askbot => ("askbot", "askbot.mjs"),
        }
    }

    /// aider in its venv (`fixtures/aider` holds only its requirements).
    fn aider() -> PathBuf {
        workspace_root().join("target/agent-programs/aider/bin/aider")
    }

    /// Whether its fixture is installed (`make test-deps`).
    pub fn installed(self) -> bool {
        let (fixture, bin) = self.fixture();
        let folder = workspace_root().join("bridge/tests/fixtures").join(fixture);
        match self {
            Program::Askbot => folder.join(bin).exists(),
            Program::Aider => Program::aider().exists(),
            _ => folder.join("node_modules/.bin").join(bin).exists(),
        }
    }

    /// The program and its arguments before the test's own.
    fn launcher(self) -> Vec<String> {
        let (fixture, bin) = self.fixture();
        let folder = workspace_root().join("bridge/tests/fixtures").join(fixture);
        if self == Program::Askbot {
            return vec!["node".into(), folder.join(bin).display().to_string()];
        }
        let path = match self {
            Program::Aider => Program::aider(),
            _ => folder.join("node_modules/.bin").join(bin),
        };
        assert!(path.exists(), "run `make test-deps` ({fixture})");
        vec![path.display().to_string()]
    }

    /// Whether a message typed while it works waits for the turn's end
    /// (Codex steers the running turn with Enter; aider shows no prompt
    /// until the reply is done, and a CR typed meanwhile would answer its
    /// next question).
    pub fn holds_while_working(self) -> bool {
        matches!(self, Program::Codex | Program::Aider)
    }

    /// The command line that starts it in `cwd`, with a home of its own in
    /// the session's sandbox, against `api`.
    pub fn command(self, s: &Session, api: &ModelApi, cwd: &Path) -> Vec<String> {
        let home = s
            .sandbox()
            .root()
            .join(format!("{}-home", self.fixture().0));
        std::fs::create_dir_all(cwd).unwrap();
        let base = format!("http://127.0.0.1:{}", api.port);
        let mut env = vec![
            format!("HOME={}", home.display()),
            format!("XDG_CONFIG_HOME={}", home.join(".config").display()),
            "TERM=xterm-256color".into(),
        ];
        let mut args: Vec<String> = Vec::new();
        match self {
            Program::ClaudeCode => {
                seed_claude_home(&home, cwd, CLAUDE_KEY);
                env.extend([
                    format!("ANTHROPIC_BASE_URL={base}"),
                    format!("ANTHROPIC_API_KEY={CLAUDE_KEY}"),
                    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1".into(),
                    "DISABLE_AUTOUPDATER=1".into(),
                ]);
                args.extend(["--permission-mode", "default"].map(String::from));
            }
            Program::Codex => {
                let config = format!(
                    "model = \"standin-model\"\nmodel_provider = \"standin\"\ncheck_for_update_on_startup = false\n\n\
                     [model_providers.standin]\nname = \"Standin\"\nbase_url = \"{base}/v1\"\nenv_key = \"STANDIN_API_KEY\"\nwire_api = \"responses\"\n\n\
                     [projects.\"{}\"]\ntrust_level = \"trusted\"\n",
                    cwd.display()
                );
                write(&home.join(".codex/config.toml"), &config);
                env.push("STANDIN_API_KEY=dummy".into());
                args.extend(
                    ["--no-daemon", "-a", "on-request", "-s", "workspace-write"].map(String::from),
                );
            }
            Program::GeminiCli => {
                let settings = json!({
                    "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
                    "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
                    "ui": {"hideBanner": true, "hideTips": true, "showCompatibilityWarnings": false},
                    "privacy": {"usageStatisticsEnabled": false},
                });
                write(&home.join(".gemini/settings.json"), &settings.to_string());
                env.extend([
                    "GEMINI_API_KEY=dummy".into(),
                    format!("GOOGLE_GEMINI_BASE_URL={base}"),
                ]);
            }
            Program::QwenCode => {
                // A fresh home starts in "Auto mode" (a model approves tool
                // calls): "default" asks. Its follow-up suggestions stay on
                // (they stand in the empty composer like a draft); its
                // memory agents, which talk to the model after each turn, are
                // off; its bundled ripgrep comes without the executable bit.
                let settings = json!({
                    "security": {"auth": {"selectedType": "openai"}, "folderTrust": {"enabled": false}},
                    "general": {"enableAutoUpdate": false},
                    "tools": {"approvalMode": "default", "useRipgrep": false},
                    "ui": {"hideBanner": true, "hideTips": true, "enableUserFeedback": false, "enableFollowupSuggestions": true},
                    "memory": {"enableManagedAutoMemory": false, "enableManagedAutoDream": false, "enableAutoSkill": false},
                    "privacy": {"usageStatisticsEnabled": false},
                });
                write(&home.join(".qwen/settings.json"), &settings.to_string());
                env.extend([
                    "OPENAI_API_KEY=dummy".into(),
                    format!("OPENAI_BASE_URL={base}/v1"),
                    "OPENAI_MODEL=standin-model".into(),
                ]);
            }
            Program::Aider => {
                // The model's metadata spares a download of litellm's price
                // list at the start (and the warning about an unknown model);
                // the diff edit format is the one that offers to run a
                // reply's bash block (its prompt is then `diff>`).
                let metadata = json!({"openai/standin-model": {
                    "max_input_tokens": 128000, "max_output_tokens": 8192,
                    "input_cost_per_token": 0, "output_cost_per_token": 0,
                    "litellm_provider": "openai", "mode": "chat"
                }});
                let metadata_file = home.join("model-metadata.json");
                write(&metadata_file, &metadata.to_string());
                env.extend(
                    ["OPENAI_API_KEY=dummy", "LITELLM_LOCAL_MODEL_COST_MAP=True"].map(String::from),
                );
                let in_home = |name: &str| home.join(name).display().to_string();
                args.extend([
                    "--model".into(),
                    "openai/standin-model".into(),
                    "--openai-api-base".into(),
                    format!("{base}/v1"),
                    "--edit-format".into(),
                    "diff".into(),
                    "--model-metadata-file".into(),
                    metadata_file.display().to_string(),
                    // Its histories go to the home, not the work folder.
                    "--input-history-file".into(),
                    in_home(".aider.input.history"),
                    "--chat-history-file".into(),
                    in_home(".aider.chat.history.md"),
                ]);
                args.extend(
                    [
                        "--no-git",
                        "--no-analytics",
                        "--no-check-update",
                        "--no-show-release-notes",
                        "--no-show-model-warnings",
                        "--no-detect-urls",
                        "--disable-playwright",
                        "--map-tokens",
                        "0",
                    ]
                    .map(String::from),
                );
            }
            Program::Askbot => env.push(format!("ASKBOT_API={base}")),
            Program::Opencode => {
                let config = json!({
                    "model": "anthropic/claude-sonnet-4-5",
                    "small_model": "anthropic/claude-sonnet-4-5",
                    "autoupdate": false,
                    "share": "disabled",
                    "provider": {"anthropic": {"options": {"baseURL": format!("{base}/v1"), "apiKey": "dummy"}}},
                    "permission": {"bash": "ask", "edit": "ask"},
                });
                write(
                    &home.join(".config/opencode/opencode.json"),
                    &config.to_string(),
                );
                seed_opencode_packages(&home.join(".config/opencode"));
                env.extend(
                    [
                        "OPENCODE_DISABLE_MODELS_FETCH=1",
                        "OPENCODE_DISABLE_AUTOUPDATE=1",
                        "OPENCODE_DISABLE_LSP_DOWNLOAD=1",
                    ]
                    .map(String::from),
                );
            }
        }
        let mut command = vec!["env".to_owned()];
        command.extend(env);
        command.extend(self.launcher());
        command.extend(args);
        command
    }
}

/// Gives opencode's config folder the package opencode installs there, as
/// installed: opencode waits for that install before it loads any plugin
/// (zellij-mcp's hooks among them): 15 s from the registry in a fresh home,
/// 71 s without one. Its check looks only at the lock and `node_modules`.
fn seed_opencode_packages(config: &Path) {
    let fixture = workspace_root().join("bridge/tests/fixtures/opencode-config");
    let modules = fixture.join("node_modules");
    assert!(modules.exists(), "run `make test-deps` (opencode-config)");
    for file in ["package.json", "package-lock.json"] {
        std::fs::copy(fixture.join(file), config.join(file)).unwrap();
    }
    let link = config.join("node_modules");
    if std::fs::symlink_metadata(&link).is_err() {
        std::os::unix::fs::symlink(modules, link).unwrap();
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}
