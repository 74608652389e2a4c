//! Go's `time` package (import path `time`), as far as templates and Istio's checks need it:
//! `time.Duration` parsing and printing ([`parse_duration`], [`format_duration`]) and a model
//! of `time.Time` ([`time::Time`]) with Go's layouts, zones and methods, as the template value
//! of type `time.Time`.
//!
//! Owns Go's time semantics only. It must not know Sprig, YAML, Helm or charts: Sprig's date
//! functions (crate `sprig`), go-yaml's timestamps (crate `goyaml`) and the schema engine's
//! `date` format build on it.

mod duration;
pub mod time;

pub use duration::{
    DurationError, HOUR, MILLISECOND, Nanos, SECOND, format_duration, go_quote, parse_duration,
};
