//! Where a running agent program keeps its record: under the homes its own
//! environment names (a test's program runs with a home of its own), in
//! the folder it works in. Only files this user owns are read.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::processes::table;

/// A running program's environment and folder.
#[derive(Debug, Clone, Default)]
pub struct Place {
    env: HashMap<String, String>,
    pub cwd: Option<PathBuf>,
    /// The pane's own process.
    pub pid: Option<u32>,
}

impl Place {
    /// The place of process `pid` working in `cwd`: its environment where
    /// the platform tells it, else this server's own.
    pub fn of(pid: Option<u32>, cwd: Option<&str>) -> Place {
        let env = pid
            .and_then(|pid| table().environment(pid))
            .unwrap_or_else(|| std::env::vars().collect());
        Place {
            env,
            cwd: cwd.map(PathBuf::from),
            pid,
        }
    }

    /// The pane's process and those it started, where the platform tells.
    pub fn processes(&self) -> Vec<u32> {
        let Some(pid) = self.pid else {
            return Vec::new();
        };
        table().tree(pid).unwrap_or_else(|| vec![pid])
    }

    /// A place with only these variables set, as a test or a bench lays
    /// one out.
    pub fn new(env: &[(&str, &Path)], cwd: Option<&Path>) -> Place {
        let env = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.display().to_string()));
        Place {
            env: env.collect(),
            cwd: cwd.map(Path::to_path_buf),
            pid: None,
        }
    }

    /// The folder `name` names, when set and not empty.
    pub fn dir(&self, name: &str) -> Option<PathBuf> {
        self.env
            .get(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    }

    /// `$HOME/relative`.
    pub fn home(&self, relative: &str) -> Option<PathBuf> {
        Some(self.dir("HOME")?.join(relative))
    }
}

/// Whether a record can be read: a file this user owns, changed at or after
/// `since`.
pub fn readable_since(path: &Path, since: SystemTime) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    meta.is_file() && meta.uid() == me && meta.modified().is_ok_and(|m| m >= since)
}

/// The entries of `dir` whose names pass `keep`, sorted by name.
pub fn entries(dir: &Path, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = read
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_str().is_some_and(&keep))
        .map(|e| e.path())
        .collect();
    found.sort();
    found
}
