//! The plugin's permissions in Zellij's permission cache (`permissions.kdl`:
//! one block per plugin path, one permission per line). A grant there is
//! what the user would answer `y` to in the session.

use kdl::KdlDocument;
use zellij_mcp_protocol::PERMISSIONS;

/// The cache with every permission granted to `plugin` (a bare path); `None`
/// when they all are already.
pub fn grant(text: &str, plugin: &str) -> Result<Option<String>, String> {
    let mut doc = parse(text)?;
    if granted_in(&doc, plugin) {
        return Ok(None);
    }
    doc.nodes_mut().retain(|n| n.name().value() != plugin);
    let lines: String = PERMISSIONS.iter().map(|p| format!("    {p}\n")).collect();
    let block = format!("{} {{\n{lines}}}\n", kdl::KdlValue::from(plugin));
    let mut parsed: KdlDocument = block.parse().expect("a block made here is valid KDL");
    let mut node = parsed.nodes_mut().remove(0);
    if !(doc.nodes().is_empty() || doc.to_string().ends_with('\n')) {
        node.set_leading("\n");
    }
    doc.nodes_mut().push(node);
    Ok(Some(doc.to_string()))
}

/// The cache without `plugin`'s grant; `None` when it has none.
pub fn revoke(text: &str, plugin: &str) -> Result<Option<String>, String> {
    let mut doc = parse(text)?;
    let before = doc.nodes().len();
    doc.nodes_mut().retain(|n| n.name().value() != plugin);
    Ok((doc.nodes().len() != before).then(|| doc.to_string()))
}

/// Whether every permission the plugin asks for is granted to `plugin`.
pub fn granted(text: &str, plugin: &str) -> bool {
    parse(text).is_ok_and(|doc| granted_in(&doc, plugin))
}

fn granted_in(doc: &KdlDocument, plugin: &str) -> bool {
    let Some(node) = doc.nodes().iter().find(|n| n.name().value() == plugin) else {
        return false;
    };
    let names: Vec<&str> = node
        .children()
        .map(|c| c.nodes().iter().map(|n| n.name().value()).collect())
        .unwrap_or_default();
    PERMISSIONS.iter().all(|p| names.contains(p))
}

fn parse(text: &str) -> Result<KdlDocument, String> {
    text.parse()
        .map_err(|e| format!("Zellij's permission cache is not valid KDL: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLUGIN: &str = "/home/u/.local/share/zellij-mcp/zellij-mcp.wasm";

    #[test]
    fn a_grant_is_added_once_beside_others_and_revoked_alone() {
        let other = "\"/x/other.wasm\" {\n    ReadApplicationState\n}\n";
        let with = grant(other, PLUGIN).unwrap().unwrap();
        assert!(with.starts_with(other), "{with}");
        assert!(granted(&with, PLUGIN));
        assert!(!granted(other, PLUGIN));
        assert_eq!(
            grant(&with, PLUGIN).unwrap(),
            None,
            "a second grant changes nothing"
        );
        assert_eq!(revoke(&with, PLUGIN).unwrap().unwrap(), other);
        assert_eq!(revoke(other, PLUGIN).unwrap(), None);
    }

    #[test]
    fn a_partial_grant_is_completed() {
        let partial = format!("\"{PLUGIN}\" {{\n    ReadCliPipes\n}}\n");
        assert!(!granted(&partial, PLUGIN));
        let full = grant(&partial, PLUGIN).unwrap().unwrap();
        assert!(granted(&full, PLUGIN));
        assert_eq!(full.matches(PLUGIN).count(), 1, "{full}");
    }
}
