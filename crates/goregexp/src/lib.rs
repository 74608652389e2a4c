//! Go's `regexp` package as Sprig's regex functions and the JSON-schema library use it:
//! RE2 syntax as Go parses it (`syntax`, errors included), matched leftmost-first as Go
//! matches, with Go's iteration over matches (`FindAll`, `ReplaceAll`, `Split`) and its
//! `$name`/`${name}` expansion.
//!
//! The pattern is parsed into Go's own tree, which is then handed to `regex-automata` (whose
//! leftmost-first semantics are Go's) as a `regex-syntax` HIR: Rust's parser never sees the
//! pattern, so what it accepts or means differently (`[\w-\.]`, `\pL` names, Perl classes,
//! `(?<name>…)`, `\Q…\E`, `{,n}`) does not matter.
//!
//! Mirrors Go's `regexp` and `regexp/syntax` (Go 1.25, Helm 4.1.4's Go). It must not know
//! templates, Sprig or JSON Schema: callers hand it a pattern and text.

mod syntax;
mod unicode;

use regex_automata::meta;
use regex_automata::util::captures::Captures;
use regex_automata::{Input, Span};
use regex_syntax::hir::{self, Hir, Look};

pub use syntax::Error;
use syntax::{FOLD_CASE, NON_GREEDY, Node, Op, Tree};

/// A compiled Go regular expression.
#[derive(Clone, Debug)]
pub struct Regexp {
    re: meta::Regex,
    /// Go's `SubexpNames`: index 0 is the whole match, unnamed groups are "".
    names: Vec<String>,
    /// Go's `expr != ""` (`Split` of an empty string depends on it).
    empty_expr: bool,
}

/// Go's `regexp.Compile`.
pub fn compile(expr: &str) -> Result<Regexp, Error> {
    // Go lets a tree nest a thousand levels; parsing, translating and compiling recurse that
    // deep, so they get a stack of their own when the caller's may be short. A short pattern
    // cannot nest deeply.
    if expr.len() <= 128 {
        return compile_here(expr);
    }
    stacker::maybe_grow(16 << 20, 64 << 20, || compile_here(expr))
}

fn compile_here(expr: &str) -> Result<Regexp, Error> {
    let tree = syntax::parse(expr)?;
    let names = cap_names(&tree);
    let hir = to_hir(&tree, tree.root);
    let config = meta::Config::new()
        // Go bounds a pattern's size itself (an expression too large is a parse error);
        // within that, a Unicode class repeated a thousand times must still compile.
        .nfa_size_limit(Some(1 << 30));
    let re = meta::Builder::new()
        .configure(config)
        .build_from_hir(&hir)
        .map_err(|_| Error {
            code: syntax::ERR_LARGE,
            expr: expr.to_string(),
        })?;
    Ok(Regexp {
        re,
        names,
        empty_expr: expr.is_empty(),
    })
}

/// The message of Go's `regexp.MustCompile` panic for `expr` (what Sprig's non-`must`
/// functions fail with).
pub fn must_compile_message(expr: &str, err: &Error) -> String {
    format!("regexp: Compile({}): {err}", quote(expr))
}

/// Go's `regexp.quote`: back-quoted when `strconv.CanBackquote`, else `strconv.Quote`d.
fn quote(s: &str) -> String {
    let can_backquote = s
        .chars()
        .all(|c| c != '\u{feff}' && c != '`' && c != '\u{7f}' && (c >= ' ' || c == '\t'));
    if can_backquote {
        format!("`{s}`")
    } else {
        gotemplate::fmt::quote(s)
    }
}

/// Go's `regexp.QuoteMeta`.
pub fn quote_meta(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

impl Regexp {
    /// Go's `MatchString`.
    pub fn is_match(&self, s: &str) -> bool {
        self.re.is_match(s)
    }

    /// The leftmost match at or after `pos` (look-around sees the text before it).
    fn find_at(&self, s: &str, pos: usize) -> Option<Span> {
        self.re
            .search(&Input::new(s).span(pos..s.len()))
            .map(|m| m.span())
    }

    /// Go's `FindString`.
    pub fn find<'a>(&self, s: &'a str) -> Option<&'a str> {
        self.find_at(s, 0).map(|m| &s[m.start..m.end])
    }

    /// Go's `FindAllString`: at most `n` matches (all when `n < 0`); an empty match right
    /// after a match is skipped.
    pub fn find_all<'a>(&self, s: &'a str, n: i64) -> Vec<&'a str> {
        self.all_matches(s, n)
            .into_iter()
            .map(|m| &s[m.start..m.end])
            .collect()
    }

    /// Go's `allMatches`.
    fn all_matches(&self, s: &str, n: i64) -> Vec<Span> {
        let n = if n < 0 { s.len() as i64 + 1 } else { n };
        let mut out = Vec::new();
        let (mut pos, mut prev_end) = (0usize, None::<usize>);
        while (out.len() as i64) < n && pos <= s.len() {
            let Some(m) = self.find_at(s, pos) else {
                break;
            };
            let mut accept = true;
            if m.end == pos {
                // An empty match right after the previous match is not one.
                if Some(m.start) == prev_end {
                    accept = false;
                }
                pos += s[pos..].chars().next().map_or(1, char::len_utf8);
            } else {
                pos = m.end;
            }
            prev_end = Some(m.end);
            if accept {
                out.push(m);
            }
        }
        out
    }

    /// Go's `Split`.
    pub fn split<'a>(&self, s: &'a str, n: i64) -> Vec<&'a str> {
        if n == 0 {
            return Vec::new();
        }
        if !self.empty_expr && s.is_empty() {
            return vec![""];
        }
        let mut out = Vec::new();
        let (mut beg, mut end) = (0, 0);
        for m in self.all_matches(s, n) {
            if n > 0 && out.len() as i64 >= n - 1 {
                break;
            }
            end = m.start;
            if m.end != 0 {
                out.push(&s[beg..end]);
            }
            beg = m.end;
        }
        if end != s.len() {
            out.push(&s[beg..]);
        }
        out
    }

    /// Go's `ReplaceAllString` (`$1`, `${name}` expanded) or, when `literal`,
    /// `ReplaceAllLiteralString`.
    pub fn replace_all(&self, src: &str, repl: &str, literal: bool) -> String {
        let expand = !literal && repl.contains('$');
        let mut caps = self.re.create_captures();
        let mut buf = String::with_capacity(src.len());
        let (mut last_end, mut search) = (0usize, 0usize);
        while search <= src.len() {
            let m = if expand {
                self.re
                    .search_captures(&Input::new(src).span(search..src.len()), &mut caps);
                caps.get_match().map(|m| m.span())
            } else {
                self.find_at(src, search)
            };
            let Some(m) = m else {
                break;
            };
            // The text before the match.
            buf.push_str(&src[last_end..m.start]);
            // No replacement for an empty match right after a match.
            if m.end > last_end || m.start == 0 {
                if expand {
                    self.expand(&mut buf, repl, src, &caps);
                } else {
                    buf.push_str(repl);
                }
            }
            last_end = m.end;
            // Past the match, by at least one character.
            let width = src[search..].chars().next().map_or(0, char::len_utf8);
            if search + width > m.end {
                search += width;
            } else if search + 1 > m.end {
                search += 1;
            } else {
                search = m.end;
            }
        }
        buf.push_str(&src[last_end..]);
        buf
    }

    /// Go's `expand`: `template` with `$name`, `${name}` and `$$` replaced.
    fn expand(&self, dst: &mut String, mut template: &str, src: &str, caps: &Captures) {
        let group = |i: usize| caps.get_group(i).map(|s| &src[s.start..s.end]);
        while let Some((head, after)) = template.split_once('$') {
            dst.push_str(head);
            template = after;
            if let Some(rest) = template.strip_prefix('$') {
                dst.push('$');
                template = rest;
                continue;
            }
            let Some((name, num, rest)) = extract(template) else {
                // Malformed: the $ is text.
                dst.push('$');
                continue;
            };
            template = rest;
            match num {
                Some(num) => {
                    if num < self.names.len()
                        && let Some(text) = group(num)
                    {
                        dst.push_str(text);
                    }
                }
                None => {
                    // The first group of that name that took part.
                    if let Some(text) = self
                        .names
                        .iter()
                        .enumerate()
                        .filter(|(_, n)| *n == name)
                        .find_map(|(i, _)| group(i))
                    {
                        dst.push_str(text);
                    }
                }
            }
        }
        dst.push_str(template);
    }
}

/// Go's `extract`: the name of a leading `name` or `{name}` (the `$` taken off), its number
/// when it is one, and the rest.
fn extract(s: &str) -> Option<(&str, Option<usize>, &str)> {
    let (braced, s) = match s.strip_prefix('{') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let len: usize = s
        .chars()
        .take_while(|&c| unicode::is_letter_or_digit(c) || c == '_')
        .map(char::len_utf8)
        .sum();
    if len == 0 {
        return None;
    }
    let name = &s[..len];
    let rest = if braced {
        s[len..].strip_prefix('}')?
    } else {
        &s[len..]
    };
    // A number: digits only, below 1e8 as it is read, no leading zero.
    let mut num: Option<usize> = Some(0);
    for b in name.bytes() {
        num = match num {
            Some(n) if b.is_ascii_digit() && n < 100_000_000 => Some(n * 10 + (b - b'0') as usize),
            _ => None,
        };
    }
    if name.starts_with('0') && name.len() > 1 {
        num = None;
    }
    Some((name, num, rest))
}

/// Go's `CapNames`: a name for each group up to the largest number, "" for unnamed ones.
fn cap_names(tree: &Tree) -> Vec<String> {
    fn walk(tree: &Tree, re: usize, names: &mut Vec<String>) {
        let node = &tree.nodes[re];
        if node.op == Op::Capture {
            if names.len() <= node.cap {
                names.resize(node.cap + 1, String::new());
            }
            names[node.cap] = node.name.clone();
        }
        for &sub in &node.sub {
            walk(tree, sub, names);
        }
    }
    let mut names = vec![String::new()];
    walk(tree, tree.root, &mut names);
    names
}

/// The HIR that matches what Go's tree matches. Capture groups keep Go's numbers.
fn to_hir(tree: &Tree, re: usize) -> Hir {
    let node: &Node = &tree.nodes[re];
    let sub = |i: usize| Box::new(to_hir(tree, node.sub[i]));
    let greedy = node.flags & NON_GREEDY == 0;
    let repetition = |min: u32, max: Option<u32>| {
        Hir::repetition(hir::Repetition {
            min,
            max,
            greedy,
            sub: sub(0),
        })
    };
    match node.op {
        Op::NoMatch => Hir::fail(),
        Op::EmptyMatch => Hir::empty(),
        Op::Literal => Hir::concat(
            node.rune
                .iter()
                .map(|&r| {
                    if node.flags & FOLD_CASE != 0 {
                        // The rune's case-folding orbit.
                        let mut orbit = vec![r, r];
                        let mut f = unicode::simple_fold(r);
                        while f != r {
                            orbit.extend([f, f]);
                            f = unicode::simple_fold(f);
                        }
                        class(&orbit)
                    } else {
                        match char::from_u32(r) {
                            Some(c) => Hir::literal(c.to_string().into_bytes()),
                            // A surrogate never matches text.
                            None => Hir::fail(),
                        }
                    }
                })
                .collect(),
        ),
        Op::CharClass => class(&node.rune),
        Op::AnyCharNotNL => class(&[0, '\n' as u32 - 1, '\n' as u32 + 1, unicode::MAX_RUNE]),
        Op::AnyChar => class(&[0, unicode::MAX_RUNE]),
        Op::BeginLine => Hir::look(Look::StartLF),
        Op::EndLine => Hir::look(Look::EndLF),
        Op::BeginText => Hir::look(Look::Start),
        Op::EndText => Hir::look(Look::End),
        Op::WordBoundary => Hir::look(Look::WordAscii),
        Op::NoWordBoundary => Hir::look(Look::WordAsciiNegate),
        Op::Capture => Hir::capture(hir::Capture {
            index: node.cap as u32,
            name: None,
            sub: sub(0),
        }),
        Op::Star => repetition(0, None),
        Op::Plus => repetition(1, None),
        Op::Quest => repetition(0, Some(1)),
        Op::Repeat => repetition(node.min as u32, (node.max >= 0).then_some(node.max as u32)),
        Op::Concat => Hir::concat(node.sub.iter().map(|&s| to_hir(tree, s)).collect()),
        Op::Alternate => Hir::alternation(node.sub.iter().map(|&s| to_hir(tree, s)).collect()),
        Op::LeftParen | Op::VerticalBar => Hir::fail(),
    }
}

/// A class of Go ranges (surrogates, which no text holds, left out).
fn class(runes: &[u32]) -> Hir {
    Hir::class(hir::Class::Unicode(unicode::class_of(runes)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn re(p: &str) -> Regexp {
        compile(p).unwrap_or_else(|e| panic!("{p}: {e}"))
    }

    #[test]
    fn matches_as_go() {
        assert!(re(r"^[\w-\.]+$").is_match("a-b.c_d"));
        assert!(!re(r"^\w+$").is_match("héllo"));
        assert!(re(r"^\pL+$").is_match("héllo"));
        // Simple case folding only: ß is not ss.
        assert!(!re(r"(?i)straße").is_match("STRASSE"));
        assert!(re(r"(?i)k").is_match("\u{212a}"));
        assert!(re(r"^[[:alpha:]]+$").is_match("abZ"));
        assert_eq!(re(r"\Qa.b\E+").find("xa.bbb"), Some("a.bbb"));
        assert_eq!(re(r"a|ab").find("ab"), Some("a"));
        assert_eq!(re(r"a{,2}").find("a{,2}"), Some("a{,2}"));
        // Go's factoring keeps the first branch's case folding for the shared prefix.
        assert!(re(r"(?i:A)b|A(c)").is_match("ac"));
        assert!(!re(r"A(c)|(?i:A)b").is_match("ab"));
        // \b is ASCII.
        assert_eq!(re(r"\bx").find_all("x ax éx", -1), ["x", "x"]);
    }

    #[test]
    fn replace_and_expand_as_go() {
        let r = re(r"(?P<w>a+)(?<n>\d)?");
        // `$1x` is the group named "1x" (none).
        assert_eq!(
            r.replace_all("caab", "<${w}|$n|$1x|${1}x|$$|$>", false),
            "c<aa|||aax|$|$>b"
        );
        assert_eq!(r.replace_all("caab", "$w", true), "c$wb");
        // `$01` is the group named "01", not group 1.
        assert_eq!(re("(a)").replace_all("a", "[$01][$1]", false), "[][a]");
        assert_eq!(re("a*").replace_all("baaac", "X", false), "XbXcX");
        assert_eq!(re("").replace_all("ab", "-", false), "-a-b-");
        // Groups repeated zero times keep their numbers.
        assert_eq!(re("(a){0}(b)").replace_all("b", "[$1|$2]", false), "[|b]");
    }

    #[test]
    fn find_all_and_split_as_go() {
        assert_eq!(re("a*").find_all("baaac", -1), ["", "aaa", ""]);
        assert_eq!(
            re("a*").split("abaabaccadaaae", 5),
            ["", "b", "b", "c", "cadaaae"]
        );
        assert_eq!(re(",").split("", -1), [""]);
        assert!(re("").split("", -1).is_empty());
        assert_eq!(re("").split("abc", -1), ["a", "b", "c"]);
    }

    #[test]
    fn must_compile_quotes_as_go() {
        let e = compile("(").unwrap_err();
        assert_eq!(
            must_compile_message("(", &e),
            "regexp: Compile(`(`): error parsing regexp: missing closing ): `(`"
        );
        let e = compile("`(").unwrap_err();
        assert!(must_compile_message("`(", &e).starts_with("regexp: Compile(\"`(\"): "));
    }
}
