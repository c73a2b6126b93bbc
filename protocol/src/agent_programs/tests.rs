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
    assert_eq!(again, ["gemini-cli"]);
    let file = "agent \"x\" {\n  programs \"x\"\n  prompt \">\"\n  message multiline=\"paste\"\n}";
    let x = Programs::with_file(file, "f").unwrap();
    assert!(!x.named("x").unwrap().delivery.cr_again, "off unless asked");
    let bad = file.replace("multiline=\"paste\"", "cr=\"twice\"");
    assert!(Programs::with_file(&bad, "f").is_err());
}

#[test]
fn the_rest_of_the_screen_is_the_same_when_a_cr_only_made_a_new_line() {
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
