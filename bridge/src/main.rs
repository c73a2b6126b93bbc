//! The `zellij-mcp` binary: options, logging, and the MCP server on stdio
//! (see the library for the rest).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use rmcp::ServiceExt;

use zellij_mcp::commands::agents::{self, AgentsArgs};
use zellij_mcp::commands::call::{self, CallArgs};
use zellij_mcp::commands::doctor::{self, DoctorArgs};
use zellij_mcp::commands::notify::{notify, NotifyArgs};
use zellij_mcp::commands::record::{self, RecordArgs};
use zellij_mcp::commands::{hook, launch};
use zellij_mcp::processes::{self, leftovers};
use zellij_mcp::relay;
use zellij_mcp::replies::conversation;
use zellij_mcp::server::http::{self, ServeArgs};
use zellij_mcp::server::own_pane::OwnPane;
use zellij_mcp::setup::places::installed_plugin_url;
use zellij_mcp::setup::{self, SetupArgs};
use zellij_mcp::tmux::{self, launch::ClaudeArgs};
use zellij_mcp::tools;
use zellij_mcp::transport::client::{ClientConfig, PluginClient, TransportChoice};
use zellij_mcp::transport::exit_report;
use zellij_mcp::transport::sessions::SessionDefaults;
use zellij_mcp_protocol::agent_programs::Record;
use zellij_mcp_protocol::ops::{DeliveryStatus, ProcessMark};

#[derive(Debug, Parser)]
#[command(
    name = "zellij-mcp",
    version,
    about = "MCP server for driving a live Zellij session"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    /// Session to act in when a tool call names none.
    #[arg(long, global = true, env = "ZELLIJ_MCP_SESSION")]
    session: Option<String>,

    /// How to reach the plugin.
    #[arg(
        long,
        global = true,
        env = "ZELLIJ_MCP_TRANSPORT",
        value_enum,
        default_value = "auto"
    )]
    transport: TransportChoice,

    /// Plugin URL to use when the loaded plugin does not report its own.
    #[arg(long, global = true, env = "ZELLIJ_MCP_PLUGIN_URL")]
    plugin_url: Option<String>,

    /// Per-request timeout, in milliseconds.
    #[arg(
        long,
        global = true,
        env = "ZELLIJ_MCP_TIMEOUT_MS",
        default_value_t = 10_000
    )]
    timeout_ms: u64,

    /// The zellij binary (for the CLI transport and session listing).
    #[arg(
        long,
        global = true,
        env = "ZELLIJ_MCP_ZELLIJ",
        default_value = "zellij"
    )]
    zellij: PathBuf,

    /// Only list and allow the tools that change nothing (list, read, wait).
    #[arg(long, env = "ZELLIJ_MCP_READ_ONLY", value_parser = clap::builder::BoolishValueParser::new())]
    read_only: bool,

    /// Append one JSON line per call of a tool that changes something;
    /// typed text is kept only as a SHA-256 hash and a length.
    #[arg(long, env = "ZELLIJ_MCP_AUDIT_LOG")]
    audit_log: Option<PathBuf>,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Send a message to an agent's pane from a shell; prints its seq and
    /// status (delivered, queued or failed). Exit code 0 when delivered or
    /// queued, 1 when it failed, 2 on an error.
    Notify(NotifyArgs),
    /// Install the plugin this binary carries, load it in every Zellij
    /// session, grant its permissions, and print the MCP client config.
    Setup(SetupArgs),
    /// Call a tool from a shell (as an MCP client would); tables and text
    /// for people, `--json` for scripts; exit code 1 when the tool fails.
    Call(CallArgs),
    /// List the tools, one line each.
    Tools,
    /// The session's agents, who needs you first: state and for how long,
    /// messages held for each and why, the last message in and out.
    Agents(AgentsArgs),
    /// Open the board of agents in this session (a floating pane; arrows
    /// move, Enter goes to the agent, Esc hides it).
    Board,
    /// Check Zellij, the plugin, its permissions and the session, and say
    /// how to fix what is wrong; exit code 1 when a check fails.
    Doctor(DoctorArgs),
    /// Serve MCP over streamable HTTP (each client needs the bearer token),
    /// for an agent on another machine; SSH stdio is the other way.
    Serve(ServeArgs),
    /// Act out a tmux command line on this Zellij session's panes (what
    /// Claude Code's agent teams issue); also run as `tmux` through a link.
    Tmux(TmuxArgs),
    /// Start Claude Code in this pane with `zellij-mcp tmux` as its tmux,
    /// so that agent teams open their teammates in Zellij panes.
    Claude(ClaudeArgs),
    /// What a pane opened by `tmux` runs first (internal).
    #[command(name = "tmux-pane", hide = true)]
    TmuxPane { spec: PathBuf },
    /// What a shell run's script waits in until its output is read
    /// (internal).
    #[command(name = "read-wait", hide = true)]
    ReadWait { script: PathBuf },
    /// What a shell run's script sends its exit report with (internal).
    #[command(name = "exit-report", hide = true)]
    ExitReport {
        #[arg(long)]
        socket: PathBuf,
        #[arg(short = 'p', long)]
        plugin: String,
        #[arg(long, default_value = "")]
        configuration: String,
        payload: String,
    },
    /// Which conversation an agent program's process holds, as one JSON
    /// line (run by the plugin; internal).
    #[command(name = "conversation", hide = true)]
    Conversation {
        /// The format of its record (`codex`, ...).
        #[arg(long)]
        record: String,
        #[arg(long)]
        pid: u32,
        #[arg(long)]
        cwd: Option<String>,
    },
    /// What an agent program's hook tells, from its payload on stdin (or
    /// as the last argument, as Codex's notify passes it). Run by the
    /// program's hooks; always exits 0, printing nothing.
    #[command(name = "hook", hide = true)]
    Hook {
        /// The payload as the last word, where the program passes it so.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        words: Vec<String>,
    },
    /// Tells the plugin the program in the foreground of this relayed pane
    /// (run by its relay; internal).
    #[command(name = "foreground", hide = true)]
    Foreground {
        #[arg(long)]
        cwd: Option<String>,
        /// The file the pane is recorded to, while it is.
        #[arg(long)]
        recording: Option<String>,
        /// The state its live screen shows (`idle`, `working`, ...).
        #[arg(long)]
        screen: Option<String>,
        /// When the relay read that screen (Unix ms).
        #[arg(long)]
        screen_at: Option<u64>,
        /// Its command line.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
        argv: Vec<String>,
    },
    /// Starts a program zellij-mcp opens a pane for: with zellij-mcp's
    /// hooks for this launch where its description gives them, under the
    /// relay with --relay, becoming the program (run by the plugin;
    /// internal).
    #[command(name = "launch", hide = true)]
    Launch {
        /// Run the program under the relay.
        #[arg(long)]
        relay: bool,
        #[command(flatten)]
        record: RecordOptions,
        /// The program and its arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
        argv: Vec<String>,
    },
    /// Begin recording a pane whose program runs under `relay`, from its
    /// screen as it is (asciicast v2), or end it (--stop); prints where it
    /// goes.
    Record(RecordArgs),
    /// Become a program run on a pty of a relay's own, inside this pane:
    /// bytes both ways unchanged, the window size following the pane's;
    /// the pane's process is the program itself (docs/relay.md).
    Relay {
        #[command(flatten)]
        record: RecordOptions,
        /// The program and its arguments, after `--`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
        argv: Vec<String>,
    },
    /// Ends the processes an agent left running when its session ended, as
    /// `conversation` marked them (run by the plugin; internal).
    #[command(name = "end-leftovers", hide = true)]
    EndLeftovers {
        /// Their marks, as JSON.
        marks: String,
    },
}

/// What a relayed pane records.
#[derive(Debug, clap::Args)]
struct RecordOptions {
    /// Record the pane as asciicast v2 to this file (`asciinema play`
    /// plays it); at most 64 MiB.
    #[arg(long)]
    record: Option<PathBuf>,
    /// With --record: record what is typed too.
    #[arg(long, requires = "record")]
    record_input: bool,
}

impl RecordOptions {
    fn record(&self) -> relay::Record {
        relay::Record {
            to: self.record.clone(),
            typed_too: self.record_input,
        }
    }
}

#[derive(Debug, clap::Args)]
struct TmuxArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

/// The command line, or as `tmux` (a link named so) a `tmux` one.
fn command_line() -> Cli {
    let mut argv = std::env::args();
    let invoked = argv.next().unwrap_or_default();
    if Path::new(&invoked).file_name() != Some("tmux".as_ref()) {
        return Cli::parse();
    }
    let mut cli = Cli::parse_from(["zellij-mcp"]);
    cli.command = Some(Command::Tmux(TmuxArgs {
        args: argv.collect(),
    }));
    cli
}

fn non_empty_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cli = command_line();
    // The relay forks: it runs before any thread of the runtime exists.
    match &cli.command {
        Some(Command::Relay { record, argv }) => {
            std::process::exit(relay::run(argv, &record.record()));
        }
        Some(Command::Launch {
            relay,
            record,
            argv,
        }) => {
            let relay = relay.then(|| record.record());
            eprintln!("zellij-mcp launch: {}", launch::run(argv, relay.as_ref()));
            std::process::exit(127);
        }
        _ => {}
    }
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(serve(cli))
}

async fn serve(cli: Cli) -> Result<(), Box<dyn std::error::Error>> {
    let command = cli.command;
    // A hook prints nothing: its program may show what it prints.
    let filter = match command {
        Some(Command::Hook { .. } | Command::Foreground { .. }) => {
            tracing_subscriber::EnvFilter::new("off")
        }
        _ => tracing_subscriber::EnvFilter::try_from_env("ZELLIJ_MCP_LOG")
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
    };
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(filter)
        .init();
    if command.is_some() && !matches!(command, Some(Command::Serve(_))) {
        // A command for people ends quietly when its reader does (`| head`).
        // SAFETY: restoring a signal's default action has no preconditions.
        unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    }
    match command {
        Some(Command::Setup(args)) => std::process::exit(setup::run(args)),
        Some(Command::Claude(args)) => std::process::exit(tmux::launch::run(args)),
        Some(Command::TmuxPane { spec }) => {
            eprintln!("zellij-mcp tmux-pane: {}", tmux::run_pane(&spec));
            std::process::exit(127);
        }
        Some(Command::ReadWait { script }) => {
            zellij_mcp::tools::in_shell::wait_until_read(&script);
            std::process::exit(0);
        }
        Some(Command::ExitReport {
            socket,
            plugin,
            configuration,
            payload,
        }) => {
            let sent = exit_report::send(&socket, &plugin, &configuration, &payload);
            std::process::exit(i32::from(sent.is_err()));
        }
        Some(Command::Conversation { record, pid, cwd }) => {
            let found = Record::named(&record)
                .and_then(|record| conversation::of(record, pid, cwd.as_deref()));
            if let Some(found) = &found {
                println!("{}", serde_json::to_string(found).unwrap_or_default());
            }
            std::process::exit(i32::from(found.is_none()));
        }
        Some(Command::EndLeftovers { marks }) => {
            let Ok(marks) = serde_json::from_str::<Vec<ProcessMark>>(&marks) else {
                std::process::exit(2);
            };
            let ended = leftovers::end(processes::table(), &marks);
            println!("{}", serde_json::json!({ "ended": ended }));
            return Ok(());
        }
        _ => {}
    }

    let enclosing = non_empty_env("ZELLIJ_SESSION_NAME");
    let pane = non_empty_env("ZELLIJ_PANE_ID")
        .and_then(|id| id.parse().ok())
        .map(zellij_mcp_protocol::PaneRef::terminal);
    let config = ClientConfig {
        transport: cli.transport,
        zellij: cli.zellij,
        plugin_url: cli.plugin_url.unwrap_or_else(installed_plugin_url),
        timeout: Duration::from_millis(cli.timeout_ms),
        sessions: SessionDefaults {
            configured: cli.session,
            enclosing: enclosing.clone(),
        },
        agents_file: Some(zellij_mcp::setup::agent_file::path()),
    };
    let options = tools::Options {
        read_only: cli.read_only,
        audit_log: cli.audit_log,
    };
    if let Some(Command::Serve(args)) = command {
        // Each HTTP client is an MCP session of its own, with a client of its own.
        let new_server = move || {
            let client = PluginClient::new(config.clone());
            let own_pane = OwnPane::new(enclosing.clone(), pane);
            tools::ZellijMcp::new(Arc::new(client), own_pane, &options)
        };
        std::process::exit(http::serve(args, new_server).await);
    }
    let own_pane = OwnPane::new(enclosing, pane);
    let client = PluginClient::new(config);
    match command {
        Some(Command::Doctor(args)) => std::process::exit(doctor::run(&client, args).await),
        Some(Command::Agents(args)) => std::process::exit(agents::run(&client, args).await),
        Some(Command::Board) => std::process::exit(agents::open_board(&client).await),
        Some(Command::Record(args)) => std::process::exit(record::run(&client, args).await),
        Some(Command::Tmux(args)) => std::process::exit(tmux::run(&client, args.args).await),
        Some(Command::Hook { mut words }) => {
            hook::run(&client, words.pop()).await;
            std::process::exit(0)
        }
        Some(Command::Foreground {
            cwd,
            recording,
            screen,
            screen_at,
            argv,
        }) => {
            hook::foreground(&client, argv, cwd, (recording, screen, screen_at)).await;
            std::process::exit(0)
        }
        _ => {}
    }
    let server = tools::ZellijMcp::new(Arc::new(client), own_pane, &options)?;
    let code = match command {
        None => {
            let settled = server.clone();
            let service = server.serve(rmcp::transport::stdio()).await?;
            service.waiting().await?;
            settled.settle().await;
            return Ok(());
        }
        Some(Command::Call(args)) => call::call(server, args).await,
        Some(Command::Tools) => call::list(server).await,
        Some(Command::Notify(args)) => notify_from_shell(&server, args).await,
        Some(
            Command::Setup(_)
            | Command::Tmux(_)
            | Command::Doctor(_)
            | Command::Agents(_)
            | Command::Board
            | Command::Record(_)
            | Command::Serve(_)
            | Command::Claude(_)
            | Command::TmuxPane { .. }
            | Command::ReadWait { .. }
            | Command::ExitReport { .. }
            | Command::Conversation { .. }
            | Command::EndLeftovers { .. }
            | Command::Hook { .. }
            | Command::Foreground { .. }
            | Command::Launch { .. }
            | Command::Relay { .. },
        ) => {
            unreachable!("handled above")
        }
    };
    std::process::exit(code);
}

/// `notify`: prints the message's seq and status; the exit code.
async fn notify_from_shell(server: &tools::ZellijMcp, args: NotifyArgs) -> i32 {
    match notify(server, args).await {
        Ok(sent) => {
            let status = serde_json::to_value(sent.status).unwrap_or_default();
            println!("{} {}", sent.seq, status.as_str().unwrap_or_default());
            i32::from(sent.status == DeliveryStatus::Failed)
        }
        Err(error) => {
            eprintln!("zellij-mcp notify: {error}");
            2
        }
    }
}
