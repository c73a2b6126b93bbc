//! Paths from agents, checked and made absolute on this side: Zellij starts a
//! pane in its own folder when a cwd does not exist, without an error, and
//! rewrites plugin paths under `/tmp` to its own temp folder.

use std::path::{Path, PathBuf};

use super::{bad_request, ToolFailure};

/// An existing directory, absolute, in a form Zellij passes through unchanged.
pub fn cwd(cwd: Option<String>) -> Result<Option<String>, ToolFailure> {
    let Some(cwd) = cwd else { return Ok(None) };
    let path = std::path::absolute(&cwd)
        .ok()
        .and_then(|p| p.canonicalize().ok())
        .filter(|p| p.is_dir())
        .ok_or_else(|| {
            bad_request(
                format!("cwd '{cwd}' is not an existing directory"),
                "pass an absolute path to a directory that exists",
            )
        })?;
    Ok(Some(for_zellij(path)))
}

/// A file path for the editor, absolute (relative ones are taken from `cwd`).
pub fn file(path: &str, cwd: Option<&str>) -> Result<String, ToolFailure> {
    if path.trim().is_empty() {
        return Err(bad_request("path is empty", "pass the file to open"));
    }
    let base = cwd
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok());
    let joined = match base {
        Some(base) if Path::new(path).is_relative() => base.join(path),
        _ => PathBuf::from(path),
    };
    let parent_exists = joined.parent().is_some_and(Path::is_dir);
    if !parent_exists {
        return Err(bad_request(
            format!("the folder of '{}' does not exist", joined.display()),
            "pass a path in an existing folder",
        ));
    }
    Ok(for_zellij(joined))
}

/// A layout argument: a `.kdl` file or a layout from the user's layout folder
/// is read here; inline KDL and built-in names go to the plugin as is.
pub fn layout(layout: String) -> Result<String, ToolFailure> {
    if layout.contains('{') {
        return Ok(layout);
    }
    let candidates = [PathBuf::from(&layout)].into_iter().chain(
        layout_dirs()
            .into_iter()
            .map(|dir| dir.join(format!("{layout}.kdl"))),
    );
    for candidate in candidates {
        if candidate.is_file() {
            return std::fs::read_to_string(&candidate).map_err(|e| {
                bad_request(
                    format!("cannot read {}: {e}", candidate.display()),
                    "check the file's permissions",
                )
            });
        }
    }
    Ok(layout)
}

fn layout_dirs() -> Vec<PathBuf> {
    let config = std::env::var_os("ZELLIJ_CONFIG_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config/zellij")));
    config.map(|c| c.join("layouts")).into_iter().collect()
}

/// Zellij maps plugin paths under `/tmp` into its own temp folder; the same
/// folder reached through `/proc/self/root` is passed through untouched.
fn for_zellij(path: PathBuf) -> String {
    if cfg!(target_os = "linux") && path.starts_with("/tmp") {
        return Path::new("/proc/self/root")
            .join(path.strip_prefix("/").unwrap_or(&path))
            .display()
            .to_string();
    }
    path.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_cwd_is_refused_with_a_fix() {
        let err = cwd(Some("/no/such/dir".into())).unwrap_err();
        assert!(err.0.to_string().contains("not an existing directory"));
        assert_eq!(cwd(None).unwrap(), None);
        assert_eq!(cwd(Some("/".into())).unwrap().as_deref(), Some("/"));
    }

    #[test]
    fn tmp_paths_survive_zellijs_rewrite() {
        let dir = tempfile_dir();
        let got = cwd(Some(dir.display().to_string())).unwrap().unwrap();
        assert!(got.starts_with("/proc/self/root/tmp/"), "{got}");
        assert!(Path::new(&got).is_dir());
        std::fs::remove_dir(&dir).unwrap();
    }

    fn tempfile_dir() -> PathBuf {
        let dir = PathBuf::from(format!("/tmp/zellij-mcp-paths-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn relative_files_are_taken_from_cwd() {
        assert_eq!(file("etc/hosts", Some("/")).unwrap(), "/etc/hosts");
        assert!(file("", None).is_err());
        assert!(file("/no/such/dir/x.txt", None).is_err());
    }
}
