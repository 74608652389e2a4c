//! The lexer: Go's `text/template/parse` scanner, token for token.
//!
//! The parser pulls items one at a time. Item positions are byte offsets into the whole input and
//! lines are 1-based, because error messages print both exactly as Go does. Trim markers
//! (`{{- ` and ` -}}`) are handled here, so the parser never sees the trimmed spaces.

use std::borrow::Cow;
use std::fmt;

use crate::strconv::{quote, quote_prefix, unicode_verbose};

/// The kind of a lexed item. Keywords come after [`ItemType::Variable`], as in Go, which matters
/// for how unexpected items are printed (`<if>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ItemType {
    Error,
    Bool,
    /// A printable ASCII character not otherwise meaningful (`,` and friends).
    Char,
    CharConstant,
    Comment,
    Complex,
    Assign,
    Declare,
    Eof,
    Field,
    Identifier,
    LeftDelim,
    LeftParen,
    Number,
    Pipe,
    RawString,
    RightDelim,
    RightParen,
    Space,
    String,
    Text,
    Variable,
    // Keywords.
    Block,
    Break,
    Continue,
    Dot,
    Define,
    Else,
    End,
    If,
    Nil,
    Range,
    Template,
    With,
}

impl ItemType {
    pub fn is_keyword(self) -> bool {
        self >= ItemType::Block
    }
}

/// A token: its kind, byte offset, text (or error message) and the line it starts on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item<'a> {
    pub typ: ItemType,
    pub pos: usize,
    pub val: Cow<'a, str>,
    pub line: usize,
}

/// How Go prints an item in "unexpected ..." errors.
impl fmt::Display for Item<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.typ {
            ItemType::Eof => f.write_str("EOF"),
            ItemType::Error => f.write_str(&self.val),
            t if t.is_keyword() => write!(f, "<{}>", self.val),
            _ if self.val.len() > 10 => write!(f, "{}...", quote_prefix(&self.val, 10)),
            _ => f.write_str(&quote(&self.val)),
        }
    }
}

const LEFT_COMMENT: &str = "/*";
const RIGHT_COMMENT: &str = "*/";
/// A trim marker is the `-` plus the ASCII space beside it.
const TRIM_MARKER_LEN: usize = 2;

#[derive(Clone, Copy)]
enum State {
    Text,
    LeftDelim,
    Comment,
    RightDelim,
    InsideAction,
    Space,
    Identifier,
    Field,
    Variable,
    Char,
    Number,
    Quote,
    RawQuote,
}

enum Step<'a> {
    Go(State),
    Emit(Item<'a>),
}

/// The scanner's state between items.
pub struct Lexer<'a> {
    input: &'a str,
    left: &'a str,
    right: &'a str,
    pos: usize,
    start: usize,
    /// Once the end was read, backing up is a no-op (Go's `atEOF`).
    at_eof: bool,
    paren_depth: i64,
    line: usize,
    start_line: usize,
    inside_action: bool,
    break_ok: bool,
    continue_ok: bool,
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

/// Go's `unicode.IsLetter || unicode.IsDigit || '_'`. Rust's `is_alphabetic` also admits letter
/// numbers (Ⅻ), which Go counts as neither; those are excluded.
fn is_alphanumeric(c: char) -> bool {
    if c.is_ascii() {
        return c == '_' || c.is_ascii_alphanumeric();
    }
    (c.is_alphabetic() && !c.is_numeric()) || c.is_numeric()
}

fn has_left_trim_marker(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 2 && b[0] == b'-' && is_space(b[1] as char)
}

fn has_right_trim_marker(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 2 && is_space(b[0] as char) && b[1] == b'-'
}

fn right_trim_length(s: &str) -> usize {
    s.len() - s.trim_end_matches(is_space).len()
}

fn left_trim_length(s: &str) -> usize {
    s.len() - s.trim_start_matches(is_space).len()
}

fn count_newlines(s: &str) -> usize {
    memchr::memchr_iter(b'\n', s.as_bytes()).count()
}

/// Where `needle` first starts in `haystack`: its first byte found with memchr, then the rest
/// compared. (`str::find` sets up a two-way search for each call, which costs more than the
/// search itself in the short texts between a template's actions.)
fn find(haystack: &str, needle: &str) -> Option<usize> {
    let (haystack, needle) = (haystack.as_bytes(), needle.as_bytes());
    let Some((&first, rest)) = needle.split_first() else {
        return Some(0);
    };
    let mut from = 0;
    while let Some(i) = memchr::memchr(first, &haystack[from..]) {
        let at = from + i;
        if haystack[at + 1..].starts_with(rest) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

impl<'a> Lexer<'a> {
    /// A lexer over `input`; empty delimiters mean the defaults `{{` and `}}`.
    pub fn new(input: &'a str, left: &'a str, right: &'a str) -> Lexer<'a> {
        Lexer {
            input,
            left: if left.is_empty() { "{{" } else { left },
            right: if right.is_empty() { "}}" } else { right },
            pos: 0,
            start: 0,
            at_eof: false,
            paren_depth: 0,
            line: 1,
            start_line: 1,
            inside_action: false,
            break_ok: true,
            continue_ok: true,
        }
    }

    /// Whether `break`/`continue` are keywords (they are not when a function has that name).
    pub fn set_keywords(&mut self, break_ok: bool, continue_ok: bool) {
        self.break_ok = break_ok;
        self.continue_ok = continue_ok;
    }

    /// The next item. After an error item or EOF, only EOF-like items follow.
    pub fn next_item(&mut self) -> Item<'a> {
        let mut state = if self.inside_action {
            State::InsideAction
        } else {
            State::Text
        };
        loop {
            let step = match state {
                State::Text => self.lex_text(),
                State::LeftDelim => self.lex_left_delim(),
                State::Comment => self.lex_comment(),
                State::RightDelim => self.lex_right_delim(),
                State::InsideAction => self.lex_inside_action(),
                State::Space => self.lex_space(),
                State::Identifier => self.lex_identifier(),
                State::Field => self.lex_field_or_variable(ItemType::Field),
                State::Variable => self.lex_variable(),
                State::Char => self.lex_quoted(
                    '\'',
                    "unterminated character constant",
                    ItemType::CharConstant,
                ),
                State::Number => self.lex_number(),
                State::Quote => {
                    self.lex_quoted('"', "unterminated quoted string", ItemType::String)
                }
                State::RawQuote => self.lex_raw_quote(),
            };
            match step {
                Step::Go(s) => state = s,
                Step::Emit(item) => return item,
            }
        }
    }

    fn rest(&self) -> &'a str {
        self.input.get(self.pos..).unwrap_or("")
    }

    fn next(&mut self) -> Option<char> {
        match self.rest().chars().next() {
            Some(c) => {
                self.pos += c.len_utf8();
                if c == '\n' {
                    self.line += 1;
                }
                Some(c)
            }
            None => {
                self.at_eof = true;
                None
            }
        }
    }

    fn backup(&mut self) {
        if self.at_eof || self.pos == 0 {
            return;
        }
        if let Some(c) = self
            .input
            .get(..self.pos)
            .and_then(|s| s.chars().next_back())
        {
            self.pos -= c.len_utf8();
            if c == '\n' {
                self.line -= 1;
            }
        }
    }

    fn peek(&mut self) -> Option<char> {
        let c = self.next();
        self.backup();
        c
    }

    fn accept(&mut self, valid: &str) -> bool {
        match self.next() {
            Some(c) if valid.contains(c) => true,
            _ => {
                self.backup();
                false
            }
        }
    }

    fn accept_run(&mut self, valid: &str) {
        while let Some(c) = self.next() {
            if !valid.contains(c) {
                break;
            }
        }
        self.backup();
    }

    fn this_item(&mut self, typ: ItemType) -> Item<'a> {
        let val = self.input.get(self.start..self.pos).unwrap_or("");
        let item = Item {
            typ,
            pos: self.start,
            val: Cow::Borrowed(val),
            line: self.start_line,
        };
        self.start = self.pos;
        self.start_line = self.line;
        item
    }

    fn emit(&mut self, typ: ItemType) -> Step<'a> {
        Step::Emit(self.this_item(typ))
    }

    /// Skips the pending input, counting its newlines (it was skipped without `next`).
    fn ignore(&mut self) {
        self.line += count_newlines(self.input.get(self.start..self.pos).unwrap_or(""));
        self.start = self.pos;
        self.start_line = self.line;
    }

    /// An error item; the input is dropped so that scanning stops.
    fn errorf(&mut self, msg: String) -> Step<'a> {
        let item = Item {
            typ: ItemType::Error,
            pos: self.start,
            val: Cow::Owned(msg),
            line: self.start_line,
        };
        self.start = 0;
        self.pos = 0;
        self.input = "";
        Step::Emit(item)
    }

    fn at_right_delim(&self) -> (bool, bool) {
        let rest = self.rest();
        if has_right_trim_marker(rest) && rest[TRIM_MARKER_LEN..].starts_with(self.right) {
            return (true, true);
        }
        (rest.starts_with(self.right), false)
    }

    fn at_terminator(&mut self) -> bool {
        match self.peek() {
            None => true,
            Some(c) if is_space(c) => true,
            Some('.' | ',' | '|' | ':' | ')' | '(') => true,
            Some(_) => self.rest().starts_with(self.right),
        }
    }

    fn lex_text(&mut self) -> Step<'a> {
        if let Some(x) = find(self.rest(), self.left) {
            if x > 0 {
                self.pos += x;
                let delim_end = self.pos + self.left.len();
                let mut trim = 0;
                if has_left_trim_marker(&self.input[delim_end..]) {
                    trim = right_trim_length(&self.input[self.start..self.pos]);
                }
                self.pos -= trim;
                self.line += count_newlines(&self.input[self.start..self.pos]);
                let item = self.this_item(ItemType::Text);
                self.pos += trim;
                self.ignore();
                if !item.val.is_empty() {
                    return Step::Emit(item);
                }
            }
            return Step::Go(State::LeftDelim);
        }
        self.pos = self.input.len();
        if self.pos > self.start {
            self.line += count_newlines(&self.input[self.start..self.pos]);
            return self.emit(ItemType::Text);
        }
        self.emit(ItemType::Eof)
    }

    fn lex_left_delim(&mut self) -> Step<'a> {
        self.pos += self.left.len();
        let trim = has_left_trim_marker(self.rest());
        let after = if trim { TRIM_MARKER_LEN } else { 0 };
        if self.rest()[after..].starts_with(LEFT_COMMENT) {
            self.pos += after;
            self.ignore();
            return Step::Go(State::Comment);
        }
        let item = self.this_item(ItemType::LeftDelim);
        self.inside_action = true;
        self.pos += after;
        self.ignore();
        self.paren_depth = 0;
        Step::Emit(item)
    }

    fn lex_comment(&mut self) -> Step<'a> {
        self.pos += LEFT_COMMENT.len();
        let Some(x) = find(self.rest(), RIGHT_COMMENT) else {
            return self.errorf("unclosed comment".to_string());
        };
        self.pos += x + RIGHT_COMMENT.len();
        let (delim, trim) = self.at_right_delim();
        if !delim {
            return self.errorf("comment ends before closing delimiter".to_string());
        }
        self.line += count_newlines(&self.input[self.start..self.pos]);
        // Comments are not passed to the parser (Go's ParseComments mode is never used).
        let _comment = self.this_item(ItemType::Comment);
        if trim {
            self.pos += TRIM_MARKER_LEN;
        }
        self.pos += self.right.len();
        if trim {
            self.pos += left_trim_length(self.rest());
        }
        self.ignore();
        Step::Go(State::Text)
    }

    fn lex_right_delim(&mut self) -> Step<'a> {
        let (_, trim) = self.at_right_delim();
        if trim {
            self.pos += TRIM_MARKER_LEN;
            self.ignore();
        }
        self.pos += self.right.len();
        let item = self.this_item(ItemType::RightDelim);
        if trim {
            self.pos += left_trim_length(self.rest());
            self.ignore();
        }
        self.inside_action = false;
        Step::Emit(item)
    }

    fn lex_inside_action(&mut self) -> Step<'a> {
        let (delim, _) = self.at_right_delim();
        if delim {
            if self.paren_depth == 0 {
                return Step::Go(State::RightDelim);
            }
            return self.errorf("unclosed left paren".to_string());
        }
        let Some(c) = self.next() else {
            return self.errorf("unclosed action".to_string());
        };
        match c {
            _ if is_space(c) => {
                // Put the space back in case it starts " -}}".
                self.backup();
                Step::Go(State::Space)
            }
            '=' => self.emit(ItemType::Assign),
            ':' => {
                if self.next() != Some('=') {
                    return self.errorf("expected :=".to_string());
                }
                self.emit(ItemType::Declare)
            }
            '|' => self.emit(ItemType::Pipe),
            '"' => Step::Go(State::Quote),
            '`' => Step::Go(State::RawQuote),
            '$' => Step::Go(State::Variable),
            '\'' => Step::Go(State::Char),
            '.' if !self
                .rest()
                .as_bytes()
                .first()
                .is_some_and(u8::is_ascii_digit)
                && !self.rest().is_empty() =>
            {
                Step::Go(State::Field)
            }
            '.' | '+' | '-' | '0'..='9' => {
                self.backup();
                Step::Go(State::Number)
            }
            _ if is_alphanumeric(c) => {
                self.backup();
                Step::Go(State::Identifier)
            }
            '(' => {
                self.paren_depth += 1;
                self.emit(ItemType::LeftParen)
            }
            ')' => {
                self.paren_depth -= 1;
                if self.paren_depth < 0 {
                    return self.errorf("unexpected right paren".to_string());
                }
                self.emit(ItemType::RightParen)
            }
            '!'..='~' => self.emit(ItemType::Char),
            _ => self.errorf(format!(
                "unrecognized character in action: {}",
                unicode_verbose(c)
            )),
        }
    }

    fn lex_space(&mut self) -> Step<'a> {
        let mut spaces = 0;
        while let Some(c) = self.peek() {
            if !is_space(c) {
                break;
            }
            self.next();
            spaces += 1;
        }
        // A trim-marked right delimiter starts with a space: leave it for the delimiter.
        let from_last = self.input.get(self.pos.saturating_sub(1)..).unwrap_or("");
        if has_right_trim_marker(from_last) && from_last[TRIM_MARKER_LEN..].starts_with(self.right)
        {
            self.backup();
            if spaces == 1 {
                return Step::Go(State::RightDelim);
            }
        }
        self.emit(ItemType::Space)
    }

    fn lex_identifier(&mut self) -> Step<'a> {
        loop {
            let c = self.next();
            if c.is_some_and(is_alphanumeric) {
                continue;
            }
            self.backup();
            if !self.at_terminator() {
                return self.bad_character(c);
            }
            let word = &self.input[self.start..self.pos];
            let typ = match word {
                "block" => ItemType::Block,
                "break" if self.break_ok => ItemType::Break,
                "continue" if self.continue_ok => ItemType::Continue,
                "define" => ItemType::Define,
                "else" => ItemType::Else,
                "end" => ItemType::End,
                "if" => ItemType::If,
                "range" => ItemType::Range,
                "nil" => ItemType::Nil,
                "template" => ItemType::Template,
                "with" => ItemType::With,
                "true" | "false" => ItemType::Bool,
                _ => ItemType::Identifier,
            };
            return self.emit(typ);
        }
    }

    fn bad_character(&mut self, c: Option<char>) -> Step<'a> {
        let shown = c.map_or_else(|| "U+FFFFFFFFFFFFFFFF".to_string(), unicode_verbose);
        self.errorf(format!("bad character {shown}"))
    }

    fn lex_variable(&mut self) -> Step<'a> {
        if self.at_terminator() {
            return self.emit(ItemType::Variable);
        }
        self.lex_field_or_variable(ItemType::Variable)
    }

    /// `.Name` or `$name`; the `.` or `$` has been read.
    fn lex_field_or_variable(&mut self, typ: ItemType) -> Step<'a> {
        if self.at_terminator() {
            return self.emit(if typ == ItemType::Variable {
                ItemType::Variable
            } else {
                ItemType::Dot
            });
        }
        let mut c;
        loop {
            c = self.next();
            if !c.is_some_and(is_alphanumeric) {
                self.backup();
                break;
            }
        }
        if !self.at_terminator() {
            return self.bad_character(c);
        }
        self.emit(typ)
    }

    /// A quoted string or character constant; syntax inside is checked by the parser.
    fn lex_quoted(&mut self, quote: char, unterminated: &str, typ: ItemType) -> Step<'a> {
        loop {
            match self.next() {
                Some('\\') => match self.next() {
                    Some(c) if c != '\n' => {}
                    _ => return self.errorf(unterminated.to_string()),
                },
                None | Some('\n') => return self.errorf(unterminated.to_string()),
                Some(c) if c == quote => break,
                Some(_) => {}
            }
        }
        self.emit(typ)
    }

    fn lex_raw_quote(&mut self) -> Step<'a> {
        loop {
            match self.next() {
                None => return self.errorf("unterminated raw quoted string".to_string()),
                Some('`') => break,
                Some(_) => {}
            }
        }
        self.emit(ItemType::RawString)
    }

    /// Numbers are scanned loosely (`089`, `0x0.2` get through); the parser rejects bad ones
    /// with strconv's rules, as Go does.
    fn lex_number(&mut self) -> Step<'a> {
        if !self.scan_number() {
            let text = quote(&self.input[self.start..self.pos]);
            return self.errorf(format!("bad number syntax: {text}"));
        }
        if matches!(self.peek(), Some('+' | '-')) {
            // Complex: 1+2i, no spaces, ending in 'i'.
            if !self.scan_number()
                || self.input.as_bytes().get(self.pos.wrapping_sub(1)) != Some(&b'i')
            {
                let text = quote(&self.input[self.start..self.pos]);
                return self.errorf(format!("bad number syntax: {text}"));
            }
            return self.emit(ItemType::Complex);
        }
        self.emit(ItemType::Number)
    }

    fn scan_number(&mut self) -> bool {
        const DECIMAL: &str = "0123456789_";
        const HEX: &str = "0123456789abcdefABCDEF_";
        self.accept("+-");
        let mut digits = DECIMAL;
        if self.accept("0") {
            if self.accept("xX") {
                digits = HEX;
            } else if self.accept("oO") {
                digits = "01234567_";
            } else if self.accept("bB") {
                digits = "01_";
            }
        }
        self.accept_run(digits);
        if self.accept(".") {
            self.accept_run(digits);
        }
        if digits == DECIMAL && self.accept("eE") {
            self.accept("+-");
            self.accept_run(DECIMAL);
        }
        if digits == HEX && self.accept("pP") {
            self.accept("+-");
            self.accept_run(DECIMAL);
        }
        self.accept("i");
        if self.peek().is_some_and(is_alphanumeric) {
            self.next();
            return false;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lex_all(input: &str, left: &str, right: &str) -> Vec<(ItemType, String)> {
        let mut l = Lexer::new(input, left, right);
        let mut out = Vec::new();
        loop {
            let item = l.next_item();
            let done = matches!(item.typ, ItemType::Eof | ItemType::Error);
            out.push((item.typ, item.val.into_owned()));
            if done {
                return out;
            }
        }
    }

    fn show(items: &[(ItemType, String)]) -> String {
        items
            .iter()
            .map(|(t, v)| format!("{t:?}:{v}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Cases after Go's lex_test.go: the input and the items as `Type:text`.
    #[test]
    fn lex_cases() {
        let cases: &[(&str, &str)] = &[
            ("", "Eof:"),
            (" \t\n", "Text: \t\n Eof:"),
            ("now is the time", "Text:now is the time Eof:"),
            (
                "hello-{{/* this is a comment */}}-world",
                "Text:hello- Text:-world Eof:",
            ),
            (
                "{{,@% }}",
                "LeftDelim:{{ Char:, Char:@ Char:% Space:  RightDelim:}} Eof:",
            ),
            (
                "{{((3))}}",
                "LeftDelim:{{ LeftParen:( LeftParen:( Number:3 RightParen:) RightParen:) RightDelim:}} Eof:",
            ),
            ("{{}}", "LeftDelim:{{ RightDelim:}} Eof:"),
            ("{{for}}", "LeftDelim:{{ Identifier:for RightDelim:}} Eof:"),
            ("{{block}}", "LeftDelim:{{ Block:block RightDelim:}} Eof:"),
            (
                r#"{{"abc \n\t\" "}}"#,
                r#"LeftDelim:{{ String:"abc \n\t\" " RightDelim:}} Eof:"#,
            ),
            (
                "{{`abc\n\t\" `}}",
                "LeftDelim:{{ RawString:`abc\n\t\" ` RightDelim:}} Eof:",
            ),
            (
                "{{1 02 0x14 0X14 -7.2i 1e3 1E3 +1.2e-4 4.2i 1+2i 1_2 0x1.e_fp4 0X1.E_FP4}}",
                "LeftDelim:{{ Number:1 Space:  Number:02 Space:  Number:0x14 Space:  Number:0X14 Space:  Number:-7.2i Space:  Number:1e3 Space:  Number:1E3 Space:  Number:+1.2e-4 Space:  Number:4.2i Space:  Complex:1+2i Space:  Number:1_2 Space:  Number:0x1.e_fp4 Space:  Number:0X1.E_FP4 RightDelim:}} Eof:",
            ),
            (
                r"{{'a' '\n' '\'' '\\' '\u00FF' '\xFF' '本'}}",
                r"LeftDelim:{{ CharConstant:'a' Space:  CharConstant:'\n' Space:  CharConstant:'\'' Space:  CharConstant:'\\' Space:  CharConstant:'\u00FF' Space:  CharConstant:'\xFF' Space:  CharConstant:'本' RightDelim:}} Eof:",
            ),
            (
                "{{true false}}",
                "LeftDelim:{{ Bool:true Space:  Bool:false RightDelim:}} Eof:",
            ),
            ("{{.}}", "LeftDelim:{{ Dot:. RightDelim:}} Eof:"),
            ("{{nil}}", "LeftDelim:{{ Nil:nil RightDelim:}} Eof:"),
            (
                "{{.x . .2 .x.y.z}}",
                "LeftDelim:{{ Field:.x Space:  Dot:. Space:  Number:.2 Space:  Field:.x Field:.y Field:.z RightDelim:}} Eof:",
            ),
            (
                "{{range if else end with}}",
                "LeftDelim:{{ Range:range Space:  If:if Space:  Else:else Space:  End:end Space:  With:with RightDelim:}} Eof:",
            ),
            (
                "{{$c := printf $ $hello $23 $ $var.Field .Method}}",
                "LeftDelim:{{ Variable:$c Space:  Declare::= Space:  Identifier:printf Space:  Variable:$ Space:  Variable:$hello Space:  Variable:$23 Space:  Variable:$ Space:  Variable:$var Field:.Field Space:  Field:.Method RightDelim:}} Eof:",
            ),
            (
                "{{$x = 3}}",
                "LeftDelim:{{ Variable:$x Space:  Assign:= Space:  Number:3 RightDelim:}} Eof:",
            ),
            (
                "{{$x, $y := 3}}",
                "LeftDelim:{{ Variable:$x Char:, Space:  Variable:$y Space:  Declare::= Space:  Number:3 RightDelim:}} Eof:",
            ),
            (
                "intro {{echo hi 1.2 |noargs|args 1 \"hi\"}} outro",
                "Text:intro  LeftDelim:{{ Identifier:echo Space:  Identifier:hi Space:  Number:1.2 Space:  Pipe:| Identifier:noargs Pipe:| Identifier:args Space:  Number:1 Space:  String:\"hi\" RightDelim:}} Text: outro Eof:",
            ),
            (
                "{{$x := .Field}}",
                "LeftDelim:{{ Variable:$x Space:  Declare::= Space:  Field:.Field RightDelim:}} Eof:",
            ),
            (
                "{{(3)}}",
                "LeftDelim:{{ LeftParen:( Number:3 RightParen:) RightDelim:}} Eof:",
            ),
            ("{{-3}}", "LeftDelim:{{ Number:-3 RightDelim:}} Eof:"),
            ("{{3-}}", "LeftDelim:{{ Error:bad number syntax: \"3-\""),
            ("{{- 3 -}}", "LeftDelim:{{ Number:3 RightDelim:}} Eof:"),
            ("{{-\n3\n-}}", "LeftDelim:{{ Number:3 RightDelim:}} Eof:"),
            (
                "hello- {{- 3 -}} -world",
                "Text:hello- LeftDelim:{{ Number:3 RightDelim:}} Text:-world Eof:",
            ),
            (
                "hello- {{- /* hello */ -}} -world",
                "Text:hello- Text:-world Eof:",
            ),
            (
                "{{.x  -}}",
                "LeftDelim:{{ Field:.x Space:  RightDelim:}} Eof:",
            ),
            (
                "{{break continue}}",
                "LeftDelim:{{ Break:break Space:  Continue:continue RightDelim:}} Eof:",
            ),
            // Errors.
            (
                "#{{\x01}}",
                "Text:# LeftDelim:{{ Error:unrecognized character in action: U+0001",
            ),
            ("{{", "LeftDelim:{{ Error:unclosed action"),
            ("{{range", "LeftDelim:{{ Range:range Error:unclosed action"),
            (
                "{{\"\n\"}}",
                "LeftDelim:{{ Error:unterminated quoted string",
            ),
            (
                "{{`xx}}",
                "LeftDelim:{{ Error:unterminated raw quoted string",
            ),
            (
                "{{'\n}}",
                "LeftDelim:{{ Error:unterminated character constant",
            ),
            ("{{3k}}", "LeftDelim:{{ Error:bad number syntax: \"3k\""),
            (
                "{{(3}}",
                "LeftDelim:{{ LeftParen:( Number:3 Error:unclosed left paren",
            ),
            (
                "{{3)}}",
                "LeftDelim:{{ Number:3 Error:unexpected right paren",
            ),
            ("hello-{{/*/}}-world", "Text:hello- Error:unclosed comment"),
            (
                "hello-{{/* */ }}-world",
                "Text:hello- Error:comment ends before closing delimiter",
            ),
            ("{{.a!}}", "LeftDelim:{{ Error:bad character U+0021 '!'"),
            ("{{a:b}}", "LeftDelim:{{ Identifier:a Error:expected :="),
        ];
        for (input, want) in cases {
            let got = show(&lex_all(input, "", ""));
            assert_eq!(&got, want, "input {input:?}");
        }
    }

    #[test]
    fn custom_delims() {
        let got = show(&lex_all("$$ .x $$ {{.y}} $$- .z -$$ after", "$$", "$$"));
        assert_eq!(
            got,
            "LeftDelim:$$ Space:  Field:.x Space:  RightDelim:$$ Text: {{.y}} LeftDelim:$$ Field:.z RightDelim:$$ Text:after Eof:"
        );
        let got = show(&lex_all("{{.a}}<<- /* c */ ->>x", "<<", ">>"));
        assert_eq!(got, "Text:{{.a}} Text:x Eof:");
    }

    #[test]
    fn positions_and_lines() {
        let mut l = Lexer::new("a\n{{\n.x\n}}\nb{{- /*\n*/ -}}\nc", "", "");
        let mut got = Vec::new();
        loop {
            let i = l.next_item();
            got.push((i.typ, i.pos, i.line));
            if i.typ == ItemType::Eof {
                break;
            }
        }
        use ItemType::*;
        assert_eq!(
            got,
            vec![
                (Text, 0, 1),
                (LeftDelim, 2, 2),
                (Space, 4, 2),
                (Field, 5, 3),
                (Space, 7, 3),
                (RightDelim, 8, 4),
                (Text, 10, 4),
                (Text, 26, 7),
                (Eof, 27, 7)
            ]
        );
    }

    #[test]
    fn find_agrees_with_str_find() {
        const PIECES: &[&str] = &["{", "{{", "}", "a", "é", "<<", "/*", "*/", "\n", ""];
        let mut rng = testkit::Xorshift::new(0x2545_f491_4f6c_dd1d);
        for _ in 0..50_000 {
            let seed = rng.next();
            let text: String = (0..(seed % 8) as usize)
                .map(|k| PIECES[((seed >> (4 * k + 3)) % PIECES.len() as u64) as usize])
                .collect();
            for needle in ["{{", "<<", "*/", "é{", "{", ""] {
                assert_eq!(
                    find(&text, needle),
                    text.find(needle),
                    "{text:?} {needle:?}"
                );
            }
        }
    }

    #[test]
    fn break_as_identifier() {
        let mut l = Lexer::new("{{break}}", "", "");
        l.set_keywords(false, true);
        l.next_item();
        assert_eq!(l.next_item().typ, ItemType::Identifier);
    }
}
