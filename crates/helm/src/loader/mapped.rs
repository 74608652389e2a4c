//! A large chart file's text mapped into memory instead of read into fresh pages.
//!
//! Reading Istio's 1 MB CRD file copies it into memory that is new to the process: a page
//! fault and a cleared page for every 4 KiB, about 0.4 ms here and on the render's critical
//! path. Mapped, the text is the page cache's own pages, which Linux maps in the `mmap` call
//! itself (`MAP_POPULATE`).
//!
//! The cost is that the text is the file's as long as it is mapped, not a copy taken once. The
//! mapping is private and read-only, but pages bosun has not written show what the file holds
//! now: a chart file rewritten in place during a render changes under it, and one truncated
//! during a render raises SIGBUS when the part past its new end is read (the `bosun` binary
//! turns that into an error message). Editors, `git` and `tar` replace files rather than
//! rewrite them, and a replaced file's old pages stay mapped, so neither happens in practice;
//! only files of at least [`MAP_MIN`] bytes are mapped.

/// Files shorter than this are read: below it the mapping's two system calls cost about what
/// the page faults of a read would.
pub const MAP_MIN: u64 = 128 * 1024;

/// Linux maps every page of the file in the `mmap` call itself: one pass instead of a page
/// fault for each sixteen pages as the text is first read (the UTF-8 check right after reads
/// all of it).
#[cfg(target_os = "linux")]
const POPULATE: libc::c_int = libc::MAP_POPULATE;
#[cfg(all(unix, not(target_os = "linux")))]
const POPULATE: libc::c_int = 0;

/// A file's text, mapped. Valid UTF-8 when it was mapped; a leading byte order mark is left
/// out, as Helm's loader drops it.
pub struct MappedText {
    base: *mut std::ffi::c_void,
    mapped_len: usize,
    /// Where the text starts in the mapping (past a byte order mark).
    start: usize,
}

impl MappedText {
    /// The first `len` bytes of `file` (its size when asked), mapped; `None` when it cannot be
    /// mapped or is not UTF-8, and the caller reads it instead.
    #[cfg(unix)]
    pub fn map(file: &std::fs::File, len: u64) -> Option<MappedText> {
        use std::os::fd::AsRawFd;
        let mapped_len = usize::try_from(len).ok().filter(|&n| n > 0)?;
        // SAFETY: a new private read-only mapping of an open file; no memory of ours is given.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                mapped_len,
                libc::PROT_READ,
                libc::MAP_PRIVATE | POPULATE,
                file.as_raw_fd(),
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return None;
        }
        // Unmapped when dropped, on the way out below too.
        let mut mapped = MappedText {
            base,
            mapped_len,
            start: 0,
        };
        let bytes = mapped.bytes();
        let start = crate::chart::bom_len(bytes);
        std::str::from_utf8(&bytes[start..]).ok()?;
        mapped.start = start;
        Some(mapped)
    }

    #[cfg(not(unix))]
    pub fn map(_file: &std::fs::File, _len: u64) -> Option<MappedText> {
        None
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: the mapping is `mapped_len` readable bytes for as long as `self` lives.
        unsafe { std::slice::from_raw_parts(self.base as *const u8, self.mapped_len) }
    }
}

impl AsRef<str> for MappedText {
    fn as_ref(&self) -> &str {
        // SAFETY: checked to be UTF-8 from `start` when mapped (see the module's doc for a
        // file rewritten in place while it is mapped).
        unsafe { std::str::from_utf8_unchecked(&self.bytes()[self.start..]) }
    }
}

impl Drop for MappedText {
    fn drop(&mut self) {
        #[cfg(unix)]
        // SAFETY: the mapping is this value's alone, and nothing borrows it past `self`.
        unsafe {
            libc::munmap(self.base, self.mapped_len);
        }
    }
}

impl std::fmt::Debug for MappedText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MappedText({} bytes)", self.mapped_len - self.start)
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn mapped(dir: &std::path::Path, name: &str, bytes: &[u8]) -> Option<MappedText> {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        MappedText::map(&file, bytes.len() as u64)
    }

    #[test]
    fn maps_utf8_text_without_its_byte_order_mark_and_refuses_the_rest() {
        let dir = std::env::temp_dir().join(format!("bosun-mapped-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let text = "kind: Thing\n".repeat(20_000);
        assert_eq!(
            mapped(&dir, "text", text.as_bytes()).unwrap().as_ref(),
            text
        );
        let bom = [b"\xEF\xBB\xBF", text.as_bytes()].concat();
        assert_eq!(mapped(&dir, "bom", &bom).unwrap().as_ref(), text);
        let cut_char = [text.as_bytes(), "é".as_bytes()].concat();
        assert!(mapped(&dir, "cut", &cut_char[..cut_char.len() - 1]).is_none());
        assert!(mapped(&dir, "empty", b"").is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_replaced_after_it_was_mapped_keeps_its_text() {
        // What editors, git and tar do: write a new file and rename it over the old one.
        let dir = std::env::temp_dir().join(format!("bosun-mapped-r-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let old = "a: 1\n".repeat(40_000);
        let text = mapped(&dir, "values.yaml", old.as_bytes()).unwrap();
        std::fs::write(dir.join("new"), "b: 2\n").unwrap();
        std::fs::rename(dir.join("new"), dir.join("values.yaml")).unwrap();
        assert_eq!(text.as_ref(), old);
        drop(text);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
