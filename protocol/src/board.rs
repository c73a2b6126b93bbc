//! An agent's row as people read it: the plugin's board and `zellij-mcp
//! agents` show the same cells.

use crate::ops::{AgentRow, LastMessage, PaneState};

/// The columns, in order.
pub const COLUMNS: [&str; 11] = [
    "AGENT",
    "TAB",
    "STATE",
    "FOR",
    "HELD",
    "LAST IN",
    "LAST OUT",
    "LAST REPLY",
    "DESCRIPTION",
    "CONVERSATION",
    "REC",
];

/// The most characters of a conversation's id a row shows.
const CONVERSATION_CHARS: usize = 9;

/// The most characters of a reply's first line a row shows.
const REPLY_CHARS: usize = 40;

/// A row's cells, timed against `at_ms` (when the rows were taken).
pub fn cells(row: &AgentRow, at_ms: u64) -> [String; 11] {
    let state = match (row.state, row.exit_status) {
        (PaneState::Exited, Some(code)) => format!("exited {code}"),
        (state, _) if row.by_hooks => format!("{} (hooks)", wire_name(state)),
        (state, _) if row.by_relay => format!("{} (relay)", wire_name(state)),
        (state, _) => wire_name(state),
    };
    let held = match (row.held, row.held_because) {
        (0, _) => String::new(),
        (n, Some(why)) => format!("{n} ({})", wire_name(why)),
        (n, None) => n.to_string(),
    };
    let message = |m: &Option<LastMessage>, dir: &str| {
        m.as_ref().map_or_else(String::new, |m| {
            let ago = for_how_long(at_ms.saturating_sub(m.at_ms));
            format!("#{} {dir} {} {ago} ago", m.seq, m.peer)
        })
    };
    [
        row.label(),
        row.tab_name.clone(),
        state,
        for_how_long(at_ms.saturating_sub(row.since_ms)),
        held,
        message(&row.last_in, "from"),
        message(&row.last_out, "to"),
        row.last_reply.as_ref().map_or_else(String::new, |r| {
            let ago = for_how_long(at_ms.saturating_sub(r.at_ms));
            format!("{ago} ago: {}", cut(&r.first_line, REPLY_CHARS))
        }),
        row.described_by.clone().unwrap_or_default(),
        conversation(row),
        // Its file is in `agents --json`.
        row.recording.as_ref().map_or("", |_| "●").to_owned(),
    ]
}

/// Its conversation's id (its first characters), and how it came back
/// after its session ended.
fn conversation(row: &AgentRow) -> String {
    let id = row
        .conversation
        .as_deref()
        .map(|id| cut(id, CONVERSATION_CHARS));
    match (id, &row.back) {
        (Some(id), Some(back)) => format!("{id} {back}"),
        (Some(id), None) => id,
        (None, Some(back)) => back.clone(),
        (None, None) => String::new(),
    }
}

/// `text`, cut to `most` characters (its last one `…`) when longer.
fn cut(text: &str, most: usize) -> String {
    match text.chars().count() > most {
        true => text.chars().take(most - 1).chain(['…']).collect(),
        false => text.to_owned(),
    }
}

/// 42s, 3m, 1h05m, 2d.
pub fn for_how_long(ms: u64) -> String {
    let s = ms / 1000;
    match s {
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m", s / 60),
        3600..=86_399 => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
        _ => format!("{}d", s / 86_400),
    }
}

/// A state's or reason's name, as the protocol spells it.
fn wire_name<T: serde::Serialize>(value: T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::{HoldReason, LastReply};
    use crate::PaneRef;

    fn worker() -> AgentRow {
        AgentRow {
            pane_id: PaneRef::terminal(4),
            tab_id: 1,
            tab_name: "workers".into(),
            name: Some("main.w1".into()),
            program: Some("claude".into()),
            described_by: Some("claude-code".into()),
            state: PaneState::Asking,
            by_hooks: false,
            by_relay: false,
            since_ms: 1_000,
            exit_status: None,
            held: 2,
            held_because: Some(HoldReason::Asking),
            last_in: Some(LastMessage {
                seq: 7,
                peer: "lead".into(),
                at_ms: 1_000,
            }),
            last_out: None,
            last_reply: Some(LastReply {
                first_line: "All 12 tests pass, and the build is green again".into(),
                at_ms: 6_000,
            }),
            conversation: Some("01a21eb0-0c2c-7260-b858-94aae23a0cb2".into()),
            back: Some("resumed".into()),
            recording: Some("/rec/s-new-1-1.cast".into()),
        }
    }

    #[test]
    fn a_row_tells_state_time_held_messages_and_the_last_ones() {
        let cells_now = cells(&worker(), 126_000);
        assert_eq!(
            cells_now,
            [
                "main.w1",
                "workers",
                "asking",
                "2m",
                "2 (asking)",
                "#7 from lead 2m ago",
                "",
                "2m ago: All 12 tests pass, and the build is gre…",
                "claude-code",
                "01a21eb0… resumed",
                "●"
            ]
        );
        let mut exited = worker();
        (exited.state, exited.exit_status, exited.name) = (PaneState::Exited, Some(3), None);
        assert_eq!(
            cells(&exited, 1_000)[..3],
            ["claude", "workers", "exited 3"]
        );
        exited.held_because = Some(HoldReason::NoComposer);
        assert_eq!(cells(&exited, 1_000)[4], "2 (no_composer)");
        let scrolled = AgentRow {
            state: PaneState::Idle,
            by_hooks: true,
            ..worker()
        };
        assert_eq!(cells(&scrolled, 1_000)[2], "idle (hooks)");
        let relayed = AgentRow {
            state: PaneState::Working,
            by_relay: true,
            ..worker()
        };
        assert_eq!(cells(&relayed, 1_000)[2], "working (relay)");
    }

    #[test]
    fn durations_read_short() {
        assert_eq!(for_how_long(999), "0s");
        assert_eq!(for_how_long(61_000), "1m");
        assert_eq!(for_how_long(3_900_000), "1h05m");
        assert_eq!(for_how_long(3 * 86_400_000), "3d");
    }
}
