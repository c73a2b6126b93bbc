//! Named keys (`Enter`, `Ctrl c`, `Up`, `Esc`, `F5`, `Alt b`) to the bytes a
//! terminal sends for them.
//!
//! Modifiers may be joined by a space, `+` or `-` and are case-insensitive:
//! `Ctrl c`, `ctrl+c`, `C-c` are the same key.

/// The bytes for one named key, or an error that lists what is accepted.
pub fn key_bytes(name: &str) -> Result<Vec<u8>, String> {
    let tokens: Vec<&str> = name
        .split(|c: char| c == ' ' || c == '+' || (c == '-' && name.len() > 1))
        .filter(|t| !t.is_empty())
        .collect();
    let (last, modifiers) = match tokens.split_last() {
        Some(split) => split,
        None => return Err(unknown(name)),
    };
    let mut ctrl = false;
    let mut alt = false;
    for m in modifiers {
        match m.to_ascii_lowercase().as_str() {
            "ctrl" | "control" | "c" => ctrl = true,
            "alt" | "meta" | "m" | "option" => alt = true,
            _ => return Err(unknown(name)),
        }
    }
    let mut bytes = if ctrl {
        ctrl_byte(last).ok_or_else(|| unknown(name))?
    } else {
        base_key(last).ok_or_else(|| unknown(name))?
    };
    if alt {
        bytes.insert(0, 0x1b);
    }
    Ok(bytes)
}

fn ctrl_byte(key: &str) -> Option<Vec<u8>> {
    let mut chars = key.chars();
    let c = chars.next()?;
    if chars.next().is_some() {
        return match key.to_ascii_lowercase().as_str() {
            "space" => Some(vec![0]),
            _ => None,
        };
    }
    let byte = match c.to_ascii_lowercase() {
        c @ 'a'..='z' => c as u8 - b'a' + 1,
        '@' | ' ' => 0,
        '[' => 0x1b,
        '\\' => 0x1c,
        ']' => 0x1d,
        '^' => 0x1e,
        '_' => 0x1f,
        '?' => 0x7f,
        _ => return None,
    };
    Some(vec![byte])
}

fn base_key(key: &str) -> Option<Vec<u8>> {
    let seq: &[u8] = match key.to_ascii_lowercase().as_str() {
        "enter" | "return" | "cr" => b"\r",
        "lf" | "newline" => b"\n",
        "tab" => b"\t",
        "backtab" | "shift tab" => b"\x1b[Z",
        "esc" | "escape" => b"\x1b",
        "space" => b" ",
        "backspace" | "bs" => b"\x7f",
        "delete" | "del" => b"\x1b[3~",
        "insert" | "ins" => b"\x1b[2~",
        "up" => b"\x1b[A",
        "down" => b"\x1b[B",
        "right" => b"\x1b[C",
        "left" => b"\x1b[D",
        "home" => b"\x1b[H",
        "end" => b"\x1b[F",
        "pageup" | "pgup" => b"\x1b[5~",
        "pagedown" | "pgdn" => b"\x1b[6~",
        "f1" => b"\x1bOP",
        "f2" => b"\x1bOQ",
        "f3" => b"\x1bOR",
        "f4" => b"\x1bOS",
        "f5" => b"\x1b[15~",
        "f6" => b"\x1b[17~",
        "f7" => b"\x1b[18~",
        "f8" => b"\x1b[19~",
        "f9" => b"\x1b[20~",
        "f10" => b"\x1b[21~",
        "f11" => b"\x1b[23~",
        "f12" => b"\x1b[24~",
        _ => {
            // A single printable character stands for itself (useful with Alt).
            let mut chars = key.chars();
            let c = chars.next()?;
            if chars.next().is_some() || c.is_control() {
                return None;
            }
            return Some(c.to_string().into_bytes());
        }
    };
    Some(seq.to_vec())
}

fn unknown(name: &str) -> String {
    format!(
        "unknown key '{name}'; use names like Enter, Tab, Esc, Backspace, Up, Down, Left, Right, \
         Home, End, PageUp, PageDown, Delete, F1-F12, Space, 'Ctrl c', 'Alt b'"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_keys() {
        assert_eq!(key_bytes("Enter").unwrap(), b"\r");
        assert_eq!(key_bytes("esc").unwrap(), b"\x1b");
        assert_eq!(key_bytes("Up").unwrap(), b"\x1b[A");
        assert_eq!(key_bytes("F5").unwrap(), b"\x1b[15~");
        assert_eq!(key_bytes("Backspace").unwrap(), [0x7f]);
    }

    #[test]
    fn ctrl_in_every_spelling_is_the_control_byte() {
        for spelling in ["Ctrl c", "ctrl+c", "CTRL-C", "C-c", "Control c"] {
            assert_eq!(key_bytes(spelling).unwrap(), [3], "{spelling}");
        }
        assert_eq!(key_bytes("Ctrl d").unwrap(), [4]);
        assert_eq!(key_bytes("Ctrl Space").unwrap(), [0]);
    }

    #[test]
    fn alt_prefixes_escape() {
        assert_eq!(key_bytes("Alt b").unwrap(), b"\x1bb");
        assert_eq!(key_bytes("Alt Ctrl a").unwrap(), [0x1b, 1]);
    }

    #[test]
    fn unknown_keys_are_errors_that_list_names() {
        for bad in ["", "Hyper x", "Ctrl Enter2", "Fn", "Ctrl é"] {
            let err = key_bytes(bad).unwrap_err();
            assert!(err.contains("Enter, Tab"), "{bad}");
        }
    }

    #[test]
    fn a_lone_minus_is_a_character() {
        assert_eq!(key_bytes("-").unwrap(), b"-");
    }
}
