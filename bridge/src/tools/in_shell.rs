//! `zellij_run` with a `pane_id`: a command line run in the shell a pane
//! already has (its cwd, env and history), with its exit code and output.
//!
//! The line and an exit report are typed as one bracketed paste, then
//! Enter: the shell reads both before it runs the line, so the line's
//! program cannot eat the report as input. The report sends `<status>
//! <token>` with `zellij pipe` to the plugin's instance; the plugin answers
//! the run and keeps that pipe blocked until the bridge has read the
//! output, so the shell's next prompt comes after it. The output is the
//! rows after the echo of the last line typed, which holds the token.
//! Runs in one pane take turns (see the plugin's `shell_runs`): a run
//! queued behind others is typed once its shell is back at its prompt.

use std::path::Path;
use std::time::Duration;

use rmcp::service::RequestContext;
use rmcp::RoleServer;
use zellij_mcp_protocol::cursor::Cursor;
use zellij_mcp_protocol::limits::MAX_ARG_BYTES;
use zellij_mcp_protocol::ops::{
    op, Op, ReleaseArgs, RunArgs, RunInPaneArgs, RunInPaneResult, RunResult, SignalArgs,
    DEFAULT_WAIT_MS, EXIT_PIPE_NAME, RUN_TURN_WAIT_MS,
};
use zellij_mcp_protocol::text::tail_capped;
use zellij_mcp_protocol::{Error, ErrorBody, PaneRef};

use super::scrollback::STATE_LOOK;
use super::{bad_request, FromSession, OnRequest, ToolFailure, ZellijMcp};
use crate::pane_state::Procfs;
use crate::private::random_hex;
use crate::transport::cli::cli_configuration;
use crate::transport::Destination;

/// How long a run whose turn came may wait for its shell's prompt: less
/// than the plugin keeps its turn.
const TURN_WAIT: Duration = Duration::from_millis(RUN_TURN_WAIT_MS - 2_000);

/// How long a shell that is not at its prompt gets to come back to it
/// before the run is refused (or queued behind a run under way).
const PROMPT_GRACE: Duration = Duration::from_millis(1_000);

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

/// What to type for a run, and how it shows in the pane.
#[derive(Debug, Clone, PartialEq)]
pub struct Typed {
    pub text: String,
    pub echo: Echo,
}

/// The first line typed, which follows the prompt, and the last, whose
/// echo ends the echo of the whole (it holds the token).
#[derive(Debug, Clone, PartialEq)]
pub struct Echo {
    pub first_line: String,
    pub last_line: String,
}

/// What to type for `line`: one paste of the line and the exit report,
/// each line after a space (out of the history with `ignorespace` /
/// `HIST_IGNORE_SPACE`; fish leaves such lines out itself), then Enter.
/// The report must come even when the line's program is killed by Ctrl-C,
/// which makes zsh and fish drop the rest of the input: zsh runs it in an
/// `always` block, fish in a handler of the input's end (`fish_postexec`)
/// set up before the line.
pub fn typed_text(shell: Shell, report: &str, line: &str, token: &str) -> Typed {
    let report = |status: &str| format!("{report} \"{status} \"{token}");
    let (lines, last_line) = match shell {
        Shell::Bash => (format!(" {line}"), format!(" {}", report("$?"))),
        Shell::Zsh => (
            format!(" {{ {line}"),
            format!("}} always {{ {} }}", report("$?")),
        ),
        Shell::Fish => {
            let handler = format!("__zellij_mcp_{token}");
            let report = report("$s");
            let define = format!(
                " function {handler} --on-event fish_postexec; set -l s $status; functions -e {handler}; {report}; end"
            );
            (format!("{define}\n {line}"), format!(" #{token}"))
        }
    };
    Typed {
        text: format!("\x1b[200~{lines}\n{last_line}\x1b[201~\r"),
        echo: Echo {
            first_line: lines.lines().next().unwrap_or_default().to_owned(),
            last_line,
        },
    }
}

/// The command that sends the exit report to the session's plugin (the
/// status and token follow it): `zellij pipe` aimed at the plugin's
/// instance, as other plugins that get a pipe would let it go at once.
pub fn report_command(zellij: &Path, to: &Destination) -> Result<String, ToolFailure> {
    let Destination::Plugin { url, configuration } = to else {
        return Err(bad_request(
            "the plugin's URL is not known yet",
            "retry in a moment",
        ));
    };
    let mut words = vec![shell_word(zellij.to_str().unwrap_or("zellij"))?];
    words.extend(["pipe".into(), "-p".into(), shell_word(url)?]);
    if !configuration.is_empty() {
        let configuration = cli_configuration(configuration)
            .map_err(|why| bad_request(why, "load the plugin without that configuration entry"))?;
        words.extend(["-c".into(), shell_word(&configuration)?]);
    }
    words.extend(["-n".into(), EXIT_PIPE_NAME.into(), "--".into()]);
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

/// The command's output: the rows after the echo (see [`after_echo`]),
/// without a last row that is the prompt the echo followed. Zellij 0.45.1
/// does not always keep the report's pipe blocked until the output is
/// read, and then the shell's next prompt can be there already.
pub fn output_rows<'r, 'a>(rows: &'r [&'a str], echo: &Echo) -> Option<&'r [&'a str]> {
    let output = after_echo(rows, &echo.last_line)?;
    let echo_end = rows.len() - output.len();
    let Some(prompt) = prompt_before(&rows[..echo_end], &echo.first_line) else {
        return Some(output);
    };
    let mut end = output.len();
    while end > 0 && output[end - 1].trim().is_empty() {
        end -= 1;
    }
    match end > 0 && output[end - 1].trim_end() == prompt {
        true => Some(&output[..end - 1]),
        false => Some(output),
    }
}

/// The prompt on the row where the echo of `first_line` begins (searched
/// from the end of `rows`), or `None` when there is none to tell.
fn prompt_before(rows: &[&str], first_line: &str) -> Option<String> {
    let start: String = first_line.trim_end().chars().take(12).collect();
    if start.trim().is_empty() {
        return None;
    }
    let row = rows
        .iter()
        .rev()
        .take(64)
        .find(|row| row.contains(&start))?;
    let prompt = row[..row.rfind(&start)?].trim_end();
    (!prompt.is_empty()).then(|| prompt.to_owned())
}

/// The rows after the echo of `last_line` (see [`Typed`]), or `None` when
/// it is not among `rows`. Spaces are left out of the comparison: a row
/// wrapped at a space loses it when trimmed.
pub fn after_echo<'r, 'a>(rows: &'r [&'a str], last_line: &str) -> Option<&'r [&'a str]> {
    let squeeze = |text: &str| -> String { text.chars().filter(|c| !c.is_whitespace()).collect() };
    let echo = squeeze(last_line);
    let ends_echo = |at: usize| {
        let mut joined = squeeze(rows[at]);
        if joined.is_empty() || !echo.ends_with(&joined) {
            return false;
        }
        let mut first = at;
        while joined.len() < echo.len() && first > 0 {
            first -= 1;
            joined.insert_str(0, &squeeze(rows[first]));
        }
        joined.ends_with(&echo)
    };
    let at = (0..rows.len()).rev().find(|&at| ends_echo(at))?;
    Some(&rows[at + 1..])
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
        let (session, located) = self.locate(session, pane).await?;
        let Some(pid) = located.pid else {
            return Err(bad_request(
                format!("{pane} has no process of its own"),
                "pass a terminal pane running a shell",
            ));
        };
        let (mut run, echo) = self.to_type(&session, pane, pid, line).await?;
        let (session, ran) = self
            .run_in_turn(&session, &mut run, pid, deadline, context)
            .await?;
        let mut result = self.shell_output(&session, &ran, &echo, max_bytes).await;
        if ran.timed_out && args.kill_on_timeout {
            result.killed = self.interrupt(&session, pane).await;
        }
        if !ran.timed_out {
            self.release(&session, run.token).await;
        }
        result.elapsed_ms = started.elapsed().as_millis() as u64;
        Ok(FromSession { session, result })
    }

    /// The run to send for `line`, and how it shows (see [`Typed`]).
    async fn to_type(
        &self,
        session: &str,
        pane: PaneRef,
        pid: u32,
        line: &str,
    ) -> Result<(RunInPaneArgs, Echo), ToolFailure> {
        let shell = shell_of(pane, pid)?;
        let token = random_hex(8).map_err(|e| {
            ToolFailure(ErrorBody::from(Error::Internal {
                problem: format!("no random token: {e}"),
                fix: Some("check /dev/urandom can be read".into()),
            }))
        })?;
        let to = self.client.destination(session).await?;
        let report = report_command(&self.client.config().zellij, &to)?;
        let typed = typed_text(shell, &report, line, &token);
        let run = RunInPaneArgs {
            pane_id: pane,
            text: typed.text,
            token,
            at_prompt: back_at_prompt(pane, pid).await,
            timeout_ms: None,
        };
        Ok((run, typed.echo))
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
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            run.timeout_ms = Some(left.as_millis().max(1) as u64);
            let on = OnRequest::default();
            let sent = self.send_noted::<op::RunInPane>(session, run, left, &on);
            let (session, ran) = self
                .waiting(session, op::RunInPane::NAME, &on, context, sent)
                .await?;
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

    /// The run's result with its output (and a cursor when it goes on).
    async fn shell_output(
        &self,
        session: &str,
        ran: &RunInPaneResult,
        echo: &Echo,
        max_bytes: usize,
    ) -> RunResult {
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
        };
        let mut tail = Some(FIRST_ROWS);
        let mut looked_again = false;
        loop {
            let rows = match self.client.rows(session, ran.pane_id, tail).await {
                Ok(rows) => rows,
                Err(e) => {
                    tracing::warn!("could not read the output of {}: {e}", ran.pane_id);
                    return result;
                }
            };
            let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
            let output = match output_rows(&rows, echo) {
                None if tail.is_some() && rows.len() >= FIRST_ROWS => {
                    tail = None;
                    continue;
                }
                None => {
                    tracing::warn!("the echo of a run is not in {}", ran.pane_id);
                    return result;
                }
                // Zellij may not have taken in the last output yet: one
                // more look (a millisecond) before "no output" is believed.
                Some(output) if !looked_again && output.iter().all(|r| r.trim().is_empty()) => {
                    looked_again = true;
                    continue;
                }
                Some(output) => output,
            };
            let (text, truncated) = tail_capped(output.iter().copied(), max_bytes);
            result.output = text;
            result.truncated = truncated;
            if ran.timed_out {
                result.cursor = Some(Cursor::after(&rows).encode());
            }
            return result;
        }
    }

    /// Lets the shell of a reported run go on to its prompt.
    async fn release(&self, session: &str, token: String) {
        let how = self.client.sending();
        let released = self
            .client
            .call::<op::Release>(Some(session), &ReleaseArgs { token }, how)
            .await;
        if let Err(e) = released {
            tracing::warn!("could not release a shell run: {e}");
        }
    }

    /// Types Ctrl-C into `pane` (a timed-out run with `kill_on_timeout`).
    async fn interrupt(&self, session: &str, pane: PaneRef) -> bool {
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
    while !Procfs::default().at_line_editor(pid) {
        if tokio::time::Instant::now() >= limit {
            return Err(ToolFailure(ErrorBody::from(Error::Timeout {
                problem: format!(
                    "the shell of {pane} did not come back to its prompt after the command lines before this one; nothing was typed"
                ),
            })));
        }
        tokio::time::sleep(STATE_LOOK).await;
    }
    Ok(())
}

/// The shell `pane`'s process `pid` runs, or why a line cannot be typed
/// into it.
fn shell_of(pane: PaneRef, pid: u32) -> Result<Shell, ToolFailure> {
    let Some(name) = Procfs::default().name_of(pid) else {
        return Err(ToolFailure(ErrorBody::from(Error::Unsupported {
            problem: format!("the process of {pane} (pid {pid}) is not on this machine"),
            fix: "run the server on the machine the session runs on".into(),
        })));
    };
    Shell::named(&name).ok_or_else(|| {
        ToolFailure(ErrorBody::from(Error::Unsupported {
            problem: format!("{pane} runs {name}, not bash, zsh or fish"),
            fix: "run the command with argv in a new pane (no pane_id), or in a bash, zsh or fish pane".into(),
        }))
    })
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    const REPORT: &str = "zellij pipe -p file:/p.wasm -n zellij-mcp-exit --";

    #[test]
    fn each_shell_gets_one_paste_ending_in_a_line_with_the_token() {
        for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
            let typed = typed_text(shell, REPORT, "echo 'a b'\necho $x", "0f1e");
            assert!(typed.text.starts_with("\x1b[200~ "), "{shell:?}: {typed:?}");
            assert!(typed.text.ends_with("\x1b[201~\r"), "{shell:?}: {typed:?}");
            assert!(
                typed.text.contains(" echo 'a b'\necho $x\n"),
                "verbatim: {typed:?}"
            );
            assert!(
                typed.echo.last_line.contains("0f1e"),
                "{shell:?}: {typed:?}"
            );
            assert!(typed
                .text
                .contains(&format!("\n{}\x1b[201~", typed.echo.last_line)));
        }
        let bash = typed_text(Shell::Bash, REPORT, "true", "0f1e");
        assert_eq!(bash.echo.last_line, format!(" {REPORT} \"$? \"0f1e"));
        let zsh = typed_text(Shell::Zsh, REPORT, "true", "0f1e");
        assert!(zsh.text.contains(" { true\n} always {"), "{zsh:?}");
        let fish = typed_text(Shell::Fish, REPORT, "true", "0f1e");
        assert!(
            fish.text
                .contains("--on-event fish_postexec; set -l s $status;"),
            "{fish:?}"
        );
        assert!(
            fish.text
                .contains(&format!("{REPORT} \"$s \"0f1e; end\n true\n")),
            "{fish:?}"
        );
    }

    #[test]
    fn the_output_starts_after_the_echo_even_when_it_wrapped() {
        let last = " zellij pipe -p file:/p.wasm -n zellij-mcp-exit -- \"$? \"0f1e";
        let rows = [
            "$ old output 0f1e",
            "$ echo hi",
            " zellij pipe -p file:/p.wa",
            "sm -n zellij-mcp-exit -- ",
            "\"$? \"0f1e",
            "hi",
            "",
        ];
        assert_eq!(after_echo(&rows, last), Some(&rows[5..]));
        assert_eq!(after_echo(&rows[..2], last), None, "no echo, no output");
        let printed = [
            "$ echo 0f1e",
            " zellij pipe -p file:/p.wasm -n zellij-mcp-exit -- \"$? \"0f1e",
            "0f1e",
        ];
        assert_eq!(
            after_echo(&printed, last),
            Some(&printed[2..]),
            "output that ends like the token is output"
        );
    }

    #[test]
    fn a_prompt_after_the_output_is_not_output() {
        let typed = typed_text(Shell::Bash, REPORT, "echo hi", "0f1e");
        let last = typed.echo.last_line.clone();
        let rows = ["bash-5.2#  echo hi", last.as_str(), "hi", "bash-5.2#", ""];
        assert_eq!(output_rows(&rows, &typed.echo), Some(&rows[2..3]));
        let held = ["bash-5.2#  echo hi", last.as_str(), "hi", ""];
        assert_eq!(output_rows(&held, &typed.echo), Some(&held[2..]));
        let printed = ["$  echo hi", last.as_str(), "bash-5.2#"];
        assert_eq!(
            output_rows(&printed, &typed.echo),
            Some(&printed[2..]),
            "another prompt's text is output"
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
        let command = report_command(
            Path::new("/usr/bin/zellij"),
            &plugin("file:~/z mcp.wasm", &[]),
        );
        assert_eq!(
            command.unwrap(),
            "/usr/bin/zellij pipe -p 'file:~/z mcp.wasm' -n zellij-mcp-exit --"
        );
        let configured =
            report_command(Path::new("zellij"), &plugin("file:/z.wasm", &[("a", "1")]));
        assert_eq!(
            configured.unwrap(),
            "zellij pipe -p file:/z.wasm -c a=1 -n zellij-mcp-exit --"
        );
        assert!(report_command(Path::new("/it's/zellij"), &plugin("file:/z.wasm", &[])).is_err());
        assert!(report_command(Path::new("zellij"), &Destination::Broadcast).is_err());
    }
}
