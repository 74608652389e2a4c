//! A small safe wrapper over `unsafe-libyaml`'s event parser. All `unsafe` of the YAML layer
//! lives here.
//!
//! Soundness: the `yaml_parser_t` is heap-allocated and never moves (libyaml stores a pointer to
//! it in its string read handler); the input bytes are owned by the wrapper and outlive the
//! parser (dropped after `yaml_parser_delete`); every event returned by `yaml_parser_parse` is
//! copied into owned Rust data and deleted right away; the parser is deleted exactly once in
//! `Drop`. Pointers read from an event (anchor, tag, value) are either null or point to
//! NUL-terminated (anchor, tag) or `length`-byte (value) buffers owned by the event, as libyaml
//! documents.

use std::ffi::CStr;
use std::mem::MaybeUninit;

use unsafe_libyaml as unsafe_sys;

/// A position in the input, 0-based as libyaml reports it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Mark {
    pub line: usize,
    pub column: usize,
}

impl Mark {
    fn from_sys(m: unsafe_sys::yaml_mark_t) -> Mark {
        Mark {
            line: m.line as usize,
            column: m.column as usize,
        }
    }
}

/// What kind of stage failed, as libyaml's `yaml_error_type_t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ErrorKind {
    Reader,
    Scanner,
    Parser,
    Other,
}

/// A parse failure with libyaml's problem, context and marks.
#[derive(Clone, Debug)]
pub(crate) struct ParseError {
    pub kind: ErrorKind,
    pub problem: String,
    pub problem_mark: Mark,
    pub context_mark: Mark,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScalarStyle {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum EventKind {
    StreamStart,
    StreamEnd,
    /// `version` is the `%YAML` directive's (major, minor), if any.
    DocumentStart {
        version: Option<(i32, i32)>,
    },
    DocumentEnd,
    Alias {
        anchor: String,
    },
    Scalar {
        anchor: Option<String>,
        tag: String,
        value: Vec<u8>,
        plain_implicit: bool,
        style: ScalarStyle,
    },
    /// `flow`: written `[...]` rather than as a block.
    SequenceStart {
        anchor: Option<String>,
        flow: bool,
    },
    SequenceEnd,
    MappingStart {
        anchor: Option<String>,
        flow: bool,
    },
    MappingEnd,
}

#[derive(Clone, Debug)]
pub(crate) struct Event {
    pub kind: EventKind,
    pub start: Mark,
}

/// An event parser over an owned copy of the input.
pub(crate) struct Parser {
    raw: Box<MaybeUninit<unsafe_sys::yaml_parser_t>>,
    // Declared after `raw` and only freed in Drop after the parser is deleted.
    input: Box<[u8]>,
    failed: bool,
}

impl Parser {
    pub fn new(input: &[u8]) -> Parser {
        let input: Box<[u8]> = input.into();
        let mut raw: Box<MaybeUninit<unsafe_sys::yaml_parser_t>> = Box::new(MaybeUninit::uninit());
        // SAFETY: `raw` is a valid, pinned-on-heap allocation for a parser; initialize fills it.
        // The input pointer stays valid while the parser lives (both owned by `self`).
        unsafe {
            let ok = unsafe_sys::yaml_parser_initialize(raw.as_mut_ptr());
            assert!(ok.ok, "libyaml: out of memory initializing the parser");
            unsafe_sys::yaml_parser_set_input_string(
                raw.as_mut_ptr(),
                input.as_ptr(),
                input.len() as _,
            );
        }
        Parser {
            raw,
            input,
            failed: false,
        }
    }

    /// The next event, or the parse error. After an error, every call returns the same error.
    pub fn next_event(&mut self) -> Result<Event, ParseError> {
        if self.failed {
            return Err(self.error());
        }
        let mut ev: MaybeUninit<unsafe_sys::yaml_event_t> = MaybeUninit::uninit();
        // SAFETY: the parser is initialized; on success `ev` is initialized by libyaml, copied
        // out, and deleted exactly once.
        unsafe {
            if unsafe_sys::yaml_parser_parse(self.raw.as_mut_ptr(), ev.as_mut_ptr()).fail {
                self.failed = true;
                return Err(self.error());
            }
            let ev = ev.assume_init_mut();
            let out = convert_event(ev);
            unsafe_sys::yaml_event_delete(ev);
            Ok(out)
        }
    }

    fn error(&self) -> ParseError {
        // SAFETY: the parser is initialized; `problem` is null or a static NUL-terminated string.
        unsafe {
            let p = &*self.raw.as_ptr();
            let kind = match p.error {
                unsafe_sys::YAML_READER_ERROR => ErrorKind::Reader,
                unsafe_sys::YAML_SCANNER_ERROR => ErrorKind::Scanner,
                unsafe_sys::YAML_PARSER_ERROR => ErrorKind::Parser,
                _ => ErrorKind::Other,
            };
            let problem = if p.problem.is_null() {
                String::new()
            } else {
                CStr::from_ptr(p.problem).to_string_lossy().into_owned()
            };
            ParseError {
                kind,
                problem,
                problem_mark: Mark::from_sys(p.problem_mark),
                context_mark: Mark::from_sys(p.context_mark),
            }
        }
    }
}

impl Drop for Parser {
    fn drop(&mut self) {
        // SAFETY: initialized in `new`, deleted once here; the input is freed after this.
        unsafe { unsafe_sys::yaml_parser_delete(self.raw.as_mut_ptr()) }
        let _ = &self.input;
    }
}

/// # Safety
/// `p` is null or a NUL-terminated string.
unsafe fn cstr(p: *const u8) -> Option<String> {
    if p.is_null() {
        None
    } else {
        // SAFETY: per the function contract.
        Some(
            unsafe { CStr::from_ptr(p.cast()) }
                .to_string_lossy()
                .into_owned(),
        )
    }
}

/// # Safety
/// `ev` is an initialized event returned by `yaml_parser_parse`.
unsafe fn convert_event(ev: &unsafe_sys::yaml_event_t) -> Event {
    let start = Mark::from_sys(ev.start_mark);
    // SAFETY: the union member read matches the event type, per libyaml.
    let kind = unsafe {
        match ev.type_ {
            unsafe_sys::YAML_STREAM_START_EVENT => EventKind::StreamStart,
            unsafe_sys::YAML_STREAM_END_EVENT => EventKind::StreamEnd,
            unsafe_sys::YAML_DOCUMENT_START_EVENT => {
                let v = ev.data.document_start.version_directive;
                let version = if v.is_null() {
                    None
                } else {
                    Some(((*v).major, (*v).minor))
                };
                EventKind::DocumentStart { version }
            }
            unsafe_sys::YAML_DOCUMENT_END_EVENT => EventKind::DocumentEnd,
            unsafe_sys::YAML_ALIAS_EVENT => EventKind::Alias {
                anchor: cstr(ev.data.alias.anchor).unwrap_or_default(),
            },
            unsafe_sys::YAML_SCALAR_EVENT => {
                let s = ev.data.scalar;
                let value = if s.value.is_null() || s.length == 0 {
                    Vec::new()
                } else {
                    std::slice::from_raw_parts(s.value, s.length as usize).to_vec()
                };
                let style = match s.style {
                    unsafe_sys::YAML_SINGLE_QUOTED_SCALAR_STYLE => ScalarStyle::SingleQuoted,
                    unsafe_sys::YAML_DOUBLE_QUOTED_SCALAR_STYLE => ScalarStyle::DoubleQuoted,
                    unsafe_sys::YAML_LITERAL_SCALAR_STYLE => ScalarStyle::Literal,
                    unsafe_sys::YAML_FOLDED_SCALAR_STYLE => ScalarStyle::Folded,
                    _ => ScalarStyle::Plain,
                };
                EventKind::Scalar {
                    anchor: cstr(s.anchor),
                    tag: cstr(s.tag).unwrap_or_default(),
                    value,
                    plain_implicit: s.plain_implicit,
                    style,
                }
            }
            unsafe_sys::YAML_SEQUENCE_START_EVENT => EventKind::SequenceStart {
                anchor: cstr(ev.data.sequence_start.anchor),
                flow: ev.data.sequence_start.style == unsafe_sys::YAML_FLOW_SEQUENCE_STYLE,
            },
            unsafe_sys::YAML_SEQUENCE_END_EVENT => EventKind::SequenceEnd,
            unsafe_sys::YAML_MAPPING_START_EVENT => EventKind::MappingStart {
                anchor: cstr(ev.data.mapping_start.anchor),
                flow: ev.data.mapping_start.style == unsafe_sys::YAML_FLOW_MAPPING_STYLE,
            },
            _ => EventKind::MappingEnd,
        }
    };
    Event { kind, start }
}
