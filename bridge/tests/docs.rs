//! The README and the pages in `docs/` stay true: every relative link
//! points at a file (and a heading) that is there, every file of the
//! project they name in code is there, and every `zellij-mcp` command and
//! `zellij_` tool they name exists in the built bridge.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use zellij_mcp_harness::workspace_root;

/// The README and every page in `docs/`, with their text.
fn pages() -> Vec<(PathBuf, String)> {
    let root = workspace_root();
    let docs = std::fs::read_dir(root.join("docs")).expect("a docs folder");
    let mut paths: Vec<PathBuf> = docs
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    paths.sort();
    paths.insert(0, root.join("README.md"));
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("a readable page");
            (path, text)
        })
        .collect()
}

/// The targets of the Markdown links in `text` that are not web addresses.
fn relative_links(text: &str) -> Vec<String> {
    let mut links = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        let Some(end) = rest.find(')') else { break };
        let target = &rest[..end];
        if !target.contains("://") && !target.starts_with("mailto:") {
            links.push(target.to_owned());
        }
    }
    links
}

/// A heading's anchor, as GitHub makes it.
fn anchor(heading: &str) -> String {
    let kept = heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .collect::<String>();
    kept.replace(' ', "-")
}

fn anchors(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter(|line| line.starts_with('#'))
        .map(|line| anchor(line.trim_start_matches('#')))
        .collect()
}

#[test]
fn every_relative_link_points_at_a_file_and_heading_that_are_there() {
    let mut broken = Vec::new();
    for (page, text) in pages() {
        for link in relative_links(&text) {
            let (file, heading) = link.split_once('#').unwrap_or((&link, ""));
            let target = match file {
                "" => page.clone(),
                file => page.parent().unwrap().join(file),
            };
            let found = match std::fs::read_to_string(&target) {
                Ok(_) if heading.is_empty() => true,
                Ok(target_text) => anchors(&target_text).contains(heading),
                Err(_) => target.is_dir() && heading.is_empty(),
            };
            if !found {
                broken.push(format!("{}: {link}", name(&page)));
            }
        }
    }
    assert!(broken.is_empty(), "links that point nowhere: {broken:#?}");
}

#[test]
fn every_project_file_named_in_code_is_there() {
    let root = workspace_root();
    let folders = [
        "plugin/",
        "bridge/",
        "protocol/",
        "harness/",
        "layouts/",
        "docs/",
    ];
    let mut missing = Vec::new();
    for (page, text) in pages() {
        for code in text.split('`').skip(1).step_by(2) {
            let path = code.split([' ', ':']).next().unwrap_or("");
            let is_path = folders.iter().any(|f| path.starts_with(f)) && !path.contains('*');
            if is_path && !root.join(path).exists() {
                missing.push(format!("{}: {path}", name(&page)));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "files named but not there: {missing:#?}"
    );
}

#[test]
fn every_command_and_tool_named_exists() {
    let bridge = common::bridge();
    let listed = Command::new(&bridge)
        .arg("tools")
        .output()
        .expect("zellij-mcp tools");
    let tools: BTreeSet<String> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next().map(str::to_owned))
        .collect();
    assert!(tools.contains("zellij_run"), "the tools listed: {tools:?}");
    let (mut commands, mut missing) = (BTreeSet::new(), Vec::new());
    for (page, text) in pages() {
        for tool in words_after(&text, "zellij_") {
            let tool = format!("zellij_{tool}");
            if !tools.contains(&tool) {
                missing.push(format!("{}: tool {tool}", name(&page)));
            }
        }
        commands.extend(commands_named(&text).into_iter().map(|c| (c, name(&page))));
    }
    for (command, page) in commands {
        let help = Command::new(&bridge).args([&command, "--help"]).output();
        if !help.is_ok_and(|out| out.status.success()) {
            missing.push(format!("{page}: command zellij-mcp {command}"));
        }
    }
    assert!(missing.is_empty(), "named but not there: {missing:#?}");
}

#[test]
fn the_readme_tools_table_is_what_zellij_mcp_tools_prints() {
    let listed = Command::new(common::bridge())
        .arg("tools")
        .output()
        .expect("zellij-mcp tools");
    let printed: BTreeSet<(String, String)> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .filter_map(|line| line.split_once(' '))
        .map(|(tool, summary)| (tool.to_owned(), summary.trim().to_owned()))
        .collect();
    let readme = std::fs::read_to_string(workspace_root().join("README.md")).unwrap();
    let table: BTreeSet<(String, String)> = readme
        .lines()
        .filter_map(|row| row.strip_prefix("| `zellij_"))
        .filter_map(|row| row.strip_suffix(" |")?.split_once("` | "))
        .map(|(tool, summary)| (format!("zellij_{tool}"), summary.to_owned()))
        .collect();
    assert!(printed.len() > 20, "zellij-mcp tools printed {printed:?}");
    let stale: Vec<_> = table.symmetric_difference(&printed).collect();
    assert!(
        stale.is_empty(),
        "README rows that differ from `zellij-mcp tools` (copy its lines): {stale:#?}"
    );
}

/// The `zellij-mcp` subcommands `text` names in code: `zellij-mcp setup`
/// in backticks, or a line of a shell block that starts with it.
fn commands_named(text: &str) -> BTreeSet<String> {
    let mut named = BTreeSet::new();
    let first_word = |rest: &str| -> Option<String> {
        let word: String = rest
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '-')
            .collect();
        (!word.is_empty()).then_some(word)
    };
    for at in text.match_indices("`zellij-mcp ").map(|(at, _)| at) {
        named.extend(first_word(&text[at + "`zellij-mcp ".len()..]));
    }
    for line in text.lines() {
        let line = line.trim_start().trim_start_matches("$ ");
        if let Some(rest) = line.strip_prefix("zellij-mcp ") {
            named.extend(first_word(rest));
        }
    }
    named
}

/// The words that follow `prefix` in `text` (letters, digits and `_`).
fn words_after(text: &str, prefix: &str) -> BTreeSet<String> {
    let mut words = BTreeSet::new();
    for (at, _) in text.match_indices(prefix) {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let word: String = text[at + prefix.len()..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !word.is_empty() {
            words.insert(word);
        }
    }
    words
}

fn name(page: &Path) -> String {
    let root = workspace_root();
    let name = page.strip_prefix(&root).unwrap_or(page);
    name.display().to_string()
}
