//! The program's bytes as text: a character split between two reads is
//! kept until its end comes, and bytes that are no UTF-8 read as U+FFFD.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_character_split_between_reads_is_whole_and_a_bad_byte_is_marked() {
        let mut decoder = Decoder::default();
        let word = "é!".as_bytes();
        assert_eq!(decoder.text(&word[..1]), "");
        assert_eq!(decoder.text(&word[1..]), "é!");
        assert_eq!(decoder.text(b"a\xffb"), "a\u{fffd}b");
    }
}
