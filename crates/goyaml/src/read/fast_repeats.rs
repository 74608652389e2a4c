//! Blocks that one document repeats, for the fast reader: a CRD lists the same schema under
//! each of its versions, so more than half of Istio's CRD text is a block read before. A block
//! is a run of lines more indented than the line before it, up to the first line that is less
//! indented; the reader's result for it depends only on its text and the nesting depth, so a
//! second reading can take a copy of the first.
//!
//! A pass over the lines finds each large block's extent and groups the blocks by indentation,
//! length and a sample of their bytes; only blocks whose group has two members are remembered,
//! and a copy is taken only after the texts compare equal.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};

use crate::read::YVal;

/// Blocks shorter than this are cheaper to read again than to look up and copy.
const MIN_BLOCK: usize = 2048;

/// Documents shorter than this have too little to repeat.
pub(crate) const MIN_DOCUMENT: usize = 32 * 1024;

/// The maps of this module and of `verbatim`'s repeats: keyed by offsets and sample hashes
/// of one document, looked up once or twice per block, where SipHash costs more than the rest.
pub(crate) type FastMap<K, V> = HashMap<K, V, foldhash::fast::FixedState>;

/// The blocks that look repeated: plain data, found once per document (on any thread).
pub(crate) struct Repeats {
    /// Start of a large block whose group has two or more blocks (the start of its first
    /// line) → its end and its group's key.
    blocks: FastMap<usize, (usize, Key)>,
}

/// The values of repeated blocks read so far, for copies: by key, each block's start and
/// end, the depth it was read at, and the value.
#[derive(Default)]
pub(crate) struct Copies {
    read: FastMap<Key, Vec<(usize, usize, usize, YVal)>>,
}

/// The tables [`Repeats::of`] fills for a document's lines.
#[derive(Default)]
struct LineTables {
    // Offsets as `u32` (documents past 4 GiB have no repeats looked for): half the memory.
    lines: Vec<(u32, u32)>,
    ends: Vec<u32>,
    open: Vec<u32>,
}

/// The most lines a thread keeps tables for, for the next document.
const LINE_TABLES_MAX: usize = 1 << 18;

thread_local! {
    static LINE_TABLES: std::cell::RefCell<LineTables> =
        std::cell::RefCell::new(LineTables::default());
}

/// Indentation, length and a hash of sampled bytes.
pub(crate) type Key = (usize, usize, u64);

impl Repeats {
    /// The large blocks of `s` that look repeated; `None` when there are none.
    pub fn of(s: &[u8]) -> Option<Repeats> {
        // The line tables are reused from one document to the next (see `scratch`).
        crate::scratch::reusing(
            &LINE_TABLES,
            |tables| tables.lines.capacity() <= LINE_TABLES_MAX,
            |tables| Repeats::of_with(s, tables),
        )
    }

    fn of_with(s: &[u8], tables: &mut LineTables) -> Option<Repeats> {
        let LineTables { lines, ends, open } = tables;
        let len = u32::try_from(s.len()).ok()?;
        // Each non-blank line that is not a comment: its start and indentation.
        lines.clear();
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', s).chain([s.len()]) {
            if start < end {
                let ind = crate::leading_spaces(&s[start..end]);
                if start + ind < end && s[start + ind] != b'#' {
                    // Both below `len`, which fits.
                    lines.push((start as u32, ind as u32));
                }
            }
            start = end + 1;
        }
        // For each line, where the first later line that is less indented starts.
        ends.clear();
        ends.resize(lines.len(), len);
        open.clear();
        for (j, &(line_start, ind)) in lines.iter().enumerate() {
            while let Some(&i) = open.last() {
                if lines[i as usize].1 <= ind {
                    break;
                }
                ends[i as usize] = line_start;
                open.pop();
            }
            open.push(j as u32);
        }
        let mut blocks = FastMap::default();
        let mut count: FastMap<Key, u32> = FastMap::default();
        for j in 1..lines.len() {
            let (block_start, ind) = (lines[j].0 as usize, lines[j].1 as usize);
            let end = ends[j] as usize;
            if ind <= lines[j - 1].1 as usize || end - block_start < MIN_BLOCK {
                continue;
            }
            let key = (ind, end - block_start, sample_hash(&s[block_start..end]));
            *count.entry(key).or_default() += 1;
            blocks.insert(block_start, (end, key));
        }
        count.retain(|_, n| *n > 1);
        if count.is_empty() {
            return None;
        }
        blocks.retain(|_, (_, key)| count.contains_key(key));
        Some(Repeats { blocks })
    }

    /// The block starting at `start`, when it looks repeated: its end and key.
    pub fn block_at(&self, start: usize) -> Option<(usize, Key)> {
        self.blocks.get(&start).copied()
    }
}

impl Copies {
    /// A copy of the value of an earlier block with the same text, read at `depth`.
    pub fn copy_of(
        &self,
        s: &[u8],
        start: usize,
        end: usize,
        key: Key,
        depth: usize,
    ) -> Option<YVal> {
        self.read.get(&key)?.iter().find_map(|(a, b, d, value)| {
            (*d == depth && s[*a..*b] == s[start..end]).then(|| value.clone())
        })
    }

    pub fn remember(&mut self, start: usize, end: usize, key: Key, depth: usize, value: &YVal) {
        self.read
            .entry(key)
            .or_default()
            .push((start, end, depth, value.clone()));
    }
}

/// A hash of a block's length, ends and bytes spread over it (equal blocks hash equally; the
/// texts are compared before a copy is taken).
fn sample_hash(b: &[u8]) -> u64 {
    let mut h = foldhash::fast::FixedState::with_seed(0xb10c).build_hasher();
    let n = b.len();
    h.write_usize(n);
    h.write(&b[..n.min(64)]);
    h.write(&b[n.saturating_sub(64)..]);
    let step = (n / 64).max(1);
    for i in (0..n).step_by(step) {
        h.write_u8(b[i]);
    }
    h.finish()
}
