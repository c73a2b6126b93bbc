//! How a command line starts its program. People put things in front of an
//! agent: `env` with its options (`-u NAME`, `-i`, `-C DIR`, `-S STRING`,
//! `K=V`), wrappers (`nohup`, `nice`, `timeout`, `setsid`, ...), package
//! runners (`npx`, `npm exec`, `pnpm dlx`, `bunx`, `uvx`, `pipx run`), a
//! shell's `-c` that runs one command (`cd DIR && exec ...`), and an
//! interpreter with its options (`node --flag script.js`, `python3 -m mod`).
//!
//! A command line is read for sure or not at all: a form or an option that
//! is not known is [`Unreadable`], and nothing is started from it. What is
//! read keeps every word where it was, so a program's own arguments can be
//! added right after it (see [`Launch::with_args`]) and the environment
//! changes the line makes stay exactly as they were.

use std::fmt;

/// A command line, read for the program it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    /// Every word, a shell's `-c` string and `env -S` split in place.
    words: Vec<Word>,
    /// Which word names the program: an interpreter's script, a package
    /// runner's package, or else the executable.
    program: usize,
    /// Whether that word is a package (`@openai/codex@1.0`, `aider-chat`).
    package: bool,
    /// The changes made to the environment before the program runs, in
    /// order.
    pub env: Vec<EnvChange>,
}

/// One word of a command line, and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Word {
    text: String,
    at: At,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    /// `argv[i]`, whole.
    Arg(usize),
    /// Bytes `start..end` of `argv[i]`, a command string split into words.
    Within(usize, usize, usize),
}

/// A change a command line makes to the program's environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvChange {
    Set(String, String),
    Unset(String),
    /// `env -i`: nothing of the environment is kept.
    Clear,
    /// `env -C DIR`, a shell's `cd DIR &&`.
    Chdir(String),
}

/// Why a command line cannot be read for sure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable(pub String);

impl fmt::Display for Unreadable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn unreadable<T>(why: impl Into<String>) -> Result<T, Unreadable> {
    Err(Unreadable(why.into()))
}

/// Reads `argv` for the program it starts.
pub fn read(argv: &[String]) -> Result<Launch, Unreadable> {
    let words = argv.iter().enumerate().map(|(i, a)| Word {
        text: a.clone(),
        at: At::Arg(i),
    });
    Reader {
        words: words.collect(),
        at: 0,
        env: Vec::new(),
    }
    .launch()
}

/// Reads a command line as Zellij tells it (its words joined by spaces, so
/// a shell's `-c` string is whatever follows the `-c`).
pub fn read_command(command: &str) -> Result<Launch, Unreadable> {
    let mut argv: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
    let shell_c = argv.iter().position(|w| is_shell_c(w));
    let shell_c = shell_c.filter(|&i| i > 0 && SHELLS.contains(&base(&argv[i - 1])));
    if let Some(c) = shell_c.filter(|&c| c + 2 < argv.len()) {
        let script = argv[c + 1..].join(" ");
        argv.truncate(c + 1);
        argv.push(script);
    }
    read(&argv)
}

/// The name of the program `argv` runs: its executable's, an interpreter's
/// script's (`node …/claude-code/cli.js` is `claude`) or a package's; for a
/// command line that cannot be read, its first word's.
pub fn program_name(argv: &[String]) -> Option<String> {
    match read(argv) {
        Ok(launch) => Some(launch.name()),
        Err(_) => argv.first().map(|a| named(a)),
    }
}

/// [`program_name`] of a command line as Zellij tells it.
pub fn program_of_command(command: &str) -> Option<String> {
    match read_command(command) {
        Ok(launch) => Some(launch.name()),
        Err(_) => command.split_whitespace().next().map(named),
    }
}

/// Agent programs, by the name their executable or script has.
const AGENT_PROGRAMS: [&str; 8] = [
    "claude", "codex", "gemini", "opencode", "aider", "goose", "amp", "qwen",
];

/// Whether `argv` runs an agent program (see [`program_name`]).
pub fn is_agent_program(argv: &[String]) -> bool {
    program_name(argv).is_some_and(|name| names_an_agent(&name))
}

/// Whether a program of this name (see [`program_name`]) is an
/// agent's.
pub fn names_an_agent(program: &str) -> bool {
    AGENT_PROGRAMS.contains(&program)
}

/// Whether `program` runs scripts (`node`, `python3`, ...).
pub fn is_interpreter(program: &str) -> bool {
    interpreter(program).is_some()
}

impl Launch {
    /// The program's name (see [`program_name`]).
    pub fn name(&self) -> String {
        let word = &self.words[self.program].text;
        if self.package {
            package_name(word)
        } else {
            named(word)
        }
    }

    /// The program's own arguments, as written.
    pub fn args(&self) -> Vec<&str> {
        let rest = &self.words[self.program + 1..];
        rest.iter().map(|w| w.text.as_str()).collect()
    }

    /// `argv` (the command line read) with `args` added right after the
    /// program's word, every other word as it was.
    pub fn with_args(&self, argv: &[String], args: &[String]) -> Vec<String> {
        let mut out = argv.to_vec();
        match self.words[self.program].at {
            At::Arg(i) => {
                let tail = out.split_off(i + 1);
                out.extend_from_slice(args);
                out.extend(tail);
            }
            At::Within(i, _, end) => {
                let quoted: Vec<String> = args.iter().map(|a| quote(a)).collect();
                let text = &argv[i];
                out[i] = format!("{} {}{}", &text[..end], quoted.join(" "), &text[end..]);
            }
        }
        out
    }
}

/// Shells whose `-c` runs a command string.
const SHELLS: [&str; 6] = ["sh", "bash", "zsh", "dash", "ksh", "fish"];

/// Agent programs whose script or package is named otherwise, by the
/// package's name (a folder of its path, or the runner's package).
const PACKAGES: [(&str, &str); 5] = [
    ("claude-code", "claude"),
    ("qwen-code", "qwen"),
    ("gemini-cli", "gemini"),
    ("opencode-ai", "opencode"),
    ("aider-chat", "aider"),
];

/// The options a command takes: single letters that stand alone, letters
/// that take a value, long names that stand alone, long names that take a
/// value. A long option may carry its value after `=` in any case.
struct Options {
    flags: &'static str,
    values: &'static str,
    long_flags: &'static [&'static str],
    long_values: &'static [&'static str],
}

const NONE: Options = Options {
    flags: "",
    values: "",
    long_flags: &[],
    long_values: &[],
};

/// A wrapper that runs the command after its options (and, for some,
/// after one more word: `timeout`'s duration).
struct Wrapper {
    name: &'static str,
    options: Options,
    operands: usize,
}

const WRAPPERS: [Wrapper; 10] = [
    Wrapper {
        name: "nohup",
        options: NONE,
        operands: 0,
    },
    Wrapper {
        name: "exec",
        options: Options {
            flags: "cl",
            values: "a",
            ..NONE
        },
        operands: 0,
    },
    Wrapper {
        name: "command",
        options: Options { flags: "p", ..NONE },
        operands: 0,
    },
    Wrapper {
        name: "setsid",
        options: Options {
            flags: "cfw",
            long_flags: &["ctty", "fork", "wait"],
            ..NONE
        },
        operands: 0,
    },
    Wrapper {
        name: "nice",
        options: Options {
            values: "n",
            long_values: &["adjustment"],
            ..NONE
        },
        operands: 0,
    },
    Wrapper {
        name: "ionice",
        options: Options {
            flags: "t",
            values: "cn",
            long_flags: &["ignore"],
            long_values: &["class", "classdata"],
        },
        operands: 0,
    },
    Wrapper {
        name: "timeout",
        options: Options {
            flags: "v",
            values: "sk",
            long_flags: &["foreground", "preserve-status", "verbose"],
            long_values: &["signal", "kill-after"],
        },
        operands: 1,
    },
    Wrapper {
        name: "stdbuf",
        options: Options {
            values: "ioe",
            long_values: &["input", "output", "error"],
            ..NONE
        },
        operands: 0,
    },
    Wrapper {
        name: "time",
        options: Options {
            flags: "pav",
            values: "fo",
            long_flags: &["portability", "append", "verbose"],
            long_values: &["format", "output"],
        },
        operands: 0,
    },
    Wrapper {
        name: "caffeinate",
        options: Options {
            flags: "dimsu",
            values: "tw",
            ..NONE
        },
        operands: 0,
    },
];

const ENV: Options = Options {
    flags: "iv0",
    values: "uCSP",
    long_flags: &[
        "ignore-environment",
        "null",
        "debug",
        "default-signal",
        "ignore-signal",
        "block-signal",
        "list-signal-handling",
    ],
    long_values: &["unset", "chdir", "split-string"],
};

/// `npx` and the runners like it; `-c`/`--call` runs a command string,
/// which is not read.
const RUNNER: Options = Options {
    flags: "yq",
    values: "pc",
    long_flags: &[
        "yes",
        "no",
        "quiet",
        "silent",
        "no-install",
        "ignore-existing",
        "prefer-offline",
        "prefer-online",
        "offline",
        "bun",
        "shell-mode",
    ],
    long_values: &[
        "package",
        "call",
        "registry",
        "cache",
        "userconfig",
        "prefix",
        "workspace",
    ],
};

/// `uvx`, `uv run`, `uv tool run` and `pipx run`.
const PYTHON_RUNNER: Options = Options {
    flags: "qv",
    values: "pw",
    long_flags: &[
        "quiet",
        "verbose",
        "isolated",
        "offline",
        "no-project",
        "no-sync",
        "frozen",
        "locked",
        "no-cache",
        "system-site-packages",
    ],
    long_values: &[
        "from",
        "with",
        "with-editable",
        "with-requirements",
        "python",
        "index",
        "index-url",
        "extra-index-url",
        "directory",
        "project",
        "spec",
        "pip-args",
        "cache-dir",
    ],
};

/// An interpreter's options that take the next word as their value.
const NODE_VALUES: [&str; 9] = [
    "-r",
    "--require",
    "--import",
    "--loader",
    "--experimental-loader",
    "-C",
    "--conditions",
    "--title",
    "--input-type",
];
/// Options after which an interpreter runs no script of a file.
const NO_SCRIPT: [&str; 8] = [
    "-e",
    "-p",
    "--eval",
    "--print",
    "-c",
    "--check",
    "-i",
    "--interactive",
];
const PYTHON_VALUES: [&str; 3] = ["-W", "-X", "--check-hash-based-pycs"];

#[derive(Debug, Clone, Copy, PartialEq)]
enum Interpreter {
    Node,
    Bun,
    Deno,
    Python,
}

fn interpreter(word: &str) -> Option<Interpreter> {
    let name = base(word);
    let python = name
        .strip_prefix("python")
        .is_some_and(|version| version.chars().all(|c| c.is_ascii_digit() || c == '.'));
    match name {
        "node" | "nodejs" => Some(Interpreter::Node),
        "bun" => Some(Interpreter::Bun),
        "deno" => Some(Interpreter::Deno),
        _ if python => Some(Interpreter::Python),
        _ => None,
    }
}

struct Reader {
    words: Vec<Word>,
    at: usize,
    env: Vec<EnvChange>,
}

/// `zellij-mcp launch [OPTIONS] -- ARGV`: ARGV run with its hooks, and
/// with `--relay` under the relay (read past).
pub const LAUNCH: &str = "launch";
/// `zellij-mcp relay [OPTIONS] -- ARGV`: ARGV run under the relay (read past).
pub const RELAY: &str = "relay";
/// `launch`'s option that runs the program under the relay.
pub const WITH_RELAY: &str = "--relay";
/// The relay's option that records the pane to a file (`--record FILE`).
pub const RECORD: &str = "--record";

/// Whether `argv` is a relay's own command line (`zellij-mcp relay …`,
/// `zellij-mcp launch --relay …`): what Zellij tells as a relayed pane's
/// running command, whatever runs on the relay's pty.
pub fn is_relay(argv: &[String]) -> bool {
    let own = argv
        .first()
        .is_some_and(|first| base(first) == "zellij-mcp");
    let options = argv.iter().skip(2).take_while(|word| *word != "--");
    match argv.get(1).map(String::as_str) {
        Some(RELAY) => own,
        Some(LAUNCH) => own && options.into_iter().any(|word| word == WITH_RELAY),
        _ => false,
    }
}

/// What a relay's own command line runs (the words after its `--`); `None`
/// for any other line.
pub fn relayed(argv: &[String]) -> Option<&[String]> {
    let end = argv.iter().position(|word| word == "--")?;
    is_relay(argv).then(|| &argv[end + 1..])
}

/// The options of `launch` and `relay`.
const OWN_LAUNCH: Options = Options {
    long_flags: &["relay", "record-input"],
    long_values: &["record"],
    ..NONE
};

impl Reader {
    /// The word `ahead` words from here.
    fn text(&self, ahead: usize) -> Option<&str> {
        self.words.get(self.at + ahead).map(|w| w.text.as_str())
    }

    fn launch(mut self) -> Result<Launch, Unreadable> {
        loop {
            let Some(word) = self.words.get(self.at) else {
                return unreadable("it names no program");
            };
            let name = base(&word.text).to_owned();
            if let Some(wrapper) = WRAPPERS.iter().find(|w| w.name == name) {
                self.at += 1;
                self.options(&name, &wrapper.options, false)?;
                self.at += wrapper.operands;
            } else if name == "env" {
                self.at += 1;
                self.env_options()?;
            } else if name == "zellij-mcp" && [Some(LAUNCH), Some(RELAY)].contains(&self.text(1)) {
                // zellij-mcp's own launch (the program's hooks) and relay.
                self.at += 2;
                self.options("zellij-mcp", &OWN_LAUNCH, false)?;
            } else if SHELLS.contains(&name.as_str()) {
                if !self.shell()? {
                    return self.program(false);
                }
            } else if let Some(kind) = interpreter(&word.text) {
                return self.interpreted(kind);
            } else if ["npx", "pnpx", "bunx"].contains(&name.as_str()) {
                self.at += 1;
                return self.runner(&RUNNER, true);
            } else if name == "uvx" {
                self.at += 1;
                return self.runner(&PYTHON_RUNNER, true);
            } else if let Some((options, package)) = self.subcommand(&name) {
                return self.runner(options, package);
            } else {
                return self.program(false);
            }
        }
    }

    fn program(self, package: bool) -> Result<Launch, Unreadable> {
        if self.at >= self.words.len() {
            return unreadable("it names no program");
        }
        Ok(Launch {
            program: self.at,
            package,
            words: self.words,
            env: self.env,
        })
    }

    /// A package manager's subcommand that runs a package or a project's
    /// program (`npm exec`, `pnpm dlx`, `uv run`, `pipx run`); past it.
    fn subcommand(&mut self, name: &str) -> Option<(&'static Options, bool)> {
        let next = |n: usize| self.words.get(self.at + n).map(|w| w.text.as_str());
        let (options, package, length) = match (name, next(1), next(2)) {
            ("npm", Some("exec" | "x"), _) => (&RUNNER, true, 2),
            ("pnpm" | "yarn", Some("dlx"), _) => (&RUNNER, true, 2),
            ("pnpm" | "yarn", Some("exec"), _) => (&RUNNER, false, 2),
            ("bun", Some("x"), _) => (&RUNNER, true, 2),
            ("uv", Some("run"), _) => (&PYTHON_RUNNER, false, 2),
            ("uv", Some("tool"), Some("run")) => (&PYTHON_RUNNER, true, 3),
            ("pipx", Some("run"), _) => (&PYTHON_RUNNER, true, 2),
            _ => return None,
        };
        self.at += length;
        Some((options, package))
    }

    /// A runner's options, then its package (or command).
    fn runner(mut self, options: &Options, package: bool) -> Result<Launch, Unreadable> {
        let runner = self.words[self.at.saturating_sub(1)].text.clone();
        let given = self.options(&runner, options, false)?;
        let named = |o: &str| given.iter().any(|(name, _)| name == o);
        if named("c") || named("call") {
            return unreadable(format!("{runner} runs a command string"));
        }
        // `--from PKG CMD` and `--package PKG CMD` run a command of PKG.
        let by_command = ["from", "package", "p", "spec"].iter().any(|o| named(o));
        self.program(package && !by_command)
    }

    /// An interpreter, its options, then its script (or module); the
    /// interpreter itself when it runs none.
    fn interpreted(mut self, kind: Interpreter) -> Result<Launch, Unreadable> {
        let interpreter = self.at;
        self.at += 1;
        let next = |r: &Reader| r.words.get(r.at).map(|w| w.text.clone());
        if matches!(kind, Interpreter::Deno | Interpreter::Bun)
            && next(&self).is_some_and(|w| w == "run")
        {
            self.at += 1;
        }
        while let Some(word) = next(&self) {
            if word == "--" {
                self.at += 1;
                break;
            }
            if !word.starts_with('-') || word == "-" {
                break;
            }
            let flag = word.split('=').next().unwrap_or(&word);
            if NO_SCRIPT.contains(&flag) && kind != Interpreter::Python || word == "-c" {
                self.at = interpreter;
                return self.program(false);
            }
            if kind == Interpreter::Python && word.starts_with("-m") {
                // `-m MODULE` (or `-mMODULE`): the module is the program.
                if word.len() > 2 {
                    return unreadable("python's -m names its module in the same word");
                }
                self.at += 1;
                return self.program(false);
            }
            let takes_value = match kind {
                Interpreter::Python => PYTHON_VALUES.contains(&word.as_str()),
                _ => NODE_VALUES.contains(&word.as_str()),
            };
            self.at += 1 + usize::from(takes_value);
        }
        if self.at >= self.words.len() {
            self.at = interpreter;
        }
        self.program(false)
    }

    /// Options of `command` as `options` says, up to the first word that
    /// is none (or past `--`), or of one word; the options given, by name,
    /// with values.
    fn options(
        &mut self,
        command: &str,
        options: &Options,
        one_word: bool,
    ) -> Result<Vec<(String, Option<String>)>, Unreadable> {
        let mut given = Vec::new();
        let start = self.at;
        while let Some(word) = self.words.get(self.at).map(|w| w.text.clone()) {
            if one_word && self.at > start {
                break;
            }
            if word == "--" {
                self.at += 1;
                break;
            }
            if !word.starts_with('-') || word == "-" {
                break;
            }
            self.at += 1;
            if let Some(long) = word.strip_prefix("--") {
                let (name, value) = match long.split_once('=') {
                    Some((name, value)) => (name, Some(value.to_owned())),
                    None => (long, None),
                };
                let value = if options.long_values.contains(&name) {
                    match value {
                        Some(value) => Some(value),
                        None => Some(self.value(command, &word)?),
                    }
                } else if options.long_flags.contains(&name) {
                    value
                } else {
                    return unreadable(format!("{command}'s option {word} is not known"));
                };
                given.push((name.to_owned(), value));
                continue;
            }
            // A numeric option (`nice -5`) is a flag of its own.
            if command == "nice" && word[1..].chars().all(|c| c.is_ascii_digit()) {
                continue;
            }
            for (i, letter) in word[1..].char_indices() {
                if options.values.contains(letter) {
                    let rest = &word[2 + i..];
                    let value = if rest.is_empty() {
                        self.value(command, &word)?
                    } else {
                        rest.to_owned()
                    };
                    given.push((letter.to_string(), Some(value)));
                    break;
                }
                if !letter.is_ascii_alphanumeric() || !options.flags.contains(letter) {
                    return unreadable(format!("{command}'s option -{letter} is not known"));
                }
                given.push((letter.to_string(), None));
            }
        }
        Ok(given)
    }

    /// The word after an option that takes it.
    fn value(&mut self, command: &str, option: &str) -> Result<String, Unreadable> {
        let Some(word) = self.words.get(self.at) else {
            return unreadable(format!("{command}'s option {option} has no value"));
        };
        self.at += 1;
        Ok(word.text.clone())
    }

    /// `env`'s options and assignments, with what each changes.
    fn env_options(&mut self) -> Result<(), Unreadable> {
        while let Some(word) = self.words.get(self.at).map(|w| w.text.clone()) {
            if word == "--" {
                self.at += 1;
                break;
            }
            if !word.starts_with('-') || word == "-" {
                break;
            }
            // One word at a time: `-S`'s string is read on in its place.
            for (name, value) in self.options("env", &ENV, true)? {
                let value = value.unwrap_or_default();
                match name.as_str() {
                    "i" | "ignore-environment" => self.env.push(EnvChange::Clear),
                    "u" | "unset" => self.env.push(EnvChange::Unset(value)),
                    "C" | "chdir" => self.env.push(EnvChange::Chdir(value)),
                    "P" => return unreadable("env -P searches a path of its own"),
                    "S" | "split-string" => {
                        let string = self.words[self.at - 1].clone();
                        let words = split_within(&string, &value, false)?;
                        self.words.splice(self.at - 1..self.at, words);
                        self.at -= 1;
                    }
                    _ => {}
                }
            }
        }
        self.assignments();
        Ok(())
    }

    /// `NAME=VALUE` words.
    fn assignments(&mut self) {
        while let Some((name, value)) = self.words.get(self.at).and_then(|w| assignment(&w.text)) {
            self.env.push(EnvChange::Set(name, value));
            self.at += 1;
        }
    }

    /// A shell with `-c`: its command string's words take their place, and
    /// are read on (true); a shell that runs no string is the program.
    fn shell(&mut self) -> Result<bool, Unreadable> {
        let mut at = self.at + 1;
        let mut string = false;
        while let Some(word) = self.words.get(at).map(|w| w.text.as_str()) {
            if word == "-o" || word == "+o" {
                at += 2;
                continue;
            }
            let option = word.starts_with(['-', '+']) && word.len() > 1;
            if !option || word == "--" {
                break;
            }
            string |= is_shell_c(word);
            at += 1;
        }
        if !string {
            return Ok(false);
        }
        let Some(script) = self.words.get(at).cloned() else {
            return unreadable("the shell's -c has no command");
        };
        let mut words = split_within(&script, &script.text, true)?;
        // `cd DIR &&` before the command.
        if let [cd, dir, and, ..] = &words[..] {
            if cd.text == "cd" && and.text == "&&" {
                self.env.push(EnvChange::Chdir(dir.text.clone()));
                words.drain(..3);
            }
        }
        if words.iter().any(|w| w.text == "&&") {
            return unreadable("the shell runs more than one command");
        }
        // The words after the string are its $0, $1, ...: not the program's.
        self.words.truncate(self.at);
        self.words.extend(words);
        self.assignments();
        Ok(true)
    }
}

fn is_shell_c(word: &str) -> bool {
    word.starts_with('-')
        && !word.starts_with("--")
        && word[1..].chars().all(|c| c.is_ascii_alphabetic())
        && word.contains('c')
}

/// `NAME=VALUE`, with a name a shell takes.
fn assignment(word: &str) -> Option<(String, String)> {
    let (name, value) = word.split_once('=')?;
    let mut letters = name.chars();
    let first = letters.next()?;
    let named = (first.is_ascii_alphabetic() || first == '_')
        && letters.all(|c| c.is_ascii_alphanumeric() || c == '_');
    named.then(|| (name.to_owned(), value.to_owned()))
}

/// The words of a command string (`text`, which is `word` or its end), as
/// words within `word`. Only plain words and quotes are read: anything a
/// shell would expand, redirect or run apart is [`Unreadable`]. With
/// `operators`, `&&` is a word of its own.
fn split_within(word: &Word, text: &str, operators: bool) -> Result<Vec<Word>, Unreadable> {
    let At::Arg(arg) = word.at else {
        return unreadable("a command string inside another");
    };
    let offset = word.text.len() - text.len();
    let mut words = Vec::new();
    let mut current: Option<(usize, String)> = None;
    let mut chars = text.char_indices().peekable();
    let end_word = |current: &mut Option<(usize, String)>, words: &mut Vec<Word>, end: usize| {
        if let Some((start, text)) = current.take() {
            words.push(Word {
                text,
                at: At::Within(arg, offset + start, offset + end),
            });
        }
    };
    while let Some((i, c)) = chars.next() {
        match c {
            ' ' | '\t' => end_word(&mut current, &mut words, i),
            '\'' | '"' => {
                let (start, mut text) = current.take().unwrap_or((i, String::new()));
                let mut closed = false;
                for (_, q) in chars.by_ref() {
                    if q == c {
                        closed = true;
                        break;
                    }
                    if c == '"' && matches!(q, '$' | '`' | '\\' | '!') {
                        return unreadable("the command string expands something in its quotes");
                    }
                    text.push(q);
                }
                if !closed {
                    return unreadable("the command string has an unclosed quote");
                }
                current = Some((start, text));
            }
            '&' if operators && chars.peek().is_some_and(|(_, n)| *n == '&') => {
                chars.next();
                end_word(&mut current, &mut words, i);
                words.push(Word {
                    text: "&&".into(),
                    at: At::Within(arg, offset + i, offset + i + 2),
                });
            }
            c if c.is_ascii_alphanumeric() || "_-./=:,+%@~^".contains(c) || !c.is_ascii() => {
                let (start, mut text) = current.take().unwrap_or((i, String::new()));
                text.push(c);
                current = Some((start, text));
            }
            _ => {
                return unreadable(format!(
                    "the command string has a '{c}' a shell would act on"
                ))
            }
        }
    }
    end_word(&mut current, &mut words, text.len());
    Ok(words)
}

/// `word` as one word of a shell or `env -S` string.
fn quote(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./=:,+%@".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The last part of a path.
fn base(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// A program's name from its executable or script: a known package's
/// folder in its path, else its file's name up to the first dot
/// (`claude.exe`, `gemini.js`).
fn named(word: &str) -> String {
    let folder = PACKAGES
        .iter()
        .find(|(package, _)| word.contains(&format!("/{package}/")));
    if let Some((_, program)) = folder {
        return (*program).to_owned();
    }
    let name = base(word);
    name.split('.').next().unwrap_or(name).to_owned()
}

/// A program's name from a package: `@openai/codex@1.0` is `codex`,
/// `aider-chat==0.86` and `@anthropic-ai/claude-code` are known packages.
fn package_name(spec: &str) -> String {
    let unscoped = spec
        .strip_prefix('@')
        .map_or(spec, |s| s.split_once('/').map_or(s, |p| p.1));
    let end = unscoped.find(['@', '=', '<', '>', '[', '~', '!']);
    let name = &unscoped[..end.unwrap_or(unscoped.len())];
    let known = PACKAGES.iter().find(|(package, _)| *package == name);
    known.map_or(name, |(_, program)| program).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|s| s.to_string()).collect()
    }

    fn name_and_args(words: &[&str]) -> (String, Vec<String>) {
        let launch = read(&argv(words)).unwrap_or_else(|e| panic!("{words:?}: {e}"));
        let args = launch.args().into_iter().map(str::to_owned).collect();
        (launch.name(), args)
    }

    #[test]
    fn env_with_every_option_is_read_with_its_changes() {
        let line = argv(&[
            "env",
            "-u",
            "OPENAI_API_KEY",
            "--unset=X",
            "-uY",
            "-i",
            "-C",
            "/w",
            "--",
            "HOME=/h",
            "PATH=/bin",
            "codex",
            "-a",
        ]);
        let launch = read(&line).unwrap();
        assert_eq!(launch.name(), "codex");
        assert_eq!(launch.args(), ["-a"]);
        use EnvChange::*;
        assert_eq!(
            launch.env,
            [
                Unset("OPENAI_API_KEY".into()),
                Unset("X".into()),
                Unset("Y".into()),
                Clear,
                Chdir("/w".into()),
                Set("HOME".into(), "/h".into()),
                Set("PATH".into(), "/bin".into()),
            ]
        );
        let resumed = launch.with_args(&line, &argv(&["resume", "ID"]));
        assert_eq!(resumed[..12], line[..12]);
        assert_eq!(resumed[12..], argv(&["resume", "ID", "-a"]));
    }

    #[test]
    fn env_s_splits_its_string_and_reads_on() {
        let line = argv(&["env", "-S", "-u K A=1 claude --x", "y"]);
        let launch = read(&line).unwrap();
        assert_eq!(
            (launch.name(), launch.args()),
            ("claude".into(), vec!["--x", "y"])
        );
        let resumed = launch.with_args(&line, &argv(&["--resume", "a b"]));
        assert_eq!(resumed[2], "-u K A=1 claude --resume 'a b' --x");
        assert_eq!(
            read(&resumed).unwrap().args(),
            ["--resume", "a b", "--x", "y"]
        );
    }

    #[test]
    fn a_relays_own_line_is_known_as_such() {
        let relays: &[&[&str]] = &[
            &["/b/zellij-mcp", "launch", "--relay", "--", "sh", "-c", "x"],
            &["zellij-mcp", "relay", "--", "vim"],
        ];
        for line in relays {
            assert!(is_relay(&argv(line)), "{line:?}");
        }
        let inner = |line: &[&str]| relayed(&argv(line)).map(<[String]>::to_vec);
        assert_eq!(inner(relays[0]), Some(argv(&["sh", "-c", "x"])));
        assert_eq!(inner(relays[1]), Some(argv(&["vim"])));
        let others: &[&[&str]] = &[
            &["/b/zellij-mcp", "launch", "--", "claude"],
            &["zellij-mcp", "launch", "--", "x", "--relay"],
            &["relay", "--", "vim"],
            &["zellij-mcp"],
        ];
        for line in others {
            assert!(!is_relay(&argv(line)), "{line:?}");
            assert_eq!(relayed(&argv(line)), None, "{line:?}");
        }
    }

    #[test]
    fn wrappers_runners_shells_and_interpreters_are_read_past() {
        let cases: &[(&[&str], &str, &[&str])] = &[
            (&["nohup", "nice", "-n", "5", "codex", "x"], "codex", &["x"]),
            (
                &["/b/zellij-mcp", "launch", "--", "claude", "-c"],
                "claude",
                &["-c"],
            ),
            (
                &["zellij-mcp", "launch", "--relay", "--", "codex", "-c"],
                "codex",
                &["-c"],
            ),
            (
                &["zellij-mcp", "relay", "--record", "a.cast", "--", "qwen"],
                "qwen",
                &[],
            ),
            (
                &["timeout", "-k", "5", "1h", "setsid", "-w", "gemini"],
                "gemini",
                &[],
            ),
            (
                &["npx", "-y", "@openai/codex@0.1", "resume"],
                "codex",
                &["resume"],
            ),
            (&["npx", "--package", "@x/y", "codex"], "codex", &[]),
            (
                &["npm", "exec", "--yes", "--", "@google/gemini-cli"],
                "gemini",
                &[],
            ),
            (
                &["pnpm", "dlx", "@anthropic-ai/claude-code", "-c"],
                "claude",
                &["-c"],
            ),
            (&["bunx", "opencode-ai@latest"], "opencode", &[]),
            (
                &["uvx", "--from", "aider-chat", "aider", "--x"],
                "aider",
                &["--x"],
            ),
            (&["uvx", "aider-chat==0.86.2"], "aider", &[]),
            (&["pipx", "run", "aider-chat"], "aider", &[]),
            (
                &["python3", "-u", "-m", "aider", "--yes"],
                "aider",
                &["--yes"],
            ),
            (
                &["node", "--max-old-space-size=8192", "/x/bundle/gemini.js"],
                "gemini",
                &[],
            ),
            (
                &["node", "-r", "hook.js", "/x/claude-code/cli.js", "a"],
                "claude",
                &["a"],
            ),
            (&["node", "-e", "1"], "node", &["-e", "1"]),
            (
                &["bash", "-lc", "cd '/a b' && exec env -u X codex -m o"],
                "codex",
                &["-m", "o"],
            ),
            (&["sh", "-c", "A=1 exec qwen", "sh"], "qwen", &[]),
            (&["bash"], "bash", &[]),
            (&["bash", "run.sh"], "bash", &["run.sh"]),
            (&["/usr/bin/env", "claude"], "claude", &[]),
        ];
        for (line, name, args) in cases {
            let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
            assert_eq!(name_and_args(line), (name.to_string(), args), "{line:?}");
        }
    }

    #[test]
    fn what_cannot_be_read_for_sure_is_unreadable() {
        for line in [
            &["env", "-u"][..],
            &["env", "--frobnicate", "codex"],
            &["npx", "--weird", "x", "codex"],
            &["npx", "-c", "codex"],
            &["sh", "-c", "codex; rm x"],
            &["sh", "-c", "codex $HOME"],
            &["sh", "-c", "make && codex"],
            &["nice", "-q", "codex"],
            &["env", "A=1"],
        ] {
            assert!(read(&argv(line)).is_err(), "{line:?}");
        }
    }

    #[test]
    fn a_command_as_zellij_tells_it_keeps_the_shell_string_whole() {
        let launch = read_command("bash -c cd /w && exec codex --x").unwrap();
        assert_eq!(
            (launch.name(), launch.args()),
            ("codex".into(), vec!["--x"])
        );
        assert_eq!(
            program_of_command("env -u K claude").as_deref(),
            Some("claude")
        );
        assert_eq!(program_of_command("sh -c a; b").as_deref(), Some("sh"));
    }

    #[test]
    fn a_program_is_named_by_its_executable_or_an_interpreter_s_script() {
        let name = |a: &[&str]| program_name(&argv(a));
        assert_eq!(name(&["/usr/bin/sleep", "3600"]).as_deref(), Some("sleep"));
        assert_eq!(
            name(&["python3", "/srv/app/serve.py"]).as_deref(),
            Some("serve")
        );
        assert_eq!(
            name(&["node", "/x/claude-code/cli.js"]).as_deref(),
            Some("claude")
        );
        assert_eq!(name(&["node", "--inspect", "a.js"]).as_deref(), Some("a"));
        assert_eq!(name(&["node", "--version"]).as_deref(), Some("node"));
        assert_eq!(
            name(&["node", "--expose-gc", "/x/@qwen-code/qwen-code/cli.js"]).as_deref(),
            Some("qwen")
        );
        assert_eq!(
            name(&["/x/bin/claude.exe", "--permission-mode"]).as_deref(),
            Some("claude")
        );
        assert_eq!(name(&["vim", "claude.txt"]).as_deref(), Some("vim"));
        assert_eq!(name(&[]), None);
    }

    #[test]
    fn agent_programs_are_known_by_their_executable_or_script() {
        assert!(is_agent_program(&argv(&[
            "/x/bin/claude.exe",
            "--permission-mode",
            "default"
        ])));
        assert!(is_agent_program(&argv(&[
            "node",
            "/x/@anthropic-ai/claude-code/cli.js"
        ])));
        assert!(is_agent_program(&argv(&["codex"])));
        assert!(!is_agent_program(&argv(&["bash"])));
        assert!(!is_agent_program(&argv(&["vim", "claude.txt"])));
        assert!(!is_agent_program(&argv(&[])));
    }
}
