//! Go's `regexp/syntax` parser (Go 1.25), with `syntax.Perl` flags as `regexp.Compile` uses
//! it: the same grammar, the same errors (code and offending text) in the same order, and the
//! same tree. The tree matters beyond its meaning: Go's limits (nesting depth, size) are
//! checked on it, and Go's factoring of alternations changes what some patterns match (a
//! common leading character is factored out with the flags of its first occurrence). So the
//! parse stack, the literal merging, the alternation factoring and the node reuse (which
//! decides when Go starts checking the limits) follow Go's code step by step.

use std::collections::HashMap;

use super::unicode::{self, Group, MAX_RUNE, Runes};

pub(super) type Flags = u16;
pub(super) const FOLD_CASE: Flags = 1;
const CLASS_NL: Flags = 1 << 2;
const DOT_NL: Flags = 1 << 3;
const ONE_LINE: Flags = 1 << 4;
pub(super) const NON_GREEDY: Flags = 1 << 5;
const PERL_X: Flags = 1 << 6;
const UNICODE_GROUPS: Flags = 1 << 7;
const WAS_DOLLAR: Flags = 1 << 8;
/// `syntax.Perl`, the flags of `regexp.Compile`.
const PERL: Flags = CLASS_NL | ONE_LINE | PERL_X | UNICODE_GROUPS;

/// Go's `syntax.Op`, with its numbering (the parser compares ops by it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Op {
    NoMatch = 1,
    EmptyMatch,
    Literal,
    CharClass,
    AnyCharNotNL,
    AnyChar,
    BeginLine,
    EndLine,
    BeginText,
    EndText,
    WordBoundary,
    NoWordBoundary,
    Capture,
    Star,
    Plus,
    Quest,
    Repeat,
    Concat,
    Alternate,
    /// Pseudo-ops of the parse stack.
    LeftParen = 128,
    VerticalBar,
}

/// Go's `syntax.Regexp`, in an arena: `sub` holds node indexes.
#[derive(Clone, Debug)]
pub(super) struct Node {
    pub op: Op,
    pub flags: Flags,
    pub sub: Vec<usize>,
    pub rune: Runes,
    pub min: i32,
    pub max: i32,
    pub cap: usize,
    pub name: String,
}

impl Node {
    fn new(op: Op) -> Node {
        Node {
            op,
            flags: 0,
            sub: Vec::new(),
            rune: Vec::new(),
            min: 0,
            max: 0,
            cap: 0,
            name: String::new(),
        }
    }
}

/// A parsed expression: the arena and its root.
pub(super) struct Tree {
    pub nodes: Vec<Node>,
    pub root: usize,
}

/// Go's `syntax.Error`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub code: &'static str,
    pub expr: String,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "error parsing regexp: {}: `{}`", self.code, self.expr)
    }
}

const ERR_INVALID_CHAR_RANGE: &str = "invalid character class range";
const ERR_INVALID_ESCAPE: &str = "invalid escape sequence";
const ERR_INVALID_NAMED_CAPTURE: &str = "invalid named capture";
const ERR_INVALID_PERL_OP: &str = "invalid or unsupported Perl syntax";
const ERR_INVALID_REPEAT_OP: &str = "invalid nested repetition operator";
const ERR_INVALID_REPEAT_SIZE: &str = "invalid repeat count";
const ERR_MISSING_BRACKET: &str = "missing closing ]";
const ERR_MISSING_PAREN: &str = "missing closing )";
const ERR_MISSING_REPEAT_ARGUMENT: &str = "missing argument to repetition operator";
const ERR_TRAILING_BACKSLASH: &str = "trailing backslash at end of expression";
const ERR_UNEXPECTED_PAREN: &str = "unexpected )";
const ERR_NESTING_DEPTH: &str = "expression nests too deeply";
pub(super) const ERR_LARGE: &str = "expression too large";

fn error(code: &'static str, expr: &str) -> Error {
    Error {
        code,
        expr: expr.to_string(),
    }
}

type R<T> = Result<T, Error>;

const MAX_HEIGHT: usize = 1000;
const MAX_SIZE: i64 = (128 << 20) / (5 * 8);
const MAX_RUNES: usize = (128 << 20) / 4;
const MAX_REPEAT: i32 = 1000;
/// The smallest and largest code points involved in case folding (Go's `minFold`, `maxFold`).
const MIN_FOLD: u32 = 0x0041;
const MAX_FOLD: u32 = 0x1e943;

struct Parser<'s> {
    flags: Flags,
    stack: Vec<usize>,
    nodes: Vec<Node>,
    /// Go's free list of nodes for reuse (last in, first out).
    free: Vec<usize>,
    num_cap: usize,
    whole: &'s str,
    /// Nodes allocated (reuses not counted), which decides when the limits are checked.
    num_regexp: usize,
    num_runes: usize,
    repeats: i64,
    height: Option<HashMap<usize, usize>>,
    size: Option<HashMap<usize, i64>>,
}

/// Parses `s` as `regexp.Compile` does.
pub(super) fn parse(s: &str) -> R<Tree> {
    let mut p = Parser {
        flags: PERL,
        stack: Vec::new(),
        nodes: Vec::new(),
        free: Vec::new(),
        num_cap: 0,
        whole: s,
        num_regexp: 0,
        num_runes: 0,
        repeats: 0,
        height: None,
        size: None,
    };
    let root = p.parse_all(s).map_err(|e| match e.code {
        // Go reports the limits with the whole expression.
        ERR_LARGE | ERR_NESTING_DEPTH => error(e.code, s),
        _ => e,
    })?;
    Ok(Tree {
        nodes: p.nodes,
        root,
    })
}

/// Go's `nextRune` on valid UTF-8: an empty string yields U+FFFD.
fn next_rune(s: &str) -> (u32, &str) {
    match s.chars().next() {
        Some(c) => (c as u32, &s[c.len_utf8()..]),
        None => (0xfffd, s),
    }
}

fn is_alnum(c: u32) -> bool {
    matches!(char::from_u32(c), Some(c) if c.is_ascii_alphanumeric())
}

fn unhex(c: u32) -> i64 {
    match char::from_u32(c).and_then(|c| c.to_digit(16)) {
        Some(v) => v as i64,
        None => -1,
    }
}

/// The text of `s` before its suffix `rest`.
fn before<'a>(s: &'a str, rest: &str) -> &'a str {
    &s[..s.len() - rest.len()]
}

impl<'s> Parser<'s> {
    fn node(&self, i: usize) -> &Node {
        &self.nodes[i]
    }

    fn op_of(&self, i: usize) -> Op {
        self.nodes[i].op
    }

    fn new_regexp(&mut self, op: Op) -> usize {
        match self.free.pop() {
            Some(i) => {
                self.nodes[i] = Node::new(op);
                i
            }
            None => {
                self.nodes.push(Node::new(op));
                self.num_regexp += 1;
                self.nodes.len() - 1
            }
        }
    }

    fn reuse(&mut self, re: usize) {
        if let Some(height) = &mut self.height {
            height.remove(&re);
        }
        self.free.push(re);
    }

    fn check_limits(&mut self, re: usize) -> R<()> {
        if self.num_runes > MAX_RUNES {
            return Err(error(ERR_LARGE, ""));
        }
        self.check_size(re)?;
        self.check_height(re)
    }

    fn check_size(&mut self, re: usize) -> R<()> {
        if self.size.is_none() {
            // Size is tracked only once the nodes seen times the repeat product may be over.
            if self.repeats == 0 {
                self.repeats = 1;
            }
            if self.op_of(re) == Op::Repeat {
                let node = self.node(re);
                let mut n = if node.max == -1 { node.min } else { node.max };
                if n <= 0 {
                    n = 1;
                }
                if n as i64 > MAX_SIZE / self.repeats {
                    self.repeats = MAX_SIZE;
                } else {
                    self.repeats *= n as i64;
                }
            }
            if (self.num_regexp as i64) < MAX_SIZE / self.repeats {
                return Ok(());
            }
            self.size = Some(HashMap::new());
            for re in self.stack.clone() {
                self.check_size(re)?;
            }
        }
        if self.calc_size(re, true) > MAX_SIZE {
            return Err(error(ERR_LARGE, ""));
        }
        Ok(())
    }

    fn calc_size(&mut self, re: usize, force: bool) -> i64 {
        if !force && let Some(&size) = self.size.as_ref().and_then(|m| m.get(&re)) {
            return size;
        }
        let node = self.node(re);
        let (op, min, max, len) = (node.op, node.min as i64, node.max as i64, node.rune.len());
        let subs = node.sub.clone();
        let size = match op {
            Op::Literal => len as i64,
            Op::Capture | Op::Star => 2 + self.calc_size(subs[0], false),
            Op::Plus | Op::Quest => 1 + self.calc_size(subs[0], false),
            Op::Concat => subs.iter().map(|&s| self.calc_size(s, false)).sum(),
            Op::Alternate => {
                let sum: i64 = subs.iter().map(|&s| self.calc_size(s, false)).sum();
                sum + if subs.len() > 1 {
                    subs.len() as i64 - 1
                } else {
                    0
                }
            }
            Op::Repeat => {
                let sub = self.calc_size(subs[0], false);
                if max == -1 {
                    if min == 0 { 2 + sub } else { 1 + min * sub }
                } else {
                    max * sub + (max - min)
                }
            }
            _ => 0,
        };
        let size = size.max(1);
        if let Some(map) = &mut self.size {
            map.insert(re, size);
        }
        size
    }

    fn check_height(&mut self, re: usize) -> R<()> {
        if self.num_regexp < MAX_HEIGHT {
            return Ok(());
        }
        if self.height.is_none() {
            self.height = Some(HashMap::new());
            for re in self.stack.clone() {
                self.check_height(re)?;
            }
        }
        if self.calc_height(re, true) > MAX_HEIGHT {
            return Err(error(ERR_NESTING_DEPTH, ""));
        }
        Ok(())
    }

    fn calc_height(&mut self, re: usize, force: bool) -> usize {
        if !force && let Some(&h) = self.height.as_ref().and_then(|m| m.get(&re)) {
            return h;
        }
        let mut h = 1;
        for sub in self.node(re).sub.clone() {
            h = h.max(1 + self.calc_height(sub, false));
        }
        if let Some(map) = &mut self.height {
            map.insert(re, h);
        }
        h
    }

    /// Pushes `re` on the stack; `None` when it was merged into the literal below instead.
    fn push(&mut self, re: usize) -> R<Option<usize>> {
        self.num_runes += self.node(re).rune.len();
        let node = self.node(re);
        let r = &node.rune;
        if node.op == Op::CharClass && r.len() == 2 && r[0] == r[1] {
            // A single rune.
            let r0 = r[0];
            if self.maybe_concat(Some(r0), self.flags & !FOLD_CASE) {
                return Ok(None);
            }
            let flags = self.flags & !FOLD_CASE;
            let node = &mut self.nodes[re];
            node.op = Op::Literal;
            node.rune.truncate(1);
            node.flags = flags;
        } else if node.op == Op::CharClass
            && ((r.len() == 4
                && r[0] == r[1]
                && r[2] == r[3]
                && unicode::simple_fold(r[0]) == r[2]
                && unicode::simple_fold(r[2]) == r[0])
                || (r.len() == 2
                    && r[0] + 1 == r[1]
                    && unicode::simple_fold(r[0]) == r[1]
                    && unicode::simple_fold(r[1]) == r[0]))
        {
            // A case-insensitive rune like [Aa] or [Δδ].
            let r0 = r[0];
            if self.maybe_concat(Some(r0), self.flags | FOLD_CASE) {
                return Ok(None);
            }
            let flags = self.flags | FOLD_CASE;
            let node = &mut self.nodes[re];
            node.op = Op::Literal;
            node.rune.truncate(1);
            node.flags = flags;
        } else {
            // Incremental concatenation.
            self.maybe_concat(None, 0);
        }
        self.stack.push(re);
        self.check_limits(re)?;
        Ok(Some(re))
    }

    /// Go's `maybeConcat`: merges the two literals on top of the stack; with a rune, reuses
    /// the top one for it (and reports so).
    fn maybe_concat(&mut self, r: Option<u32>, flags: Flags) -> bool {
        let n = self.stack.len();
        if n < 2 {
            return false;
        }
        let (re1, re2) = (self.stack[n - 1], self.stack[n - 2]);
        let (n1, n2) = (self.node(re1), self.node(re2));
        if n1.op != Op::Literal
            || n2.op != Op::Literal
            || n1.flags & FOLD_CASE != n2.flags & FOLD_CASE
        {
            return false;
        }
        let runes = n1.rune.clone();
        self.nodes[re2].rune.extend(runes);
        if let Some(r) = r {
            let node = &mut self.nodes[re1];
            node.rune = vec![r];
            node.flags = flags;
            return true;
        }
        self.stack.pop();
        self.reuse(re1);
        false
    }

    fn literal(&mut self, r: u32) -> R<()> {
        let re = self.new_regexp(Op::Literal);
        self.nodes[re].flags = self.flags;
        let r = if self.flags & FOLD_CASE != 0 {
            min_fold_rune(r)
        } else {
            r
        };
        self.nodes[re].rune = vec![r];
        self.push(re)?;
        Ok(())
    }

    fn op(&mut self, op: Op) -> R<Option<usize>> {
        let re = self.new_regexp(op);
        self.nodes[re].flags = self.flags;
        self.push(re)
    }

    /// Replaces the top of the stack with itself repeated; `before` is the text from the
    /// operator on, `after` what follows it. Returns the new `after`.
    fn repeat<'t>(
        &mut self,
        op: Op,
        min: i32,
        max: i32,
        before_op: &'t str,
        mut after: &'t str,
        last_repeat: &str,
    ) -> R<&'t str> {
        let mut flags = self.flags;
        if self.flags & PERL_X != 0 {
            if let Some(rest) = after.strip_prefix('?') {
                after = rest;
                flags ^= NON_GREEDY;
            }
            if !last_repeat.is_empty() {
                // Perl forbids stacked repetition operators (a**, a++).
                return Err(error(ERR_INVALID_REPEAT_OP, before(last_repeat, after)));
            }
        }
        let n = self.stack.len();
        if n == 0 || self.op_of(self.stack[n - 1]) >= Op::LeftParen {
            return Err(error(ERR_MISSING_REPEAT_ARGUMENT, before(before_op, after)));
        }
        let sub = self.stack[n - 1];
        let re = self.new_regexp(op);
        let node = &mut self.nodes[re];
        node.min = min;
        node.max = max;
        node.flags = flags;
        node.sub = vec![sub];
        self.stack[n - 1] = re;
        self.check_limits(re)?;
        if op == Op::Repeat && (min >= 2 || max >= 2) && !self.repeat_is_valid(re, MAX_REPEAT) {
            return Err(error(ERR_INVALID_REPEAT_SIZE, before(before_op, after)));
        }
        Ok(after)
    }

    /// Whether a repetition and those inside it ask for at most `n` copies of the innermost.
    fn repeat_is_valid(&self, re: usize, mut n: i32) -> bool {
        let node = self.node(re);
        if node.op == Op::Repeat {
            let mut m = node.max;
            if m == 0 {
                return true;
            }
            if m < 0 {
                m = node.min;
            }
            if m > n {
                return false;
            }
            if m > 0 {
                n /= m;
            }
        }
        node.sub.iter().all(|&s| self.repeat_is_valid(s, n))
    }

    /// Replaces the top of the stack (above the topmost `|` or `(`) with its concatenation.
    fn concat(&mut self) -> R<Option<usize>> {
        self.maybe_concat(None, 0);
        let mut i = self.stack.len();
        while i > 0 && self.op_of(self.stack[i - 1]) < Op::LeftParen {
            i -= 1;
        }
        let subs = self.stack.split_off(i);
        if subs.is_empty() {
            let re = self.new_regexp(Op::EmptyMatch);
            return self.push(re);
        }
        let re = self.collapse(subs, Op::Concat)?;
        self.push(re)
    }

    /// Replaces the top of the stack (above the topmost `(`) with its alternation.
    fn alternate(&mut self) -> R<Option<usize>> {
        let mut i = self.stack.len();
        while i > 0 && self.op_of(self.stack[i - 1]) < Op::LeftParen {
            i -= 1;
        }
        let subs = self.stack.split_off(i);
        if let Some(&last) = subs.last() {
            self.clean_alt(last);
        }
        if subs.is_empty() {
            let re = self.new_regexp(Op::NoMatch);
            return self.push(re);
        }
        let re = self.collapse(subs, Op::Alternate)?;
        self.push(re)
    }

    /// Cleans a node for inclusion in an alternation.
    fn clean_alt(&mut self, re: usize) {
        let node = &mut self.nodes[re];
        if node.op == Op::CharClass {
            node.rune = clean_class(std::mem::take(&mut node.rune));
            if node.rune == [0, MAX_RUNE] {
                node.rune.clear();
                node.op = Op::AnyChar;
            } else if node.rune == [0, '\n' as u32 - 1, '\n' as u32 + 1, MAX_RUNE] {
                node.rune.clear();
                node.op = Op::AnyCharNotNL;
            }
        }
    }

    /// `op` applied to `subs`, with nested nodes of the same op hoisted.
    fn collapse(&mut self, subs: Vec<usize>, op: Op) -> R<usize> {
        if subs.len() == 1 {
            return Ok(subs[0]);
        }
        let mut re = self.new_regexp(op);
        let mut all = Vec::new();
        for sub in subs {
            if self.op_of(sub) == op {
                all.extend(self.node(sub).sub.clone());
                self.reuse(sub);
            } else {
                all.push(sub);
            }
        }
        if op == Op::Alternate {
            all = self.factor(all)?;
            if all.len() == 1 {
                let old = re;
                re = all[0];
                self.reuse(old);
                return Ok(re);
            }
        }
        self.nodes[re].sub = all;
        Ok(re)
    }

    /// Go's `factor`: common leading literal strings, then common leading character classes
    /// (or fixed repeats of one), are factored out of the alternation's branches; runs of
    /// single characters become one class; repeated empty matches one.
    fn factor(&mut self, mut sub: Vec<usize>) -> R<Vec<usize>> {
        if sub.len() < 2 {
            return Ok(sub);
        }

        // Round 1: common literal prefixes.
        let mut out = Vec::with_capacity(sub.len());
        let mut string: Vec<u32> = Vec::new();
        let mut string_flags: Flags = 0;
        let mut start = 0;
        for i in 0..=sub.len() {
            let mut istr = Vec::new();
            let mut iflags = 0;
            if i < sub.len() {
                (istr, iflags) = self.leading_string(sub[i]);
                if iflags == string_flags {
                    let same = string.iter().zip(&istr).take_while(|(a, b)| a == b).count();
                    if same > 0 {
                        string.truncate(same);
                        continue;
                    }
                }
            }
            if i == start {
            } else if i == start + 1 {
                out.push(sub[start]);
            } else {
                let prefix = self.new_regexp(Op::Literal);
                self.nodes[prefix].flags = string_flags;
                self.nodes[prefix].rune = string.clone();
                for s in sub.iter_mut().take(i).skip(start) {
                    *s = self.remove_leading_string(*s, string.len());
                    self.check_limits(*s)?;
                }
                let suffix = self.collapse(sub[start..i].to_vec(), Op::Alternate)?;
                let re = self.new_regexp(Op::Concat);
                self.nodes[re].sub = vec![prefix, suffix];
                out.push(re);
            }
            start = i;
            string = istr;
            string_flags = iflags;
        }
        sub = out;

        // Round 2: common simple prefixes (a character class, or a fixed repeat of one).
        let mut out = Vec::with_capacity(sub.len());
        let mut start = 0;
        let mut first: Option<usize> = None;
        for i in 0..=sub.len() {
            let mut ifirst = None;
            if i < sub.len() {
                ifirst = self.leading_regexp(sub[i]);
                if let Some(f) = first
                    && let Some(g) = ifirst
                    && self.equal(f, g)
                    && (self.is_char_class(f)
                        || (self.op_of(f) == Op::Repeat
                            && self.node(f).min == self.node(f).max
                            && self.is_char_class(self.node(f).sub[0])))
                {
                    continue;
                }
            }
            if i == start {
            } else if i == start + 1 {
                out.push(sub[start]);
            } else {
                let prefix = first.expect("a run of two or more has a first");
                for (j, s) in sub.iter_mut().enumerate().take(i).skip(start) {
                    // The prefix is sub[start]'s own leading node: kept.
                    *s = self.remove_leading_regexp(*s, j != start);
                    self.check_limits(*s)?;
                }
                let suffix = self.collapse(sub[start..i].to_vec(), Op::Alternate)?;
                let re = self.new_regexp(Op::Concat);
                self.nodes[re].sub = vec![prefix, suffix];
                out.push(re);
            }
            start = i;
            first = ifirst;
        }
        sub = out;

        // Round 3: runs of single characters or classes become one class.
        let mut out = Vec::with_capacity(sub.len());
        let mut start = 0;
        for i in 0..=sub.len() {
            if i < sub.len() && self.is_char_class(sub[i]) {
                continue;
            }
            if i == start {
            } else if i == start + 1 {
                out.push(sub[start]);
            } else {
                // Start with the most complex one.
                let mut max = start;
                for j in start + 1..i {
                    let (a, b) = (self.node(sub[max]), self.node(sub[j]));
                    if a.op < b.op || (a.op == b.op && a.rune.len() < b.rune.len()) {
                        max = j;
                    }
                }
                sub.swap(start, max);
                for j in start + 1..i {
                    self.merge_char_class(sub[start], sub[j]);
                    self.reuse(sub[j]);
                }
                self.clean_alt(sub[start]);
                out.push(sub[start]);
            }
            if i < sub.len() {
                out.push(sub[i]);
            }
            start = i + 1;
        }
        sub = out;

        // Round 4: runs of empty matches become one.
        let mut out = Vec::with_capacity(sub.len());
        for i in 0..sub.len() {
            if i + 1 < sub.len()
                && self.op_of(sub[i]) == Op::EmptyMatch
                && self.op_of(sub[i + 1]) == Op::EmptyMatch
            {
                continue;
            }
            out.push(sub[i]);
        }
        Ok(out)
    }

    /// The leading literal string of `re` and its fold flag.
    fn leading_string(&self, re: usize) -> (Vec<u32>, Flags) {
        let mut node = self.node(re);
        if node.op == Op::Concat && !node.sub.is_empty() {
            node = self.node(node.sub[0]);
        }
        if node.op != Op::Literal {
            return (Vec::new(), 0);
        }
        (node.rune.clone(), node.flags & FOLD_CASE)
    }

    /// Removes the first `n` runes of `re`'s leading string; returns what replaces `re`.
    fn remove_leading_string(&mut self, re: usize, n: usize) -> usize {
        if self.op_of(re) == Op::Concat && !self.node(re).sub.is_empty() {
            // Removing a leading string in a concatenation might simplify it.
            let sub = self.node(re).sub[0];
            let sub = self.remove_leading_string(sub, n);
            self.nodes[re].sub[0] = sub;
            if self.op_of(sub) == Op::EmptyMatch {
                self.reuse(sub);
                match self.node(re).sub.len() {
                    0 | 1 => {
                        // Impossible but handled.
                        self.nodes[re].op = Op::EmptyMatch;
                        self.nodes[re].sub.clear();
                    }
                    2 => {
                        let old = re;
                        let re = self.node(old).sub[1];
                        self.reuse(old);
                        return re;
                    }
                    _ => {
                        self.nodes[re].sub.remove(0);
                    }
                }
            }
            return re;
        }
        if self.op_of(re) == Op::Literal {
            let node = &mut self.nodes[re];
            node.rune.drain(..n.min(node.rune.len()));
            if node.rune.is_empty() {
                node.op = Op::EmptyMatch;
            }
        }
        re
    }

    /// The leading node `re` begins with.
    fn leading_regexp(&self, re: usize) -> Option<usize> {
        let node = self.node(re);
        if node.op == Op::EmptyMatch {
            return None;
        }
        if node.op == Op::Concat && !node.sub.is_empty() {
            let sub = node.sub[0];
            if self.op_of(sub) == Op::EmptyMatch {
                return None;
            }
            return Some(sub);
        }
        Some(re)
    }

    /// Removes the leading node of `re` (passing it to reuse when `reuse`); returns what
    /// replaces `re`.
    fn remove_leading_regexp(&mut self, re: usize, reuse: bool) -> usize {
        if self.op_of(re) == Op::Concat && !self.node(re).sub.is_empty() {
            if reuse {
                let first = self.node(re).sub[0];
                self.reuse(first);
            }
            self.nodes[re].sub.remove(0);
            match self.node(re).sub.len() {
                0 => {
                    self.nodes[re].op = Op::EmptyMatch;
                    self.nodes[re].sub.clear();
                }
                1 => {
                    let old = re;
                    let re = self.node(old).sub[0];
                    self.reuse(old);
                    return re;
                }
                _ => {}
            }
            return re;
        }
        if reuse {
            self.reuse(re);
        }
        self.new_regexp(Op::EmptyMatch)
    }

    /// Go's `Regexp.Equal` (literal flags are not compared, as in Go).
    fn equal(&self, x: usize, y: usize) -> bool {
        let (a, b) = (self.node(x), self.node(y));
        if a.op != b.op {
            return false;
        }
        match a.op {
            Op::EndText => a.flags & WAS_DOLLAR == b.flags & WAS_DOLLAR,
            Op::Literal | Op::CharClass => a.rune == b.rune,
            Op::Alternate | Op::Concat => {
                a.sub.len() == b.sub.len()
                    && a.sub.iter().zip(&b.sub).all(|(&s, &t)| self.equal(s, t))
            }
            Op::Star | Op::Plus | Op::Quest => {
                a.flags & NON_GREEDY == b.flags & NON_GREEDY && self.equal(a.sub[0], b.sub[0])
            }
            Op::Repeat => {
                a.flags & NON_GREEDY == b.flags & NON_GREEDY
                    && a.min == b.min
                    && a.max == b.max
                    && self.equal(a.sub[0], b.sub[0])
            }
            Op::Capture => a.cap == b.cap && a.name == b.name && self.equal(a.sub[0], b.sub[0]),
            _ => true,
        }
    }

    /// Whether `re` can be a character class: a one-rune literal, a class, `.`.
    fn is_char_class(&self, re: usize) -> bool {
        let node = self.node(re);
        (node.op == Op::Literal && node.rune.len() == 1)
            || matches!(node.op, Op::CharClass | Op::AnyCharNotNL | Op::AnyChar)
    }

    /// Whether `re` matches `r` (Go's `matchRune`; a literal's fold flag is not looked at).
    fn match_rune(&self, re: usize, r: u32) -> bool {
        let node = self.node(re);
        match node.op {
            Op::Literal => node.rune.len() == 1 && node.rune[0] == r,
            Op::CharClass => node.rune.chunks(2).any(|p| p[0] <= r && r <= p[1]),
            Op::AnyCharNotNL => r != '\n' as u32,
            Op::AnyChar => true,
            _ => false,
        }
    }

    /// `dst = dst|src`; `dst`'s op is at least `src`'s.
    fn merge_char_class(&mut self, dst: usize, src: usize) {
        match self.op_of(dst) {
            Op::AnyChar => {}
            // src may add \n.
            Op::AnyCharNotNL if self.match_rune(src, '\n' as u32) => {
                self.nodes[dst].op = Op::AnyChar;
            }
            Op::CharClass => {
                let s = self.node(src).clone();
                let rune = std::mem::take(&mut self.nodes[dst].rune);
                self.nodes[dst].rune = if s.op == Op::Literal {
                    append_literal(rune, s.rune[0], s.flags)
                } else {
                    append_class(rune, &s.rune)
                };
            }
            Op::Literal => {
                let s = self.node(src).clone();
                let d = self.node(dst);
                if s.rune[0] == d.rune[0] && s.flags == d.flags {
                    return;
                }
                let (x, flags) = (d.rune[0], d.flags);
                let rune = append_literal(Vec::new(), x, flags);
                let node = &mut self.nodes[dst];
                node.op = Op::CharClass;
                node.rune = append_literal(rune, s.rune[0], s.flags);
            }
            _ => {}
        }
    }

    /// If a `|` with an element above it is on top of the stack, swaps the two (merging the
    /// element into the one below the `|` when both are classes) and reports true.
    fn swap_vertical_bar(&mut self) -> bool {
        let n = self.stack.len();
        if n >= 3
            && self.op_of(self.stack[n - 2]) == Op::VerticalBar
            && self.is_char_class(self.stack[n - 1])
            && self.is_char_class(self.stack[n - 3])
        {
            let (mut re1, mut re3) = (self.stack[n - 1], self.stack[n - 3]);
            // Make re3 the more complex of the two.
            if self.op_of(re1) > self.op_of(re3) {
                std::mem::swap(&mut re1, &mut re3);
                self.stack[n - 3] = re3;
            }
            self.merge_char_class(re3, re1);
            self.reuse(re1);
            self.stack.pop();
            return true;
        }
        if n >= 2 {
            let (re1, re2) = (self.stack[n - 1], self.stack[n - 2]);
            if self.op_of(re2) == Op::VerticalBar {
                if n >= 3 {
                    // Now out of reach: clean it.
                    self.clean_alt(self.stack[n - 3]);
                }
                self.stack[n - 2] = re1;
                self.stack[n - 1] = re2;
                return true;
            }
        }
        false
    }

    fn parse_vertical_bar(&mut self) -> R<()> {
        self.concat()?;
        if !self.swap_vertical_bar() {
            self.op(Op::VerticalBar)?;
        }
        Ok(())
    }

    fn parse_right_paren(&mut self) -> R<()> {
        self.concat()?;
        if self.swap_vertical_bar() {
            self.stack.pop();
        }
        self.alternate()?;
        let n = self.stack.len();
        if n < 2 {
            return Err(error(ERR_UNEXPECTED_PAREN, self.whole));
        }
        let (re1, re2) = (self.stack[n - 1], self.stack[n - 2]);
        self.stack.truncate(n - 2);
        if self.op_of(re2) != Op::LeftParen {
            return Err(error(ERR_UNEXPECTED_PAREN, self.whole));
        }
        // The flags at the time of the paren.
        self.flags = self.node(re2).flags;
        if self.node(re2).cap == 0 {
            // Just for grouping.
            self.push(re1)?;
        } else {
            let node = &mut self.nodes[re2];
            node.op = Op::Capture;
            node.sub = vec![re1];
            self.push(re2)?;
        }
        Ok(())
    }

    fn parse_all(&mut self, s: &'s str) -> R<usize> {
        let mut t = s;
        let mut last_repeat: &str = "";
        while !t.is_empty() {
            let mut repeat: &str = "";
            let b = t.as_bytes();
            match b[0] {
                b'(' => {
                    if b.len() >= 2 && b[1] == b'?' {
                        // Flag changes and non-capturing groups.
                        t = self.parse_perl_flags(t)?;
                    } else {
                        self.num_cap += 1;
                        if let Some(re) = self.op(Op::LeftParen)? {
                            self.nodes[re].cap = self.num_cap;
                        }
                        t = &t[1..];
                    }
                }
                b'|' => {
                    self.parse_vertical_bar()?;
                    t = &t[1..];
                }
                b')' => {
                    self.parse_right_paren()?;
                    t = &t[1..];
                }
                b'^' => {
                    self.op(if self.flags & ONE_LINE != 0 {
                        Op::BeginText
                    } else {
                        Op::BeginLine
                    })?;
                    t = &t[1..];
                }
                b'$' => {
                    if self.flags & ONE_LINE != 0 {
                        if let Some(re) = self.op(Op::EndText)? {
                            self.nodes[re].flags |= WAS_DOLLAR;
                        }
                    } else {
                        self.op(Op::EndLine)?;
                    }
                    t = &t[1..];
                }
                b'.' => {
                    self.op(if self.flags & DOT_NL != 0 {
                        Op::AnyChar
                    } else {
                        Op::AnyCharNotNL
                    })?;
                    t = &t[1..];
                }
                b'[' => t = self.parse_class(t)?,
                b'*' | b'+' | b'?' => {
                    let op = match b[0] {
                        b'*' => Op::Star,
                        b'+' => Op::Plus,
                        _ => Op::Quest,
                    };
                    let after = self.repeat(op, 0, 0, t, &t[1..], last_repeat)?;
                    repeat = t;
                    t = after;
                }
                b'{' => match parse_repeat(t) {
                    // Not a repetition: `{` is a literal.
                    None => {
                        self.literal('{' as u32)?;
                        t = &t[1..];
                    }
                    Some((min, max, after)) => {
                        // Numbers too big, or max below min.
                        if !(0..=MAX_REPEAT).contains(&min)
                            || max > MAX_REPEAT
                            || (max >= 0 && min > max)
                        {
                            return Err(error(ERR_INVALID_REPEAT_SIZE, before(t, after)));
                        }
                        let after = self.repeat(Op::Repeat, min, max, t, after, last_repeat)?;
                        repeat = t;
                        t = after;
                    }
                },
                b'\\' => t = self.parse_backslash(t)?,
                _ => {
                    let (c, rest) = next_rune(t);
                    self.literal(c)?;
                    t = rest;
                }
            }
            last_repeat = repeat;
        }
        self.concat()?;
        if self.swap_vertical_bar() {
            self.stack.pop();
        }
        self.alternate()?;
        if self.stack.len() != 1 {
            return Err(error(ERR_MISSING_PAREN, s));
        }
        Ok(self.stack[0])
    }

    /// A `\` at the start of `t`: an assertion, `\Q…\E`, a class or an escaped character.
    fn parse_backslash<'t>(&mut self, t: &'t str) -> R<&'t str> {
        let b = t.as_bytes();
        if b.len() >= 2 {
            match b[1] {
                b'A' => {
                    self.op(Op::BeginText)?;
                    return Ok(&t[2..]);
                }
                b'b' => {
                    self.op(Op::WordBoundary)?;
                    return Ok(&t[2..]);
                }
                b'B' => {
                    self.op(Op::NoWordBoundary)?;
                    return Ok(&t[2..]);
                }
                // Any byte: not supported.
                b'C' => return Err(error(ERR_INVALID_ESCAPE, &t[..2])),
                b'Q' => {
                    // \Q ... \E: the ... is always literals.
                    let (lit, rest) = t[2..].split_once("\\E").unwrap_or((&t[2..], ""));
                    for c in lit.chars() {
                        self.literal(c as u32)?;
                    }
                    return Ok(rest);
                }
                b'z' => {
                    self.op(Op::EndText)?;
                    return Ok(&t[2..]);
                }
                _ => {}
            }
        }
        let re = self.new_regexp(Op::CharClass);
        self.nodes[re].flags = self.flags;
        // A Unicode class like \p{Han}.
        if b.len() >= 2 && (b[1] == b'p' || b[1] == b'P') {
            let mut class = Vec::new();
            if let Some(rest) = self.parse_unicode_class(t, &mut class)? {
                self.nodes[re].rune = class;
                self.push(re)?;
                return Ok(rest);
            }
        }
        // A Perl class.
        let mut class = Vec::new();
        if let Some(rest) = self.parse_perl_class_escape(t, &mut class) {
            self.nodes[re].rune = class;
            self.push(re)?;
            return Ok(rest);
        }
        self.reuse(re);
        let (c, rest) = parse_escape(t)?;
        self.literal(c)?;
        Ok(rest)
    }

    /// A flag setting or group opening at the start of `s` (which begins with `(?`).
    fn parse_perl_flags<'t>(&mut self, s: &'t str) -> R<&'t str> {
        let b = s.as_bytes();
        // Named captures: (?P<name>expr) and (?<name>expr).
        let starts_with_p = b.len() > 4 && b[2] == b'P' && b[3] == b'<';
        let starts_with_name = b.len() > 3 && b[2] == b'<';
        if starts_with_p || starts_with_name {
            let expr_start = if starts_with_name { 3 } else { 4 };
            let Some(end) = s.find('>') else {
                return Err(error(ERR_INVALID_NAMED_CAPTURE, s));
            };
            let capture = &s[..end + 1];
            let name = &s[expr_start..end];
            if !is_valid_capture_name(name) {
                return Err(error(ERR_INVALID_NAMED_CAPTURE, capture));
            }
            self.num_cap += 1;
            if let Some(re) = self.op(Op::LeftParen)? {
                self.nodes[re].cap = self.num_cap;
                self.nodes[re].name = name.to_string();
            }
            return Ok(&s[end + 1..]);
        }
        // A non-capturing group, maybe with flags.
        let mut t = &s[2..];
        let mut flags = self.flags;
        let mut sign = 1;
        let mut saw_flag = false;
        while !t.is_empty() {
            let (c, rest) = next_rune(t);
            t = rest;
            match char::from_u32(c) {
                Some('i') => {
                    flags |= FOLD_CASE;
                    saw_flag = true;
                }
                Some('m') => {
                    flags &= !ONE_LINE;
                    saw_flag = true;
                }
                Some('s') => {
                    flags |= DOT_NL;
                    saw_flag = true;
                }
                Some('U') => {
                    flags |= NON_GREEDY;
                    saw_flag = true;
                }
                Some('-') => {
                    if sign < 0 {
                        break;
                    }
                    sign = -1;
                    // Inverted, so that setting a flag clears it; inverted back below.
                    flags = !flags;
                    saw_flag = false;
                }
                Some(c @ (':' | ')')) => {
                    if sign < 0 {
                        if !saw_flag {
                            break;
                        }
                        flags = !flags;
                    }
                    if c == ':' {
                        // Open a new group.
                        self.op(Op::LeftParen)?;
                    }
                    self.flags = flags;
                    return Ok(t);
                }
                _ => break,
            }
        }
        Err(error(ERR_INVALID_PERL_OP, before(s, t)))
    }

    /// A Perl class like `\d` at the start of `s`, appended to `r`; the rest of `s`.
    fn parse_perl_class_escape<'t>(&mut self, s: &'t str, r: &mut Runes) -> Option<&'t str> {
        let b = s.as_bytes();
        if self.flags & PERL_X == 0 || b.len() < 2 || b[0] != b'\\' {
            return None;
        }
        let group = unicode::perl_group(&b[..2])?;
        self.append_group(r, &group);
        Some(&s[2..])
    }

    /// A POSIX class like `[:alnum:]` at the start of `s`, appended to `r`; the rest of `s`.
    fn parse_named_class<'t>(&mut self, s: &'t str, r: &mut Runes) -> R<Option<&'t str>> {
        if !s.starts_with("[:") {
            return Ok(None);
        }
        let Some(i) = s[2..].find(":]") else {
            return Ok(None);
        };
        let i = i + 2;
        let (name, rest) = (&s[..i + 2], &s[i + 2..]);
        let Some(group) = unicode::posix_group(name) else {
            return Err(error(ERR_INVALID_CHAR_RANGE, name));
        };
        self.append_group(r, &group);
        Ok(Some(rest))
    }

    fn append_group(&mut self, r: &mut Runes, g: &Group) {
        let class = if self.flags & FOLD_CASE == 0 {
            g.class.to_vec()
        } else {
            clean_class(append_folded_class(Vec::new(), g.class))
        };
        let appended = if g.sign < 0 {
            append_negated_class(std::mem::take(r), &class)
        } else {
            append_class(std::mem::take(r), &class)
        };
        *r = appended;
    }

    /// A Unicode class like `\p{Han}` at the start of `s`, appended to `r`; the rest of `s`.
    fn parse_unicode_class<'t>(&mut self, s: &'t str, r: &mut Runes) -> R<Option<&'t str>> {
        let b = s.as_bytes();
        if self.flags & UNICODE_GROUPS == 0
            || b.len() < 2
            || b[0] != b'\\'
            || (b[1] != b'p' && b[1] != b'P')
        {
            return Ok(None);
        }
        // Committed to parse or fail.
        let mut sign = if b[1] == b'P' { -1 } else { 1 };
        let (c, mut t) = next_rune(&s[2..]);
        let (seq, mut name) = if c != '{' as u32 {
            // A one-letter name.
            let seq = before(s, t);
            (seq, &seq[2..])
        } else {
            let Some(end) = s.find('}') else {
                return Err(error(ERR_INVALID_CHAR_RANGE, s));
            };
            t = &s[end + 1..];
            (&s[..end + 1], &s[3..end])
        };
        // A leading ^ negates: \p{^Han} == \P{Han}.
        if let Some(rest) = name.strip_prefix('^') {
            sign = -sign;
            name = rest;
        }
        let Some(table) = unicode::unicode_table(name) else {
            return Err(error(ERR_INVALID_CHAR_RANGE, seq));
        };
        if table.sign < 0 {
            sign = -sign;
        }
        let class = match (self.flags & FOLD_CASE != 0, table.folded) {
            (true, Some(folded)) => folded,
            _ => table.ranges,
        };
        let appended = if sign > 0 {
            append_class(std::mem::take(r), &class)
        } else {
            append_negated_class(std::mem::take(r), &class)
        };
        *r = appended;
        Ok(Some(t))
    }

    /// A character class at the start of `s`, pushed on the stack; the rest of `s`.
    fn parse_class<'t>(&mut self, s: &'t str) -> R<&'t str> {
        let mut t = &s[1..];
        let re = self.new_regexp(Op::CharClass);
        self.nodes[re].flags = self.flags;
        let mut class: Runes = Vec::new();
        let mut sign = 1;
        if let Some(rest) = t.strip_prefix('^') {
            sign = -1;
            t = rest;
            // A negated class that does not match \n gets it here, before the negation.
            if self.flags & CLASS_NL == 0 {
                class.extend(['\n' as u32, '\n' as u32]);
            }
        }
        // ] and - are literals as the first character.
        let mut first = true;
        while t.is_empty() || !t.starts_with(']') || first {
            // (Perl syntax allows a - anywhere: no POSIX check.)
            first = false;
            // A POSIX class like [:alnum:].
            if t.len() > 2
                && t.starts_with("[:")
                && let Some(rest) = self.parse_named_class(t, &mut class)?
            {
                t = rest;
                continue;
            }
            // A Unicode class like \p{Han}.
            if let Some(rest) = self.parse_unicode_class(t, &mut class)? {
                t = rest;
                continue;
            }
            // A Perl class like \d.
            if let Some(rest) = self.parse_perl_class_escape(t, &mut class) {
                t = rest;
                continue;
            }
            // A character or a range.
            let range = t;
            let (lo, rest) = parse_class_char(t, s)?;
            t = rest;
            let mut hi = lo;
            // [a-] is a and -.
            if t.len() >= 2 && t.starts_with('-') && !t[1..].starts_with(']') {
                let (h, rest) = parse_class_char(&t[1..], s)?;
                t = rest;
                hi = h;
                if hi < lo {
                    return Err(error(ERR_INVALID_CHAR_RANGE, before(range, t)));
                }
            }
            class = if self.flags & FOLD_CASE == 0 {
                append_range(class, lo, hi)
            } else {
                append_folded_range(class, lo, hi)
            };
        }
        t = &t[1..];
        let mut class = clean_class(class);
        if sign < 0 {
            class = negate_class(class);
        }
        self.nodes[re].rune = class;
        self.push(re)?;
        Ok(t)
    }
}

/// Go's `isValidCaptureName`: `[A-Za-z0-9_]+`.
fn is_valid_capture_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|c| c == b'_' || c.is_ascii_alphanumeric())
}

/// A decimal number without leading zeros; -1 when it has 9 digits or more (too big).
fn parse_int(s: &str) -> Option<(i32, &str)> {
    let b = s.as_bytes();
    if b.is_empty() || !b[0].is_ascii_digit() {
        return None;
    }
    // Leading zeros are not allowed.
    if b.len() >= 2 && b[0] == b'0' && b[1].is_ascii_digit() {
        return None;
    }
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    let mut n: i32 = 0;
    for &d in &b[..digits] {
        if n >= 100_000_000 {
            n = -1;
            break;
        }
        n = n * 10 + (d - b'0') as i32;
    }
    Some((n, &s[digits..]))
}

/// `{min}`, `{min,}` (max -1) or `{min,max}` at the start of `s`; min -1 when a number is too
/// big. `None` when `s` does not start with one.
fn parse_repeat(s: &str) -> Option<(i32, i32, &str)> {
    let s = s.strip_prefix('{')?;
    let (mut min, s) = parse_int(s)?;
    let max;
    let s = match s.strip_prefix(',') {
        None => {
            if s.is_empty() {
                return None;
            }
            max = min;
            s
        }
        Some(s) => {
            if s.is_empty() {
                return None;
            }
            if s.starts_with('}') {
                max = -1;
                s
            } else {
                let (m, s) = parse_int(s)?;
                max = m;
                if max < 0 {
                    // Too big.
                    min = -1;
                }
                s
            }
        }
    };
    let rest = s.strip_prefix('}')?;
    Some((min, max, rest))
}

/// An escape sequence at the start of `s`: its rune and the rest.
fn parse_escape(s: &str) -> R<(u32, &str)> {
    let t = &s[1..];
    if t.is_empty() {
        return Err(error(ERR_TRAILING_BACKSLASH, ""));
    }
    let (c, mut t) = next_rune(t);
    let invalid = |t: &str| Err(error(ERR_INVALID_ESCAPE, before(s, t)));
    match char::from_u32(c).unwrap_or('\u{fffd}') {
        // Octal: \1-\7 alone are backreferences (unsupported); \0 and \1-\7 followed by an
        // octal digit take up to three digits.
        '1'..='7' | '0' => {
            if c != '0' as u32 && !t.starts_with(|d: char| ('0'..='7').contains(&d)) {
                return invalid(t);
            }
            let mut r = c - '0' as u32;
            for _ in 1..3 {
                match t.as_bytes().first() {
                    Some(&d) if (b'0'..=b'7').contains(&d) => {
                        r = r * 8 + (d - b'0') as u32;
                        t = &t[1..];
                    }
                    _ => break,
                }
            }
            Ok((r, t))
        }
        'x' => {
            if t.is_empty() {
                return invalid(t);
            }
            let (c, rest) = next_rune(t);
            t = rest;
            if c == '{' as u32 {
                // Any number of hex digits in braces, at least one.
                let mut nhex = 0;
                let mut r: i64 = 0;
                loop {
                    if t.is_empty() {
                        return invalid(t);
                    }
                    let (c, rest) = next_rune(t);
                    t = rest;
                    if c == '}' as u32 {
                        break;
                    }
                    let v = unhex(c);
                    if v < 0 {
                        return invalid(t);
                    }
                    r = r * 16 + v;
                    if r > MAX_RUNE as i64 {
                        return invalid(t);
                    }
                    nhex += 1;
                }
                if nhex == 0 {
                    return invalid(t);
                }
                return Ok((r as u32, t));
            }
            // Two hex digits.
            let x = unhex(c);
            let (c, rest) = next_rune(t);
            t = rest;
            let y = unhex(c);
            if x < 0 || y < 0 {
                return invalid(t);
            }
            Ok(((x * 16 + y) as u32, t))
        }
        // C escapes (no \b: that is a word boundary).
        'a' => Ok((0x07, t)),
        'f' => Ok((0x0c, t)),
        'n' => Ok(('\n' as u32, t)),
        'r' => Ok(('\r' as u32, t)),
        't' => Ok(('\t' as u32, t)),
        'v' => Ok((0x0b, t)),
        // Escaped ASCII punctuation is itself.
        _ if c < 0x80 && !is_alnum(c) => Ok((c, t)),
        _ => invalid(t),
    }
}

/// A character of a class at the start of `s` (`whole` is the class, for the error).
fn parse_class_char<'t>(s: &'t str, whole: &str) -> R<(u32, &'t str)> {
    if s.is_empty() {
        return Err(error(ERR_MISSING_BRACKET, whole));
    }
    if s.starts_with('\\') {
        return parse_escape(s);
    }
    Ok(next_rune(s))
}

/// The smallest rune case folding makes equivalent to `r`.
fn min_fold_rune(r: u32) -> u32 {
    if !(MIN_FOLD..=MAX_FOLD).contains(&r) {
        return r;
    }
    let mut m = r;
    let mut f = unicode::simple_fold(r);
    while f != r {
        m = m.min(f);
        f = unicode::simple_fold(f);
    }
    m
}

/// Sorts the ranges, merging those that overlap or abut.
pub(super) fn clean_class(mut r: Runes) -> Runes {
    let mut pairs: Vec<(u32, u32)> = r.chunks(2).map(|p| (p[0], p[1])).collect();
    // lo increasing, hi decreasing.
    pairs.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    r.clear();
    for (lo, hi) in pairs {
        let n = r.len();
        if n >= 2 && lo <= r[n - 1] + 1 {
            if hi > r[n - 1] {
                r[n - 1] = hi;
            }
            continue;
        }
        r.extend([lo, hi]);
    }
    r
}

/// `r` with the literal `x` (and its case-folding equivalents when `flags` folds) appended.
fn append_literal(r: Runes, x: u32, flags: Flags) -> Runes {
    if flags & FOLD_CASE != 0 {
        return append_folded_range(r, x, x);
    }
    append_range(r, x, x)
}

/// `r` with `lo-hi` appended, merged into the last or next-to-last range when they overlap
/// or abut.
fn append_range(mut r: Runes, lo: u32, hi: u32) -> Runes {
    let n = r.len();
    for i in [2, 4] {
        if n >= i {
            let (rlo, rhi) = (r[n - i], r[n - i + 1]);
            if lo <= rhi + 1 && rlo <= hi + 1 {
                if lo < rlo {
                    r[n - i] = lo;
                }
                if hi > rhi {
                    r[n - i + 1] = hi;
                }
                return r;
            }
        }
    }
    r.extend([lo, hi]);
    r
}

/// `r` with `lo-hi` and its case-folding equivalents appended.
fn append_folded_range(mut r: Runes, mut lo: u32, mut hi: u32) -> Runes {
    if lo <= MIN_FOLD && hi >= MAX_FOLD {
        // Folding cannot add more.
        return append_range(r, lo, hi);
    }
    if hi < MIN_FOLD || lo > MAX_FOLD {
        // Nothing here folds.
        return append_range(r, lo, hi);
    }
    if lo < MIN_FOLD {
        r = append_range(r, lo, MIN_FOLD - 1);
        lo = MIN_FOLD;
    }
    if hi > MAX_FOLD {
        r = append_range(r, MAX_FOLD + 1, hi);
        hi = MAX_FOLD;
    }
    for c in lo..=hi {
        r = append_range(r, c, c);
        let mut f = unicode::simple_fold(c);
        while f != c {
            r = append_range(r, f, f);
            f = unicode::simple_fold(f);
        }
    }
    r
}

/// `r` with the (clean) class `x` appended.
fn append_class(mut r: Runes, x: &[u32]) -> Runes {
    for pair in x.chunks(2) {
        r = append_range(r, pair[0], pair[1]);
    }
    r
}

fn append_folded_class(mut r: Runes, x: &[u32]) -> Runes {
    for pair in x.chunks(2) {
        r = append_folded_range(r, pair[0], pair[1]);
    }
    r
}

/// `r` with the negation of the (clean) class `x` appended.
fn append_negated_class(mut r: Runes, x: &[u32]) -> Runes {
    let mut next_lo = 0u32;
    for pair in x.chunks(2) {
        let (lo, hi) = (pair[0], pair[1]);
        if lo > next_lo {
            r = append_range(r, next_lo, lo - 1);
        }
        next_lo = hi + 1;
    }
    if next_lo <= MAX_RUNE {
        r = append_range(r, next_lo, MAX_RUNE);
    }
    r
}

/// The negation of the clean class `r`.
fn negate_class(r: Runes) -> Runes {
    append_negated_class(Vec::new(), &r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(pattern: &str) -> String {
        match parse(pattern) {
            Ok(_) => "ok".to_string(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn errors_are_go_s() {
        let cases = [
            ("a**", "invalid nested repetition operator: `**`"),
            ("a*?*", "invalid nested repetition operator: `*?*`"),
            ("x{2}{3}", "invalid nested repetition operator: `{2}{3}`"),
            ("*a", "missing argument to repetition operator: `*`"),
            ("(*)", "missing argument to repetition operator: `*`"),
            ("a|*", "missing argument to repetition operator: `*`"),
            ("(a", "missing closing ): `(a`"),
            ("a)", "unexpected ): `a)`"),
            ("[a", "missing closing ]: `[a`"),
            ("x[]", "missing closing ]: `[]`"),
            ("[z-a]", "invalid character class range: `z-a`"),
            ("[[:foo:]]", "invalid character class range: `[:foo:]`"),
            ("\\8", "invalid escape sequence: `\\8`"),
            ("\\1", "invalid escape sequence: `\\1`"),
            ("\\C", "invalid escape sequence: `\\C`"),
            ("\\Z", "invalid escape sequence: `\\Z`"),
            ("[\\b]", "invalid escape sequence: `\\b`"),
            ("\\é", "invalid escape sequence: `\\é`"),
            ("\\xZ1", "invalid escape sequence: `\\xZ1`"),
            ("\\x{}", "invalid escape sequence: `\\x{}`"),
            ("\\x{110000}", "invalid escape sequence: `\\x{110000`"),
            ("a\\", "trailing backslash at end of expression: ``"),
            ("\\p{Foo}", "invalid character class range: `\\p{Foo}`"),
            (
                "\\p{Old_Italic}",
                "invalid character class range: `\\p{Old_Italic}`",
            ),
            ("\\p", "invalid character class range: `\\p`"),
            ("\\p{L", "invalid character class range: `\\p{L`"),
            (
                "(?P<n>a)(?P=n)",
                "invalid or unsupported Perl syntax: `(?P`",
            ),
            ("(?<=a)", "invalid named capture: `(?<=a)`"),
            ("(?P<>a)", "invalid named capture: `(?P<>`"),
            ("(?i", "invalid or unsupported Perl syntax: `(?i`"),
            ("(?-)", "invalid or unsupported Perl syntax: `(?-)`"),
            ("(?x)", "invalid or unsupported Perl syntax: `(?x`"),
            ("a{1001}", "invalid repeat count: `{1001}`"),
            ("a{2,1}", "invalid repeat count: `{2,1}`"),
            ("(a{10}){101}", "invalid repeat count: `{101}`"),
        ];
        for (pattern, want) in cases {
            assert_eq!(
                err(pattern),
                format!("error parsing regexp: {want}"),
                "{pattern}"
            );
        }
        for pattern in [
            "[\\w-\\.]",
            "a{,5}",
            "a{",
            "(?)",
            "(?i)(?-i:a)",
            "(?<name>a)",
            "\\Qa.b",
            "[[:^alpha:]\\pL\\PN\\p{^Greek}]",
            "\\p{Letter}\\p{greek}\\p{Assigned}\\p{ascii}",
            "^*",
            "\\x{10FFFF}\\x41\\0\\012\\177",
        ] {
            assert_eq!(err(pattern), "ok", "{pattern}");
        }
    }

    #[test]
    fn nesting_and_size_limits() {
        let deep = format!("{}a{}", "(".repeat(1000), ")".repeat(1000));
        assert_eq!(
            err(&deep),
            format!("error parsing regexp: expression nests too deeply: `{deep}`")
        );
        let fine = format!("{}a{}", "(".repeat(990), ")".repeat(990));
        assert_eq!(err(&fine), "ok");
        let large = "((((((((((a{2}){2}){2}){2}){2}){2}){2}){2}){2}){2}){2}".to_string();
        assert!(
            err(&large).contains("invalid repeat count"),
            "{}",
            err(&large)
        );
        let big = "[a-z]{1000}".repeat(4);
        assert_eq!(err(&big), "ok");
    }
}
