//! A description's reading of a screen in words, for a person writing or
//! fixing one (`zellij-mcp agents --explain`): which rows were taken as
//! the composer, its draft or placeholder, the working sign and the
//! dialog, and which pattern matched each; or why none was found.

use super::{Description, Hit, NoComposer, Pattern, Reading};
use crate::agent_programs::AgentScreen;

/// The state's name as the tools say it.
pub fn state_name(state: Option<AgentScreen>) -> &'static str {
    match state {
        Some(AgentScreen::Idle) => "idle",
        Some(AgentScreen::Working | AgentScreen::Busy) => "working",
        Some(AgentScreen::Draft) => "draft",
        Some(AgentScreen::Asking) => "asking",
        None => "unknown",
    }
}

fn quoted(patterns: &[Pattern]) -> String {
    let texts: Vec<String> = patterns.iter().map(|p| format!("{:?}", p.text)).collect();
    match texts.is_empty() {
        true => "none".to_owned(),
        false => texts.join(", "),
    }
}

impl Description {
    /// What this description makes of the screen `rows` under `title`,
    /// line by line (rows are numbered from 1, as on the screen).
    pub fn explain<S: AsRef<str>>(
        &self,
        rows: &[S],
        cursor: Option<(usize, usize)>,
        title: &str,
    ) -> Vec<String> {
        let rows: Vec<&str> = rows.iter().map(AsRef::as_ref).collect();
        let reading = self.read_at(&rows, cursor, title);
        let row = |i: usize| format!("row {} {:?}", i + 1, rows[i].trim());
        let mut lines = vec![format!("{}: {}", self.label(), state_name(reading.state))];
        lines.push(format!(
            "  looked at rows {}-{} (the last {} rows with text)",
            (reading.region + 1).min(rows.len()),
            rows.len(),
            self.rows
        ));
        lines.extend(self.composer_lines(&reading, &row));
        let asking_where = match &reading.composer {
            Ok(c) => format!("row at or under row {}", c.rows.start + 1),
            Err(_) => "row anywhere (no composer)".to_owned(),
        };
        let signs = [
            (
                "asking",
                &reading.asking,
                &self.asking,
                asking_where.as_str(),
            ),
            ("working", &reading.working, &self.working, "row"),
        ];
        for (state, hit, signs, rows_looked) in signs {
            lines.push(match hit {
                Some(hit) => format!("  {state}: {}", hit_words(hit, &row)),
                None => format!(
                    "  {state}: no {rows_looked} matched {}; title {title:?} matched none of {}",
                    quoted(&signs.rows),
                    quoted(&signs.title)
                ),
            });
        }
        if reading.state == Some(AgentScreen::Busy) {
            lines.push("  no composer while working: messages wait for it".to_owned());
        }
        lines
    }

    fn composer_lines(&self, reading: &Reading, row: &dyn Fn(usize) -> String) -> Vec<String> {
        let prompts: Vec<String> = self.prompt.iter().map(|p| format!("{p:?}")).collect();
        let prompts = prompts.join(", ");
        let composer = match &reading.composer {
            Ok(composer) => composer,
            Err(why) => {
                let why = match why {
                    NoComposer::NoEnd => format!(
                        "no row matched its end {:?}",
                        self.end.as_ref().map_or("", |p| p.text.as_str())
                    ),
                    NoComposer::NoStart => format!(
                        "no row right above the end row matched its start {:?} with a prompt sign ({prompts}) under it",
                        self.start.as_ref().map_or("", |p| p.text.as_str())
                    ),
                    NoComposer::NoPrompt => {
                        format!("no row starts with a prompt sign ({prompts}) and a blank")
                    }
                    NoComposer::LastRowNoPrompt => format!(
                        "the last row does not start with a prompt sign ({prompts}) and a blank"
                    ),
                };
                return vec![format!("  composer: none: {why}")];
            }
        };
        let (top, bottom) = (composer.rows.start + 1, composer.rows.end);
        let mut lines = vec![format!("  composer: rows {top}-{bottom}")];
        for (i, text, not_draft) in &composer.text {
            lines.push(match (text.is_empty(), not_draft) {
                (true, _) => format!("    {}: empty", row(*i)),
                (false, Some(why)) => format!("    {}: not a draft, {why}", row(*i)),
                (false, None) => format!(
                    "    {}: a draft, no empty pattern matched ({})",
                    row(*i),
                    quoted(&self.empty)
                ),
            });
        }
        lines
    }
}

fn hit_words(hit: &Hit, row: &dyn Fn(usize) -> String) -> String {
    match hit {
        Hit::Row(i, pattern) => format!("{} matched {pattern:?}", row(*i)),
        Hit::Title(pattern) => format!("the title matched {pattern:?}"),
    }
}
