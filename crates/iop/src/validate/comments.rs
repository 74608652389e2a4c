//! Comments out of the Go and protobuf sources a package's schemas are read from
//! (`gotypes`, `proto`): both languages comment alike.

/// `text` without its `// …` and `/* … */` comments, read in one pass as protoc and the Go
/// compiler read them: whichever of a comment or a literal (`"…"`, `'…'`, or Go's raw `` `…` ``)
/// starts first wins, so a `/*` inside a line comment (`// us-west/zone1/*`) or a literal starts
/// nothing. Newlines are kept, so line numbers hold; a block comment reads as a space, as both
/// compilers read it. The second value says whether every block comment and literal was closed.
pub(super) fn strip_comments(text: &str) -> (String, bool) {
    let mut out = String::with_capacity(text.len());
    let mut all_closed = true;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut closed = false;
                while let Some(c) = chars.next() {
                    if c == '\n' {
                        out.push('\n');
                    } else if c == '*' && chars.peek() == Some(&'/') {
                        chars.next();
                        closed = true;
                        break;
                    }
                }
                all_closed &= closed;
                out.push(' ');
            }
            '"' | '\'' | '`' => {
                out.push(c);
                let mut closed = false;
                while let Some(d) = chars.next() {
                    out.push(d);
                    if d == '\\' && c != '`' {
                        if let Some(e) = chars.next() {
                            out.push(e);
                        }
                    } else if d == c {
                        closed = true;
                        break;
                    } else if d == '\n' && c != '`' {
                        // Only a raw string spans lines.
                        break;
                    }
                }
                all_closed &= closed;
            }
            _ => out.push(c),
        }
    }
    (out, all_closed)
}

#[cfg(test)]
mod tests {
    use super::strip_comments;

    #[test]
    fn comments_go_and_literals_stay() {
        let cases = [
            ("a // b /* c\nd", "a \nd", true),
            ("a /* b\nc */ d", "a \n  d", true),
            (
                "s = \"// not a comment\" // one",
                "s = \"// not a comment\" ",
                true,
            ),
            ("t `json:\"x\"` // y", "t `json:\"x\"` ", true),
            ("r = '\\'' /* x */", "r = '\\''  ", true),
            ("a /* never closed", "a  ", false),
            ("s = \"open\nnext", "s = \"open\nnext", false),
        ];
        for (text, want, closed) in cases {
            assert_eq!(strip_comments(text), (want.to_string(), closed), "{text:?}");
        }
    }
}
