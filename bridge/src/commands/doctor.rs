//! `zellij-mcp doctor`: checks each thing the bridge needs, in the order a
//! user sets them up, and prints ✓ or ✗ with the exact fix; `--json` for
//! scripts. Most reports of "it hangs" come from one of these: the wrong
//! Zellij, the plugin not loaded or loaded twice, permissions never
//! granted, a plugin from another build.

use std::path::Path;
use std::time::{Duration, Instant};

use serde::Serialize;
use zellij_mcp_protocol::agent_programs::Programs;
use zellij_mcp_protocol::ops::{
    op, HelloArgs, HelloResult, ListPanesArgs, ListPanesResult, PaneState,
};
use zellij_mcp_protocol::{PaneKind, PROTOCOL_VERSION};

use crate::processes::{self, ProcessTable};
use crate::setup::agent_file::{self, Checked};
use crate::setup::grants;
use crate::setup::places::{shown, Places};
use crate::setup::zellij_config::{ZellijConfig, ALIAS};
use crate::setup::{self, embedded};
use crate::transport::client::PluginClient;
use crate::transport::sessions;

/// The Zellij version this zellij-mcp is built and tested for.
pub const ZELLIJ_VERSION: &str = "0.45.1";

#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    /// Print the checks as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Ok,
    Failed,
    /// Not checked: an earlier check failed.
    Skipped,
}

#[derive(Debug, Serialize)]
pub struct Check {
    pub name: &'static str,
    pub status: Status,
    pub detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

fn ok(name: &'static str, detail: String) -> Check {
    Check {
        name,
        status: Status::Ok,
        detail,
        fix: None,
    }
}

fn failed(name: &'static str, detail: String, fix: impl Into<String>) -> Check {
    Check {
        name,
        status: Status::Failed,
        detail,
        fix: Some(fix.into()),
    }
}

fn skipped(name: &'static str, why: &str) -> Check {
    Check {
        name,
        status: Status::Skipped,
        detail: why.to_owned(),
        fix: None,
    }
}

/// The person's agent descriptions, if they wrote any.
fn agent_descriptions(path: &Path) -> Check {
    const NAME: &str = "agent descriptions";
    match agent_file::check(path) {
        Checked::Absent => ok(NAME, format!("built-in ({} not written)", shown(path))),
        Checked::Good { described, .. } => ok(
            NAME,
            format!("{}, over the built-in ones: {}", shown(path), described.join(", ")),
        ),
        Checked::Wrong(why) => failed(
            NAME,
            format!("{} {why}", shown(path)),
            "correct that line (docs/messages.md, \"Describing another agent program\", shows the form); \
             until then the descriptions sent before stay in force",
        ),
    }
}

/// Which agent programs tell their own state through zellij-mcp's hooks:
/// those it starts get them per launch; those a person starts, where
/// setup added them to the program's own settings.
fn agent_hooks(programs: &Programs) -> Check {
    const NAME: &str = "agent hooks";
    let per_launch: Vec<&str> = programs
        .all()
        .iter()
        .filter(|d| d.hooks.as_ref().is_some_and(|h| h.per_launch()))
        .map(|d| d.name.as_str())
        .collect();
    let mut detail = format!("given per launch to {}", per_launch.join(", "));
    for (program, path, has) in setup::hooks::status(programs) {
        let state = match has {
            Some(true) => "in",
            Some(false) => "not in (`zellij-mcp setup` adds them)",
            None => "unreadable:",
        };
        detail.push_str(&format!("; {program}: {state} {}", shown(&path)));
    }
    ok(NAME, detail)
}

/// What this platform's process table tells (docs/setup.md, "Platforms").
fn process_table(table: &dyn ProcessTable) -> Check {
    const NAME: &str = "processes";
    let platform = table.platform();
    if table.tells(PaneState::Running) {
        return ok(
            NAME,
            format!("{platform}: pane states, runs in existing shells, own pane"),
        );
    }
    if table.tells(PaneState::Prompt) {
        return ok(
            NAME,
            format!(
                "{platform}: `prompt` and `exited`, runs in existing shells, own pane; \
                 no `running` or `waiting_input` (docs/setup.md, \"Platforms\")"
            ),
        );
    }
    failed(
        NAME,
        format!("{platform} tells nothing of processes: no pane states from them, no runs in existing shells"),
        "run commands in new panes (zellij_run without pane_id); the rest needs Linux or macOS",
    )
}

/// Runs the checks and prints them; the exit code (1 when any failed).
pub async fn run(client: &PluginClient, args: DoctorArgs) -> i32 {
    let checks = checks(client).await;
    let all_ok = checks.iter().all(|c| c.status != Status::Failed);
    if args.json {
        let report = serde_json::json!({"ok": all_ok, "checks": checks});
        println!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    } else {
        for check in &checks {
            let mark = match check.status {
                Status::Ok => "✓",
                Status::Failed => "✗",
                Status::Skipped => "-",
            };
            println!("{mark} {}: {}", check.name, check.detail);
            if let Some(fix) = &check.fix {
                println!("    fix: {fix}");
            }
        }
    }
    i32::from(!all_ok)
}

pub async fn checks(client: &PluginClient) -> Vec<Check> {
    let places = Places::find(None);
    let mut checks = vec![
        zellij_version(&client.config().zellij),
        installed(&places),
        permissions(&places),
        agent_descriptions(&agent_file::path()),
        agent_hooks(&agent_file::programs()),
        process_table(processes::table()),
    ];
    let (live, sessions_check) = live_sessions(client).await;
    checks.push(sessions_check);
    let session = match &live {
        Some(live) => {
            let (session, check) = chosen_session(client, live);
            checks.push(check);
            session
        }
        None => None,
    };
    let Some(session) = session else {
        for name in ["plugin", "transport", "versions"] {
            checks.push(skipped(name, "no session to check"));
        }
        return checks;
    };
    match plugin(client, &session, &places).await {
        Ok((check, hello)) => {
            checks.push(check);
            checks.push(transport(client, &session).await);
            checks.push(versions(&hello));
        }
        Err(check) => {
            checks.push(check);
            for name in ["transport", "versions"] {
                checks.push(skipped(name, "the plugin did not answer"));
            }
        }
    }
    checks
}

fn zellij_version(zellij: &Path) -> Check {
    let fix = format!(
        "install Zellij {ZELLIJ_VERSION} (`cargo install zellij --locked --version {ZELLIJ_VERSION}`), \
         or point --zellij at it"
    );
    let output = std::process::Command::new(zellij)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output();
    match output {
        Ok(out) => {
            let version = String::from_utf8_lossy(&out.stdout).trim().to_owned();
            match version == format!("zellij {ZELLIJ_VERSION}") {
                true => ok("zellij", version),
                false => failed(
                    "zellij",
                    format!("{version}; zellij-mcp needs {ZELLIJ_VERSION}"),
                    fix,
                ),
            }
        }
        Err(e) => failed(
            "zellij",
            format!("{} does not run: {e}", zellij.display()),
            fix,
        ),
    }
}

/// The plugin file, whether it is this build, and how sessions load it.
fn installed(places: &Places) -> Check {
    let setup = "run `zellij-mcp setup`";
    let Ok(bytes) = std::fs::read(&places.plugin) else {
        return failed(
            "setup",
            format!("no plugin at {}", shown(&places.plugin)),
            setup,
        );
    };
    if embedded::carries_plugin() && bytes != embedded::PLUGIN_WASM {
        return failed(
            "setup",
            format!(
                "the plugin at {} is not the build this zellij-mcp carries ({})",
                shown(&places.plugin),
                embedded::PLUGIN_BUILD_ID
            ),
            format!("{setup} to install this build, then restart your sessions"),
        );
    }
    let config = std::fs::read_to_string(&places.config).unwrap_or_default();
    let config = ZellijConfig::parse(&config).ok();
    let loading = match config {
        Some(c) if c.autoloads() && c.alias().is_some() => {
            format!("loaded in every session by {}", shown(&places.config))
        }
        Some(c) if c.alias().is_some() => format!(
            "the `{ALIAS}` alias is in {}, but sessions load the plugin only from a layout",
            shown(&places.config)
        ),
        _ => "sessions load it only from a layout".to_owned(),
    };
    ok(
        "setup",
        format!("plugin installed at {}; {loading}", shown(&places.plugin)),
    )
}

fn permissions(places: &Places) -> Check {
    let text = std::fs::read_to_string(&places.permissions).unwrap_or_default();
    let path = places.plugin.display().to_string();
    match grants::granted(&text, &path) {
        true => ok("permissions", format!("granted in {}", shown(&places.permissions))),
        false => failed(
            "permissions",
            format!(
                "not all granted to {} in {}",
                shown(&places.plugin),
                shown(&places.permissions)
            ),
            "run `zellij-mcp setup` (it grants them), or answer `y` when Zellij asks in the session",
        ),
    }
}

/// The socket folder and the live sessions; `None` when there are none.
async fn live_sessions(client: &PluginClient) -> (Option<Vec<String>>, Check) {
    let (live, _) = client.sessions().await;
    let dir = sessions::socket_dir();
    if live.is_empty() {
        let check = failed(
            "sessions",
            format!("no live session (sockets in {})", dir.display()),
            "start Zellij (`zellij`), or set ZELLIJ_SOCKET_DIR as the session has it",
        );
        return (None, check);
    }
    let check = ok(
        "sessions",
        format!(
            "{} live in {}: {}",
            live.len(),
            dir.display(),
            live.join(", ")
        ),
    );
    (Some(live), check)
}

/// The session a call without `session` uses, and why.
fn chosen_session(client: &PluginClient, live: &[String]) -> (Option<String>, Check) {
    let defaults = &client.config().sessions;
    let why = if defaults.configured.is_some() {
        "named by --session or ZELLIJ_MCP_SESSION"
    } else if defaults.enclosing.is_some() {
        "this shell runs in it (ZELLIJ_SESSION_NAME)"
    } else {
        "the only live session"
    };
    match sessions::resolve(None, defaults, live) {
        Ok(session) => {
            let check = ok("session", format!("{session} ({why})"));
            (Some(session), check)
        }
        Err(error) => {
            let fix = error.hint.clone().unwrap_or_default();
            (None, failed("session", error.message, fix))
        }
    }
}

/// The plugin answers, once, at the expected URL.
async fn plugin(
    client: &PluginClient,
    session: &str,
    places: &Places,
) -> Result<(Check, HelloResult), Check> {
    let sending = client.sending();
    let hello = client
        .call::<op::Hello>(Some(session), &HelloArgs::this_bridge(), sending)
        .await
        .map(|(_, hello)| hello)
        .map_err(|error| {
            let granted = grants::granted(
                &std::fs::read_to_string(&places.permissions).unwrap_or_default(),
                &places.plugin.display().to_string(),
            );
            let fix = match granted {
                true => {
                    "restart the session: it was started before setup, or without the plugin \
                         (`zellij-mcp setup` loads it in every new session)"
                }
                false => "grant the permissions (`zellij-mcp setup`), then restart the session",
            };
            failed("plugin", format!("{session}: {}", error.message), fix)
        })?;
    let args = ListPanesArgs {
        include_plugins: true,
        details: true,
        ..Default::default()
    };
    let listed = client
        .call::<op::ListPanes>(Some(session), &args, client.sending())
        .await;
    let copies: Vec<String> = match listed {
        Ok((_, ListPanesResult { panes })) => panes
            .into_iter()
            .filter(|p| p.pane_id.kind == PaneKind::Plugin)
            .filter_map(|p| p.details?.plugin_url)
            .filter(|url| url == ALIAS || url.ends_with("zellij-mcp.wasm"))
            .collect(),
        Err(_) => Vec::new(),
    };
    let url = hello.plugin_url.clone().unwrap_or_default();
    if !is_installed_plugin(&url, places) {
        let check = failed(
            "plugin",
            format!(
                "{session}: loaded from {url}, not the installed plugin {}",
                places.plugin_url()
            ),
            "load the installed plugin (after `zellij-mcp setup`, every new session does), \
             then restart the session",
        );
        return Err(check);
    }
    let detail = format!(
        "{session}: loaded from {url}, {} instance(s) (one per client)",
        hello.instances.len().max(1)
    );
    if copies.len() > 1 {
        let check = failed(
            "plugin",
            format!("{session}: loaded {} times ({})", copies.len(), copies.join(", ")),
            "load it once: keep `load_plugins` in the config and drop the plugin pane from your \
             layout (or run `zellij-mcp setup --no-autoload` and keep the layout), then restart the session",
        );
        return Err(check);
    }
    Ok((ok("plugin", detail), hello))
}

/// Whether Zellij loaded the plugin by setup's alias or from the path
/// setup installs it at (`~` as Zellij leaves it in a layout's URL).
fn is_installed_plugin(url: &str, places: &Places) -> bool {
    let Some(path) = url.strip_prefix("file:") else {
        return url == ALIAS;
    };
    let home = std::env::var("HOME").unwrap_or_default();
    let path = match path.strip_prefix("~/") {
        Some(rest) => format!("{home}/{rest}"),
        None => path.to_owned(),
    };
    Path::new(&path) == places.plugin
}

/// The transport in use, and a hello's round trip on it.
async fn transport(client: &PluginClient, session: &str) -> Check {
    let mut times = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        let answered = client
            .call::<op::Hello>(Some(session), &HelloArgs::this_bridge(), client.sending())
            .await;
        if answered.is_ok() {
            times.push(started.elapsed());
        }
    }
    times.sort();
    let kind = client.transport_of(session).unwrap_or("none");
    match times.get(times.len() / 2) {
        Some(median) => ok(
            "transport",
            format!("{kind}; a round trip takes {}", millis(*median)),
        ),
        None => failed(
            "transport",
            format!("{kind}: the plugin stopped answering"),
            "run doctor again; if it persists, restart the session",
        ),
    }
}

fn versions(hello: &HelloResult) -> Check {
    let ours = env!("CARGO_PKG_VERSION");
    let build = embedded::PLUGIN_BUILD_ID;
    let detail = format!(
        "plugin {} (protocol {}, build {}), bridge {ours} (protocol {PROTOCOL_VERSION}, carries build {})",
        hello.plugin_version,
        hello.protocol,
        empty_as_unknown(&hello.build_id),
        empty_as_unknown(build)
    );
    let same_protocol = hello.protocol == PROTOCOL_VERSION;
    let same_build = build.is_empty() || hello.build_id == build;
    match same_protocol && same_build {
        true => ok("versions", detail),
        false => failed(
            "versions",
            detail,
            "the session runs another build of the plugin: run `zellij-mcp setup` to install \
             this one, then restart the session",
        ),
    }
}

fn empty_as_unknown(text: &str) -> &str {
    if text.is_empty() {
        "unknown"
    } else {
        text
    }
}

fn millis(elapsed: Duration) -> String {
    format!("{:.2} ms", elapsed.as_secs_f64() * 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::processes::{linux::Procfs, Unknowing};

    #[test]
    fn the_processes_check_says_what_the_platform_tells() {
        let linux = process_table(&Procfs::at(Path::new("/proc")));
        assert_eq!(
            (linux.status, linux.detail.starts_with("Linux: pane states")),
            (Status::Ok, true)
        );
        let none = process_table(&Unknowing("nowhere"));
        assert_eq!(none.status, Status::Failed);
        assert!(
            none.detail.contains("nowhere tells nothing"),
            "{}",
            none.detail
        );
    }
}
