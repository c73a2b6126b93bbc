//! Agents tell their own state through the hooks zellij-mcp gives each
//! program it starts, for that launch only (Gemini CLI, which takes none
//! so, through the ones `zellij-mcp setup` adds to its settings; opencode
//! and Codex started by hand, through the plugin file and the trusted
//! hooks setup writes): the
//! person's own hooks still run; a turn's end and a question asked are
//! told while a person has the pane scrolled up (Zellij then holds its
//! output, so its screen shows nothing new, and the board says the hooks
//! told it) or views another tab, and
//! `zellij_ask` ends with the turn the hook told; with its description's
//! screen patterns made never to match, each program's states still come
//! from its hooks alone; with its hooks turned off by the person's own
//! switch, each program is read from its screen as before, and a Gemini
//! CLI turn that ends while a person has its pane scrolled up is told by
//! its relay's live screen.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::claude::{open_claude, until_sent, ModelApi, NEWEST};
use common::{agent_row, bridge, mcp, open_agent, session, until_state};
use serde_json::{json, Value};
use zellij_mcp_harness::programs::{in_view, scroll_up, Program};
use zellij_mcp_harness::{poll_for, wait_for, workspace_root, AttachedClient, Mcp, Session};

/// How long a hook's report may take to be told: a loaded machine may
/// take seconds to start a program's turn and to run its hook.
const TOLD_WITHIN: Duration = Duration::from_secs(30);

fn ask(to: &str, text: &str) -> Value {
    json!({"to": to, "text": text, "from": "lead", "timeout_s": 120})
}

/// A hook of the person's own on `event`, in their settings: it leaves a
/// file.
fn own_hook(event: &str, ran: &Path) -> Value {
    let command = format!("touch '{}'", ran.display());
    json!({event: [{"hooks": [{"type": "command", "command": command}]}]})
}

fn until_row_state(s: &Session, pane: &str, state: &str) {
    until_row(s, pane, state, false);
}

/// Waits until `agents` tells `pane` in `state`, by its hooks or its
/// relay's live screen over its view where `over_view`.
fn until_row(s: &Session, pane: &str, state: &str, over_view: bool) {
    let told = poll_for(TOLD_WITHIN, || {
        let row = agent_row(s, pane)?;
        let by = |source: &str| row[source].as_bool().unwrap_or_default();
        let over = by("by_hooks") || by("by_relay");
        (row["state"] == state && (over || !over_view)).then_some(())
    });
    if told.is_none() {
        let explained = explained(s, pane);
        panic!(
            "{pane} not {state} (over its view: {over_view}) in `agents`: {:?}; hooks: {}; relay: {}; screen: {}; readings: {}",
            agent_row(s, pane),
            explained["hooks"],
            explained["relay"],
            explained["rows"],
            explained["readings"]
        );
    }
}

/// What `zellij-mcp agents --explain` says of the pane.
fn explained(s: &Session, pane: &str) -> Value {
    let mut explain = std::process::Command::new(bridge());
    explain
        .args(["agents", "--explain", pane, "--json"])
        .envs(s.sandbox().env());
    serde_json::from_slice(&explain.output().unwrap().stdout).unwrap()
}

/// What `zellij-mcp agents --explain` says the pane's hooks told.
fn hooks_told(s: &Session, pane: &str) -> String {
    explained(s, pane)["hooks"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// The whole scenario for one program's agent at `pane`, idle, described
/// as `agent`: each step needs the program's hooks, which zellij-mcp gave
/// it at its launch.
fn told_by_hooks(
    s: &Session,
    mcp: &Mcp,
    client: &mut AttachedClient,
    api: &ModelApi,
    (agent, pane): (&str, &str),
    own_hook_ran: &Path,
) {
    let asked = mcp.ok("zellij_ask", ask(pane, "SAY first"));
    assert_eq!(
        (&asked["state"], &asked["reply"]),
        (&json!("idle"), &json!("STANDIN-SAID first")),
        "{asked}"
    );
    let ended = poll_for(TOLD_WITHIN, || {
        hooks_told(s, pane).starts_with("turn_ended").then_some(())
    });
    assert!(ended.is_some(), "{}", hooks_told(s, pane));
    wait_for("the person's own hook", TOLD_WITHIN, || {
        own_hook_ran.exists().then_some(())
    });
    let long_reply = workspace_root().join("bridge/tests/fixtures/long-reply.md");
    let long_reply = std::fs::read_to_string(long_reply).unwrap();

    // A long reply while the client views another tab (Zellij then renders
    // nothing of the pane's).
    let away = json!({"name": format!("away-{}", pane.replace('_', "-")), "focus": true});
    let away = mcp.ok("zellij_new_tab", away)["pane_ids"][0].clone();
    let viewing = |focus: String| focus.split_whitespace().any(|w| away == w);
    let moved = poll_for(Duration::from_secs(10), || {
        viewing(s.client_focus()).then_some(())
    });
    assert!(
        moved.is_some(),
        "the client views {away}: {}",
        s.client_focus()
    );
    let asked = mcp.ok("zellij_ask", ask(pane, "LONG unviewed"));
    assert_eq!(asked["state"], "idle", "{asked}");
    assert_eq!(asked["reply"].as_str(), Some(long_reply.as_str()));
    until_row_state(s, pane, "idle");

    // A person scrolls the pane up while a long turn goes on. (Only Gemini
    // CLI keeps lines in Zellij's scrollback: Claude Code, Codex, opencode
    // and Qwen Code draw their whole screen anew, so no one can scroll
    // their panes in Zellij, and the step runs with the pane in view.)
    let release = s.sandbox().work().join(format!("release-{pane}"));
    let text = format!("LONG HOLD {}", release.display());
    let scrolled = std::thread::scope(|scope| {
        let mut long = ask(pane, &text);
        long["timeout_s"] = json!(30);
        let asking = scope.spawn(|| common::mcp(s, "socket").ok("zellij_ask", long));
        until_sent(api, "HOLD");
        let scrolled = scroll_up(s, client, mcp, pane, "LONG HOLD");
        std::fs::write(&release, "").unwrap();
        let asked = asking.join().unwrap();
        assert_eq!(
            asked["state"],
            "idle",
            "hooks: {}\n{}",
            hooks_told(s, pane),
            common::screen(mcp, pane)
        );
        assert_eq!(asked["reply"].as_str(), Some(long_reply.as_str()));
        // The board says the hooks or the relay's live screen told it while
        // the view still shows the turn (a program that cleared its screen
        // brought the view back down), a view that reads as a draft (a
        // reply's row that starts with the prompt sign) among them.
        let held = scrolled && !in_view(s, pane, "The end");
        until_row(s, pane, "idle", held);
        scrolled
    });
    // Gemini CLI keeps its lines in Zellij's scrollback: its view is
    // scrolled up for real.
    assert!(scrolled || agent != "gemini-cli", "{pane} not scrolled up");

    // A permission the program asks while its pane is scrolled up, once
    // the model, holding its tool call, is released: told at once, nothing
    // approved. The message goes with the view at the bottom (Ctrl c in
    // scroll mode): a scrolled view shows no composer to type into.
    if scrolled {
        client.type_keys(b"\x03");
    }
    let made = s.sandbox().work().join(format!("approved-{pane}"));
    let release = s.sandbox().work().join(format!("release-ask-{pane}"));
    let text = format!(
        "HOLDCALL {} BASH touch {}",
        release.display(),
        made.display()
    );
    std::thread::scope(|scope| {
        let asking = scope.spawn(|| common::mcp(s, "socket").ok("zellij_ask", ask(pane, &text)));
        let marker = release.display().to_string();
        let sent = poll_for(Duration::from_secs(30), || {
            api.user_texts()
                .iter()
                .any(|t| t.contains(&marker))
                .then_some(())
        });
        assert!(
            sent.is_some(),
            "not sent: {:?}\n{}",
            agent_row(s, pane),
            common::screen(mcp, pane)
        );
        let scrolled = scrolled && scroll_up(s, client, mcp, pane, "HOLDCALL");
        std::fs::write(&release, "").unwrap();
        let asked = asking.join().unwrap();
        assert_eq!(
            asked["state"],
            "asking",
            "{asked}\nhooks: {}\nexplained: {}",
            hooks_told(s, pane),
            explained(s, pane)
        );
        until_row(s, pane, "asking", scrolled);
        assert!(!made.exists(), "nothing is approved");
        if scrolled {
            client.type_keys(b"\x03");
        }
    });
    // The view back at the bottom: approved on purpose (its first
    // choice), the turn goes on to its end. Enter goes only while the
    // screen shows the dialog, again after 3 s (a dialog just drawn may not
    // take keys yet, on a loaded machine).
    let approve = json!({"pane_id": pane, "keys": ["Enter"], "answer": true});
    let mut pressed: Option<Instant> = None;
    let approved = poll_for(Duration::from_secs(60), || {
        if made.exists() {
            return Some(());
        }
        let reading = explained(s, pane)["readings"][0][0].clone();
        let drawn = reading.as_str().is_some_and(|r| r.ends_with(": asking"));
        if drawn && pressed.is_none_or(|at| at.elapsed() > Duration::from_secs(3)) {
            mcp.ok("zellij_write", approve.clone());
            pressed = Some(Instant::now());
        }
        None
    });
    assert!(approved.is_some(), "{}", common::screen(mcp, pane));
    until_row_state(s, pane, "idle");
    from_hooks_alone(s, mcp, agent, pane);
}

/// `agent`'s description with screen patterns that never match (as a new
/// version that draws its screen otherwise would be): the built-in one's
/// lines but those that read the screen.
fn blind(agent: &str) -> String {
    let built_in = workspace_root().join("protocol/src/agent_programs.kdl");
    let built_in = std::fs::read_to_string(built_in).unwrap();
    let start = format!("agent \"{agent}\" {{");
    let not_screen = [
        "programs",
        "record",
        "resume",
        "hook-events",
        "hooks",
        "message",
    ];
    let kept: Vec<&str> = built_in
        .lines()
        .skip_while(|line| *line != start)
        .take_while(|line| *line != "}")
        .filter(|line| {
            let key = line.split_whitespace().next().unwrap_or_default();
            not_screen.contains(&key)
        })
        .collect();
    assert!(kept.len() >= 2, "{agent} is described with hooks");
    let never = "    prompt \"⊘⊘\"\n    working \"^NEVER-WORKING$\"\n    asking \"^NEVER-ASKING$\"";
    format!("{start}\n{}\n{never}\n}}\n", kept.join("\n"))
}

/// With its description's screen patterns made never to match, the
/// agent at `pane`, idle, is still told working, idle and asking, from its
/// hooks alone, and a question told keeps keys out.
fn from_hooks_alone(s: &Session, mcp: &Mcp, agent: &str, pane: &str) {
    let file = s.sandbox().agents_file();
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, blind(agent)).unwrap();
    // The next call sends the file; the screen then tells nothing.
    let unread = poll_for(Duration::from_secs(10), || {
        mcp.ok("zellij_list_panes", json!({}));
        explained(s, pane)["described_by"].is_null().then_some(())
    });
    assert!(unread.is_some(), "not blind: {}", explained(s, pane));
    // The last turn's end, as its hooks told it.
    until_row_state(s, pane, "idle");
    // Nothing reads the screen now, so no CR goes again: the CR waits long
    // enough that a program slowed by a loaded machine has handled the
    // text before it (Gemini CLI takes a CR soon after a paste as a new
    // line).
    let write = |text: &str| {
        let args = json!({"pane_id": pane, "text": text, "submit": true, "submit_delay_ms": 1000});
        let written = mcp.call("zellij_write", args);
        assert_ne!(
            written.is_error,
            Some(true),
            "{written:?}\n{}",
            explained(s, pane)
        );
    };
    let release = s.sandbox().work().join(format!("release-blind-{pane}"));
    write(&format!("HOLD {}", release.display()));
    until_row_state(s, pane, "working");
    std::fs::write(&release, "").unwrap();
    until_row_state(s, pane, "idle");
    let made = s.sandbox().work().join(format!("approved-blind-{pane}"));
    write(&format!("BASH touch {}", made.display()));
    until_row_state(s, pane, "asking");
    let refused = mcp.err("zellij_write", json!({"pane_id": pane, "text": "1"}));
    assert!(
        refused.starts_with("asking"),
        "a question told keeps keys out: {refused}"
    );
    assert!(!made.exists());
}

#[test]
fn claude_code_tells_its_turns_and_questions_by_hooks_while_its_pane_is_scrolled() {
    let s: Session = session("hooks-claude");
    let (mut client, _) = s.attach_and_wait();
    let mcp = mcp(&s, "socket");
    let api = ModelApi::start(&s.sandbox().root().join("requests.jsonl"));
    let ran = s.sandbox().root().join("own-hook-ran");
    let settings = json!({"hooks": own_hook("Stop", &ran)});
    write(
        &s.sandbox().root().join("claude-home/.claude/settings.json"),
        &settings,
    );
    let pane = open_claude(&s, &mcp, &api, NEWEST, "worker");
    until_state(&mcp, &pane, "idle");
    told_by_hooks(&s, &mcp, &mut client, &api, ("claude-code", &pane), &ran);
}

#[test]
fn qwen_code_tells_its_turns_and_questions_by_hooks_while_its_pane_is_scrolled() {
    let mut sc = Scene::new("hooks-qwen", Program::QwenCode);
    let ran = sc.ran();
    let settings_path = sc.in_sandbox("qwen-code-home/.qwen/settings.json");
    let mut settings: Value =
        serde_json::from_slice(&std::fs::read(&settings_path).unwrap()).unwrap();
    settings["hooks"] = own_hook("Stop", &ran);
    write(&settings_path, &settings);
    let pane = sc.open(&sc.command, "worker");
    sc.told_by_hooks(&pane);
}

#[test]
fn codex_tells_its_turns_and_questions_by_hooks_while_its_pane_is_scrolled() {
    let mut sc = Scene::new("hooks-codex", Program::Codex);
    // The person's own `notify` still runs (it runs its words, the
    // payload last).
    let ran = sc.ran();
    let config_path = sc.in_sandbox("codex-home/.codex/config.toml");
    let config = std::fs::read_to_string(&config_path).unwrap();
    let notify = format!("notify = [\"sh\", \"-c\", \"touch '{}'\"]\n", ran.display());
    std::fs::write(&config_path, notify + &config).unwrap();
    let theirs = std::fs::read_to_string(&config_path).unwrap();

    // The person runs setup, with Codex installed: its config.toml gets
    // the hooks and the trust Codex asks for, their lines kept.
    let home = sc.in_sandbox("codex-home");
    let said = run_setup(&sc.s, "codex", &home, &["--yes"]);
    assert!(said.contains("add zellij-mcp's hooks to"), "{said}");
    let added = std::fs::read_to_string(&config_path).unwrap();
    assert!(added.starts_with(&theirs), "{added}");
    let pane = sc.open(&sc.command, "worker");

    // One started by hand (by a shell, so zellij-mcp gives it nothing)
    // tells by setup's hooks, trusted: it starts with no question about
    // them, and each pane's reply is its own.
    let by_hand = sc.open(&sc.by_hand(), "by-hand");
    replies_not_crossed(&sc.mcp, &pane, &by_hand);
    sc.until_hooks_told_turn_ended(&by_hand);
    sc.told_by_hooks(&pane);

    run_setup(&sc.s, "codex", &home, &["--remove-hooks", "--yes"]);
    // As the person had it (and Codex, which keeps its own notes there).
    let removed = std::fs::read_to_string(&config_path).unwrap();
    assert!(removed.starts_with(&theirs), "{removed}");
    assert!(!removed.contains("hooks"), "{removed}");
}

#[test]
fn opencode_tells_its_turns_and_questions_by_its_plugin_while_its_pane_is_scrolled() {
    let mut sc = Scene::new("hooks-opencode", Program::Opencode);
    // The person's own plugin still loads.
    let ran = sc.ran();
    let own = format!(
        "import {{ writeFileSync }} from \"node:fs\";\n\
         export const Own = async () => ({{ event: async ({{ event }}) => {{\n\
           if (event.type === \"session.idle\") writeFileSync({:?}, \"\");\n\
         }} }});\n",
        ran.display().to_string()
    );
    let plugins = sc.in_sandbox("opencode-home/.config/opencode/plugin");
    std::fs::create_dir_all(&plugins).unwrap();
    std::fs::write(plugins.join("own.js"), own).unwrap();

    // The person runs setup, with opencode installed: its plugin file is
    // then loaded twice in the agent zellij-mcp starts, and tells once.
    let home = sc.in_sandbox("opencode-home");
    let said = run_setup(&sc.s, "opencode", &home, &["--yes"]);
    assert!(said.contains("add zellij-mcp's hooks to"), "{said}");
    let ours = plugins.join("zellij-mcp.js");
    assert!(ours.exists(), "{said}");
    let pane = sc.open(&sc.command, "worker");

    // One started by hand in the same folder (by a shell, so zellij-mcp
    // gives it nothing) tells by setup's plugin: each pane's reply is its
    // own, from the conversation its hooks named.
    let by_hand = sc.open(&sc.by_hand(), "by-hand");
    replies_not_crossed(&sc.mcp, &pane, &by_hand);
    sc.until_hooks_told_turn_ended(&by_hand);
    sc.told_by_hooks(&pane);

    run_setup(&sc.s, "opencode", &home, &["--remove-hooks", "--yes"]);
    assert!(!ours.exists() && plugins.join("own.js").exists());
}

#[test]
fn gemini_cli_tells_its_turns_and_questions_by_the_hooks_setup_adds() {
    let s: Session = session("hooks-gemini");
    let (mut client, _) = s.attach_and_wait();
    let mcp = mcp(&s, "socket");
    let api = ModelApi::start(&s.sandbox().root().join("requests.jsonl"));
    let work = s.sandbox().work();
    let command = Program::GeminiCli.command(&s, &api, &work);
    let home = s.sandbox().root().join("gemini-cli-home");
    let settings_path = home.join(".gemini/settings.json");
    let ran = s.sandbox().root().join("own-hook-ran");
    let mut settings: Value =
        serde_json::from_slice(&std::fs::read(&settings_path).unwrap()).unwrap();
    settings["hooks"] = own_hook("AfterAgent", &ran);
    write(&settings_path, &settings);

    // The person runs setup, with Gemini CLI installed.
    let setup = |args: &[&str]| run_setup(&s, "gemini-cli", &home, args);
    let said = setup(&["--yes"]);
    assert!(said.contains("add zellij-mcp's hooks to"), "{said}");
    let added: Value = serde_json::from_slice(&std::fs::read(&settings_path).unwrap()).unwrap();
    assert_eq!(added["ui"], settings["ui"], "the person's settings kept");
    assert_eq!(added["hooks"]["AfterAgent"].as_array().unwrap().len(), 2);

    // Two agents of the program in one folder: each pane's reply is its
    // own, read from the record its hooks named (the folder's newest chat
    // is the other's).
    let pane = open_agent(&mcp, &command, &work, Some("worker"));
    let other = open_agent(&mcp, &command, &work, Some("other"));
    for agent in [&pane, &other] {
        clear_late_answers(&mcp, agent);
    }
    replies_not_crossed(&mcp, &pane, &other);
    told_by_hooks(&s, &mcp, &mut client, &api, ("gemini-cli", &pane), &ran);

    setup(&["--remove-hooks", "--yes"]);
    let removed: Value = serde_json::from_slice(&std::fs::read(&settings_path).unwrap()).unwrap();
    assert_eq!(removed, settings, "as the person had it");
}

#[test]
fn with_their_hooks_turned_off_by_the_person_agents_are_read_from_their_screens() {
    let s: Session = session("hooks-off");
    let (mut client, _) = s.attach_and_wait();
    let mcp = mcp(&s, "socket");
    let api = ModelApi::start(&s.sandbox().root().join("requests.jsonl"));
    let work = s.sandbox().work();
    let home = |program: &str| s.sandbox().root().join(format!("{program}-home"));
    let edit_json = |path: PathBuf, edit: &dyn Fn(&mut Value)| {
        let mut settings: Value = std::fs::read(&path)
            .map(|bytes| serde_json::from_slice(&bytes).unwrap())
            .unwrap_or_else(|_| json!({}));
        edit(&mut settings);
        write(&path, &settings);
    };
    let disable_all = |settings: &mut Value| settings["disableAllHooks"] = json!(true);

    // Each program's own switch, in the person's own settings.
    edit_json(home("claude").join(".claude/settings.json"), &disable_all);
    let qwen = Program::QwenCode.command(&s, &api, &work);
    edit_json(home("qwen-code").join(".qwen/settings.json"), &disable_all);
    let codex = Program::Codex.command(&s, &api, &work);
    let config = home("codex").join(".codex/config.toml");
    let mut toml = std::fs::read_to_string(&config).unwrap();
    toml.push_str("\n[features]\nhooks = false\n");
    std::fs::write(&config, toml).unwrap();
    // Gemini CLI's hooks come from setup: the person turns them off after.
    let gemini = Program::GeminiCli.command(&s, &api, &work);
    run_setup(&s, "gemini-cli", &home("gemini-cli"), &["--yes"]);
    edit_json(
        home("gemini-cli").join(".gemini/settings.json"),
        &|settings| {
            assert!(settings["hooks"]["AfterAgent"].is_array(), "{settings}");
            settings["hooksConfig"] = json!({"enabled": false});
        },
    );
    let mut opencode = Program::Opencode.command(&s, &api, &work);
    opencode.push("--pure".into());

    // One after another (Gemini CLI, started beside others on a loaded
    // machine, may take the terminal's late answers for typed keys), each
    // in a tab of its own, at a width its screen is read at.
    let claude = open_claude(&s, &mcp, &api, NEWEST, "claude");
    asked_by_screen(&s, &mcp, &claude);
    for (command, name) in [
        (qwen, "qwen"),
        (codex, "codex"),
        (gemini, "gemini"),
        (opencode, "opencode"),
    ] {
        let tab = json!({"name": name, "focus": true});
        let tab = mcp.ok("zellij_new_tab", tab)["tab_id"].clone();
        let args = json!({"command": command, "cwd": work, "tab": tab, "agent_name": name});
        let pane = mcp.ok("zellij_new_pane", args)["pane_id"].clone();
        asked_by_screen(&s, &mcp, pane.as_str().unwrap());
        if name == "gemini" {
            scrolled_turn_told_by_relay(&s, &mcp, &mut client, &api, pane.as_str().unwrap());
        }
    }
}

/// A long turn of Gemini CLI at `pane`, its hooks off, while a person has
/// the pane scrolled up (Zellij then holds its output): its relay's live
/// screen tells the turn's end, so the ask ends with it, exact and `idle`,
/// and the board says so while the view is still scrolled.
fn scrolled_turn_told_by_relay(
    s: &Session,
    mcp: &Mcp,
    client: &mut AttachedClient,
    api: &ModelApi,
    pane: &str,
) {
    let long_reply = workspace_root().join("bridge/tests/fixtures/long-reply.md");
    let long_reply = std::fs::read_to_string(long_reply).unwrap();
    // Lines above the screen to scroll up to.
    let first = mcp.ok("zellij_ask", ask(pane, "LONG first"));
    assert_eq!(
        first["reply"].as_str(),
        Some(long_reply.as_str()),
        "{first}"
    );
    let release = s.sandbox().work().join(format!("release-off-{pane}"));
    let text = format!("LONG HOLD {}", release.display());
    std::thread::scope(|scope| {
        let mut long = ask(pane, &text);
        long["timeout_s"] = json!(60);
        let asking = scope.spawn(|| common::mcp(s, "socket").ok("zellij_ask", long));
        until_sent(api, "HOLD");
        assert!(
            scroll_up(s, client, mcp, pane, "LONG HOLD"),
            "{pane} not scrolled up"
        );
        std::fs::write(&release, "").unwrap();
        let asked = asking.join().unwrap();
        assert_eq!(
            (&asked["state"], &asked["timed_out"]),
            (&json!("idle"), &Value::Null),
            "{asked}\n{}",
            explained(s, pane)
        );
        assert_eq!(asked["reply"].as_str(), Some(long_reply.as_str()));
        // A view scrolled to a page that itself reads idle needs no word
        // over it.
        let reading = explained(s, pane)["readings"][0][0].clone();
        let view_idle = reading.as_str().is_some_and(|r| r.ends_with(": idle"));
        let held = !in_view(s, pane, "The end");
        until_row(s, pane, "idle", held && !view_idle);
        assert_eq!(hooks_told(s, pane), "", "no hook ran in {pane}");
    });
    client.type_keys(b"\x03");
    until_state(mcp, pane, "idle");
}

/// The agent at `pane`, its hooks off, is told idle and answers an ask
/// exactly, its screen alone telling: no hook ran.
fn asked_by_screen(s: &Session, mcp: &Mcp, pane: &str) {
    until_state(mcp, pane, "idle");
    let asked = mcp.ok("zellij_ask", ask(pane, &format!("SAY off-{pane}")));
    assert_eq!(
        (&asked["state"], &asked["reply"]),
        (&json!("idle"), &json!(format!("STANDIN-SAID off-{pane}"))),
        "{asked}"
    );
    assert_eq!(hooks_told(s, pane), "", "no hook ran in {pane}");
}

/// Two agents in one folder, each asked: each one's reply, as
/// `zellij_read` reads it from its record, is its own.
fn replies_not_crossed(mcp: &Mcp, pane: &str, other: &str) {
    for (at, text) in [(pane, "SAY mine"), (other, "SAY theirs")] {
        let asked = mcp.ok("zellij_ask", ask(at, text));
        assert_eq!(
            asked["state"],
            "idle",
            "{asked}\n{}",
            common::screen(mcp, at)
        );
    }
    for (at, said) in [(pane, "STANDIN-SAID mine"), (other, "STANDIN-SAID theirs")] {
        let read = mcp.ok("zellij_read", json!({"pane_id": at, "reply": true}));
        assert_eq!(read["text"], said, "{read}");
    }
}

/// `zellij-mcp setup ARGS` as the person at `home`, with the program of
/// `fixture` installed; what it printed.
fn run_setup(s: &Session, fixture: &str, home: &Path, args: &[&str]) -> String {
    let bin = workspace_root().join(format!("bridge/tests/fixtures/{fixture}/node_modules/.bin"));
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut setup = std::process::Command::new(bridge());
    setup.arg("setup").args(args).envs(s.sandbox().env());
    setup
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("PATH", &path);
    let out = setup.stdin(std::process::Stdio::null()).output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{said}");
    said
}

/// A session with a client attached, a bridge, the stand-in model API, and
/// `program`'s command for the work folder. The session is the last field,
/// so that it drops last.
struct Scene {
    /// The program's description.
    agent: &'static str,
    client: AttachedClient,
    mcp: Mcp,
    api: ModelApi,
    work: PathBuf,
    command: Vec<String>,
    s: Session,
}

impl Scene {
    fn new(name: &str, program: Program) -> Scene {
        let s: Session = session(name);
        let (client, _) = s.attach_and_wait();
        let mcp = mcp(&s, "socket");
        let api = ModelApi::start(&s.sandbox().root().join("requests.jsonl"));
        let work = s.sandbox().work();
        let command = program.command(&s, &api, &work);
        Scene {
            agent: program.description(),
            client,
            mcp,
            api,
            work,
            command,
            s,
        }
    }

    fn in_sandbox(&self, path: &str) -> PathBuf {
        self.s.sandbox().root().join(path)
    }

    /// The file the person's own hook leaves.
    fn ran(&self) -> PathBuf {
        self.in_sandbox("own-hook-ran")
    }

    /// An agent of `command` in the work folder, once it is idle.
    fn open(&self, command: &[String], name: &str) -> String {
        open_agent(&self.mcp, command, &self.work, Some(name))
    }

    /// The program's command as a person starts it, by a shell: zellij-mcp
    /// gives it no hooks of its own.
    fn by_hand(&self) -> Vec<String> {
        let by_shell = ["sh", "-c", "exec \"$@\"", "sh"].map(String::from);
        [&by_shell[..], &self.command].concat()
    }

    /// Waits until `pane`'s hooks have told its turn's end.
    fn until_hooks_told_turn_ended(&self, pane: &str) {
        let told = poll_for(TOLD_WITHIN, || {
            hooks_told(&self.s, pane)
                .starts_with("turn_ended")
                .then_some(())
        });
        assert!(told.is_some(), "{}", hooks_told(&self.s, pane));
    }

    fn told_by_hooks(&mut self, pane: &str) {
        let ran = self.ran();
        let agent = (self.agent, pane);
        told_by_hooks(&self.s, &self.mcp, &mut self.client, &self.api, agent, &ran);
    }
}

/// Gemini CLI gives its terminal a second to answer its queries at start;
/// answers later than that (Zellij on a loaded machine) it takes for typed
/// keys, and its composer holds `>|Zellij(…)`, which messages are held
/// from as a draft. Zellij answered them before it drew the composer, so
/// a mark typed now comes after them: once it shows, the composer is
/// cleared (Ctrl c), as its person would.
fn clear_late_answers(mcp: &Mcp, pane: &str) {
    common::screen_after_marker(mcp, pane, "late-answers-mark");
    mcp.ok("zellij_write", json!({"pane_id": pane, "keys": ["Ctrl c"]}));
    until_state(mcp, pane, "idle");
}

fn write(path: &PathBuf, json: &Value) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, json.to_string()).unwrap();
}
