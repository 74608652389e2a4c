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

use super::YamlError;
use super::read::YVal;

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
    ahead: Option<super::ahead::Offering>,
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

/// A map keyed by large texts (a CRD is 60 KB): the hash samples a text (its length, its ends
/// and bytes spread over the middle) instead of reading all of it; equality compares it whole.
struct TextMap<V>(HashMap<u64, Vec<(Str, V)>>);

impl<V> Default for TextMap<V> {
    fn default() -> TextMap<V> {
        TextMap(HashMap::new())
    }
}

impl<V> TextMap<V> {
    fn get(&self, text: &str) -> Option<&V> {
        let bucket = self.0.get(&sample_hash(text.as_bytes()))?;
        // Usually the very text remembered (a rendered file keeps `toYaml`'s output).
        let same = |k: &Str| std::ptr::eq(k.as_str(), text) || k.as_str() == text;
        bucket.iter().find(|(k, _)| same(k)).map(|(_, v)| v)
    }

    fn insert(&mut self, text: Str, value: V) {
        let bucket = self.0.entry(sample_hash(text.as_bytes())).or_default();
        match bucket.iter_mut().find(|(k, _)| *k == text) {
            Some(slot) => slot.1 = value,
            None => bucket.push((text, value)),
        }
    }

    fn remove(&mut self, text: &str) -> Option<V> {
        let bucket = self.0.get_mut(&sample_hash(text.as_bytes()))?;
        let i = bucket.iter().position(|(k, _)| &**k == text)?;
        Some(bucket.swap_remove(i).1)
    }
}

fn sample_hash(b: &[u8]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut state = std::collections::hash_map::DefaultHasher::new();
    let n = b.len();
    n.hash(&mut state);
    b[..n.min(64)].hash(&mut state);
    b[n.saturating_sub(64)..].hash(&mut state);
    let step = (n / 64).max(1);
    for i in (0..n).step_by(step) {
        state.write_u8(b[i]);
    }
    state.finish()
}

impl YamlMemo {
    pub fn new() -> YamlMemo {
        YamlMemo::default()
    }

    /// A memo whose `fromYaml` takes what `ahead` prepared, and to which `splitList` offers
    /// its large parts.
    pub fn with_ahead(ahead: super::Ahead) -> YamlMemo {
        let memo = YamlMemo::default();
        memo.0.borrow_mut().ahead = Some(super::ahead::Offering::new(ahead));
        memo
    }

    /// `splitList`'s parts, which `fromYaml` may read next: offered for preparation ahead.
    pub fn offer_parts(&self, parts: &[Str]) {
        if let Some(ahead) = &self.0.borrow().ahead {
            ahead.offer(parts);
        }
    }

    /// `fromYaml`'s parse: [`super::from_yaml`], with the decoded tree of large texts kept.
    /// The result is a lazy map over that tree (a template usually reads two or three of a
    /// CRD's thousands of maps; `toYaml` writes the rest straight from the tree), fresh for
    /// each call as a parse's would be.
    pub fn from_yaml(&self, text: &Str) -> Result<Value, YamlError> {
        if text.len() < MIN_LEN {
            return super::from_yaml(text);
        }
        let remembered = self.0.borrow().parsed.get(text).cloned();
        let (tree, lazy) = match remembered {
            Some(entry) => entry,
            None => {
                let ahead = self.0.borrow().ahead.clone();
                let tree = super::read::decode_first_keeping_verbatim(text, ahead.as_ref())
                    .map_err(|f| f.into_error("error converting YAML to JSON: "))?;
                if !matches!(tree, YVal::Map(_)) {
                    let v = super::read::json_round_trip(&tree)?;
                    super::read::check_json_depth(text.len(), &tree)?;
                    return Ok(v);
                }
                super::read::check_json_depth(text.len(), &tree)?;
                let tree = Rc::new(tree);
                let lazy = super::read::lazy_convertible(&tree);
                self.0
                    .borrow_mut()
                    .parsed
                    .insert(text.clone(), (tree.clone(), lazy));
                (tree, lazy)
            }
        };
        if !lazy {
            return super::read::json_round_trip(&tree);
        }
        let value = super::read::lazy_json_value(&tree);
        // Debug builds (all the tests) check a second lazy map, built whole, against the
        // conversion it defers.
        #[cfg(debug_assertions)]
        {
            let eager = super::read::json_round_trip(&tree).expect("a lazy tree converts");
            let built = super::read::lazy_json_value(&tree);
            assert_eq!(
                super::to_json(&built).ok(),
                super::to_json(&eager).ok(),
                "a lazy map builds differently from its conversion"
            );
        }
        Ok(value)
    }

    /// Helm's `toYaml`: [`super::to_yaml`] without its final newline, remembering large
    /// outputs with the tree they were written from (the text is shared with the memo, not
    /// copied: Istio's CRDs are 1 MB of it).
    pub fn to_yaml(&self, v: &Value) -> Result<Str, YamlError> {
        let (mut text, tree) = super::emit::to_yaml_tree(v)?;
        if text.ends_with('\n') {
            text.pop();
        }
        let trimmed = Str::from(text);
        if trimmed.len() + 1 >= MIN_LEN
            && let Some(tree) = tree
        {
            // A reader that trims the document (as istioctl's splitter does) must still see
            // exactly this text, and reading it without the newline must be the same read.
            if trimmed.trim_end() == &*trimmed && !trimmed.starts_with(char::is_whitespace) {
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
        let (tree, safe) = self.0.borrow_mut().emitted.remove(text)?;
        if !safe {
            return None;
        }
        let json = super::read::yval_to_serde(&tree)?;
        // Debug builds (all the tests) check the shortcut against a real read.
        #[cfg(debug_assertions)]
        {
            let real = super::from_yaml_json(text).expect("a toYaml output reads back");
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
        let (tree, safe) = inner.emitted.get(text)?;
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
                YVal::Str(b) => Some(super::read::go_lossy_utf8(b)),
                _ => None,
            }
        }))
    }

    /// [`super::from_yaml`] of `text` when it is exactly a remembered `toYaml` output that
    /// reads back as written: a lazy map over the remembered tree, so that a reader of a few
    /// fields (Helm's sort by kind) does not read the whole document. The entry stays.
    pub fn emitted_value(&self, text: &str) -> Option<Value> {
        let tree = match self.0.borrow().emitted.get(text) {
            Some((tree, true)) => tree.clone(),
            _ => return None,
        };
        // A tree that round-trips has string keys and finite floats only, so a map of it
        // converts (lazy_json_value checks that again in debug builds).
        if !matches!(&*tree, YVal::Map(_)) {
            return None;
        }
        let value = super::read::lazy_json_value(&tree);
        #[cfg(debug_assertions)]
        {
            let real = super::from_yaml(text).expect("a toYaml output reads back");
            let built = super::read::lazy_json_value(&tree);
            assert_eq!(
                super::to_json(&built).ok(),
                super::to_json(&real).ok(),
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
pub(super) fn round_trips(v: &YVal) -> bool {
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
pub(super) fn key_round_trips(s: &[u8]) -> bool {
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
