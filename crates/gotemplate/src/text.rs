//! [`Str`]: the text of a Go string value, shared when cloned, and possibly a part of a larger
//! shared text instead of a copy of it.
//!
//! Go strings are immutable and slicing one shares its bytes. Helm charts lean on that:
//! Istio's base chart reads its 1 MB CRD file with `.Files.Get` and cuts it with `splitList`
//! into parts that `fromYaml` reads one by one. As copies, those parts are another megabyte of
//! fresh memory, a page fault for each 4 KiB; as parts, a few small records.

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
    Part(Part),
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
                Kept::Built(_) => (self.clone(), 0),
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
}

impl Deref for Str {
    type Target = str;

    fn deref(&self) -> &str {
        match &self.0 {
            Repr::Whole(text) => text,
            Repr::Kept(kept) => match &**kept {
                Kept::Built(text) => text,
                Kept::Part(part) => &part.owner[part.start..part.end],
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
}
