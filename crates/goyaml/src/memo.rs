//! Remembering YAML work within one render, where a result is a pure function of its input.
//!
//! Istio's `base` chart reads each CRD of a 1 MB file with `fromYaml` twice and writes it back
//! with `toYaml`; istioctl then reads every rendered document again. [`YamlMemo`] lets a second
//! `fromYaml` of the same text copy the first result instead of parsing, and lets a reader of
//! the rendered output take the tree behind a `toYaml` result instead of parsing its text.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use gotemplate::{Str, Value};

use crate::YamlError;
use crate::read::YVal;

/// Texts shorter than this are cheap to parse again; remembering them would only cost memory.
const MIN_LEN: usize = 4096;

/// Integers beyond this do not survive the float64 step of a re-read unchanged.
const EXACT_INT: i64 = 1 << 53;

/// A per-render memo of `fromYaml` results and `toYaml` outputs (cheap to clone: shared).
#[derive(Clone, Default)]
pub struct YamlMemo(Rc<RefCell<Inner>>);

#[derive(Default)]
struct Inner {
    /// Where large documents are prepared ahead of `fromYaml`, when the render has helpers.
    ahead: Option<crate::ahead::Offering>,
    /// `fromYaml` input → go-yaml's decoded tree of it, and whether it converts without error
    /// (then each `fromYaml` of it is a lazy map over the tree).
    parsed: TextMap<(Rc<YVal>, bool)>,
    /// `toYaml` output (without the trailing newline Helm trims) → the tree it was written from,
    /// and whether reading the text back is known to give that tree again.
    emitted: TextMap<(Rc<YVal>, bool)>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        if crate::freeing_skipped() {
            std::mem::forget(std::mem::take(&mut self.parsed));
            std::mem::forget(std::mem::take(&mut self.emitted));
        }
    }
}

/// A map keyed by large texts (a CRD is 60 KB), which may be spliced (see `gotemplate::Str`)
/// and are looked up as the pieces a rendered document is made of: the hash samples a text
/// (its length, its ends and bytes spread over the middle) instead of reading all of it;
/// equality compares it whole, but not the bytes of pieces that are the very same memory.
struct TextMap<V>(HashMap<u64, Vec<(Str, V)>>);

impl<V> Default for TextMap<V> {
    fn default() -> TextMap<V> {
        TextMap(HashMap::new())
    }
}

impl<V> TextMap<V> {
    /// The value of the text made of `pieces`.
    fn get(&self, pieces: &[&str]) -> Option<&V> {
        let bucket = self.0.get(&sample_hash(pieces))?;
        bucket
            .iter()
            .find(|(k, _)| same_text(k.pieces(), pieces.iter().copied()))
            .map(|(_, v)| v)
    }

    fn insert(&mut self, text: Str, value: V) {
        let pieces: Vec<&str> = text.pieces().collect();
        let bucket = self.0.entry(sample_hash(&pieces)).or_default();
        match bucket
            .iter_mut()
            .find(|(k, _)| same_text(k.pieces(), pieces.iter().copied()))
        {
            Some(slot) => slot.1 = value,
            None => bucket.push((text.clone(), value)),
        }
    }

    fn remove(&mut self, pieces: &[&str]) -> Option<V> {
        let bucket = self.0.get_mut(&sample_hash(pieces))?;
        let i = bucket
            .iter()
            .position(|(k, _)| same_text(k.pieces(), pieces.iter().copied()))?;
        Some(bucket.swap_remove(i).1)
    }
}

/// Whether two texts, each given as its pieces (none empty), are equal. Where both are at the
/// same place in memory (a block of a CRD set into a `toYaml` output, printed as it is), the
/// bytes are not compared.
fn same_text<'a, 'b>(
    mut a: impl Iterator<Item = &'a str>,
    mut b: impl Iterator<Item = &'b str>,
) -> bool {
    let (mut x, mut y): (&[u8], &[u8]) = (&[], &[]);
    loop {
        if x.is_empty() {
            x = a.next().map_or(&[], str::as_bytes);
        }
        if y.is_empty() {
            y = b.next().map_or(&[], str::as_bytes);
        }
        if x.is_empty() || y.is_empty() {
            return x.is_empty() && y.is_empty();
        }
        let n = x.len().min(y.len());
        if !std::ptr::eq(x.as_ptr(), y.as_ptr()) && x[..n] != y[..n] {
            return false;
        }
        x = &x[n..];
        y = &y[n..];
    }
}

/// A hash of some bytes of the text made of `pieces`: its length, its first and last 64
/// bytes, and 64 bytes spread over it.
fn sample_hash(pieces: &[&str]) -> u64 {
    use std::hash::Hasher;
    let n: usize = pieces.iter().map(|p| p.len()).sum();
    let mut state = std::collections::hash_map::DefaultHasher::new();
    state.write_usize(n);
    let step = (n / 64).max(1);
    let samples = (0..n.min(64))
        .chain(n.saturating_sub(64)..n)
        .chain((0..n).step_by(step));
    let mut at = PieceCursor::new(pieces);
    for i in samples {
        state.write_u8(at.byte(i));
    }
    state.finish()
}

/// Reads bytes of a text given as pieces by their offsets in the text, cheaply when the
/// offsets mostly grow.
struct PieceCursor<'a> {
    pieces: &'a [&'a str],
    /// The piece of the last byte read, and where it starts.
    piece: usize,
    start: usize,
}

impl<'a> PieceCursor<'a> {
    fn new(pieces: &'a [&'a str]) -> PieceCursor<'a> {
        PieceCursor {
            pieces,
            piece: 0,
            start: 0,
        }
    }

    /// The byte at `i`, which must be within the text.
    fn byte(&mut self, i: usize) -> u8 {
        if i < self.start {
            (self.piece, self.start) = (0, 0);
        }
        while i >= self.start + self.pieces[self.piece].len() {
            self.start += self.pieces[self.piece].len();
            self.piece += 1;
        }
        self.pieces[self.piece].as_bytes()[i - self.start]
    }
}

impl YamlMemo {
    pub fn new() -> YamlMemo {
        YamlMemo::default()
    }

    /// A memo whose `fromYaml` takes what `ahead` prepared, and to which `splitList` offers
    /// its large parts.
    pub fn with_ahead(ahead: crate::Ahead) -> YamlMemo {
        let memo = YamlMemo::default();
        memo.0.borrow_mut().ahead = Some(crate::ahead::Offering::new(ahead));
        memo
    }

    /// `splitList`'s parts, which `fromYaml` may read next: offered for preparation ahead.
    pub fn offer_parts(&self, parts: &[Str]) {
        if let Some(ahead) = &self.0.borrow().ahead {
            ahead.offer(parts);
        }
    }

    /// `fromYaml`'s parse: [`crate::from_yaml`], with the decoded tree of large texts kept.
    /// The result is a lazy map over that tree (a template usually reads two or three of a
    /// CRD's thousands of maps; `toYaml` writes the rest straight from the tree), fresh for
    /// each call as a parse's would be.
    pub fn from_yaml(&self, text: &Str) -> Result<Value, YamlError> {
        if text.len() < MIN_LEN {
            return crate::from_yaml(text);
        }
        let remembered = self.0.borrow().parsed.get(&[text.as_str()]).cloned();
        let (tree, lazy) = match remembered {
            Some(entry) => entry,
            None => {
                let ahead = self.0.borrow().ahead.clone();
                let tree = crate::read::decode_first_keeping_verbatim(text, ahead.as_ref())
                    .map_err(|f| f.into_error("error converting YAML to JSON: "))?;
                if !matches!(tree, YVal::Map(_)) {
                    let v = crate::read::json_round_trip(&tree)?;
                    crate::read::check_json_depth(text.len(), &tree)?;
                    return Ok(v);
                }
                crate::read::check_json_depth(text.len(), &tree)?;
                let tree = Rc::new(tree);
                let lazy = crate::read::lazy_convertible(&tree);
                self.0
                    .borrow_mut()
                    .parsed
                    .insert(text.clone(), (tree.clone(), lazy));
                (tree, lazy)
            }
        };
        if !lazy {
            return crate::read::json_round_trip(&tree);
        }
        let value = crate::read::lazy_json_value(&tree);
        // Debug builds (all the tests) check a second lazy map, built whole, against the
        // conversion it defers.
        #[cfg(debug_assertions)]
        {
            let eager = crate::read::json_round_trip(&tree).expect("a lazy tree converts");
            let built = crate::read::lazy_json_value(&tree);
            assert_eq!(
                crate::to_json(&built).ok(),
                crate::to_json(&eager).ok(),
                "a lazy map builds differently from its conversion"
            );
        }
        Ok(value)
    }

    /// Helm's `toYaml`: [`crate::to_yaml`] without its final newline, remembering large
    /// outputs with the tree they were written from. The blocks of a CRD that `toYaml` writes
    /// as they were read are set into the text as parts of the CRD's own (see
    /// `emit::marshal_spliced`): Istio's CRDs are 1 MB of it, neither copied nor joined when
    /// the output is printed.
    pub fn to_yaml(&self, v: &Value) -> Result<Str, YamlError> {
        let ((mut text, spliced), tree) = crate::emit::to_yaml_tree(v)?;
        // The document's final line break is written after any block set in.
        if text.ends_with('\n') && spliced.last().is_none_or(|(at, _)| *at < text.len()) {
            text.pop();
        }
        let trimmed = Str::spliced(text, spliced);
        if trimmed.len() + 1 >= MIN_LEN
            && let Some(tree) = tree
        {
            // A reader that trims the document (as istioctl's splitter does) must still see
            // exactly this text, and reading it without the newline must be the same read.
            let first = trimmed.pieces().next().unwrap_or_default();
            let last = trimmed.pieces().last().unwrap_or_default();
            if last.trim_end().len() == last.len() && !first.starts_with(char::is_whitespace) {
                let safe = round_trips(&tree);
                self.0
                    .borrow_mut()
                    .emitted
                    .insert(trimmed.clone(), (Rc::new(tree), safe));
            }
        }
        Ok(trimmed)
    }

    /// What `sigs.k8s.io/yaml.Unmarshal` of `text` into `interface{}` gives, as a JSON tree
    /// (every number a float64), when `text` is exactly a remembered `toYaml` output whose
    /// re-read is known to give back the tree it was written from; `None` otherwise.
    /// The entry is used up (a rendered document is read once as a whole; a repeat reads
    /// the text).
    pub fn emitted_json(&self, text: &str) -> Option<serde_json::Value> {
        let (tree, safe) = self.0.borrow_mut().emitted.remove(&[text])?;
        if !safe {
            return None;
        }
        let json = crate::read::yval_to_serde(&tree)?;
        // Debug builds (all the tests) check the shortcut against a real read.
        #[cfg(debug_assertions)]
        {
            let real = crate::from_yaml_json(text).expect("a toYaml output reads back");
            assert_eq!(json, real, "memoized toYaml tree differs from its re-read");
        }
        Some(json)
    }

    /// The strings at `paths` (each a path of plain-word keys) in what
    /// [`Self::emitted_json`] would give for `text`, without building that tree: `None` when
    /// `text` is not exactly a remembered `toYaml` output of a map that reads back as
    /// written; for each path, `None` where it holds no string. The entry stays.
    pub fn emitted_strings<const N: usize>(
        &self,
        text: &str,
        paths: [&[&str]; N],
    ) -> Option<[Option<String>; N]> {
        let inner = self.0.borrow();
        let (tree, safe) = inner.emitted.get(&[text])?;
        if !safe || !matches!(&**tree, YVal::Map(_)) {
            return None;
        }
        Some(paths.map(|path| {
            let mut node = &**tree;
            for key in path {
                let YVal::Map(m) = node else { return None };
                node = &m
                    .entries
                    .iter()
                    .find(|(k, _)| matches!(k, YVal::Str(b) if **b == *key.as_bytes()))?
                    .1;
            }
            match node {
                YVal::Str(b) => Some(crate::read::go_lossy_utf8(b)),
                _ => None,
            }
        }))
    }

    /// [`crate::from_yaml`] of the text made of `pieces` when it is exactly a remembered
    /// `toYaml` output that reads back as written: a lazy map over the remembered tree, so
    /// that a reader of a few fields (Helm's sort by kind) does not read the whole document.
    /// The entry stays.
    pub fn emitted_value(&self, pieces: &[&str]) -> Option<Value> {
        let tree = match self.0.borrow().emitted.get(pieces) {
            Some((tree, true)) => tree.clone(),
            _ => return None,
        };
        // A tree that round-trips has string keys and finite floats only, so a map of it
        // converts (lazy_json_value checks that again in debug builds).
        if !matches!(&*tree, YVal::Map(_)) {
            return None;
        }
        let value = crate::read::lazy_json_value(&tree);
        #[cfg(debug_assertions)]
        {
            let real = crate::from_yaml(&pieces.concat()).expect("a toYaml output reads back");
            let built = crate::read::lazy_json_value(&tree);
            assert_eq!(
                crate::to_json(&built).ok(),
                crate::to_json(&real).ok(),
                "memoized toYaml tree differs from its re-read"
            );
        }
        Some(value)
    }
}

/// Whether go-yaml reads the emitter's text of `v` back as `v` (up to the float64 step), by
/// properties that make each scalar's style unambiguous: keys short single-line strings;
/// strings printable, with no line break other than `\n` and none at the end (a trimmed
/// document loses a final one); integers exact as float64; floats finite.
pub(crate) fn round_trips(v: &YVal) -> bool {
    gotemplate::stack::grow(|| match v {
        YVal::Nil | YVal::Bool(_) => true,
        YVal::Int(i) => i.abs() <= EXACT_INT,
        YVal::Uint(u) => *u <= EXACT_INT as u64,
        YVal::Float(f) => f.is_finite() && (f.fract() != 0.0 || f.abs() < EXACT_INT as f64),
        YVal::Str(s) => safe_string(s),
        YVal::Seq(items) => items.iter().all(round_trips),
        YVal::Map(m) => m
            .entries
            .iter()
            .all(|(k, v)| matches!(k, YVal::Str(s) if key_round_trips(s)) && round_trips(v)),
        YVal::Verbatim(block) => block.round_trips(),
    })
}

/// [`round_trips`] for a map's string key.
pub(crate) fn key_round_trips(s: &[u8]) -> bool {
    s.len() <= 128 && safe_string(s) && !s.contains(&b'\n')
}

fn safe_string(s: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(s) else {
        return false;
    };
    !text.ends_with('\n')
        && text.chars().all(|c| {
            c == '\n'
                || (' '..='~').contains(&c)
                || (c > '\u{a0}' && !matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}'))
                    && !('\u{fff0}'..='\u{ffff}').contains(&c)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gotemplate::{List, Map};

    /// A CRD-like value: a schema of many described properties, repeated under two versions.
    fn crd_like() -> Value {
        let properties = Map::from_entries((0..60).map(|i| {
            let field = Map::from_entries([
                (
                    "description",
                    Value::str(&format!("Field number {i}, which is described at some length so that the line folds when it is written.")),
                ),
                ("type", Value::str("string")),
            ]);
            (format!("field{i:02}"), Value::Map(field))
        }));
        let schema = Value::Map(Map::from_entries([(
            "openAPIV3Schema",
            Value::Map(Map::from_entries([
                ("properties", Value::Map(properties)),
                ("type", Value::str("object")),
            ])),
        )]));
        let version = |name: &str| {
            Value::Map(Map::from_entries([
                ("name", Value::str(name)),
                ("schema", schema.clone()),
                ("served", Value::Bool(true)),
            ]))
        };
        Value::Map(Map::from_entries([
            ("apiVersion", Value::str("apiextensions.k8s.io/v1")),
            ("kind", Value::str("CustomResourceDefinition")),
            (
                "metadata",
                Value::Map(Map::from_entries([(
                    "name",
                    Value::str("things.example.io"),
                )])),
            ),
            (
                "spec",
                Value::Map(Map::from_entries([(
                    "versions",
                    Value::List(List::new(vec![version("v1alpha1"), version("v1")])),
                )])),
            ),
        ]))
    }

    #[test]
    fn to_yaml_of_a_read_document_sets_its_blocks_in_and_writes_what_helm_writes() {
        let text = Str::from(super::super::to_yaml(&crd_like()).unwrap());
        let memo = YamlMemo::new();
        let Value::Map(read) = memo.from_yaml(&text).unwrap() else {
            panic!("a map")
        };
        // Relabelled, as Istio's base chart does, and written back.
        let Some(Value::Map(metadata)) = read.get("metadata") else {
            panic!("metadata")
        };
        metadata.insert(
            "labels",
            Value::Map(Map::from_entries([("app", Value::str("x"))])),
        );
        let written = memo.to_yaml(&Value::Map(read.clone())).unwrap();
        let plain = super::super::to_yaml(&Value::Map(read)).unwrap();
        assert_eq!(format!("{written}\n"), plain);
        // Most of it is the document's own text, set in, not copied.
        let (own, spliced) = written.splices().expect("blocks are set in");
        assert!(
            own.len() * 4 < text.len(),
            "{} of {}",
            own.len(),
            text.len()
        );
        let within = |p: &str| {
            let start = p.as_ptr() as usize;
            let base = text.as_ptr() as usize;
            start >= base && start + p.len() <= base + text.len()
        };
        assert!(spliced.iter().all(|(_, s)| within(s)));
        // The remembered output is found by any cut of its text into pieces.
        let whole = written.as_str().to_string();
        for cut in [1, 7, 100, 4000] {
            let pieces: Vec<&str> = whole
                .as_bytes()
                .chunks(cut)
                .map(|c| std::str::from_utf8(c).unwrap())
                .collect();
            assert!(memo.emitted_value(&pieces).is_some(), "cut {cut}");
        }
        let printed: Vec<&str> = written.pieces().collect();
        assert!(memo.emitted_value(&printed).is_some());
        let mut changed = whole.clone();
        changed.replace_range(whole.len() / 2..whole.len() / 2 + 1, "#");
        assert!(memo.emitted_value(&[&changed]).is_none());
    }

    #[test]
    fn a_repeated_block_is_written_again_with_the_blocks_set_into_it() {
        // Each version's schema is out of order (so not verbatim itself) around a sorted block
        // of properties (verbatim); the two schemas are the same text, read once and shared,
        // and written once and copied (the block set in again, from the same place); the
        // rest, out of order, keeps finding repeats worth it.
        let properties: String = (0..40)
            .map(|i| format!("          field{i:02}:\n            description: Field number {i}, described.\n            type: string\n"))
            .collect();
        let version = |name: &str| {
            format!(
                "  - name: {name}\n    schema:\n      zz: 1\n      openAPIV3Schema:\n        properties:\n{properties}        type: object\n"
            )
        };
        let other: String = (0..4000).rev().map(|i| format!("  k{i:04}: v\n")).collect();
        let text = Str::from(format!(
            "kind: Thing\nspec:\n  versions:\n{}{}other:\n{other}",
            version("v1"),
            version("v1"),
        ));
        let memo = YamlMemo::new();
        let read = memo.from_yaml(&text).unwrap();
        let written = memo.to_yaml(&read).unwrap();
        let plain = super::super::to_yaml(&super::super::from_yaml(&text).unwrap()).unwrap();
        assert_eq!(format!("{written}\n"), plain);
        let (_, spliced) = written.splices().expect("blocks are set in");
        assert_eq!(spliced.len(), 2, "one block, twice");
        // The second is the first written again.
        assert!(std::ptr::eq(spliced[0].1.as_str(), spliced[1].1.as_str()));
    }

    #[test]
    fn texts_compare_across_pieces_and_hash_alike_however_cut() {
        let text = "abcdefghij".repeat(50);
        let cuts: Vec<Vec<&str>> = vec![
            vec![&text],
            vec![&text[..1], &text[1..]],
            vec![&text[..250], &text[250..251], &text[251..]],
            text.as_bytes()
                .chunks(3)
                .map(|c| std::str::from_utf8(c).unwrap())
                .collect(),
        ];
        for a in &cuts {
            for b in &cuts {
                assert!(same_text(a.iter().copied(), b.iter().copied()));
                assert_eq!(sample_hash(a), sample_hash(b));
            }
        }
        let other = text.replace("j", "J");
        assert!(!same_text(
            [text.as_str()].into_iter(),
            [other.as_str()].into_iter()
        ));
        assert!(!same_text(
            [text.as_str()].into_iter(),
            [&text[1..]].into_iter()
        ));
        assert!(same_text(std::iter::empty(), std::iter::empty()));
        assert_eq!(sample_hash(&[]), sample_hash(&[""][..0]));
    }
}
