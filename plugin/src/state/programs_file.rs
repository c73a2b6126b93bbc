//! The person's agent descriptions (their `agents.kdl`) as a bridge last
//! sent them. The text is kept in a file in the shared folder, so every
//! instance, and the plugin after a reload, tells panes by the same ones.
//! Plain state.

use std::fs;
use std::path::PathBuf;
use std::time::SystemTime;

use zellij_mcp_protocol::agent_programs::{
    digest, DescribeError, Programs, FILE_NAME, MAX_FILE_BYTES,
};

use crate::host::files::read_capped;

/// A file's length and change time, to see that another instance wrote it.
type Stamp = (u64, Option<SystemTime>);

#[derive(Debug, Default)]
pub struct ProgramsFile {
    /// The kept text; none before the plugin has started.
    path: Option<PathBuf>,
    /// The kept file when last read; none when there was none.
    stamp: Option<Stamp>,
    /// The digest of the text in force (empty: the built-in ones alone).
    pub digest: String,
}

impl ProgramsFile {
    pub fn new(path: PathBuf) -> Self {
        ProgramsFile {
            path: Some(path),
            ..Default::default()
        }
    }

    /// The descriptions in force, when the kept file changed since it was
    /// last read (at start, or written by another instance).
    pub fn changed(&mut self) -> Option<Programs> {
        let stamp = self.stamp_now();
        if stamp == self.stamp {
            return None;
        }
        self.stamp = stamp;
        let path = self.path.as_ref()?;
        let text = stamp.and_then(|_| read_capped(path, MAX_FILE_BYTES as u64));
        // A bridge checked the text before it was kept; should it be bad
        // all the same, the built-in descriptions stay.
        let programs = self.take(text.as_deref()).unwrap_or_else(|error| {
            log::warn!("the kept {FILE_NAME} is not used: {error}");
            self.digest.clear();
            Programs::built_in()
        });
        Some(programs)
    }

    /// Takes `text` (none: the built-in descriptions alone) for every
    /// instance: the descriptions now in force, or where the text is wrong,
    /// and then nothing changes.
    pub fn replace(&mut self, text: Option<&str>) -> Result<Programs, DescribeError> {
        let programs = self.take(text)?;
        if let Some(path) = &self.path {
            let kept = match text {
                Some(text) => write_whole(path, text),
                None => fs::remove_file(path).or_else(|e| match e.kind() {
                    std::io::ErrorKind::NotFound => Ok(()),
                    _ => Err(e),
                }),
            };
            if let Err(error) = kept {
                log::warn!("{FILE_NAME} is used by this instance alone: {error}");
            }
        }
        self.stamp = self.stamp_now();
        Ok(programs)
    }

    fn take(&mut self, text: Option<&str>) -> Result<Programs, DescribeError> {
        let programs = match text {
            Some(text) => Programs::with_file(text, FILE_NAME)?,
            None => Programs::built_in(),
        };
        self.digest = digest(text);
        Ok(programs)
    }

    fn stamp_now(&self) -> Option<Stamp> {
        let meta = fs::metadata(self.path.as_ref()?).ok()?;
        Some((meta.len(), meta.modified().ok()))
    }
}

/// Writes `text` to `path` at once: readers see the old file or the new one.
fn write_whole(path: &PathBuf, text: &str) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp");
    fs::write(&tmp, text)?;
    fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ASKBOT: &str = "agent \"askbot\" {\n    programs \"askbot\"\n    prompt \"»\"\n}\n";

    #[test]
    fn a_file_sent_to_one_instance_is_used_by_every_instance() {
        let dir = crate::fake::shared_dir("programs-file");
        let path = dir.join("s.programs.kdl");
        let (mut one, mut other) = (ProgramsFile::new(path.clone()), ProgramsFile::new(path));
        assert!(one.changed().is_none() && other.changed().is_none());
        let programs = one.replace(Some(ASKBOT)).unwrap();
        assert!(programs.named("askbot").is_some() && programs.named("codex").is_some());
        assert_eq!(one.digest, digest(Some(ASKBOT)));
        assert!(one.changed().is_none(), "its own write is no news");
        let seen = other.changed().expect("the other instance sees the file");
        assert!(seen.named("askbot").is_some());
        assert_eq!(other.digest, one.digest);
        one.replace(None).unwrap();
        assert!(other.changed().unwrap().named("askbot").is_none());
        assert_eq!(other.digest, "");
    }

    #[test]
    fn a_wrong_file_changes_nothing() {
        let dir = crate::fake::shared_dir("programs-file-wrong");
        let mut file = ProgramsFile::new(dir.join("s.programs.kdl"));
        file.replace(Some(ASKBOT)).unwrap();
        let error = file
            .replace(Some("agent \"x\" {\n  colour 1\n}\n"))
            .unwrap_err();
        assert_eq!(error.line, 2, "{error}");
        assert_eq!(file.digest, digest(Some(ASKBOT)));
        let mut other = ProgramsFile::new(dir.join("s.programs.kdl"));
        assert!(other.changed().unwrap().named("askbot").is_some());
    }
}
