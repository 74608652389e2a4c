//! Subtrees that one `toYaml` writes more than once. A CRD repeats the same schema under each of
//! its versions (Istio's lists three), so more than half of the base chart's output is text the
//! emitter has already written once. The emitter's output for a collection depends only on the
//! collection and the emitter's state when it starts, so the second time it copies the first.
//!
//! A hash finds the candidates; a structural comparison confirms every copy.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::ops::Range;

use crate::read::{YVal, same_yval};

/// Collections written in fewer bytes than this are cheaper to write again than to look up.
const MIN_WEIGHT: usize = 512;

/// What the emitter's output for a collection depends on, besides the collection.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct StateBefore {
    pub indent: i64,
    pub column: i64,
    pub whitespace: bool,
    pub indention: bool,
    pub mapping: bool,
    pub simple_key: bool,
}

/// The emitter's state after writing a collection (its indent is restored as it was).
#[derive(Clone, Copy)]
pub(crate) struct StateAfter {
    pub column: i64,
    pub whitespace: bool,
    pub indention: bool,
    pub mapping_context: bool,
    pub simple_key_context: bool,
}

/// One written collection: where its text is in the output, and which of the texts the
/// emitter set into its output (when it splices) fall in it.
struct Written<'a> {
    node: &'a YVal,
    text: Range<usize>,
    splices: Range<usize>,
    after: StateAfter,
}

/// The repeated collections of one tree and, once written, their text.
pub(crate) struct Repeats<'a> {
    /// Address of a collection that occurs more than once → its hash.
    repeated: HashMap<*const YVal, u64>,
    written: HashMap<(u64, StateBefore), Written<'a>>,
}

impl<'a> Repeats<'a> {
    /// The repeated collections of `root`, or `None` when nothing large occurs twice.
    pub fn of(root: &'a YVal) -> Option<Repeats<'a>> {
        let mut large = Vec::new();
        fingerprint(root, &mut large);
        if large.len() < 2 {
            return None;
        }
        let mut count: HashMap<u64, u32> = HashMap::with_capacity(large.len());
        for (_, hash) in &large {
            *count.entry(*hash).or_default() += 1;
        }
        let repeated: HashMap<*const YVal, u64> = large
            .into_iter()
            .filter(|(_, hash)| count[hash] > 1)
            .collect();
        if repeated.is_empty() {
            return None;
        }
        Some(Repeats {
            repeated,
            written: HashMap::new(),
        })
    }

    /// The hash of `node` when it is one of the repeated collections.
    pub fn hash_of(&self, node: &YVal) -> Option<u64> {
        self.repeated.get(&(node as *const YVal)).copied()
    }

    /// Where the text of a collection equal to `node`, written from the same state, is, and
    /// the texts set into it.
    pub fn find(
        &self,
        hash: u64,
        before: StateBefore,
        node: &YVal,
    ) -> Option<(Range<usize>, Range<usize>, StateAfter)> {
        let w = self.written.get(&(hash, before))?;
        (std::ptr::eq(w.node, node) || same_yval(w.node, node))
            .then(|| (w.text.clone(), w.splices.clone(), w.after))
    }

    pub fn remember(
        &mut self,
        hash: u64,
        before: StateBefore,
        node: &'a YVal,
        text: Range<usize>,
        splices: Range<usize>,
        after: StateAfter,
    ) {
        self.written.entry((hash, before)).or_insert(Written {
            node,
            text,
            splices,
            after,
        });
    }
}

/// A hash of the node's content (equal nodes hash equally) and its weight (about the bytes it
/// is written in); collections at least [`MIN_WEIGHT`] heavy are added to `large`.
fn fingerprint(v: &YVal, large: &mut Vec<(*const YVal, u64)>) -> (u64, usize) {
    gotemplate::stack::grow(|| {
        let mut h = foldhash::fast::FixedState::with_seed(0x5eed).build_hasher();
        let weight = match v {
            YVal::Nil => {
                h.write_u8(0);
                4
            }
            YVal::Bool(b) => {
                h.write_u8(1 + *b as u8);
                5
            }
            YVal::Int(i) => {
                h.write_u8(3);
                h.write_i64(*i);
                8
            }
            YVal::Uint(u) => {
                h.write_u8(4);
                h.write_u64(*u);
                8
            }
            YVal::Float(f) => {
                h.write_u8(5);
                h.write_u64(f.to_bits());
                8
            }
            YVal::Str(s) => {
                h.write_u8(6);
                h.write(s);
                h.write_usize(s.len());
                s.len() + 2
            }
            YVal::Seq(items) => {
                h.write_u8(7);
                h.write_usize(items.len());
                let mut weight = 2;
                for item in items {
                    let (ih, iw) = fingerprint(item, large);
                    h.write_u64(ih);
                    weight += iw + 4;
                }
                weight
            }
            // The same block of the same document: its text is written as it is, never looked up.
            YVal::Verbatim(block) => {
                h.write_u8(9);
                h.write_usize(std::rc::Rc::as_ptr(block) as *const u8 as usize);
                block.emitted().len()
            }
            YVal::Map(m) => {
                h.write_u8(8);
                h.write_usize(m.entries.len());
                let mut weight = 2;
                for (k, val) in &m.entries {
                    let (kh, kw) = fingerprint(k, large);
                    let (vh, vw) = fingerprint(val, large);
                    h.write_u64(kh);
                    h.write_u64(vh);
                    weight += kw + vw + 4;
                }
                weight
            }
        };
        let hash = h.finish();
        let collection = matches!(v, YVal::Seq(items) if !items.is_empty())
            || matches!(v, YVal::Map(m) if !m.entries.is_empty());
        if collection && weight >= MIN_WEIGHT {
            large.push((v as *const YVal, hash));
        }
        (hash, weight)
    })
}
