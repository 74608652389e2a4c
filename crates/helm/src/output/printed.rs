//! `helm template`'s stdout as pieces of the texts it is made of: the rendered files, whose
//! documents it frames in place, and the few strings around them. A chart like Istio's base
//! renders a megabyte; joining it into one string would copy it into fresh pages, which cost
//! more here than the copy itself. The pieces are written with vectored writes.

use std::fmt;
use std::io::{self, IoSlice, Write};
use std::ops::Range;

use gotemplate::Str;

use crate::manifest::is_go_space;

/// Text made of byte ranges of kept strings, in order.
#[derive(Clone, Debug, Default)]
pub struct Printed {
    texts: Vec<Str>,
    pieces: Vec<(usize, Range<usize>)>,
}

/// Writes of at most this many pieces at a time (Linux's `IOV_MAX` is 1024).
const PIECES_PER_WRITE: usize = 512;

impl Printed {
    pub fn new() -> Printed {
        Printed::default()
    }

    /// Keeps `text` to take pieces from; returns its index for [`Printed::push_range`].
    pub fn keep(&mut self, text: impl Into<Str>) -> usize {
        self.texts.push(text.into());
        self.texts.len() - 1
    }

    /// Appends `range` of the kept text `text` (empty ranges are left out).
    ///
    /// Panics if the range is not on character boundaries of that text: a caller's bug.
    pub fn push_range(&mut self, text: usize, range: Range<usize>) {
        assert!(
            self.texts[text].get(range.clone()).is_some(),
            "a printed piece must be a str range of its text"
        );
        if !range.is_empty() {
            self.pieces.push((text, range));
        }
    }

    /// Appends the whole kept text `text`.
    pub fn push_kept(&mut self, text: usize) {
        let len = self.texts[text].len();
        self.push_range(text, 0..len);
    }

    /// Appends a text of its own.
    pub fn push_str(&mut self, text: &str) {
        let index = self.keep(text.to_string());
        self.push_range(index, 0..text.len());
    }

    fn piece(&self, k: usize) -> &str {
        let (text, range) = &self.pieces[k];
        &self.texts[*text][range.clone()]
    }

    pub fn len(&self) -> usize {
        self.pieces.iter().map(|(_, r)| r.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    /// Drops Go's white space (`unicode.IsSpace`) from both ends, across pieces.
    pub fn trim(&mut self) {
        while let Some(first) = self.pieces.first() {
            let text = self.piece(0);
            let kept = text.trim_start_matches(is_go_space).len();
            if kept == 0 {
                self.pieces.remove(0);
                continue;
            }
            let start = first.1.start + (text.len() - kept);
            self.pieces[0].1.start = start;
            break;
        }
        while let Some(last) = self.pieces.len().checked_sub(1) {
            let kept = self.piece(last).trim_end_matches(is_go_space).len();
            if kept == 0 {
                self.pieces.pop();
                continue;
            }
            let start = self.pieces[last].1.start;
            self.pieces[last].1.end = start + kept;
            break;
        }
    }

    /// Writes every piece to `out`, several at a time.
    pub fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        let mut first = 0;
        while first < self.pieces.len() {
            let batch = (first + PIECES_PER_WRITE).min(self.pieces.len());
            let mut slices: Vec<IoSlice<'_>> = (first..batch)
                .map(|k| IoSlice::new(self.piece(k).as_bytes()))
                .collect();
            let mut slices = &mut slices[..];
            while !slices.is_empty() {
                match out.write_vectored(slices) {
                    Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                    Ok(n) => IoSlice::advance_slices(&mut slices, n),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            first = batch;
        }
        Ok(())
    }
}

impl fmt::Display for Printed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (0..self.pieces.len()).try_for_each(|k| f.write_str(self.piece(k)))
    }
}

impl From<String> for Printed {
    fn from(text: String) -> Printed {
        let mut printed = Printed::new();
        let len = text.len();
        let index = printed.keep(text);
        printed.push_range(index, 0..len);
        printed
    }
}

impl PartialEq for Printed {
    fn eq(&self, other: &Printed) -> bool {
        self.to_string() == other.to_string()
    }
}

impl Eq for Printed {}

#[cfg(test)]
mod tests {
    use super::*;

    fn printed(parts: &[&str]) -> Printed {
        let mut p = Printed::new();
        for part in parts {
            p.push_str(part);
        }
        p
    }

    #[test]
    fn trims_go_space_across_pieces_as_one_string_would() {
        const PARTS: &[&str] = &[
            "", " ", "\n", "\u{85}", "a", " b ", "\u{3000}", "---\n", "é",
        ];
        let mut rng = testkit::Xorshift::new(0x2545_f491_4f6c_dd1d);
        for _ in 0..20_000 {
            let seed = rng.next();
            let parts: Vec<&str> = (0..(seed % 7) as usize)
                .map(|k| PARTS[((seed >> (6 * k + 3)) % PARTS.len() as u64) as usize])
                .collect();
            let joined = parts.concat();
            let mut p = printed(&parts);
            p.trim();
            assert_eq!(p.to_string(), joined.trim_matches(is_go_space), "{parts:?}");
            assert_eq!(p.len(), joined.trim_matches(is_go_space).len());
        }
    }

    /// A writer that takes at most a few bytes a call, to exercise partial vectored writes.
    struct Trickle(Vec<u8>);

    impl Write for Trickle {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let n = buf.len().min(3);
            self.0.extend_from_slice(&buf[..n]);
            Ok(n)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn writes_every_piece_in_order_through_partial_writes() {
        let parts: Vec<String> = (0..1500).map(|i| format!("<{i}>")).collect();
        let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
        let p = printed(&refs);
        let mut out = Trickle(Vec::new());
        p.write_to(&mut out).unwrap();
        assert_eq!(String::from_utf8(out.0).unwrap(), parts.concat());
        let mut all = Vec::new();
        p.write_to(&mut all).unwrap();
        assert_eq!(all, parts.concat().into_bytes());
    }

    #[test]
    fn ranges_of_one_kept_text_are_shared() {
        let mut p = Printed::new();
        let text = p.keep("a: 1\n---\nb: 2".to_string());
        p.push_range(text, 9..13);
        p.push_str("\n");
        p.push_range(text, 0..4);
        assert_eq!(p.to_string(), "b: 2\na: 1");
    }
}
