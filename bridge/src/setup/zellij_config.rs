//! Edits of Zellij's `config.kdl` that keep the user's text: the file is
//! parsed with a KDL library, nodes are added or removed, and everything
//! else (comments, spacing, order) is written back as it was.
//!
//! - the alias: `plugins { zellij-mcp location="file:…" }`;
//! - loading it in every session: `load_plugins { zellij-mcp }`. That block
//!   replaces Zellij's default list (`"zellij:link"`), so a block made here
//!   lists the default too.

use kdl::{KdlDocument, KdlEntry, KdlNode, KdlValue};

/// The plugin's alias in the user's config.
pub const ALIAS: &str = "zellij-mcp";
/// What Zellij loads in the background when a config has no `load_plugins`.
const DEFAULT_BACKGROUND_PLUGINS: &[&str] = &["zellij:link"];

/// A parsed config.
pub struct ZellijConfig {
    doc: KdlDocument,
}

/// What an edit changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Unchanged,
    /// Added to (or changed in) a block that was there.
    Edited,
    /// The block was made for it.
    AddedBlock,
}

impl ZellijConfig {
    pub fn parse(text: &str) -> Result<Self, String> {
        let doc = text
            .parse::<KdlDocument>()
            .map_err(|e| format!("it is not valid KDL: {e}"))?;
        Ok(ZellijConfig { doc })
    }

    pub fn text(&self) -> String {
        self.doc.to_string()
    }

    /// `plugins { zellij-mcp location="<url>" }`, the location updated when
    /// the alias is there with another.
    pub fn set_alias(&mut self, url: &str) -> Change {
        let Some(plugins) = self.block_mut("plugins") else {
            let block = format!("plugins {{\n    {ALIAS} location={}\n}}\n", quoted(url));
            self.append_block(&block);
            return Change::AddedBlock;
        };
        let children = plugins.ensure_children();
        if let Some(alias) = children.get_mut(ALIAS) {
            if alias.get("location").map(KdlEntry::value) == Some(&KdlValue::from(url)) {
                return Change::Unchanged;
            }
            alias.insert("location", url);
            return Change::Edited;
        }
        push_child(children, &format!("{ALIAS} location={}", quoted(url)));
        Change::Edited
    }

    /// `load_plugins { zellij-mcp }`.
    pub fn set_autoload(&mut self) -> Change {
        let Some(load) = self.block_mut("load_plugins") else {
            let defaults: String = DEFAULT_BACKGROUND_PLUGINS
                .iter()
                .map(|p| format!("    {}\n", quoted(p)))
                .collect();
            self.append_block(&format!("load_plugins {{\n{defaults}    {ALIAS}\n}}\n"));
            return Change::AddedBlock;
        };
        let children = load.ensure_children();
        if children.get(ALIAS).is_some() {
            return Change::Unchanged;
        }
        push_child(children, ALIAS);
        Change::Edited
    }

    /// Removes the alias; the whole block too when `block_was_added` and
    /// nothing else is in it.
    pub fn remove_alias(&mut self, block_was_added: bool) -> bool {
        self.remove_child("plugins", ALIAS, block_was_added, &[])
    }

    /// Removes the plugin from `load_plugins`; the whole block too when
    /// `block_was_added` and only Zellij's defaults are left in it.
    pub fn remove_autoload(&mut self, block_was_added: bool) -> bool {
        self.remove_child(
            "load_plugins",
            ALIAS,
            block_was_added,
            DEFAULT_BACKGROUND_PLUGINS,
        )
    }

    /// Whether the alias is there, with its location.
    pub fn alias(&self) -> Option<String> {
        let plugins = self.doc.get("plugins")?.children()?;
        let location = plugins.get(ALIAS)?.get("location")?;
        location.value().as_string().map(str::to_owned)
    }

    /// Whether the config loads the plugin in every session.
    pub fn autoloads(&self) -> bool {
        let load = self.doc.get("load_plugins").and_then(KdlNode::children);
        load.is_some_and(|children| children.get(ALIAS).is_some())
    }

    fn block_mut(&mut self, name: &str) -> Option<&mut KdlNode> {
        self.doc.get_mut(name)
    }

    /// Appends a block after everything else, on a line of its own.
    fn append_block(&mut self, block: &str) {
        let mut parsed: KdlDocument = block.parse().expect("a block made here is valid KDL");
        let mut node = parsed.nodes_mut().remove(0);
        let text = self.doc.to_string();
        let newline = if text.is_empty() || text.ends_with('\n') {
            ""
        } else {
            "\n"
        };
        node.set_leading(format!("{newline}\n"));
        self.doc.nodes_mut().push(node);
    }

    fn remove_child(
        &mut self,
        block: &str,
        child: &str,
        block_was_added: bool,
        leaves: &[&str],
    ) -> bool {
        let Some(node) = self.doc.get_mut(block) else {
            return false;
        };
        let Some(children) = node.children_mut() else {
            return false;
        };
        let before = children.nodes().len();
        children.nodes_mut().retain(|n| n.name().value() != child);
        let removed = children.nodes().len() != before;
        let only_defaults = children
            .nodes()
            .iter()
            .all(|n| leaves.contains(&n.name().value()));
        if removed && block_was_added && only_defaults {
            self.doc.nodes_mut().retain(|n| n.name().value() != block);
        }
        removed
    }
}

/// A child line in a block, indented as its first child is.
fn push_child(children: &mut KdlDocument, line: &str) {
    let indent = children
        .nodes()
        .first()
        .and_then(KdlNode::leading)
        .map(|lead| lead.rsplit('\n').next().unwrap_or(lead).to_owned())
        .filter(|lead| lead.chars().all(|c| c == ' ' || c == '\t'))
        .unwrap_or_else(|| "    ".to_owned());
    let mut parsed: KdlDocument = line.parse().expect("a line made here is valid KDL");
    let mut node = parsed.nodes_mut().remove(0);
    let ends_on_its_line = children
        .nodes()
        .last()
        .and_then(KdlNode::trailing)
        .is_none_or(|t| t.contains('\n'));
    let lead = if ends_on_its_line { "" } else { "\n" };
    node.set_leading(format!("{lead}{indent}"));
    node.set_trailing("\n");
    if children.nodes().is_empty() && !children.leading().unwrap_or("").ends_with('\n') {
        children.set_leading("\n");
    }
    children.nodes_mut().push(node);
}

/// A KDL string, quoted and escaped.
fn quoted(text: &str) -> String {
    KdlValue::from(text).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const URL: &str = "file:/home/u/.local/share/zellij-mcp/zellij-mcp.wasm";

    fn edited(text: &str, edit: impl FnOnce(&mut ZellijConfig)) -> String {
        let mut config = ZellijConfig::parse(text).unwrap();
        edit(&mut config);
        config.text()
    }

    #[test]
    fn an_empty_config_gets_both_blocks_and_loses_them_again() {
        let mut config = ZellijConfig::parse("").unwrap();
        assert_eq!(config.set_alias(URL), Change::AddedBlock);
        assert_eq!(config.set_autoload(), Change::AddedBlock);
        let text = config.text();
        assert!(
            text.contains(&format!("zellij-mcp location=\"{URL}\"")),
            "{text}"
        );
        assert!(text.contains("\"zellij:link\""), "{text}");
        let again = ZellijConfig::parse(&text).unwrap();
        assert_eq!(again.alias().as_deref(), Some(URL));
        assert!(again.autoloads());
        let mut config = again;
        assert!(config.remove_alias(true));
        assert!(config.remove_autoload(true));
        assert_eq!(config.text().trim(), "");
    }

    #[test]
    fn other_plugins_and_comments_are_kept_byte_for_byte() {
        let original = "// my config\nshow_startup_tips false // tips off\n\nplugins {\n  tab-bar location=\"zellij:tab-bar\" // the bar\n  mine location=\"file:/x.wasm\" {\n    key \"v\"\n  }\n}\n\nload_plugins {\n  \"zellij:link\"\n  mine\n}\n/* trailing */\n";
        let text = edited(original, |c| {
            assert_eq!(c.set_alias(URL), Change::Edited);
            assert_eq!(c.set_autoload(), Change::Edited);
        });
        let expected = original
            .replace(
                "    key \"v\"\n  }\n}",
                &format!("    key \"v\"\n  }}\n  zellij-mcp location=\"{URL}\"\n}}"),
            )
            .replace("  mine\n}", "  mine\n  zellij-mcp\n}");
        assert_eq!(text, expected);
        let undone = edited(&text, |c| {
            assert!(c.remove_alias(false));
            assert!(c.remove_autoload(false));
        });
        assert_eq!(undone, original);
    }

    #[test]
    fn a_second_run_changes_nothing_and_a_new_location_is_updated() {
        let once = edited("", |c| {
            c.set_alias(URL);
            c.set_autoload();
        });
        let twice = edited(&once, |c| {
            assert_eq!(c.set_alias(URL), Change::Unchanged);
            assert_eq!(c.set_autoload(), Change::Unchanged);
        });
        assert_eq!(once, twice);
        let moved = edited(&once, |c| {
            assert_eq!(c.set_alias("file:/new.wasm"), Change::Edited)
        });
        assert_eq!(
            ZellijConfig::parse(&moved).unwrap().alias().as_deref(),
            Some("file:/new.wasm")
        );
    }

    #[test]
    fn blocks_on_one_line_and_without_a_final_newline_stay_valid() {
        for original in [
            "plugins { tab-bar location=\"zellij:tab-bar\"; }",
            "load_plugins {\n}",
            "keybinds {\n    normal {\n        bind \"Ctrl g\" { SwitchToMode \"locked\"; }\n    }\n}",
            "theme \"dracula\"",
        ] {
            let text = edited(original, |c| {
                c.set_alias(URL);
                c.set_autoload();
            });
            let parsed = ZellijConfig::parse(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
            assert_eq!(parsed.alias().as_deref(), Some(URL), "{text}");
            assert!(parsed.autoloads(), "{text}");
        }
    }

    #[test]
    fn a_config_that_is_not_kdl_is_refused() {
        assert!(ZellijConfig::parse("plugins {").is_err());
    }
}
