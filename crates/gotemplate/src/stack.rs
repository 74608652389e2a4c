//! Recursion over values of any depth.
//!
//! Go's goroutine stacks grow to 1 GB, so Helm walks values nested tens of thousands of levels
//! deep (a template can build one in a loop); a fixed Rust stack would overflow long before.
//! Every recursive walk over values (printing, copying, comparing, encoding, decoding, and the
//! drop of the tree itself) runs its per-container step through [`grow`], which switches to a
//! fresh heap-allocated stack segment when the current one runs low.

/// Stack space to keep in reserve before recursing one level deeper.
pub const RED_ZONE: usize = 64 * 1024;
/// The size of each extra segment: large enough that the switch is rare.
pub const STACK_GROW: usize = 1024 * 1024;

/// Run `f`, on a new stack segment if less than [`RED_ZONE`] is left. Call it once per
/// container level, not per leaf: the check is cheap but not free.
#[inline]
pub fn grow<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, STACK_GROW, f)
}
