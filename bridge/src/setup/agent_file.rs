//! The person's agent descriptions: `agents.kdl` in their configuration
//! folder (see `zellij_mcp_protocol::agent_programs`). The bridge checks it
//! and sends it to a session's plugin whenever the plugin's copy differs,
//! so an edit is in force from the next call on; `doctor` checks it too.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use zellij_mcp_protocol::agent_programs::{digest, Programs, FILE_NAME};

/// `$XDG_CONFIG_HOME/zellij-mcp/agents.kdl`, else under `~/.config`.
pub fn path() -> PathBuf {
    crate::setup::config_home()
        .join("zellij-mcp")
        .join(FILE_NAME)
}

/// The descriptions in force: the person's file over the built-in ones
/// (the built-in ones alone while the file is absent or wrong).
pub fn programs() -> Programs {
    programs_in(&path())
}

/// The same, for the file at `path`.
pub fn programs_in(path: &Path) -> Programs {
    match check(path) {
        Checked::Good { text, .. } => {
            Programs::with_file(&text, FILE_NAME).unwrap_or_else(|_| Programs::built_in())
        }
        _ => Programs::built_in(),
    }
}

/// The file as last read.
#[derive(Debug, Clone, PartialEq)]
pub enum Checked {
    /// No file: the built-in descriptions alone.
    Absent,
    /// A file that can be used: its text, digest and descriptions' labels.
    Good {
        text: String,
        digest: String,
        described: Vec<String>,
    },
    /// A file that cannot be used, and why (its line).
    Wrong(String),
}

impl Checked {
    /// What to send the plugin, and its digest; none for a wrong file (the
    /// plugin keeps what it has).
    pub fn to_send(&self) -> Option<(Option<&str>, String)> {
        match self {
            Checked::Absent => Some((None, digest(None))),
            Checked::Good { text, digest, .. } => Some((Some(text), digest.clone())),
            Checked::Wrong(_) => None,
        }
    }
}

/// Reads and checks the file at `path`.
pub fn check(path: &Path) -> Checked {
    let text = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Checked::Absent,
        Err(e) => return Checked::Wrong(format!("cannot be read: {e}")),
    };
    let Ok(text) = String::from_utf8(text) else {
        return Checked::Wrong("is not UTF-8 text".into());
    };
    match Programs::with_file(&text, FILE_NAME) {
        Ok(programs) => Checked::Good {
            digest: digest(Some(&text)),
            described: programs.from_file().map(|d| d.label()).collect(),
            text,
        },
        Err(error) => Checked::Wrong(error.to_string()),
    }
}

/// A file's length and change time: read again only when they change.
pub type Stamp = Option<(u64, Option<SystemTime>)>;

/// The file at `path`'s [`Stamp`] now.
pub fn stamp(path: &Path) -> Stamp {
    let metadata = std::fs::metadata(path).ok()?;
    Some((metadata.len(), metadata.modified().ok()))
}

/// The file, read again when it changes (a look at its metadata per call).
#[derive(Debug)]
pub struct AgentFile {
    path: PathBuf,
    last: Mutex<Option<(Stamp, Arc<Checked>)>>,
}

impl AgentFile {
    pub fn at(path: PathBuf) -> Self {
        AgentFile {
            path,
            last: Mutex::new(None),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file now; a wrong one is logged when it is read.
    pub fn now(&self) -> Arc<Checked> {
        let stamp = stamp(&self.path);
        let mut last = self.last.lock().unwrap();
        if let Some((seen, checked)) = last.as_ref() {
            if *seen == stamp {
                return checked.clone();
            }
        }
        let checked = Arc::new(check(&self.path));
        if let Checked::Wrong(why) = checked.as_ref() {
            tracing::warn!(
                "{} {why}; the descriptions sent before stay in force",
                self.path.display()
            );
        }
        *last = Some((stamp, checked.clone()));
        checked
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_is_read_again_when_it_changes() {
        let dir = std::env::temp_dir().join(format!("zmcp-agent-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = AgentFile::at(dir.join(FILE_NAME));
        assert_eq!(*file.now(), Checked::Absent);
        let askbot = "agent \"askbot\" {\n    programs \"askbot\"\n    prompt \"»\"\n}\n";
        std::fs::write(file.path(), askbot).unwrap();
        let Checked::Good { described, .. } = &*file.now() else {
            panic!("{:?}", file.now())
        };
        assert_eq!(described, &["askbot (agents.kdl:1)"]);
        std::fs::write(
            file.path(),
            "agent \"askbot\" {\n    prompt \"»\"\n    size 3\n}\n",
        )
        .unwrap();
        let Checked::Wrong(why) = &*file.now() else {
            panic!("{:?}", file.now())
        };
        assert!(why.starts_with("line 3: "), "{why}");
        assert_eq!(file.now().to_send(), None);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
