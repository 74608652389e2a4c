//! Buffers a thread reuses from one document to the next. Fresh memory costs a page fault for
//! each 4 KiB written (about 2 µs each on the project's machine, BENCHMARKS.md); memory
//! written before costs nothing more. Istio's base chart reads and writes fifteen CRDs.

use std::cell::RefCell;
use std::thread::LocalKey;

/// Byte buffers up to this capacity are kept for the next document.
const BYTES_MAX: usize = 4 << 20;

/// Runs `f` on this thread's value in `slot`, taken out meanwhile (a nested use starts from a
/// fresh one), and puts it back afterwards unless `keep` says it has grown too large to hold.
pub(crate) fn reusing<T: Default, R>(
    slot: &'static LocalKey<RefCell<T>>,
    keep: fn(&T) -> bool,
    f: impl FnOnce(&mut T) -> R,
) -> R {
    let mut value = slot.with_borrow_mut(std::mem::take);
    let result = f(&mut value);
    if keep(&value) {
        slot.set(value);
    }
    result
}

/// [`reusing`]'s `keep` for byte buffers.
pub(crate) fn keep_bytes(buffer: &Vec<u8>) -> bool {
    buffer.capacity() <= BYTES_MAX
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        static SLOT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    }

    #[test]
    fn a_buffer_is_reused_unless_too_large_and_nested_uses_start_fresh() {
        reusing(&SLOT, keep_bytes, |b| b.reserve(1000));
        reusing(&SLOT, keep_bytes, |b| {
            assert!(b.capacity() >= 1000, "kept");
            reusing(&SLOT, keep_bytes, |inner| assert_eq!(inner.capacity(), 0));
        });
        reusing(&SLOT, keep_bytes, |b| b.reserve(BYTES_MAX + 1));
        reusing(&SLOT, keep_bytes, |b| {
            assert_eq!(b.capacity(), 0, "not kept")
        });
    }
}
