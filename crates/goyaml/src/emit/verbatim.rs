//! Blocks of a large document that are already written as `toYaml` writes them.
//!
//! Istio's CRD file was written by an emitter much like go-yaml's: its keys are sorted, its
//! strings quoted and folded as go-yaml does. The base chart reads each CRD with `fromYaml`,
//! replaces its labels and writes it back with `toYaml`. For every block the template does not
//! touch (the CRD's whole `spec`, 95% of the text), the output is the input.
//!
//! [`find`] reads a document as the fast reader does and, instead of building its tree, drives
//! the emitter as `toYaml` would for the value read, comparing each block's output with the
//! block's own text as it goes (each byte is compared once, by the innermost block that is
//! still equal). The largest blocks that compare equal become [`Verbatim`] nodes: the reader
//! does not build them, and the emitter copies their text when it meets them in the state
//! they were compared in. Anything else (another state, a template reading into the block)
//! reads the block's text then.

use crate::emit::Stream;
use crate::fast::Reader;
use crate::fast_repeats::{FastMap, Key, Repeats};
use crate::read::YVal;
use crate::repeats::{StateAfter, StateBefore};

/// Blocks shorter than this are cheap to read and write; a node for them would cost more.
const MIN_BYTES: usize = 256;

/// A block mapping of a document whose text is what the emitter writes for its value (after
/// the JSON round trip `toYaml` makes) when it starts in the state `before`.
#[derive(Clone)]
pub(crate) struct Verbatim {
    text: gotemplate::Str,
    span: Span,
}

/// Where a [`Verbatim`] block lies in its document, and the emitter states it was compared
/// in: plain data, so that a document's analysis can be made on another thread.
#[derive(Clone, Copy)]
pub(crate) struct Span {
    /// The emitter's output for the block: from just after the `:` or `-` before it to the
    /// end of its last line (without the line break).
    start: u32,
    end: u32,
    /// Where the reader reads the block: the line it starts on, its column, and where it
    /// starts when that is not at the line's indentation (`- key: …`).
    line: u32,
    col: u32,
    first: Option<u32>,
    before: StateBefore,
    after: StateAfter,
    /// Whether reading the text back gives the value again (see `memo::round_trips`).
    round_trips: bool,
}

impl Span {
    /// Where the block's output starts in the document (just after the `:` or `-`).
    pub fn start(&self) -> u32 {
        self.start
    }

    /// Where it ends: before the line break of its last line.
    pub fn end(&self) -> u32 {
        self.end
    }

    /// The same block `delta` bytes further on in the document (a copy of its text there).
    fn moved(&self, delta: isize) -> Span {
        let at = |x: u32| (x as isize + delta) as u32;
        Span {
            start: at(self.start),
            end: at(self.end),
            line: at(self.line),
            first: self.first.map(at),
            ..*self
        }
    }
}

impl std::fmt::Debug for Verbatim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Verbatim({}..{})", self.span.start, self.span.end)
    }
}

impl Verbatim {
    /// The block `span` of the document `text`.
    pub(crate) fn new(text: gotemplate::Str, span: Span) -> Verbatim {
        Verbatim { text, span }
    }

    /// The emitter's output for the block, in the state [`Verbatim::before`].
    pub fn emitted(&self) -> &[u8] {
        &self.text.as_bytes()[self.span.start as usize..self.span.end as usize]
    }

    /// [`Verbatim::emitted`] as a part of the document's text, sharing its bytes.
    pub fn shared(&self) -> gotemplate::Str {
        let range = self.span.start as usize..self.span.end as usize;
        self.text.slice(&self.text[range])
    }

    /// Where the block's output starts in the document (just after the `:` or `-`).
    pub fn start(&self) -> u32 {
        self.span.start
    }

    /// Where it ends: before the line break of its last line.
    pub fn end(&self) -> u32 {
        self.span.end
    }

    /// The emitter state the block was compared in.
    pub fn before(&self) -> StateBefore {
        self.span.before
    }

    /// The emitter state after the block.
    pub fn after(&self) -> StateAfter {
        self.span.after
    }

    /// Whether reading the text back gives the value again (see `memo::round_trips`).
    pub fn round_trips(&self) -> bool {
        self.span.round_trips
    }

    /// Whether two nodes stand for the same text (then for the same value).
    pub fn same_text(&self, other: &Verbatim) -> bool {
        self.span.before == other.span.before && self.emitted() == other.emitted()
    }

    /// go-yaml's value of the block, read from its text.
    pub fn expand(&self) -> YVal {
        let span = &self.span;
        let mut reader = Reader::from_line(self.text.as_bytes(), span.line as usize);
        let value = reader.block_at(span.col as usize, span.first.map(|f| f as usize));
        // `find` read this block with the same reader before recording it.
        value.expect("a verbatim block reads as it was read when found")
    }
}

/// `v` with every verbatim block replaced by `convert` of its value (the reader's, or what
/// `convert` makes of it); `None` when `v` holds none. For the checks of debug builds.
#[cfg(debug_assertions)]
pub(crate) fn expand_all(v: &YVal, convert: &dyn Fn(&YVal) -> Option<YVal>) -> Option<YVal> {
    fn has_verbatim(v: &YVal) -> bool {
        gotemplate::stack::grow(|| match v {
            YVal::Verbatim(_) => true,
            YVal::Seq(items) => items.iter().any(has_verbatim),
            YVal::Map(m) => m.entries.iter().any(|(_, v)| has_verbatim(v)),
            _ => false,
        })
    }
    fn expand(v: &YVal, convert: &dyn Fn(&YVal) -> Option<YVal>) -> YVal {
        gotemplate::stack::grow(|| match v {
            YVal::Verbatim(block) => {
                convert(&block.expand()).expect("a verbatim block converts as it did when found")
            }
            YVal::Seq(items) => YVal::Seq(items.iter().map(|i| expand(i, convert)).collect()),
            YVal::Map(m) => YVal::Map(crate::read::YMap::from_distinct(
                m.entries
                    .iter()
                    .map(|(k, v)| (k.clone(), expand(v, convert)))
                    .collect(),
            )),
            other => other.clone(),
        })
    }
    has_verbatim(v).then(|| expand(v, convert))
}

/// The largest blocks of `text` (a document in the fast reader's subset) that are written as
/// `toYaml` writes them, in the order they start; none when the reader gives up on `text`.
/// `repeats`: the document's repeated blocks, when it has any.
pub(crate) fn find(text: &str, repeats: Option<&Repeats>) -> Vec<Span> {
    let Some(reader) = Reader::document(text.as_bytes(), false) else {
        return Vec::new();
    };
    // The output is only compared, so one buffer serves every document a thread reads.
    crate::scratch::reusing(&OUTPUT, crate::scratch::keep_bytes, |buffer| {
        let mut v = Verifier {
            r: reader,
            // The output is about as long as the text (a little longer where it quotes).
            e: Stream::with_buffer(std::mem::take(buffer), text.len() + text.len() / 8),
            open: Vec::new(),
            found: Vec::new(),
            repeats,
            seen: FastMap::default(),
            keys: Vec::new(),
        };
        let found = match v.root() {
            Some(()) => std::mem::take(&mut v.found),
            None => Vec::new(),
        };
        *buffer = v.e.into_buffer();
        found
    })
}

thread_local! {
    /// The verifier's output buffer (see [`crate::scratch`]).
    static OUTPUT: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A block being compared: where its text starts, where its output starts, and whether the
/// two are still equal.
struct Open {
    from: usize,
    out_from: usize,
    equal: bool,
}

struct Verifier<'a> {
    r: Reader<'a>,
    e: Stream,
    open: Vec<Open>,
    found: Vec<Span>,
    /// The document's blocks that look repeated (see `fast_repeats`), and those read whole.
    repeats: Option<&'a Repeats>,
    seen: FastMap<Key, Vec<Seen>>,
    /// The keys of the mappings being read, the innermost last (one buffer for all).
    keys: Vec<&'a [u8]>,
}

/// A repeated block as it was read and written the first time: a later block with the same
/// text, at the same depth and in the same emitter state, is written the same.
struct Seen {
    start: usize,
    end: usize,
    depth: usize,
    before: StateBefore,
    output: std::ops::Range<usize>,
    after: StateAfter,
    found: Found,
    is_map: bool,
    /// The verbatim blocks found in it.
    inside: Vec<Span>,
}

/// What a node's reading found out: whether its keys are in the emitter's order and each
/// once (`ordered`), and whether its text reads back as its value (`round_trips`).
#[derive(Clone, Copy)]
struct Found {
    ordered: bool,
    round_trips: bool,
}

impl Found {
    const YES: Found = Found {
        ordered: true,
        round_trips: true,
    };

    fn and(self, other: Found) -> Found {
        Found {
            ordered: self.ordered && other.ordered,
            round_trips: self.round_trips && other.round_trips,
        }
    }
}

impl<'a> Verifier<'a> {
    fn root(&mut self) -> Option<()> {
        // The document itself is never a node of its own (nothing holds it), so it is read as
        // a block whose output is not compared.
        self.r.enter()?;
        let c = self.r.pos;
        if self.r.is_seq_entry(c) {
            self.sequence(0, false)?;
        } else {
            self.mapping(0, None, false)?;
        }
        self.r.leave();
        self.r.skip_blank_lines()?;
        (self.r.pos >= self.r.s.len()).then_some(())
    }

    /// Compares the output written since `out_start` with the text it stands for, in the
    /// innermost open block.
    fn compare(&mut self, out_start: usize) {
        let Some(open) = self.open.last_mut() else {
            return;
        };
        if !open.equal {
            return;
        }
        let out = self.e.out();
        let from = open.from + (out_start - open.out_from);
        let to = from + (out.len() - out_start);
        if self.r.s.get(from..to) != Some(&out[out_start..]) {
            for o in self.open.iter_mut() {
                o.equal = false;
            }
        }
    }

    /// A block collection at column `col` (see `Reader::block_at`) whose output starts right
    /// after the source's byte `from - 1` (the `:` or `-` before it); `mapping`: the value of
    /// a mapping key.
    fn block(
        &mut self,
        col: usize,
        start: Option<usize>,
        from: usize,
        mapping: bool,
    ) -> Option<Found> {
        self.r.enter()?;
        let line = self.r.pos;
        let depth = self.r.depth();
        let before = self.e.state_before(mapping);
        let out_from = self.e.out().len();
        let found_from = self.found.len();
        self.open.push(Open {
            from,
            out_from,
            equal: true,
        });
        let repeat = match start {
            None => self.repeats.and_then(|r| r.block_at(line)),
            Some(_) => None,
        };
        let copied = repeat.and_then(|(end, key)| self.copy_of(line, end, key, depth, before));
        let (is_map, found) = match copied {
            Some(copy) => copy,
            None => {
                let c = start.unwrap_or(self.r.pos + col);
                let is_map = !self.r.is_seq_entry(c);
                let found = if is_map {
                    self.mapping(col, start, mapping)?
                } else {
                    self.sequence(col, mapping)?
                };
                (is_map, found)
            }
        };
        self.r.leave();
        let open = self.open.pop().expect("pushed above");
        let s = self.r.s;
        // The block's text ends before the line break that ends its last line.
        let end = if self.r.pos > 0 && s[self.r.pos - 1] == b'\n' {
            self.r.pos - 1
        } else {
            self.r.pos
        };
        let equal = open.equal
            && found.ordered
            && end >= from
            && end - from == self.e.out().len() - open.out_from;
        // The enclosing block compared its text up to here in its own terms; the block's
        // text must sit where its output does there too.
        let in_place = self
            .open
            .last()
            .is_none_or(|p| p.from + (open.out_from - p.out_from) == from);
        if !equal || !in_place {
            for o in self.open.iter_mut() {
                o.equal = false;
            }
        } else if is_map && end - from >= MIN_BYTES {
            // The blocks inside this one are part of it.
            while self.found.last().is_some_and(|v| v.start as usize >= from) {
                self.found.pop();
            }
            self.found.push(Span {
                start: from as u32,
                end: end as u32,
                line: line as u32,
                col: col as u32,
                first: start.map(|f| f as u32),
                before,
                after: self.e.state_after(),
                round_trips: found.round_trips,
            });
        }
        if let Some((block_end, key)) = repeat
            && copied.is_none()
            && self.r.pos == block_end
        {
            let seen = Seen {
                start: line,
                end: block_end,
                depth,
                before,
                output: out_from..self.e.out().len(),
                after: self.e.state_after(),
                found,
                is_map,
                inside: self.found[found_from..].to_vec(),
            };
            self.seen.entry(key).or_default().push(seen);
        }
        Some(found)
    }

    /// A block read before with the same text (see [`Seen`]): its output written again, its
    /// verbatim blocks found again here; whether it is a mapping, and what its reading found.
    fn copy_of(
        &mut self,
        start: usize,
        end: usize,
        key: Key,
        depth: usize,
        before: StateBefore,
    ) -> Option<(bool, Found)> {
        // After a document marker the reader gives up; the copy must not hide that.
        let after = &self.r.s[end..];
        if after.starts_with(b"---") || after.starts_with(b"...") || after.starts_with(b"%") {
            return None;
        }
        let s = self.r.s;
        let seen = self.seen.get(&key)?.iter().find(|p| {
            p.depth == depth && p.before == before && s[p.start..p.end] == s[start..end]
        })?;
        let delta = start as isize - seen.start as isize;
        let (output, after, found, is_map) =
            (seen.output.clone(), seen.after, seen.found, seen.is_map);
        self.found
            .extend(seen.inside.iter().map(|v| v.moved(delta)));
        let out_start = self.e.out().len();
        self.e.repeat_output(output, after);
        self.compare(out_start);
        self.r.pos = end;
        Some((is_map, found))
    }

    fn mapping(&mut self, col: usize, mut start: Option<usize>, mapping: bool) -> Option<Found> {
        self.e.begin_map(mapping);
        let mut found = Found::YES;
        let first_key = self.keys.len();
        loop {
            let c = start.take().unwrap_or(self.r.pos + col);
            let (key, after) = self.r.key_text(c)?;
            let out_start = self.e.out().len();
            // A key the emitter writes in the long form is left to the general path.
            let round_trips = self.e.map_key(key)?;
            found.round_trips &= round_trips;
            self.compare(out_start);
            found = found.and(self.value_after(after, col)?);
            self.keys.push(key);
            self.r.skip_blank_lines()?;
            if self.r.pos >= self.r.s.len() {
                break;
            }
            let ind = self.r.indent();
            if ind < col {
                break;
            }
            if ind > col || self.r.is_seq_entry(self.r.pos + ind) {
                return None;
            }
        }
        self.e.end_block();
        found.ordered &= crate::emit::in_emitted_order(&self.keys[first_key..]);
        self.keys.truncate(first_key);
        Some(found)
    }

    fn sequence(&mut self, col: usize, mapping: bool) -> Option<Found> {
        self.e.begin_seq(mapping);
        let mut found = Found::YES;
        loop {
            let c = self.r.pos + col;
            let out_start = self.e.out().len();
            self.e.seq_item();
            self.compare(out_start);
            let item = if self.r.at(c + 1) == b'\n' {
                self.nested(col, false, c + 1)?
            } else {
                let q = c + 1 + crate::leading_spaces(&self.r.s[c + 1..]);
                if self.r.is_seq_entry(q) || self.r.at(q) == b'\n' {
                    return None;
                }
                if self.r.key(q).is_some() {
                    let line = self.r.pos;
                    self.block(q - line, Some(q), c + 1, false)?
                } else {
                    self.scalar(q, col, false)?
                }
            };
            found = found.and(item);
            self.r.skip_blank_lines()?;
            if self.r.pos >= self.r.s.len() {
                break;
            }
            let ind = self.r.indent();
            if ind < col || (ind == col && !self.r.is_seq_entry(self.r.pos + ind)) {
                break;
            }
            if ind > col {
                return None;
            }
        }
        self.e.end_block();
        Some(found)
    }

    /// The value after `key:` (at `after`) of a mapping at column `col`.
    fn value_after(&mut self, after: usize, col: usize) -> Option<Found> {
        let q = after + crate::leading_spaces(&self.r.s[after..]);
        if self.r.at(q) == b'\n' || (q > after && self.r.at(q) == b'#') {
            return self.nested(col, true, after);
        }
        self.scalar(q, col, true)
    }

    /// `Reader::nested`, the node's output starting after the source's byte `from - 1`.
    fn nested(&mut self, col: usize, in_mapping: bool, from: usize) -> Option<Found> {
        self.r.next_line();
        self.r.skip_blank_lines()?;
        if self.r.pos < self.r.s.len() {
            let ind = self.r.indent();
            if ind > col || (in_mapping && ind == col && self.r.is_seq_entry(self.r.pos + ind)) {
                return self.block(ind, None, from, in_mapping);
            }
        }
        let out_start = self.e.out().len();
        self.e.scalar(&YVal::Nil, in_mapping)?;
        self.compare(out_start);
        Some(Found::YES)
    }

    /// The scalar at `q`, in a collection at column `col`, when it is the rest of its line:
    /// its text, when no line after it continues it.
    fn line_scalar(&self, q: usize, col: usize) -> Option<&'a [u8]> {
        let s = self.r.s;
        let end = self.r.line_end(q);
        // A more indented line after it would continue it; past a blank line the reader
        // looks further.
        let next = end + 1;
        if next < s.len() {
            let ind = crate::leading_spaces(&s[next..]);
            if matches!(s.get(next + ind), None | Some(b'\n')) || ind > col {
                return None;
            }
        }
        Some(&s[q..end])
    }

    fn scalar(&mut self, q: usize, col: usize, mapping: bool) -> Option<Found> {
        // Most of a CRD's scalars are a line of their own that reads as itself, or as a
        // number or boolean written as the emitter writes it: what `Reader::scalar` would
        // give, and `Stream::scalar` write, is known without either.
        if let Some(text) = self.line_scalar(q, col) {
            let out_start = self.e.out().len();
            let written = if crate::emit::plain_as_read(text) {
                self.e.plain_string(text, mapping);
                true
            } else {
                self.e.canonical_scalar(text, mapping)
            };
            if written {
                self.r.past_line_end(q + text.len());
                self.compare(out_start);
                return Some(Found::YES);
            }
        }
        let value = self.r.scalar(q, col)?;
        // A flow sequence on one line (the reader takes those) is not written as it is read.
        if matches!(&value, YVal::Seq(items) if !items.is_empty()) {
            return None;
        }
        let out_start = self.e.out().len();
        let round_trips = self.e.scalar(&value, mapping)?;
        self.compare(out_start);
        Some(Found {
            ordered: true,
            round_trips,
        })
    }
}
