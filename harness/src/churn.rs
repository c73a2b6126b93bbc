//! Clients coming and going as people's do, for the handover test and
//! `make churn`: one stays on a tab without the plugin, others attach to
//! the plugin's tab two at a time and the one whose instance holds the
//! lease leaves, each of the four ways in turn, so each leaving moves the
//! lease to the other's instance.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::{poll_for, wait_for, AttachedClient, Leaving, Mcp, Session};

/// Longest a new client takes to be listed, load its plugin instance and
/// show the plugin's tab, on a loaded machine; one that takes longer is
/// replaced.
const CLIENT_ARRIVES_WITHIN: Duration = Duration::from_secs(30);
/// Longest a client takes to show the tab its keys asked for.
const KEYS_SHOW_WITHIN: Duration = Duration::from_secs(3);
/// Longest the lease takes to move once its holder's client left: past
/// its starving time (1 s) and its staleness (3 s), with room for load.
const LEASE_MOVES_WITHIN: Duration = Duration::from_secs(20);

/// A client attached for the whole run, on a new tab without the plugin
/// (its instance gets no pane events, so it never takes the lease away).
pub struct Stayer {
    _client: AttachedClient,
    /// The away tab's panes: a client focused on one is not on the plugin's tab.
    pub away_panes: Vec<String>,
}

/// Attaches the [`Stayer`] and moves it to a new tab, "away".
pub fn stay_away(session: &Session, mcp: &Mcp) -> Stayer {
    let (client, _) = session.attach_and_wait();
    let away = mcp.ok("zellij_new_tab", json!({"name": "away"}));
    mcp.ok("zellij_focus", json!({"tab": away["tab_id"]}));
    let away_panes = away["pane_ids"]
        .as_array()
        .map(|ids| {
            ids.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    Stayer {
        _client: client,
        away_panes,
    }
}

/// Attaches clients to the plugin's tab (the first) two at a time; once
/// two are there, the one whose instance holds the lease leaves (the
/// older when neither does), each of the four ways in turn, and the next
/// comes once the lease moved. Stops when `enough` says so or `most`
/// clients came; a client that would not leave is told to `failed`.
/// `away_panes` are the [`Stayer`]'s.
pub fn churn_clients(
    session: &Session,
    away_panes: &[String],
    most: usize,
    enough: impl Fn() -> bool,
    failed: impl Fn(String),
) {
    let mut clients: VecDeque<(u64, AttachedClient)> = VecDeque::new();
    let mut leavings = Leaving::ALL.iter().cycle();
    for _ in 0..most {
        if enough() {
            break;
        }
        let arrived = match attach_to_plugin_tab(session, away_panes) {
            Ok(arrived) => arrived,
            Err(seen) => {
                eprintln!("a client did not come in time, another comes; {seen}");
                continue;
            }
        };
        clients.push_back(arrived);
        if clients.len() < 2 {
            continue;
        }
        let lease = lease_file(session.sandbox().root());
        let holder = lease.as_deref().and_then(lease_holder);
        let at = clients
            .iter()
            .position(|(id, _)| holder.is_some_and(|(_, client)| client == *id))
            .unwrap_or(0);
        let (left, leaving) = clients.remove(at).expect("a client");
        let how = *leavings.next().expect("a way to leave");
        if !leaving.leave(how) {
            failed(format!("a client did not leave ({how:?})"));
        }
        // The next comes once the lease moved and Zellij no longer lists
        // the client that left (the next may be given its id).
        poll_for(LEASE_MOVES_WITHIN, || {
            let moved = lease.as_deref().and_then(lease_holder) != holder;
            let gone = !listed_clients(session).iter().any(|(id, _)| *id == left);
            (moved && gone || enough()).then_some(())
        });
    }
}

/// A new client, once Zellij lists it, its plugin instance has loaded
/// and it shows the plugin's tab; an error saying what was seen last
/// when it did not within [`CLIENT_ARRIVES_WITHIN`].
fn attach_to_plugin_tab(
    session: &Session,
    away_panes: &[String],
) -> Result<(u64, AttachedClient), String> {
    let before = listed_clients(session);
    let mut client = session.attach_client();
    let mut seen = String::new();
    let id = poll_for(CLIENT_ARRIVES_WITHIN, || {
        // Under load `zellij attach` can miss the session's answer to its
        // liveness probe, say there is no such session and exit.
        if !client.is_running() {
            client = session.attach_client();
        }
        let listed = listed_clients(session);
        let instances = session.plugin_instances();
        seen = format!("listed {listed:?} (before {before:?}), instances {instances:?}");
        let (id, _) = listed
            .iter()
            .find(|(id, _)| !before.iter().any(|(old, _)| old == id))?;
        instances.contains(id).then_some(*id)
    })
    .ok_or_else(|| format!("not listed with an instance: {seen}"))?;
    // Tab mode, then the first tab; typed again when the client missed
    // them (keys typed as it starts can be lost).
    let mut typed: Option<Instant> = None;
    poll_for(CLIENT_ARRIVES_WITHIN, || {
        let listed = listed_clients(session);
        seen = format!("listed {listed:?}");
        let (_, focus) = listed.iter().find(|(listed, _)| *listed == id)?;
        if !away_panes.contains(focus) {
            return Some(());
        }
        if typed.is_none_or(|at| at.elapsed() > KEYS_SHOW_WITHIN) {
            client.type_keys(b"\x141");
            typed = Some(Instant::now());
        }
        None
    })
    .ok_or_else(|| format!("client {id} not on the plugin's tab: {seen}"))?;
    Ok((id, client))
}

/// Each listed client's id and focused pane (`zellij action list-clients`).
fn listed_clients(session: &Session) -> Vec<(u64, String)> {
    session
        .client_focus()
        .lines()
        .skip(1)
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let id = fields.next()?.parse().ok()?;
            Some((id, fields.next()?.to_owned()))
        })
        .collect()
}

/// Counts in `holders` the instances that held the lease in turn until
/// `stop`, from the lease file in the plugin's shared folder under `root`.
pub fn count_lease_holders(root: &Path, holders: &AtomicUsize, stop: &AtomicBool) {
    let mut last = None;
    let lease = wait_for("the lease file", Duration::from_secs(20), || {
        lease_file(root)
    });
    while !stop.load(Ordering::SeqCst) {
        let holder = lease_holder(&lease);
        if holder.is_some() && holder != last {
            holders.fetch_add(1, Ordering::SeqCst);
            last = holder;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The instance holding the `lease`: its plugin id and its client's id.
fn lease_holder(lease: &Path) -> Option<(u64, u64)> {
    let text = std::fs::read_to_string(lease).ok()?;
    let mut fields = text.split_whitespace().map(str::parse);
    Some((fields.next()?.ok()?, fields.next()?.ok()?))
}

/// `lease-<zellij pid>`, wherever Zellij keeps the plugin's `/cache`.
fn lease_file(dir: &Path) -> Option<PathBuf> {
    crate::file_under(dir, &|name| {
        name.strip_prefix("lease-")
            .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
    })
}
