//! Isolated Zellij sessions: every folder Zellij touches lives in a temp dir.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize};

use crate::{built_plugin, poll_for, zellij_bin};

pub struct Sandbox {
    dir: tempfile::TempDir,
    zellij: PathBuf,
}

/// Sandboxes are `/tmp/zm…` folders.
const PREFIX: &str = "zm";
/// The file in a sandbox naming the process that made it.
const OWNER: &str = "owner";

/// Stops what runs in the sandboxes of processes that are gone, and removes
/// those sandboxes: a test or bench killed by a timeout runs no destructor,
/// and its sessions' programs would load the machine for every later run.
fn sweep_abandoned() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| sweep_in(Path::new("/tmp")));
}

/// [`sweep_abandoned`] in the folder `root`.
fn sweep_in(root: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for dir in entries.flatten().map(|entry| entry.path()) {
        let named = dir.file_name().and_then(|n| n.to_str());
        if !named.is_some_and(|n| n.starts_with(PREFIX)) {
            continue;
        }
        let owner = std::fs::read_to_string(dir.join(OWNER)).ok();
        let Some(owner) = owner.and_then(|pid| pid.trim().parse::<u32>().ok()) else {
            continue;
        };
        if !Path::new("/proc").join(owner.to_string()).exists() {
            kill_processes_of(&dir);
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

/// Kills the processes that run in the sandbox `dir`: those whose command
/// line or environment names it. A session's server names its socket there,
/// and every program in its panes inherits the sandbox's environment, with
/// what it starts: an agent program that starts itself again as a child
/// outlives its terminal, and would load the machine for every later test.
fn kill_processes_of(dir: &Path) {
    // With its slash: another sandbox's name may start with this one's.
    let mut needle = dir.as_os_str().as_bytes().to_vec();
    needle.push(b'/');
    let Ok(processes) = std::fs::read_dir("/proc") else {
        return;
    };
    for process in processes.flatten() {
        let Some(pid) = process
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let names_it = ["cmdline", "environ"].iter().any(|file| {
            std::fs::read(process.path().join(file)).is_ok_and(|text| {
                text.windows(needle.len())
                    .any(|part| part == needle.as_slice())
            })
        });
        if names_it && pid != std::process::id() {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        }
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        kill_processes_of(self.dir.path());
    }
}

impl Default for Sandbox {
    fn default() -> Self {
        Self::new()
    }
}

impl Sandbox {
    /// A fresh sandbox with the built plugin installed and its permissions granted.
    pub fn new() -> Self {
        let sandbox = Self::without_plugin();
        std::fs::copy(built_plugin(), sandbox.installed_plugin()).expect("install plugin");
        let grants: String = zellij_mcp_protocol::PERMISSIONS
            .iter()
            .map(|p| format!("    {p}\n"))
            .collect();
        std::fs::write(
            sandbox.root().join("cache/zellij/permissions.kdl"),
            format!(
                "\"{}\" {{\n{grants}}}\n",
                sandbox.installed_plugin().display()
            ),
        )
        .expect("permissions.kdl");
        sandbox
    }

    /// A fresh sandbox as a new user has it: Zellij's folders and a config
    /// without first-run screens, no plugin and no permissions.
    pub fn without_plugin() -> Self {
        sweep_abandoned();
        // A short root keeps the socket path under the 108-byte limit.
        let dir = tempfile::Builder::new()
            .prefix(PREFIX)
            .tempdir_in("/tmp")
            .expect("temp dir");
        std::fs::write(dir.path().join(OWNER), std::process::id().to_string()).expect("owner");
        let sandbox = Sandbox {
            dir,
            zellij: zellij_bin(),
        };
        for sub in [
            "s",
            "cache/zellij",
            "cfg",
            "tmp",
            "run",
            "work",
            "home/.local/share/zellij-mcp",
        ] {
            std::fs::create_dir_all(sandbox.root().join(sub)).expect("sandbox dirs");
        }
        std::fs::write(
            sandbox.config_file(),
            "show_startup_tips false\nshow_release_notes false\nsession_serialization false\n",
        )
        .expect("config.kdl");
        sandbox
    }

    /// Zellij's `config.kdl` here.
    /// Zellij saves this sandbox's sessions every second, so an ended one
    /// can be brought back (`zellij attach`).
    pub fn keeping_sessions(self) -> Self {
        std::fs::write(
            self.config_file(),
            "show_startup_tips false\nshow_release_notes false\nsession_serialization true\nserialization_interval 1\n",
        )
        .expect("config.kdl");
        self
    }

    pub fn config_file(&self) -> PathBuf {
        self.root().join("cfg/config.kdl")
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// The person's agent descriptions, where the bridge reads them.
    pub fn agents_file(&self) -> PathBuf {
        self.root().join("home/.config/zellij-mcp/agents.kdl")
    }

    /// A folder for files the tests' programs write.
    pub fn work(&self) -> PathBuf {
        self.root().join("work")
    }

    /// Where `make install` would put the plugin, inside the sandbox home.
    pub fn installed_plugin(&self) -> PathBuf {
        self.root()
            .join("home/.local/share/zellij-mcp/zellij-mcp.wasm")
    }

    pub fn plugin_url(&self) -> String {
        format!("file:{}", self.installed_plugin().display())
    }

    pub fn zellij_path(&self) -> &Path {
        &self.zellij
    }

    /// The environment every Zellij process (and the bridge) gets here.
    pub fn env(&self) -> Vec<(OsString, OsString)> {
        let root = self.root();
        [
            ("ZELLIJ_SOCKET_DIR", root.join("s")),
            ("ZELLIJ_CONFIG_DIR", root.join("cfg")),
            ("XDG_CACHE_HOME", root.join("cache")),
            ("HOME", root.join("home")),
            ("XDG_CONFIG_HOME", root.join("home/.config")),
            // Zellij's log goes to its temp folder: one log per sandbox.
            ("TMPDIR", root.join("tmp")),
            // Where a shell run's script goes (and nothing else of the host's).
            ("XDG_RUNTIME_DIR", root.join("run")),
            ("SHELL", PathBuf::from("/bin/sh")),
            ("EDITOR", crate::workspace_root().join("harness/editor/vim")),
        ]
        .into_iter()
        .map(|(k, v)| (k.into(), v.into_os_string()))
        .collect()
    }

    /// Zellij's log of this sandbox's sessions (the plugin's stderr lines
    /// among them); empty before Zellij writes it.
    pub fn zellij_log(&self) -> String {
        let Ok(dirs) = std::fs::read_dir(self.root().join("tmp")) else {
            return String::new();
        };
        dirs.flatten()
            .map(|dir| dir.path().join("zellij-log/zellij.log"))
            .filter_map(|log| std::fs::read(log).ok())
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .collect()
    }

    /// Each client's focused pane, as `zellij action list-clients` prints it.
    /// An empty answer (the CLI can fail while the server is busy) is asked again.
    pub fn client_focus_of(&self, session: &str) -> String {
        let mut last = String::new();
        for _ in 0..10 {
            let mut cmd = self.zellij();
            cmd.args(["--session", session, "action", "list-clients"]);
            if let Some(out) = run_with_timeout(cmd, Duration::from_secs(10)) {
                last = String::from_utf8_lossy(&out.stdout).trim().to_owned();
                if !last.is_empty() {
                    break;
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        last
    }

    /// A `zellij` command isolated to this sandbox.
    pub fn zellij(&self) -> Command {
        let mut cmd = Command::new(&self.zellij);
        for key in ci_markers() {
            cmd.env_remove(key);
        }
        cmd.envs(self.env())
            .env_remove("ZELLIJ")
            .env_remove("ZELLIJ_SESSION_NAME")
            .env_remove("ZELLIJ_PANE_ID")
            .current_dir(self.work())
            .stdin(Stdio::null());
        default_signals(&mut cmd);
        cmd
    }

    /// Starts a headless session with `layout`; with `wait_for_plugin`, returns
    /// once the plugin answers.
    pub fn start_session(self, name: &str, layout: &Path, wait_for_plugin: bool) -> Session {
        self.launch(name, Some(layout), wait_for_plugin);
        Session {
            sandbox: self,
            name: name.to_owned(),
        }
    }

    /// Starts a headless session as a plain `zellij` does, with Zellij's
    /// default layout and whatever the config loads; with `wait_for_plugin`,
    /// returns once the plugin answers.
    pub fn start_plain_session(self, name: &str, wait_for_plugin: bool) -> Session {
        self.launch(name, None, wait_for_plugin);
        Session {
            sandbox: self,
            name: name.to_owned(),
        }
    }

    /// Starts the session and waits until it answers. Zellij 0.45.1 now and
    /// then panics while a background session starts (it removes a client
    /// before the session exists); the session is then started again.
    fn launch(&self, name: &str, layout: Option<&Path>, wait_for_plugin: bool) {
        const ATTEMPTS: usize = 3;
        for attempt in 1..=ATTEMPTS {
            let mut zellij = self.zellij();
            if let Some(layout) = layout {
                zellij.arg("--new-session-with-layout").arg(layout);
            }
            let status = zellij
                .args(["attach", "--create-background", name])
                .stdout(Stdio::null())
                .status()
                .expect("start zellij");
            assert!(status.success(), "zellij failed to start session {name}");
            let up = || self.is_up(name, wait_for_plugin).then_some(());
            if poll_for(Duration::from_secs(20), up).is_some() {
                return;
            }
            eprintln!("session {name} did not come up (attempt {attempt} of {ATTEMPTS})");
            self.kill_session(name);
        }
        panic!("session {name} did not come up in {ATTEMPTS} attempts");
    }

    /// Whether the session answers: its plugin's hello says ready, or
    /// without the plugin, `list-panes` works.
    fn is_up(&self, name: &str, wait_for_plugin: bool) -> bool {
        if wait_for_plugin {
            let hello = r#"{"v":1,"id":"up","op":"hello","args":{}}"#;
            self.pipe(name, None, hello)
                .is_some_and(|out| String::from_utf8_lossy(&out.stdout).contains(r#""ready":true"#))
        } else {
            let mut cmd = self.zellij();
            cmd.args(["--session", name, "action", "list-panes"]);
            run_with_timeout(cmd, Duration::from_secs(5)).is_some_and(|out| out.status.success())
        }
    }

    /// `zellij pipe --name zellij-mcp [--plugin URL] -- payload` to a session,
    /// as a user would run it. `None` when it did not finish within 5 s.
    fn pipe(&self, session: &str, plugin_url: Option<&str>, payload: &str) -> Option<Output> {
        let mut cmd = self.zellij();
        cmd.args(["--session", session, "pipe", "--name", "zellij-mcp"]);
        if let Some(url) = plugin_url {
            cmd.args(["--plugin", url]);
        }
        cmd.args(["--", payload]);
        run_with_timeout(cmd, Duration::from_secs(5))
    }

    /// `zellij pipe --name zellij-mcp --plugin URL` with `lines` on its
    /// stdin (each line one message, of any size); `None` when it did not
    /// finish within `timeout`.
    fn pipe_lines(
        &self,
        session: &str,
        plugin_url: &str,
        lines: Vec<u8>,
        timeout: Duration,
    ) -> Option<Output> {
        let mut cmd = self.zellij();
        cmd.args([
            "--session",
            session,
            "pipe",
            "--name",
            "zellij-mcp",
            "--plugin",
            plugin_url,
        ]);
        cmd.stdin(Stdio::piped());
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn().ok()?;
        let mut stdin = child.stdin.take()?;
        std::thread::spawn(move || {
            let _ = stdin.write_all(&lines);
        });
        wait_with_timeout(child, timeout)
    }

    /// Kills and deletes a session of this sandbox.
    pub fn kill_session(&self, name: &str) {
        for args in [
            vec!["kill-session", name],
            vec!["delete-session", "--force", name],
        ] {
            let mut cmd = self.zellij();
            cmd.args(args);
            let _ = run_with_timeout(cmd, Duration::from_secs(10));
        }
    }
}

/// Variables that make programs in the panes (Ink apps among them) act as
/// in CI rather than in a user's terminal; sessions run without them.
/// Gives `cmd` the default handling of SIGINT and SIGQUIT: a script that
/// runs the tests as a background job ignores them, and the session (and
/// every pane in it) would inherit that, so a run killed by Ctrl-C would
/// not die of it.
fn default_signals(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: signal() is async-signal-safe, as pre_exec requires.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::signal(libc::SIGQUIT, libc::SIG_DFL);
            Ok(())
        });
    }
}

fn ci_markers() -> Vec<String> {
    std::env::vars()
        .map(|(key, _)| key)
        .filter(|key| key == "CI" || key == "CONTINUOUS_INTEGRATION" || key.starts_with("CI_"))
        .collect()
}

/// Runs `cmd`, killing it after `timeout`; `None` on timeout.
pub fn run_with_timeout(mut cmd: Command, timeout: Duration) -> Option<Output> {
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    wait_with_timeout(child, timeout)
}

/// The child's output once it exits, or `None` (killing it) after
/// `timeout`. Its output is read as it comes, so a child that prints more
/// than a pipe holds does not block.
fn wait_with_timeout(mut child: std::process::Child, timeout: Duration) -> Option<Output> {
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() < timeout => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    };
    Some(Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    })
}

/// A running session; killed and deleted on drop.
pub struct Session {
    sandbox: Sandbox,
    name: String,
}

impl Session {
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn sandbox(&self) -> &Sandbox {
        &self.sandbox
    }

    /// `zellij pipe --name zellij-mcp [--plugin URL] -- payload`, as a user would run it.
    /// `None` when it did not finish within 5 s.
    pub fn pipe(&self, plugin_url: Option<&str>, payload: &str) -> Option<Output> {
        self.sandbox.pipe(&self.name, plugin_url, payload)
    }

    /// `lines` piped to the plugin at `plugin_url` through `zellij pipe`'s
    /// stdin, as a user could; `None` when it did not finish within `timeout`.
    pub fn pipe_lines(
        &self,
        plugin_url: &str,
        lines: Vec<u8>,
        timeout: Duration,
    ) -> Option<Output> {
        self.sandbox
            .pipe_lines(&self.name, plugin_url, lines, timeout)
    }

    /// Another session of the same sandbox (so one bridge sees both), with
    /// the repo's layout; killed on drop.
    pub fn sibling(&self, name: &str) -> Sibling<'_> {
        self.sandbox.launch(name, Some(&crate::repo_layout()), true);
        Sibling {
            sandbox: &self.sandbox,
            name: name.to_owned(),
        }
    }

    /// The layout Zellij saved of the session, to bring it back from.
    pub fn saved_layout(&self) -> String {
        let saved = self
            .sandbox
            .root()
            .join("cache/zellij/contract_version_1/session_info")
            .join(&self.name)
            .join("session-layout.kdl");
        std::fs::read_to_string(saved).unwrap_or_default()
    }

    /// Ends the session as `how` says, leaving it to be brought back.
    pub fn end(&self, how: Ending) {
        match how {
            Ending::KillSession => {
                let mut cmd = self.sandbox.zellij();
                cmd.args(["kill-session", &self.name]);
                let _ = run_with_timeout(cmd, Duration::from_secs(10));
            }
            Ending::Crash => {
                // A pipe can end unanswered on a loaded machine: asked again.
                let pid = crate::wait_for("the server's pid", Duration::from_secs(20), || {
                    self.hello()?["zellij_pid"].as_u64()
                });
                let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            }
        }
        let listed = || {
            let mut cmd = self.sandbox.zellij();
            cmd.args(["list-sessions", "--no-formatting"]);
            let out = run_with_timeout(cmd, Duration::from_secs(5))?;
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            let line = text.lines().find(|l| l.starts_with(&self.name))?.to_owned();
            line.contains("EXITED").then_some(())
        };
        crate::wait_for("the session to end", Duration::from_secs(20), listed);
    }

    /// Brings an ended session back by attaching a client, as a person
    /// does; returns the client once the plugin answers.
    pub fn bring_back(&self) -> AttachedClient {
        // After a crash, the first client may find the dead server's
        // socket and lose it ("Lost connection"); a person attaches again.
        let mut client = self.attach_client();
        // Every agent of the session starts again meanwhile: under load the
        // plugin can take a while.
        for _ in 0..6 {
            let up = || self.sandbox.is_up(&self.name, true).then_some(());
            if crate::poll_for(Duration::from_secs(10), up).is_some() {
                return client;
            }
            if !client.is_running() {
                client = self.attach_client();
            }
        }
        panic!(
            "the plugin did not answer after the restart; the client shows:\n{}",
            client.screen()
        );
    }

    /// `zellij action dump-screen` of a pane: Zellij's own view of it (as
    /// scrolled, where a person scrolled it; `full`: with its scrollback).
    pub fn dump_screen(&self, pane: &str, full: bool) -> Vec<u8> {
        let dump = || {
            let mut cmd = self.sandbox.zellij();
            cmd.args(["--session", &self.name, "action", "dump-screen"]);
            cmd.args(["--pane-id", pane]);
            if full {
                cmd.arg("--full");
            }
            run_with_timeout(cmd, Duration::from_secs(10))
        };
        // The CLI can fail while the server is busy: a failed or empty
        // answer (a pane's dump has its rows, blank or not) is asked again.
        let mut last = Vec::new();
        for _ in 0..10 {
            if let Some(out) = dump() {
                last = out.stdout;
                if out.status.success() && !last.is_empty() {
                    break;
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        last
    }

    /// Every pane as Zellij itself lists it (`zellij action list-panes
    /// --all --json`), plugins included, each with its `id` and `is_plugin`.
    pub fn zellij_panes(&self) -> Vec<serde_json::Value> {
        for _ in 0..10 {
            let mut cmd = self.sandbox.zellij();
            cmd.args([
                "--session",
                &self.name,
                "action",
                "list-panes",
                "--all",
                "--json",
            ]);
            let listed = run_with_timeout(cmd, Duration::from_secs(10))
                .and_then(|out| serde_json::from_slice::<Vec<serde_json::Value>>(&out.stdout).ok());
            if let Some(panes) = listed.filter(|p| !p.is_empty()) {
                return panes;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("zellij action list-panes gave no panes");
    }

    /// Whether Zellij lists the pane (`terminal_N` or `plugin_N`).
    pub fn zellij_has_pane(&self, pane: &str) -> bool {
        self.zellij_panes().iter().any(|p| {
            let kind = if p["is_plugin"] == true {
                "plugin"
            } else {
                "terminal"
            };
            format!("{kind}_{}", p["id"]) == pane
        })
    }

    /// The session's layout as Zellij dumps it (`zellij action dump-layout`).
    pub fn zellij_layout(&self) -> String {
        let mut cmd = self.sandbox.zellij();
        cmd.args(["--session", &self.name, "action", "dump-layout"]);
        let out = run_with_timeout(cmd, Duration::from_secs(10)).expect("dump-layout");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Each client's focused pane (`zellij action list-clients`).
    pub fn client_focus(&self) -> String {
        self.sandbox.client_focus_of(&self.name)
    }

    /// Attaches a real client and waits until Zellij lists it with a
    /// focused terminal pane; returns it and `list-clients`' answer.
    pub fn attach_and_wait(&self) -> (AttachedClient, String) {
        let (mut clients, focus) = self.attach_clients_and_wait(1);
        (clients.remove(0), focus)
    }

    /// The plugin's `hello` result, under a new request id each time (an id
    /// is answered once); `None` when the pipe ended unanswered.
    pub fn hello(&self) -> Option<serde_json::Value> {
        static ASKED: AtomicUsize = AtomicUsize::new(0);
        let id = ASKED.fetch_add(1, Ordering::SeqCst);
        let hello = format!(r#"{{"v":1,"id":"hello-{id}","op":"hello","args":{{}}}}"#);
        let reply = self.pipe(None, &hello)?;
        let reply = String::from_utf8_lossy(&reply.stdout).into_owned();
        let mut hello: serde_json::Value = serde_json::from_str(reply.lines().next()?).ok()?;
        Some(hello["result"].take())
    }

    /// The client whose plugin instance acts now (the one `hello` reaches).
    pub fn acting_client(&self) -> Option<u64> {
        self.hello()?["client_id"].as_u64()
    }

    /// The clients whose plugin instances have loaded, as `hello` names them.
    pub fn plugin_instances(&self) -> Vec<u64> {
        let hello = self.hello().unwrap_or_default();
        let instances = hello["instances"].as_array().cloned().unwrap_or_default();
        instances
            .iter()
            .filter_map(serde_json::Value::as_u64)
            .collect()
    }

    /// Waits until Zellij lists `count` clients and the plugin instance of
    /// each has loaded (the plugin's `hello` names it): an instance loads
    /// after its client attaches, and its loading costs the server while it
    /// lasts. The error says what was seen last.
    pub fn wait_for_plugin_instances(&self, count: usize) -> Result<(), String> {
        let mut seen = String::new();
        let loaded = poll_for(Duration::from_secs(90), || {
            let focus = self.client_focus();
            let clients: Vec<u64> = focus
                .lines()
                .skip(1)
                .filter_map(|l| l.split_whitespace().next()?.parse().ok())
                .collect();
            let instances = self.plugin_instances();
            seen = format!("list-clients said {focus:?}, hello's instances {instances:?}");
            (clients.len() == count && clients.iter().all(|c| instances.contains(c))).then_some(())
        });
        loaded.ok_or(seen)
    }

    /// Attaches `count` real clients and waits until Zellij lists them all,
    /// each with a focused terminal pane; returns them and `list-clients`'
    /// answer. Under load a `zellij attach` sometimes exits or never shows
    /// up: a client that exits is replaced, and when not all are listed
    /// within 20 s, all of them are.
    pub fn attach_clients_and_wait(&self, count: usize) -> (Vec<AttachedClient>, String) {
        let deadline = Instant::now() + Duration::from_secs(90);
        let attach_all = || (0..count).map(|_| self.attach_client()).collect::<Vec<_>>();
        let mut clients = attach_all();
        let mut attached_at = Instant::now();
        loop {
            let focus = self.client_focus();
            if focus.matches("terminal_").count() == count {
                return (clients, focus);
            }
            assert!(
                Instant::now() < deadline,
                "{count} clients not attached within 90 s; list-clients said {focus:?}"
            );
            if attached_at.elapsed() > Duration::from_secs(20) {
                eprintln!("attaching the clients again (list-clients said {focus:?})");
                clients.clear();
                clients.extend(attach_all());
                attached_at = Instant::now();
            }
            for client in clients.iter_mut() {
                if client.is_running() {
                    continue;
                }
                eprintln!("a client exited; attaching another (list-clients said {focus:?})");
                *client = self.attach_client();
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Attaches a real client on a pseudo-terminal.
    pub fn attach_client(&self) -> AttachedClient {
        let pty = portable_pty::native_pty_system()
            .openpty(PtySize {
                rows: 40,
                cols: 120,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("openpty");
        let mut cmd = CommandBuilder::new(self.sandbox.zellij_path());
        cmd.args(["attach", &self.name]);
        for (k, v) in self.sandbox.env() {
            cmd.env(k, v);
        }
        cmd.env("TERM", "xterm-256color");
        for key in ci_markers() {
            cmd.env_remove(key);
        }
        cmd.env_remove("ZELLIJ");
        cmd.env_remove("ZELLIJ_SESSION_NAME");
        cmd.env_remove("ZELLIJ_PANE_ID");
        cmd.cwd(self.sandbox.work());
        let child = pty.slave.spawn_command(cmd).expect("spawn zellij attach");
        let mut reader = pty.master.try_clone_reader().expect("pty reader");
        // Drain the client's output (or it blocks once the pty buffer
        // fills) into a terminal, to read its screen as its user sees it.
        let terminal = Arc::new(Mutex::new(vt100::Parser::new(40, 120, 0)));
        let drawn = terminal.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n @ 1..) = reader.read(&mut buf) {
                drawn.lock().unwrap().process(&buf[..n]);
            }
        });
        let keys = pty.master.take_writer().expect("pty writer");
        AttachedClient {
            child,
            keys,
            terminal,
            master: pty.master,
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.sandbox.kill_session(&self.name);
    }
}

/// How a session ends.
#[derive(Debug, Clone, Copy)]
pub enum Ending {
    /// `zellij kill-session`.
    KillSession,
    /// Its server killed with SIGKILL.
    Crash,
}

/// A second session in a [`Session`]'s sandbox; killed and deleted on drop.
pub struct Sibling<'a> {
    sandbox: &'a Sandbox,
    name: String,
}

impl Sibling<'_> {
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Drop for Sibling<'_> {
    fn drop(&mut self) {
        self.sandbox.kill_session(&self.name);
    }
}

/// A `zellij attach` client running on a pseudo-terminal; killed on drop.
pub struct AttachedClient {
    child: Box<dyn portable_pty::Child + Send + Sync>,
    /// What the user types.
    keys: Box<dyn std::io::Write + Send>,
    /// What the user sees.
    terminal: Arc<Mutex<vt100::Parser>>,
    master: Box<dyn portable_pty::MasterPty + Send>,
}

/// How a client leaves its session, as people's clients do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leaving {
    /// Its terminal closes (the window, an SSH connection): SIGHUP, as
    /// the terminal sends it.
    TerminalClosed,
    Terminated,
    Killed,
    /// Zellij's own Detach key (Ctrl-o, then d).
    Detached,
}

impl Leaving {
    pub const ALL: [Leaving; 4] = [
        Leaving::TerminalClosed,
        Leaving::Terminated,
        Leaving::Killed,
        Leaving::Detached,
    ];
}

impl AttachedClient {
    /// The client's terminal resized, as a person resizes a window.
    pub fn resize(&self, cols: u16, rows: u16) {
        let size = PtySize {
            rows,
            cols,
            pixel_width: 0,
            pixel_height: 0,
        };
        self.master
            .resize(size)
            .expect("resize the client's terminal");
        self.terminal.lock().unwrap().set_size(rows, cols);
    }

    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// The client's screen as its user sees it, as text.
    pub fn screen(&self) -> String {
        self.terminal.lock().unwrap().screen().contents()
    }

    /// Whether the first row of the screen that shows `text` shows it on a
    /// background of its own, as a list draws its selected row; false
    /// when no row shows it.
    pub fn shows_highlighted(&self, text: &str) -> bool {
        let terminal = self.terminal.lock().unwrap();
        let screen = terminal.screen();
        let (rows, cols) = screen.size();
        for row in 0..rows {
            // Each cell's text, and the cell it starts in.
            let mut line = String::new();
            let mut starts = Vec::new();
            for col in 0..cols {
                let Some(cell) = screen.cell(row, col) else {
                    continue;
                };
                if cell.is_wide_continuation() {
                    continue;
                }
                let contents = match cell.contents() {
                    empty if empty.is_empty() => " ".to_owned(),
                    contents => contents,
                };
                starts.extend(contents.chars().map(|_| col));
                line.push_str(&contents);
            }
            let Some(at) = line.find(text) else { continue };
            let col = starts[line[..at].chars().count()];
            let cell = screen.cell(row, col);
            return cell.is_some_and(|c| c.bgcolor() != vt100::Color::Default || c.inverse());
        }
        false
    }

    /// Types `bytes` on the client's terminal, as its user would.
    pub fn type_keys(&mut self, bytes: &[u8]) {
        self.keys.write_all(bytes).expect("type into the client");
        self.keys.flush().expect("type into the client");
    }

    /// Leaves the session `how`; true once the client has exited (within
    /// 10 s), else it is killed.
    pub fn leave(mut self, how: Leaving) -> bool {
        let pid = self.child.process_id().map(|pid| pid.to_string());
        match how {
            Leaving::TerminalClosed | Leaving::Terminated | Leaving::Killed => {
                let signal = match how {
                    Leaving::TerminalClosed => "-HUP",
                    Leaving::Terminated => "-TERM",
                    _ => "-KILL",
                };
                if let Some(pid) = &pid {
                    let _ = Command::new("kill").args([signal, pid]).status();
                }
            }
            Leaving::Detached => self.type_keys(b"\x0fd"),
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if !self.is_running() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }
}

impl Drop for AttachedClient {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sandbox_whose_process_is_gone_is_swept_with_what_runs_there() {
        let root = tempfile::tempdir().unwrap();
        let (gone, alive) = (root.path().join("zm-gone"), root.path().join("zm-alive"));
        let mut finished = Command::new("true").spawn().unwrap();
        finished.wait().unwrap();
        for (dir, owner) in [(&gone, finished.id()), (&alive, std::process::id())] {
            std::fs::create_dir(dir).unwrap();
            std::fs::write(dir.join(OWNER), owner.to_string()).unwrap();
        }
        // A program started in the abandoned sandbox, naming it (a loop,
        // so the shell stays the process that names it).
        let script = gone.join("run.sh");
        let mut left = Command::new("sh")
            .args([
                "-c",
                "while :; do sleep 0.1; done",
                script.to_str().unwrap(),
            ])
            .spawn()
            .unwrap();
        // The kernel shows a new program's command line a moment after
        // `spawn` returns; until then the sweep could not tell it.
        let cmdline = format!("/proc/{}/cmdline", left.id());
        let named = poll_for(Duration::from_secs(10), || {
            std::fs::read(&cmdline)
                .ok()
                .filter(|line| line.ends_with(b"run.sh\0"))
        });
        sweep_in(root.path());
        let killed = poll_for(Duration::from_secs(10), || left.try_wait().ok().flatten());
        let _ = left.kill();
        let _ = left.wait();
        assert!(named.is_some(), "the program's command line never showed");
        assert!(!gone.exists() && alive.exists());
        assert!(
            killed.is_some(),
            "the program left in the swept sandbox still runs"
        );
    }
}
