//! A new user's first run. `zellij-mcp setup` on a new user's folders: what
//! it writes, that a second run changes nothing, that `--uninstall` gives
//! back the files as they were, and that a plain `zellij` afterwards has a
//! plugin the bridge reaches with no permission prompt. `zellij-mcp doctor`
//! on a healthy session and on each usual fault, and `zellij-mcp call`.

mod common;

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use common::*;
use serde_json::json;
use zellij_mcp_harness::{repo_layout, wait_for, Mcp, Sandbox};

/// The built bridge with `args`, in the sandbox's environment.
fn run_bridge(sandbox: &Sandbox, args: &[&str]) -> Output {
    let mut cmd = Command::new(bridge());
    cmd.args(args);
    for (k, v) in sandbox.env() {
        cmd.env(k, v);
    }
    let outside = [
        "XDG_DATA_HOME",
        "XDG_CONFIG_HOME",
        "ZELLIJ",
        "ZELLIJ_SESSION_NAME",
        "ZELLIJ_PANE_ID",
    ];
    for key in outside {
        cmd.env_remove(key);
    }
    cmd.stdin(std::process::Stdio::null());
    cmd.output().expect("run zellij-mcp")
}

fn setup(sandbox: &Sandbox, args: &[&str]) -> Output {
    run_bridge(sandbox, &[&["setup"], args].concat())
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn read(path: &Path) -> Option<Vec<u8>> {
    std::fs::read(path).ok()
}

#[test]
fn setup_installs_once_keeps_the_users_config_and_uninstalls_exactly() {
    let sandbox = Sandbox::without_plugin();
    let config = sandbox.config_file();
    let original = "show_startup_tips false // no tips\nshow_release_notes false\nsession_serialization false\n\n/* my own plugins */\nplugins {\n    tab-bar location=\"zellij:tab-bar\"\n    mine location=\"file:/opt/mine.wasm\" {\n        colour \"red\" // keep\n    }\n}\n\nload_plugins {\n    mine\n}\n";
    std::fs::write(&config, original).unwrap();
    let permissions = sandbox.root().join("cache/zellij/permissions.kdl");
    let plugin = sandbox.installed_plugin();

    let dry = setup(&sandbox, &["--dry-run"]);
    assert!(dry.status.success(), "{}", stdout(&dry));
    assert!(stdout(&dry).contains("Dry run"), "{}", stdout(&dry));
    assert_eq!(
        read(&config).unwrap(),
        original.as_bytes(),
        "a dry run changes nothing"
    );
    assert!(!plugin.exists());

    let asked = setup(&sandbox, &[]);
    assert_eq!(asked.status.code(), Some(1), "{}", stdout(&asked));
    assert!(stdout(&asked).contains("--yes"), "{}", stdout(&asked));
    assert_eq!(
        read(&config).unwrap(),
        original.as_bytes(),
        "without a yes nothing changes"
    );

    let first = setup(&sandbox, &["--yes"]);
    assert!(first.status.success(), "{}", stdout(&first));
    let url = format!("file:{}", plugin.display());
    let expected = original
        .replace(
            "        colour \"red\" // keep\n    }\n}",
            &format!(
                "        colour \"red\" // keep\n    }}\n    zellij-mcp location=\"{url}\"\n}}"
            ),
        )
        .replace("    mine\n}", "    mine\n    zellij-mcp\n}");
    let written = String::from_utf8(read(&config).unwrap()).unwrap();
    assert_eq!(written, expected, "only the two lines are added");
    let wasm = read(&plugin).expect("the plugin is installed");
    assert!(wasm.starts_with(b"\0asm"), "the plugin is a wasm module");
    let mark = b"zellij-mcp-build-id:";
    assert!(
        wasm.windows(mark.len()).any(|w| w == mark),
        "with its build id"
    );
    let grants = String::from_utf8(read(&permissions).unwrap()).unwrap();
    for permission in zellij_mcp_protocol::PERMISSIONS {
        assert!(grants.contains(permission), "{grants}");
    }
    assert!(
        stdout(&first).contains("claude mcp add"),
        "{}",
        stdout(&first)
    );

    let files = || [read(&config), read(&permissions), read(&plugin)];
    let after_first = files();
    let second = setup(&sandbox, &["--yes"]);
    assert!(second.status.success());
    assert!(
        stdout(&second).contains("Nothing to change"),
        "{}",
        stdout(&second)
    );
    assert_eq!(files(), after_first, "a second run changes nothing");

    let undone = setup(&sandbox, &["--uninstall", "--yes"]);
    assert!(undone.status.success(), "{}", stdout(&undone));
    assert_eq!(
        read(&config).unwrap(),
        original.as_bytes(),
        "the config is as it was"
    );
    assert!(!plugin.exists());
    assert_eq!(read(&permissions), None, "the cache setup made is gone");
    let again = setup(&sandbox, &["--uninstall", "--yes"]);
    assert!(
        stdout(&again).contains("Nothing to change"),
        "{}",
        stdout(&again)
    );
}

#[test]
fn after_setup_a_plain_zellij_session_answers_through_the_bridge() {
    let sandbox = Sandbox::without_plugin();
    let out = setup(&sandbox, &["--yes"]);
    assert!(out.status.success(), "{}", stdout(&out));
    let session = sandbox.start_plain_session(&format!("plain-{}", std::process::id()), true);
    let mcp = Mcp::start(&bridge(), session.sandbox(), &[]);
    let listed = mcp.ok("zellij_list_panes", json!({}));
    let panes = listed["panes"].as_array().unwrap();
    assert_eq!(panes.len(), 1, "the default layout's shell: {listed}");
    // Zellij itself lists the plugin once, loaded from the config.
    let ours: Vec<_> = session
        .zellij_panes()
        .into_iter()
        .filter(|p| {
            p["plugin_url"]
                .as_str()
                .is_some_and(|u| u.contains("zellij-mcp"))
        })
        .collect();
    assert_eq!(ours.len(), 1, "{ours:?}");
    let read = mcp.ok("zellij_read", json!({"pane_id": panes[0]["pane_id"]}));
    assert!(read["text"].is_string(), "{read}");
}

/// `doctor --json`'s checks, by name: (status, detail, fix).
fn doctor(sandbox: &Sandbox) -> (bool, Vec<(String, String, String, String)>) {
    let out = run_bridge(sandbox, &["doctor", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("doctor --json: {e}: {}", stdout(&out)));
    assert_eq!(report["ok"], out.status.success(), "{report}");
    let checks = report["checks"].as_array().unwrap().iter().map(|c| {
        let text = |k: &str| c[k].as_str().unwrap_or_default().to_owned();
        (text("name"), text("status"), text("detail"), text("fix"))
    });
    (out.status.success(), checks.collect())
}

/// The one check named `name`.
fn check<'a>(
    checks: &'a [(String, String, String, String)],
    name: &str,
) -> &'a (String, String, String, String) {
    checks
        .iter()
        .find(|c| c.0 == name)
        .unwrap_or_else(|| panic!("no {name} check: {checks:?}"))
}

fn session_name(test: &str) -> String {
    format!("{test}-{}", std::process::id())
}

#[test]
fn doctor_passes_a_healthy_session_and_call_speaks_for_people_and_scripts() {
    let sandbox = Sandbox::without_plugin();
    assert!(setup(&sandbox, &["--yes"]).status.success());
    let session = sandbox.start_plain_session(&session_name("healthy"), true);
    let sandbox = session.sandbox();
    let (passed, checks) = doctor(sandbox);
    assert!(passed, "{checks:#?}");
    for name in [
        "zellij",
        "setup",
        "permissions",
        "processes",
        "sessions",
        "session",
        "plugin",
        "transport",
        "versions",
    ] {
        assert_eq!(check(&checks, name).1, "ok", "{checks:#?}");
    }
    assert!(
        check(&checks, "session").2.contains(session.name()),
        "{checks:?}"
    );

    let table = run_bridge(sandbox, &["call", "zellij_list_panes"]);
    assert!(table.status.success());
    let lines: Vec<String> = stdout(&table).lines().map(str::to_owned).collect();
    assert!(
        lines[0].starts_with("PANE") && lines[0].contains("TITLE"),
        "{lines:?}"
    );
    let zellij_terminals = session
        .zellij_panes()
        .into_iter()
        .filter(|p| p["is_plugin"] == false)
        .count();
    assert_eq!(
        lines.len() - 1,
        zellij_terminals,
        "one row per pane Zellij lists: {lines:?}"
    );

    let json = run_bridge(sandbox, &["call", "zellij_list_tabs", "--json"]);
    let tabs: serde_json::Value = serde_json::from_slice(&json.stdout).expect("valid JSON");
    assert_eq!(tabs["tabs"].as_array().unwrap().len(), 1, "{tabs}");

    let failing = run_bridge(sandbox, &["call", "zellij_read", "pane_id=terminal_99"]);
    assert_eq!(failing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&failing.stderr).starts_with("pane_not_found"));
    let listed = run_bridge(sandbox, &["tools"]);
    assert_eq!(stdout(&listed).lines().count(), 22, "{}", stdout(&listed));
}

#[test]
fn doctor_names_each_usual_fault_and_its_fix() {
    // No plugin: set up without loading it in every session.
    let sandbox = Sandbox::without_plugin();
    assert!(setup(&sandbox, &["--yes", "--no-autoload"])
        .status
        .success());
    let session = sandbox.start_plain_session(&session_name("no-plugin"), false);
    let (passed, checks) = doctor(session.sandbox());
    assert!(!passed);
    let plugin = check(&checks, "plugin");
    assert_eq!(plugin.1, "failed", "{checks:#?}");
    assert!(plugin.2.contains("not loaded"), "{plugin:?}");
    assert!(plugin.3.contains("restart the session"), "{plugin:?}");
    assert_eq!(check(&checks, "agent descriptions").1, "ok", "{checks:#?}");

    // A description file with a mistake: its line is named.
    let agents = session.sandbox().agents_file();
    std::fs::create_dir_all(agents.parent().unwrap()).unwrap();
    let wrong = "agent \"bot\" {\n    programs \"bot\"\n    prompt \">\"\n    colour \"red\"\n}\n";
    std::fs::write(&agents, wrong).unwrap();
    let (_, checks) = doctor(session.sandbox());
    let described = check(&checks, "agent descriptions");
    assert_eq!(described.1, "failed", "{checks:#?}");
    assert!(described.2.contains("line 4: "), "{described:?}");
    assert!(described.2.contains("colour"), "{described:?}");
    drop(session);

    // Permissions never granted.
    let sandbox = Sandbox::without_plugin();
    assert!(setup(&sandbox, &["--yes"]).status.success());
    std::fs::remove_file(sandbox.root().join("cache/zellij/permissions.kdl")).unwrap();
    let session = sandbox.start_plain_session(&session_name("no-grant"), false);
    let (_, checks) = doctor(session.sandbox());
    assert_eq!(check(&checks, "permissions").1, "failed", "{checks:#?}");
    assert!(check(&checks, "permissions").3.contains("zellij-mcp setup"));
    assert_eq!(check(&checks, "plugin").1, "failed", "{checks:#?}");
    assert!(check(&checks, "plugin").3.contains("grant"), "{checks:#?}");
    drop(session);

    // Two copies: loaded by the config and by the old layout's pane.
    let sandbox = Sandbox::without_plugin();
    assert!(setup(&sandbox, &["--yes"]).status.success());
    let session = sandbox.start_session(&session_name("two-copies"), &repo_layout(), true);
    let (_, checks) = doctor(session.sandbox());
    let plugin = check(&checks, "plugin");
    assert_eq!(plugin.1, "failed", "{checks:#?}");
    assert!(plugin.2.contains("loaded 2 times"), "{plugin:?}");
    drop(session);

    // A plugin loaded from another path than the installed one (an old
    // copy a layout still names).
    let sandbox = Sandbox::without_plugin();
    assert!(setup(&sandbox, &["--yes", "--no-autoload"])
        .status
        .success());
    let old = sandbox.work().join("old/zellij-mcp.wasm");
    std::fs::create_dir_all(old.parent().unwrap()).unwrap();
    std::fs::copy(sandbox.installed_plugin(), &old).unwrap();
    let grants = sandbox.root().join("cache/zellij/permissions.kdl");
    let granted = std::fs::read_to_string(&grants).unwrap();
    let installed = sandbox.installed_plugin().display().to_string();
    let both = format!(
        "{granted}{}",
        granted.replace(&installed, &old.display().to_string())
    );
    std::fs::write(&grants, both).unwrap();
    let layout = sandbox.work().join("old.kdl");
    let pane = format!(
        "pane {{\n        plugin location=\"file:{}\"\n    }}",
        old.display()
    );
    std::fs::write(&layout, format!("layout {{\n    pane\n    {pane}\n}}\n")).unwrap();
    let session = sandbox.start_session(&session_name("old-path"), &layout, true);
    let (_, checks) = doctor(session.sandbox());
    let plugin = check(&checks, "plugin");
    assert_eq!(plugin.1, "failed", "{checks:#?}");
    assert!(plugin.2.contains("not the installed plugin"), "{plugin:?}");
    drop(session);

    // A plugin from another build: its build id differs.
    let sandbox = Sandbox::without_plugin();
    assert!(setup(&sandbox, &["--yes"]).status.success());
    let installed = sandbox.installed_plugin();
    let mut wasm = std::fs::read(&installed).unwrap();
    let mark = b"zellij-mcp-build-id:";
    let at = wasm
        .windows(mark.len())
        .enumerate()
        .filter(|(_, w)| *w == mark)
        .map(|(at, _)| at + mark.len())
        .find(|at| wasm[*at..*at + 16].iter().all(u8::is_ascii_hexdigit))
        .expect("the build id is in the wasm");
    wasm[at..at + 16].copy_from_slice(b"0000000000000000");
    std::fs::write(&installed, wasm).unwrap();
    let session = sandbox.start_plain_session(&session_name("stale"), true);
    let (_, checks) = doctor(session.sandbox());
    let versions = check(&checks, "versions");
    assert_eq!(versions.1, "failed", "{checks:#?}");
    assert!(
        versions.2.contains("build 0000000000000000"),
        "{versions:?}"
    );
    assert!(versions.3.contains("zellij-mcp setup"), "{versions:?}");
    assert_eq!(check(&checks, "setup").1, "failed", "{checks:#?}");
}

#[test]
fn the_agents_layout_opens_an_orchestrator_and_a_workers_tab_with_one_plugin() {
    let sandbox = Sandbox::without_plugin();
    assert!(setup(&sandbox, &["--yes"]).status.success());
    let layout = zellij_mcp_harness::workspace_root().join("layouts/agents.kdl");
    let session = sandbox.start_session(&session_name("agents"), &layout, true);
    let mcp = Mcp::start(&bridge(), session.sandbox(), &[]);
    let tabs = mcp.ok("zellij_list_tabs", json!({}));
    let names: Vec<&str> = tabs["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["orchestrator", "workers"]);
    let (passed, checks) = doctor(session.sandbox());
    assert!(passed, "{checks:#?}");
    let worker = mcp.ok(
        "zellij_new_pane",
        json!({"tab": "workers", "agent_name": "main.w1", "command": ["sh", "-c", "exec sleep 600"]}),
    );
    // Headless, the list can lag a new pane by a moment.
    let mine = wait_for(
        "the worker in the workers tab",
        Duration::from_secs(20),
        || {
            let listed = mcp.ok("zellij_list_panes", json!({"tab": "workers"}));
            let panes = listed["panes"].as_array()?.clone();
            panes
                .into_iter()
                .find(|p| p["pane_id"] == worker["pane_id"])
        },
    );
    assert_eq!(mine["agent"], "main.w1", "{mine}");
}

#[test]
fn setup_adds_the_server_to_opencode_and_gemini_cli_once_and_takes_it_back() {
    let sandbox = Sandbox::without_plugin();
    let xdg = sandbox.root().join("xdg");
    let run = |args: &[&str]| {
        let mut cmd = Command::new(bridge());
        cmd.arg("setup").args(args);
        cmd.args(["--client", "opencode", "--client", "gemini"]);
        for (k, v) in sandbox.env() {
            cmd.env(k, v);
        }
        cmd.env("XDG_CONFIG_HOME", &xdg).env_remove("XDG_DATA_HOME");
        cmd.stdin(std::process::Stdio::null());
        cmd.output().expect("run zellij-mcp setup")
    };
    let opencode = xdg.join("opencode/opencode.json");
    // Gemini CLI's settings hold the person's own choices already.
    let gemini = sandbox.root().join("home/.gemini/settings.json");
    std::fs::create_dir_all(gemini.parent().unwrap()).unwrap();
    let theirs = json!({"ui": {"theme": "Dracula"}});
    std::fs::write(&gemini, theirs.to_string()).unwrap();
    let first = run(&["--yes"]);
    assert!(first.status.success(), "{}", stdout(&first));
    let exe = bridge().display().to_string();
    let config: serde_json::Value = serde_json::from_slice(&read(&opencode).unwrap()).unwrap();
    let command = &config["mcp"]["zellij"]["command"];
    assert_eq!(command[0], exe, "{config}");
    assert_eq!(config["mcp"]["zellij"]["type"], "local", "{config}");
    let settings: serde_json::Value = serde_json::from_slice(&read(&gemini).unwrap()).unwrap();
    assert_eq!(
        settings["mcpServers"]["zellij"]["command"], exe,
        "{settings}"
    );
    assert_eq!(settings["ui"], theirs["ui"], "{settings}");
    // Gemini CLI itself starts the server and finds it answering.
    let gemini_cli = zellij_mcp_harness::workspace_root()
        .join("bridge/tests/fixtures/gemini-cli/node_modules/.bin/gemini");
    assert!(gemini_cli.exists(), "run `make test-deps` (gemini-cli)");
    let mut listed = Command::new(gemini_cli);
    listed.args(["mcp", "list"]).envs(sandbox.env());
    listed.env("GEMINI_CLI_TRUST_WORKSPACE", "true");
    let listed = listed.output().expect("run gemini mcp list");
    let listed = format!(
        "{}{}",
        stdout(&listed),
        String::from_utf8_lossy(&listed.stderr)
    );
    assert!(
        listed.contains(&format!("zellij: {exe}")) && listed.contains("Connected"),
        "{listed}"
    );
    let again = run(&["--yes"]);
    assert!(
        stdout(&again).contains("Nothing to change"),
        "{}",
        stdout(&again)
    );
    let undone = run(&["--yes", "--uninstall"]);
    assert!(undone.status.success(), "{}", stdout(&undone));
    assert_eq!(read(&opencode), None, "the file setup made is gone");
    let settings: serde_json::Value = serde_json::from_slice(&read(&gemini).unwrap()).unwrap();
    assert_eq!(
        settings, theirs,
        "the person's settings are left as they were"
    );
}
