//! Property: no keystroke that can act later. Over any run of screens a
//! described program shows while a message is submitted, its CR goes once;
//! a further CR only for a program described as taking an early CR as a
//! new line (`cr="again"`), only while the composer holds this very
//! message, the rest of the screen has been still for a submit delay and
//! the program has drawn anew since the last CR (or a while passed), and
//! never into a dialog. A message ends unsent only while its own text
//! shows.

use std::time::{Duration, Instant};

use proptest::prelude::*;
use zellij_mcp_protocol::agent_programs::Programs;
use zellij_mcp_protocol::agent_screen::Shown;
use zellij_mcp_protocol::testing::property_config;
use zellij_mcp_protocol::PaneRef;

use crate::handlers::{PASTE_END, PASTE_START};
use crate::state::writes::{
    PendingWrite, Shows, Step, WriteDone, WriteQueue, MOST_CRS, MOST_CR_WAIT,
};
use crate::work::delivery::own_mark;

const RULE: &str = "────────────────────────────────────────";

/// The bot's descriptions, with `cr="once"` and `cr="again"`, compiled
/// once for all cases.
fn programs(again: bool) -> &'static Programs {
    static PROGRAMS: std::sync::OnceLock<[Programs; 2]> = std::sync::OnceLock::new();
    let described = |cr| Programs::with_file(&description(cr), "agents.kdl").unwrap();
    &PROGRAMS.get_or_init(|| [described("once"), described("again")])[usize::from(again)]
}

fn description(cr: &str) -> String {
    format!(
        "agent \"bot\" {{\n  programs \"bot\"\n  prompt \"›\"\n  composer start=\"^─{{20,}}$\" end=\"^─{{20,}}$\"\n  empty \"^ask me$\"\n  working \"^working\"\n  asking \"^Allow\\\\?\"\n  message multiline=\"paste\" cr=\"{cr}\"\n}}"
    )
}

/// What the composer holds on one screen.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Held {
    /// The message, as typed (and with a new line, as if a CR made one).
    Ours { new_line: bool },
    /// Text a person typed.
    Theirs,
    /// Its placeholder.
    Empty,
}

/// One screen: output above, and the composer, a dialog or nothing.
#[derive(Debug, Clone, PartialEq)]
struct Screen {
    output: Vec<&'static str>,
    working: bool,
    composer: Option<Held>,
    dialog: bool,
}

impl Screen {
    fn rows(&self) -> Vec<String> {
        let mut rows: Vec<String> = self.output.iter().map(|r| r.to_string()).collect();
        if self.working {
            rows.push("working (3s)".into());
        }
        if self.dialog {
            rows.extend(["Allow? (y/n)".into(), "› 1. Yes".into()]);
            return rows;
        }
        let Some(held) = self.composer else {
            return rows;
        };
        rows.push(RULE.into());
        match held {
            Held::Ours { new_line } => {
                rows.push("› [#7 from lead] please".into());
                rows.push("  look at this".into());
                if new_line {
                    rows.push("  ".into());
                }
            }
            Held::Theirs => rows.push("› my own words".into()),
            Held::Empty => rows.push("› ask me".into()),
        }
        rows.push(RULE.into());
        rows.push("  ~/work · model".into());
        rows
    }
}

fn screens() -> impl Strategy<Value = Vec<Screen>> {
    let output = prop::collection::vec(
        prop_oneof![Just("> earlier"), Just("done."), Just("")],
        0..4,
    );
    let held = prop_oneof![
        any::<bool>().prop_map(|new_line| Held::Ours { new_line }),
        Just(Held::Theirs),
        Just(Held::Empty),
    ];
    let screen = (
        output,
        any::<bool>(),
        prop::option::of(held),
        prop::bool::weighted(0.15),
    )
        .prop_map(|(output, working, composer, dialog)| Screen {
            output,
            working,
            composer,
            dialog,
        });
    prop::collection::vec(screen, 1..24)
}

proptest! {
    #![proptest_config(property_config())]

    #[test]
    fn no_cr_goes_but_the_submit_unless_described_and_its_text_still_shows(
        again in any::<bool>(),
        screens in screens(),
        steps in prop::collection::vec(5u64..400, 24),
    ) {
        let programs = programs(again);
        let delivery = programs.delivery(Some("bot"));
        let telling = programs.telling(Some("bot"), true, "");
        let pane = PaneRef::terminal(3);
        let bytes = [PASTE_START, b"[#7 from lead] please\nlook at this", PASTE_END].concat();
        let own = own_mark(&bytes);
        let mut queue = WriteQueue::default();
        let mut now = Instant::now();
        let delay = Duration::from_millis(100);
        queue.push(PendingWrite {
            done: WriteDone::Delivered(7),
            pane,
            tab_id: None,
            bytes,
            submit_delay: Some(delay),
        }, now);
        let mut crs: Vec<&Screen> = Vec::new();
        let mut unsent: Vec<&Screen> = Vec::new();
        // The rest of each screen a draft showed on when the queue looked,
        // and when.
        let arounds = std::cell::RefCell::new(Vec::<(u64, Instant)>::new());
        // The screen as drawn when the last CR went, where a draft showed,
        // and when it went.
        let mut drawn_at_cr: Option<u64> = None;
        let mut last_cr = now;
        for (screen, step) in screens.iter().zip(&steps) {
            now += Duration::from_millis(*step);
            let rows = screen.rows();
            let shown = Shown::of(&rows, None, Some(telling));
            let shows = Shows::of(Some(&shown), delivery, &own);
            let drawn = match shows {
                Shows::Draft { drawn, .. } => Some(drawn),
                _ => None,
            };
            let look = |_: &PendingWrite| {
                if let Shows::Draft { around, .. } = shows {
                    arounds.borrow_mut().push((around, now));
                }
                shows
            };
            for step in queue.on_timer(now, look) {
                match step {
                    Step::WriteCr(_) if !crs.is_empty() => {
                        // Still for a delay: the same since a draft
                        // looked at a delay ago or more.
                        let arounds = arounds.borrow();
                        let last = arounds.last().map(|a| a.0);
                        let since = arounds.iter().rev().take_while(|a| Some(a.0) == last).last();
                        let still = since.is_some_and(|(_, at)| now >= *at + delay);
                        prop_assert!(still, "a CR while the screen changed: {screen:?}");
                        // Drawn anew since the last CR, or long after it:
                        // one not read yet would be read with this one,
                        // two submits.
                        let anew = drawn_at_cr.is_none_or(|at_cr| drawn != Some(at_cr))
                            || now >= last_cr + MOST_CR_WAIT;
                        prop_assert!(anew, "a CR before the last was read: {screen:?}");
                        (drawn_at_cr, last_cr) = (drawn, now);
                        crs.push(screen);
                    }
                    Step::WriteCr(_) => {
                        (drawn_at_cr, last_cr) = (drawn, now);
                        crs.push(screen);
                    }
                    Step::Unsent(_) => unsent.push(screen),
                    _ => {}
                }
            }
        }
        prop_assert!(crs.len() <= usize::from(MOST_CRS));
        // Left unsent only when its own text still shows, after a CR.
        prop_assert!(unsent.len() <= 1);
        for screen in &unsent {
            let ours = matches!(screen.composer, Some(Held::Ours { .. }));
            prop_assert!(ours && !crs.is_empty(), "unsent on {:?}", screen);
        }
        prop_assert!(crs.iter().all(|s| !s.dialog), "a CR into a dialog");
        let Some((_, further)) = crs.split_first() else { return Ok(()) };
        if !again {
            prop_assert!(further.is_empty(), "{} CRs into a program that takes one", crs.len());
        }
        for screen in further {
            prop_assert!(matches!(screen.composer, Some(Held::Ours { .. })), "a CR without its text: {screen:?}");
        }
    }
}
