//! The program's bytes as text: a character split between two reads is
//! kept until its end comes, and bytes that are no UTF-8 read as U+FFFD;
//! and the title the program gives its terminal, which the terminal
//! emulator does not keep.

#[derive(Default)]
pub struct Decoder {
    /// The start of a character cut short by the last read.
    undecoded: Vec<u8>,
}

impl Decoder {
    /// The text of `bytes`, after what the last call left undecoded.
    pub fn text(&mut self, bytes: &[u8]) -> String {
        self.undecoded.extend_from_slice(bytes);
        let mut text = String::with_capacity(self.undecoded.len());
        let mut rest = &self.undecoded[..];
        loop {
            match std::str::from_utf8(rest) {
                Ok(valid) => {
                    text.push_str(valid);
                    rest = &[];
                    break;
                }
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    text.push_str(std::str::from_utf8(valid).unwrap_or_default());
                    match e.error_len() {
                        Some(bad) => {
                            text.push(char::REPLACEMENT_CHARACTER);
                            rest = &after[bad..];
                        }
                        // A character cut short: the next read ends it.
                        None => {
                            rest = after;
                            break;
                        }
                    }
                }
            }
        }
        self.undecoded = rest.to_vec();
        text
    }
}

/// The most bytes of a title kept; the rest of a longer one is let go.
const MOST_TITLE_BYTES: usize = 1024;

/// The title the program last gave its terminal (`ESC ] 0 ;` or `ESC ] 2 ;`,
/// ended by BEL or `ESC \\`), as a pane's title is read by descriptions.
#[derive(Default)]
pub struct Title {
    /// The title as it is now.
    pub now: String,
    /// Where in an escape sequence the last text ended.
    at: Scan,
}

#[derive(Default)]
enum Scan {
    #[default]
    Text,
    Escape,
    /// An operating system command's bytes so far.
    Command(Vec<u8>),
    /// The same, then an ESC: a `\\` ends it.
    CommandEscape(Vec<u8>),
}

impl Title {
    /// Reads the titles given in `text`, the program's next text.
    pub fn see(&mut self, text: &str) {
        let mut rest = text.as_bytes();
        while !rest.is_empty() {
            if matches!(self.at, Scan::Text) {
                // Most text holds no escape: passed at a search's speed.
                let Some(escape) = rest.iter().position(|b| *b == 0x1b) else {
                    return;
                };
                rest = &rest[escape..];
            }
            let byte = rest[0];
            rest = &rest[1..];
            self.at = match (std::mem::take(&mut self.at), byte) {
                (Scan::Command(command), 0x1b) => Scan::CommandEscape(command),
                (_, 0x1b) => Scan::Escape,
                (Scan::Escape | Scan::CommandEscape(_), b']') => Scan::Command(Vec::new()),
                (Scan::Command(command), 0x07) | (Scan::CommandEscape(command), b'\\') => {
                    self.given(&command);
                    Scan::Text
                }
                (Scan::Command(mut command), byte) => {
                    if command.len() < MOST_TITLE_BYTES + 2 {
                        command.push(byte);
                    }
                    Scan::Command(command)
                }
                _ => Scan::Text,
            };
        }
    }

    fn given(&mut self, command: &[u8]) {
        let title = command
            .strip_prefix(b"0;")
            .or_else(|| command.strip_prefix(b"2;"));
        if let Some(title) = title {
            self.now = String::from_utf8_lossy(title).into_owned();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_title_given_is_kept_across_reads() {
        let mut title = Title::default();
        title.see("plain text, no title");
        assert_eq!(title.now, "");
        title.see("a\x1b]0;Working… ⠋\x07b");
        assert_eq!(title.now, "Working… ⠋");
        // Split between reads, ended by ST.
        title.see("\x1b]2;Action ");
        title.see("Required\x1b");
        assert_eq!(title.now, "Working… ⠋");
        title.see("\\rest");
        assert_eq!(title.now, "Action Required");
        // Other commands and sequences leave it.
        title.see("\x1b]8;;http://x\x07link\x1b[1mbold\x1b]1;icon\x07");
        assert_eq!(title.now, "Action Required");
        // An ESC inside a command ends it unread.
        title.see("\x1b]0;half\x1b[0m\x07");
        assert_eq!(title.now, "Action Required");
        title.see(&format!("\x1b]0;{}\x07", "x".repeat(5000)));
        assert_eq!(title.now.len(), MOST_TITLE_BYTES);
    }

    #[test]
    fn a_character_split_between_reads_is_whole_and_a_bad_byte_is_marked() {
        let mut decoder = Decoder::default();
        let word = "é!".as_bytes();
        assert_eq!(decoder.text(&word[..1]), "");
        assert_eq!(decoder.text(&word[1..]), "é!");
        assert_eq!(decoder.text(b"a\xffb"), "a\u{fffd}b");
    }
}
