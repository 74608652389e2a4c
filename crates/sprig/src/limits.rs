//! How large a value a function may build from a count it is given (`repeat`, `indent`,
//! `until`, `untilStep`, `seq`, `randAlpha`…, `randBytes`).
//!
//! Go checks only what its runtime checks: a length that overflows `int` (`strings.Repeat`'s
//! own panic) and an allocation beyond `runtime.maxAlloc` (`makeslice: len out of range`). Below
//! those it tries to allocate whatever is asked and the process dies of memory exhaustion
//! (helm: `fatal error: out of memory`, or the kernel's OOM killer after 24 GB). So each check
//! here gives Go's error where Go gives one, computed from the count before anything is
//! allocated, and beyond [`MAX_BUILT_BYTES`] bosun's own error, where Go would exhaust memory.

use gotemplate::{FuncError, Value};

use super::runtime_error;

/// Go's `runtime.maxAlloc` on 64-bit Linux (`1 << heapAddrBits`, 48 bits): `make` of more
/// bytes panics.
pub(crate) const GO_MAX_ALLOC: u128 = 1 << 48;

/// bosun's bound on one string a function builds from a count (1 GiB); lists are bound to the
/// same memory ([`MAX_BUILT_ITEMS`]). Go has no such bound: past it helm exhausts memory.
pub const MAX_BUILT_BYTES: u64 = 1 << 30;

/// bosun's bound on the items of one list a function builds from a count: as many as fit in
/// [`MAX_BUILT_BYTES`] (33,554,432 with 32-byte values).
pub const MAX_BUILT_ITEMS: u64 = MAX_BUILT_BYTES / std::mem::size_of::<Value>() as u64;

/// Go's `make([]T, len)` for a `T` of `elem` bytes: the runtime's panic when `len * elem` is
/// beyond what it may allocate (also for a negative `len`).
pub(crate) fn go_make_slice(len: i128, elem: u128) -> Result<(), FuncError> {
    let ok = u128::try_from(len)
        .ok()
        .and_then(|len| len.checked_mul(elem))
        .is_some_and(|bytes| bytes <= GO_MAX_ALLOC);
    if ok {
        Ok(())
    } else {
        Err(runtime_error("makeslice: len out of range"))
    }
}

/// bosun's bound on a string of `bytes` bytes that a function is about to build.
pub(crate) fn string_within_limit(bytes: u128) -> Result<(), FuncError> {
    if bytes <= u128::from(MAX_BUILT_BYTES) {
        Ok(())
    } else {
        Err(FuncError::new(format!(
            "the result would be {bytes} bytes long, more than bosun's limit of \
             {MAX_BUILT_BYTES} bytes for a string a function builds"
        )))
    }
}

/// bosun's bound on a list of `items` numbers that a function is about to build (`None`: more
/// than could be counted).
pub(crate) fn list_within_limit(items: Option<u64>) -> Result<(), FuncError> {
    match items {
        Some(items) if items <= MAX_BUILT_ITEMS => Ok(()),
        Some(items) => Err(too_many(&items.to_string())),
        None => Err(too_many(&format!("more than {MAX_BUILT_ITEMS}"))),
    }
}

fn too_many(items: &str) -> FuncError {
    FuncError::new(format!(
        "the result would be a list of {items} numbers, more than bosun's limit of \
         {MAX_BUILT_ITEMS} items for a list a function builds"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_make_slice_refuses_what_the_go_runtime_refuses() {
        assert!(go_make_slice(0, 1).is_ok());
        assert!(go_make_slice(1 << 48, 1).is_ok());
        assert!(go_make_slice((1 << 48) + 1, 1).is_err());
        assert!(go_make_slice(1 << 46, 4).is_ok());
        assert!(go_make_slice((1 << 46) + 1, 4).is_err());
        assert!(go_make_slice(-1, 1).is_err());
        assert!(go_make_slice(i128::MAX, 8).is_err());
    }

    #[test]
    fn the_list_bound_is_the_string_bound_in_memory() {
        assert!(MAX_BUILT_ITEMS * std::mem::size_of::<Value>() as u64 <= MAX_BUILT_BYTES);
        assert!(list_within_limit(Some(MAX_BUILT_ITEMS)).is_ok());
        assert!(list_within_limit(Some(MAX_BUILT_ITEMS + 1)).is_err());
        assert!(list_within_limit(None).is_err());
        assert!(string_within_limit(u128::from(MAX_BUILT_BYTES)).is_ok());
        assert!(string_within_limit(u128::from(MAX_BUILT_BYTES) + 1).is_err());
    }
}
