//! The glob syntax of `.Files.Glob` (github.com/gobwas/glob with `/` as separator): `*` is any
//! run of characters but `/`, `**` any run at all, `?` one character but `/`, `[abc]`, `[a-z]`,
//! `[!x]` classes, `{a,b}` alternatives (nested allowed), `\` escapes. A pattern that does not
//! compile matches everything, as Helm falls back to `**`.

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Literal(char),
    /// `*` (`false`) or `**` (`true`).
    Any(bool),
    One,
    Class {
        negate: bool,
        ranges: Vec<(char, char)>,
    },
    Alternatives(Vec<Vec<Token>>),
}

/// A compiled pattern.
#[derive(Debug, Clone)]
pub struct Glob {
    tokens: Option<Vec<Token>>,
}

impl Glob {
    pub fn compile(pattern: &str) -> Glob {
        let chars: Vec<char> = pattern.chars().collect();
        let mut pos = 0;
        let tokens = parse(&chars, &mut pos, false).filter(|_| pos == chars.len());
        Glob { tokens }
    }

    pub fn matches(&self, name: &str) -> bool {
        let Some(tokens) = &self.tokens else {
            return true;
        };
        let name: Vec<char> = name.chars().collect();
        match_tokens(tokens, &name)
    }
}

/// Parses up to the end (or, inside `{}`, up to an unescaped `,` or `}`, left unread).
fn parse(chars: &[char], pos: &mut usize, nested: bool) -> Option<Vec<Token>> {
    let mut out = Vec::new();
    while let Some(&c) = chars.get(*pos) {
        match c {
            ',' | '}' if nested => return Some(out),
            '}' => return None,
            '*' => {
                *pos += 1;
                if chars.get(*pos) == Some(&'*') {
                    *pos += 1;
                    out.push(Token::Any(true));
                } else {
                    out.push(Token::Any(false));
                }
            }
            '?' => {
                *pos += 1;
                out.push(Token::One);
            }
            '\\' => {
                let escaped = *chars.get(*pos + 1)?;
                *pos += 2;
                out.push(Token::Literal(escaped));
            }
            '[' => {
                *pos += 1;
                let negate = chars.get(*pos) == Some(&'!');
                if negate {
                    *pos += 1;
                }
                let mut ranges = Vec::new();
                loop {
                    let c = *chars.get(*pos)?;
                    *pos += 1;
                    if c == ']' {
                        break;
                    }
                    if chars.get(*pos) == Some(&'-')
                        && chars.get(*pos + 1).is_some_and(|&h| h != ']')
                    {
                        let hi = chars[*pos + 1];
                        *pos += 2;
                        ranges.push((c, hi));
                    } else {
                        ranges.push((c, c));
                    }
                }
                out.push(Token::Class { negate, ranges });
            }
            '{' => {
                *pos += 1;
                let mut alternatives = Vec::new();
                loop {
                    alternatives.push(parse(chars, pos, true)?);
                    match chars.get(*pos)? {
                        ',' => *pos += 1,
                        _ => {
                            *pos += 1;
                            break;
                        }
                    }
                }
                out.push(Token::Alternatives(alternatives));
            }
            c => {
                *pos += 1;
                out.push(Token::Literal(c));
            }
        }
    }
    if nested { None } else { Some(out) }
}

fn match_tokens(tokens: &[Token], name: &[char]) -> bool {
    let Some((first, rest)) = tokens.split_first() else {
        return name.is_empty();
    };
    match first {
        Token::Literal(c) => name.first() == Some(c) && match_tokens(rest, &name[1..]),
        Token::One => name.first().is_some_and(|&c| c != '/') && match_tokens(rest, &name[1..]),
        Token::Class { negate, ranges } => {
            name.first().is_some_and(|&c| {
                let inside = ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi);
                inside != *negate
            }) && match_tokens(rest, &name[1..])
        }
        Token::Any(cross) => {
            for k in 0..=name.len() {
                if match_tokens(rest, &name[k..]) {
                    return true;
                }
                if k < name.len() && name[k] == '/' && !cross {
                    return false;
                }
            }
            false
        }
        Token::Alternatives(alternatives) => alternatives.iter().any(|alt| {
            let mut joined = alt.clone();
            joined.extend_from_slice(rest);
            match_tokens(&joined, name)
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::Glob;

    #[test]
    fn gobwas_syntax() {
        let m = |p: &str, n: &str| Glob::compile(p).matches(n);
        assert!(m("files/*", "files/a.txt"));
        assert!(!m("files/*", "files/sub/a.txt"));
        assert!(m("files/**", "files/sub/a.txt"));
        assert!(m("**.txt", "a/b/c.txt"));
        assert!(m("files/?.txt", "files/a.txt"));
        assert!(m("files/[a-c].txt", "files/b.txt"));
        assert!(!m("files/[!a-c].txt", "files/b.txt"));
        assert!(m("files/{a,b}.txt", "files/b.txt"));
        assert!(m("files/{a,sub/*}.txt", "files/sub/x.txt"));
        assert!(m("files/[", "anything"));
    }
}
