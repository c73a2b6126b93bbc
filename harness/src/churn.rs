//! Clients coming and going as people's do, for the handover test and
//! `make churn`: one stays on a tab without the plugin, others attach to
//! the plugin's tab two at a time and the older leaves each of the four
//! ways in turn. Each time the acting instance's client leaves while
//! another views the plugin's tab, the lease moves.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;

use crate::{wait_for, AttachedClient, Leaving, Mcp, Session};

/// How long each churned client stays: past the lease's starving time
/// (1 s), so its instance can take the lease once the one before it left.
const CLIENT_STAYS: Duration = Duration::from_millis(2500);

/// A client attached for the whole run, on a new tab without the plugin
/// (its instance gets no pane events, so it never takes the lease away).
pub fn stay_away(session: &Session, mcp: &Mcp) -> AttachedClient {
    let (stayer, _) = session.attach_and_wait();
    let away = mcp.ok("zellij_new_tab", json!({"name": "away"}))["tab_id"].clone();
    mcp.ok("zellij_focus", json!({"tab": away}));
    stayer
}

/// Attaches clients to the plugin's tab (the first) two at a time, the
/// older leaving in turn each of the four ways, until `enough` says so or
/// `most` clients came; a client that would not leave is told to `failed`.
pub fn churn_clients(
    session: &Session,
    most: usize,
    enough: impl Fn() -> bool,
    failed: impl Fn(String),
) {
    let mut clients: VecDeque<AttachedClient> = VecDeque::new();
    for n in 0..most {
        if enough() {
            break;
        }
        let mut client = session.attach_client();
        std::thread::sleep(Duration::from_millis(500));
        // Tab mode, then the first tab.
        client.type_keys(b"\x141");
        clients.push_back(client);
        std::thread::sleep(CLIENT_STAYS);
        if clients.len() == 2 {
            let how = Leaving::ALL[n % Leaving::ALL.len()];
            let leaving = clients.pop_front().expect("a client");
            if !leaving.leave(how) {
                failed(format!("a client did not leave ({how:?})"));
            }
        }
    }
}

/// Counts in `holders` the instances that held the lease in turn until
/// `stop`, from the lease file in the plugin's shared folder under `root`.
pub fn count_lease_holders(root: &Path, holders: &AtomicUsize, stop: &AtomicBool) {
    let mut last = None;
    let lease = wait_for("the lease file", Duration::from_secs(20), || {
        lease_file(root)
    });
    while !stop.load(Ordering::SeqCst) {
        let holder = std::fs::read_to_string(&lease).ok().and_then(|text| {
            let fields: Vec<&str> = text.split_whitespace().take(2).collect();
            (fields.len() == 2).then(|| fields.join(" "))
        });
        if holder.is_some() && holder != last {
            holders.fetch_add(1, Ordering::SeqCst);
            last = holder;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `lease-<zellij pid>`, wherever Zellij keeps the plugin's `/cache`.
fn lease_file(dir: &Path) -> Option<PathBuf> {
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_lease = name
            .strip_prefix("lease-")
            .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()));
        if is_lease {
            return Some(path);
        }
        if path.is_dir() && !path.is_symlink() {
            if let Some(found) = lease_file(&path) {
                return Some(found);
            }
        }
    }
    None
}
