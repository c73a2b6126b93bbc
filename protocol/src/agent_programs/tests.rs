//! The screens each program was seen to draw in each state (the rows under
//! its banner, blank runs shortened), told by its built-in description.

use super::*;
use AgentScreen::*;

const RULE: &str = "────────────────────────────────────────────────────────────";

/// The state `program`'s built-in description tells of `screen` (rows
/// split at line feeds; `RULE` is a rule of ─) under `title`.
fn told(program: &str, screen: &str, title: &str) -> Option<AgentScreen> {
    let programs = Programs::built_in();
    let description = programs.for_program(program).expect("described");
    let rows: Vec<String> = screen.lines().map(|r| r.replace("RULE", RULE)).collect();
    description.screen(&rows, title)
}

#[test]
fn the_built_in_descriptions_parse() {
    let programs = parse(BUILT_IN, "built-in").unwrap();
    let names: Vec<&str> = programs.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "claude-code",
            "codex",
            "gemini-cli",
            "opencode",
            "qwen-code",
            "aider"
        ]
    );
    assert_eq!(Programs::built_in().all().len(), 6);
}

const CLAUDE_BANNER: &str = "\n ▐▛███▛█   Claude Code v2.1.332\n▝▜██████▀  Opus\n\n";

fn claude(rows: &str) -> Option<AgentScreen> {
    told("claude", &format!("{CLAUDE_BANNER}{rows}"), "✳ Claude Code")
}

#[test]
fn claude_code_2_1_332_as_seen() {
    let idle = "RULE\n❯\nRULE\n  ⏸ manual mode on · ? for shortcuts · ← for agents";
    assert_eq!(claude(idle), Some(Idle));
    assert_eq!(
        claude("RULE\n❯ my own draft\nRULE\n  ⏸ manual mode on"),
        Some(Draft)
    );
    // The prompt's space is a no-break space.
    assert_eq!(
        claude("RULE\n❯\u{a0}\nRULE\n  ⏸ manual mode on"),
        Some(Idle)
    );
    assert_eq!(claude("RULE\n❯\u{a0}my own draft\nRULE\n"), Some(Draft));
    let working = "❯ HOLD /tmp/release\n* Moseying…\n                 ctrl+y to paste deleted text\nRULE\n❯\nRULE\n  ⏸ manual mode on · esc to interrupt · ← for agents";
    assert_eq!(claude(working), Some(Working));
    let queued = "❯ BASH touch /tmp/xx\n  ⎿  Queued · ctrl+enter to send now\n* Moseying…\nRULE\n❯ Press up to edit queued messages\nRULE\n  ⏸ manual mode on · esc to interrupt · ← for agents";
    assert_eq!(claude(queued), Some(Working));
    let asking = "  ⎿  $ touch /tmp/made.txt\nRULE\n Bash command\n Run the command\n╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌\n touch /tmp/made.txt\n╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌\n Do you want to proceed?\n ❯ 1. Yes\n   2. Yes, and always allow access to /tmp from this project\n   3. Yes, and switch to auto mode · auto mode handles these prompts for you\n   4. No\n Esc to cancel · Tab to amend";
    assert_eq!(claude(asking), Some(Asking));
}

#[test]
fn claude_code_2_1_197_as_seen() {
    let idle = "RULE\n❯\nRULE\n  ? for shortcuts · ← for agents     ● high · /effort";
    assert_eq!(claude(idle), Some(Idle));
    assert_eq!(
        claude("RULE\n❯ my own draft\nRULE\n        ● high · /effort"),
        Some(Draft)
    );
    assert_eq!(
        claude("❯ HOLD /tmp/r\n✻ Swooping…\nRULE\n❯\nRULE\n  esc to interrupt"),
        Some(Working)
    );
    // The status row goes blank while a draft is typed: the spinner tells.
    assert_eq!(
        claude("✢ Swooping…\n  ❯ BASH touch /tmp/xx\nRULE\n❯\nRULE\n"),
        Some(Working)
    );
    let asking = "● Bash(touch /tmp/made.txt)\n  ⎿  Waiting…\nRULE\n Bash command\n   touch /tmp/made.txt\n Do you want to proceed?\n ❯ 1. Yes\n   2. Yes, and always allow access to work/ from this project\n   3. No\n Esc to cancel · Tab to amend · ctrl+e to explain";
    assert_eq!(claude(asking), Some(Asking));
}

#[test]
fn a_claude_draft_of_several_lines_is_a_draft() {
    assert_eq!(
        claude("RULE\n❯ first line\n  second line\nRULE\n  ? for shortcuts"),
        Some(Draft)
    );
    assert_eq!(claude("RULE\n❯\n  second line\nRULE"), Some(Draft));
}

#[test]
fn claude_dialog_words_above_its_composer_are_old_output() {
    let idle = "● Do you want to proceed? I asked that before.\n\nRULE\n❯\nRULE\n  ? for shortcuts";
    assert_eq!(claude(idle), Some(Idle));
}

#[test]
fn claude_screens_without_its_composer_are_no_state() {
    // A composer far above the bottom is old output.
    assert_eq!(
        claude("RULE\n❯\nRULE\na\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\no\np\nq"),
        None
    );
    // Rules without a prompt between them.
    assert_eq!(claude("RULE\nname  size\nRULE"), None);
    assert_eq!(told("claude", "", ""), None);
}

const CODEX_FOOTER: &str = "\n  standin-model default · ~/project\n  ← for agents · ? for shortcuts                      ⚠ 1 warning · f2 to view";

fn codex(rows: &str, title: &str) -> Option<AgentScreen> {
    told(
        "codex",
        &format!("\n  >_ OpenAI Codex (v0.169.0)\n     ~/project\n\n{rows}"),
        title,
    )
}

#[test]
fn codex_0_169_0_as_seen() {
    let idle = format!("\n\n\n› Ask Codex to do anything\n{CODEX_FOOTER}");
    assert_eq!(codex(&idle, "work-codex"), Some(Idle));
    let after_turn = format!("› SLOW6 please wait\n\n\n• STANDIN-REPLY: ok\n\n  Worked for 6s • 15:09\n\n\n› Ask Codex to do anything\n{CODEX_FOOTER}");
    assert_eq!(codex(&after_turn, "work-codex"), Some(Idle));
    let draft = "\n\n› hello draft not sent\n\n  standin-model default · ~/project\n                                 ⚠ 1 warning · f2 to view";
    assert_eq!(codex(draft, "work-codex"), Some(Draft));
    let working = format!("› SLOW6 please wait\n\n\n\n• Working (2s • esc to interrupt)\n\n\n› Ask Codex to do anything\n{CODEX_FOOTER}");
    assert_eq!(codex(&working, "⠦ work-codex"), Some(Working));
    // Between the markers' blinks, the title's spinner tells.
    let spinning = format!("› SLOW6 please wait\n\n\n› Ask Codex to do anything\n{CODEX_FOOTER}");
    assert_eq!(codex(&spinning, "⠋ work-codex"), Some(Working));
    let draft_working = "› SLOW10 long turn\n\n\n◦ Working (4s • esc to interrupt)\n\n• Queued follow-up inputs\n  ↳ queued via tab\n    shift+← edit last queued message\n\n\n› draft while working\n\n  standin-model default · ~/project\n  tab to queue message";
    assert_eq!(codex(draft_working, "⠦ work-codex"), Some(Draft));
    let asking = "› BASH touch ~/project/approved.txt\n\n\n• Running touch ~/project/approved.txt\n\n\n  Would you like to run the following command?\n\n  Environment: local\n\n  Reason: stand-in test wants to run: touch ~/project/approved.txt\n\n  $ touch ~/project/approved.txt\n\n\n› 1. Yes, proceed (y)\n  2. Yes, and don't ask again for commands that start with `touch ~/project/approved.txt` (p)\n  3. No, and tell Codex what to do differently (esc)\n\n  Press enter to confirm or esc to cancel";
    assert_eq!(
        codex(asking, "[ ! ] Action Required | work-codex"),
        Some(Asking)
    );
    assert_eq!(
        codex(asking, "[ . ] Action Required | work-codex"),
        Some(Asking)
    );
    // The title alone says so too, before the dialog is drawn.
    assert_eq!(
        codex(&idle, "[ ! ] Action Required | work-codex"),
        Some(Asking)
    );
    let trust = "\n  Folder access\n  ~/project\n\n  Trust this folder? Codex can read, edit, and run files here.\n\n› 1. Trust and continue\n  2. Back to Agent Command Center\n\n  enter continue · esc back";
    assert_ne!(
        told("codex", trust, "vm"),
        Some(Idle),
        "a first-run screen takes no message"
    );
}

const GEMINI_FOOTER: &str = "\n workspace (/directory)                     sandbox                    /model\n ~/project                                   no sandbox                 Auto";

fn gemini(above: &str, composer: &str, title: &str) -> Option<AgentScreen> {
    let screen = format!("{above}\n────────────────────────────────────────────────────────────────\n Shift+Tab to accept edits\n\n{composer}\n{GEMINI_FOOTER}\n\n\n\n");
    told("gemini", &screen, title)
}

#[test]
fn gemini_cli_0_61_0_as_seen() {
    let empty = " >   Type your message or @path/to/file";
    let hints = "\n\n                                                                       ? for shortcuts";
    assert_eq!(gemini(hints, empty, "◇  Ready (work-gemini)"), Some(Idle));
    assert_eq!(
        gemini("\n\n", " > hello draft not sent", "◇  Ready (work-gemini)"),
        Some(Draft)
    );
    let working = "\n > SLOW6 please wait\n\n\n\n ⠇ Thinking... (esc to cancel, 2s)                          ? for shortcuts";
    assert_eq!(
        gemini(working, empty, "✦  Working… (work-gemini)"),
        Some(Working)
    );
    let queued = " > SLOW8 please wait\n\n\n  Queued (press ↑ to edit):\n    typed while working\n\n ⠸ Thinking... (esc to cancel, 5s)                          ? for shortcuts";
    assert_eq!(
        gemini(queued, empty, "✦  Working… (work-gemini)"),
        Some(Working)
    );
    let asking = "\n > SLOW6 please wait\n\n✦ STANDIN-REPLY: ok\n\n > BASH touch ~/project/approved.txt\n\n\n╭──────────────────────────────────────────╮\n│ ? Shell  touch ~/project/approved.txt       │\n│ ╭──────────────────────────────────────╮ │\n│ │ touch ~/project/approved.txt           │ │\n│ ╰──────────────────────────────────────╯ │\n│ Allow execution of [Shell]?              │\n│                                          │\n│ ● 1. Allow once                          │\n│   2. Allow for this session              │\n│   3. No, suggest changes (esc)           │\n╰──────────────────────────────────────────╯\n\n\n";
    assert_eq!(
        told("gemini", asking, "✋  Action Required (work-gemini)"),
        Some(Asking)
    );
    assert_eq!(
        told("gemini", asking, "◇  Ready (work-gemini)"),
        Some(Asking)
    );
}

const OPENCODE_BOX: &str = "  ┃\n  ┃  {}\n  ┃\n  ┃  Build · Claude Sonnet 4.5 (latest) Anthropic\n  ╹▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀";

fn opencode(history: &str, text: &str, footer: &str) -> Option<AgentScreen> {
    let screen = format!(
        "{history}\n\n\n{}\n{footer}\n",
        OPENCODE_BOX.replace("{}", text)
    );
    told("opencode", &screen, "OC | STANDIN-REPLY: ok")
}

#[test]
fn opencode_1_18_33_as_seen() {
    let turn = "\n  ┃\n  ┃  SLOW6 please wait\n  ┃\n\n     STANDIN-REPLY: ok\n\n     ▣  Build · Claude Sonnet 4.5 (latest) · 10.1s";
    let footer = "   ~/project                                110 (0%) · $0.00  ctrl+p commands";
    assert_eq!(opencode(turn, "", footer), Some(Idle));
    assert_eq!(opencode(turn, "hello draft not sent", footer), Some(Draft));
    let working =
        "   ⬝⬝⬝■■■■■  esc interrupt                         110 (0%) · $0.00  ctrl+p commands";
    assert_eq!(opencode(turn, "", working), Some(Working));
    let home_logo = "\n\n                                                  ▄\n                 █▀▀█ █▀▀█ █▀▀█ █▀▀▄ █▀▀▀ █▀▀█ █▀▀█ █▀▀█\n                 ▀▀▀▀ █▀▀▀ ▀▀▀▀ ▀▀▀▀ ▀▀▀▀ ▀▀▀▀ ▀▀▀▀ ▀▀▀▀";
    let home_footer = "                                          tab agents  ctrl+p commands\n\n\n\n  ~/project:master                                               1.18.33";
    let home = "Ask anything… \"What is the tech stack of this project?\"";
    assert_eq!(opencode(home_logo, home, home_footer), Some(Idle));
    // In a narrow pane its placeholder wraps.
    let wrapped = "Ask anything… \"What is the tech stack of this\n  ┃  project?\"";
    assert_eq!(opencode(home_logo, wrapped, home_footer), Some(Idle));
    assert_eq!(
        opencode(home_logo, "hello draft not sent", home_footer),
        Some(Draft)
    );
    let asking = "  ┃\n  ┃  BASH touch ~/project/approved.txt\n  ┃\n\n     $ touch ~/project/approved.txt\n\n     ▣  Build · Claude Sonnet 4.5 (latest)\n\n\n\n  ┃\n  ┃  △ Permission required\n  ┃    # Shell command\n  ┃\n  ┃  $ touch ~/project/approved.txt\n  ┃\n  ┃\n  ┃   Allow once   Allow always   Reject              ctrl+f fullscreen  ⇆ select  enter confirm\n  ┃\n";
    assert_eq!(
        told("opencode", asking, "OC | STANDIN-REPLY: ok"),
        Some(Asking)
    );
}

#[test]
fn a_file_adds_programs_and_replaces_built_in_ones() {
    let file = r#"
// a bot of our own
agent "event-sink" {
    programs "sink" "sink-bot"
    prompt "sink>"
    working "^processing"
    asking "^approve\\? \\[y/n\\]"
    message multiline="paste" while-working="hold"
}
agent "codex" {
    programs "codex"
    prompt "»"
}
"#;
    let programs = Programs::with_file(file, "agents.kdl").unwrap();
    let sink = programs.for_program("sink-bot").unwrap();
    assert_eq!(sink.name, "event-sink");
    assert_eq!(sink.origin, "agents.kdl:3");
    assert_eq!(sink.delivery.while_working, WhileWorking::Hold);
    assert_eq!(sink.delivery.multiline, Multiline::Paste);
    assert_eq!(sink.screen(&["log", "sink> "], ""), Some(Idle));
    assert_eq!(sink.screen(&["processing 3", "sink> "], ""), Some(Working));
    assert_eq!(sink.screen(&["sink> hi"], ""), Some(Draft));
    assert_eq!(sink.screen(&["sink> ", "approve? [y/n]"], ""), Some(Asking));
    assert_eq!(sink.screen(&["starting…"], ""), None);
    let codex = programs.for_program("codex").unwrap();
    assert_eq!(codex.origin, "agents.kdl:10");
    assert_eq!(codex.screen(&["» "], ""), Some(Idle));
    assert!(programs.for_program("gemini").is_some(), "the others stay");
    assert_eq!(programs.all().len(), 7);
}

#[test]
fn a_bad_file_names_its_line() {
    let bad = |text: &str| Programs::with_file(text, "f").unwrap_err();
    let e = bad("agent \"x\" {\n  programs \"x\"\n  prompt \">\"\n  colour \"red\"\n}");
    assert_eq!(e.line, 4);
    assert!(e.problem.contains("unknown setting 'colour'"), "{e}");
    let e = bad("agent \"x\" {\n  programs \"x\"\n  prompt \">\"\n  asking \"(unclosed\"\n}");
    assert_eq!(e.line, 4);
    assert!(e.problem.contains("invalid regex"), "{e}");
    let e = bad("\n\nagent \"x\" {\n  prompt \">\"\n}");
    assert_eq!(e.line, 3);
    assert!(e.problem.contains("names no programs"), "{e}");
    let e = bad("agent \"x\" {\n  programs \"x\"\n}");
    assert!(e.problem.contains("no prompt sign"), "{e}");
    let e = bad("agent \"x\" {\n  programs \"x\"\n  prompt \">\"\n  message multiline=\"both\"\n}");
    assert_eq!(e.line, 4);
    let e = bad("agent \"x\" {\n  programs \"x\n}");
    assert!(e.problem.contains("KDL"), "{e}");
    let e = bad("agents \"x\" {}");
    assert!(e.problem.contains("only `agent"), "{e}");
    let e = bad("agent \"a b\" { programs \"x\"; prompt \">\"; }");
    assert!(e.problem.contains("one name"), "{e}");
    let twice = "agent \"x\" { programs \"x\"; prompt \">\"; }\nagent \"x\" { programs \"y\"; prompt \">\"; }";
    assert_eq!(bad(twice).line, 2);
    assert!(e.to_string().starts_with("line 1: "));
}

const QWEN_RULE: &str = "────────────────────────────────────────────────────────────────────────";

/// Qwen Code's screen with `composer` between its rules, the cursor at
/// `cursor` (column, and row counted from the composer's first).
fn qwen(above: &str, composer: &str, cursor: Option<(usize, usize)>) -> Option<AgentScreen> {
    let screen = format!("{above}\n{QWEN_RULE}\n{composer}\n{QWEN_RULE}\n  ➜ work · standin-model\n  ⏸ Ask permissions (shift + tab to cycle)\n\n\n");
    let rows: Vec<&str> = screen.lines().collect();
    let top = rows.iter().position(|r| *r == QWEN_RULE).unwrap() + 1;
    let cursor = cursor.map(|(column, row)| (column, top + row));
    let programs = Programs::built_in();
    let description = programs.for_program("qwen").expect("described");
    description.read_at(&rows, cursor, "Qwen - work").state
}

/// Whether the cursor, at `cursor` (column, row: the composer's is 2),
/// tells nothing of Qwen Code's composer holding `composer`.
fn qwen_cursor_away(composer: &str, cursor: Option<(usize, usize)>) -> bool {
    let screen =
        format!("  > a turn\n{QWEN_RULE}\n{composer}\n{QWEN_RULE}\n  ➜ work · standin-model\n");
    let rows: Vec<&str> = screen.lines().collect();
    let programs = Programs::built_in();
    let description = programs.for_program("qwen").expect("described");
    let reading = description.read_at(&rows, cursor, "Qwen - work");
    reading.composer.expect("a composer").cursor_away
}

#[test]
fn a_cursor_off_the_composer_s_rows_tells_no_suggestion() {
    let suggestion = "> STANDIN-SUGGESTION run the tests";
    assert!(!qwen_cursor_away(suggestion, Some((2, 2))), "at its start");
    assert!(!qwen_cursor_away(suggestion, Some((34, 2))), "at its end");
    // Redrawn for a new width, the cursor left below or above it.
    assert!(qwen_cursor_away(suggestion, Some((0, 5))));
    assert!(qwen_cursor_away(suggestion, Some((9, 0))));
    assert!(qwen_cursor_away(suggestion, None));
}

#[test]
fn qwen_code_0_24_4_as_seen() {
    let history =
        "  ●︎ Extensions changed on disk.\n\n  > first turn text\n\n  ◆︎ STANDIN-REPLY: ok\n";
    let composer_row = 0;
    let empty = ">   Type your message or @path/to/file";
    assert_eq!(qwen(history, empty, Some((2, composer_row))), Some(Idle));
    // A suggestion is drawn with the cursor on its first letter; a
    // person's text has it after the text, then a zero-width space.
    let suggestion = "> STANDIN-SUGGESTION run the tests";
    assert_eq!(
        qwen(history, suggestion, Some((2, composer_row))),
        Some(Idle)
    );
    assert_eq!(
        qwen(history, suggestion, None),
        Some(Draft),
        "no cursor: a draft"
    );
    let draft = "> my own draft \u{200b}";
    assert_eq!(qwen(history, draft, Some((14, composer_row))), Some(Draft));
    assert_eq!(
        qwen(history, "> \u{200b}", Some((2, composer_row))),
        Some(Idle)
    );
    let pasted = "> paste line one\n  paste line two \u{200b}";
    assert_eq!(
        qwen(history, pasted, Some((16, composer_row + 1))),
        Some(Draft)
    );
    let working = "  > HOLD /tmp/release\n\n  .  Compiling brilliance... (3s · esc to cancel)";
    assert_eq!(qwen(working, empty, Some((2, 0))), Some(Working));
    let asking = "  > BASH touch /tmp/made.txt\n  ? Shell touch /tmp/made.txt (Run the command) ←\n\n     touch /tmp/made.txt\n\n   Allow execution of: 'touch'?\n\n   › 1. Yes, allow once\n     2. Always allow run 'touch *' commands in this project\n     4. No, suggest changes (esc)\n\n\n  ⠏ Waiting for user confirmation...";
    let programs = Programs::built_in();
    let description = programs.for_program("qwen").unwrap();
    let rows: Vec<&str> = asking.lines().collect();
    assert_eq!(description.screen(&rows, "✳︎ Qwen - work"), Some(Asking));
}

const AIDER_RULE: &str = "────────────────────────────────────────────────────────────────────────";

fn aider(rows: &str) -> Option<AgentScreen> {
    let banner = format!("{AIDER_RULE}\nAider v0.86.2\nModel: openai/standin-model with diff edit format\nGit repo: none\nRepo-map: disabled\n{AIDER_RULE}\n");
    told("aider", &format!("{banner}{rows}\n\n\n"), "vm")
}

#[test]
fn aider_0_86_2_as_seen() {
    assert_eq!(aider("diff>"), Some(Idle));
    let after = format!("diff> first turn text\n\nSTANDIN-REPLY: ok\n\n\nTokens: 2.3k sent, 8 received.\n{AIDER_RULE}\ndiff>");
    assert_eq!(aider(&after), Some(Idle));
    assert_eq!(aider("diff> my own draft"), Some(Draft));
    assert_eq!(
        aider("diff> paste line one\ndiff> paste line two"),
        Some(Draft)
    );
    // While the model works there is no prompt: what is typed would wait
    // in its input, so the state holds messages.
    let working = "diff> HOLD /tmp/release\n\n     █░    Waiting for openai/standin-model";
    assert_eq!(aider(working), Some(Busy));
    let asking = "diff> BASH touch /tmp/made.txt\n\nSTANDIN-REPLY: run this:\n\n\ntouch /tmp/made.txt\n\n\n\nTokens: 2.4k sent, 26 received.\n\ntouch /tmp/made.txt\nRun shell command? (Y)es/(N)o/(D)on't ask again [Yes]:";
    assert_eq!(aider(asking), Some(Asking));
    let declined = format!("{asking} n\n{AIDER_RULE}\ndiff>");
    assert_eq!(
        aider(&declined),
        Some(Idle),
        "an answered question is old output"
    );
}

#[test]
fn a_reading_says_where_each_sign_was_seen() {
    let programs = Programs::built_in();
    let claude = programs.named("claude-code").unwrap();
    let rule = "─".repeat(40);
    let rows = ["✻ Swooping…", &rule, "❯ hello", &rule, "  esc to interrupt"];
    let lines = claude.explain(&rows, None, "");
    assert_eq!(lines[0], "claude-code: draft");
    let text = lines.join("\n");
    assert!(text.contains("composer: rows 3-3"), "{text}");
    assert!(text.contains("row 3 \"❯ hello\": a draft"), "{text}");
    assert!(
        text.contains("working: row 5 \"esc to interrupt\" matched \"esc to interrupt\""),
        "{text}"
    );
    let none = claude.explain(&["$ ls", "a b"], None, "");
    assert_eq!(none[0], "claude-code: unknown");
    assert!(
        none.join("\n")
            .contains("composer: none: no row matched its end"),
        "{none:?}"
    );
}

#[test]
fn a_further_cr_is_asked_for_by_name() {
    let programs = Programs::built_in();
    let again: Vec<&str> = programs
        .all()
        .iter()
        .filter(|d| d.delivery.cr_again)
        .map(|d| d.name.as_str())
        .collect();
    assert_eq!(again, ["codex", "gemini-cli"]);
    let file = "agent \"x\" {\n  programs \"x\"\n  prompt \">\"\n  message multiline=\"paste\"\n}";
    let x = Programs::with_file(file, "f").unwrap();
    assert!(!x.named("x").unwrap().delivery.cr_again, "off unless asked");
    let bad = file.replace("multiline=\"paste\"", "cr=\"twice\"");
    assert!(Programs::with_file(&bad, "f").is_err());
}

#[test]
fn the_rest_of_the_screen_is_the_same_when_a_cr_only_made_a_new_line_but_not_as_drawn() {
    let programs = Programs::built_in();
    let gemini = programs.for_program("gemini").unwrap();
    let around = |screen: &str| {
        let rows: Vec<&str> = screen.lines().collect();
        let reading = gemini.read(&rows, "◇  Ready (work)");
        assert_eq!(reading.state, Some(Draft), "{screen}");
        reading.around(&rows)
    };
    let rule = "─".repeat(60);
    let footer =
        " workspace (/directory)      sandbox      /model\n ~/work      no sandbox      Auto\n\n\n";
    let typed = format!("\n{rule}\n Shift+Tab to accept edits\n\n > [#1 from lead] note one\n   line two\n\n{footer}");
    // The CR was taken as a new line: the composer has an empty row more,
    // and what is above it moved up.
    let new_line = format!("{rule}\n Shift+Tab to accept edits\n\n > [#1 from lead] note one\n   line two\n   \n\n{footer}");
    assert_eq!(around(&typed), around(&new_line));
    let taken =
        format!("\n{rule}\n ✦ on it\n\n > [#1 from lead] note one\n   line two\n\n{footer}");
    assert_ne!(around(&typed), around(&taken), "the program answered");
    // As drawn, the new line shows: the program read that CR.
    let drawn = |screen: &str, cursor| {
        let rows: Vec<&str> = screen.lines().collect();
        gemini.read(&rows, "").drawn(&rows, Some(cursor))
    };
    let (at_text, below_it) = ((12, 5), (3, 6));
    assert_eq!(drawn(&typed, at_text), drawn(&typed, at_text));
    assert_ne!(
        drawn(&typed, at_text),
        drawn(&typed, below_it),
        "the cursor moved"
    );
    assert_ne!(
        drawn(&typed, at_text),
        drawn(&new_line, at_text),
        "a row more"
    );
}

#[test]
fn a_description_names_where_its_program_keeps_its_record_or_replies_come_from_the_screen() {
    let programs = Programs::built_in();
    for (program, record) in [
        ("claude", "claude-code"),
        ("codex", "codex"),
        ("gemini", "gemini-cli"),
        ("opencode", "opencode"),
        ("qwen", "qwen-code"),
    ] {
        let named = programs.for_program(program).unwrap().record;
        assert_eq!(named.map(Record::name), Some(record), "{program}");
    }
    assert_eq!(programs.for_program("aider").unwrap().record, None);
    let file = "agent \"x\" {\n  programs \"x\"\n  prompt \">\"\n  record \"codex\"\n}";
    let x = Programs::with_file(file, "f").unwrap();
    assert_eq!(x.named("x").unwrap().record, Some(Record::Codex));
    let bad = Programs::with_file(&file.replace("\"codex\"", "\"notes\""), "f").unwrap_err();
    assert!(bad.problem.contains("one of claude-code, codex"), "{bad:?}");
}

// After a long answer, at 80, 120 and 200 columns, with a panel or other
// text beside the composer: each built-in program's composer is idle when
// empty and a draft only with text typed in the composer itself.

/// The long answer's text: prose, a list, wide characters and an emoji.
const LONG_ANSWER: &str = "A long answer, longer than the pane, so that the rows above the composer are the answer's own, as wide as the pane lets them be. It holds wide characters, 日本語のテキスト and 中文字符, and an emoji, 🚀, which take two columns each. - one more item, short; - another, a little longer than the one before it, with `inline code` in it; - a third, with an emoji at its end 🚀. ";

/// `text` wrapped at `width` columns (cells), its first row after `first`,
/// the others after `rest`.
fn wrapped(text: &str, width: usize, first: &str, rest: &str) -> Vec<String> {
    let mut rows = Vec::new();
    let mut row = first.to_owned();
    let mut bare = true;
    for word in text.split_whitespace() {
        if !bare && row.width() + 1 + word.width() > width {
            rows.push(std::mem::replace(&mut row, rest.to_owned()));
            bare = true;
        }
        if !bare {
            row.push(' ');
        }
        row.push_str(word);
        bare = false;
    }
    rows.push(row);
    rows
}

/// The answer, several times over (more rows than a pane of 50 has).
fn long_answer(width: usize, first: &str, rest: &str) -> Vec<String> {
    let text = LONG_ANSWER.repeat(12);
    let mut rows = wrapped(&text, width, first, rest);
    rows.truncate(60);
    rows
}

/// `text` right-aligned in a row `width` wide, after `left`.
fn aligned(left: &str, text: &str, width: usize) -> String {
    let gap = width.saturating_sub(left.width() + text.width()).max(2);
    format!("{left}{}{text}", " ".repeat(gap))
}

/// `rows` with a panel drawn beside them at `column` (cells): each of
/// `panel`'s texts on the row it names, the panel's own rows.
fn beside(rows: &mut [String], column: usize, panel: &[(usize, &str)]) {
    for (at, text) in panel {
        let row = &mut rows[*at];
        assert!(row.width() < column, "{row:?} reaches column {column}");
        let gap = column - row.width();
        row.push_str(&" ".repeat(gap));
        row.push_str(text);
    }
}

/// What `program`'s built-in description reads of `rows`: the state, and
/// the composer's draft.
fn reads(
    program: &str,
    rows: &[String],
    cursor: Option<(usize, usize)>,
    title: &str,
) -> (Option<AgentScreen>, String) {
    let programs = Programs::built_in();
    let description = programs.for_program(program).expect("described");
    let reading = description.read_at(rows, cursor, title);
    let draft = reading.composer.as_ref().map(|c| c.draft());
    (reading.state, draft.unwrap_or_default())
}

const WIDTHS: [usize; 3] = [80, 120, 200];
/// What a person typed, with wide characters.
const TYPED: &str = "hello 日本語 draft 🚀 not sent";

/// opencode's session screen `width` columns wide after the long answer,
/// its composer holding `text`: over 120 columns, with its side panel (as
/// measured at 140, 160 and 200: 40 columns at the right, the composer
/// and the answer 44 columns narrower), the folder long enough to wrap
/// over the panel's last rows, beside the composer's own. The cursor is
/// after the text.
fn opencode_after_long_answer(width: usize, text: &[&str]) -> (Vec<String>, (usize, usize)) {
    let panel = width > 120;
    let inner = if panel { width - 44 } else { width - 2 };
    let mut rows: Vec<String> = vec!["".into()];
    rows.extend(long_answer(inner - 5, "     ", "     "));
    rows.extend([
        "".into(),
        "     ▣  Build · Claude Sonnet 4.5 (latest) · 4.3s".into(),
        "".into(),
    ]);
    let top = rows.len();
    rows.push("  ┃".into());
    let mut cursor = (5, top + 1);
    for line in text {
        cursor = (5 + line.width(), rows.len());
        rows.push(format!("  ┃  {line}"));
    }
    if text.is_empty() {
        rows.push("  ┃".into());
    }
    rows.push("  ┃".into());
    rows.push("  ┃  Build · Claude Sonnet 4.5 (latest) Anthropic".into());
    rows.push(format!("  ╹{}", "▀".repeat(inner - 3)));
    let footer = "2 (0%) · $0.00  ctrl+p commands";
    let footer = match panel {
        true => aligned(
            "   ~/work",
            &format!("{footer}    • OpenCode 1.18.33"),
            width - 2,
        ),
        false => aligned("   ~/work", footer, width - 2),
    };
    rows.push(footer);
    rows.extend(["".into(), "".into()]);
    let skip = rows.len().saturating_sub(50);
    rows.drain(..skip);
    let (top, cursor) = (top - skip, (cursor.0, cursor.1 - skip));
    if panel {
        let status = top
            + rows[top..]
                .iter()
                .position(|r| r.contains("Anthropic"))
                .unwrap();
        beside(
            &mut rows,
            width - 40,
            &[
                (1, "STANDIN-REPLY: ok"),
                (3, "Context"),
                (4, "2 tokens"),
                (5, "0% used"),
                (6, "$0.00 spent"),
                (8, "LSP"),
                (9, "LSPs are disabled"),
                (status - 2, "~/projects/a-rather-long-folder-name/"),
                (status - 1, "and-a-deeper-one/with-the-project-in-"),
                (status, "it:master"),
            ],
        );
    }
    (rows, cursor)
}

#[test]
fn opencode_s_side_panel_is_never_its_draft() {
    let title = "OC | STANDIN-REPLY: ok";
    for width in WIDTHS {
        let (empty, cursor) = opencode_after_long_answer(width, &[]);
        assert_eq!(
            reads("opencode", &empty, Some(cursor), title),
            (Some(Idle), String::new()),
            "{width} columns:\n{}",
            empty.join("\n")
        );
        let (typed, cursor) = opencode_after_long_answer(width, &[TYPED]);
        assert_eq!(
            reads("opencode", &typed, Some(cursor), title),
            (Some(Draft), TYPED.to_owned()),
            "{width} columns:\n{}",
            typed.join("\n")
        );
        let lines = ["first line of a paste", "second line 中文 of it"];
        let (pasted, cursor) = opencode_after_long_answer(width, &lines);
        assert_eq!(
            reads("opencode", &pasted, Some(cursor), title),
            (Some(Draft), lines.join("\n")),
            "{width} columns"
        );
        let working = empty
            .iter()
            .map(|r| r.replace("   ~/work   ", "   ⬝■■■■■■⬝  esc interrupt   "))
            .collect::<Vec<_>>();
        assert_eq!(
            reads("opencode", &working, None, title).0,
            Some(Working),
            "{width} columns"
        );
    }
}

/// The screen measured (opencode 1.18.33, 200x50, a folder name long
/// enough to wrap in the side panel), its right part: the panel's rows
/// beside the answer and beside the composer's empty row and status row.
#[test]
fn opencode_1_18_33_at_200_columns_as_seen() {
    let mut rows: Vec<String> = vec![
        "     pane forty rows high.".into(),
        "".into(),
        "     It also shows that a reply may say the same thing twice without harm. Records keep repeated text as it came, and a test that looks for a line finds it".into(),
        "     wherever it is.".into(),
        "".into(),
        "     The last paragraph ends this reply without a line break after its final word, so that no one has to wonder whether trailing white space belongs to the".into(),
        "     text or not. The end 🚀".into(),
        "".into(),
        "     ▣  Build · Claude Sonnet 4.5 (latest) · 7.3s".into(),
        "".into(),
        "  ┃".into(),
        "  ┃".into(),
        "  ┃".into(),
        "  ┃  Build · Claude Sonnet 4.5 (latest) Anthropic".into(),
        format!("  ╹{}", "▀".repeat(153)),
        "   ~/ocwork-with-a-rather-long-folder-name/and-deeper-project                                                               2 (0%) · $0.00  ctrl+p commands    • OpenCode 1.18.33".into(),
        "".into(),
        "".into(),
    ];
    beside(
        &mut rows,
        160,
        &[
            (12, "~/ocwork-with-a-rather-long-folder-"),
            (13, "name/and-deeper-project:master"),
        ],
    );
    let title = "OC | STANDIN-REPLY: ok";
    assert_eq!(
        reads("opencode", &rows, Some((5, 11)), title),
        (Some(Idle), String::new())
    );
    rows[11] = "  ┃  hello draft not sent".into();
    assert_eq!(
        reads("opencode", &rows, Some((25, 11)), title),
        (Some(Draft), "hello draft not sent".to_owned())
    );
    let programs = Programs::built_in();
    let explained = programs
        .named("opencode")
        .unwrap()
        .explain(&rows, None, title);
    assert_eq!(explained[0], "opencode: draft");
    let explained = explained.join("\n");
    assert!(
        explained.contains("row 12 \"┃  hello draft not sent\": a draft"),
        "{explained}"
    );
    assert!(explained.contains("-folder-\": empty"), "{explained}");
}

/// The last 50 rows of `rows`, and how many went.
fn last_50(mut rows: Vec<String>) -> (Vec<String>, usize) {
    let skip = rows.len().saturating_sub(50);
    rows.drain(..skip);
    (rows, skip)
}

/// What a side panel in the last 26 columns shows, beside the rows from
/// `top` on (a program that would draw one: Claude Code and Qwen Code draw
/// none), one row of it beside each of the composer's.
fn a_panel(top: usize) -> Vec<(usize, &'static str)> {
    let texts = [
        "Context",
        "2 tokens",
        "~/projects/work:main",
        "$0.00 spent",
        "LSP 中文 🚀",
    ];
    texts
        .into_iter()
        .enumerate()
        .map(|(i, t)| (top + i, t))
        .collect()
}

/// A composer between two rules of ─, `width` columns wide after the long
/// answer (`first`, `rest`: its rows' starts), holding `composer`; with
/// `panel`, the rules end 30 columns early and a panel stands beside them.
/// The rows, and the composer's row.
fn between_rules(
    width: usize,
    (first, rest): (&str, &str),
    composer: &str,
    footer: &[&str],
    panel: bool,
) -> (Vec<String>, usize) {
    let inner = if panel { width - 30 } else { width };
    let mut rows = vec![String::new()];
    rows.extend(long_answer(inner, first, rest));
    rows.extend(["".into(), "  Worked for 4s".into(), "".into()]);
    let rule = "─".repeat(inner);
    rows.extend([rule.clone(), composer.to_owned(), rule]);
    rows.extend(footer.iter().map(|r| r.to_string()));
    rows.extend(["".into(), "".into()]);
    let (mut rows, _) = last_50(rows);
    let at = rows.iter().rposition(|r| r.starts_with(composer)).unwrap();
    if panel {
        beside(&mut rows, width - 26, &a_panel(at - 2));
    }
    (rows, at)
}

#[test]
fn claude_code_after_a_long_answer_with_anything_beside_its_composer() {
    let footer = ["  ⏸ manual mode on · ? for shortcuts · ← for agents"];
    let starts = ("● ", "  ");
    for width in WIDTHS {
        for panel in [false, true] {
            let (rows, _) = between_rules(width, starts, "❯\u{a0}", &footer, panel);
            let told = reads("claude", &rows, None, "✳ Claude Code");
            assert_eq!(
                told,
                (Some(Idle), String::new()),
                "{width}, {panel}:\n{}",
                rows.join("\n")
            );
            let typed = format!("❯\u{a0}{TYPED}");
            let (rows, _) = between_rules(width, starts, &typed, &footer, panel);
            let told = reads("claude", &rows, None, "✳ Claude Code");
            assert_eq!(told, (Some(Draft), TYPED.to_owned()), "{width}, {panel}");
        }
    }
}

#[test]
fn qwen_code_after_a_long_answer_with_anything_beside_its_composer() {
    let footer = [
        "  ➜ work · standin-model",
        "  ⏸ Ask permissions (shift + tab to cycle)",
    ];
    let starts = ("  ◆ ", "    ");
    let title = "Qwen - work";
    for width in WIDTHS {
        for panel in [false, true] {
            let empty = ">   Type your message or @path/to/file";
            let (rows, at) = between_rules(width, starts, empty, &footer, panel);
            let told = reads("qwen", &rows, Some((2, at)), title);
            assert_eq!(
                told,
                (Some(Idle), String::new()),
                "{width}, {panel}:\n{}",
                rows.join("\n")
            );
            let suggested = "> STANDIN-SUGGESTION run the tests";
            let (rows, at) = between_rules(width, starts, suggested, &footer, panel);
            let told = reads("qwen", &rows, Some((2, at)), title);
            assert_eq!(
                told,
                (Some(Idle), String::new()),
                "{width}, {panel}: a suggestion"
            );
            let typed = format!("> {TYPED} \u{200b}");
            let (rows, at) = between_rules(width, starts, &typed, &footer, panel);
            let told = reads("qwen", &rows, Some((2 + TYPED.width(), at)), title);
            assert_eq!(told, (Some(Draft), TYPED.to_owned()), "{width}, {panel}");
        }
    }
}

#[test]
fn codex_gemini_and_aider_after_a_long_answer_at_any_width() {
    for width in WIDTHS {
        // Codex: its warning stays at the right of the hint row, which a
        // draft leaves blank.
        let codex = |composer: &str, hints: &str| {
            let mut rows = vec![String::new()];
            rows.extend(long_answer(width - 2, "• ", "  "));
            rows.extend(["".into(), "  Worked for 6s • 15:09".into(), "".into()]);
            rows.extend([
                composer.to_owned(),
                "".into(),
                "  standin-model default · ~/work".into(),
            ]);
            rows.push(aligned(hints, "⚠ 2 warnings · f2 to view", width - 2));
            last_50(rows).0
        };
        let idle = codex(
            "› Ask Codex to do anything",
            "  ← for agents · ? for shortcuts",
        );
        assert_eq!(
            reads("codex", &idle, None, "work"),
            (Some(Idle), String::new()),
            "{width}"
        );
        let typed = codex(&format!("› {TYPED}"), "");
        assert_eq!(
            reads("codex", &typed, None, "work"),
            (Some(Draft), TYPED.to_owned()),
            "{width}"
        );
        // Gemini CLI: `? for shortcuts` at the right above its rule, gone
        // with a draft; its footer spread over the width.
        let gemini = |composer: &str, hints: &str| {
            let mut rows = vec![String::new()];
            rows.extend(long_answer(width - 2, "✦ ", "  "));
            rows.extend(["".into(), "".into(), aligned("", hints, width - 2)]);
            rows.extend([
                "─".repeat(width),
                " Shift+Tab to accept edits".into(),
                "".into(),
            ]);
            rows.extend([composer.to_owned(), "".into()]);
            rows.push(aligned(
                " workspace (/directory)      sandbox",
                "/model",
                width - 1,
            ));
            rows.push(aligned(" ~/work      no sandbox", "Auto", width - 1));
            last_50(rows).0
        };
        let title = "◇  Ready (work)";
        let idle = gemini(" >   Type your message or @path/to/file", "? for shortcuts");
        assert_eq!(
            reads("gemini", &idle, None, title),
            (Some(Idle), String::new()),
            "{width}"
        );
        let typed = gemini(&format!(" > {TYPED}"), "");
        assert_eq!(
            reads("gemini", &typed, None, title),
            (Some(Draft), TYPED.to_owned()),
            "{width}"
        );
        // aider: its prompt is the last row.
        let aider = |prompt: &str| {
            let mut rows = long_answer(width, "", "");
            rows.extend([
                "".into(),
                "Tokens: 2.3k sent, 8 received.".into(),
                "─".repeat(width),
            ]);
            rows.extend([prompt.to_owned(), "".into()]);
            last_50(rows).0
        };
        assert_eq!(
            reads("aider", &aider("diff> "), None, "vm"),
            (Some(Idle), String::new()),
            "{width}"
        );
        let typed = aider(&format!("diff> {TYPED}"));
        assert_eq!(
            reads("aider", &typed, None, "vm"),
            (Some(Draft), TYPED.to_owned()),
            "{width}"
        );
    }
}

#[test]
fn a_composer_s_edges_bound_it_for_any_description() {
    // A program of one's own whose composer is a box open at the right:
    // text beside the box (past its bottom's run) is not its; a rule that
    // a panel stands beside is still its edge.
    let file = r#"agent "boxed" {
    programs "boxed"
    prompt "│"
    composer start="^┌─+$" end="^└─+$"
}"#;
    let programs = Programs::with_file(file, "f").unwrap();
    let boxed = programs.named("boxed").unwrap();
    let screen = |inside: &str| {
        vec![
            "answer text as wide as the pane, right up to the panel's column".to_owned(),
            format!("┌{}    Context", "─".repeat(30)),
            format!("│ {inside}{}    2 tokens", " ".repeat(30 - inside.width())),
            format!("└{}    ~/work 日本", "─".repeat(30)),
        ]
    };
    let read = |rows: &[String]| {
        let reading = boxed.read(rows, "");
        let composer = reading.composer.unwrap();
        (reading.state, composer.draft(), composer.columns)
    };
    assert_eq!(read(&screen("")), (Some(Idle), String::new(), Some(0..31)));
    let typed = read(&screen("a 中文 draft"));
    assert_eq!(typed, (Some(Draft), "a 中文 draft".to_owned(), Some(0..31)));
    // A row that the pattern matches only whole (a gap inside) spans all
    // its text.
    let gapped =
        "agent \"gapped\" {\n  programs \"g\"\n  prompt \">\"\n  composer end=\"^==  end  ==$\"\n}";
    let programs = Programs::with_file(gapped, "f").unwrap();
    let gapped = programs.named("gapped").unwrap();
    let reading = gapped.read(&["> ", "==  end  =="], "");
    assert_eq!(reading.state, Some(Idle));
    assert_eq!(reading.composer.unwrap().columns, Some(0..11));
    let reading = gapped.read(&["> a draft", "==  end  =="], "");
    assert_eq!(reading.state, Some(Draft));
}

#[test]
fn a_suggestion_is_told_by_the_cursor_s_cell_past_wide_characters() {
    let file = "agent \"wide\" {\n  programs \"wide\"\n  prompt \"🤖\"\n  suggestions cursor=\"at-start\"\n}";
    let programs = Programs::with_file(file, "f").unwrap();
    let wide = programs.named("wide").unwrap();
    let rows = ["🤖 run the tests"];
    // The text starts at cell 3: the sign takes two.
    assert_eq!(wide.read_at(&rows, Some((3, 0)), "").state, Some(Idle));
    assert_eq!(wide.read_at(&rows, Some((2, 0)), "").state, Some(Draft));
}
