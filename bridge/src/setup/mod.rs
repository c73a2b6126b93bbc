//! `zellij-mcp setup`: from nothing to a working setup in one command.
//!
//! It installs the plugin this binary carries, adds the `zellij-mcp` alias
//! to Zellij's config and loads it in every session (`load_plugins`), grants
//! the plugin's permissions in Zellij's permission cache, and prints the MCP
//! client config to paste (or adds it with `--client`). It first prints
//! each change and asks; `--yes` does not ask, `--dry-run` only prints. A
//! second run changes nothing; `--uninstall` undoes what it did.
//!
//! Beside it, what the bridge keeps of a setup: [`embedded`], the plugin
//! this binary carries (installed here, compared by `doctor`), and
//! [`agent_file`], the person's agent descriptions, checked and sent to
//! each session's plugin.

pub mod agent_file;
mod clients;
mod codex_config;
pub mod embedded;
pub mod grants;
pub mod hooks;
pub mod places;
mod record;
pub mod zellij_config;

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

pub use clients::{config_home, McpClient};
use clients::{paste_config, ClientStep};
use places::{shown, Places};
use record::Record;
use zellij_config::{Change, ZellijConfig};
use zellij_mcp_protocol::PERMISSIONS;

#[derive(Debug, clap::Args)]
pub struct SetupArgs {
    /// Apply the changes without asking.
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Only print what would change.
    #[arg(long)]
    pub dry_run: bool,
    /// Do not load the plugin in every session (load it from a layout).
    #[arg(long)]
    pub no_autoload: bool,
    /// Also add the server to this MCP client, with its own command or
    /// config file (repeatable).
    #[arg(long, value_enum)]
    pub client: Vec<McpClient>,
    /// Undo what setup did.
    #[arg(long)]
    pub uninstall: bool,
    /// Leave the agent programs' own settings without zellij-mcp's hooks.
    #[arg(long)]
    pub no_hooks: bool,
    /// Only take zellij-mcp's hooks out of the agent programs' settings.
    #[arg(long, conflicts_with_all = ["uninstall", "no_hooks"])]
    pub remove_hooks: bool,
    /// Zellij's config file (default: the one Zellij reads).
    #[arg(long)]
    pub config: Option<PathBuf>,
}

/// One change setup makes.
enum Step {
    /// Write `bytes` to `path` (`None`: remove the file).
    File {
        path: PathBuf,
        bytes: Option<Vec<u8>>,
        what: String,
    },
    /// Run an MCP client's own command.
    Run {
        program: String,
        args: Vec<String>,
        what: String,
    },
}

impl Step {
    fn what(&self) -> &str {
        match self {
            Step::File { what, .. } | Step::Run { what, .. } => what,
        }
    }

    fn apply(&self) -> Result<(), String> {
        match self {
            Step::File {
                path,
                bytes: Some(bytes),
                ..
            } => write_file(path, bytes),
            Step::File {
                path, bytes: None, ..
            } => match std::fs::remove_file(path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    Err(format!("removing {}: {e}", path.display()))
                }
                _ => Ok(()),
            },
            Step::Run { program, args, .. } => {
                let status = std::process::Command::new(program)
                    .args(args)
                    .stdin(std::process::Stdio::null())
                    .status()
                    .map_err(|e| format!("running {program}: {e}"))?;
                status
                    .success()
                    .then_some(())
                    .ok_or_else(|| format!("{program} {} failed: {status}", args.join(" ")))
            }
        }
    }
}

/// Runs setup; the exit code.
pub fn run(args: SetupArgs) -> i32 {
    let places = Places::find(args.config.clone());
    let planned = match (args.uninstall, args.remove_hooks) {
        (_, true) => Ok(hook_steps(false)),
        (false, _) => plan_install(&args, &places),
        (true, _) => plan_uninstall(&places),
    };
    let (steps, notes) = match planned {
        Ok(planned) => planned,
        Err(problem) => {
            eprintln!("zellij-mcp setup: {problem}");
            return 2;
        }
    };
    for note in &notes {
        println!("{note}");
    }
    if steps.is_empty() {
        println!(
            "Nothing to change: zellij-mcp is {}.",
            if args.uninstall {
                "not set up"
            } else {
                "set up"
            }
        );
        return finish(&args);
    }
    println!("zellij-mcp setup will:");
    for (n, step) in steps.iter().enumerate() {
        println!("  {}. {}", n + 1, step.what());
    }
    if args.dry_run {
        println!("Dry run: nothing was changed.");
        return 0;
    }
    if !args.yes && !confirmed() {
        println!("Nothing was changed.");
        return 1;
    }
    for step in &steps {
        if let Err(problem) = step.apply() {
            eprintln!("zellij-mcp setup: {problem}");
            return 2;
        }
        println!("✓ {}", step.what());
    }
    finish(&args)
}

/// What to do next.
fn finish(args: &SetupArgs) -> i32 {
    if args.uninstall {
        return 0;
    }
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("zellij-mcp"));
    println!();
    if args.no_autoload {
        println!(
            "Load the plugin from a layout (see layouts/ in the project): plugin location=\"zellij-mcp\""
        );
    } else {
        println!("Every new Zellij session now loads the plugin: start one with `zellij`.");
    }
    println!(
        "Then add the server to your MCP client:\n{}",
        paste_config(&exe)
    );
    println!("`zellij-mcp doctor` checks a running session.");
    println!("\n{}", board_binding(&places::installed_plugin_url()));
    0
}

/// The key binding offered for the board of agents (Alt a is free in
/// Zellij's default keys), to paste into Zellij's config.
pub fn board_binding(url: &str) -> String {
    format!(
        "The board of agents (who needs you, one key away): `zellij-mcp board` opens it;\n\
         to open it with Alt a, add to Zellij's config.kdl:\n\
         keybinds {{\n    shared_except \"locked\" {{\n        bind \"Alt a\" {{\n            \
         LaunchOrFocusPlugin \"{url}\" {{\n                floating true\n                \
         move_to_focused_tab true\n                board \"true\"\n            }}\n        }}\n    }}\n}}"
    )
}

/// Asks on the terminal; refuses when there is none to ask on.
fn confirmed() -> bool {
    if !std::io::stdin().is_terminal() {
        println!("stdin is not a terminal: run again with --yes to apply these changes.");
        return false;
    }
    print!("Apply these changes? [y/N] ");
    let _ = std::io::stdout().flush();
    let mut answer = String::new();
    let _ = std::io::stdin().lock().read_line(&mut answer);
    matches!(answer.trim(), "y" | "Y" | "yes")
}

fn plan_install(args: &SetupArgs, places: &Places) -> Result<(Vec<Step>, Vec<String>), String> {
    if !embedded::carries_plugin() {
        return Err(
            "this zellij-mcp was built without its plugin; build and install both \
                    with `make install` (the plugin is built first)"
                .into(),
        );
    }
    let mut record = Record::load(&places.record);
    let mut steps = Vec::new();
    let mut notes = Vec::new();

    let installed = std::fs::read(&places.plugin).ok();
    if installed.as_deref() != Some(embedded::PLUGIN_WASM) {
        let what = match installed {
            None => "install",
            Some(_) => "replace (with this build)",
        };
        steps.push(Step::File {
            path: places.plugin.clone(),
            bytes: Some(embedded::PLUGIN_WASM.to_vec()),
            what: format!(
                "{what} the plugin, build {}, at {}",
                embedded::PLUGIN_BUILD_ID,
                shown(&places.plugin)
            ),
        });
        if what != "install" {
            notes.push(
                "Sessions running now keep the plugin they loaded until they are restarted; \
                 `zellij-mcp doctor` tells which build a session runs."
                    .to_owned(),
            );
        }
    }

    let (config_text, made_config) = read_text(&places.config)?;
    let mut config = ZellijConfig::parse(&config_text).map_err(|e| {
        format!(
            "{}: {e}; fix it, then run setup again",
            shown(&places.config)
        )
    })?;
    let alias = config.set_alias(&places.plugin_url());
    let autoload = match args.no_autoload {
        true => Change::Unchanged,
        false => config.set_autoload(),
    };
    if (alias, autoload) != (Change::Unchanged, Change::Unchanged) {
        record.made_config |= made_config;
        record.made_alias_block |= alias == Change::AddedBlock;
        record.made_autoload_block |= autoload == Change::AddedBlock;
        let mut what = format!(
            "{} {}: the plugin alias `zellij-mcp`",
            if made_config { "create" } else { "edit" },
            shown(&places.config)
        );
        if autoload != Change::Unchanged {
            what.push_str(", loaded in every session (load_plugins)");
        }
        if !made_config {
            what.push_str("; the rest of the file is kept as it is");
        }
        steps.push(Step::File {
            path: places.config.clone(),
            bytes: Some(config.text().into_bytes()),
            what,
        });
    }

    let (grants_text, made_permissions) = read_text(&places.permissions)?;
    let plugin_path = places.plugin.display().to_string();
    if let Some(granted) = grants::grant(&grants_text, &plugin_path)? {
        record.made_permissions |= made_permissions;
        steps.push(Step::File {
            path: places.permissions.clone(),
            bytes: Some(granted.into_bytes()),
            what: format!(
                "grant the plugin its permissions in {} (your consent, as answering `y` in \
                 Zellij would be): {}",
                shown(&places.permissions),
                PERMISSIONS.join(", ")
            ),
        });
    }

    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("zellij-mcp"));
    for client in &args.client {
        match client_step(
            *client,
            clients::add(*client, &exe),
            "add the zellij server to",
        ) {
            Ok(step) => {
                if !record.clients.iter().any(|c| c == client.name()) {
                    record.clients.push(client.name().to_owned());
                }
                steps.push(step);
            }
            Err(note) => notes.push(note),
        }
    }

    if !args.no_hooks {
        let (hooks, hook_notes) = hook_steps(true);
        steps.extend(hooks);
        notes.extend(hook_notes);
    }

    if !steps.is_empty() && Record::load(&places.record) != record {
        steps.push(record_step(places, &record));
    }
    Ok((steps, notes))
}

/// Adding zellij-mcp's hooks to (or, `add` false, taking them out of) the
/// settings of each installed agent program that takes them there.
fn hook_steps(add: bool) -> (Vec<Step>, Vec<String>) {
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("zellij-mcp"));
    let (edits, notes) = hooks::edits(&agent_file::programs(), &exe, add);
    let steps = edits.into_iter().map(|edit| {
        let what = match add {
            true => format!(
                "add zellij-mcp's hooks to {} ({}): it then tells its own state, your own settings and hooks kept",
                shown(&edit.path),
                edit.program
            ),
            false => format!(
                "take zellij-mcp's hooks out of {} ({})",
                shown(&edit.path),
                edit.program
            ),
        };
        Step::File {
            path: edit.path,
            bytes: edit.text.map(String::into_bytes),
            what,
        }
    });
    (steps.collect(), notes)
}

fn plan_uninstall(places: &Places) -> Result<(Vec<Step>, Vec<String>), String> {
    let record = Record::load(&places.record);
    let mut steps = Vec::new();
    let mut notes = Vec::new();

    let (config_text, missing) = read_text(&places.config)?;
    if !missing {
        let mut config = ZellijConfig::parse(&config_text).map_err(|e| {
            format!(
                "{}: {e}; fix it, then run setup again",
                shown(&places.config)
            )
        })?;
        let removed_alias = config.remove_alias(record.made_alias_block);
        let removed_load = config.remove_autoload(record.made_autoload_block);
        if removed_alias || removed_load {
            let text = config.text();
            let bytes = match record.made_config && text.trim().is_empty() {
                true => None,
                false => Some(text.into_bytes()),
            };
            steps.push(Step::File {
                path: places.config.clone(),
                what: format!(
                    "{} {}: the plugin alias and its load_plugins line",
                    if bytes.is_none() {
                        "remove the file setup made,"
                    } else {
                        "edit"
                    },
                    shown(&places.config)
                ),
                bytes,
            });
        }
    }

    let (grants_text, _) = read_text(&places.permissions)?;
    let plugin_path = places.plugin.display().to_string();
    if let Some(revoked) = grants::revoke(&grants_text, &plugin_path)? {
        let bytes = match record.made_permissions && revoked.trim().is_empty() {
            true => None,
            false => Some(revoked.into_bytes()),
        };
        steps.push(Step::File {
            path: places.permissions.clone(),
            bytes,
            what: format!(
                "take back the plugin's permissions in {}",
                shown(&places.permissions)
            ),
        });
    }

    for name in &record.clients {
        let Some(client) = McpClient::from_name(name) else {
            continue;
        };
        match client_step(
            client,
            clients::remove(client),
            "remove the zellij server from",
        ) {
            Ok(step) => steps.push(step),
            Err(note) => notes.push(note),
        }
    }

    for (path, what) in [
        (&places.plugin, "the plugin"),
        (&places.record, "setup's record"),
    ] {
        if path.exists() {
            steps.push(Step::File {
                path: path.clone(),
                bytes: None,
                what: format!("remove {what}, {}", shown(path)),
            });
        }
    }
    let (hooks, hook_notes) = hook_steps(false);
    steps.extend(hooks);
    notes.extend(hook_notes);
    Ok((steps, notes))
}

fn record_step(places: &Places, record: &Record) -> Step {
    Step::File {
        path: places.record.clone(),
        bytes: Some(record.to_bytes()),
        what: format!(
            "note what setup did in {}, for --uninstall",
            shown(&places.record)
        ),
    }
}

/// A client's step, or why there is none.
fn client_step(client: McpClient, step: ClientStep, doing: &str) -> Result<Step, String> {
    let name = client.name();
    match step {
        ClientStep::Run { program, args } => Ok(Step::Run {
            what: format!("{doing} {program}: {program} {}", args.join(" ")),
            program,
            args,
        }),
        ClientStep::Write { path, text } => Ok(Step::File {
            what: format!("{doing} {name}: {} (rewritten as plain JSON)", shown(&path)),
            path,
            bytes: Some(text.into_bytes()),
        }),
        ClientStep::Remove { path } => Ok(Step::File {
            what: format!(
                "{doing} {name}: remove {}, which held nothing else",
                shown(&path)
            ),
            path,
            bytes: None,
        }),
        ClientStep::Skip(why) => Err(format!("Client: {why}.")),
    }
}

/// A text file's content, and whether it is missing (then empty).
fn read_text(path: &Path) -> Result<(String, bool), String> {
    match std::fs::read(path) {
        Ok(bytes) if bytes.len() > 4 * 1024 * 1024 => Err(format!(
            "{} is over 4 MiB; is it the right file?",
            shown(path)
        )),
        Ok(bytes) => String::from_utf8(bytes)
            .map(|text| (text, false))
            .map_err(|_| format!("{} is not UTF-8 text", shown(path))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok((String::new(), true)),
        Err(e) => Err(format!("reading {}: {e}", shown(path))),
    }
}

/// Writes `bytes` to `path` through a temporary file beside it, so a
/// crash never leaves half a file; an existing file keeps its mode.
fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("writing {}: {e}", path.display());
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    let temporary = path.with_extension("zellij-mcp-new");
    std::fs::write(&temporary, bytes).map_err(fail)?;
    if let Ok(meta) = std::fs::metadata(path) {
        std::fs::set_permissions(&temporary, meta.permissions()).map_err(fail)?;
    }
    std::fs::rename(&temporary, path).map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_board_binding_offered_is_a_valid_keybinds_block() {
        let offered = board_binding("file:/home/u/.local/share/zellij-mcp/zellij-mcp.wasm");
        let block = &offered[offered.find("keybinds").unwrap()..];
        let config = ZellijConfig::parse(block).expect("valid KDL");
        assert!(config
            .text()
            .contains("LaunchOrFocusPlugin \"file:/home/u/"));
        assert!(block.contains("board \"true\""));
    }
}
