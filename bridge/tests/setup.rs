//! `zellij-mcp setup` on a new user's folders: what it writes, that a second
//! run changes nothing, that `--uninstall` gives back the files as they
//! were, and that a plain `zellij` afterwards has a plugin the bridge
//! reaches with no permission prompt.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::*;
use serde_json::json;
use zellij_mcp_harness::{Mcp, Sandbox};

/// The built bridge's `setup` with `args`, in the sandbox's environment.
fn setup(sandbox: &Sandbox, args: &[&str]) -> Output {
    let mut cmd = Command::new(bridge());
    cmd.arg("setup").args(args);
    for (k, v) in sandbox.env() {
        cmd.env(k, v);
    }
    cmd.env_remove("XDG_DATA_HOME")
        .env_remove("XDG_CONFIG_HOME");
    cmd.output().expect("run zellij-mcp setup")
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
    assert_eq!(wasm, read(&zellij_mcp_harness::built_plugin()).unwrap());
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
