//! Picks the one plugin instance that acts on requests.
//!
//! Zellij runs one instance of the plugin per attached client (and keeps them
//! after the client detaches), and delivers every pipe message to all of them.
//! Exactly one must act and reply. They share the plugin's `/cache` folder,
//! where creating a file with `create_new` is atomic across instances, so:
//!
//! - A lease file `lease-<zellij_pid>` names the acting instance and a
//!   heartbeat time. The holder renews it on every request and every tick.
//! - An instance may claim the lease only when it is missing or stale (no
//!   heartbeat for [`STALE_AFTER_MS`]), and only while holding the claim lock
//!   `lease-<zellij_pid>.lock`, created with `create_new`; inside the lock it
//!   reads the lease again, so of several claimants exactly one wins.
//! - The lease is replaced by write-then-rename, so readers never see half a file.
//! - Zellij sends pane and tab events only to the instances of clients whose
//!   active tab holds the plugin. The lease records when its holder last got
//!   one (`fed`); an instance that gets events while the holder has not for
//!   [`LEASE_STARVED_AFTER_MS`] takes the lease over, so the acting instance sees
//!   the session as it is.
//!
//! - The lease alone cannot give exactly once: each instance reads it when
//!   *it* gets a message, so during a takeover the old holder may act on a
//!   message before the new one claims and the new one act on it again after,
//!   or each may find the other holding it and neither act. So an instance
//!   that holds the lease, or held it moments ago ([`HANDOVER_GRACE_MS`]),
//!   also marks the message as taken, `lease-<zellij_pid>.took/<hash>`
//!   made as a hard link to its presence file (a link, like `create_new`,
//!   fails when the name exists, and costs no new file), and acts only when
//!   it made the mark. The marks have a folder of their own, so listing the
//!   instances does not read through thousands of them.
//!
//! The zellij pid keys the files per session: `/cache` is shared by every
//! session that loads the same plugin URL.

use crate::host::files::{read_capped, RECORD_BYTES};
use crate::state::writes::PaneClaims;
use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fs::{self, OpenOptions};
use std::hash::{DefaultHasher, Hasher};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use zellij_mcp_protocol::PaneRef;

/// A lease not renewed for this long may be claimed by another instance.
pub const STALE_AFTER_MS: u64 = 3_000;
/// The holder rewrites its heartbeat when it is older than this.
pub const RENEW_AFTER_MS: u64 = 500;
/// A holder that got no session events for this long, while another
/// instance did, hands over the lease.
pub const LEASE_STARVED_AFTER_MS: u64 = 1_000;
/// An instance that lost the lease this recently still takes messages that
/// no instance took: the new holder may have passed them before it claimed.
pub const HANDOVER_GRACE_MS: u64 = STALE_AFTER_MS;
/// How long an instance keeps its marks of taken messages: far longer than
/// one instance gets behind another on the same message.
const TAKEN_KEPT_MS: u64 = 20_000;
/// Most marks an instance keeps; past it the oldest go early.
const MOST_TAKEN_KEPT: usize = 4_096;
/// How long another holder's record, once read, is taken as standing
/// without reading it again (while it cannot have gone stale or yielded):
/// with several clients, every instance checks the lease on every message.
const RESEE_AFTER_MS: u64 = LEASE_STARVED_AFTER_MS;
/// How long the holder takes its own record, once read or written, as
/// standing without reading it again (it checks the lease on every
/// message). Another instance claims only a record gone stale or starved,
/// seconds old; two instances that both act for a moment still carry out
/// each message once (the marks).
const OWN_RESEE_AFTER_MS: u64 = 100;
/// A claim lock older than this was left by an instance that died mid-claim.
const LOCK_STALE_AFTER_MS: u64 = 5_000;
/// Files of a session whose lease has not been renewed for this long are
/// removed: the session is gone (every live session renews every second).
const SWEEP_AFTER_MS: u64 = 10 * 60 * 1_000;
/// The prefix of every file a lease keeps in the shared folder.
const PREFIX: &str = "lease-";
/// Marks an instance's presence file, `lease-<pid>.instance-<plugin>-<client>`.
const INSTANCE: &str = "instance-";
/// The folder of taken messages' marks, `lease-<pid>.took`.
const TOOK: &str = "took";
/// Names a request's mark in the marks' folder, `id-<hash of the id>`.
const REQUEST: &str = "id-";
/// Names a message's mark in the marks' folder, `msg-<seq>`.
const MESSAGE: &str = "msg-";
/// The folder of panes' claims, `lease-<pid>.panes`.
const PANES: &str = "panes";
/// Longest an instance waits for a pane another holds: far longer than an
/// instance takes to finish its writes, so a claim this old was left by an
/// instance that is gone.
const MOST_CLAIM_WAIT: Duration = Duration::from_secs(10);

/// An instance: the plugin pane's id and the client it runs for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Instance {
    pub plugin_id: u32,
    pub client_id: u16,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Record {
    holder: Instance,
    heartbeat_ms: u64,
    /// When the holder last received a session event (0: never).
    fed_ms: u64,
}

impl Record {
    fn parse(text: &str) -> Option<Record> {
        let mut fields = text.split_whitespace().map(str::parse::<u64>);
        let plugin_id = u32::try_from(fields.next()?.ok()?).ok()?;
        let client_id = u16::try_from(fields.next()?.ok()?).ok()?;
        let heartbeat_ms = fields.next()?.ok()?;
        let fed_ms = fields.next().and_then(Result::ok).unwrap_or_default();
        Some(Record {
            holder: Instance {
                plugin_id,
                client_id,
            },
            heartbeat_ms,
            fed_ms,
        })
    }

    /// Whether its holder must write it again: its heartbeat is old, or
    /// the holder got a session event since.
    fn renewal_due(&self, now_ms: u64, fed_ms: u64) -> bool {
        now_ms.saturating_sub(self.heartbeat_ms) >= RENEW_AFTER_MS || fed_ms > self.fed_ms
    }

    fn render(&self) -> String {
        format!(
            "{} {} {} {}\n",
            self.holder.plugin_id, self.holder.client_id, self.heartbeat_ms, self.fed_ms
        )
    }

    /// Future heartbeats (clock steps) count as fresh.
    fn is_stale(&self, now_ms: u64) -> bool {
        now_ms.saturating_sub(self.heartbeat_ms) >= STALE_AFTER_MS
    }

    /// Whether an instance fed at `fed_ms` should replace this holder.
    fn yields_to(&self, fed_ms: u64) -> bool {
        fed_ms > self.fed_ms + LEASE_STARVED_AFTER_MS
    }

    /// Whether this record still stands against a claimant fed at `fed_ms`.
    fn stands(&self, now_ms: u64, fed_ms: u64) -> bool {
        !self.is_stale(now_ms) && !self.yields_to(fed_ms)
    }
}

/// This instance's part: its lease once loaded, its next heartbeat, and the
/// messages it took.
#[derive(Debug, Default)]
pub struct Acting {
    pub lease: Option<Lease>,
    pub next_heartbeat: Option<Instant>,
    /// Whether it held the lease at the last check.
    holding: bool,
    /// When this instance last held the lease (0: never).
    held_ms: u64,
    /// The marks this instance made, oldest first, with when.
    taken: VecDeque<(PathBuf, u64)>,
    /// The requests this instance took and has not answered, by id, with
    /// their marks (see [`Acting::takes`]).
    requests: BTreeMap<String, PathBuf>,
}

impl Acting {
    /// See [`Lease::check`]; never before the lease is loaded.
    pub fn check(&mut self, now_ms: u64, fed_ms: u64) -> bool {
        let holds = self.lease.as_ref().is_some_and(|l| l.check(now_ms, fed_ms));
        if holds {
            self.held_ms = now_ms;
        }
        self.holding = holds;
        self.forget_taken(now_ms);
        holds
    }

    /// Whether this instance held the lease at its last check.
    pub fn holding(&self) -> bool {
        self.holding
    }

    /// Whether this instance carries out the message `key` (the same bytes
    /// on every instance): it holds the lease or just lost it, and no other
    /// instance took the message first. A request's mark is named for its
    /// id (where the message names one): an instance asked about it later
    /// (a `status` or `replay`, perhaps after the lease moved) leaves the
    /// answer to the one that took it, which keeps the mark until it answers.
    pub fn takes(
        &mut self,
        key: &[&[u8]],
        request: Option<&str>,
        now_ms: u64,
        fed_ms: u64,
    ) -> bool {
        let holds = self.check(now_ms, fed_ms);
        let just_lost =
            self.held_ms != 0 && now_ms.saturating_sub(self.held_ms) < HANDOVER_GRACE_MS;
        let Some(lease) = self.lease.as_ref().filter(|_| holds || just_lost) else {
            return false;
        };
        let mark = match request {
            Some(id) => lease.request_mark(id),
            None => lease.marks_dir().join(format!("{:016x}", hash(key))),
        };
        match make_mark(&lease.presence_path(), &mark) {
            Ok(true) => {
                match request {
                    Some(id) => drop(self.requests.insert(id.to_owned(), mark)),
                    None => self.taken.push_back((mark, now_ms)),
                }
                true
            }
            Ok(false) => false,
            // Marks cannot be made here: the lease alone decides.
            Err(_) => holds,
        }
    }

    /// Request `id` is answered: its mark stays as long as the marks of
    /// taken messages, for a replay of it.
    pub fn answered_request(&mut self, id: &str, now_ms: u64) {
        if let Some(mark) = self.requests.remove(id) {
            self.taken.push_back((mark, now_ms));
        }
    }

    /// Whether this instance took request `id`, and still has its mark.
    pub fn took(&self, id: &str) -> bool {
        let Some(lease) = &self.lease else {
            return false;
        };
        let mark = lease.request_mark(id);
        self.requests.contains_key(id) || self.taken.iter().any(|(taken, _)| *taken == mark)
    }

    /// Whether another instance, loaded now, took request `id`.
    pub fn taken_elsewhere(&self, id: &str) -> bool {
        let marked = |lease: &Lease| lease.made_by_a_live_instance(&lease.request_mark(id));
        !self.took(id) && self.lease.as_ref().is_some_and(marked)
    }

    /// Whether this instance may be asked about requests it took: some are
    /// under way, or were taken lately.
    pub fn has_taken(&self) -> bool {
        !self.requests.is_empty() || !self.taken.is_empty()
    }

    /// Whether this instance types message `seq`: it marked it before, or
    /// marks it now (`msg-<seq>` among the marks). An instance that loses
    /// the lease while it types a message finishes it and logs how it
    /// ended, so while the instance that marked it is loaded no other
    /// types it again.
    pub fn types_message(&mut self, seq: u64, now_ms: u64) -> bool {
        let Some(lease) = &self.lease else {
            return true;
        };
        let mark = lease.message_mark(seq);
        if self.taken.iter().any(|(taken, _)| *taken == mark) {
            return true;
        }
        let marked = match make_mark(&lease.presence_path(), &mark) {
            Ok(false) if !lease.made_by_a_live_instance(&mark) => {
                let _ = fs::remove_file(&mark);
                make_mark(&lease.presence_path(), &mark)
            }
            marked => marked,
        };
        match marked {
            Ok(true) => {
                self.taken.push_back((mark, now_ms));
                true
            }
            Ok(false) => false,
            // Marks cannot be made here: the lease alone decides.
            Err(_) => true,
        }
    }

    /// This instance stopped typing message `seq` before it ended (its
    /// pane went away): another may type it.
    pub fn lets_message_go(&mut self, seq: u64) {
        let Some(lease) = &self.lease else {
            return;
        };
        let mark = lease.message_mark(seq);
        if let Some(at) = self.taken.iter().position(|(taken, _)| *taken == mark) {
            self.taken.remove(at);
            let _ = fs::remove_file(mark);
        }
    }

    fn forget_taken(&mut self, now_ms: u64) {
        while let Some((mark, at)) = self.taken.front() {
            let old = now_ms.saturating_sub(*at) >= TAKEN_KEPT_MS;
            if !old && self.taken.len() <= MOST_TAKEN_KEPT {
                break;
            }
            let _ = fs::remove_file(mark);
            self.taken.pop_front();
        }
    }

    pub fn instances(&self) -> Vec<u16> {
        self.lease
            .as_ref()
            .map(Lease::instances)
            .unwrap_or_default()
    }

    /// Whether a heartbeat is due at `now` (other timers land in the same
    /// event, a little early or late).
    pub fn heartbeat_due(&self, now: Instant) -> bool {
        self.next_heartbeat
            .is_none_or(|due| now + Duration::from_millis(100) >= due)
    }
}

/// This instance's view of the lease.
#[derive(Debug)]
pub struct Lease {
    me: Instance,
    dir: PathBuf,
    path: PathBuf,
    lock_path: PathBuf,
    tmp_path: PathBuf,
    /// The last record read that named another holder, and when.
    seen: Cell<Option<(Record, u64)>>,
    /// This instance's own record as last read or written, and when.
    own: Cell<Option<(Record, u64)>>,
}

impl Lease {
    pub fn new(dir: &Path, zellij_pid: u32, me: Instance) -> Self {
        let name = format!("{PREFIX}{zellij_pid}");
        Lease {
            me,
            dir: dir.to_path_buf(),
            path: dir.join(&name),
            lock_path: dir.join(format!("{name}.lock")),
            tmp_path: dir.join(format!("{name}.{}-{}.tmp", me.plugin_id, me.client_id)),
            seen: Cell::new(None),
            own: Cell::new(None),
        }
    }

    /// Notes that this instance is loaded; its file goes with the session's.
    /// A new file each time, so the marks of an instance that was loaded
    /// before under the same name (a reload) are told from this one's.
    pub fn announce(&self) {
        let _ = fs::remove_file(self.presence_path());
        let _ = fs::write(self.presence_path(), "");
    }

    /// Whether `mark` was made by an instance loaded now: it is a link to
    /// one of the presence files (see [`make_mark`]).
    fn made_by_a_live_instance(&self, mark: &Path) -> bool {
        let Some(made_by) = file_id(mark) else {
            return false;
        };
        let prefix = format!("{}.{INSTANCE}", self.file_name());
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return false;
        };
        entries.flatten().any(|e| {
            e.file_name().to_string_lossy().starts_with(&prefix)
                && file_id(&e.path()) == Some(made_by)
        })
    }

    /// The clients whose instance of this plugin has loaded in this session.
    pub fn instances(&self) -> Vec<u16> {
        let prefix = format!("{}.{INSTANCE}{}-", self.file_name(), self.me.plugin_id);
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut clients: Vec<u16> = entries
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                name.strip_prefix(&prefix)?.parse().ok()
            })
            .collect();
        clients.sort_unstable();
        clients
    }

    /// A file of this session's beside the lease, swept with it.
    pub fn file_beside(&self, suffix: &str) -> PathBuf {
        self.dir.join(format!("{}.{suffix}", self.file_name()))
    }

    fn marks_dir(&self) -> PathBuf {
        self.file_beside(TOOK)
    }

    /// The mark of the instance that took request `id`.
    fn request_mark(&self, id: &str) -> PathBuf {
        let key = format!("{REQUEST}{:016x}", hash(&[id.as_bytes()]));
        self.marks_dir().join(key)
    }

    /// The mark of the instance that types message `seq`.
    fn message_mark(&self, seq: u64) -> PathBuf {
        self.marks_dir().join(format!("{MESSAGE}{seq}"))
    }

    /// This instance's claims on panes, beside the lease.
    pub fn pane_claims(&self) -> FileClaims {
        FileClaims {
            dir: self.file_beside(PANES),
            presence: self.presence_path(),
            most_wait: MOST_CLAIM_WAIT,
            held: BTreeSet::new(),
            asked: BTreeMap::new(),
        }
    }

    fn file_name(&self) -> String {
        self.path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    fn presence_path(&self) -> PathBuf {
        let name = format!(
            "{}.{INSTANCE}{}-{}",
            self.file_name(),
            self.me.plugin_id,
            self.me.client_id
        );
        self.dir.join(name)
    }

    /// Whether this instance acts now, given when it last got a session
    /// event. Renews the lease when held, and claims it when missing, stale,
    /// or held by an instance that gets no events while this one does.
    pub fn check(&self, now_ms: u64, fed_ms: u64) -> bool {
        // A holder's heartbeat and fed time only grow: a record that stood
        // moments ago against this instance still does.
        if let Some((rec, read_ms)) = self.seen.get() {
            let recent = now_ms.saturating_sub(read_ms) < RESEE_AFTER_MS;
            if recent && rec.stands(now_ms, fed_ms) {
                return false;
            }
        }
        if let Some((rec, read_ms)) = self.own.get() {
            let recent = now_ms.saturating_sub(read_ms) < OWN_RESEE_AFTER_MS;
            if recent && !rec.renewal_due(now_ms, fed_ms) {
                return true;
            }
        }
        self.seen.set(None);
        self.own.set(None);
        match self.read() {
            Some(rec) if rec.holder == self.me && !rec.is_stale(now_ms) => {
                let kept = match rec.renewal_due(now_ms, fed_ms) {
                    true => self.write(now_ms, fed_ms),
                    false => Some(rec),
                };
                self.own.set(kept.map(|rec| (rec, now_ms)));
                true
            }
            Some(rec) if rec.stands(now_ms, fed_ms) => {
                self.seen.set(Some((rec, now_ms)));
                false
            }
            _ => self.claim(now_ms, fed_ms),
        }
    }

    fn claim(&self, now_ms: u64, fed_ms: u64) -> bool {
        let lock = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&self.lock_path);
        match lock {
            Ok(mut file) => {
                let _ = file.write_all(format!("{now_ms}\n").as_bytes());
                let won = match self.read() {
                    Some(rec) if rec.stands(now_ms, fed_ms) => rec.holder == self.me,
                    _ => {
                        let written = self.write(now_ms, fed_ms);
                        self.own.set(written.map(|rec| (rec, now_ms)));
                        written.is_some()
                    }
                };
                let _ = fs::remove_file(&self.lock_path);
                won
            }
            Err(_) => {
                self.clear_abandoned_lock(now_ms);
                false
            }
        }
    }

    fn clear_abandoned_lock(&self, now_ms: u64) {
        let taken_at =
            read_capped(&self.lock_path, RECORD_BYTES).and_then(|t| t.trim().parse::<u64>().ok());
        if let Some(taken_at) = taken_at {
            if now_ms.saturating_sub(taken_at) >= LOCK_STALE_AFTER_MS {
                let _ = fs::remove_file(&self.lock_path);
            }
        }
    }

    /// Removes the files of sessions long gone. `/cache` is shared by every
    /// session that loads this plugin URL, and outlives them.
    pub fn sweep(dir: &Path, now_ms: u64) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        let names: Vec<String> = entries
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|name| name.starts_with(PREFIX))
            .collect();
        // Decide for every file before removing any: a temp file's fate
        // follows its session's lease.
        let gone: Vec<&String> = names
            .iter()
            .filter(|name| {
                let session = name.split('.').next().unwrap_or(name);
                let record = read_capped(&dir.join(session), RECORD_BYTES)
                    .and_then(|text| Record::parse(&text));
                match record {
                    Some(record) => now_ms.saturating_sub(record.heartbeat_ms) >= SWEEP_AFTER_MS,
                    // A lock or temp file without its lease: old ones are leftovers.
                    None => is_older_than(&dir.join(name), SWEEP_AFTER_MS),
                }
            })
            .collect();
        for name in &gone {
            let path = dir.join(name);
            let _ = fs::remove_file(&path).or_else(|_| fs::remove_dir_all(&path));
        }
        let live_marks = names
            .iter()
            .filter(|name| name.ends_with(&format!(".{TOOK}")) && !gone.contains(name));
        for marks in live_marks {
            remove_old_marks(&dir.join(marks));
        }
    }

    fn read(&self) -> Option<Record> {
        Record::parse(&read_capped(&self.path, RECORD_BYTES)?)
    }

    /// This instance's record, written; `None` when it could not be.
    fn write(&self, now_ms: u64, fed_ms: u64) -> Option<Record> {
        let record = Record {
            holder: self.me,
            heartbeat_ms: now_ms,
            fed_ms,
        };
        let written = fs::write(&self.tmp_path, record.render()).is_ok()
            && fs::rename(&self.tmp_path, &self.path).is_ok();
        written.then_some(record)
    }
}

/// Panes an instance types into, claimed in the shared folder: the name
/// `lease-<pid>.panes/<pane>`, made (as the marks of taken messages are)
/// only where no other instance holds it, and removed when let go.
#[derive(Debug)]
pub struct FileClaims {
    dir: PathBuf,
    presence: PathBuf,
    most_wait: Duration,
    /// The panes this instance holds.
    held: BTreeSet<PaneRef>,
    /// Panes another instance held when this one first asked, and when.
    asked: BTreeMap<PaneRef, Instant>,
}

impl PaneClaims for FileClaims {
    fn claim(&mut self, pane: PaneRef) -> bool {
        if self.held.contains(&pane) {
            return true;
        }
        let path = self.dir.join(pane.to_string());
        let free = match make_mark(&self.presence, &path) {
            // Claims cannot be made here: this instance goes on alone.
            Ok(true) | Err(_) => true,
            Ok(false) => {
                let since = *self.asked.entry(pane).or_insert_with(Instant::now);
                since.elapsed() >= self.most_wait
                    && fs::remove_file(&path).is_ok()
                    && make_mark(&self.presence, &path).unwrap_or(true)
            }
        };
        if free {
            self.asked.remove(&pane);
            self.held.insert(pane);
        }
        free
    }

    fn release(&mut self, pane: PaneRef) {
        if self.held.remove(&pane) {
            let _ = fs::remove_file(self.dir.join(pane.to_string()));
        }
    }
}

/// The same on every instance: they run the same build.
fn hash(parts: &[&[u8]]) -> u64 {
    let mut hasher = DefaultHasher::new();
    for part in parts {
        hasher.write(part);
        hasher.write_u8(0xff);
    }
    hasher.finish()
}

/// Removes the marks in `folder` that their instance did not: it died.
/// A request's mark stays: its request may be under way for long.
fn remove_old_marks(folder: &Path) {
    for mark in fs::read_dir(folder).into_iter().flatten().flatten() {
        let of_request = mark.file_name().to_string_lossy().starts_with(REQUEST);
        if !of_request && is_older_than(&mark.path(), TAKEN_KEPT_MS) {
            let _ = fs::remove_file(mark.path());
        }
    }
}

/// Makes `mark` (and its folder) unless it exists; whether this call made
/// it, so `Ok(false)` when another instance made it first. A mark is a
/// hard link to `source` (this instance's presence file): a name only,
/// where a new file would cost the file system a new inode on every
/// request (on ext4 about a quarter of the Zellij server's time under
/// load). A new empty file where a link cannot be made.
fn make_mark(source: &Path, mark: &Path) -> std::io::Result<bool> {
    let taken = |made: std::io::Result<()>| match made {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e),
    };
    let link = || taken(fs::hard_link(source, mark));
    let linked = match link() {
        Err(e) if e.kind() == ErrorKind::NotFound => {
            fs::create_dir_all(mark.parent().unwrap_or(mark))?;
            link()
        }
        linked => linked,
    };
    // No presence file, or no links here: a file of its own.
    linked.or_else(|_| {
        let create = OpenOptions::new().write(true).create_new(true).open(mark);
        taken(create.map(drop))
    })
}

/// Tells the file `path` names from others, under any of its names: the
/// moment it was made (presence files are made anew, and never written
/// again; files made within one tick of the file system's clock look
/// alike). WASI's inode number is not stable Rust.
fn file_id(path: &Path) -> Option<std::time::SystemTime> {
    fs::metadata(path).and_then(|m| m.modified()).ok()
}

fn is_older_than(path: &Path, ms: u64) -> bool {
    fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age.as_millis() as u64 >= ms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::shared_dir;

    fn instance(client_id: u16) -> Instance {
        Instance {
            plugin_id: 1,
            client_id,
        }
    }

    #[test]
    fn exactly_one_of_many_instances_acts() {
        let dir = shared_dir("one");
        let leases: Vec<Lease> = (1..=4).map(|c| Lease::new(&dir, 9, instance(c))).collect();
        for now in [1_000, 1_400, 2_000, 2_900] {
            let acting: Vec<_> = leases.iter().filter(|l| l.check(now, 0)).collect();
            assert_eq!(acting.len(), 1, "at {now}");
            assert_eq!(acting[0].me, instance(1));
        }
    }

    #[test]
    fn the_holder_reads_its_record_again_after_a_moment_or_at_once_when_it_must_renew_it() {
        let dir = shared_dir("own");
        let (a, b) = (
            Lease::new(&dir, 9, instance(1)),
            Lease::new(&dir, 9, instance(2)),
        );
        assert!(a.check(1_000, 0));
        // Another holder's record, as a takeover writes it.
        b.write(1_010, 0);
        assert!(a.check(1_050, 0), "its own record, read moments ago");
        assert!(
            !a.check(1_000 + OWN_RESEE_AFTER_MS, 0),
            "read again: b holds it"
        );
        let dir = shared_dir("own-fed");
        let (a, b) = (
            Lease::new(&dir, 9, instance(1)),
            Lease::new(&dir, 9, instance(2)),
        );
        assert!(a.check(1_000, 0));
        b.write(1_010, 1_010);
        assert!(!a.check(1_020, 1_015), "an event to write down: read first");
    }

    #[test]
    fn a_request_is_left_to_the_instance_that_took_it_while_that_one_is_loaded() {
        let dir = shared_dir("requests");
        let acting = |client| {
            let lease = Lease::new(&dir, 9, instance(client));
            lease.announce();
            Acting {
                lease: Some(lease),
                ..Acting::default()
            }
        };
        // Files made within one tick of the file system's clock look alike.
        let mut a = acting(1);
        std::thread::sleep(Duration::from_millis(10));
        let b = acting(2);
        assert!(a.takes(&[b"m"], Some("r1"), 1_000, 0));
        assert!(a.took("r1") && !a.taken_elsewhere("r1"));
        assert!(b.taken_elsewhere("r1") && !b.taken_elsewhere("r2"));
        // The first is loaded again (a reload): its marks are nobody's.
        std::thread::sleep(Duration::from_millis(10));
        let _reloaded = acting(1);
        assert!(!b.taken_elsewhere("r1"));
    }

    #[test]
    fn one_instance_at_a_time_holds_a_pane_and_a_claim_left_behind_is_taken_over() {
        let dir = shared_dir("claims");
        let (a, b) = (
            Lease::new(&dir, 9, instance(1)),
            Lease::new(&dir, 9, instance(2)),
        );
        a.announce();
        b.announce();
        let (mut a, mut b) = (a.pane_claims(), b.pane_claims());
        let pane = PaneRef::terminal(3);
        assert!(a.claim(pane));
        assert!(a.claim(pane), "held already");
        assert!(!b.claim(pane));
        assert!(b.claim(PaneRef::terminal(4)), "another pane is free");
        a.release(pane);
        assert!(b.claim(pane));
        assert!(!a.claim(pane));
        // An instance gone with its claim: taken over after the longest wait.
        a.most_wait = Duration::from_millis(30);
        std::thread::sleep(Duration::from_millis(40));
        assert!(a.claim(pane));
        b.held.clear();
        assert!(!b.claim(pane));
    }

    #[test]
    fn a_silent_holder_is_replaced_after_the_stale_time_and_steps_down() {
        let dir = shared_dir("stale");
        let a = Lease::new(&dir, 9, instance(1));
        let b = Lease::new(&dir, 9, instance(2));
        assert!(a.check(0, 0));
        assert!(!b.check(STALE_AFTER_MS - 1, 0));
        assert!(b.check(STALE_AFTER_MS, 0));
        assert!(
            !a.check(STALE_AFTER_MS + 1, 0),
            "the old holder must step down"
        );
    }

    #[test]
    fn another_holder_read_moments_ago_stands_without_a_read_until_it_could_lapse() {
        let dir = shared_dir("seen");
        let a = Lease::new(&dir, 9, instance(1));
        let b = Lease::new(&dir, 9, instance(2));
        assert!(a.check(0, 0));
        assert!(!b.check(10, 0));
        // The file goes (a holder that died and was swept): b goes by what
        // it read for a while, and reads again once that could have lapsed.
        fs::remove_file(&a.path).unwrap();
        assert!(!b.check(RESEE_AFTER_MS - 1, 0));
        assert!(b.check(RESEE_AFTER_MS + 10, 0));
        // What b read no longer stands once b is fed well after the holder.
        let c = Lease::new(&dir, 9, instance(3));
        assert!(!c.check(RESEE_AFTER_MS + 20, 0));
        assert!(c.check(
            RESEE_AFTER_MS + 30,
            RESEE_AFTER_MS + LEASE_STARVED_AFTER_MS + 30
        ));
    }

    #[test]
    fn sessions_do_not_share_a_lease() {
        let dir = shared_dir("sessions");
        assert!(Lease::new(&dir, 1, instance(1)).check(0, 0));
        assert!(Lease::new(&dir, 2, instance(2)).check(0, 0));
    }

    #[test]
    fn a_held_claim_lock_blocks_claims_until_it_is_abandoned() {
        let dir = shared_dir("lock");
        let a = Lease::new(&dir, 9, instance(1));
        fs::write(&a.lock_path, "0\n").unwrap();
        assert!(!a.check(10, 0), "someone else is mid-claim");
        assert!(
            !a.check(LOCK_STALE_AFTER_MS, 0),
            "this check clears the abandoned lock"
        );
        assert!(a.check(LOCK_STALE_AFTER_MS + 1, 0));
    }

    #[test]
    fn an_instance_that_gets_session_events_takes_over_from_one_that_does_not() {
        let dir = shared_dir("fed");
        let headless = Lease::new(&dir, 9, instance(1));
        let viewer = Lease::new(&dir, 9, instance(2));
        assert!(headless.check(0, 100));
        assert!(
            !viewer.check(500, 900),
            "fed about as recently: no takeover"
        );
        assert!(viewer.check(2_000, 2_000), "the holder has been starved");
        assert!(!headless.check(2_100, 100));
        assert!(
            !headless.check(2_200, 2_150),
            "now both are fed: no flapping"
        );
        assert!(viewer.check(2_300, 2_150));
    }

    fn acting(dir: &Path, client_id: u16) -> Acting {
        Acting {
            lease: Some(Lease::new(dir, 9, instance(client_id))),
            ..Acting::default()
        }
    }

    #[test]
    fn a_message_seen_on_both_sides_of_a_takeover_is_carried_out_once() {
        let dir = shared_dir("took-twice");
        let (mut old, mut new) = (acting(&dir, 1), acting(&dir, 2));
        let message: &[&[u8]] = &[b"pipe-1", b"payload"];
        assert!(old.takes(message, None, 0, 100), "the holder takes it");
        assert!(
            new.check(2_000, 2_000),
            "then the other takes the lease over"
        );
        assert!(
            !new.takes(message, None, 2_001, 2_000),
            "and must not do it again"
        );
        assert!(new.takes(&[b"pipe-2", b"payload"], None, 2_002, 2_000));
    }

    #[test]
    fn a_message_both_passed_while_the_lease_changed_hands_is_not_lost() {
        let dir = shared_dir("took-none");
        let (mut old, mut new) = (acting(&dir, 1), acting(&dir, 2));
        assert!(old.check(1_000, 1_000));
        let message: &[&[u8]] = &[b"pipe-1", b"payload"];
        assert!(
            !new.takes(message, None, 1_500, 1_600),
            "the lease stands: not its turn"
        );
        assert!(new.check(3_000, 3_000));
        assert!(
            old.takes(message, None, 3_001, 1_000),
            "the old holder just lost it"
        );
        assert!(
            !old.takes(
                &[b"pipe-2", b"payload"],
                None,
                1_000 + HANDOVER_GRACE_MS,
                1_000
            ),
            "long after losing it, it leaves messages alone"
        );
    }

    #[test]
    fn marks_are_removed_when_old_or_too_many() {
        let dir = shared_dir("took-gone");
        let mut only = acting(&dir, 1);
        let marks = |dir: &Path| {
            let folder = dir.join(format!("{PREFIX}9.{TOOK}"));
            fs::read_dir(folder).unwrap().count()
        };
        for n in 0..MOST_TAKEN_KEPT + 10 {
            assert!(only.takes(&[&n.to_le_bytes()], None, 1_000, 0));
        }
        only.check(1_000, 0);
        assert_eq!(marks(&dir), MOST_TAKEN_KEPT);
        only.check(1_000 + TAKEN_KEPT_MS, 0);
        assert_eq!(marks(&dir), 0);
    }

    #[test]
    fn a_mark_is_another_name_for_the_instance_s_presence_file() {
        use std::os::unix::fs::MetadataExt;
        let dir = shared_dir("took-linked");
        let mut only = acting(&dir, 1);
        only.lease.as_ref().unwrap().announce();
        assert!(only.takes(&[b"m"], None, 1_000, 0));
        assert!(!only.takes(&[b"m"], None, 1_000, 0), "taken once");
        let presence = only.lease.as_ref().unwrap().presence_path();
        let (mark, _) = only.taken.front().unwrap();
        let inode = |path: &Path| fs::metadata(path).unwrap().ino();
        assert_eq!(inode(mark), inode(&presence), "no new file");
    }

    #[test]
    fn garbage_in_the_lease_file_counts_as_no_lease() {
        let dir = shared_dir("garbage");
        let a = Lease::new(&dir, 9, instance(1));
        fs::write(&a.path, "not a lease").unwrap();
        assert!(a.check(5, 0));
    }

    #[test]
    fn loaded_instances_are_counted_per_session() {
        let dir = shared_dir("instances");
        let a = Lease::new(&dir, 1, instance(1));
        let b = Lease::new(&dir, 1, instance(2));
        let other = Lease::new(&dir, 2, instance(1));
        assert!(a.instances().is_empty());
        a.announce();
        b.announce();
        b.announce();
        other.announce();
        assert_eq!((a.instances(), other.instances()), (vec![1, 2], vec![1]));
    }

    #[test]
    fn the_files_of_sessions_long_gone_are_swept() {
        let dir = shared_dir("sweep");
        let now = SWEEP_AFTER_MS * 3;
        let gone = Lease::new(&dir, 1, instance(1));
        assert!(gone.check(now - SWEEP_AFTER_MS - 1, 0));
        fs::write(dir.join("lease-1.7-1.tmp"), "left over").unwrap();
        let live = Lease::new(&dir, 2, instance(1));
        assert!(live.check(now - 1_000, 0));
        fs::write(dir.join("unrelated"), "kept").unwrap();
        let mark = |session: u32, name: &str, age: Duration| {
            let folder = dir.join(format!("{PREFIX}{session}.{TOOK}"));
            fs::create_dir_all(&folder).unwrap();
            let file = fs::File::create(folder.join(name)).unwrap();
            file.set_modified(std::time::SystemTime::now() - age)
                .unwrap();
        };
        mark(1, "gone-with-its-session", Duration::ZERO);
        mark(2, "fresh", Duration::ZERO);
        mark(
            2,
            "left-by-a-dead-instance",
            Duration::from_millis(TAKEN_KEPT_MS * 2),
        );
        Lease::sweep(&dir, now);
        assert_eq!(
            crate::tests::file_names(&dir),
            ["lease-2", "lease-2.took", "unrelated"]
        );
        assert_eq!(
            crate::tests::file_names(&dir.join("lease-2.took")),
            ["fresh"]
        );
    }
}
