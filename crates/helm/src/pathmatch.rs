//! Go's `path/filepath.Match` on `/`-separated paths: what `.helmignore` patterns (the loader)
//! and `--show-only` (the output) match chart paths with. Its own module, below both, so the
//! loader does not reach into the engine's `template` module for it.

/// Go's `path/filepath.Match` on `/`-separated paths: `*` and `?` stop at `/`, `[...]` classes
/// with ranges and `^` negation, `\` escapes. A malformed pattern matches nothing.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    // Chart paths and `.helmignore` patterns are nearly always ASCII: matched as bytes they
    // need no decoding into characters (which cost 3% of loading a chart of 150 files).
    if pattern.is_ascii() && name.is_ascii() {
        return glob_go(pattern.as_bytes(), name.as_bytes());
    }
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    glob_go(&p, &n)
}

/// A pattern's or a name's unit: a byte of ASCII text, or a character.
trait GlobUnit: Copy + Ord {
    fn is(self, ascii: u8) -> bool;
}

impl GlobUnit for u8 {
    fn is(self, ascii: u8) -> bool {
        self == ascii
    }
}

impl GlobUnit for char {
    fn is(self, ascii: u8) -> bool {
        self == ascii as char
    }
}

/// A `[...]` class: `p` starts after the `[`; whether `c` is in it, and the length consumed
/// including the `]`; `None` for a malformed class.
fn glob_class<T: GlobUnit>(p: &[T], c: T) -> Option<(bool, usize)> {
    let mut i = 0;
    let negate = p.first().is_some_and(|x| x.is(b'^'));
    if negate {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    loop {
        let ch = *p.get(i)?;
        if ch.is(b']') && !first {
            return Some((matched != negate, i + 1));
        }
        first = false;
        let lo = if ch.is(b'\\') {
            i += 1;
            *p.get(i)?
        } else {
            ch
        };
        i += 1;
        let mut hi = lo;
        if p.get(i).is_some_and(|x| x.is(b'-')) && p.get(i + 1).is_some_and(|n| !n.is(b']')) {
            i += 1;
            hi = if p[i].is(b'\\') {
                i += 1;
                *p.get(i)?
            } else {
                p[i]
            };
            i += 1;
        }
        if lo <= c && c <= hi {
            matched = true;
        }
    }
}

fn glob_go<T: GlobUnit>(p: &[T], n: &[T]) -> bool {
    let Some(&first) = p.first() else {
        return n.is_empty();
    };
    if first.is(b'*') {
        let rest = &p[1..];
        for k in 0..=n.len() {
            if glob_go(rest, &n[k..]) {
                return true;
            }
            if k < n.len() && n[k].is(b'/') {
                break;
            }
        }
        false
    } else if first.is(b'?') {
        !n.is_empty() && !n[0].is(b'/') && glob_go(&p[1..], &n[1..])
    } else if first.is(b'[') {
        match n.first() {
            Some(&c) if !c.is(b'/') => match glob_class(&p[1..], c) {
                Some((true, len)) => glob_go(&p[1 + len..], &n[1..]),
                _ => false,
            },
            _ => false,
        }
    } else if first.is(b'\\') {
        p.len() > 1 && n.first() == Some(&p[1]) && glob_go(&p[2..], &n[1..])
    } else {
        n.first() == Some(&first) && glob_go(&p[1..], &n[1..])
    }
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn globs() {
        assert!(glob_match("templates/x.yaml", "templates/x.yaml"));
        assert!(glob_match("templates/*.yaml", "templates/x.yaml"));
        assert!(!glob_match("templates/*", "templates/sub/x.yaml"));
        assert!(glob_match("templates/?.yaml", "templates/x.yaml"));
        assert!(glob_match("templates/[a-z].yaml", "templates/x.yaml"));
        assert!(!glob_match("templates/[^x].yaml", "templates/x.yaml"));
    }
}
