//! The ways one read or write reaches a pane, side by side: through the
//! bridge over MCP (socket and CLI transports), straight down the bridge's
//! channel to the plugin, one `zellij pipe` process per call, and Zellij's
//! own CLI actions.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{json, Value};
use zellij_mcp_harness::{Mcp, Session};

use crate::channel::Channel;
use crate::table::{measure, Stats, Table};

pub struct Paths {
    pub socket: Mcp,
    pub cli: Mcp,
    raw_socket: Channel,
    raw_cli: Channel,
    /// A pane whose program takes any input and shows none.
    pub sink: Value,
    piped: AtomicU64,
}

impl Paths {
    pub fn open(session: &Session, bridge: &Path) -> Paths {
        let socket = Mcp::start(bridge, session.sandbox(), &["--transport", "socket"]);
        let cli = Mcp::start(bridge, session.sandbox(), &["--transport", "cli"]);
        let script = "stty -icanon -echo; exec cat > /dev/null";
        // Not relayed: the rows compare the ways to Zellij and the plugin.
        let args = json!({"command": ["sh", "-c", script], "wait": false, "placement": "tiled", "relay": false});
        let sink = socket.ok("zellij_run", args)["pane_id"].clone();
        Paths {
            socket,
            cli,
            raw_socket: Channel::socket(session),
            raw_cli: Channel::cli(session),
            sink,
            piped: AtomicU64::new(0),
        }
    }

    pub fn reads(&self, table: &mut Table, session: &Session, rounds: usize) {
        let args = json!({"pane_id": "terminal_0"});
        let [socket, cli, raw_socket, raw_cli, pipe] =
            self.each_path(table, rounds, "zellij_read", "read", &args, session);
        let dump = table.timed(
            "`zellij action dump-screen --pane-id`",
            measure(rounds, || {
                session.dump_screen("terminal_0", false);
            }),
            "",
        );
        table.note(&format!(
            "via MCP is {:.1}× faster on the socket, {:.1}× on the CLI (target ≥ 10×); \
             MCP adds {:+.2} ms to the raw socket round trip, {:+.2} ms to the CLI one (target ≤ 0.2); \
             one `zellij pipe` per call {:.1}× slower than via MCP",
            dump.p50 / socket.p50,
            dump.p50 / cli.p50,
            socket.p50 - raw_socket.p50,
            cli.p50 - raw_cli.p50,
            pipe.p50 / socket.p50,
        ));
    }

    pub fn writes(&self, table: &mut Table, session: &Session, rounds: usize) {
        let args = json!({"pane_id": self.sink, "text": "x"});
        let [socket, cli, raw_socket, _, _] =
            self.each_path(table, rounds, "zellij_write", "write", &args, session);
        let pane = self.sink.as_str().expect("pane id");
        let mut failed = 0;
        let chars = table.timed(
            "`zellij action write-chars --pane-id`",
            measure(rounds, || {
                let mut cmd = session.sandbox().zellij();
                cmd.args(["--session", session.name(), "action", "write-chars"]);
                let status = cmd.args(["--pane-id", pane, "x"]).status();
                failed += usize::from(!status.is_ok_and(|s| s.success()));
            }),
            "",
        );
        if failed > 0 {
            table.note(&format!("{failed} of its calls failed"));
        }
        table.note(&format!(
            "via MCP is {:.1}× faster on the socket, {:.1}× on the CLI; MCP adds {:+.2} ms to the raw socket round trip",
            chars.p50 / socket.p50,
            chars.p50 / cli.p50,
            socket.p50 - raw_socket.p50,
        ));
    }

    /// The tool via MCP on each transport, its op straight down each
    /// channel, and the op in one `zellij pipe` per call: one row each.
    fn each_path(
        &self,
        table: &mut Table,
        rounds: usize,
        tool: &str,
        op: &str,
        args: &Value,
        session: &Session,
    ) -> [Stats; 5] {
        let mut via = |label: &str, call: &dyn Fn()| {
            call(); // connects, warms up
            table.timed(label, measure(rounds, call), "")
        };
        let socket = via(&format!("{tool} via MCP, socket"), &|| {
            self.socket.ok(tool, args.clone());
        });
        let cli = via(&format!("{tool} via MCP, CLI"), &|| {
            self.cli.ok(tool, args.clone());
        });
        let raw_socket = via(&format!("`{op}` straight to the plugin, socket"), &|| {
            self.raw_socket.call(op, args.clone());
        });
        let raw_cli = via(
            &format!("`{op}` straight to the plugin, persistent `zellij pipe`"),
            &|| {
                self.raw_cli.call(op, args.clone());
            },
        );
        let url = session.sandbox().plugin_url();
        let pipe = via(
            &format!("`{op}` in one `zellij pipe` process per call"),
            &|| {
                let n = self.piped.fetch_add(1, Ordering::Relaxed);
                let request = json!({"v": 1, "id": format!("piped-{n}"), "op": op, "args": args});
                session
                    .pipe(Some(&url), &request.to_string())
                    .expect("zellij pipe");
            },
        );
        [socket, cli, raw_socket, raw_cli, pipe]
    }
}
