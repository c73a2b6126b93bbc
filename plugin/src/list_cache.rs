//! The last pane list answered, kept while nothing it was made from can
//! have changed: a list of a hundred panes costs its serialization on every
//! call, and agents list often between changes.
//!
//! The plugin drops it on every event and every request that is not a
//! pane list (anything else may change the session, the panes' facts or
//! their agent names), and never keeps a list that read a screen (an
//! agent's state changes without an event) or misses a pid.

use zellij_mcp_protocol::frames::JsonText;

/// At most one answer, for one set of arguments.
#[derive(Debug, Default)]
pub struct ListCache {
    last: Option<(String, JsonText)>,
}

impl ListCache {
    /// The answer kept for these arguments (as their JSON text), if any.
    pub fn get(&self, args: &str) -> Option<JsonText> {
        let (kept_args, answer) = self.last.as_ref()?;
        (kept_args == args).then(|| answer.clone())
    }

    pub fn keep(&mut self, args: String, answer: JsonText) {
        self.last = Some((args, answer));
    }

    pub fn clear(&mut self) {
        self.last = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_is_given_back_only_for_its_arguments_until_cleared() {
        let mut cache = ListCache::default();
        assert!(cache.get("{}").is_none());
        cache.keep("{}".into(), JsonText::of(&[1]).unwrap());
        assert_eq!(cache.get("{}").unwrap().as_str(), "[1]");
        assert!(cache.get(r#"{"details":true}"#).is_none());
        cache.clear();
        assert!(cache.get("{}").is_none());
    }
}
