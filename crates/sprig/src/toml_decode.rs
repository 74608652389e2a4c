//! Helm's `fromToml`: BurntSushi/toml v1.6's decoder, reimplemented so that documents decode to
//! the same Go values and malformed ones fail with the same `Error` text.
//!
//! BurntSushi's lexer is a state machine that hands items (key parts, values, brackets) to a
//! parser, which builds the document and reports a `ParseError` at the first bad item:
//! `toml: line N (last key "k"): MESSAGE`. Its messages, line numbers and the "last key" all
//! depend on exactly where the state machine stands and how far the parser has come, so both
//! follow BurntSushi's decisions step by step (including its quirks: the line of an error at a
//! line end or at the end of input is often the line before, and `[a]` is accepted after
//! `a.b = 1` but not after `a.b = 1` and `a.c = 2`). The lexer runs ahead of the parser here;
//! that is equivalent because BurntSushi's parser reads every item in order and stops at the
//! first error item, and anything its lexer does beyond that point is never seen.
//!
//! Differences that remain: BurntSushi tells letters apart with Go's `unicode.IsLetter` (a value
//! starting with a letter is lexed as a boolean); here `char::is_alphabetic`, which also counts
//! a few non-letter alphabetic characters (Roman numerals, combining marks), so
//! `x = Ⅻ` words its error differently. Invalid UTF-8 cannot occur: template strings are
//! valid UTF-8 here.

use std::collections::{HashMap, HashSet};

use gotemplate::fmt::{quote, quote_rune};
use gotemplate::{List, Map, Value};

use super::date::parse_toml_datetime;
use super::toml::quote_key;

/// Stack left before `stacker` grows it, and by how much, for nested values.
const RED_ZONE: usize = 64 * 1024;
const STACK_GROW: usize = 1024 * 1024;

/// Go's `eof` rune in BurntSushi's lexer.
const EOF: char = '\0';
/// What `next` returns after reporting an invalid character (`utf8.RuneError`).
const RUNE_ERROR: char = '\u{fffd}';

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ItemType {
    Eof,
    Text,
    String,
    StringEsc,
    RawString,
    MultilineString,
    RawMultilineString,
    Bool,
    Integer,
    Float,
    Datetime,
    Array,
    ArrayEnd,
    TableStart,
    TableEnd,
    ArrayTableStart,
    ArrayTableEnd,
    KeyStart,
    KeyEnd,
    CommentStart,
    InlineTableStart,
    InlineTableEnd,
}

impl ItemType {
    /// BurntSushi's `itemType.String`, for its internal-error messages.
    fn name(self) -> &'static str {
        use ItemType::*;
        match self {
            Eof => "EOF",
            Text => "Text",
            String | StringEsc | RawString | MultilineString | RawMultilineString => "String",
            Bool => "Bool",
            Integer => "Integer",
            Float => "Float",
            Datetime => "DateTime",
            Array => "Array",
            ArrayEnd => "ArrayEnd",
            TableStart => "TableStart",
            TableEnd => "TableEnd",
            ArrayTableStart => "ArrayTableStart",
            ArrayTableEnd => "ArrayTableEnd",
            KeyStart => "KeyStart",
            KeyEnd => "KeyEnd",
            CommentStart => "CommentStart",
            InlineTableStart => "InlineTableStart",
            InlineTableEnd => "InlineTableEnd",
        }
    }
}

/// One lexer item, or the lexer's own end: an error (message and line) or an internal error
/// (BurntSushi panics with it, and Go's template engine reports the panic as the call's error).
#[derive(Clone, Debug)]
enum Item {
    Token {
        typ: ItemType,
        val: String,
        line: usize,
    },
    Error {
        msg: String,
        line: usize,
    },
    Bug(String),
}

/// The lexer's states (BurntSushi's state functions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Top,
    TopEnd,
    TableStart,
    TableEnd,
    ArrayTableEnd,
    TableNameStart,
    TableNameEnd,
    BareName,
    QuotedName,
    KeyStart,
    KeyNameStart,
    KeyEnd,
    Value,
    ArrayValue,
    ArrayValueEnd,
    ArrayEnd,
    InlineTableValue,
    InlineTableValueEnd,
    InlineTableEnd,
    String,
    MultilineString,
    RawString,
    MultilineRawString,
    MultilineStringEscape,
    StringEscape,
    HexEscape,
    ShortUnicodeEscape,
    LongUnicodeEscape,
    NumberOrDateStart,
    NumberOrDate,
    Datetime,
    HexInteger,
    OctalInteger,
    BinaryInteger,
    DecimalNumber,
    DecimalNumberStart,
    BaseNumberOrDate,
    Float,
    Bool,
    CommentStart,
    Comment,
}

struct Lexer<'a> {
    input: &'a str,
    start: usize,
    pos: usize,
    line: usize,
    /// Widths of the last runes read, newest first, for `backup` (up to 4).
    widths: [usize; 4],
    nprev: usize,
    at_eof: bool,
    esc: bool,
    stack: Vec<State>,
    items: Vec<Item>,
    /// The first error or internal error, which ends lexing.
    done: bool,
}

fn is_ws(r: char) -> bool {
    r == '\t' || r == ' '
}

fn is_nl(r: char) -> bool {
    r == '\n' || r == '\r'
}

fn is_control(r: char) -> bool {
    !matches!(r, '\t' | '\r' | '\n') && (r <= '\u{1f}' || r == '\u{7f}')
}

fn is_digit(r: char) -> bool {
    r.is_ascii_digit()
}

fn is_hex(r: char) -> bool {
    r.is_ascii_hexdigit()
}

fn is_bare_key_char(r: char) -> bool {
    r.is_ascii_alphanumeric() || r == '_' || r == '-'
}

/// Go's `%q` of a rune.
fn q(r: char) -> String {
    quote_rune(r as u32)
}

/// BurntSushi's `runeOrEOF`.
fn rune_or_eof(r: char) -> String {
    if r == EOF {
        "end of file".to_string()
    } else {
        format!("'{r}'")
    }
}

impl<'a> Lexer<'a> {
    fn new(input: &'a str) -> Lexer<'a> {
        Lexer {
            input,
            start: 0,
            pos: 0,
            line: 1,
            widths: [0; 4],
            nprev: 0,
            at_eof: false,
            esc: false,
            stack: Vec::new(),
            items: Vec::new(),
            done: false,
        }
    }

    /// Runs the state machine to the end of input or the first error.
    fn run(mut self) -> Vec<Item> {
        let mut state = Some(State::Top);
        while let Some(st) = state {
            let before = self.items.len();
            state = self.step(st);
            if let Some(Item::Bug(msg)) = self.items.last() {
                // BurntSushi panics inside the state function, before the parser sees anything
                // that function emitted.
                let msg = msg.clone();
                self.items.truncate(before);
                self.items.push(Item::Bug(msg));
                break;
            }
            if self.done {
                break;
            }
        }
        self.items
    }

    fn bug(&mut self, msg: &str) {
        if !self.items.iter().any(|i| matches!(i, Item::Bug(_))) {
            self.items.push(Item::Bug(msg.to_string()));
        }
        self.done = true;
    }

    fn push(&mut self, s: State) {
        self.stack.push(s);
    }

    fn pop(&mut self) -> Option<State> {
        let s = self.stack.pop();
        if s.is_none() {
            self.bug("BUG in lexer: no states to pop");
        }
        s
    }

    fn current(&self) -> &'a str {
        self.input.get(self.start..self.pos).unwrap_or("")
    }

    fn emit_val(&mut self, typ: ItemType, val: String) {
        if !self.done {
            self.items.push(Item::Token {
                typ,
                val,
                line: self.line,
            });
        }
        self.start = self.pos;
    }

    fn emit(&mut self, typ: ItemType) {
        // After backing up over a rune that failed to read (an error has been reported).
        if self.start > self.pos {
            let byte = self.input.as_bytes().get(self.pos).copied().unwrap_or(0);
            self.error(format!("invalid UTF-8 byte: 0x{byte:02x}"));
            return;
        }
        self.emit_val(typ, self.current().to_string());
    }

    fn emit_trim(&mut self, typ: ItemType) {
        let val = self.current().trim().to_string();
        self.emit_val(typ, val);
    }

    fn error_at(&mut self, msg: String, line: usize) -> Option<State> {
        if !self.done {
            self.items.push(Item::Error { msg, line });
            self.done = true;
        }
        None
    }

    /// `lx.error`: at the end of input, the line before.
    fn error(&mut self, msg: String) -> Option<State> {
        if self.at_eof {
            return self.error_prev_line(msg);
        }
        self.error_at(msg, self.line)
    }

    /// `lx.errorPrevLine`.
    fn error_prev_line(&mut self, msg: String) -> Option<State> {
        self.error_at(msg, self.line.saturating_sub(1))
    }

    /// `lx.errorf`: at the end of input after a newline, the line before.
    fn errorf(&mut self, msg: String) -> Option<State> {
        let mut line = self.line;
        if self.at_eof && self.pos >= 1 && self.input.as_bytes()[self.pos - 1] == b'\n' {
            line -= 1;
        }
        self.error_at(msg, line)
    }

    fn next(&mut self) -> char {
        if self.at_eof {
            self.bug("BUG in lexer: next called after EOF");
            return EOF;
        }
        let rest = &self.input[self.pos..];
        let Some(r) = rest.chars().next() else {
            self.at_eof = true;
            return EOF;
        };
        if r == '\n' {
            self.line += 1;
        }
        self.widths.copy_within(0..3, 1);
        if self.nprev < 4 {
            self.nprev += 1;
        }
        let lone_cr = r == '\r' && !rest[1..].starts_with('\n');
        if is_control(r) || lone_cr {
            self.error_at(
                format!(
                    "TOML files cannot contain control characters: '0x{:02x}'",
                    r as u32
                ),
                self.line,
            );
            return RUNE_ERROR;
        }
        self.widths[0] = r.len_utf8();
        self.pos += r.len_utf8();
        r
    }

    fn ignore(&mut self) {
        self.start = self.pos;
    }

    fn backup(&mut self) {
        if self.at_eof {
            self.at_eof = false;
            return;
        }
        if self.nprev < 1 {
            self.bug("BUG in lexer: backed up too far");
            return;
        }
        let w = self.widths[0];
        self.widths.copy_within(1..4, 0);
        self.nprev -= 1;
        self.pos = self.pos.saturating_sub(w);
        if self.input.as_bytes().get(self.pos) == Some(&b'\n') {
            self.line -= 1;
        }
    }

    fn accept(&mut self, valid: char) -> bool {
        if self.next() == valid {
            return true;
        }
        self.backup();
        false
    }

    fn peek(&mut self) -> char {
        let r = self.next();
        self.backup();
        r
    }

    fn skip(&mut self, pred: fn(char) -> bool) {
        loop {
            let r = self.next();
            if pred(r) {
                continue;
            }
            self.backup();
            self.ignore();
            return;
        }
    }

    /// One state function; `None` stops the machine.
    fn step(&mut self, st: State) -> Option<State> {
        use State as S;
        match st {
            S::Top => {
                let r = self.next();
                if is_ws(r) || is_nl(r) {
                    self.ignore();
                    return Some(S::Top);
                }
                match r {
                    '#' => {
                        self.push(S::Top);
                        Some(S::CommentStart)
                    }
                    '[' => Some(S::TableStart),
                    EOF => {
                        if self.pos > self.start {
                            return self.errorf("unexpected EOF".into());
                        }
                        self.emit(ItemType::Eof);
                        self.done = true;
                        None
                    }
                    _ => {
                        self.backup();
                        self.push(S::TopEnd);
                        Some(S::KeyStart)
                    }
                }
            }
            S::TopEnd => {
                let r = self.next();
                match r {
                    '#' => {
                        self.push(S::Top);
                        Some(S::CommentStart)
                    }
                    r if is_ws(r) => Some(S::TopEnd),
                    r if is_nl(r) => {
                        self.ignore();
                        Some(S::Top)
                    }
                    EOF => {
                        self.emit(ItemType::Eof);
                        self.done = true;
                        None
                    }
                    r => self.errorf(format!(
                        "expected a top-level item to end with a newline, comment, or EOF, but got {} instead",
                        q(r)
                    )),
                }
            }
            S::TableStart => {
                if self.peek() == '[' {
                    self.next();
                    self.emit(ItemType::ArrayTableStart);
                    self.push(S::ArrayTableEnd);
                } else {
                    self.emit(ItemType::TableStart);
                    self.push(S::TableEnd);
                }
                Some(S::TableNameStart)
            }
            S::TableEnd => {
                self.emit(ItemType::TableEnd);
                Some(S::TopEnd)
            }
            S::ArrayTableEnd => {
                let r = self.next();
                if r != ']' {
                    return self.errorf(format!(
                        "expected end of table array name delimiter ']', but got {} instead",
                        q(r)
                    ));
                }
                self.emit(ItemType::ArrayTableEnd);
                Some(S::TopEnd)
            }
            S::TableNameStart => {
                self.skip(is_ws);
                match self.peek() {
                    ']' | EOF => self.errorf(
                        "unexpected end of table name (table names cannot be empty)".into(),
                    ),
                    '.' => self
                        .errorf("unexpected table separator (table names cannot be empty)".into()),
                    '"' | '\'' => {
                        self.ignore();
                        self.push(S::TableNameEnd);
                        Some(S::QuotedName)
                    }
                    _ => {
                        self.push(S::TableNameEnd);
                        Some(S::BareName)
                    }
                }
            }
            S::TableNameEnd => {
                self.skip(is_ws);
                match self.next() {
                    '.' => {
                        self.ignore();
                        Some(S::TableNameStart)
                    }
                    ']' => self.pop(),
                    r => self.errorf(format!(
                        "expected '.' or ']' to end table name, but got {} instead",
                        q(r)
                    )),
                }
            }
            S::BareName => {
                let r = self.next();
                if is_bare_key_char(r) {
                    return Some(S::BareName);
                }
                self.backup();
                self.emit(ItemType::Text);
                self.pop()
            }
            S::QuotedName => match self.next() {
                '"' => {
                    self.ignore();
                    Some(S::String)
                }
                '\'' => {
                    self.ignore();
                    Some(S::RawString)
                }
                r if is_ws(r) => {
                    self.ignore();
                    Some(S::Value)
                }
                EOF => self.errorf("unexpected EOF; expected value".into()),
                r => self.errorf(format!("expected value but found {} instead", q(r))),
            },
            S::KeyStart => {
                self.skip(is_ws);
                match self.peek() {
                    '=' | EOF => self.errorf("unexpected '=': key name appears blank".into()),
                    '.' => self.errorf("unexpected '.': keys cannot start with a '.'".into()),
                    r => {
                        if r == '"' || r == '\'' {
                            self.ignore();
                        }
                        self.emit(ItemType::KeyStart);
                        Some(S::KeyNameStart)
                    }
                }
            }
            S::KeyNameStart => {
                self.skip(is_ws);
                match self.peek() {
                    '"' | '\'' => {
                        self.ignore();
                        self.push(S::KeyEnd);
                        Some(S::QuotedName)
                    }
                    '=' | EOF => self.errorf("unexpected '='".into()),
                    '.' => self.errorf("unexpected '.'".into()),
                    _ => {
                        self.push(S::KeyEnd);
                        Some(S::BareName)
                    }
                }
            }
            S::KeyEnd => {
                self.skip(is_ws);
                match self.next() {
                    r if is_ws(r) => {
                        self.ignore();
                        Some(S::KeyEnd)
                    }
                    EOF => self.errorf("unexpected EOF; expected key separator '='".into()),
                    '.' => {
                        self.ignore();
                        Some(S::KeyNameStart)
                    }
                    '=' => {
                        self.emit(ItemType::KeyEnd);
                        self.ignore();
                        Some(S::Value)
                    }
                    '\n' => {
                        self.error_prev_line("expected '.' or '=', but got '\\n' instead".into())
                    }
                    r => self.errorf(format!("expected '.' or '=', but got {} instead", q(r))),
                }
            }
            S::Value => self.lex_value(),
            S::ArrayValue => match self.next() {
                r if is_ws(r) || is_nl(r) => {
                    self.ignore();
                    Some(S::ArrayValue)
                }
                '#' => {
                    self.push(S::ArrayValue);
                    Some(S::CommentStart)
                }
                ',' => self.errorf("unexpected comma".into()),
                ']' => Some(S::ArrayEnd),
                _ => {
                    self.backup();
                    self.push(S::ArrayValueEnd);
                    Some(S::Value)
                }
            },
            S::ArrayValueEnd => match self.next() {
                r if is_ws(r) || is_nl(r) => {
                    self.ignore();
                    Some(S::ArrayValueEnd)
                }
                '#' => {
                    self.push(S::ArrayValueEnd);
                    Some(S::CommentStart)
                }
                ',' => {
                    self.ignore();
                    Some(S::ArrayValue)
                }
                ']' => Some(S::ArrayEnd),
                r => self.errorf(format!(
                    "expected a comma (',') or array terminator (']'), but got {}",
                    rune_or_eof(r)
                )),
            },
            S::ArrayEnd => {
                self.ignore();
                self.emit(ItemType::ArrayEnd);
                self.pop()
            }
            S::InlineTableValue => match self.next() {
                r if is_ws(r) || is_nl(r) => {
                    self.ignore();
                    Some(S::InlineTableValue)
                }
                '#' => {
                    self.push(S::InlineTableValue);
                    Some(S::CommentStart)
                }
                ',' => self.errorf("unexpected comma".into()),
                '}' => Some(S::InlineTableEnd),
                _ => {
                    self.backup();
                    self.push(S::InlineTableValueEnd);
                    Some(S::KeyStart)
                }
            },
            S::InlineTableValueEnd => match self.next() {
                r if is_ws(r) || is_nl(r) => {
                    self.ignore();
                    Some(S::InlineTableValueEnd)
                }
                '#' => {
                    self.push(S::InlineTableValueEnd);
                    Some(S::CommentStart)
                }
                ',' => {
                    self.ignore();
                    self.skip(is_ws);
                    if self.peek() == '}' {
                        return Some(S::InlineTableValueEnd);
                    }
                    Some(S::InlineTableValue)
                }
                '}' => Some(S::InlineTableEnd),
                r => self.errorf(format!(
                    "expected a comma or an inline table terminator '}}', but got {} instead",
                    rune_or_eof(r)
                )),
            },
            S::InlineTableEnd => {
                self.ignore();
                self.emit(ItemType::InlineTableEnd);
                self.pop()
            }
            S::String => match self.next() {
                EOF => self.errorf("unexpected EOF; expected '\"'".into()),
                r if is_nl(r) => self.error_prev_line("strings cannot contain newlines".into()),
                '\\' => {
                    self.push(S::String);
                    Some(S::StringEscape)
                }
                '"' => {
                    self.backup();
                    if self.esc {
                        self.esc = false;
                        self.emit(ItemType::StringEsc);
                    } else {
                        self.emit(ItemType::String);
                    }
                    self.next();
                    self.ignore();
                    self.pop()
                }
                _ => Some(S::String),
            },
            S::MultilineString => match self.next() {
                EOF => self.errorf("unexpected EOF; expected '\"\"\"'".into()),
                '\\' => Some(S::MultilineStringEscape),
                '"' => self.multiline_close('"', S::MultilineString),
                _ => Some(S::MultilineString),
            },
            S::RawString => match self.next() {
                EOF => self.errorf("unexpected EOF; expected \"'\"".into()),
                r if is_nl(r) => self.error_prev_line("strings cannot contain newlines".into()),
                '\'' => {
                    self.backup();
                    self.emit(ItemType::RawString);
                    self.next();
                    self.ignore();
                    self.pop()
                }
                _ => Some(S::RawString),
            },
            S::MultilineRawString => match self.next() {
                EOF => self.errorf("unexpected EOF; expected \"'''\"".into()),
                '\'' => self.multiline_close('\'', S::MultilineRawString),
                _ => Some(S::MultilineRawString),
            },
            S::MultilineStringEscape => {
                if is_nl(self.next()) {
                    return Some(S::MultilineString);
                }
                self.backup();
                self.push(S::MultilineString);
                self.step(S::StringEscape)
            }
            S::StringEscape => {
                self.esc = true;
                match self.next() {
                    'e' | 'b' | 't' | 'n' | 'f' | 'r' | '"' | ' ' | '\t' | '\\' => self.pop(),
                    'x' => Some(S::HexEscape),
                    'u' => Some(S::ShortUnicodeEscape),
                    'U' => Some(S::LongUnicodeEscape),
                    r => self.error(format!("invalid escape in string '\\{r}'")),
                }
            }
            S::HexEscape => self.hex_escape(2, "two", 'x'),
            S::ShortUnicodeEscape => self.hex_escape(4, "four", 'u'),
            S::LongUnicodeEscape => self.hex_escape(8, "eight", 'U'),
            S::NumberOrDateStart => {
                if self.next() == '0' {
                    return Some(S::BaseNumberOrDate);
                }
                Some(S::NumberOrDate)
            }
            S::NumberOrDate => match self.next() {
                r if is_digit(r) => Some(S::NumberOrDate),
                '-' | ':' => Some(S::Datetime),
                '_' => Some(S::DecimalNumber),
                '.' | 'e' | 'E' => Some(S::Float),
                _ => self.end_number(ItemType::Integer),
            },
            S::Datetime => match self.next() {
                r if is_digit(r) => Some(S::Datetime),
                '-' | ':' | 'T' | 't' | ' ' | '.' | 'Z' | 'z' | '+' => Some(S::Datetime),
                _ => {
                    self.backup();
                    self.emit_trim(ItemType::Datetime);
                    self.pop()
                }
            },
            S::HexInteger => match self.next() {
                r if is_hex(r) || r == '_' => Some(S::HexInteger),
                _ => self.end_number(ItemType::Integer),
            },
            S::OctalInteger => match self.next() {
                '0'..='7' | '_' => Some(S::OctalInteger),
                _ => self.end_number(ItemType::Integer),
            },
            S::BinaryInteger => match self.next() {
                '0' | '1' | '_' => Some(S::BinaryInteger),
                _ => self.end_number(ItemType::Integer),
            },
            S::DecimalNumber => match self.next() {
                r if is_digit(r) => Some(S::DecimalNumber),
                '.' | 'e' | 'E' => Some(S::Float),
                '_' => Some(S::DecimalNumber),
                _ => self.end_number(ItemType::Integer),
            },
            S::DecimalNumberStart => {
                let r = self.next();
                match r {
                    'i' => {
                        if !self.accept('n') || !self.accept('f') {
                            return self.errorf(format!("invalid float: '{}'", self.current()));
                        }
                        self.emit(ItemType::Float);
                        return self.pop();
                    }
                    'n' => {
                        if !self.accept('a') || !self.accept('n') {
                            return self.errorf(format!("invalid float: '{}'", self.current()));
                        }
                        self.emit(ItemType::Float);
                        return self.pop();
                    }
                    '0' => {
                        let p = self.peek();
                        if matches!(p, 'b' | 'o' | 'x') {
                            return self.errorf(format!(
                                "cannot use sign with non-decimal numbers: '{}{p}'",
                                self.current()
                            ));
                        }
                    }
                    '.' => return self.errorf("floats must start with a digit, not '.'".into()),
                    _ => {}
                }
                if is_digit(r) {
                    return Some(S::DecimalNumber);
                }
                self.errorf(format!("expected a digit but got {}", q(r)))
            }
            S::BaseNumberOrDate => match self.next() {
                r if is_digit(r) => Some(S::NumberOrDate),
                '_' => Some(S::DecimalNumber),
                '.' | 'e' | 'E' => Some(S::Float),
                'b' => {
                    let r = self.peek();
                    if r != '0' && r != '1' {
                        self.errorf(format!("not a binary number: '{}{r}'", self.current()));
                    }
                    Some(S::BinaryInteger)
                }
                'o' => {
                    let r = self.peek();
                    if !('0'..='7').contains(&r) {
                        self.errorf(format!("not an octal number: '{}{r}'", self.current()));
                    }
                    Some(S::OctalInteger)
                }
                'x' => {
                    let r = self.peek();
                    if !is_hex(r) {
                        self.errorf(format!("not a hexadecimal number: '{}{r}'", self.current()));
                    }
                    Some(S::HexInteger)
                }
                _ => self.end_number(ItemType::Integer),
            },
            S::Float => match self.next() {
                r if is_digit(r) => Some(S::Float),
                '_' | '.' | '-' | '+' | 'e' | 'E' => Some(S::Float),
                _ => self.end_number(ItemType::Float),
            },
            S::Bool => {
                let mut word = String::new();
                loop {
                    let r = self.next();
                    if !r.is_alphabetic() {
                        self.backup();
                        break;
                    }
                    word.push(r);
                }
                if word == "true" || word == "false" {
                    self.emit(ItemType::Bool);
                    return self.pop();
                }
                self.errorf(format!("expected value but found {} instead", quote(&word)))
            }
            S::CommentStart => {
                self.ignore();
                self.emit(ItemType::CommentStart);
                Some(S::Comment)
            }
            S::Comment => {
                let r = self.next();
                if is_nl(r) || r == EOF {
                    self.backup();
                    self.emit(ItemType::Text);
                    return self.pop();
                }
                Some(S::Comment)
            }
        }
    }

    /// The end of a number: what was read before the current rune is the item.
    fn end_number(&mut self, typ: ItemType) -> Option<State> {
        self.backup();
        self.emit(typ);
        self.pop()
    }

    /// `lexValue`: a value of any kind where one is expected.
    fn lex_value(&mut self) -> Option<State> {
        use State as S;
        let r = self.next();
        if is_ws(r) {
            self.ignore();
            return Some(S::Value);
        }
        if is_digit(r) {
            self.backup();
            return Some(S::NumberOrDateStart);
        }
        match r {
            '[' => {
                self.ignore();
                self.emit(ItemType::Array);
                return Some(S::ArrayValue);
            }
            '{' => {
                self.ignore();
                self.emit(ItemType::InlineTableStart);
                return Some(S::InlineTableValue);
            }
            '"' | '\'' => {
                let (single, multi) = if r == '"' {
                    (S::String, S::MultilineString)
                } else {
                    (S::RawString, S::MultilineRawString)
                };
                if self.accept(r) {
                    if self.accept(r) {
                        self.ignore();
                        return Some(multi);
                    }
                    self.backup();
                }
                self.ignore();
                return Some(single);
            }
            '.' => return self.errorf("floats must start with a digit, not '.'".into()),
            // `inf` or `nan`; otherwise (having read further) whatever the letters spell.
            'i' | 'n'
                if (self.accept('n') && self.accept('f'))
                    || (self.accept('a') && self.accept('n')) =>
            {
                self.emit(ItemType::Float);
                return self.pop();
            }
            '-' | '+' => return Some(S::DecimalNumberStart),
            _ => {}
        }
        if r.is_alphabetic() {
            self.backup();
            return Some(S::Bool);
        }
        if r == EOF {
            return self.errorf("unexpected EOF; expected value".into());
        }
        if r == '\n' {
            return self.error_prev_line("expected value but found '\\n' instead".into());
        }
        self.errorf(format!("expected value but found {} instead", q(r)))
    }

    /// After the first closing quote of a multi-line string: three end it (up to five quotes
    /// may end it, the extra ones being content); six are an error.
    fn multiline_close(&mut self, quote_char: char, again: State) -> Option<State> {
        if self.accept(quote_char) {
            if self.accept(quote_char) {
                if self.peek() == quote_char {
                    let five: String = std::iter::repeat_n(quote_char, 5).collect();
                    let cur = self.current();
                    let too_many = if quote_char == '"' {
                        cur.ends_with(&five) && !cur.ends_with(&format!("\\{five}"))
                    } else {
                        cur.ends_with(&five)
                    };
                    if too_many {
                        let six: String = std::iter::repeat_n(quote_char, 6).collect();
                        return if quote_char == '"' {
                            self.errorf(format!("unexpected '{six}'"))
                        } else {
                            self.errorf(format!("unexpected \"{six}\""))
                        };
                    }
                    self.backup();
                    self.backup();
                    return Some(again);
                }
                self.backup();
                self.backup();
                self.backup();
                let typ = if quote_char == '"' {
                    self.esc = false;
                    ItemType::MultilineString
                } else {
                    ItemType::RawMultilineString
                };
                self.emit(typ);
                self.next();
                self.next();
                self.next();
                self.ignore();
                return self.pop();
            }
            self.backup();
        }
        Some(again)
    }

    fn hex_escape(&mut self, n: usize, count: &str, letter: char) -> Option<State> {
        for _ in 0..n {
            let r = self.next();
            if !is_hex(r) {
                return self.errorf(format!(
                    "expected {count} hexadecimal digits after '\\{letter}', but got {} instead",
                    quote(self.current())
                ));
            }
        }
        self.pop()
    }
}

// ---------------------------------------------------------------------------------------------
// Parser

/// BurntSushi's `tomlType`, as far as the parser looks at it (`isArray`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum TomlType {
    Primitive,
    Array,
    Hash,
    ArrayHash,
}

/// Why decoding stopped: a `ParseError` (the `Error` text) or an internal error that
/// BurntSushi panics with.
enum Fail {
    Parse(String),
    Bug(String),
}

type R<T> = Result<T, Fail>;

/// Go's `Key.String()`: parts joined with dots, quoted where not bare.
fn key_string(key: &[String]) -> String {
    key.iter()
        .map(|k| quote_key(k))
        .collect::<Vec<_>>()
        .join(".")
}

/// What the parser's tree holds at a key: a table, an array of tables, or another value.
enum Slot {
    Table(Map),
    Tables(List),
    Other,
}

fn slot(v: &Value) -> Slot {
    match v {
        Value::Map(m) => Slot::Table(m.clone()),
        Value::List(l) if l.elem_type() == TABLE => Slot::Tables(l.clone()),
        _ => Slot::Other,
    }
}

/// Go's `map[string]interface {}`, the element type of an array of tables.
const TABLE: &str = "map[string]interface {}";

struct Parser {
    items: Vec<Item>,
    at: usize,
    context: Vec<String>,
    current_key: String,
    /// `p.pos`: the line of the first part of the last key or table name read.
    pos_line: usize,
    key_info: HashMap<String, TomlType>,
    mapping: Map,
    implicits: HashSet<String>,
}

struct Tok {
    typ: ItemType,
    val: String,
    line: usize,
}

impl Parser {
    /// `p.current()`: the full name of the current key (its last part unquoted).
    fn current(&self) -> String {
        if self.current_key.is_empty() {
            return key_string(&self.context);
        }
        if self.context.is_empty() {
            return self.current_key.clone();
        }
        format!("{}.{}", key_string(&self.context), self.current_key)
    }

    fn fail(&self, line: usize, msg: String) -> Fail {
        let last = self.current();
        Fail::Parse(if last.is_empty() {
            format!("toml: line {line}: {msg}")
        } else {
            format!("toml: line {line} (last key {}): {msg}", quote(&last))
        })
    }

    /// `p.panicf`: at the line of the last key read.
    fn failf(&self, msg: String) -> Fail {
        self.fail(self.pos_line, msg)
    }

    fn next(&mut self) -> R<Tok> {
        let item = self
            .items
            .get(self.at)
            .cloned()
            .unwrap_or_else(|| Item::Bug("BUG in lexer: no more items".into()));
        self.at += 1;
        match item {
            Item::Token { typ, val, line } => Ok(Tok { typ, val, line }),
            Item::Error { msg, line } => Err(self.fail(line, msg)),
            Item::Bug(msg) => Err(Fail::Bug(msg)),
        }
    }

    fn next_pos(&mut self) -> R<Tok> {
        let t = self.next()?;
        self.pos_line = t.line;
        Ok(t)
    }

    fn assert_type(&self, want: ItemType, got: ItemType) -> R<()> {
        if want != got {
            return Err(Fail::Bug(format!(
                "BUG: Expected '{}' but got '{}'.\n\n",
                want.name(),
                got.name()
            )));
        }
        Ok(())
    }

    fn expect(&mut self, want: ItemType) -> R<Tok> {
        let t = self.next()?;
        self.assert_type(want, t.typ)?;
        Ok(t)
    }

    fn parse(&mut self) -> R<()> {
        loop {
            let item = self.next()?;
            if item.typ == ItemType::Eof {
                return Ok(());
            }
            self.top_level(item)?;
        }
    }

    /// Reads the parts of a key or table name up to `end`.
    fn key_parts(&mut self, end: ItemType) -> R<Vec<String>> {
        let mut name = self.next_pos()?;
        let mut key = Vec::new();
        while name.typ != end && name.typ != ItemType::Eof {
            key.push(self.key_part(&name)?);
            name = self.next()?;
        }
        self.assert_type(end, name.typ)?;
        Ok(key)
    }

    fn top_level(&mut self, item: Tok) -> R<()> {
        match item.typ {
            ItemType::CommentStart => {
                self.expect(ItemType::Text)?;
            }
            ItemType::TableStart | ItemType::ArrayTableStart => {
                let array = item.typ == ItemType::ArrayTableStart;
                let end = if array {
                    ItemType::ArrayTableEnd
                } else {
                    ItemType::TableEnd
                };
                let key = self.key_parts(end)?;
                self.add_context(&key, array)?;
                let typ = if array {
                    TomlType::ArrayHash
                } else {
                    TomlType::Hash
                };
                self.set_type("", typ);
            }
            ItemType::KeyStart => {
                let outer = self.context.clone();
                let key = self.key_parts(ItemType::KeyEnd)?;
                self.key_value(&key)?;
                self.context = outer;
                self.current_key.clear();
            }
            other => {
                return Err(Fail::Bug(format!(
                    "BUG: Unexpected type at top level: {}\n\n",
                    other.name()
                )));
            }
        }
        Ok(())
    }

    /// A `key = value` line (after its key): the parent parts become implicit tables, then
    /// the value is read and set. Returns the value.
    fn key_value(&mut self, key: &[String]) -> R<Value> {
        let Some((last, parents)) = key.split_last() else {
            return Err(Fail::Bug("runtime error: index out of range [-1]".into()));
        };
        self.current_key = last.clone();
        for part in parents {
            let mut k = self.context.clone();
            k.push(part.clone());
            self.add_implicit_context(&k)?;
        }
        let v = self.next()?;
        let (val, typ) = self.value(v, false)?;
        let name = self.current_key.clone();
        self.set_value(&name, val.clone())?;
        self.set_type(&name, typ);
        Ok(val)
    }

    fn key_part(&mut self, it: &Tok) -> R<String> {
        use ItemType::*;
        match it.typ {
            Text => Ok(it.val.clone()),
            String | StringEsc | MultilineString | RawString | RawMultilineString => {
                let tok = Tok {
                    typ: it.typ,
                    val: it.val.clone(),
                    line: it.line,
                };
                match self.value(tok, false)?.0 {
                    Value::String(s) => Ok(s.to_string()),
                    _ => Err(Fail::Bug("BUG: key is not a string".into())),
                }
            }
            other => Err(Fail::Bug(format!(
                "BUG: Unexpected key type: {}\n\n",
                other.name()
            ))),
        }
    }

    fn value(&mut self, it: Tok, parent_is_array: bool) -> R<(Value, TomlType)> {
        // Arrays and inline tables nest without limit: grow the stack instead of overflowing.
        stacker::maybe_grow(RED_ZONE, STACK_GROW, || {
            self.value_inner(it, parent_is_array)
        })
    }

    fn value_inner(&mut self, it: Tok, parent_is_array: bool) -> R<(Value, TomlType)> {
        use ItemType::*;
        let prim = TomlType::Primitive;
        match it.typ {
            String | RawString => Ok((Value::from(it.val.as_str()), prim)),
            StringEsc => Ok((Value::from(self.replace_escapes(&it, &it.val)?), prim)),
            MultilineString => {
                let s = strip_escaped_newlines(strip_first_newline(&it.val));
                Ok((Value::from(self.replace_escapes(&it, &s)?), prim))
            }
            RawMultilineString => Ok((Value::from(strip_first_newline(&it.val)), prim)),
            Integer => Ok((Value::int64(self.value_integer(&it)?), prim)),
            Float => Ok((Value::Float(self.value_float(&it)?), prim)),
            Bool => match it.val.as_str() {
                "true" => Ok((Value::Bool(true), prim)),
                "false" => Ok((Value::Bool(false), prim)),
                v => Err(Fail::Bug(format!(
                    "BUG: Expected boolean value, but got '{v}'.\n\n"
                ))),
            },
            Datetime => Ok((self.value_datetime(&it)?, prim)),
            Array => self.value_array(),
            InlineTableStart => self.value_inline_table(parent_is_array),
            other => Err(Fail::Bug(format!(
                "BUG: Unexpected value type: {}\n\n",
                other.name()
            ))),
        }
    }

    fn value_integer(&self, it: &Tok) -> R<i64> {
        let v = &it.val;
        if !num_underscores_ok(v) {
            return Err(self.fail(
                it.line,
                format!(
                    "Invalid integer {}: underscores must be surrounded by digits",
                    quote(v)
                ),
            ));
        }
        if num_has_leading_zero(v) {
            return Err(self.fail(
                it.line,
                format!("Invalid integer {}: cannot have leading zeroes", quote(v)),
            ));
        }
        match parse_go_int(v) {
            Some(Ok(n)) => Ok(n),
            Some(Err(())) => Err(self.fail(it.line, format!("{v} is out of range for int64"))),
            None => Err(Fail::Bug(format!(
                "BUG: Expected integer value, but got '{v}'.\n\n"
            ))),
        }
    }

    fn value_float(&self, it: &Tok) -> R<f64> {
        let v = &it.val;
        let parts: Vec<&str> = v.split(['.', 'e', 'E']).filter(|p| !p.is_empty()).collect();
        if parts.iter().any(|p| !num_underscores_ok(p)) {
            return Err(self.fail(
                it.line,
                format!(
                    "Invalid float {}: underscores must be surrounded by digits",
                    quote(v)
                ),
            ));
        }
        if parts.first().is_some_and(|p| num_has_leading_zero(p)) {
            return Err(self.fail(
                it.line,
                format!("Invalid float {}: cannot have leading zeroes", quote(v)),
            ));
        }
        if !num_periods_ok(v) {
            return Err(self.fail(
                it.line,
                format!(
                    "Invalid float {}: '.' must be followed by one or more digits",
                    quote(v)
                ),
            ));
        }
        let mut text = v.replace('_', "");
        let mut negative_nan = false;
        if text == "+nan" || text == "-nan" {
            negative_nan = text == "-nan";
            text = "nan".into();
        }
        match parse_go_float(&text) {
            Some(f) if f.is_infinite() && !text.contains("inf") => {
                Err(self.fail(it.line, format!("{v} is out of range for float64")))
            }
            Some(f) => Ok(if negative_nan { -f } else { f }),
            None => Err(self.fail(it.line, format!("Invalid float value: {}", quote(v)))),
        }
    }

    fn value_datetime(&self, it: &Tok) -> R<Value> {
        let v: String = it
            .val
            .chars()
            .map(|c| match c {
                'z' => 'Z',
                't' | ' ' => 'T',
                c => c,
            })
            .collect();
        // BurntSushi's formats in order, each with its zone (`None` is Go's `time.Local`).
        const LAYOUTS: [(&str, Option<&str>); 7] = [
            ("2006-01-02T15:04:05.999999999Z07:00", None),
            ("2006-01-02T15:04:05.999999999", Some("datetime-local")),
            ("2006-01-02", Some("date-local")),
            ("15:04:05.999999999", Some("time-local")),
            ("2006-01-02T15:04Z07:00", None),
            ("2006-01-02T15:04", Some("datetime-local")),
            ("15:04", Some("time-local")),
        ];
        let invalid = || self.fail(it.line, format!("invalid datetime: {}", quote(&v)));
        for (layout, zone) in LAYOUTS {
            if let Ok(t) = parse_toml_datetime(layout, &v, zone) {
                if missing_leading_zero(&v, layout) {
                    return Err(invalid());
                }
                return Ok(t);
            }
        }
        Err(invalid())
    }

    fn value_array(&mut self) -> R<(Value, TomlType)> {
        let name = self.current_key.clone();
        self.set_type(&name, TomlType::Array);
        let mut items = Vec::new();
        loop {
            let it = self.next()?;
            match it.typ {
                ItemType::ArrayEnd => break,
                ItemType::CommentStart => {
                    self.expect(ItemType::Text)?;
                }
                _ => items.push(self.value(it, true)?.0),
            }
        }
        Ok((Value::List(List::new(items)), TomlType::Array))
    }

    fn value_inline_table(&mut self, parent_is_array: bool) -> R<(Value, TomlType)> {
        let top = Map::new();
        let outer_context = self.context.clone();
        let outer_key = std::mem::take(&mut self.current_key);
        self.context.push(outer_key.clone());
        let prev_context = self.context.clone();
        self.add_implicit(&prev_context);
        self.add_context(&prev_context, parent_is_array)?;
        loop {
            let it = self.next()?;
            match it.typ {
                ItemType::InlineTableEnd => break,
                ItemType::CommentStart => {
                    self.expect(ItemType::Text)?;
                    continue;
                }
                _ => {}
            }
            let key = self.key_parts(ItemType::KeyEnd)?;
            let val = self.key_value(&key)?;
            let mut hash = top.clone();
            for part in &key[..key.len() - 1] {
                let h = match hash.get(part) {
                    Some(h) => h,
                    None => {
                        let h = Value::Map(Map::new());
                        hash.insert(part.as_str(), h.clone());
                        h
                    }
                };
                let Value::Map(m) = h else {
                    return Err(self.failf(format!(
                        "{} is not a table",
                        quote(&key_string(&self.context))
                    )));
                };
                hash = m;
            }
            hash.insert(self.current_key.as_str(), val);
            self.context = prev_context.clone();
        }
        self.context = outer_context;
        self.current_key = outer_key;
        Ok((Value::Map(top), TomlType::Hash))
    }

    /// `p.replaceEscapes`.
    fn replace_escapes(&self, it: &Tok, s: &str) -> R<String> {
        let mut out = String::with_capacity(s.len());
        let b = s.as_bytes();
        let mut chars = s.char_indices();
        while let Some((i, c)) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            let Some(&e) = b.get(i + 1) else {
                return Err(Fail::Bug(
                    "BUG: Escape sequence at end of string.\n\n".into(),
                ));
            };
            let simple = match e {
                b'b' => Some('\u{8}'),
                b't' => Some('\t'),
                b'n' => Some('\n'),
                b'f' => Some('\u{c}'),
                b'r' => Some('\r'),
                b'e' => Some('\u{1b}'),
                b'"' => Some('"'),
                b'\\' => Some('\\'),
                _ => None,
            };
            if let Some(ch) = simple {
                out.push(ch);
                chars.next();
                continue;
            }
            let digits = match e {
                b' ' | b'\t' => {
                    return Err(self.fail(it.line, format!("invalid escape: '\\{}'", e as char)));
                }
                b'x' => 2,
                b'u' => 4,
                b'U' => 8,
                _ => {
                    return Err(Fail::Bug(format!(
                        "BUG: Expected valid escape code after \\, but got {}.\n\n",
                        q(e as char)
                    )));
                }
            };
            let hex = s.get(i + 2..i + 2 + digits).unwrap_or("");
            let code = u32::from_str_radix(hex, 16).map_err(|e| {
                Fail::Bug(format!(
                    "BUG: Could not parse '{hex}' as a hexadecimal number, but the lexer claims it's OK: {e}\n\n"
                ))
            })?;
            let Some(ch) = char::from_u32(code) else {
                return Err(self.fail(
                    it.line,
                    format!("Escaped character '\\u{hex}' is not valid UTF-8."),
                ));
            };
            out.push(ch);
            for _ in 0..=digits {
                chars.next();
            }
        }
        Ok(out)
    }

    /// `p.addContext`: makes `key` the current table (a new element when `array`), creating
    /// its parents implicitly.
    fn add_context(&mut self, key: &[String], array: bool) -> R<()> {
        let Some((last, parents)) = key.split_last() else {
            return Err(Fail::Bug("runtime error: index out of range [-1]".into()));
        };
        let mut hash = self.mapping.clone();
        let mut key_context: Vec<String> = Vec::new();
        for k in parents {
            key_context.push(k.clone());
            if !hash.contains_key(k) {
                self.add_implicit(&key_context);
                hash.insert(k.as_str(), Value::Map(Map::new()));
            }
            hash = match slot(&hash.get(k).unwrap_or(Value::Nil)) {
                Slot::Tables(t) => last_table(&t)?,
                Slot::Table(m) => m,
                Slot::Other => {
                    return Err(self.failf(format!(
                        "Key '{}' was already created as a hash.",
                        key_string(&key_context)
                    )));
                }
            };
        }
        self.context = key_context;
        if array {
            if !hash.contains_key(last) {
                hash.insert(last.as_str(), Value::List(List::typed(Vec::new(), TABLE)));
            }
            match slot(&hash.get(last).unwrap_or(Value::Nil)) {
                Slot::Tables(t) => {
                    let mut tables = t.items().to_vec();
                    tables.push(Value::Map(Map::new()));
                    hash.insert(last.as_str(), Value::List(List::typed(tables, TABLE)));
                }
                _ => {
                    return Err(self.failf(format!(
                        "Key '{}' was already created and cannot be used as an array.",
                        key_string(key)
                    )));
                }
            }
        } else {
            self.set_value(last, Value::Map(Map::new()))?;
        }
        self.context.push(last.clone());
        Ok(())
    }

    /// `p.setValue`: sets `key` in the current table; a key may be set again only where it was
    /// an implicit table or an array being filled.
    fn set_value(&mut self, key: &str, value: Value) -> R<()> {
        let mut hash = self.mapping.clone();
        let mut key_context: Vec<String> = Vec::new();
        for k in &self.context {
            key_context.push(k.clone());
            let Some(v) = hash.get(k) else {
                return Err(Fail::Bug(format!(
                    "BUG: Context for key '{}' has not been established.\n\n",
                    key_string(&key_context)
                )));
            };
            hash = match slot(&v) {
                Slot::Tables(t) => last_table(&t)?,
                Slot::Table(m) => m,
                Slot::Other => {
                    return Err(self.failf(format!(
                        "Key '{}' has already been defined.",
                        key_string(&key_context)
                    )));
                }
            };
        }
        key_context.push(key.to_string());
        let name = key_string(&key_context);
        if hash.contains_key(key) {
            if self.key_info.get(&name) == Some(&TomlType::Array) {
                if !self.implicits.contains(&name) {
                    return Err(self.failf(format!("Key '{name}' has already been defined.")));
                }
                self.implicits.remove(&name);
                hash.insert(key, value);
                return Ok(());
            }
            if self.implicits.remove(&name) {
                return Ok(());
            }
            return Err(self.failf(format!("Key '{name}' has already been defined.")));
        }
        hash.insert(key, value);
        Ok(())
    }

    /// `p.setType`: records the type of `key` in the current table (of the table itself when
    /// `key` is empty, so an empty key name types its table).
    fn set_type(&mut self, key: &str, typ: TomlType) {
        let mut k = self.context.clone();
        if !key.is_empty() {
            k.push(key.to_string());
        }
        if k.is_empty() {
            k.push(String::new());
        }
        self.key_info.insert(key_string(&k), typ);
    }

    fn add_implicit(&mut self, key: &[String]) {
        self.implicits.insert(key_string(key));
    }

    fn add_implicit_context(&mut self, key: &[String]) -> R<()> {
        self.add_implicit(key);
        self.add_context(key, false)
    }
}

/// The table an array of tables currently adds to (its last element).
fn last_table(tables: &List) -> R<Map> {
    match tables.items().last() {
        Some(Value::Map(m)) => Ok(m.clone()),
        _ => Err(Fail::Bug("runtime error: index out of range [-1]".into())),
    }
}

fn strip_first_newline(s: &str) -> &str {
    s.strip_prefix('\n')
        .or_else(|| s.strip_prefix("\r\n"))
        .unwrap_or(s)
}

/// BurntSushi's `stripEscapedNewlines`: a backslash that ends a line removes it and the white
/// space after it.
fn strip_escaped_newlines(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut s = s;
    let mut i = 0;
    loop {
        let Some(ix) = s[i..].find('\\') else {
            out.push_str(s);
            return out;
        };
        i += ix;
        let b = s.as_bytes();
        if b.get(i + 1) == Some(&b'\\') {
            i += 2;
            continue;
        }
        let mut j = i + 1;
        while j < b.len() && matches!(b[j], b' ' | b'\t' | b'\r' | b'\n') {
            j += 1;
        }
        if j == i + 1 || !s[i..j].contains('\n') {
            i += 1;
            continue;
        }
        out.push_str(&s[..i]);
        s = &s[j..];
        i = 0;
    }
}

/// BurntSushi's `numUnderscoresOK`: every underscore between two (hex) digits.
fn num_underscores_ok(s: &str) -> bool {
    if matches!(s, "nan" | "+nan" | "-nan" | "inf" | "-inf" | "+inf") {
        return true;
    }
    let mut accept = false;
    for r in s.chars() {
        if r == '_' && !accept {
            return false;
        }
        accept = is_hex(r);
    }
    accept
}

/// BurntSushi's `numHasLeadingZero`.
fn num_has_leading_zero(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() > 1 && b[0] == b'0' && !matches!(b[1], b'b' | b'o' | b'x') {
        return true;
    }
    b.len() > 2 && (b[0] == b'-' || b[0] == b'+') && b[1] == b'0'
}

/// BurntSushi's `numPeriodsOK`: every `.` followed by a digit.
fn num_periods_ok(s: &str) -> bool {
    let mut period = false;
    for r in s.chars() {
        if period && !is_digit(r) {
            return false;
        }
        period = r == '.';
    }
    !period
}

/// BurntSushi's `missingLeadingZero`: Go's parser takes a one-digit hour, TOML does not.
fn missing_leading_zero(d: &str, layout: &str) -> bool {
    let d = d.as_bytes();
    for (i, c) in layout.bytes().enumerate() {
        if c == b'.' || c == b'Z' {
            return false;
        }
        if !c.is_ascii_digit() && d.get(i) != Some(&c) {
            return true;
        }
    }
    false
}

/// Go's `strconv.ParseInt(s, 0, 64)` over what the lexer produces (sign, `0x`/`0o`/`0b`,
/// underscores already checked): `None` for a syntax error, `Some(Err)` when out of range.
fn parse_go_int(s: &str) -> Option<Result<i64, ()>> {
    let (negative, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let (radix, digits) = match body.get(..2) {
        Some("0x" | "0X") => (16, &body[2..]),
        Some("0o" | "0O") => (8, &body[2..]),
        Some("0b" | "0B") => (2, &body[2..]),
        _ => (10, body),
    };
    let digits = digits.replace('_', "");
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let Ok(magnitude) = u64::from_str_radix(&digits, radix) else {
        return Some(Err(()));
    };
    let limit = if negative {
        1u64 << 63
    } else {
        i64::MAX as u64
    };
    if magnitude > limit {
        return Some(Err(()));
    }
    Some(Ok(if negative {
        (magnitude as i64).wrapping_neg()
    } else {
        magnitude as i64
    }))
}

/// Go's `strconv.ParseFloat(s, 64)` for the texts the lexer produces (digits, `.`, `e`,
/// signs, `inf`, `nan`): `None` for a syntax error; an overflow is infinite.
fn parse_go_float(s: &str) -> Option<f64> {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    if body == "inf" || body == "nan" {
        return s.parse().ok();
    }
    // Rust also takes `1.`, `.5` and `infinity`; BurntSushi's checks and its lexer rule out
    // the first two, and only these characters reach here.
    if !body.starts_with(|c: char| c.is_ascii_digit())
        || !body
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
    {
        return None;
    }
    s.parse().ok()
}

/// Helm's `fromToml`: the document's table, or a map whose `Error` is BurntSushi's message.
/// `Err` is an internal error of BurntSushi's (a panic, which the template engine reports as
/// the call's error); none is known to be reachable.
pub fn from_toml(text: &str) -> Result<Map, String> {
    // A byte-order mark is skipped; NUL bytes at the start suggest UTF-16.
    let data = text.strip_prefix('\u{feff}').unwrap_or(text);
    let head = &data.as_bytes()[..data.len().min(6)];
    if head.contains(&0) {
        return Ok(error_map(
            "toml: line 1: files cannot contain NULL bytes; probably using UTF-16; TOML files must be UTF-8",
        ));
    }
    let mut p = Parser {
        items: Lexer::new(data).run(),
        at: 0,
        context: Vec::new(),
        current_key: String::new(),
        pos_line: 0,
        key_info: HashMap::new(),
        mapping: Map::new(),
        implicits: HashSet::new(),
    };
    match p.parse() {
        Ok(()) => Ok(p.mapping),
        Err(Fail::Parse(msg)) => Ok(error_map(&msg)),
        Err(Fail::Bug(msg)) => Err(msg),
    }
}

fn error_map(msg: &str) -> Map {
    Map::from_entries([("Error", Value::from(msg))])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        let m = from_toml(text).unwrap();
        match m.get("Error") {
            Some(Value::String(s)) => s.to_string(),
            other => panic!("{text:?}: no error, got {other:?}"),
        }
    }

    #[test]
    fn errors_name_line_and_last_key() {
        // Each as helm 4.1.4 prints it (also in tests/cases/gotemplate/860-sprig-toml.txt).
        let cases = [
            (
                "a = ",
                "toml: line 1 (last key \"a\"): unexpected EOF; expected value",
            ),
            (
                "a = 1\na = 2",
                "toml: line 2 (last key \"a\"): Key 'a' has already been defined.",
            ),
            (
                "[t\n",
                "toml: line 2: expected '.' or ']' to end table name, but got '\\n' instead",
            ),
            (
                "a = \"x\ny\"",
                "toml: line 1 (last key \"a\"): strings cannot contain newlines",
            ),
            (
                "a = \"x\r\n",
                "toml: line 0 (last key \"a\"): strings cannot contain newlines",
            ),
            (
                "[t.\"u v\"]\na = 1\na = 2",
                "toml: line 3 (last key \"t.\\\"u v\\\".a\"): Key 't.\"u v\".a' has already been defined.",
            ),
            (
                "a.b = 1\na.c = 2\n[a]",
                "toml: line 3: Key 'a' has already been defined.",
            ),
            (
                "\n\n\na = \"\\",
                "toml: line 3 (last key \"a\"): invalid escape in string '\\\u{0}'",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(err(text), want, "{text:?}");
        }
        let ok = from_toml("a.b = 1\n[a]\nc = 2").unwrap();
        assert!(ok.get("Error").is_none());
    }

    #[test]
    fn deep_nesting_grows_the_stack() {
        // BurntSushi has no depth limit; a small stack must not overflow while decoding.
        let depth = 100_000;
        let text = format!("a = {}1{}", "[".repeat(depth), "]".repeat(depth));
        let found = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || {
                let m = from_toml(&text).unwrap();
                let mut v = m.get("a").unwrap();
                let mut levels = 0;
                while let Value::List(l) = v {
                    levels += 1;
                    v = l.items()[0].clone();
                }
                // Dropping the value is recursive (gotemplate's values): not this test's subject.
                std::mem::forget(m);
                levels
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(found, depth);
    }

    #[test]
    fn helpers() {
        assert!(num_underscores_ok("1_000"));
        assert!(!num_underscores_ok("1__0"));
        assert!(!num_underscores_ok("_1"));
        assert!(num_has_leading_zero("01"));
        assert!(!num_has_leading_zero("0x1"));
        assert!(num_has_leading_zero("-01"));
        assert!(!num_periods_ok("1."));
        assert_eq!(parse_go_int("0xff"), Some(Ok(255)));
        assert_eq!(parse_go_int("-9223372036854775808"), Some(Ok(i64::MIN)));
        assert_eq!(parse_go_int("9223372036854775808"), Some(Err(())));
        assert_eq!(strip_escaped_newlines("a\\  \n  b\\\\ c"), "ab\\\\ c");
    }
}
