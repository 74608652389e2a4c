//! The vocabulary bosun's crates share, with no behaviour of its own: the names of the labels
//! and annotations Istio (and istioctl's installer) defines, each named once ([`labels`]).
//!
//! It sits below every crate that reads or writes those labels. It must not do I/O, render,
//! or judge: names only.

pub mod labels;
