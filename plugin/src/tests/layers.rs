//! The plugin's layers are its folders, and they depend one way: a module
//! imports from its own layer and the layers below it, never from one
//! above, and no two modules import each other in a circle (`crate::x`
//! paths in the code, tests aside). The crate root, `lib.rs`, is a layer
//! of its own, `crate`: the plugin holding its state. (A unit test, not an
//! integration test: those would build the plugin's native binary, which
//! has the bridge's name.)

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layers, lowest first, as `docs/architecture.md` draws them.
const LAYERS: &[&str] = &["host", "state", "crate", "handlers", "work", "entry"];
/// The board stands apart: the plugin loaded a second time, drawing for a
/// person. It imports nothing of the layers; they may name its files.
const APART: &str = "board";
/// Files that are not part of the plugin's layers: its binary, and what
/// only tests build (the fake host, which drives the whole plugin).
const NOT_LAYERED: &[&str] = &["main", "fake", "tests"];

type Graph = BTreeMap<String, BTreeSet<String>>;

#[test]
fn each_module_imports_only_its_own_layer_and_those_below() {
    let graph = import_graph();
    assert!(graph.len() > 20, "the modules were found: {graph:?}");
    let mut upward = Vec::new();
    for (module, uses) in &graph {
        for used in uses {
            if rank(used) > rank(module) {
                upward.push(format!("{module} imports {used}"));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports that run up the layers {LAYERS:?}: {upward:?}"
    );
}

#[test]
fn the_board_imports_nothing_of_the_layers() {
    let graph = import_graph();
    let board: Vec<_> = graph
        .iter()
        .filter(|(module, _)| layer_of(module) == APART)
        .flat_map(|(module, uses)| uses.iter().map(move |u| format!("{module} imports {u}")))
        .filter(|line| !line.ends_with(&format!("imports {APART}")))
        .collect();
    assert!(board.is_empty(), "{board:?}");
}

#[test]
fn plugin_modules_import_each_other_one_way() {
    if let Some(cycle) = find_cycle(&import_graph()) {
        panic!(
            "modules import each other in a circle: {}",
            cycle.join(" -> ")
        );
    }
}

#[test]
fn the_architecture_page_draws_the_layers_in_their_order() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("../docs/architecture.md")).unwrap();
    let drawing = page
        .split("```\nplugin/src/")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("docs/architecture.md draws plugin/src/ in a code block");
    let drawn: Vec<&str> = drawing
        .lines()
        .skip(1)
        .filter_map(|line| line.strip_prefix("  "))
        .filter(|entry| !entry.starts_with(' '))
        .filter_map(|entry| entry.split_whitespace().next())
        .map(|first| match first {
            "lib.rs" => "crate",
            folder => folder.trim_end_matches('/'),
        })
        .collect();
    let mut expected: Vec<&str> = LAYERS.iter().rev().copied().collect();
    expected.push(APART);
    assert_eq!(drawn, expected, "highest first, the board last");
}

/// Every module (`folder::file`, a folder's `mod.rs` as the folder, the
/// root as `crate`) and the modules it imports.
fn import_graph() -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph = Graph::new();
    for (module, code) in sources(&src, &src) {
        assert!(
            LAYERS.contains(&layer_of(&module)) || layer_of(&module) == APART,
            "{module} is in no layer: a new folder goes into LAYERS here and \
             into docs/architecture.md"
        );
        let uses = graph.entry(module.clone()).or_default();
        let root = module == "crate";
        uses.extend(imports(&code, root).into_iter().filter(|m| *m != module));
    }
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    for uses in graph.values_mut() {
        uses.retain(|m| modules.contains(m));
    }
    graph
}

fn layer_of(module: &str) -> &str {
    module.split("::").next().unwrap()
}

fn rank(module: &str) -> usize {
    let layer = layer_of(module);
    LAYERS.iter().position(|l| *l == layer).unwrap_or(0)
}

/// Each source file's module, and its code without comments and unit tests.
fn sources(dir: &Path, src: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(sources(&path, src));
            continue;
        }
        let relative = path.strip_prefix(src).unwrap().with_extension("");
        let parts: Vec<&str> = relative.iter().map(|p| p.to_str().unwrap()).collect();
        let module = match parts.as_slice() {
            ["lib"] => "crate".to_owned(),
            [folder, "mod"] => folder.to_string(),
            parts => parts.join("::"),
        };
        if NOT_LAYERED.contains(&layer_of(&module)) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let code = text.split("#[cfg(test)]\nmod tests").next().unwrap();
        let code: Vec<&str> = code
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect();
        found.push((module, code.join("\n")));
    }
    found
}

/// The modules `code` names through `crate::` paths (an item of the root,
/// such as `crate::McpPlugin`, is the root), and the root through its own
/// `use`s.
fn imports(code: &str, root: bool) -> BTreeSet<String> {
    let mut paths = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        paths.extend(use_tree(&code[at + "crate::".len()..]));
    }
    for line in code.lines().filter(|_| root) {
        if let Some(tree) = line.strip_prefix("use ") {
            paths.extend(use_tree(tree));
        }
    }
    paths.iter().map(|path| module_of(path)).collect()
}

/// The module a path from the root names: `folder::file` when the file is
/// there, else the folder, else the root.
fn module_of(path: &[String]) -> String {
    let is_folder = |name: &str| LAYERS.contains(&name) || name == APART;
    match path {
        [folder, file, ..] if is_folder(folder) && starts_lowercase(file) => {
            format!("{folder}::{file}")
        }
        [folder, ..] if is_folder(folder) => folder.clone(),
        _ => "crate".to_owned(),
    }
}

fn starts_lowercase(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase()) && name != "self"
}

/// The paths a use tree at the start of `text` names (`a::{b, c::d}` is
/// `a::b` and `a::c::d`).
fn use_tree(text: &str) -> Vec<Vec<String>> {
    let mut prefix = Vec::new();
    let mut rest = text;
    loop {
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if end > 0 {
            prefix.push(rest[..end].to_owned());
        }
        rest = &rest[end..];
        if let Some(after) = rest.strip_prefix("::") {
            rest = after;
            continue;
        }
        if !rest.starts_with('{') || end > 0 {
            return vec![prefix];
        }
        return branches(&rest[1..])
            .into_iter()
            .flat_map(use_tree)
            .map(|tail| prefix.iter().cloned().chain(tail).collect())
            .collect();
    }
}

/// The comma-separated branches of a group, up to its closing brace.
fn branches(group: &str) -> Vec<&str> {
    let (mut depth, mut start, mut found) = (0, 0, Vec::new());
    for (at, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                found.push(group[start..at].trim());
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                found.push(group[start..at].trim());
                start = at + 1;
            }
            _ => {}
        }
    }
    found.retain(|b| !b.is_empty());
    found
}

/// A path around a circle of imports, if there is one.
fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(
        module: &str,
        graph: &Graph,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|m| m == module) {
            let mut cycle = path[at..].to_vec();
            cycle.push(module.to_owned());
            return Some(cycle);
        }
        if !done.insert(module.to_owned()) {
            return None;
        }
        path.push(module.to_owned());
        for next in &graph[module] {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|m| visit(m, graph, &mut Vec::new(), &mut done))
}

#[test]
fn use_trees_are_read_into_paths() {
    let paths = |t: &str| -> Vec<String> { use_tree(t).iter().map(|p| p.join("::")).collect() };
    assert_eq!(paths("state::later::Later;"), ["state::later::Later"]);
    assert_eq!(
        paths("{state::{later::Later, waits}, McpPlugin};"),
        ["state::later::Later", "state::waits", "McpPlugin"]
    );
    let graph_of = |code: &str| imports(code, false).into_iter().collect::<Vec<_>>();
    assert_eq!(
        graph_of("use crate::handlers::{self, Zellij};\nx(crate::work::lifecycle::f)"),
        ["handlers", "work::lifecycle"]
    );
    assert_eq!(graph_of("use crate::{build_id, McpPlugin};"), ["crate"]);
}
