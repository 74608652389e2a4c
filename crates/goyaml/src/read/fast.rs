//! A fast reader for the plain block YAML that emitters write (Istio's CRDs: 1 MB of it per
//! render): block mappings and sequences, plain, single-quoted, simple double-quoted and `|`/`|-`
//! literal scalars, `[]` and `{}`. It gives up (`None`) on anything else, and on anything it is
//! not sure go-yaml reads the same way (tabs, non-ASCII bytes, comments after the start, flow
//! collections, anchors, tags, keys that are not plain words); the caller then takes libyaml.
//! Debug builds check every accepted document against libyaml's reading.

use std::rc::Rc;

use crate::fast_repeats::{Copies, MIN_DOCUMENT, Repeats};
use crate::read::{TIMESTAMP_TAG, YMap, YVal, resolve_non_string};
use crate::verbatim::{Span, Verbatim};

/// go-yaml's value for one document, when it is in the subset. With `share_repeats`, blocks
/// that repeat are read once and copied (worth it for a tree that is kept and copied; finding
/// them costs 40% of reading a large document that is looked at once).
pub(crate) fn decode(input: &[u8], share_repeats: bool) -> Option<YVal> {
    if !in_subset(input) {
        return None;
    }
    Reader::document(input, share_repeats)?.read_document()
}

/// What reading a large document is prepared with: its blocks that look repeated and its
/// blocks already written as `toYaml` writes them. A pure function of the text and plain
/// data, so that it can be made on another thread (see `ahead`).
pub(crate) struct Prepared {
    repeats: Option<Repeats>,
    verbatim: Vec<Span>,
}

/// The preparation of `text` for [`decode_prepared`]; `None` when the fast reader does not
/// take it.
pub(crate) fn prepare(text: &str) -> Option<Prepared> {
    if !in_subset(text.as_bytes()) {
        return None;
    }
    let mut repeats = Reader::document(text.as_bytes(), true)?.repeats;
    let verbatim = crate::verbatim::find(text, repeats.as_ref());
    let kept: usize = verbatim
        .iter()
        .map(|v| (v.end() - v.start()) as usize)
        .sum();
    // Copies of repeated blocks pay off only where much is left to read.
    if kept >= text.len() / 2 {
        repeats = None;
    }
    Some(Prepared { repeats, verbatim })
}

/// [`decode`] of the document `text` as [`prepare`] prepared it, leaving the document's
/// [`Verbatim`] blocks as they are (see `verbatim`).
pub(crate) fn decode_prepared(text: &gotemplate::Str, prepared: Prepared) -> Option<YVal> {
    let mut reader = Reader::document(text.as_bytes(), false)?;
    reader.repeats = prepared.repeats;
    reader.verbatim = prepared
        .verbatim
        .into_iter()
        .map(|span| Rc::new(Verbatim::new(text.clone(), span)))
        .collect();
    reader.read_document()
}

/// No tabs, carriage returns or other controls (DEL included, which libyaml refuses even in a
/// comment); UTF-8 only with characters libyaml takes as they are (no BOM, no NEL or other line
/// breaks, no C1 controls or noncharacters).
fn in_subset(input: &[u8]) -> bool {
    // A pass without branches per byte, which the compiler vectorizes.
    let control = |chunk: &[u8]| {
        chunk.iter().fold(false, |found, &b| {
            found | ((b < 0x20) & (b != b'\n')) | (b == 0x7f)
        })
    };
    if input.chunks(4096).any(control) {
        return false;
    }
    if input.is_ascii() {
        return true;
    }
    let Ok(text) = std::str::from_utf8(input) else {
        return false;
    };
    text.chars().all(|c| {
        c.is_ascii()
            || matches!(c, '\u{a0}'..='\u{2027}' | '\u{202a}'..='\u{d7ff}' | '\u{e000}'..='\u{fefe}'
                | '\u{ff00}'..='\u{fffd}' | '\u{10000}'..)
    })
}

pub(crate) struct Reader<'a> {
    pub s: &'a [u8],
    /// Always the start of a line.
    pub pos: usize,
    /// Nesting of collections, bounded so that deep input cannot exhaust the stack here.
    depth: usize,
    /// The document's large blocks that look repeated, when it has any, and the values of
    /// those read so far.
    repeats: Option<Repeats>,
    copies: Copies,
    /// How many repeated blocks are being read for the first time around the current line (the
    /// outermost one is remembered whole, so the ones inside it are not).
    first_readings: usize,
    /// Blocks not to read, in the order they start, and the next one ahead.
    verbatim: Vec<Rc<Verbatim>>,
    next_verbatim: usize,
}

const MAX_DEPTH: usize = 200;

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'/' | b'$')
}

impl<'a> Reader<'a> {
    /// A reader at the start of the content of a document whose text is in the subset
    /// (`in_subset`), looking for repeated blocks if `repeats` and the document is large.
    pub fn document(input: &'a [u8], repeats: bool) -> Option<Reader<'a>> {
        let mut p = Reader::from_line(input, 0);
        if repeats && input.len() >= MIN_DOCUMENT {
            p.repeats = Repeats::of(input);
        }
        // Comment lines before the content (istioctl's CRD file starts with one).
        loop {
            let ind = p.indent();
            match p.s.get(p.pos + ind) {
                Some(b'#') | Some(b'\n') => p.next_line(),
                _ => break,
            }
        }
        if p.pos >= p.s.len() || p.indent() != 0 {
            return None;
        }
        Some(p)
    }

    /// A reader at `pos`, the start of a line of `s` (no repeats are looked for).
    pub fn from_line(s: &'a [u8], pos: usize) -> Reader<'a> {
        Reader {
            s,
            pos,
            depth: 0,
            repeats: None,
            copies: Copies::default(),
            first_readings: 0,
            verbatim: Vec::new(),
            next_verbatim: 0,
        }
    }

    fn read_document(mut self) -> Option<YVal> {
        let v = self.block_at(0, None)?;
        self.skip_blank_lines()?;
        if self.pos < self.s.len() {
            return None;
        }
        Some(v)
    }

    /// One level deeper, unless that is too deep.
    pub fn enter(&mut self) -> Option<()> {
        self.depth += 1;
        (self.depth <= MAX_DEPTH).then_some(())
    }

    pub fn leave(&mut self) {
        self.depth -= 1;
    }

    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The verbatim block whose output starts at `from`, if there is one: the reader moves to
    /// the line after it.
    fn take_verbatim(&mut self, from: usize) -> Option<YVal> {
        while self
            .verbatim
            .get(self.next_verbatim)
            .is_some_and(|v| (v.start() as usize) < from)
        {
            self.next_verbatim += 1;
        }
        let v = self.verbatim.get(self.next_verbatim)?;
        if v.start() as usize != from {
            return None;
        }
        self.pos = (v.end() as usize + 1).min(self.s.len());
        self.next_verbatim += 1;
        Some(YVal::Verbatim(v.clone()))
    }

    pub fn at(&self, i: usize) -> u8 {
        self.s.get(i).copied().unwrap_or(b'\n')
    }

    pub fn line_end(&self, from: usize) -> usize {
        memchr::memchr(b'\n', &self.s[from..]).map_or(self.s.len(), |n| from + n)
    }

    pub fn next_line(&mut self) {
        self.past_line_end(self.line_end(self.pos));
    }

    /// To the line after the current one, whose end (its `\n`, or the document's end) the
    /// caller found already.
    pub fn past_line_end(&mut self, end: usize) {
        self.pos = (end + 1).min(self.s.len());
    }

    pub fn indent(&self) -> usize {
        crate::leading_spaces(&self.s[self.pos..])
    }

    fn is_blank_line(&self) -> bool {
        self.at(self.pos + self.indent()) == b'\n'
    }

    /// Skips blank lines and comment lines (between nodes, where the scanner skips them
    /// whatever their indentation); a document marker or directive gives up.
    pub fn skip_blank_lines(&mut self) -> Option<()> {
        while self.pos < self.s.len() {
            let ind = self.indent();
            let c = self.at(self.pos + ind);
            if c == b'\n' || c == b'#' {
                self.next_line();
                continue;
            }
            if ind == 0 && matches!(c, b'-' | b'.' | b'%') && self.is_marker() {
                return None;
            }
            return Some(());
        }
        Some(())
    }

    fn is_marker(&self) -> bool {
        let line = &self.s[self.pos..self.line_end(self.pos)];
        line.starts_with(b"---") || line.starts_with(b"...") || line.starts_with(b"%")
    }

    pub fn is_seq_entry(&self, c: usize) -> bool {
        self.at(c) == b'-' && matches!(self.at(c + 1), b' ' | b'\n')
    }

    /// A block collection whose first entry is at column `col` of the current line (`start`:
    /// where it starts, when not at the line's indentation, for `- key: …`).
    pub fn block_at(&mut self, col: usize, start: Option<usize>) -> Option<YVal> {
        let c = start.unwrap_or(self.pos + col);
        self.enter()?;
        let v = if self.is_seq_entry(c) {
            self.sequence(col)
        } else {
            self.mapping(col, start)
        };
        self.leave();
        v
    }

    /// `key:` at `c`: the key and the index after the colon.
    pub fn key(&self, c: usize) -> Option<(YVal, usize)> {
        self.key_text(c)
            .map(|(text, after)| (YVal::Str(text.into()), after))
    }

    /// [`Reader::key`] without the value: the key's text, as it is in the document.
    pub fn key_text(&self, c: usize) -> Option<(&'a [u8], usize)> {
        let s: &'a [u8] = self.s;
        let (key, after) = match self.at(c) {
            q @ (b'\'' | b'"') => {
                let end = s[c + 1..self.line_end(c)]
                    .iter()
                    .position(|&b| b == q)
                    .map(|n| c + 1 + n)?;
                let text = &s[c + 1..end];
                if text.contains(&b'\\') || text.contains(&b'\'') || self.at(end + 1) != b':' {
                    return None;
                }
                (text, end + 2)
            }
            b if is_word(b) && b != b'-' => {
                let mut i = c;
                while is_word(self.at(i)) {
                    i += 1;
                }
                if self.at(i) != b':' {
                    return None;
                }
                let text = crate::text_of(&s[c..i])?;
                // A key that reads as something else (`true`, `1`, `null`, a date) is left to
                // the general reader.
                if resolve_non_string("", text).is_some() {
                    return None;
                }
                (text.as_bytes(), i + 1)
            }
            _ => return None,
        };
        // libyaml takes a key of more than 1024 characters as no key at all.
        (after - c < 1000 && matches!(self.at(after), b' ' | b'\n')).then_some((key, after))
    }

    fn mapping(&mut self, col: usize, mut start: Option<usize>) -> Option<YVal> {
        let mut entries = Vec::new();
        loop {
            let c = start.take().unwrap_or(self.pos + col);
            let (key, after) = self.key(c)?;
            let value = self.value_after(after, col)?;
            entries.push((key, value));
            self.skip_blank_lines()?;
            if self.pos >= self.s.len() {
                break;
            }
            let ind = self.indent();
            if ind < col {
                break;
            }
            if ind > col || self.is_seq_entry(self.pos + ind) {
                return None;
            }
        }
        Some(YVal::Map(build_map(entries)))
    }

    fn sequence(&mut self, col: usize) -> Option<YVal> {
        let mut items = Vec::new();
        loop {
            let c = self.pos + col;
            let item = if self.at(c + 1) == b'\n' {
                self.nested(col, false)?
            } else {
                let q = c + 1 + crate::leading_spaces(&self.s[c + 1..]);
                if self.is_seq_entry(q) || self.at(q) == b'\n' {
                    return None;
                }
                if self.key(q).is_some() {
                    match self.take_verbatim(c + 1) {
                        Some(v) => v,
                        None => self.block_at(q - self.pos, Some(q))?,
                    }
                } else {
                    self.scalar(q, col)?
                }
            };
            items.push(item);
            self.skip_blank_lines()?;
            if self.pos >= self.s.len() {
                break;
            }
            let ind = self.indent();
            if ind < col || (ind == col && !self.is_seq_entry(self.pos + ind)) {
                break;
            }
            if ind > col {
                return None;
            }
        }
        Some(YVal::Seq(items))
    }

    /// The value after `key:` (at `after`) of a mapping at column `col`.
    fn value_after(&mut self, after: usize, col: usize) -> Option<YVal> {
        let q = after + crate::leading_spaces(&self.s[after..]);
        if self.at(q) == b'\n' || (q > after && self.at(q) == b'#') {
            if let Some(v) = self.take_verbatim(after) {
                return Some(v);
            }
            return self.nested(col, true);
        }
        self.scalar(q, col)
    }

    /// A node on the lines after the current one (more indented than `col`, or an indentless
    /// sequence at `col` after a mapping key); null when there is none.
    fn nested(&mut self, col: usize, in_mapping: bool) -> Option<YVal> {
        self.next_line();
        self.skip_blank_lines()?;
        if self.pos >= self.s.len() {
            return Some(YVal::Nil);
        }
        let ind = self.indent();
        if ind > col {
            return self.block_or_copy(ind);
        }
        if in_mapping && ind == col && self.is_seq_entry(self.pos + ind) {
            return self.block_at(col, None);
        }
        Some(YVal::Nil)
    }

    /// [`Reader::block_at`] of the block at column `ind` that starts on the current line, or a
    /// copy of the value of an earlier block with the same text (see `fast_repeats`).
    fn block_or_copy(&mut self, ind: usize) -> Option<YVal> {
        let start = self.pos;
        let Some((end, key)) = self.repeats.as_ref().and_then(|r| r.block_at(start)) else {
            return self.block_at(ind, None);
        };
        // After a document marker the reader gives up; the copy must not hide that.
        let after = &self.s[end..];
        if after.starts_with(b"---") || after.starts_with(b"...") || after.starts_with(b"%") {
            return self.block_at(ind, None);
        }
        if let Some(copy) = self.copies.copy_of(self.s, start, end, key, self.depth) {
            self.pos = end;
            return Some(copy);
        }
        self.first_readings += 1;
        let value = self.block_at(ind, None);
        self.first_readings -= 1;
        let value = value?;
        // Remembered only when the reading ended where the block ends, as a copy's will.
        if self.pos == end && self.first_readings == 0 {
            self.copies.remember(start, end, key, self.depth, &value);
        }
        Some(value)
    }

    /// A scalar starting at `q` on the current line, in a collection at column `col`; moves to
    /// the line after it.
    pub fn scalar(&mut self, q: usize, col: usize) -> Option<YVal> {
        let end = self.line_end(q);
        let rest = &self.s[q..end];
        match rest[0] {
            b'\'' => return self.single_quoted(q, col),
            b'"' => {
                let v = double_quoted(rest)?;
                self.next_line();
                return Some(YVal::Str(v.into()));
            }
            b'|' => return self.literal(rest, col),
            b'[' | b'{' => {
                let v = match trim_end(rest) {
                    b"[]" => YVal::Seq(Vec::new()),
                    b"{}" => YVal::Map(YMap::default()),
                    line if line[0] == b'[' => flow_sequence(line)?,
                    _ => return None,
                };
                self.next_line();
                return Some(v);
            }
            // Indicators, except a `-` that starts a plain scalar (`-1`, `-x`).
            b'-' if !self.is_seq_entry(q) => {}
            b'&' | b'*' | b'!' | b'%' | b'@' | b'`' | b'>' | b'#' | b',' | b']' | b'}' | b'?'
            | b':' | b'-' => return None,
            _ => {}
        }
        let (first, commented) = match rest.windows(2).position(|w| w == b" #") {
            Some(n) => (&rest[..n], true),
            None => (rest, false),
        };
        let mut text = plain_line(first)?.to_vec();
        self.next_line();
        if commented {
            // A comment ends the scalar; a more indented line after it is not a continuation.
            let save = self.pos;
            self.skip_blank_lines()?;
            if self.pos < self.s.len() && self.indent() > col {
                return None;
            }
            self.pos = save;
            return Some(resolve_plain_text(text));
        }
        // Continuation lines (more indented than the collection) fold into the scalar.
        let mut breaks = 0;
        let mut look = self.pos;
        loop {
            if look >= self.s.len() {
                break;
            }
            let le = self.line_end(look);
            let line = &self.s[look..le];
            let ind = crate::leading_spaces(line);
            if ind == line.len() {
                breaks += 1;
                look = (le + 1).min(self.s.len());
                continue;
            }
            if ind <= col {
                break;
            }
            let content = plain_line(&line[ind..])?;
            if content[0] == b'#' || content[0] == b'-' {
                return None;
            }
            if breaks == 0 {
                text.push(b' ');
            } else {
                text.extend(std::iter::repeat_n(b'\n', breaks));
            }
            breaks = 0;
            text.extend_from_slice(content);
            look = (le + 1).min(self.s.len());
            self.pos = look;
        }
        Some(resolve_plain_text(text))
    }

    fn single_quoted(&mut self, q: usize, col: usize) -> Option<YVal> {
        let mut out = Vec::new();
        let mut i = q + 1;
        loop {
            match self.s.get(i).copied() {
                None => return None,
                Some(b'\'') if self.at(i + 1) == b'\'' => {
                    out.push(b'\'');
                    i += 2;
                }
                Some(b'\'') => {
                    i += 1;
                    break;
                }
                Some(b'\n') => {
                    // Folding: trailing spaces go, one break is a space, more are newlines.
                    while out.last() == Some(&b' ') {
                        out.pop();
                    }
                    let mut breaks = 0;
                    while self.s.get(i) == Some(&b'\n') {
                        i += 1;
                        let ind = crate::leading_spaces(&self.s[i..]);
                        if self.at(i + ind) != b'\n' && ind <= col {
                            return None;
                        }
                        i += ind;
                        breaks += 1;
                    }
                    if breaks == 1 {
                        out.push(b' ');
                    } else {
                        out.extend(std::iter::repeat_n(b'\n', breaks - 1));
                    }
                }
                Some(b) => {
                    out.push(b);
                    i += 1;
                }
            }
        }
        let le = self.line_end(i);
        if !rest_is_empty(&self.s[i..le]) {
            return None;
        }
        self.pos = (le + 1).min(self.s.len());
        Some(YVal::Str(out.into()))
    }

    /// `|` or `|-`, perhaps with an indentation indicator (`|2-`, as the emitter writes for
    /// text that starts with a space), and the lines of the block after it.
    fn literal(&mut self, head: &[u8], col: usize) -> Option<YVal> {
        let (explicit, keep_last) = match trim_end(head) {
            b"|" => (None, true),
            b"|-" => (None, false),
            [b'|', d @ b'1'..=b'9'] => (Some(usize::from(d - b'0')), true),
            [b'|', d @ b'1'..=b'9', b'-'] => (Some(usize::from(d - b'0')), false),
            _ => return None,
        };
        self.next_line();
        if self.pos >= self.s.len() {
            return None;
        }
        // libyaml: the indicator counts from the enclosing collection's indentation; without
        // one, the first line decides (leading blank lines would take part: left to libyaml).
        let n = match explicit {
            Some(d) => col + d,
            None if self.is_blank_line() => return None,
            None => self.indent(),
        };
        if n <= col || (!self.is_blank_line() && self.indent() < n) {
            return None;
        }
        // Two passes over the block's lines: the first measures what they make, the second
        // writes it into a string of that size (block scalars are often large, a ConfigMap's
        // templates, and a growing copy of one is fresh pages at each doubling).
        let (len, end) = self.literal_lines(n, keep_last, |_| {});
        let len = len?;
        // SAFETY: a zeroed byte is an initialized `u8`.
        let mut value = unsafe { Rc::<[u8]>::new_zeroed_slice(len).assume_init() };
        let out = Rc::get_mut(&mut value).expect("a new Rc is not shared");
        let mut at = 0;
        self.literal_lines(n, keep_last, |piece| {
            out[at..at + piece.len()].copy_from_slice(piece);
            at += piece.len();
        });
        self.pos = end;
        Some(YVal::Str(value))
    }

    /// The lines of a literal block scalar from here, with content at indentation `n`: each
    /// piece of its value (its last line break kept when `keep_last`) given to `write` in
    /// order. Returns the value's length (`None` when the block has no content, left
    /// to libyaml) and where the block ends; this reader does not move.
    fn literal_lines(
        &self,
        n: usize,
        keep_last: bool,
        mut write: impl FnMut(&[u8]),
    ) -> (Option<usize>, usize) {
        let mut len = 0;
        let mut put = |piece: &[u8]| {
            len += piece.len();
            write(piece);
        };
        let mut pos = self.pos;
        let mut pending = 0usize;
        let mut last_had_break = false;
        let mut seen_content = false;
        while pos < self.s.len() {
            let le = self.line_end(pos);
            let line = &self.s[pos..le];
            let ind = crate::leading_spaces(line);
            if ind == line.len() && ind <= n {
                pending += 1;
            } else if ind < n {
                break;
            } else {
                for _ in 0..pending + usize::from(seen_content) {
                    put(b"\n");
                }
                pending = 0;
                put(&line[n..]);
                seen_content = true;
                last_had_break = le < self.s.len();
            }
            pos = (le + 1).min(self.s.len());
        }
        if !seen_content {
            return (None, pos);
        }
        if keep_last && last_had_break {
            put(b"\n");
        }
        (Some(len), pos)
    }
}

/// The map of string-keyed entries in document order: without a key index when the keys are
/// distinct (the usual case; nothing sets into a decoded map), else as go-yaml's `m[k] = v`
/// builds it (a repeated key keeps its first place and takes the last value).
fn build_map(entries: Vec<(YVal, YVal)>) -> YMap {
    fn key(e: &(YVal, YVal)) -> &[u8] {
        match &e.0 {
            YVal::Str(s) => s,
            _ => unreachable!("the fast reader's keys are strings"),
        }
    }
    let distinct = if entries.len() <= 16 {
        (1..entries.len()).all(|i| (0..i).all(|j| key(&entries[i]) != key(&entries[j])))
    } else {
        let mut keys: Vec<_> = entries.iter().map(key).collect();
        keys.sort_unstable();
        keys.windows(2).all(|w| w[0] != w[1])
    };
    if distinct {
        return YMap::from_distinct(entries);
    }
    let mut out = YMap::default();
    for (k, v) in entries {
        out.set(k, v);
    }
    out
}

/// An untagged plain scalar's value, as go-yaml's decoder resolves it (timestamps stay text).
fn resolve_plain_text(text: Vec<u8>) -> YVal {
    let Ok(s) = std::str::from_utf8(&text) else {
        return YVal::Str(text.into());
    };
    match resolve_non_string("", s) {
        Some((tag, v)) if tag != TIMESTAMP_TAG => v,
        _ => YVal::Str(text.into()),
    }
}

/// What may follow a closed scalar on its line: spaces, then perhaps a comment.
fn rest_is_empty(rest: &[u8]) -> bool {
    let n = crate::leading_spaces(rest);
    n == rest.len() || (n > 0 && rest[n] == b'#')
}

fn trim_end(s: &[u8]) -> &[u8] {
    let n = s.iter().rev().take_while(|&&b| b == b' ').count();
    &s[..s.len() - n]
}

/// One line of a plain scalar without its trailing spaces, when nothing in it could end the
/// scalar or start a comment.
fn plain_line(line: &[u8]) -> Option<&[u8]> {
    let t = trim_end(line);
    if t.is_empty() || t.ends_with(b":") || t.windows(2).any(|w| w == b": " || w == b" #") {
        return None;
    }
    Some(t)
}

/// A flow sequence of scalars on one line, as charts write RBAC rules (`verbs: ["get",
/// "list"]`): quoted items, or plain ones of word characters; anything else (nesting, empty
/// or trailing items, comments, other characters) is left to the general reader.
fn flow_sequence(line: &[u8]) -> Option<YVal> {
    let body = line.strip_prefix(b"[")?.strip_suffix(b"]")?;
    let mut items = Vec::new();
    let mut i = 0;
    loop {
        i += crate::leading_spaces(&body[i..]);
        let (item, end) = match *body.get(i)? {
            b'"' => {
                let close = i + 1 + closing_double_quote(&body[i + 1..])?;
                (
                    YVal::Str(double_quoted(&body[i..=close])?.into()),
                    close + 1,
                )
            }
            b'\'' => {
                // `''` (a quote inside) is left to the general reader.
                let close = i + 1 + body[i + 1..].iter().position(|&b| b == b'\'')?;
                if body.get(close + 1) == Some(&b'\'') {
                    return None;
                }
                (YVal::Str(body[i + 1..close].into()), close + 1)
            }
            b if is_word(b) && b != b'-' => {
                let n = body[i..].iter().take_while(|&&b| is_word(b)).count();
                (resolve_plain_text(body[i..i + n].to_vec()), i + n)
            }
            _ => return None,
        };
        items.push(item);
        i = end + crate::leading_spaces(&body[end..]);
        match body.get(i) {
            None => return Some(YVal::Seq(items)),
            Some(b',') => i += 1,
            Some(_) => return None,
        }
    }
}

/// Where the double-quoted scalar that `s` starts inside of ends (the index of its closing
/// quote in `s`).
fn closing_double_quote(s: &[u8]) -> Option<usize> {
    let mut i = 0;
    loop {
        match *s.get(i)? {
            b'"' => return Some(i),
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
}

/// A double-quoted scalar that ends on its line, with the common escapes only.
fn double_quoted(rest: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut i = 1;
    loop {
        match *rest.get(i)? {
            b'"' => break,
            b'\\' => {
                out.push(match *rest.get(i + 1)? {
                    b'"' => b'"',
                    b'\\' => b'\\',
                    b'/' => b'/',
                    b'n' => b'\n',
                    b't' => b'\t',
                    _ => return None,
                });
                i += 2;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    if !rest_is_empty(&rest[i + 1..]) {
        return None;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    /// Each input through `decode_first`, which in test builds checks the fast reader's value
    /// (when it takes the input) against libyaml's; also counts what the fast reader takes.
    #[test]
    fn fast_reader_agrees_with_libyaml() {
        let cases: &[&str] = &[
            "a: 1\nb: true\nc: null\nd: ~\ne: 1.5\nf: 0x1F\ng: 2001-12-14\nh: yes\n",
            "a:\n  b:\n    c: d\n  e: f\n",
            "a:\n- 1\n- x\n-\n- - y\n",
            "a:\n  - b: 1\n    c: 2\n  - d\n",
            "- a: 1\n  b:\n  - c\n- e\n",
            "a: 'it''s\n  folded\n\n  here'\nb: x\n",
            "a: \"q \\\" \\\\ \\n x\"\n",
            "a: plain text\n  continued here\n\n  and a new line\nb: c\n",
            "a: |\n  line 1\n\n  line 3\n   indented\nb: |-\n  x\n  y\n\n\nc: d\n",
            "a: |\n  at end",
            "a: |-\n  at end\n",
            "a: []\nb: {}\nc: [1]\n",
            "# head\n# more\napiVersion: v1\nkind: X\n",
            "a: 1\n# mid comment\nb: 2\n",
            "a: b # c\n",
            "a: b:c\nd: e:f g\n",
            "a:b\n",
            "\"helm.sh/x\": keep\n'q': 1\n",
            "true: 1\n1: 2\nnull: 3\n",
            "a: 1\na: 2\n",
            "a: &x 1\nb: *x\n",
            "a:\n  b: 1\n c: 2\n",
            "a: 1\n  b: 2\n",
            "- a\n-b\n",
            "a: -1\nb: -x\nc: - y\n",
            "---\na: 1\n",
            "a: 1\n---\nb: 2\n",
            "a:\n\tb: 1\n",
            "x-kubernetes-int-or-string: true\n$ref: y\n",
            "a:\n  text\n",
            "a: 'x'\nb: 'y' z\n",
            "a: |2\n   x\n",
            "a:\n  b: |2-\n     lead\n    next\n  c: |1\n    x\n",
            "- |2\n   x\n- b\n",
            "a:\n  b: |2-\n\n\n      x\n     y\n  c: |2\n\n  d: 1\n",
            "a: b # note\nc: 'd' # note\ne: \"f\" # g\nh: # empty\n  i: 1\n# between\nj: k # x\n   more\n",
            "a: é ü 中\nb: \u{2028}x\n",
            "a: >\n  x\n",
            "",
            "\n\n",
            "- \n",
            "a: [\"get\", \"list\", watch]\nb: ['x', 1, true, null, 1.5]\n- [a]\n",
            "rules:\n- apiGroups: [\"\"]\n  verbs: [\"*\"]\n  resources: [ \"a\" ,\"b\" ]\n",
            "a: [a, b, ]\nb: [a b]\nc: [-x]\nd: [a, [b]]\ne: [a] # c\nf: ['it''s']\n",
            "a: [\"q \\\" , ] x\"]\nb: [x.y/z, a-b, $c]\nc: [\"a\"\n  , b]\n",
            "a: [1, 0x1F, 2001-12-14, yes, ~, '']\n",
            // DEL is a control character to libyaml, in a comment too (found by fuzzing).
            "# a \u{7f} b\na: 1\n",
            "a: b\u{7f}c\n",
        ];
        let mut taken = 0;
        for c in cases {
            if super::decode(c.as_bytes(), true).is_some() {
                taken += 1;
            }
            let _ = crate::read::decode_first(c.as_bytes());
        }
        assert!(taken >= 15, "the fast reader took only {taken} cases");
    }

    /// The RBAC rules charts write take the fast path (and read as libyaml reads them, which
    /// `decode_first` checks in test builds).
    #[test]
    fn flow_sequences_of_scalars_take_the_fast_path() {
        let rules = "rules:\n- apiGroups: [\"\", 'x']\n  verbs: [ \"get\" , list, \"a\\\"b\"]\n";
        let fast = super::decode(rules.as_bytes(), true).expect("the fast reader takes it");
        let general = crate::read::decode_first(rules.as_bytes()).expect("valid YAML");
        assert!(crate::read::same_yval(&fast, &general));
        for other in ["a: [b, [c]]\n", "a: [b, ]\n", "a: [b c]\n", "a: [b] # c\n"] {
            assert!(super::decode(other.as_bytes(), true).is_none(), "{other:?}");
        }
    }

    /// Random one-line flow sequences: whatever the fast reader takes must read as libyaml
    /// reads it (`decode_first` panics in test builds when they differ, or when the fast
    /// reader takes what go-yaml refuses).
    #[test]
    fn random_flow_sequences_read_as_libyaml_reads_them() {
        const PIECES: &[&str] = &[
            "[", "]", ",", " ", "\"", "'", "a", "1", "-", "\\", "#", ":", "x.y", "true", "~", "{",
            "\"b c\"", "'d'", "é",
        ];
        let mut rng = testkit::Xorshift::new(0x2545_f491_4f6c_dd1d);
        let mut taken = 0;
        for _ in 0..200_000 {
            let seed = rng.next();
            let inner: String = (0..(seed % 9) as usize)
                .map(|k| PIECES[((seed >> (6 * k)) % PIECES.len() as u64) as usize])
                .collect();
            let doc = format!("k: [{inner}]\n");
            taken += usize::from(super::decode(doc.as_bytes(), true).is_some());
            let _ = crate::read::decode_first(doc.as_bytes());
        }
        assert!(taken > 1000, "the fast reader took only {taken}");
    }

    /// Random literal block scalars (indicators, blank and more indented lines, what follows):
    /// whatever the fast reader takes must read as libyaml reads them.
    #[test]
    fn random_literal_blocks_read_as_libyaml_reads_them() {
        const HEADS: &[&str] = &["|", "|-", "|2", "|1-", "|+"];
        const LINES: &[&str] = &[
            "  x", "   y z", "", "  ", "    ", " w", "  é", "b: c", "  #",
        ];
        let mut rng = testkit::Xorshift::new(0x9e37_79b9_7f4a_7c15);
        let mut taken = 0;
        for _ in 0..100_000 {
            let seed = rng.next();
            let head = HEADS[(seed % HEADS.len() as u64) as usize];
            let mut doc = format!("a: {head}\n");
            for k in 0..(seed >> 8) % 7 {
                doc.push_str(LINES[((seed >> (12 + 4 * k)) % LINES.len() as u64) as usize]);
                doc.push('\n');
            }
            if seed & 0x40 != 0 {
                doc.pop();
            }
            taken += usize::from(super::decode(doc.as_bytes(), true).is_some());
            let _ = crate::read::decode_first(doc.as_bytes());
        }
        assert!(taken > 1000, "the fast reader took only {taken}");
    }
}
