//! `zellij_run` with a `pane_id`: a command line run in the shell a pane
//! already has (its cwd, env and history), with its exit code and output.
//!
//! The line and a short `source <script>` line are typed as one bracketed
//! paste, then Enter: the shell reads both before it runs the line, so the
//! line's program cannot eat the second as input. The script (written by
//! this server, 0600, in a 0700 folder of this user's) takes the line's
//! status, prints a concealed marker, sends `<status> <token>` with
//! `zellij pipe` to the plugin's instance, waits until this server has
//! read the output (it holds the script's lock until then, see
//! [`wait_until_read`]), erases the marker and gives the shell the line's
//! status back.
//!
//! The output is sound by construction: it is the rows between the echo
//! of what was typed (it holds the script's name, which no output can
//! know) and the marker, both in the terminal's own stream. The marker
//! comes after every byte the line printed, so once it is on screen the
//! output is all there, and the next prompt comes after it; it stays until
//! the output is read. A marker not found is an error, not a guess.
//! Runs in one pane take turns (see the plugin's `shell_runs`): a run
//! queued behind others is typed once its shell is back at its prompt.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rmcp::service::RequestContext;
use rmcp::RoleServer;
use zellij_mcp_protocol::cursor::Cursor;
use zellij_mcp_protocol::limits::MAX_ARG_BYTES;
use zellij_mcp_protocol::ops::{
    op, Op, ReleaseArgs, RunArgs, RunInPaneArgs, RunInPaneResult, RunResult, SignalArgs,
    DEFAULT_WAIT_MS, EXIT_PIPE_NAME, RUN_READ, RUN_TURN_WAIT_MS,
};
use zellij_mcp_protocol::text::tail_capped;
use zellij_mcp_protocol::{Error, ErrorBody, ErrorCode, PaneRef};

use super::scrollback::STATE_LOOK;
use super::{bad_request, FromSession, OnRequest, ToolFailure, ZellijMcp};
use crate::processes::{table, Lookup};
use crate::server::private::random_hex;
use crate::transport::cli::cli_configuration;
use crate::transport::Destination;

/// How long a run whose turn came may wait for its shell's prompt: less
/// than the plugin keeps its turn.
const TURN_WAIT: Duration = Duration::from_millis(RUN_TURN_WAIT_MS - 2_000);

/// How long a shell that is not at its prompt gets to come back to it
/// before the run is refused (or queued behind a run under way).
const PROMPT_GRACE: Duration = Duration::from_millis(1_000);

/// How often a shell is looked at while a run waits for its prompt: two
/// small reads of its process, and the shell is back within milliseconds.
const PROMPT_LOOK: Duration = Duration::from_millis(2);

/// How long the marker of a reported run may take to show: Zellij takes
/// in a pane's output apart from the report, under load many ms later.
const MARKER_WAIT: Duration = Duration::from_secs(8);

/// How long a shell's line must look like a person's draft before a run
/// is refused: the screen can lag the shell's new prompt.
const DRAFT_SETTLE: Duration = Duration::from_millis(500);

/// How long a timed-out run's line may take to start before its Ctrl-C:
/// typed while the shell still edits the line, Ctrl-C would drop the line
/// and its report with it.
const START_WAIT: Duration = Duration::from_secs(5);

/// Rows read first for the output; the whole scrollback only when the
/// echo is not among them.
const FIRST_ROWS: usize = 400;

/// The shells a run can be typed into: each takes a bracketed paste of
/// several lines as one input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

impl Shell {
    /// The shell whose process is named `name`.
    pub fn named(name: &str) -> Option<Shell> {
        match name {
            "bash" => Some(Shell::Bash),
            "zsh" => Some(Shell::Zsh),
            "fish" => Some(Shell::Fish),
            _ => None,
        }
    }
}

/// One run: what to type, the script it sources, and how to find its
/// output.
#[derive(Debug, Clone, PartialEq)]
pub struct Typed {
    /// The paste and Enter.
    pub text: String,
    /// What the shell echoes of it, as typed (its rows may wrap).
    pub echo: String,
    /// The end of the echo that holds the script's name: its last line,
    /// which starts a row of its own (bash draws a line typed after output
    /// that did not end in a newline out of place, but not the next), and
    /// for fish, whose script comes first, the whole echo.
    pub echo_end: String,
    /// The script the shell sources after the line.
    pub script: String,
    /// The concealed text the script prints after the line's output.
    pub marker: String,
}

/// What to type for `line` in `shell`, whose report script is at `path`
/// (its name is the run's token), sends its report with `report` and waits
/// with `wait` until the output is read.
/// Every line typed starts with a space (out of the history with
/// `ignorespace` / `HIST_IGNORE_SPACE`; fish leaves such lines out
/// itself). The report must come even when the line's program is killed by
/// Ctrl-C, which makes zsh and fish drop the rest of the input: zsh
/// sources the script in an `always` block, fish from a handler of the
/// input's end (`fish_postexec`) that the script sets up before the line.
pub fn typed_text(shell: Shell, report: &str, wait: &str, path: &str, line: &str) -> Typed {
    let token = Path::new(path)
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or_default();
    let marker = format!("zellij-mcp:{token}:end");
    let echo = match shell {
        Shell::Bash => format!(" {line}\n source {path}"),
        Shell::Zsh => format!(" {{ {line}\n}} always {{ source {path} }}"),
        Shell::Fish => format!(" source {path}; {line}"),
    };
    let echo_end = match shell {
        Shell::Fish => echo.clone(),
        Shell::Bash | Shell::Zsh => echo.rsplit('\n').next().unwrap_or_default().to_owned(),
    };
    Typed {
        text: format!("\x1b[200~{echo}\x1b[201~\r"),
        script: report_script(shell, &[report, wait], path, token, &marker),
        echo,
        echo_end,
        marker,
    }
}

/// The script a run sources after its line (see the module): the marker
/// is saved-cursor, concealed text, so a person sees nothing of it, and is
/// erased once the bridge has read the output. The plugin holds the
/// report's pipe until then and ends it saying so, and the bridge deletes
/// the script; a pipe that ended without saying it (a run that timed out,
/// or Zellij letting it go early) leaves the script to `wait` for the
/// bridge itself, then delete itself.
fn report_script(
    shell: Shell,
    [report, wait]: &[&str; 2],
    path: &str,
    token: &str,
    marker: &str,
) -> String {
    let mark = format!("printf '\\e7\\e[8m%s\\e[28m' '{marker}'");
    let erase = "printf '\\e8\\e[J'";
    match shell {
        Shell::Bash | Shell::Zsh => format!(
            "__zellij_mcp_status=$?\n\
             {mark}\n\
             [ \"$({report} \"$__zellij_mcp_status {token}\")\" = {RUN_READ} ] || \
             {{ {wait}; command rm -f -- {path}; }}\n\
             {erase}\n\
             eval \"unset __zellij_mcp_status; return $__zellij_mcp_status\"\n"
        ),
        Shell::Fish => format!(
            "function __zellij_mcp_{token} --on-event fish_postexec\n\
             set -l s $status\n\
             functions -e __zellij_mcp_{token}\n\
             {mark}\n\
             test \"$({report} \"$s {token}\")\" = {RUN_READ}; \
             or begin; {wait}; command rm -f -- {path}; end\n\
             {erase}\n\
             end\n"
        ),
    }
}

/// A private folder for run scripts: `$XDG_RUNTIME_DIR/zellij-mcp`, else
/// `zellij-mcp-<uid>` in the temporary folder; made 0700, and refused when
/// someone else owns it or can write to it (a shell sources what is there).
pub fn scripts_folder() -> Result<PathBuf, ToolFailure> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    let uid = crate::transport::sessions::user_id();
    let folder = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute() && dir.is_dir())
        .map(|dir| dir.join("zellij-mcp"))
        .unwrap_or_else(|| std::env::temp_dir().join(format!("zellij-mcp-{uid}")));
    let made = std::fs::DirBuilder::new().mode(0o700).create(&folder);
    if let (Err(e), false) = (&made, folder.is_dir()) {
        return Err(bad_request(
            format!("cannot make {}: {e}", folder.display()),
            "make the temporary folder writable, or set XDG_RUNTIME_DIR",
        ));
    }
    let meta = std::fs::symlink_metadata(&folder);
    let private = meta
        .as_ref()
        .is_ok_and(|m| m.is_dir() && m.uid() == uid && m.permissions().mode() & 0o077 == 0);
    if !private {
        return Err(bad_request(
            format!("{} is not a folder of this user's alone", folder.display()),
            "remove it, or make it a 0700 folder of this user's",
        ));
    }
    Ok(folder)
}

/// What sends a run's exit report: this server's own binary on the
/// session's socket (it starts in a quarter of Zellij's time), or, where
/// there is no socket to speak to, `zellij pipe`.
pub enum Sender<'a> {
    Socket { binary: &'a str, socket: &'a Path },
    Zellij(&'a Path),
}

impl<'a> Sender<'a> {
    /// The socket's sender when `socket` is there, else `zellij`.
    pub fn for_session(binary: &'a str, socket: &'a Path, zellij: &'a Path) -> Self {
        use std::os::unix::fs::FileTypeExt;
        let is_socket = std::fs::metadata(socket).is_ok_and(|m| m.file_type().is_socket());
        match is_socket {
            true => Sender::Socket { binary, socket },
            false => Sender::Zellij(zellij),
        }
    }
}

/// The command that sends the exit report to the session's plugin (the
/// status and token follow it), aimed at the plugin's instance, as other
/// plugins that get a pipe would let it go at once.
pub fn report_command(sender: &Sender, to: &Destination) -> Result<String, ToolFailure> {
    let Destination::Plugin { url, configuration } = to else {
        return Err(bad_request(
            "the plugin's URL is not known yet",
            "retry in a moment",
        ));
    };
    let (mut words, configure) = match sender {
        Sender::Socket { binary, socket } => {
            let socket = shell_word(&socket.to_string_lossy())?;
            let words = vec![
                shell_word(binary)?,
                EXIT_REPORT.into(),
                "--socket".into(),
                socket,
            ];
            (words, "--configuration")
        }
        Sender::Zellij(zellij) => {
            let zellij = shell_word(zellij.to_str().unwrap_or("zellij"))?;
            (vec![zellij, "pipe".into()], "-c")
        }
    };
    words.extend(["-p".into(), shell_word(url)?]);
    if !configuration.is_empty() {
        let configuration = cli_configuration(configuration)
            .map_err(|why| bad_request(why, "load the plugin without that configuration entry"))?;
        words.extend([configure.into(), shell_word(&configuration)?]);
    }
    if let Sender::Zellij(_) = sender {
        words.extend(["-n".into(), EXIT_PIPE_NAME.into()]);
    }
    words.push("--".into());
    Ok(words.join(" "))
}

/// `word` as bash, zsh and fish all read it back: bare, or in single quotes.
fn shell_word(word: &str) -> Result<String, ToolFailure> {
    let bare = |c: char| c.is_ascii_alphanumeric() || "/._-+:=,@%".contains(c);
    if !word.is_empty() && word.chars().all(bare) {
        return Ok(word.to_owned());
    }
    if word.contains(['\'', '\\']) || word.chars().any(char::is_control) {
        return Err(bad_request(
            format!("{word:?} cannot be typed into a shell safely"),
            "install Zellij and the plugin at paths without quotes or backslashes",
        ));
    }
    Ok(format!("'{word}'"))
}

/// A line is typed verbatim inside a paste: control characters other than
/// tab and newline would end the paste or act as keys.
pub fn check_line(line: &str) -> Result<(), ToolFailure> {
    if line.trim().is_empty() {
        return Err(bad_request(
            "command is empty",
            "pass the command line to run",
        ));
    }
    if line.len() > MAX_ARG_BYTES {
        return Err(bad_request(
            format!("command is {} bytes, over {MAX_ARG_BYTES}", line.len()),
            "put a long script in a file and run that",
        ));
    }
    if line
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return Err(bad_request(
            "command has control characters (only tab and newline can be typed in a paste)",
            "remove them; to send keys, use zellij_write",
        ));
    }
    Ok(())
}

/// Squeezed text: spaces are left out of comparisons, since a row
/// wrapped at a space loses it when trimmed, and fish indents the
/// continuation lines it echoes.
fn squeeze(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// The index of the row after the echo that ends with `echo` in `rows`
/// (its rows may wrap), or `None` when it is not there.
pub fn after_echo(rows: &[&str], echo: &str) -> Option<usize> {
    let echo = squeeze(echo);
    let mut joined = String::new();
    let mut ends = Vec::with_capacity(rows.len());
    for row in rows {
        joined.push_str(&squeeze(row));
        ends.push(joined.len());
    }
    let last_byte = joined.rfind(&echo)? + echo.len().max(1) - 1;
    Some(ends.partition_point(|&end| end <= last_byte) + 1)
}

/// Where `marker` is in `rows`: its row and the text before it there (a
/// last line the output did not end), also when it wrapped to the next
/// row.
fn find_marker<'a>(rows: &[&'a str], marker: &str) -> Option<(usize, &'a str)> {
    (0..rows.len()).rev().find_map(|at| {
        let row = rows[at];
        if let Some(col) = row.find(marker) {
            return Some((at, &row[..col]));
        }
        let rest = rows.get(at + 1)?.trim_end();
        let head = marker
            .strip_suffix(rest)
            .filter(|head| !head.is_empty() && !rest.is_empty())?;
        let col = row.trim_end().strip_suffix(head)?.len();
        Some((at, &row[..col]))
    })
}

/// `result` with `output`, its end kept within `max_bytes`; `whole` when
/// it starts at the echo.
fn with_output(
    mut result: RunResult,
    output: Vec<&str>,
    whole: bool,
    max_bytes: usize,
) -> RunResult {
    let (text, truncated) = tail_capped(output, max_bytes);
    result.output = text;
    result.truncated = truncated || !whole;
    result
}

/// A reported run's output: the rows after the echo up to the marker,
/// and whether it starts at the echo (else the echo left the scrollback
/// or the screen was cleared, and the output is the rows before the
/// marker). `None` while the marker is not on screen.
pub fn reported_output<'a>(
    rows: &[&'a str],
    echo: &str,
    marker: &str,
) -> Option<(Vec<&'a str>, bool)> {
    let (end, last) = find_marker(rows, marker)?;
    let start = after_echo(&rows[..end], echo);
    let mut output = rows[start.unwrap_or(0).min(end)..end].to_vec();
    if !last.trim().is_empty() {
        output.push(last);
    }
    Some((output, start.is_some()))
}

impl ZellijMcp {
    /// Runs `line` in the shell of `pane`, in `session` (see the module).
    pub(super) async fn run_in_shell(
        &self,
        session: &str,
        args: &RunArgs,
        line: &str,
        pane: PaneRef,
        max_bytes: usize,
        context: &RequestContext<RoleServer>,
    ) -> Result<FromSession<RunResult>, ToolFailure> {
        check_line(line)?;
        refuse_new_pane_args(args)?;
        let started = tokio::time::Instant::now();
        let deadline = started + Duration::from_millis(args.timeout_ms.unwrap_or(DEFAULT_WAIT_MS));
        let (session, pid) = self.shell_pid(session, pane).await?;
        let (mut run, typed, script) = self.to_type(&session, pane, pid, line).await?;
        let (session, ran) = match self
            .run_in_turn(&session, &mut run, pid, deadline, context)
            .await
        {
            Ok(ran) => ran,
            Err(e) => {
                if e.0.code == ErrorCode::PaneNotFound {
                    self.shell_pids.forget(&session, pane);
                }
                return Err(script.unless_typed(e));
            }
        };
        if ran.timed_out && at_line_editor(pid) {
            // Back at its prompt, the shell ran the line and its script:
            // the report was lost, and the exit code with it.
            return Err(ToolFailure(ErrorBody::from(Error::ResultUnknown {
                problem: format!(
                    "the command line ran in {pane} and its shell is back at its prompt, but its exit report never came, so its exit code is not known"
                ),
            })));
        }
        let output = self
            .shell_output(&session, &ran, &typed, pid, max_bytes)
            .await;
        // Read (or timed out): the script may erase its marker and go on.
        match ran.timed_out {
            true => drop(script),
            false => script.read(),
        }
        if !ran.timed_out {
            self.release(&session, run.token);
        }
        let mut result = output?;
        if ran.timed_out && args.kill_on_timeout {
            result.killed = self.interrupt(&session, pane, pid).await;
        }
        result.elapsed_ms = started.elapsed().as_millis() as u64;
        Ok(FromSession { session, result })
    }

    /// The run to send for `line`, with its script written and locked
    /// until the output is read (see [`Typed`] and [`wait_until_read`]).
    async fn to_type(
        &self,
        session: &str,
        pane: PaneRef,
        pid: u32,
        line: &str,
    ) -> Result<(RunInPaneArgs, Typed, Script), ToolFailure> {
        let shell = shell_of(pane, pid)?;
        let token = random_hex(8).map_err(|e| {
            ToolFailure(ErrorBody::from(Error::Internal {
                problem: format!("no random token: {e}"),
                fix: Some("check /dev/urandom can be read".into()),
            }))
        })?;
        let to = self.client.destination(session).await?;
        let binary = own_binary()?;
        let socket = crate::transport::sessions::socket_dir().join(session);
        let sender = Sender::for_session(&binary, &socket, &self.client.config().zellij);
        let report = report_command(&sender, &to)?;
        let path = scripts_folder()?.join(&token);
        let path_word = shell_word(&path.to_string_lossy())?;
        let wait = format!("{} {READ_WAIT} {path_word}", shell_word(&binary)?);
        let typed = typed_text(shell, &report, &wait, &path_word, line);
        let script = Script::write(path, &typed.script)?;
        let run = RunInPaneArgs {
            pane_id: pane,
            text: typed.text.clone(),
            token,
            at_prompt: back_at_prompt(pane, pid).await,
            timeout_ms: None,
        };
        Ok((run, typed, script))
    }

    /// Sends `run` until it is typed (it may be queued behind others, then
    /// given its turn) and it ends or `deadline` passes.
    async fn run_in_turn(
        &self,
        session: &str,
        run: &mut RunInPaneArgs,
        pid: u32,
        deadline: tokio::time::Instant,
        context: &RequestContext<RoleServer>,
    ) -> Result<(String, RunInPaneResult), ToolFailure> {
        let mut draft_since = None;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            run.timeout_ms = Some(left.as_millis().max(1) as u64);
            let on = OnRequest::default();
            let sent = self.send_noted::<op::RunInPane>(session, run, left, &on);
            let (session, ran) = match self
                .waiting(session, op::RunInPane::NAME, &on, context, sent)
                .await
            {
                // Zellij may not show the shell's new prompt yet: a draft
                // is believed once the screen said so for a while.
                Err(ToolFailure(e)) if e.code == ErrorCode::Draft => {
                    let since = *draft_since.get_or_insert_with(tokio::time::Instant::now);
                    if since.elapsed() >= DRAFT_SETTLE {
                        return Err(ToolFailure(e));
                    }
                    tokio::time::sleep(STATE_LOOK).await;
                    continue;
                }
                sent => sent?,
            };
            if !ran.turn {
                return Ok((session, ran));
            }
            // The runs before it are over: typed once the shell is back at
            // its prompt.
            let limit = deadline.min(tokio::time::Instant::now() + TURN_WAIT);
            until_prompt(run.pane_id, pid, limit).await?;
            run.at_prompt = true;
        }
    }

    /// The run's result with its output: up to the marker once it reported
    /// (see [`reported_output`]), else what it printed so far and a cursor.
    async fn shell_output(
        &self,
        session: &str,
        ran: &RunInPaneResult,
        typed: &Typed,
        pid: u32,
        max_bytes: usize,
    ) -> Result<RunResult, ToolFailure> {
        let mut result = RunResult {
            pane_id: ran.pane_id,
            tab_id: ran.tab_id,
            exited: ran.exit_code.is_some(),
            exit_code: ran.exit_code,
            output: String::new(),
            truncated: false,
            elapsed_ms: 0,
            timed_out: ran.timed_out,
            killed: false,
            closed: false,
            cursor: None,
            recording: None,
        };
        let unknown = |problem: String| {
            ToolFailure(ErrorBody::from(Error::ResultUnknown {
                problem: format!(
                    "the command line ran in {} and exited with {:?}, but its output could not be read exactly: {problem}",
                    ran.pane_id, ran.exit_code
                ),
            }))
        };
        // The screen the plugin saw holds the whole run, most often.
        let screen: Vec<&str> = ran.screen.iter().map(String::as_str).collect();
        if !ran.timed_out {
            if let Some((output, true)) = reported_output(&screen, &typed.echo_end, &typed.marker) {
                return Ok(with_output(result, output, true, max_bytes));
            }
        }
        let looking_since = tokio::time::Instant::now();
        let mut tail = Some(FIRST_ROWS);
        loop {
            let rows = self
                .client
                .rows(session, ran.pane_id, tail)
                .await
                .map_err(|e| unknown(e.to_string()))?;
            let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
            let (output, whole) = if ran.timed_out {
                let start = after_echo(&rows, &typed.echo_end);
                result.cursor = Some(Cursor::after(&rows).encode());
                (rows[start.unwrap_or(0)..].to_vec(), start.is_some())
            } else {
                match reported_output(&rows, &typed.echo_end, &typed.marker) {
                    Some(found) => found,
                    None if looking_since.elapsed() > MARKER_WAIT => {
                        return Err(unknown("its end marker never showed".into()))
                    }
                    // Let go early (its marker erased) or not yet taken
                    // in by Zellij: the first is told by the shell. The
                    // marker is at the cursor, so within the first rows.
                    None if at_line_editor(pid) => {
                        return Err(unknown("its shell went on before it was read".into()))
                    }
                    None => {
                        tokio::time::sleep(PROMPT_LOOK).await;
                        continue;
                    }
                }
            };
            if !whole && tail.is_some() && rows.len() >= FIRST_ROWS {
                tail = None;
                continue;
            }
            return Ok(with_output(result, output, whole, max_bytes));
        }
    }

    /// Tells the plugin a reported run's output is read: the pane's next run
    /// may have its turn. Sent after the answer: the caller need not wait
    /// for it, and the pane's next run, sent after it, finds it done.
    fn release(&self, session: &str, token: String) {
        let (client, session) = (self.client.clone(), session.to_owned());
        self.background.spawn(async move {
            let how = client.sending();
            let args = ReleaseArgs { token };
            let released = client.call::<op::Release>(Some(&session), &args, how);
            if let Err(e) = released.await {
                tracing::warn!("could not release a shell run: {e}");
            }
        });
    }

    /// The process of `pane`'s shell: the one found before while it still
    /// runs (the same pid, started at the same time), else as the plugin
    /// tells it.
    async fn shell_pid(&self, session: &str, pane: PaneRef) -> Result<(String, u32), ToolFailure> {
        if let Some(pid) = self.shell_pids.get(session, pane) {
            return Ok((session.to_owned(), pid));
        }
        let (session, located) = self.locate(session, pane, false).await?;
        let Some(pid) = located.pid else {
            return Err(bad_request(
                format!("{pane} has no process of its own"),
                "pass a terminal pane running a shell",
            ));
        };
        self.shell_pids.remember(&session, pane, pid);
        Ok((session, pid))
    }

    /// Types Ctrl-C into `pane` (a timed-out run with `kill_on_timeout`),
    /// once its shell has left its line editor: typed while the line is
    /// still being read, Ctrl-C would drop it and its report.
    async fn interrupt(&self, session: &str, pane: PaneRef, pid: u32) -> bool {
        let started = tokio::time::Instant::now() + START_WAIT;
        while at_line_editor(pid) {
            if tokio::time::Instant::now() >= started {
                return false;
            }
            tokio::time::sleep(STATE_LOOK).await;
        }
        let args = SignalArgs {
            pane_id: pane,
            signal: zellij_mcp_protocol::ops::Signal::Interrupt,
            force: false,
        };
        let how = self.sending(session).await;
        let sent = self.client.call::<op::Signal>(Some(session), &args, how);
        sent.await.is_ok()
    }
}

/// The hidden command a run's script waits in (see [`wait_until_read`]).
pub const READ_WAIT: &str = "read-wait";

/// The hidden command a run's script sends its exit report with (see
/// [`crate::transport::exit_report`]).
pub const EXIT_REPORT: &str = "exit-report";

/// Longest a run's script waits for its output to be read.
const READ_WAIT_MOST: Duration = Duration::from_secs(10);

/// Waits until no bridge holds `script`'s lock (it holds it until it has
/// read the run's output), or [`READ_WAIT_MOST`]: a bridge gone away lets
/// go of its lock at once, a stuck one keeps the shell only that long.
pub fn wait_until_read(script: &Path) {
    let Ok(file) = std::fs::File::open(script) else {
        return;
    };
    let (done, locked) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = file.lock_shared();
        let _ = done.send(());
    });
    let _ = locked.recv_timeout(READ_WAIT_MOST);
}

/// This program's path, for the script to run [`READ_WAIT`] with.
fn own_binary() -> Result<String, ToolFailure> {
    let exe = std::env::current_exe().map_err(|e| {
        bad_request(
            format!("this server's own path is unknown: {e}"),
            "run zellij-mcp from a path that exists",
        )
    })?;
    Ok(exe.to_string_lossy().into_owned())
}

/// A run's script, locked until dropped (see [`wait_until_read`]); it
/// deletes itself once sourced.
struct Script {
    path: PathBuf,
    _lock: std::fs::File,
}

impl Script {
    /// Writes `text` at `path`, 0600 and new (a name already there is
    /// refused), and locks it.
    fn write(path: PathBuf, text: &str) -> Result<Script, ToolFailure> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .and_then(|mut file| {
                file.write_all(text.as_bytes())?;
                file.lock()?;
                Ok(file)
            });
        match written {
            Ok(lock) => Ok(Script { path, _lock: lock }),
            Err(e) => Err(bad_request(
                format!("cannot write {}: {e}", path.display()),
                "make the folder writable, or set XDG_RUNTIME_DIR",
            )),
        }
    }

    /// Its run's output is read: the shell, which sources it already, goes
    /// on without it.
    fn read(self) {
        let _ = std::fs::remove_file(&self.path);
    }

    /// `failure`, after deleting the script when the failure says nothing
    /// was typed (else the shell may still source it).
    fn unless_typed(self, failure: ToolFailure) -> ToolFailure {
        let untyped = [ErrorCode::Draft, ErrorCode::Busy, ErrorCode::BadRequest];
        if untyped.contains(&failure.0.code) {
            let _ = std::fs::remove_file(&self.path);
        }
        failure
    }
}

/// Whether the shell `pid` is at its prompt, given a moment to get back
/// there after a run that just ended (its report's `zellij pipe` exiting).
async fn back_at_prompt(pane: PaneRef, pid: u32) -> bool {
    let limit = tokio::time::Instant::now() + PROMPT_GRACE;
    until_prompt(pane, pid, limit).await.is_ok()
}

/// Waits until the shell `pid` of `pane` is at its prompt, until `limit`.
async fn until_prompt(
    pane: PaneRef,
    pid: u32,
    limit: tokio::time::Instant,
) -> Result<(), ToolFailure> {
    while !at_line_editor(pid) {
        if tokio::time::Instant::now() >= limit {
            return Err(ToolFailure(ErrorBody::from(Error::Timeout {
                problem: format!(
                    "the shell of {pane} did not come back to its prompt after the command lines before this one; nothing was typed"
                ),
            })));
        }
        tokio::time::sleep(PROMPT_LOOK).await;
    }
    Ok(())
}

/// Whether the shell `pid` waits in its line editor; false where that
/// cannot be told (a run is refused before that, see [`shell_of`]).
fn at_line_editor(pid: u32) -> bool {
    table().at_line_editor(pid) == Some(true)
}

/// The shell `pane`'s process `pid` runs, or why a line cannot be typed
/// into it: its name and whether it waits in its line editor must be told
/// by this platform's process table.
fn shell_of(pane: PaneRef, pid: u32) -> Result<Shell, ToolFailure> {
    let processes = table();
    let cannot_tell = |what: &str| {
        ToolFailure(ErrorBody::from(Error::Unsupported {
            problem: format!(
                "on {}, this server cannot tell {what} of {pane} (pid {pid}), so a line typed there could not be run and read back exactly",
                processes.platform()
            ),
            fix: "run the command with argv in a new pane (no pane_id), or send keys with zellij_write".into(),
        }))
    };
    let name = match processes.process(pid) {
        Lookup::Found(process) => process.name,
        Lookup::Gone => {
            return Err(ToolFailure(ErrorBody::from(Error::Unsupported {
                problem: format!("the process of {pane} (pid {pid}) is not running on this machine: it ended, or the session runs on another machine"),
                fix: "run the server on the machine the session runs on, in a pane whose shell still runs".into(),
            })))
        }
        Lookup::CannotTell => return Err(cannot_tell("the shell")),
    };
    let shell = Shell::named(&name).ok_or_else(|| {
        ToolFailure(ErrorBody::from(Error::Unsupported {
            problem: format!("{pane} runs {name}, not bash, zsh or fish"),
            fix: "run the command with argv in a new pane (no pane_id), or in a bash, zsh or fish pane".into(),
        }))
    })?;
    if processes.at_line_editor(pid).is_none() {
        return Err(cannot_tell("whether the shell waits at its prompt"));
    }
    Ok(shell)
}

/// Arguments about a new pane mean nothing in an existing shell.
fn refuse_new_pane_args(args: &RunArgs) -> Result<(), ToolFailure> {
    let new_pane_only = [
        ("cwd", args.cwd.is_some()),
        ("tab", args.tab.is_some()),
        ("name", args.name.is_some()),
        ("agent_name", args.agent_name.is_some()),
        ("placement", args.placement.is_some()),
        ("close_on_exit", args.close_on_exit),
        ("wait", args.wait == Some(false)),
    ];
    match new_pane_only.iter().find(|(_, given)| *given) {
        Some((name, _)) => Err(bad_request(
            format!("{name} is for a new pane; with pane_id the command runs in the pane's shell"),
            format!("leave out {name} (put a `cd` in the command line for another directory)"),
        )),
        None => Ok(()),
    }
}

/// Shell panes' processes found so far, at most.
const MOST_SHELL_PIDS: usize = 256;

/// The process each shell pane was found to run, by session and pane, and
/// when it started: a pid whose process started at another time is
/// another process (the pane's command ran again, or the pid was reused),
/// and is asked of the plugin anew.
#[derive(Default)]
pub struct ShellPids(std::sync::Mutex<HashMap<(String, PaneRef), (u32, u64)>>);

impl ShellPids {
    fn get(&self, session: &str, pane: PaneRef) -> Option<u32> {
        let key = (session.to_owned(), pane);
        let mut known = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let (pid, started) = known.get(&key).copied()?;
        match table().process(pid) {
            Lookup::Found(process) if process.started == started => Some(pid),
            _ => {
                known.remove(&key);
                None
            }
        }
    }

    fn remember(&self, session: &str, pane: PaneRef, pid: u32) {
        let Lookup::Found(process) = table().process(pid) else {
            return;
        };
        let mut known = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if known.len() >= MOST_SHELL_PIDS {
            known.clear();
        }
        known.insert((session.to_owned(), pane), (pid, process.started));
    }

    fn forget(&self, session: &str, pane: PaneRef) {
        let mut known = self.0.lock().unwrap_or_else(|e| e.into_inner());
        known.remove(&(session.to_owned(), pane));
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    const REPORT: &str = "zellij pipe -p file:/p.wasm -n zellij-mcp-exit --";
    const SCRIPT: &str = "/run/user/1/zellij-mcp/0f1e";
    const WAIT: &str = "/bin/zellij-mcp read-wait /run/user/1/zellij-mcp/0f1e";

    #[test]
    fn each_shell_gets_one_paste_whose_echo_names_the_script() {
        for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
            let typed = typed_text(shell, REPORT, WAIT, SCRIPT, "echo 'a b'\necho $x");
            assert!(typed.text.starts_with("\x1b[200~ "), "{shell:?}: {typed:?}");
            assert!(typed.text.ends_with("\x1b[201~\r"), "{shell:?}: {typed:?}");
            assert!(
                typed.text.contains("echo 'a b'\necho $x"),
                "verbatim: {typed:?}"
            );
            assert_eq!(typed.text, format!("\x1b[200~{}\x1b[201~\r", typed.echo));
            assert!(
                typed.echo.contains(&format!("source {SCRIPT}")),
                "{typed:?}"
            );
            assert_eq!(typed.marker, "zellij-mcp:0f1e:end");
            assert!(!typed.echo.contains(&typed.marker), "the echo is no marker");
            assert!(typed.script.contains("zellij-mcp-exit -- \""), "{typed:?}");
            assert!(typed.script.contains(" 0f1e\""), "the token: {typed:?}");
            assert!(typed.script.contains(&format!("rm -f -- {SCRIPT}")));
        }
        let bash = typed_text(Shell::Bash, REPORT, WAIT, SCRIPT, "true");
        assert_eq!(bash.echo, format!(" true\n source {SCRIPT}"));
        assert_eq!(bash.echo_end, format!(" source {SCRIPT}"));
        assert!(
            bash.script.starts_with("__zellij_mcp_status=$?\n"),
            "{bash:?}"
        );
        let zsh = typed_text(Shell::Zsh, REPORT, WAIT, SCRIPT, "true");
        assert_eq!(
            zsh.echo,
            format!(" {{ true\n}} always {{ source {SCRIPT} }}")
        );
        assert_eq!(zsh.echo_end, format!("}} always {{ source {SCRIPT} }}"));
        let fish = typed_text(Shell::Fish, REPORT, WAIT, SCRIPT, "true");
        assert_eq!(fish.echo, format!(" source {SCRIPT}; true"));
        assert_eq!(fish.echo_end, fish.echo);
        assert!(
            fish.script
                .contains("--on-event fish_postexec\nset -l s $status\n"),
            "{fish:?}"
        );
    }

    #[test]
    fn the_output_is_between_the_echo_and_the_marker() {
        let typed = typed_text(Shell::Bash, REPORT, WAIT, SCRIPT, "echo hi");
        let marker = typed.marker.as_str();
        let echo_row = format!(" source {SCRIPT}");
        let rows = [
            "$ earlier output",
            "$  echo hi",
            echo_row.as_str(),
            "hi",
            "",
            marker,
            "$ ",
        ];
        let (output, whole) = reported_output(&rows, &typed.echo_end, marker).unwrap();
        assert_eq!((output, whole), (vec!["hi", ""], true));
        let early = reported_output(&rows[..5], &typed.echo_end, marker);
        assert!(early.is_none(), "no marker yet");

        let unended = format!("no newline{marker}");
        let rows = ["$  echo hi", echo_row.as_str(), unended.as_str()];
        let (output, _) = reported_output(&rows, &typed.echo_end, marker).unwrap();
        assert_eq!(output, ["no newline"], "a last line the output did not end");

        let (head, tail) = marker.split_at(7);
        let wrapped = format!("12345{head}");
        let rows = ["$  echo hi", echo_row.as_str(), wrapped.as_str(), tail];
        let (output, _) = reported_output(&rows, &typed.echo_end, marker).unwrap();
        assert_eq!(output, ["12345"], "a marker that wrapped");

        let rows = ["cleared", marker];
        let (output, whole) = reported_output(&rows, &typed.echo_end, marker).unwrap();
        assert_eq!(
            (output, whole),
            (vec!["cleared"], false),
            "the echo is gone"
        );
    }

    #[test]
    fn the_echo_is_found_however_it_wrapped_and_whatever_the_output_repeats() {
        let typed = typed_text(Shell::Fish, REPORT, WAIT, SCRIPT, "echo one\necho two");
        let rows = [
            "~> source /run/user/1/zel",
            "lij-mcp/0f1e; echo one",
            "                echo two",
            "one",
            "source /run/user/1/zellij-mcp/0f1e; echo one",
        ];
        assert_eq!(after_echo(&rows, &typed.echo_end), Some(3));
        assert_eq!(after_echo(&rows[..2], &typed.echo_end), None);
        let bash = typed_text(Shell::Bash, REPORT, WAIT, SCRIPT, "echo run");
        let garbled = format!(" source {SCRIPT}");
        let rows = ["no-newline echo rung", garbled.as_str(), "run"];
        assert_eq!(
            after_echo(&rows, &bash.echo_end),
            Some(2),
            "a first line bash drew out of place"
        );
    }

    #[test]
    fn lines_that_cannot_be_pasted_and_paths_that_cannot_be_typed_are_refused() {
        assert!(check_line("echo 'ünï'\tx\nls").is_ok());
        let long = "x".repeat(MAX_ARG_BYTES + 1);
        for bad in ["", "  \n", "echo \x1b[201~ rm", "a\rb", &long] {
            assert!(check_line(bad).is_err(), "{bad:?}");
        }
        let plugin = |url: &str, configuration: &[(&str, &str)]| Destination::Plugin {
            url: url.into(),
            configuration: configuration
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<BTreeMap<_, _>>(),
        };
        let zellij = Sender::Zellij(Path::new("/usr/bin/zellij"));
        let command = report_command(&zellij, &plugin("file:~/z mcp.wasm", &[]));
        assert_eq!(
            command.unwrap(),
            "/usr/bin/zellij pipe -p 'file:~/z mcp.wasm' -n zellij-mcp-exit --"
        );
        let configured = report_command(&zellij, &plugin("file:/z.wasm", &[("a", "1")]));
        assert_eq!(
            configured.unwrap(),
            "/usr/bin/zellij pipe -p file:/z.wasm -c a=1 -n zellij-mcp-exit --"
        );
        let socket = Sender::Socket {
            binary: "/bin/zellij-mcp",
            socket: Path::new("/run/zellij/s 1"),
        };
        let configured = report_command(&socket, &plugin("file:/z.wasm", &[("a", "1")]));
        assert_eq!(
            configured.unwrap(),
            "/bin/zellij-mcp exit-report --socket '/run/zellij/s 1' -p file:/z.wasm --configuration a=1 --"
        );
        let quoted = Sender::Zellij(Path::new("/it's/zellij"));
        assert!(report_command(&quoted, &plugin("file:/z.wasm", &[])).is_err());
        assert!(report_command(&zellij, &Destination::Broadcast).is_err());
        let missing = Path::new("/no/such/socket");
        let fallback = Sender::for_session("/bin/zellij-mcp", missing, Path::new("zellij"));
        assert!(matches!(fallback, Sender::Zellij(_)));
    }

    #[test]
    fn scripts_are_kept_in_a_folder_of_the_users_alone() {
        use std::os::unix::fs::PermissionsExt;
        let folder = scripts_folder().unwrap();
        let mode = std::fs::metadata(&folder).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "{}", folder.display());
        let path = folder.join(format!("test-{}", std::process::id()));
        let script = Script::write(path.clone(), "true\n").unwrap();
        assert!(
            Script::write(path.clone(), "again\n").is_err(),
            "never over another"
        );
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let refused = ToolFailure(ErrorBody::from(Error::Draft {
            pane: "terminal_1".into(),
            line: "$ ls".into(),
        }));
        script.unless_typed(refused);
        assert!(!path.exists(), "a run never typed leaves no script");
    }

    #[test]
    fn a_script_waits_until_its_lock_is_let_go() {
        let folder = scripts_folder().unwrap();
        let path = folder.join(format!("wait-{}", std::process::id()));
        let script = Script::write(path.clone(), "true\n").unwrap();
        let waiting = {
            let path = path.clone();
            std::thread::spawn(move || wait_until_read(&path))
        };
        std::thread::sleep(Duration::from_millis(200));
        assert!(!waiting.is_finished(), "held while the output is read");
        drop(script);
        waiting.join().unwrap();
        std::fs::remove_file(&path).unwrap();
    }
}
