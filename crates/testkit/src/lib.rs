//! Helpers shared by the workspace's tests, so each is written once: a deterministic
//! generator for generated test inputs ([`Xorshift`]), a byte-exact decoder of Go's quoted
//! strings for oracle outputs ([`go_unquote`]), the status and output of a finished command
//! for assertion messages ([`text`], [`succeeded`]), and, with the `async` feature, polling
//! until a condition holds ([`wait_until`]), running a future on a runtime of its own
//! ([`block_on`]) and a command without blocking the runtime ([`output`]).
//!
//! Only ever a dev-dependency (`publish = false`): nothing here reaches a non-test build. It
//! depends on no crate of the workspace, so any of them can use it in its own unit tests.

mod process;
mod rng;
#[cfg(feature = "async")]
mod runtime;
mod unquote;

pub use process::{stderr, stdout, succeeded, text};
pub use rng::Xorshift;
#[cfg(feature = "async")]
pub use runtime::{TimedOut, block_on, output, wait_until};
pub use unquote::{UnquoteError, go_unquote};
