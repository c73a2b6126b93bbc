//! Line framing of replies, with chunking for replies too large for one message.
//!
//! A reply is serialized to JSON. When that fits in [`MAX_FRAME_BYTES`] it goes
//! out as one line. Otherwise it is cut (on char boundaries) into
//! `{"v":1,"id":..,"part":i,"parts":n,"data":".."}` lines whose `data` joined in
//! order is the reply's JSON. Keeping each message small keeps the plugin well
//! under its 16 MiB memory cap while the host copies it.

use serde::{Deserialize, Serialize};

use crate::{ErrorBody, Reply, PROTOCOL_VERSION};

/// Largest `data` carried by one output message.
pub const MAX_FRAME_BYTES: usize = 256 * 1024;

/// One line of pipe output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Frame {
    Part {
        v: u32,
        id: String,
        part: usize,
        parts: usize,
        data: String,
    },
    Whole(Reply),
}

impl Frame {
    pub fn id(&self) -> &str {
        match self {
            Frame::Part { id, .. } => id,
            Frame::Whole(reply) => &reply.id,
        }
    }
}

/// A result serialized once, straight from its typed value: the plugin
/// answers with these, so a large result (a list of 100 panes) is never a
/// tree of values first.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonText(String);

impl JsonText {
    pub fn of<T: Serialize + ?Sized>(value: &T) -> Result<Self, serde_json::Error> {
        serde_json::to_string(value).map(JsonText)
    }

    /// Text that is known to be one JSON value (a reply line we sent).
    pub fn trusted(json: &str) -> Self {
        JsonText(json.trim_end().to_owned())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The output lines (each ending in `\n`) that carry `reply`.
pub fn encode_reply(reply: &Reply) -> Vec<String> {
    frame_lines(&reply.id, reply_json(reply), MAX_FRAME_BYTES)
}

/// The output lines of an ok reply to `id` whose result is `result`; the
/// same JSON as [`encode_reply`] of `Reply::ok(id, result)`.
pub fn encode_ok(id: &str, result: &JsonText) -> Vec<String> {
    frame_lines(id, ok_json(id, result), MAX_FRAME_BYTES)
}

/// The output lines of a reply given as its JSON.
pub fn encode_json(id: &str, reply: &JsonText) -> Vec<String> {
    frame_lines(id, reply.as_str().to_owned(), MAX_FRAME_BYTES)
}

/// An ok reply's JSON, written around its result's.
pub fn ok_json(id: &str, result: &JsonText) -> String {
    let id = serde_json::Value::String(id.to_owned());
    format!(
        r#"{{"v":{PROTOCOL_VERSION},"id":{id},"ok":true,"result":{}}}"#,
        result.as_str()
    )
}

/// An error reply's JSON.
pub fn err_json(id: &str, error: ErrorBody) -> String {
    reply_json(&Reply::err(id, error))
}

fn reply_json(reply: &Reply) -> String {
    serde_json::to_string(reply).unwrap_or_else(|e| {
        // Serializing a Value tree cannot fail in practice; still never panic.
        format!(
            r#"{{"v":{PROTOCOL_VERSION},"id":{},"ok":false,"error":{{"code":"internal","message":"reply not serializable: {e}"}}}}"#,
            serde_json::Value::String(reply.id.clone())
        )
    })
}

/// `json` as one line when it fits in `limit`, else as [`Frame::Part`]s.
fn frame_lines(id: &str, json: String, limit: usize) -> Vec<String> {
    if json.len() <= limit {
        return vec![json + "\n"];
    }
    let pieces = split_on_char_boundaries(&json, limit);
    let parts = pieces.len();
    pieces
        .into_iter()
        .enumerate()
        .map(|(part, data)| {
            let frame = Frame::Part {
                v: PROTOCOL_VERSION,
                id: id.to_owned(),
                part,
                parts,
                data: data.to_owned(),
            };
            serde_json::to_string(&frame).unwrap_or_default() + "\n"
        })
        .collect()
}

fn split_on_char_boundaries(s: &str, limit: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        let mut cut = limit.min(rest.len());
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        let (head, tail) = rest.split_at(cut.max(1));
        out.push(head);
        rest = tail;
    }
    out
}

/// Rebuilds the reply to one request from output lines, dropping lines that
/// belong to any other request.
#[derive(Debug)]
pub struct Assembler {
    id: String,
    parts: Vec<Option<String>>,
    dropped: usize,
}

impl Assembler {
    pub fn new(id: impl Into<String>) -> Self {
        Assembler {
            id: id.into(),
            parts: Vec::new(),
            dropped: 0,
        }
    }

    /// Lines seen that were not for this request, or were malformed.
    pub fn dropped(&self) -> usize {
        self.dropped
    }

    /// Feeds one line; returns the reply once it is complete.
    pub fn push_line(&mut self, line: &str) -> Option<Reply> {
        let line = line.trim();
        if line.is_empty() {
            return None;
        }
        let frame: Frame = match serde_json::from_str(line) {
            Ok(frame) => frame,
            Err(_) => {
                self.dropped += 1;
                return None;
            }
        };
        if frame.id() != self.id {
            self.dropped += 1;
            return None;
        }
        match frame {
            Frame::Whole(reply) => Some(reply),
            Frame::Part {
                part, parts, data, ..
            } => self.push_part(part, parts, data),
        }
    }

    fn push_part(&mut self, part: usize, parts: usize, data: String) -> Option<Reply> {
        if parts == 0 || part >= parts || (!self.parts.is_empty() && self.parts.len() != parts) {
            self.dropped += 1;
            return None;
        }
        if self.parts.is_empty() {
            self.parts = vec![None; parts];
        }
        if self.parts[part].is_some() {
            self.dropped += 1; // a duplicate
            return None;
        }
        self.parts[part] = Some(data);
        if self.parts.iter().any(Option::is_none) {
            return None;
        }
        let json: String = self.parts.drain(..).flatten().collect();
        match serde_json::from_str(&json) {
            Ok(reply) => Some(reply),
            Err(_) => {
                self.dropped += 1;
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn small_reply_is_one_line() {
        let reply = Reply::ok("1", json!({"text": "hi"}));
        let lines = encode_reply(&reply);
        assert_eq!(lines.len(), 1);
        assert!(lines[0].ends_with('\n'));
        let mut asm = Assembler::new("1");
        assert_eq!(asm.push_line(&lines[0]), Some(reply));
    }

    #[test]
    fn large_reply_is_chunked_and_reassembled_across_multibyte_text() {
        let text = "é€😀".repeat(5_000);
        let reply = Reply::ok("big", json!({ "text": text }));
        let lines = frame_lines(&reply.id, reply_json(&reply), 1000);
        assert!(lines.len() > 10);
        assert!(lines.iter().all(|l| l.len() < 1400));
        let mut asm = Assembler::new("big");
        let mut out = None;
        // Interleave another request's lines: they must be dropped.
        for line in &lines {
            assert!(asm
                .push_line(r#"{"v":1,"id":"other","ok":true,"result":1}"#)
                .is_none());
            if let Some(r) = asm.push_line(line) {
                out = Some(r);
            }
        }
        assert_eq!(out, Some(reply));
        assert_eq!(asm.dropped(), lines.len());
    }

    #[test]
    fn an_ok_reply_around_a_serialized_result_reads_as_the_reply() {
        let result = json!({"panes": [{"pane_id": "terminal_1", "title": "a \"b\""}]});
        let lines = encode_ok("q\"1", &JsonText::of(&result).unwrap());
        let mut asm = Assembler::new("q\"1");
        assert_eq!(asm.push_line(&lines[0]), Some(Reply::ok("q\"1", result)));
    }

    #[test]
    fn duplicates_and_garbage_are_dropped() {
        let reply = Reply::ok("x", json!("a".repeat(3000)));
        let lines = frame_lines(&reply.id, reply_json(&reply), 1000);
        let mut asm = Assembler::new("x");
        assert!(asm.push_line("not json").is_none());
        assert!(asm.push_line(&lines[0]).is_none());
        assert!(asm.push_line(&lines[0]).is_none());
        let mut got = None;
        for line in &lines[1..] {
            got = asm.push_line(line).or(got);
        }
        assert_eq!(got, Some(reply));
        assert_eq!(asm.dropped(), 2);
    }
}
