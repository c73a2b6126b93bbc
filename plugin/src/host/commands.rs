//! The Zellij commands that carry much data (a reply's text, the bytes
//! written to a pane, a pane's screen), sent as zellij-tile sends every
//! command: a protobuf `PluginCommand`, written to stdout as a JSON array of
//! its bytes, then `host_run_plugin_command`; an answer comes back on stdin
//! the same way. zellij-tile writes and reads those arrays through serde, a
//! call per byte: in Zellij's wasm interpreter, 1.9–2.5 ms for a 10 KB
//! reply, and 0.8 ms to take in a screen of 2,000 cells. A table of each
//! byte's digits writes the reply in 0.3–0.45 ms; a screen and every event
//! are read by [`read_line_bytes`], a digit at a time (0.6 ms for that
//! screen).

use std::io::{BufRead, Write};

use prost::Message;
use zellij_tile::prelude::{PaneContents, PaneId, PaneScrollbackResponse, PluginCommand};
use zellij_tile::shim::plugin_api::event::ProtobufPaneScrollbackResponse;
use zellij_tile::shim::plugin_api::plugin_command::ProtobufPluginCommand;

#[cfg(target_arch = "wasm32")]
#[link(wasm_import_module = "zellij")]
extern "C" {
    fn host_run_plugin_command();
}

/// Never called natively (the tests use a fake host); here so it builds.
#[cfg(not(target_arch = "wasm32"))]
unsafe fn host_run_plugin_command() {}

/// `text` to the CLI pipe `pipe_id`.
pub fn cli_pipe_output(pipe_id: &str, text: &str) {
    run(PluginCommand::CliPipeOutput(
        pipe_id.to_owned(),
        text.to_owned(),
    ));
}

/// `bytes` to the pane's program, as if typed.
pub fn write_to_pane_id(bytes: Vec<u8>, pane_id: PaneId) {
    run(PluginCommand::WriteToPaneId(bytes, pane_id));
}

/// The pane's screen, as zellij-tile's `get_pane_scrollback` without its
/// scrollback gives it.
pub fn pane_screen(pane_id: PaneId) -> Result<PaneContents, String> {
    let command = PluginCommand::GetPaneScrollback {
        pane_id,
        get_full_scrollback: false,
    };
    if !run(command) {
        return Err("the command could not be sent to Zellij".into());
    }
    let answer = read_line_bytes(usize::MAX).bytes;
    let answer = ProtobufPaneScrollbackResponse::decode(answer.as_slice())
        .map_err(|e| format!("Zellij's answer did not decode: {e}"))?;
    match PaneScrollbackResponse::try_from(answer) {
        Ok(PaneScrollbackResponse::Ok(contents)) => Ok(contents),
        Ok(PaneScrollbackResponse::Err(error)) => Err(error),
        Err(e) => Err(format!("Zellij's answer did not convert: {e:?}")),
    }
}

/// Sends the command; whether it reached Zellij.
fn run(command: PluginCommand) -> bool {
    let Ok(command) = ProtobufPluginCommand::try_from(command) else {
        return false;
    };
    let line = json_array(&command.encode_to_vec());
    let mut stdout = std::io::stdout().lock();
    if stdout
        .write_all(&line)
        .and_then(|_| stdout.flush())
        .is_err()
    {
        return false;
    }
    drop(stdout);
    // SAFETY: Zellij's host function takes no arguments; it reads the
    // command just written to this plugin's stdout.
    unsafe { host_run_plugin_command() };
    true
}

/// `bytes` as serde_json writes a `Vec<u8>` (`[7,0,255]`), and a newline.
fn json_array(bytes: &[u8]) -> Vec<u8> {
    // Each byte is one 4-byte store of its digits and a comma, of which
    // the comma's place moves up by the digits' count.
    let mut out = vec![0; bytes.len() * 4 + 2];
    out[0] = b'[';
    let mut end = 1;
    for &byte in bytes {
        let (text, len) = DECIMAL[byte as usize];
        out[end..end + 4].copy_from_slice(&text);
        end += len;
    }
    if !bytes.is_empty() {
        end -= 1; // the last comma
    }
    out.truncate(end);
    out.extend_from_slice(b"]\n");
    out
}

/// Every byte's decimal digits followed by a comma, padded to 4 bytes, and
/// how many of the 4 count.
const DECIMAL: [([u8; 4], usize); 256] = {
    let mut table = [([0u8; 4], 0usize); 256];
    let mut n = 0;
    while n < 256 {
        let byte = n as u8;
        let (text, len) = if byte >= 100 {
            (
                [
                    b'0' + byte / 100,
                    b'0' + byte / 10 % 10,
                    b'0' + byte % 10,
                    b',',
                ],
                4,
            )
        } else if byte >= 10 {
            ([b'0' + byte / 10, b'0' + byte % 10, b',', 0], 3)
        } else {
            ([b'0' + byte, b',', 0, 0], 2)
        };
        table[n] = (text, len);
        n += 1;
    }
    table
};

/// Four spaces, as Zellij writes them: the padding of a cleared screen.
const SPACES: &[u8; 12] = b"32,32,32,32,";

/// The byte at the start of `text` when its number is whole and a comma
/// follows it (`7,`, `42,`, `255,`), how many times it repeats there (four
/// spaces are read at once), and how many bytes of `text` that took.
fn whole_numbers(text: &[u8]) -> Option<(u8, usize, usize)> {
    if text.starts_with(SPACES) {
        return Some((b' ', 4, SPACES.len()));
    }
    let digit = |c: u8| c.is_ascii_digit().then(|| c - b'0');
    match *text.get(..4)? {
        [a, b',', _, _] => Some((digit(a)?, 1, 2)),
        [a, b, b',', _] => Some((digit(a)? * 10 + digit(b)?, 1, 3)),
        [a, b, c, b','] => {
            let n = u16::from(digit(a)?) * 100 + u16::from(digit(b)? * 10 + digit(c)?);
            Some((u8::try_from(n).ok()?, 1, 4))
        }
        _ => None,
    }
}

/// One line of stdin's numbers, as bytes: the first `keep` of them, and
/// how many there were.
pub struct LineBytes {
    pub bytes: Vec<u8>,
    pub total: usize,
}

/// Reads one line of comma-separated decimal bytes (`[10,2,...]`) from
/// stdin, keeping at most `keep` of them. Reads to the line's end either
/// way, so the next call starts on the next line.
pub fn read_line_bytes(keep: usize) -> LineBytes {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut numbers = Numbers::new(keep);
    while let Ok(chunk) = input.fill_buf() {
        if chunk.is_empty() {
            break;
        }
        let (used, done) = numbers.take(chunk);
        input.consume(used);
        if done {
            break;
        }
    }
    numbers.finish()
}

/// The parser behind [`read_line_bytes`], fed chunk by chunk.
struct Numbers {
    keep: usize,
    bytes: Vec<u8>,
    total: usize,
    current: Option<u32>,
}

impl Numbers {
    fn new(keep: usize) -> Self {
        Numbers {
            keep,
            bytes: Vec::new(),
            total: 0,
            current: None,
        }
    }

    /// Takes a chunk; returns how much of it was used, and whether the
    /// line ended there. Whole numbers are read a word at a time (the
    /// interpreter pays per instruction, and a cleared screen is thousands
    /// of `32,`); a number split across chunks, and the line's ends, byte
    /// by byte. The number being read stays in a local: in the
    /// interpreter, each access to `self` is a load or store.
    fn take(&mut self, chunk: &[u8]) -> (usize, bool) {
        let room = self.keep.saturating_sub(self.bytes.len());
        self.bytes.reserve((chunk.len() / 2).min(room));
        let mut current = self.current.take();
        let mut at = 0;
        while at < chunk.len() {
            if current.is_none() {
                if let Some((byte, times, len)) = whole_numbers(&chunk[at..]) {
                    (0..times).for_each(|_| self.push(u32::from(byte)));
                    at += len;
                    continue;
                }
            }
            let c = chunk[at];
            at += 1;
            let digit = c.wrapping_sub(b'0');
            if digit < 10 {
                current = Some(current.unwrap_or(0).saturating_mul(10) + u32::from(digit));
                continue;
            }
            if let Some(n) = current.take() {
                self.push(n);
            }
            if c == b'\n' {
                return (at, true);
            }
        }
        self.current = current;
        (chunk.len(), false)
    }

    fn end_number(&mut self) {
        if let Some(n) = self.current.take() {
            self.push(n);
        }
    }

    fn push(&mut self, n: u32) {
        if self.total < self.keep {
            self.bytes.push(n as u8);
        }
        self.total += 1;
    }

    fn finish(mut self) -> LineBytes {
        self.end_number();
        LineBytes {
            bytes: self.bytes,
            total: self.total,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{json_array, Numbers};
    use proptest::prelude::*;

    fn parse(chunks: &[&str], keep: usize) -> (Vec<u8>, usize, Vec<bool>) {
        let mut numbers = Numbers::new(keep);
        let ends = chunks
            .iter()
            .map(|c| numbers.take(c.as_bytes()).1)
            .collect();
        let line = numbers.finish();
        (line.bytes, line.total, ends)
    }

    #[test]
    fn numbers_split_across_chunks_are_read_whole() {
        let (bytes, total, ends) = parse(&["[10,2", "55,0,", "1]\r\n"], 100);
        assert_eq!((bytes, total), (vec![10, 255, 0, 1], 4));
        assert_eq!(ends, [false, false, true]);
    }

    #[test]
    fn past_the_cap_bytes_are_counted_not_kept() {
        let (bytes, total, _) = parse(&["[1,2,3,4,5]\n"], 2);
        assert_eq!((bytes, total), (vec![1, 2], 5));
    }

    #[test]
    fn a_line_ends_at_its_newline_and_leaves_the_rest() {
        let mut numbers = Numbers::new(10);
        assert_eq!(numbers.take(b"[7]\n[8]\n"), (4, true));
        assert_eq!(numbers.finish().bytes, vec![7]);
    }

    #[test]
    fn every_byte_value_reads_back() {
        let all: Vec<u8> = (0..=255).collect();
        let line = String::from_utf8(json_array(&all)).unwrap();
        assert_eq!(serde_json::from_str::<Vec<u8>>(&line).unwrap(), all);
        assert_eq!(json_array(&[]), b"[]\n");
    }

    proptest! {
        #[test]
        fn reads_back_what_serde_json_writes_in_any_chunks(
            bytes in proptest::collection::vec(prop_oneof![Just(b' '), any::<u8>()], 0..512),
            cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..8),
        ) {
            let line = serde_json::to_string(&bytes).unwrap() + "\n";
            let mut cuts: Vec<usize> = cuts.iter().map(|c| c.index(line.len() + 1)).collect();
            cuts.extend([0, line.len()]);
            cuts.sort_unstable();
            let chunks: Vec<&str> = cuts.windows(2).map(|w| &line[w[0]..w[1]]).collect();
            let (read, total, _) = parse(&chunks, usize::MAX);
            prop_assert_eq!(total, bytes.len());
            prop_assert_eq!(read, bytes);
        }

        #[test]
        fn writes_what_serde_json_writes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let ours = json_array(&bytes);
            let theirs = serde_json::to_string(&bytes).unwrap() + "\n";
            prop_assert_eq!(ours, theirs.into_bytes());
        }
    }
}
