//! The plugin's modules depend on each other one way: no module imports
//! one that imports it back (`crate::x` paths in the code, tests aside).
//! The crate root counts as one module, `crate`. (A unit test, not an
//! integration test: those would build the plugin's native binary, which
//! has the bridge's name.)

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Modules built only for tests.
const TEST_ONLY: &[&str] = &["tests", "op_tests", "properties", "fake", "layers"];

type Graph = BTreeMap<String, BTreeSet<String>>;

#[test]
fn plugin_modules_import_each_other_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph = Graph::new();
    for (module, code) in sources(&src, &src) {
        let uses = graph.entry(module.clone()).or_default();
        uses.extend(imports(&code).into_iter().filter(|m| *m != module));
    }
    graph.remove("main");
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    for uses in graph.values_mut() {
        uses.retain(|m| modules.contains(m));
    }
    assert!(graph.len() > 10, "the modules were found: {graph:?}");
    if let Some(cycle) = find_cycle(&graph) {
        panic!(
            "modules import each other in a circle: {}",
            cycle.join(" -> ")
        );
    }
}

/// Each source file's top-level module (the root is `crate`), and its code
/// without comments and unit tests.
fn sources(dir: &Path, src: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(sources(&path, src));
            continue;
        }
        let relative = path
            .strip_prefix(src)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let first = relative.split('/').next().unwrap().trim_end_matches(".rs");
        let module = match first {
            "lib" => "crate",
            other => other,
        };
        if TEST_ONLY.contains(&module) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let code = text.split("#[cfg(test)]\nmod tests").next().unwrap();
        let code: Vec<&str> = code
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect();
        found.push((module.to_owned(), code.join("\n")));
    }
    found
}

/// The modules `code` names through `crate::` (a type at the root, such as
/// `crate::McpPlugin`, is the root); the root also through its own `use`s.
fn imports(code: &str) -> BTreeSet<String> {
    let mut modules = BTreeSet::new();
    let module_of = |item: &str| {
        let first = item.trim().split("::").next().unwrap_or("").to_owned();
        match first.chars().next() {
            Some(c) if c.is_ascii_uppercase() => Some("crate".to_owned()),
            Some(_) => Some(first),
            None => None,
        }
    };
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            modules.extend(group.split(',').filter_map(module_of));
        } else {
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            modules.extend(module_of(&rest[..end]));
        }
    }
    for line in code.lines() {
        if let Some(path) = line.strip_prefix("use ") {
            modules.extend(module_of(path).filter(|m| m != "crate"));
        }
    }
    modules
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
