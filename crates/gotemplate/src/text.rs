//! [`Str`]: the text of a Go string value, shared when cloned, and possibly a part of a larger
//! shared text instead of a copy of it.
//!
//! Go strings are immutable and slicing one shares its bytes. Helm charts lean on that:
//! Istio's base chart reads its 1 MB CRD file with `.Files.Get` and cuts it with `splitList`
//! into parts that `fromYaml` reads one by one. As copies, those parts are another megabyte of
//! fresh memory, a page fault for each 4 KiB; as parts, a few small records.
//!
//! A `Str` may also be *spliced*: a text written with large shared texts set into it at
//! offsets. `toYaml` of one of those CRDs writes most of it as blocks of the CRD's own text;
//! spliced, it is printed as the pieces it is made of ([`Str::pieces`]) and joined only if
//! something reads it as one `str`.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::rc::Rc;

/// Built strings at least this long are kept as they are instead of copied into a shared
/// `str` (`toYaml` of a CRD, a large `include`).
const KEEP_BUILT_MIN: usize = 4096;

/// Parts shorter than this are copied: a copy is cheaper than a record, and it does not keep a
/// large text alive for a few bytes of it.
const PART_MIN: usize = 1024;

/// An immutable string, cheap to clone. Compares, hashes and orders as its text.
#[derive(Clone)]
pub struct Str(Repr);

// Two variants, so that the enum fits in the space of its larger one (a third would make
// every `Value` larger).
#[derive(Clone)]
enum Repr {
    Whole(Rc<str>),
    Kept(Rc<Kept>),
}

enum Kept {
    /// A large `String` kept as it was built (a shared `str` would be a copy of it).
    Built(String),
    /// A text held by something else: a file's bytes mapped into memory, say.
    Held(Box<dyn AsRef<str>>),
    Part(Part),
    Spliced(Spliced),
}

/// `own` with the texts of `spliced` set in at their offsets (ascending, at character
/// boundaries of `own`; none of them spliced itself).
struct Spliced {
    own: String,
    spliced: Vec<(usize, Str)>,
    len: usize,
    /// The whole text, joined the first time it is read as one `str`.
    joined: std::cell::OnceCell<String>,
}

impl Spliced {
    fn joined(&self) -> &str {
        self.joined
            .get_or_init(|| join_spliced(&self.own, &self.spliced, self.len))
    }
}

/// `own` with each of `spliced` set in at its offset: `len` bytes in all.
pub(crate) fn join_spliced(own: &str, spliced: &[(usize, Str)], len: usize) -> String {
    let mut all = String::with_capacity(len);
    let mut from = 0;
    for (at, text) in spliced {
        all.push_str(&own[from..*at]);
        all.push_str(text);
        from = *at;
    }
    all.push_str(&own[from..]);
    all
}

/// `owner[start..end]`, both ends at character boundaries; the owner is never a part.
struct Part {
    owner: Str,
    start: usize,
    end: usize,
}

impl Str {
    /// The part `part` of this text, sharing its bytes when it is large. `part` must lie
    /// within this text (a sub-slice of `&**self`); any other text is copied.
    pub fn slice(&self, part: &str) -> Str {
        let text: &str = self;
        let start = (part.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
        let within = start <= text.len() && part.len() <= text.len() - start;
        if !within || part.len() < PART_MIN {
            return Str::from(part);
        }
        if part.len() == text.len() {
            return self.clone();
        }
        // `part` is a `&str` inside `text`, so both of its ends are character boundaries.
        let (owner, offset) = match &self.0 {
            Repr::Kept(kept) => match &**kept {
                Kept::Part(outer) => (outer.owner.clone(), outer.start),
                Kept::Built(_) | Kept::Held(_) | Kept::Spliced(_) => (self.clone(), 0),
            },
            Repr::Whole(_) => (self.clone(), 0),
        };
        Str(Repr::Kept(Rc::new(Kept::Part(Part {
            owner,
            start: offset + start,
            end: offset + start + part.len(),
        }))))
    }

    pub fn as_str(&self) -> &str {
        self
    }

    /// The text that `holder` holds, shared as it is (not copied). `holder` must give the same
    /// text every time it is asked.
    pub fn held(holder: impl AsRef<str> + 'static) -> Str {
        Str(Repr::Kept(Rc::new(Kept::Held(Box::new(holder)))))
    }

    /// `own` with each text of `spliced` set in at its offset: offsets ascending, at character
    /// boundaries of `own`. Texts that are spliced themselves are set in as their pieces.
    ///
    /// Panics when an offset is out of order or not at a character boundary (a caller's bug).
    pub fn spliced(own: String, spliced: Vec<(usize, Str)>) -> Str {
        let mut flat: Vec<(usize, Str)> = Vec::with_capacity(spliced.len());
        let mut own = own;
        let mut inserted = 0;
        let mut last = 0;
        for (at, text) in spliced {
            assert!(
                at >= last && own.is_char_boundary(at + inserted),
                "spliced texts go at ascending character boundaries"
            );
            last = at;
            let at = at + inserted;
            match text.splices() {
                None => flat.push((at, text)),
                Some((inner_own, inner)) => {
                    // Its own text goes into ours; its spliced texts are ours too.
                    own.insert_str(at, inner_own);
                    flat.extend(inner.iter().map(|(k, t)| (at + k, t.clone())));
                    inserted += inner_own.len();
                }
            }
        }
        flat.retain(|(_, text)| !text.is_empty());
        if flat.is_empty() {
            return Str::from(own);
        }
        let len = own.len() + flat.iter().map(|(_, t)| t.len()).sum::<usize>();
        Str(Repr::Kept(Rc::new(Kept::Spliced(Spliced {
            own,
            spliced: flat,
            len,
            joined: std::cell::OnceCell::new(),
        }))))
    }

    /// The text's own part and the texts set into it, when it is spliced.
    pub fn splices(&self) -> Option<(&str, &[(usize, Str)])> {
        match &self.0 {
            Repr::Kept(kept) => match &**kept {
                Kept::Spliced(s) => Some((&s.own, &s.spliced)),
                _ => None,
            },
            Repr::Whole(_) => None,
        }
    }

    /// The text as the pieces it is made of, in order, without joining a spliced one.
    pub fn pieces(&self) -> Pieces<'_> {
        match self.splices() {
            Some((own, spliced)) => Pieces {
                own,
                spliced,
                from: 0,
                next: 0,
                own_next: false,
            },
            None => Pieces {
                own: self,
                spliced: &[],
                from: 0,
                next: 0,
                own_next: false,
            },
        }
    }

    /// Its length in bytes (a spliced text is not joined for it).
    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Kept(kept) => match &**kept {
                Kept::Spliced(s) => s.len,
                _ => self.as_str().len(),
            },
            Repr::Whole(text) => text.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The pieces of a [`Str`] (see [`Str::pieces`]); none of them empty.
pub struct Pieces<'a> {
    own: &'a str,
    spliced: &'a [(usize, Str)],
    /// Where the rest of `own` starts.
    from: usize,
    /// The next spliced text.
    next: usize,
    /// Whether the own text before `spliced[next]` has been given.
    own_next: bool,
}

impl<'a> Iterator for Pieces<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        loop {
            let Some((at, text)) = self.spliced.get(self.next) else {
                let rest = &self.own[self.from..];
                self.from = self.own.len();
                return (!rest.is_empty()).then_some(rest);
            };
            if !self.own_next {
                self.own_next = true;
                let before = &self.own[self.from..*at];
                self.from = *at;
                if !before.is_empty() {
                    return Some(before);
                }
            }
            self.own_next = false;
            self.next += 1;
            if !text.is_empty() {
                return Some(text.as_str());
            }
        }
    }
}

impl Deref for Str {
    type Target = str;

    fn deref(&self) -> &str {
        match &self.0 {
            Repr::Whole(text) => text,
            Repr::Kept(kept) => match &**kept {
                Kept::Built(text) => text,
                Kept::Held(holder) => (**holder).as_ref(),
                Kept::Part(part) => &part.owner[part.start..part.end],
                Kept::Spliced(spliced) => spliced.joined(),
            },
        }
    }
}

impl AsRef<str> for Str {
    fn as_ref(&self) -> &str {
        self
    }
}

impl AsRef<[u8]> for Str {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl Borrow<str> for Str {
    fn borrow(&self) -> &str {
        self
    }
}

impl Default for Str {
    fn default() -> Str {
        Str::from("")
    }
}

impl From<&str> for Str {
    fn from(s: &str) -> Str {
        Str(Repr::Whole(Rc::from(s)))
    }
}

impl From<String> for Str {
    fn from(s: String) -> Str {
        if s.len() >= KEEP_BUILT_MIN {
            Str(Repr::Kept(Rc::new(Kept::Built(s))))
        } else {
            Str(Repr::Whole(Rc::from(s)))
        }
    }
}

impl From<&String> for Str {
    fn from(s: &String) -> Str {
        Str::from(s.as_str())
    }
}

impl From<Box<str>> for Str {
    fn from(s: Box<str>) -> Str {
        Str(Repr::Whole(Rc::from(s)))
    }
}

impl From<Rc<str>> for Str {
    fn from(s: Rc<str>) -> Str {
        Str(Repr::Whole(s))
    }
}

impl From<&Rc<str>> for Str {
    fn from(s: &Rc<str>) -> Str {
        Str(Repr::Whole(s.clone()))
    }
}

impl From<Str> for Rc<str> {
    /// The shared text when the string is a whole one; a copy of a part.
    fn from(s: Str) -> Rc<str> {
        match s.0 {
            Repr::Whole(text) => text,
            Repr::Kept(_) => Rc::from(&*s),
        }
    }
}

impl From<&Str> for Rc<str> {
    fn from(s: &Str) -> Rc<str> {
        Rc::from(s.clone())
    }
}

impl From<Str> for String {
    fn from(s: Str) -> String {
        s.to_string()
    }
}

impl PartialEq for Str {
    fn eq(&self, other: &Str) -> bool {
        **self == **other
    }
}

impl Eq for Str {}

impl PartialEq<str> for Str {
    fn eq(&self, other: &str) -> bool {
        &**self == other
    }
}

impl PartialEq<&str> for Str {
    fn eq(&self, other: &&str) -> bool {
        &**self == *other
    }
}

impl PartialEq<String> for Str {
    fn eq(&self, other: &String) -> bool {
        **self == **other
    }
}

impl PartialEq<Str> for str {
    fn eq(&self, other: &Str) -> bool {
        self == &**other
    }
}

impl PartialEq<Str> for &str {
    fn eq(&self, other: &Str) -> bool {
        *self == &**other
    }
}

impl PartialOrd for Str {
    fn partial_cmp(&self, other: &Str) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Str {
    fn cmp(&self, other: &Str) -> std::cmp::Ordering {
        (**self).cmp(&**other)
    }
}

impl Hash for Str {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (**self).hash(state)
    }
}

impl fmt::Debug for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl fmt::Display for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_str_is_as_small_as_a_shared_str() {
        assert_eq!(std::mem::size_of::<Str>(), std::mem::size_of::<Rc<str>>());
    }

    #[test]
    fn large_parts_share_their_bytes_small_ones_and_strangers_are_copied() {
        let text: String = (0..500).map(|i| format!("line {i}\n")).collect();
        let whole = Str::from(text.as_str());
        let big = &whole[10..3000];
        let part = whole.slice(big);
        assert_eq!(part, big);
        assert_eq!(part.as_ptr(), big.as_ptr(), "shared");
        // A part of a part is a part of the first text.
        let inner = &part[5..2000];
        let part2 = part.slice(inner);
        assert_eq!(part2.as_ptr(), inner.as_ptr());
        assert_eq!(part2, &text[15..2010]);
        // Small parts and texts from elsewhere are copies.
        let small = whole.slice(&whole[0..10]);
        assert_ne!(small.as_ptr(), whole.as_ptr());
        assert_eq!(small, "line 0\nlin");
        let stranger = "x".repeat(2000);
        let copied = whole.slice(&stranger);
        assert_eq!(copied, stranger.as_str());
        assert_ne!(copied.as_ptr(), stranger.as_ptr());
        // The whole text is the same string.
        assert!(std::ptr::eq(whole.slice(&whole).as_str(), whole.as_str()));
    }

    #[test]
    fn compares_and_hashes_as_its_text() {
        use std::collections::hash_map::DefaultHasher;
        let text = "a".repeat(3000);
        let whole = Str::from(text.as_str());
        let part = whole.slice(&whole[..2000]);
        let copy = Str::from(&text[..2000]);
        assert_eq!(part, copy);
        assert!(part < whole);
        let hash = |s: &Str| {
            let mut h = DefaultHasher::new();
            s.hash(&mut h);
            h.finish()
        };
        assert_eq!(hash(&part), hash(&copy));
        assert_eq!(Rc::<str>::from(part).len(), 2000);
    }

    #[test]
    fn spliced_texts_give_their_pieces_and_join_when_read_whole() {
        let shared = Str::from("s".repeat(3000));
        let block = shared.slice(&shared[1000..2500]);
        let text = Str::spliced(
            "ab\ncd".to_string(),
            vec![
                (0, block.clone()),
                (3, Str::from("")),
                (3, block.clone()),
                (5, block.clone()),
            ],
        );
        let pieces: Vec<&str> = text.pieces().collect();
        assert_eq!(pieces.len(), 5);
        assert_eq!(pieces[1], "ab\n");
        assert!(
            std::ptr::eq(pieces[0], block.as_str()),
            "spliced, not copied"
        );
        assert!(std::ptr::eq(pieces[2], block.as_str()));
        assert_eq!(text.len(), 5 + 3 * 1500);
        let want = format!("{b}ab\n{b}cd{b}", b = "s".repeat(1500));
        assert_eq!(text.pieces().collect::<String>(), want);
        // Read whole, it is joined (once).
        assert_eq!(text, want.as_str());
        assert!(std::ptr::eq(text.as_str(), text.as_str()));
        // A spliced text set into another is set in as its pieces.
        let outer = Str::spliced("<>".to_string(), vec![(1, text.clone())]);
        assert_eq!(outer.pieces().count(), 7);
        assert_eq!(outer, format!("<{want}>").as_str());
        let inner: Vec<&str> = outer.pieces().collect();
        assert!(std::ptr::eq(inner[1], block.as_str()));
        // Parts of it, and texts with nothing spliced, are one piece.
        let part = text.slice(&text[1..2000]);
        assert_eq!(part.pieces().collect::<Vec<_>>(), [&want[1..2000]]);
        let plain = Str::spliced("plain".to_string(), vec![(2, Str::from(""))]);
        assert!(plain.splices().is_none());
        assert_eq!(plain.pieces().collect::<Vec<_>>(), ["plain"]);
        assert_eq!(Str::from("").pieces().count(), 0);
    }

    #[test]
    #[should_panic(expected = "ascending character boundaries")]
    fn splices_out_of_order_are_a_caller_s_bug() {
        Str::spliced(
            "abc".to_string(),
            vec![(2, Str::from("x")), (1, Str::from("y"))],
        );
    }

    #[test]
    fn large_built_strings_are_kept_and_can_be_cut() {
        let text = "b".repeat(KEEP_BUILT_MIN) + &"c".repeat(2000);
        let at = text.as_ptr();
        let built = Str::from(text);
        assert_eq!(built.as_ptr(), at, "not copied");
        let part = built.slice(&built[KEEP_BUILT_MIN..]);
        assert_eq!(part, "c".repeat(2000));
        assert_eq!(part.as_ptr(), built[KEEP_BUILT_MIN..].as_ptr());
        let small = Str::from("x".to_string());
        assert_eq!(small, "x");
    }

    #[test]
    fn held_texts_are_read_where_their_holder_keeps_them() {
        /// A holder that counts how often it goes.
        struct Holder(String, Rc<std::cell::Cell<usize>>);
        impl AsRef<str> for Holder {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }
        impl Drop for Holder {
            fn drop(&mut self) {
                self.1.set(self.1.get() + 1);
            }
        }
        let dropped = Rc::new(std::cell::Cell::new(0));
        let text = "h".repeat(1000) + &"i".repeat(2000);
        let at = text.as_ptr();
        let held = Str::held(Holder(text, dropped.clone()));
        assert_eq!(held.as_ptr(), at, "not copied");
        assert_eq!(held.len(), 3000);
        let part = held.slice(&held[1000..]);
        assert_eq!(part, "i".repeat(2000));
        assert_eq!(part.as_ptr(), held[1000..].as_ptr(), "shared");
        drop(held);
        assert_eq!(dropped.get(), 0, "a part keeps its holder");
        drop(part);
        assert_eq!(dropped.get(), 1);
    }
}
