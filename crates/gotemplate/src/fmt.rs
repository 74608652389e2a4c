//! Go's `fmt` as templates use it: `Sprint`, `Sprintln`, `Sprintf` with Go's verbs, flags, widths
//! and mistakes (`%!d(string=x)`), and `%v` printing of every value.
//!
//! Also the pieces of Go's `strconv` that `fmt` rests on and that Sprig reuses:
//! [`format_float`] (`strconv.FormatFloat(f, fmt, prec, 64)`), [`quote`], [`quote_to_ascii`],
//! [`quote_rune`], [`can_backquote`] and [`is_print`] (Go's Unicode printability tables).
//!
//! The structure follows Go's: a raw formatter (padding, integers, strings, floats) under a printer
//! that dispatches on the value's kind and recurses into lists and maps with the same verb.

use crate::value::{Field, IntKind, Object, Value};

/// `fmt.Sprint(args...)`: spaces between operands when neither side is a string.
pub fn sprint(args: &[Value]) -> String {
    let mut p = Printer::new();
    let mut prev_string = false;
    for (i, arg) in args.iter().enumerate() {
        let is_string = is_string_kind(arg);
        if i > 0 && !is_string && !prev_string {
            p.buf.push(b' ');
        }
        p.print_arg(arg, 'v');
        prev_string = is_string;
    }
    p.finish()
}

/// `fmt.Sprintln(args...)`: always spaces between operands, and a trailing newline.
pub fn sprintln(args: &[Value]) -> String {
    let mut p = Printer::new();
    for (i, arg) in args.iter().enumerate() {
        if i > 0 {
            p.buf.push(b' ');
        }
        p.print_arg(arg, 'v');
    }
    p.buf.push(b'\n');
    p.finish()
}

/// `fmt.Sprintf(format, args...)`.
pub fn sprintf(format: &str, args: &[Value]) -> String {
    let mut p = Printer::new();
    p.do_printf(format, args);
    p.finish()
}

/// How `{{ value }}` prints: `fmt.Fprint` of the value (`<no value>` for no value).
pub fn print_value(value: &Value) -> String {
    if value.is_invalid() {
        return "<no value>".to_string();
    }
    let mut p = Printer::new();
    p.print_arg(value, 'v');
    p.finish()
}

/// `fmt.Sprintf("%v", value)` of one value (what Sprig's `toString` and friends produce).
pub fn sprint_value(value: &Value) -> String {
    let mut p = Printer::new();
    p.print_arg(value, 'v');
    p.finish()
}

/// Whether `fmt.Sprint` treats the operand as a string (no space is added next to it).
fn is_string_kind(v: &Value) -> bool {
    match v {
        Value::String(_) => true,
        Value::Object(o) => matches!(o.as_value(), Some(Value::String(_))),
        _ => false,
    }
}

// ---------------------------------------------------------------------------------------------
// The printer.

#[derive(Clone, Copy, Default)]
struct Flags {
    wid_present: bool,
    prec_present: bool,
    minus: bool,
    plus: bool,
    sharp: bool,
    space: bool,
    zero: bool,
    // %+v and %#v: set at the top level, with plus/sharp cleared.
    plus_v: bool,
    sharp_v: bool,
    wid: usize,
    prec: usize,
}

struct Printer {
    buf: Vec<u8>,
    f: Flags,
    reordered: bool,
    good_arg_num: bool,
}

const LDIGITS: &[u8; 17] = b"0123456789abcdefx";
const UDIGITS: &[u8; 17] = b"0123456789ABCDEFX";

/// Go's limit for widths and precisions.
fn too_large(x: i64) -> bool {
    !(-1_000_000..=1_000_000).contains(&x)
}

impl Printer {
    fn new() -> Printer {
        Printer {
            buf: Vec::new(),
            f: Flags::default(),
            reordered: false,
            good_arg_num: true,
        }
    }

    fn finish(self) -> String {
        match String::from_utf8(self.buf) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        }
    }

    fn write_str(&mut self, s: &str) {
        self.buf.extend_from_slice(s.as_bytes());
    }

    fn write_char(&mut self, c: char) {
        let mut tmp = [0u8; 4];
        self.buf
            .extend_from_slice(c.encode_utf8(&mut tmp).as_bytes());
    }

    // --- the raw formatter (Go's fmt type) ---

    fn write_padding(&mut self, n: usize) {
        let pad = if self.f.zero && !self.f.minus {
            b'0'
        } else {
            b' '
        };
        self.buf.resize(self.buf.len() + n, pad);
    }

    fn pad(&mut self, b: &[u8]) {
        if !self.f.wid_present || self.f.wid == 0 {
            self.buf.extend_from_slice(b);
            return;
        }
        let width = self.f.wid.saturating_sub(rune_count(b));
        if !self.f.minus {
            self.write_padding(width);
            self.buf.extend_from_slice(b);
        } else {
            self.buf.extend_from_slice(b);
            self.write_padding(width);
        }
    }

    fn pad_str(&mut self, s: &str) {
        self.pad(s.as_bytes());
    }

    /// Pads with spaces whatever the zero flag says (Go turns it off around some paddings).
    fn pad_no_zero(&mut self, b: &[u8]) {
        let old = self.f.zero;
        self.f.zero = false;
        self.pad(b);
        self.f.zero = old;
    }

    fn fmt_boolean(&mut self, v: bool) {
        self.pad_str(if v { "true" } else { "false" });
    }

    fn fmt_unicode(&mut self, u: u64) {
        let mut prec = 4usize;
        if self.f.prec_present && self.f.prec > 4 {
            prec = self.f.prec;
        }
        let mut hex = Vec::new();
        let mut x = u;
        loop {
            hex.push(UDIGITS[(x & 0xF) as usize]);
            x >>= 4;
            if x == 0 {
                break;
            }
        }
        while hex.len() < prec {
            hex.push(b'0');
        }
        let mut out = b"U+".to_vec();
        out.extend(hex.iter().rev());
        if self.f.sharp && u <= 0x10FFFF && is_print_rune(u as u32) {
            out.extend_from_slice(b" '");
            push_rune(&mut out, u as u32);
            out.push(b'\'');
        }
        self.pad_no_zero(&out);
    }

    fn fmt_integer(&mut self, u: u64, base: u64, signed: bool, verb: char, digits: &[u8; 17]) {
        let negative = signed && (u as i64) < 0;
        let mut u = if negative { u.wrapping_neg() } else { u };
        let mut prec = 0usize;
        if self.f.prec_present {
            prec = self.f.prec;
            if prec == 0 && u == 0 {
                let old = self.f.zero;
                self.f.zero = false;
                self.write_padding(self.f.wid);
                self.f.zero = old;
                return;
            }
        } else if self.f.zero && !self.f.minus && self.f.wid_present {
            prec = self.f.wid;
            if negative || self.f.plus || self.f.space {
                prec = prec.saturating_sub(1);
            }
        }
        // Built right to left, reversed at the end.
        let mut rev = Vec::with_capacity(24);
        loop {
            rev.push(digits[(u % base) as usize]);
            u /= base;
            if u == 0 {
                break;
            }
        }
        while rev.len() < prec {
            rev.push(b'0');
        }
        if self.f.sharp {
            match base {
                2 => rev.extend_from_slice(b"b0"),
                8 if rev.last() != Some(&b'0') => rev.push(b'0'),
                16 => {
                    rev.push(digits[16]);
                    rev.push(b'0');
                }
                _ => {}
            }
        }
        if verb == 'O' {
            rev.extend_from_slice(b"o0");
        }
        if negative {
            rev.push(b'-');
        } else if self.f.plus {
            rev.push(b'+');
        } else if self.f.space {
            rev.push(b' ');
        }
        rev.reverse();
        self.pad_no_zero(&rev);
    }

    fn truncate<'a>(&self, b: &'a [u8]) -> &'a [u8] {
        if self.f.prec_present {
            let mut n = self.f.prec;
            let mut i = 0;
            while i < b.len() {
                if n == 0 {
                    return &b[..i];
                }
                n -= 1;
                i += decode_rune(&b[i..]).1;
            }
        }
        b
    }

    fn fmt_s(&mut self, b: &[u8]) {
        let b = self.truncate(b);
        self.pad(b);
    }

    fn fmt_sbx(&mut self, b: &[u8], digits: &[u8; 17]) {
        let mut length = b.len();
        if self.f.prec_present && self.f.prec < length {
            length = self.f.prec;
        }
        let mut width = 2 * length;
        if width > 0 {
            if self.f.space {
                if self.f.sharp {
                    width *= 2;
                }
                width += length - 1;
            } else if self.f.sharp {
                width += 2;
            }
        } else {
            if self.f.wid_present {
                self.write_padding(self.f.wid);
            }
            return;
        }
        if self.f.wid_present && self.f.wid > width && !self.f.minus {
            self.write_padding(self.f.wid - width);
        }
        if self.f.sharp {
            self.buf.push(b'0');
            self.buf.push(digits[16]);
        }
        for (i, &c) in b[..length].iter().enumerate() {
            if self.f.space && i > 0 {
                self.buf.push(b' ');
                if self.f.sharp {
                    self.buf.push(b'0');
                    self.buf.push(digits[16]);
                }
            }
            self.buf.push(digits[(c >> 4) as usize]);
            self.buf.push(digits[(c & 0xF) as usize]);
        }
        if self.f.wid_present && self.f.wid > width && self.f.minus {
            self.write_padding(self.f.wid - width);
        }
    }

    fn fmt_q(&mut self, b: &[u8]) {
        let b = self.truncate(b);
        if self.f.sharp && can_backquote_bytes(b) {
            let mut out = Vec::with_capacity(b.len() + 2);
            out.push(b'`');
            out.extend_from_slice(b);
            out.push(b'`');
            self.pad(&out);
            return;
        }
        let mut out = Vec::with_capacity(b.len() + 2);
        append_quoted(&mut out, b, b'"', self.f.plus);
        self.pad(&out);
    }

    fn fmt_c(&mut self, c: u64) {
        let r = if c > 0x10FFFF { 0xFFFD } else { c as u32 };
        let mut out = Vec::new();
        push_rune(&mut out, r);
        self.pad(&out);
    }

    fn fmt_qc(&mut self, c: u64) {
        let r = if c > 0x10FFFF { 0xFFFD } else { c as u32 };
        let mut out = Vec::new();
        append_quoted_rune(&mut out, r, self.f.plus);
        self.pad(&out);
    }

    /// Go's `fmt.fmtFloat`: `verb` is a strconv format byte, `prec` the default precision.
    fn fmt_float(&mut self, v: f64, verb: u8, prec: i32) {
        let prec = if self.f.prec_present {
            self.f.prec as i32
        } else {
            prec
        };
        let s = format_float_impl(v, verb, prec);
        let mut num: Vec<u8> = Vec::with_capacity(s.len() + 1);
        if !s.starts_with('-') && !s.starts_with('+') {
            num.push(b'+');
        }
        num.extend_from_slice(s.as_bytes());
        if self.f.space && num[0] == b'+' && !self.f.plus {
            num[0] = b' ';
        }
        if num.get(1) == Some(&b'I') || num.get(1) == Some(&b'N') {
            let mut start = 0;
            if num[1] == b'N' && !self.f.space && !self.f.plus {
                start = 1;
            }
            let num = num[start..].to_vec();
            self.pad_no_zero(&num);
            return;
        }
        if self.f.sharp && verb != b'b' {
            let mut digits: i32 = match verb {
                b'v' | b'g' | b'G' | b'x' => {
                    if prec == -1 {
                        6
                    } else {
                        prec
                    }
                }
                _ => 0,
            };
            let mut tail: Vec<u8> = Vec::new();
            let mut has_decimal_point = false;
            let mut saw_nonzero = false;
            let mut i = 1;
            while i < num.len() {
                match num[i] {
                    b'.' => has_decimal_point = true,
                    b'p' | b'P' => {
                        tail.extend_from_slice(&num[i..]);
                        num.truncate(i);
                    }
                    b'e' | b'E' if verb != b'x' && verb != b'X' => {
                        tail.extend_from_slice(&num[i..]);
                        num.truncate(i);
                    }
                    c => {
                        if c != b'0' {
                            saw_nonzero = true;
                        }
                        if saw_nonzero {
                            digits -= 1;
                        }
                    }
                }
                i += 1;
            }
            if !has_decimal_point {
                if num.len() == 2 && num[1] == b'0' {
                    digits -= 1;
                }
                num.push(b'.');
            }
            while digits > 0 {
                num.push(b'0');
                digits -= 1;
            }
            num.extend_from_slice(&tail);
        }
        if self.f.plus || num[0] != b'+' {
            if self.f.zero && !self.f.minus && self.f.wid_present && self.f.wid > num.len() {
                self.buf.push(num[0]);
                self.write_padding(self.f.wid - num.len());
                self.buf.extend_from_slice(&num[1..]);
                return;
            }
            self.pad(&num);
            return;
        }
        self.pad(&num[1..]);
    }

    // --- the printer (Go's pp type) ---

    fn bad_verb(&mut self, verb: char, value: Option<&Value>) {
        self.write_str("%!");
        self.write_char(verb);
        self.buf.push(b'(');
        match value {
            Some(v) if !v.is_nil() => {
                self.write_str(&v.type_name());
                self.buf.push(b'=');
                self.print_arg(v, 'v');
            }
            _ => self.write_str("<nil>"),
        }
        self.buf.push(b')');
    }

    fn fmt_bool(&mut self, v: bool, verb: char, value: &Value) {
        match verb {
            't' | 'v' => self.fmt_boolean(v),
            _ => self.bad_verb(verb, Some(value)),
        }
    }

    fn fmt_0x64(&mut self, v: u64, leading_0x: bool) {
        let sharp = self.f.sharp;
        self.f.sharp = leading_0x;
        self.fmt_integer(v, 16, false, 'v', LDIGITS);
        self.f.sharp = sharp;
    }

    fn fmt_int(&mut self, v: u64, signed: bool, verb: char, value: &Value) {
        match verb {
            'v' => {
                if self.f.sharp_v && !signed {
                    self.fmt_0x64(v, true);
                } else {
                    self.fmt_integer(v, 10, signed, verb, LDIGITS);
                }
            }
            'd' => self.fmt_integer(v, 10, signed, verb, LDIGITS),
            'b' => self.fmt_integer(v, 2, signed, verb, LDIGITS),
            'o' | 'O' => self.fmt_integer(v, 8, signed, verb, LDIGITS),
            'x' => self.fmt_integer(v, 16, signed, verb, LDIGITS),
            'X' => self.fmt_integer(v, 16, signed, verb, UDIGITS),
            'c' => self.fmt_c(v),
            'q' => self.fmt_qc(v),
            'U' => self.fmt_unicode(v),
            _ => self.bad_verb(verb, Some(value)),
        }
    }

    fn fmt_float_verb(&mut self, v: f64, verb: char, value: &Value) {
        match verb {
            'v' => self.fmt_float(v, b'g', -1),
            'b' | 'g' | 'G' | 'x' | 'X' => self.fmt_float(v, verb as u8, -1),
            'f' | 'e' | 'E' => self.fmt_float(v, verb as u8, 6),
            'F' => self.fmt_float(v, b'f', 6),
            _ => self.bad_verb(verb, Some(value)),
        }
    }

    fn fmt_string(&mut self, s: &[u8], verb: char, value: &Value) {
        match verb {
            'v' => {
                if self.f.sharp_v {
                    self.fmt_q(s)
                } else {
                    self.fmt_s(s)
                }
            }
            's' => self.fmt_s(s),
            'x' => self.fmt_sbx(s, LDIGITS),
            'X' => self.fmt_sbx(s, UDIGITS),
            'q' => self.fmt_q(s),
            _ => self.bad_verb(verb, Some(value)),
        }
    }

    fn fmt_bytes(&mut self, b: &[u8], verb: char, type_string: &str) {
        match verb {
            'v' | 'd' => {
                if self.f.sharp_v {
                    self.write_str(type_string);
                    self.buf.push(b'{');
                    for (i, &c) in b.iter().enumerate() {
                        if i > 0 {
                            self.write_str(", ");
                        }
                        self.fmt_0x64(c as u64, true);
                    }
                    self.buf.push(b'}');
                } else {
                    self.buf.push(b'[');
                    for (i, &c) in b.iter().enumerate() {
                        if i > 0 {
                            self.buf.push(b' ');
                        }
                        self.fmt_integer(c as u64, 10, false, verb, LDIGITS);
                    }
                    self.buf.push(b']');
                }
            }
            's' => self.fmt_s(b),
            'x' => self.fmt_sbx(b, LDIGITS),
            'X' => self.fmt_sbx(b, UDIGITS),
            'q' => self.fmt_q(b),
            _ => {
                let items: Vec<Value> = b
                    .iter()
                    .map(|&c| Value::Int(c as i64, IntKind::Uint8))
                    .collect();
                self.print_slice(&items, "[]uint8", verb, 0);
            }
        }
    }

    fn fmt_pointer(&mut self, value: &Value, verb: char) {
        let u = match value {
            Value::Map(m) => m.addr(),
            Value::List(l) => l.addr(),
            Value::Bytes(b) => b.as_ptr() as usize,
            Value::Func(f) => std::rc::Rc::as_ptr(f) as *const u8 as usize,
            // The shared object stands in for what a Go pointer points at.
            Value::Object(o) if o.type_name().starts_with('*') => {
                std::rc::Rc::as_ptr(o) as *const u8 as usize
            }
            _ => {
                self.bad_verb(verb, Some(value));
                return;
            }
        } as u64;
        match verb {
            'v' => {
                if self.f.sharp_v {
                    self.buf.push(b'(');
                    self.write_str(&value.type_name());
                    self.write_str(")(");
                    if u == 0 {
                        self.write_str("nil");
                    } else {
                        self.fmt_0x64(u, true);
                    }
                    self.buf.push(b')');
                } else if u == 0 {
                    self.pad_str("<nil>");
                } else {
                    self.fmt_0x64(u, !self.f.sharp);
                }
            }
            'p' => self.fmt_0x64(u, !self.f.sharp),
            'b' | 'o' | 'd' | 'x' | 'X' => self.fmt_int(u, false, verb, value),
            _ => self.bad_verb(verb, Some(value)),
        }
    }

    fn print_arg(&mut self, arg: &Value, verb: char) {
        if arg.is_nil() {
            match verb {
                'T' | 'v' => self.pad_str("<nil>"),
                _ => self.bad_verb(verb, None),
            }
            return;
        }
        match verb {
            'T' => {
                let t = arg.type_name();
                self.fmt_s(t.as_bytes());
                return;
            }
            'p' => {
                self.fmt_pointer(arg, 'p');
                return;
            }
            _ => {}
        }
        self.print_value(arg, verb, 0);
    }

    fn print_value(&mut self, value: &Value, verb: char, depth: usize) {
        match value {
            Value::List(_) | Value::Map(_) | Value::Object(_) => {
                crate::stack::grow(|| self.print_value_level(value, verb, depth))
            }
            _ => self.print_value_level(value, verb, depth),
        }
    }

    /// One level of [`Self::print_value`]; nested containers come back through it.
    fn print_value_level(&mut self, value: &Value, verb: char, depth: usize) {
        match value {
            Value::Invalid | Value::Nil => {
                // A nil interface inside a container.
                if self.f.sharp_v {
                    self.write_str("interface {}(nil)");
                } else {
                    self.write_str("<nil>");
                }
            }
            Value::Bool(b) => self.fmt_bool(*b, verb, value),
            Value::Int(n, k) => self.fmt_int(*n as u64, !k.is_unsigned(), verb, value),
            Value::Float(x) => self.fmt_float_verb(*x, verb, value),
            Value::String(s) => self.fmt_string(s.as_bytes(), verb, value),
            Value::Bytes(b) => {
                if depth == 0 {
                    self.fmt_bytes(b, verb, "[]byte");
                } else if matches!(verb, 's' | 'q' | 'x' | 'X') {
                    self.fmt_bytes(b, verb, "[]uint8");
                } else {
                    let items: Vec<Value> = b
                        .iter()
                        .map(|&c| Value::Int(c as i64, IntKind::Uint8))
                        .collect();
                    self.print_slice(&items, "[]uint8", verb, depth);
                }
            }
            Value::List(l) => {
                if matches!(verb, 's' | 'q' | 'x' | 'X') && l.elem_type() == "uint8" {
                    let bytes: Vec<u8> = l
                        .items()
                        .iter()
                        .map(|v| match v {
                            Value::Int(n, _) => *n as u8,
                            _ => 0,
                        })
                        .collect();
                    self.fmt_bytes(&bytes, verb, "[]uint8");
                    return;
                }
                let t = value.type_name();
                self.print_slice(l.items(), &t, verb, depth);
            }
            Value::Map(m) => {
                if self.f.sharp_v {
                    self.write_str(m.type_name());
                    self.buf.push(b'{');
                } else {
                    self.write_str("map[");
                }
                for (i, (k, v)) in m.entries().iter().enumerate() {
                    if i > 0 {
                        if self.f.sharp_v {
                            self.write_str(", ");
                        } else {
                            self.buf.push(b' ');
                        }
                    }
                    self.print_value(&Value::String(k.into()), verb, depth + 1);
                    self.buf.push(b':');
                    self.print_value(v, verb, depth + 1);
                }
                self.buf.push(if self.f.sharp_v { b'}' } else { b']' });
            }
            Value::Object(o) => self.print_object(value, o.as_ref(), verb, depth),
            Value::Func(_) => self.fmt_pointer(value, verb),
        }
    }

    /// A Go struct, pointer or named type: the methods `fmt` looks for first (`handleMethods`),
    /// then what the value is underneath.
    fn print_object(&mut self, value: &Value, o: &dyn Object, verb: char, depth: usize) {
        if self.f.sharp_v {
            if let Some(s) = o.go_string() {
                self.fmt_s(s.as_bytes());
                return;
            }
        } else if matches!(verb, 'v' | 's' | 'x' | 'X' | 'q')
            && let Some(s) = o.stringer()
        {
            self.fmt_string(s.as_bytes(), verb, value);
            return;
        }
        if let Some(v) = o.as_value() {
            match &v {
                // `%#v` names a named slice type (`common.VersionSet{"v1", …}`).
                Value::List(l) if self.f.sharp_v => {
                    self.print_slice(l.items(), o.type_name(), verb, depth)
                }
                _ => self.print_value(&v, verb, depth),
            }
            return;
        }
        if let Some(fields) = o.fields() {
            let type_name = o.type_name();
            match type_name.strip_prefix('*') {
                // A pointer to a struct shows the struct at the top level only (Go avoids
                // loops so); deeper down it is an address.
                Some(_) if depth > 0 => self.fmt_pointer(value, verb),
                Some(elem) => {
                    self.buf.push(b'&');
                    self.print_struct(elem, &fields, verb, depth + 1);
                }
                None => self.print_struct(type_name, &fields, verb, depth),
            }
            return;
        }
        let s = o.format();
        if self.f.sharp_v {
            self.write_str(&s);
        } else {
            self.pad_str(&s);
        }
    }

    /// `{a b}`, with `%+v` `{Name:a …}`, with `%#v` `pkg.T{Name:"a", …}`.
    fn print_struct(&mut self, type_name: &str, fields: &[Field], verb: char, depth: usize) {
        if self.f.sharp_v {
            self.write_str(type_name);
        }
        self.buf.push(b'{');
        for (i, field) in fields.iter().enumerate() {
            if i > 0 {
                if self.f.sharp_v {
                    self.write_str(", ");
                } else {
                    self.buf.push(b' ');
                }
            }
            if self.f.plus_v || self.f.sharp_v {
                self.write_str(field.name);
                self.buf.push(b':');
            }
            self.print_value(&field.value, verb, depth + 1);
        }
        self.buf.push(b'}');
    }

    fn print_slice(&mut self, items: &[Value], type_string: &str, verb: char, depth: usize) {
        if self.f.sharp_v {
            self.write_str(type_string);
            self.buf.push(b'{');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    self.write_str(", ");
                }
                self.print_value(item, verb, depth + 1);
            }
            self.buf.push(b'}');
        } else {
            self.buf.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    self.buf.push(b' ');
                }
                self.print_value(item, verb, depth + 1);
            }
            self.buf.push(b']');
        }
    }

    // --- Printf ---

    /// Go's `argNumber`: an explicit `[n]` argument index at `format[i..]`, if any.
    fn arg_number(
        &mut self,
        arg_num: usize,
        format: &[u8],
        i: usize,
        num_args: usize,
    ) -> (usize, usize, bool) {
        if format.len() <= i || format[i] != b'[' {
            return (arg_num, i, false);
        }
        self.reordered = true;
        let (index, wid, ok) = parse_arg_number(&format[i..]);
        if ok && 0 <= index && (index as usize) < num_args {
            return (index as usize, i + wid, true);
        }
        self.good_arg_num = false;
        (arg_num, i + wid, ok)
    }

    fn do_printf(&mut self, format_str: &str, args: &[Value]) {
        let format = format_str.as_bytes();
        let end = format.len();
        let mut arg_num = 0usize;
        let mut after_index;
        self.reordered = false;
        let mut i = 0usize;
        'format_loop: while i < end {
            self.good_arg_num = true;
            let lasti = i;
            while i < end && format[i] != b'%' {
                i += 1;
            }
            if i > lasti {
                self.buf.extend_from_slice(&format[lasti..i]);
            }
            if i >= end {
                break;
            }
            i += 1; // skip %

            self.f = Flags::default();
            let mut simple = true;
            while i < end {
                let c = format[i];
                match c {
                    b'#' => self.f.sharp = true,
                    b'0' => self.f.zero = true,
                    b'+' => self.f.plus = true,
                    b'-' => self.f.minus = true,
                    b' ' => self.f.space = true,
                    _ => {
                        if c.is_ascii_lowercase() && arg_num < args.len() {
                            if c == b'v' {
                                self.f.sharp_v = self.f.sharp;
                                self.f.sharp = false;
                                self.f.plus_v = self.f.plus;
                                self.f.plus = false;
                            }
                            self.print_arg(&args[arg_num], c as char);
                            arg_num += 1;
                            i += 1;
                            continue 'format_loop;
                        }
                        simple = false;
                    }
                }
                if !simple {
                    break;
                }
                i += 1;
            }

            // Explicit argument index?
            (arg_num, i, after_index) = self.arg_number(arg_num, format, i, args.len());

            // Width.
            if i < end && format[i] == b'*' {
                i += 1;
                let (num, ok, new_arg) = int_from_arg(args, arg_num);
                arg_num = new_arg;
                self.f.wid_present = ok;
                if !ok {
                    self.write_str("%!(BADWIDTH)");
                }
                if num < 0 {
                    self.f.minus = true;
                    self.f.zero = false;
                }
                self.f.wid = num.unsigned_abs() as usize;
                after_index = false;
            } else {
                let (num, ok, newi) = parse_num(format, i, end);
                self.f.wid = num;
                self.f.wid_present = ok;
                i = newi;
                if after_index && self.f.wid_present {
                    self.good_arg_num = false;
                }
            }

            // Precision.
            if i + 1 < end && format[i] == b'.' {
                i += 1;
                if after_index {
                    self.good_arg_num = false;
                }
                (arg_num, i, after_index) = self.arg_number(arg_num, format, i, args.len());
                if i < end && format[i] == b'*' {
                    i += 1;
                    let (num, ok, new_arg) = int_from_arg(args, arg_num);
                    arg_num = new_arg;
                    self.f.prec_present = ok;
                    self.f.prec = num.max(0) as usize;
                    if num < 0 {
                        self.f.prec_present = false;
                    }
                    if !self.f.prec_present {
                        self.write_str("%!(BADPREC)");
                    }
                    after_index = false;
                } else {
                    let (num, ok, newi) = parse_num(format, i, end);
                    self.f.prec = num;
                    self.f.prec_present = ok;
                    i = newi;
                    if !self.f.prec_present {
                        self.f.prec = 0;
                        self.f.prec_present = true;
                    }
                }
            }

            if !after_index {
                (arg_num, i, after_index) = self.arg_number(arg_num, format, i, args.len());
            }
            let _ = after_index;

            if i >= end {
                self.write_str("%!(NOVERB)");
                break;
            }

            let verb = format_str[i..].chars().next().unwrap_or('\u{FFFD}');
            i += verb.len_utf8();

            if verb == '%' {
                self.buf.push(b'%');
            } else if !self.good_arg_num {
                self.write_str("%!");
                self.write_char(verb);
                self.write_str("(BADINDEX)");
            } else if arg_num >= args.len() {
                self.write_str("%!");
                self.write_char(verb);
                self.write_str("(MISSING)");
            } else {
                if verb == 'v' {
                    self.f.sharp_v = self.f.sharp;
                    self.f.sharp = false;
                    self.f.plus_v = self.f.plus;
                    self.f.plus = false;
                }
                self.print_arg(&args[arg_num], verb);
                arg_num += 1;
            }
        }

        if !self.reordered && arg_num < args.len() {
            self.f = Flags::default();
            self.write_str("%!(EXTRA ");
            for (i, arg) in args[arg_num..].iter().enumerate() {
                if i > 0 {
                    self.write_str(", ");
                }
                if arg.is_nil() {
                    self.write_str("<nil>");
                } else {
                    self.write_str(&arg.type_name());
                    self.buf.push(b'=');
                    self.print_arg(arg, 'v');
                }
            }
            self.buf.push(b')');
        }
    }
}

/// Go's `parsenum`: (number, whether one was present, index after it).
fn parse_num(s: &[u8], start: usize, end: usize) -> (usize, bool, usize) {
    if start >= end {
        return (0, false, end);
    }
    let mut num: i64 = 0;
    let mut isnum = false;
    let mut newi = start;
    while newi < end && s[newi].is_ascii_digit() {
        if too_large(num) {
            return (0, false, end);
        }
        num = num * 10 + (s[newi] - b'0') as i64;
        isnum = true;
        newi += 1;
    }
    (num as usize, isnum, newi)
}

/// Go's `parseArgNumber`: the zero-based index in `[n]`, bytes consumed, ok.
fn parse_arg_number(format: &[u8]) -> (i64, usize, bool) {
    if format.len() < 3 {
        return (0, 1, false);
    }
    for i in 1..format.len() {
        if format[i] == b']' {
            let (width, ok, newi) = parse_num(format, 1, i);
            if !ok || newi != i {
                return (0, i + 1, false);
            }
            return (width as i64 - 1, i + 1, true);
        }
    }
    (0, 1, false)
}

/// Go's `intFromArg`: a `*` width or precision from the argument list.
fn int_from_arg(args: &[Value], arg_num: usize) -> (i64, bool, usize) {
    if arg_num >= args.len() {
        return (0, false, arg_num);
    }
    let (mut num, mut is_int) = match &args[arg_num] {
        Value::Int(n, k) => {
            if k.is_unsigned() && *n < 0 {
                (0, false)
            } else {
                (*n, true)
            }
        }
        _ => (0, false),
    };
    if too_large(num) {
        num = 0;
        is_int = false;
    }
    (num, is_int, arg_num + 1)
}

// ---------------------------------------------------------------------------------------------
// UTF-8 as Go decodes it: an invalid byte is one rune (U+FFFD) of width 1.

/// Go's `utf8.DecodeRune`: (rune, width); invalid encodings give (U+FFFD, 1), empty (U+FFFD, 0).
pub fn decode_rune(b: &[u8]) -> (u32, usize) {
    let Some(&b0) = b.first() else {
        return (0xFFFD, 0);
    };
    if b0 < 0x80 {
        return (b0 as u32, 1);
    }
    let cont = |i: usize, lo: u8, hi: u8| b.get(i).is_some_and(|&c| (lo..=hi).contains(&c));
    let (n, lo1, hi1) = match b0 {
        0xC2..=0xDF => (2, 0x80, 0xBF),
        0xE0 => (3, 0xA0, 0xBF),
        0xE1..=0xEC | 0xEE..=0xEF => (3, 0x80, 0xBF),
        0xED => (3, 0x80, 0x9F),
        0xF0 => (4, 0x90, 0xBF),
        0xF1..=0xF3 => (4, 0x80, 0xBF),
        0xF4 => (4, 0x80, 0x8F),
        _ => return (0xFFFD, 1),
    };
    if !cont(1, lo1, hi1) {
        return (0xFFFD, 1);
    }
    for i in 2..n {
        if !cont(i, 0x80, 0xBF) {
            return (0xFFFD, 1);
        }
    }
    let r = match n {
        2 => ((b0 as u32 & 0x1F) << 6) | (b[1] as u32 & 0x3F),
        3 => ((b0 as u32 & 0x0F) << 12) | ((b[1] as u32 & 0x3F) << 6) | (b[2] as u32 & 0x3F),
        _ => {
            ((b0 as u32 & 0x07) << 18)
                | ((b[1] as u32 & 0x3F) << 12)
                | ((b[2] as u32 & 0x3F) << 6)
                | (b[3] as u32 & 0x3F)
        }
    };
    (r, n)
}

/// Go's `utf8.RuneCount`.
fn rune_count(b: &[u8]) -> usize {
    let mut i = 0;
    let mut n = 0;
    while i < b.len() {
        i += decode_rune(&b[i..]).1;
        n += 1;
    }
    n
}

/// Appends the UTF-8 encoding of `r`; invalid runes (surrogates, too large) become U+FFFD.
fn push_rune(out: &mut Vec<u8>, r: u32) {
    let c = char::from_u32(r).unwrap_or('\u{FFFD}');
    let mut tmp = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut tmp).as_bytes());
}

// ---------------------------------------------------------------------------------------------
// strconv quoting.

/// Go's `strconv.IsPrint` (and `unicode.IsPrint`, which agrees with it): letters, marks, numbers,
/// punctuation, symbols and the ASCII space.
pub fn is_print(c: char) -> bool {
    is_print_rune(c as u32)
}

fn is_print_rune(r: u32) -> bool {
    let i = PRINT_RANGES.partition_point(|&(_, hi)| hi < r);
    i < PRINT_RANGES.len() && PRINT_RANGES[i].0 <= r
}

const LOWERHEX: &[u8; 16] = b"0123456789abcdef";

fn append_escaped_rune(buf: &mut Vec<u8>, r: u32, quote: u8, ascii_only: bool) {
    if r == quote as u32 || r == '\\' as u32 {
        buf.push(b'\\');
        buf.push(r as u8);
        return;
    }
    if ascii_only {
        if r < 0x80 && is_print_rune(r) {
            buf.push(r as u8);
            return;
        }
    } else if is_print_rune(r) {
        push_rune(buf, r);
        return;
    }
    match r {
        0x07 => buf.extend_from_slice(b"\\a"),
        0x08 => buf.extend_from_slice(b"\\b"),
        0x0C => buf.extend_from_slice(b"\\f"),
        0x0A => buf.extend_from_slice(b"\\n"),
        0x0D => buf.extend_from_slice(b"\\r"),
        0x09 => buf.extend_from_slice(b"\\t"),
        0x0B => buf.extend_from_slice(b"\\v"),
        _ => {
            if r < 0x20 || r == 0x7F {
                buf.extend_from_slice(b"\\x");
                buf.push(LOWERHEX[(r >> 4) as usize & 0xF]);
                buf.push(LOWERHEX[r as usize & 0xF]);
            } else {
                let r = if char::from_u32(r).is_none() {
                    0xFFFD
                } else {
                    r
                };
                if r < 0x10000 {
                    buf.extend_from_slice(b"\\u");
                    for s in [12, 8, 4, 0] {
                        buf.push(LOWERHEX[(r >> s) as usize & 0xF]);
                    }
                } else {
                    buf.extend_from_slice(b"\\U");
                    for s in [28, 24, 20, 16, 12, 8, 4, 0] {
                        buf.push(LOWERHEX[(r >> s) as usize & 0xF]);
                    }
                }
            }
        }
    }
}

fn append_quoted(buf: &mut Vec<u8>, s: &[u8], quote: u8, ascii_only: bool) {
    buf.push(quote);
    let mut i = 0;
    while i < s.len() {
        let (r, width) = decode_rune(&s[i..]);
        if width == 1 && r == 0xFFFD {
            buf.extend_from_slice(b"\\x");
            buf.push(LOWERHEX[(s[i] >> 4) as usize]);
            buf.push(LOWERHEX[(s[i] & 0xF) as usize]);
            i += 1;
            continue;
        }
        append_escaped_rune(buf, r, quote, ascii_only);
        i += width;
    }
    buf.push(quote);
}

fn append_quoted_rune(buf: &mut Vec<u8>, r: u32, ascii_only: bool) {
    buf.push(b'\'');
    let r = if char::from_u32(r).is_none() {
        0xFFFD
    } else {
        r
    };
    append_escaped_rune(buf, r, b'\'', ascii_only);
    buf.push(b'\'');
}

fn bytes_to_string(b: Vec<u8>) -> String {
    String::from_utf8(b).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Go's `strconv.Quote`.
pub fn quote(s: &str) -> String {
    quote_bytes(s.as_bytes())
}

/// Go's `strconv.Quote` of a byte string that may hold invalid UTF-8 (escaped as `\xNN`).
pub fn quote_bytes(s: &[u8]) -> String {
    let mut buf = Vec::with_capacity(s.len() + 2);
    append_quoted(&mut buf, s, b'"', false);
    bytes_to_string(buf)
}

/// Go's `strconv.QuoteToASCII`.
pub fn quote_to_ascii(s: &str) -> String {
    let mut buf = Vec::with_capacity(s.len() + 2);
    append_quoted(&mut buf, s.as_bytes(), b'"', true);
    bytes_to_string(buf)
}

/// Go's `strconv.QuoteRune` (invalid code points print as U+FFFD).
pub fn quote_rune(r: u32) -> String {
    let mut buf = Vec::new();
    append_quoted_rune(&mut buf, r, false);
    bytes_to_string(buf)
}

/// Go's `strconv.CanBackquote`.
pub fn can_backquote(s: &str) -> bool {
    can_backquote_bytes(s.as_bytes())
}

fn can_backquote_bytes(mut s: &[u8]) -> bool {
    while !s.is_empty() {
        let (r, wid) = decode_rune(s);
        s = &s[wid..];
        if wid > 1 {
            if r == 0xFEFF {
                return false;
            }
            continue;
        }
        if r == 0xFFFD {
            return false;
        }
        if (r < 0x20 && r != '\t' as u32) || r == '`' as u32 || r == 0x7F {
            return false;
        }
    }
    true
}

// ---------------------------------------------------------------------------------------------
// strconv.FormatFloat, built on Rust's correctly rounded decimal conversions.

/// Decimal digits of a positive number: value = 0.d1d2d3... × 10^dp, no trailing zeros;
/// zero has no digits and dp 0.
struct Digits {
    d: Vec<u8>,
    dp: i32,
}

impl Digits {
    fn zero() -> Digits {
        Digits {
            d: Vec::new(),
            dp: 0,
        }
    }

    fn nd(&self) -> i32 {
        self.d.len() as i32
    }

    fn trimmed(mut self) -> Digits {
        while self.d.last() == Some(&b'0') {
            self.d.pop();
        }
        if self.d.is_empty() {
            self.dp = 0;
        }
        self
    }

    /// From Rust's `{:e}` layout: `d.ddde±x`.
    fn from_exp(s: &str) -> Digits {
        let (mant, exp) = s.split_once('e').unwrap_or((s, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let d: Vec<u8> = mant.bytes().filter(u8::is_ascii_digit).collect();
        if d.iter().all(|&c| c == b'0') {
            return Digits::zero();
        }
        Digits { d, dp: exp + 1 }.trimmed()
    }

    /// From Rust's `{:.N}` layout: `ddd.ddd`.
    fn from_fixed(s: &str) -> Digits {
        let (int, frac) = s.split_once('.').unwrap_or((s, ""));
        let mut d: Vec<u8> = int.bytes().chain(frac.bytes()).collect();
        let mut dp = int.len() as i32;
        let lead = d.iter().take_while(|&&c| c == b'0').count();
        if lead == d.len() {
            return Digits::zero();
        }
        d.drain(..lead);
        dp -= lead as i32;
        Digits { d, dp }.trimmed()
    }
}

/// Go's `strconv.FormatFloat(f, fmt, prec, 64)`: `fmt` is one of `b e E f g G x X`, `prec` the
/// precision (-1: the fewest digits that read back exactly).
pub fn format_float(f: f64, fmt: char, prec: i32) -> String {
    if !fmt.is_ascii() {
        return format!("%{fmt}");
    }
    format_float_impl(f, fmt as u8, prec)
}

fn format_float_impl(v: f64, fmt: u8, prec: i32) -> String {
    if v.is_nan() {
        return "NaN".to_string();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-Inf" } else { "+Inf" }.to_string();
    }
    let bits = v.to_bits();
    let neg = bits >> 63 != 0;
    let raw_exp = ((bits >> 52) & 0x7FF) as i32;
    let mut mant = bits & ((1u64 << 52) - 1);
    let mut exp = raw_exp;
    if raw_exp == 0 {
        exp += 1;
    } else {
        mant |= 1u64 << 52;
    }
    exp -= 1023;

    match fmt {
        b'b' => return fmt_b(neg, mant, exp),
        b'x' | b'X' => return fmt_x(prec, fmt, neg, mant, exp),
        _ => {}
    }
    if !matches!(fmt, b'e' | b'E' | b'f' | b'g' | b'G') {
        return format!("%{}", fmt as char);
    }
    let shortest = prec < 0;
    let a = v.abs();
    if mant == 0 {
        return format_digits(shortest, neg, &Digits::zero(), prec, fmt);
    }
    let mut prec = prec;
    let digs = if shortest {
        let digs = Digits::from_exp(&format!("{a:e}"));
        prec = match fmt {
            b'e' | b'E' => (digs.nd() - 1).max(0),
            b'f' => (digs.nd() - digs.dp).max(0),
            _ => digs.nd(),
        };
        digs
    } else {
        match fmt {
            b'f' => Digits::from_fixed(&format!("{:.*}", prec as usize, a)),
            b'e' | b'E' => Digits::from_exp(&format!("{:.*e}", prec as usize, a)),
            _ => {
                if prec == 0 {
                    prec = 1;
                }
                Digits::from_exp(&format!("{:.*e}", (prec - 1) as usize, a))
            }
        }
    };
    format_digits(shortest, neg, &digs, prec, fmt)
}

fn format_digits(shortest: bool, neg: bool, digs: &Digits, prec: i32, fmt: u8) -> String {
    match fmt {
        b'e' | b'E' => fmt_e(neg, digs, prec, fmt),
        b'f' => fmt_f(neg, digs, prec),
        _ => {
            let mut prec = prec;
            let mut eprec = prec;
            if eprec > digs.nd() && digs.nd() >= digs.dp {
                eprec = digs.nd();
            }
            if shortest {
                eprec = 6;
            }
            let exp = digs.dp - 1;
            if exp < -4 || exp >= eprec {
                if prec > digs.nd() {
                    prec = digs.nd();
                }
                return fmt_e(neg, digs, prec - 1, fmt + b'e' - b'g');
            }
            if prec > digs.dp {
                prec = digs.nd();
            }
            fmt_f(neg, digs, (prec - digs.dp).max(0))
        }
    }
}

fn fmt_e(neg: bool, d: &Digits, prec: i32, fmt: u8) -> String {
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    out.push(d.d.first().map_or('0', |&c| c as char));
    if prec > 0 {
        out.push('.');
        let m = (d.nd()).min(prec + 1) as usize;
        for &c in d.d.iter().take(m).skip(1) {
            out.push(c as char);
        }
        for _ in m.max(1)..=(prec as usize) {
            out.push('0');
        }
    }
    out.push(fmt as char);
    let mut exp = d.dp - 1;
    if d.d.is_empty() {
        exp = 0;
    }
    if exp < 0 {
        out.push('-');
        exp = -exp;
    } else {
        out.push('+');
    }
    if exp < 10 {
        out.push('0');
    }
    out.push_str(&exp.to_string());
    out
}

fn fmt_f(neg: bool, d: &Digits, prec: i32) -> String {
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if d.dp > 0 {
        let m = d.nd().min(d.dp) as usize;
        for &c in &d.d[..m] {
            out.push(c as char);
        }
        for _ in m..d.dp as usize {
            out.push('0');
        }
    } else {
        out.push('0');
    }
    if prec > 0 {
        out.push('.');
        for i in 0..prec {
            let j = d.dp + i;
            let c = if 0 <= j && j < d.nd() {
                d.d[j as usize]
            } else {
                b'0'
            };
            out.push(c as char);
        }
    }
    out
}

/// `%b`: `-ddddp±ddd`.
fn fmt_b(neg: bool, mant: u64, exp: i32) -> String {
    let e = exp - 52;
    format!(
        "{}{}p{}{}",
        if neg { "-" } else { "" },
        mant,
        if e >= 0 { "+" } else { "" },
        e
    )
}

/// `%x`: `-0x1.yyyyp±dd`.
fn fmt_x(prec: i32, fmt: u8, neg: bool, mut mant: u64, mut exp: i32) -> String {
    if mant == 0 {
        exp = 0;
    }
    mant <<= 60 - 52;
    while mant != 0 && mant & (1 << 60) == 0 {
        mant <<= 1;
        exp -= 1;
    }
    if (0..15).contains(&prec) {
        let shift = (prec * 4) as u32;
        let extra = (mant << shift) & ((1u64 << 60) - 1);
        mant >>= 60 - shift;
        if extra | (mant & 1) > 1 << 59 {
            mant += 1;
        }
        mant <<= 60 - shift;
        if mant & (1 << 61) != 0 {
            mant >>= 1;
            exp += 1;
        }
    }
    let hex: &[u8; 16] = if fmt == b'X' {
        b"0123456789ABCDEF"
    } else {
        LOWERHEX
    };
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    out.push('0');
    out.push(fmt as char);
    out.push((b'0' + ((mant >> 60) & 1) as u8) as char);
    mant <<= 4;
    if prec < 0 && mant != 0 {
        out.push('.');
        while mant != 0 {
            out.push(hex[((mant >> 60) & 15) as usize] as char);
            mant <<= 4;
        }
    } else if prec > 0 {
        out.push('.');
        for _ in 0..prec {
            out.push(hex[((mant >> 60) & 15) as usize] as char);
            mant <<= 4;
        }
    }
    out.push(if fmt == b'X' { 'P' } else { 'p' });
    if exp < 0 {
        out.push('-');
        exp = -exp;
    } else {
        out.push('+');
    }
    if exp < 10 {
        out.push('0');
    }
    out.push_str(&exp.to_string());
    out
}

// ---------------------------------------------------------------------------------------------

/// The ranges of runes Go 1.26's `strconv.IsPrint` accepts, inclusive. Generated by a Go program
/// looping over every rune and calling `strconv.IsPrint` (which agrees with `unicode.IsPrint`).
#[rustfmt::skip]
const PRINT_RANGES: &[(u32, u32)] = &[
(0x20, 0x7E),(0xA1, 0xAC),(0xAE, 0x377),(0x37A, 0x37F),(0x384, 0x38A),(0x38C, 0x38C),
(0x38E, 0x3A1),(0x3A3, 0x52F),(0x531, 0x556),(0x559, 0x58A),(0x58D, 0x58F),(0x591, 0x5C7),
(0x5D0, 0x5EA),(0x5EF, 0x5F4),(0x606, 0x61B),(0x61D, 0x6DC),(0x6DE, 0x70D),(0x710, 0x74A),
(0x74D, 0x7B1),(0x7C0, 0x7FA),(0x7FD, 0x82D),(0x830, 0x83E),(0x840, 0x85B),(0x85E, 0x85E),
(0x860, 0x86A),(0x870, 0x88E),(0x898, 0x8E1),(0x8E3, 0x983),(0x985, 0x98C),(0x98F, 0x990),
(0x993, 0x9A8),(0x9AA, 0x9B0),(0x9B2, 0x9B2),(0x9B6, 0x9B9),(0x9BC, 0x9C4),(0x9C7, 0x9C8),
(0x9CB, 0x9CE),(0x9D7, 0x9D7),(0x9DC, 0x9DD),(0x9DF, 0x9E3),(0x9E6, 0x9FE),(0xA01, 0xA03),
(0xA05, 0xA0A),(0xA0F, 0xA10),(0xA13, 0xA28),(0xA2A, 0xA30),(0xA32, 0xA33),(0xA35, 0xA36),
(0xA38, 0xA39),(0xA3C, 0xA3C),(0xA3E, 0xA42),(0xA47, 0xA48),(0xA4B, 0xA4D),(0xA51, 0xA51),
(0xA59, 0xA5C),(0xA5E, 0xA5E),(0xA66, 0xA76),(0xA81, 0xA83),(0xA85, 0xA8D),(0xA8F, 0xA91),
(0xA93, 0xAA8),(0xAAA, 0xAB0),(0xAB2, 0xAB3),(0xAB5, 0xAB9),(0xABC, 0xAC5),(0xAC7, 0xAC9),
(0xACB, 0xACD),(0xAD0, 0xAD0),(0xAE0, 0xAE3),(0xAE6, 0xAF1),(0xAF9, 0xAFF),(0xB01, 0xB03),
(0xB05, 0xB0C),(0xB0F, 0xB10),(0xB13, 0xB28),(0xB2A, 0xB30),(0xB32, 0xB33),(0xB35, 0xB39),
(0xB3C, 0xB44),(0xB47, 0xB48),(0xB4B, 0xB4D),(0xB55, 0xB57),(0xB5C, 0xB5D),(0xB5F, 0xB63),
(0xB66, 0xB77),(0xB82, 0xB83),(0xB85, 0xB8A),(0xB8E, 0xB90),(0xB92, 0xB95),(0xB99, 0xB9A),
(0xB9C, 0xB9C),(0xB9E, 0xB9F),(0xBA3, 0xBA4),(0xBA8, 0xBAA),(0xBAE, 0xBB9),(0xBBE, 0xBC2),
(0xBC6, 0xBC8),(0xBCA, 0xBCD),(0xBD0, 0xBD0),(0xBD7, 0xBD7),(0xBE6, 0xBFA),(0xC00, 0xC0C),
(0xC0E, 0xC10),(0xC12, 0xC28),(0xC2A, 0xC39),(0xC3C, 0xC44),(0xC46, 0xC48),(0xC4A, 0xC4D),
(0xC55, 0xC56),(0xC58, 0xC5A),(0xC5D, 0xC5D),(0xC60, 0xC63),(0xC66, 0xC6F),(0xC77, 0xC8C),
(0xC8E, 0xC90),(0xC92, 0xCA8),(0xCAA, 0xCB3),(0xCB5, 0xCB9),(0xCBC, 0xCC4),(0xCC6, 0xCC8),
(0xCCA, 0xCCD),(0xCD5, 0xCD6),(0xCDD, 0xCDE),(0xCE0, 0xCE3),(0xCE6, 0xCEF),(0xCF1, 0xCF3),
(0xD00, 0xD0C),(0xD0E, 0xD10),(0xD12, 0xD44),(0xD46, 0xD48),(0xD4A, 0xD4F),(0xD54, 0xD63),
(0xD66, 0xD7F),(0xD81, 0xD83),(0xD85, 0xD96),(0xD9A, 0xDB1),(0xDB3, 0xDBB),(0xDBD, 0xDBD),
(0xDC0, 0xDC6),(0xDCA, 0xDCA),(0xDCF, 0xDD4),(0xDD6, 0xDD6),(0xDD8, 0xDDF),(0xDE6, 0xDEF),
(0xDF2, 0xDF4),(0xE01, 0xE3A),(0xE3F, 0xE5B),(0xE81, 0xE82),(0xE84, 0xE84),(0xE86, 0xE8A),
(0xE8C, 0xEA3),(0xEA5, 0xEA5),(0xEA7, 0xEBD),(0xEC0, 0xEC4),(0xEC6, 0xEC6),(0xEC8, 0xECE),
(0xED0, 0xED9),(0xEDC, 0xEDF),(0xF00, 0xF47),(0xF49, 0xF6C),(0xF71, 0xF97),(0xF99, 0xFBC),
(0xFBE, 0xFCC),(0xFCE, 0xFDA),(0x1000, 0x10C5),(0x10C7, 0x10C7),(0x10CD, 0x10CD),(0x10D0, 0x1248),
(0x124A, 0x124D),(0x1250, 0x1256),(0x1258, 0x1258),(0x125A, 0x125D),(0x1260, 0x1288),(0x128A, 0x128D),
(0x1290, 0x12B0),(0x12B2, 0x12B5),(0x12B8, 0x12BE),(0x12C0, 0x12C0),(0x12C2, 0x12C5),(0x12C8, 0x12D6),
(0x12D8, 0x1310),(0x1312, 0x1315),(0x1318, 0x135A),(0x135D, 0x137C),(0x1380, 0x1399),(0x13A0, 0x13F5),
(0x13F8, 0x13FD),(0x1400, 0x167F),(0x1681, 0x169C),(0x16A0, 0x16F8),(0x1700, 0x1715),(0x171F, 0x1736),
(0x1740, 0x1753),(0x1760, 0x176C),(0x176E, 0x1770),(0x1772, 0x1773),(0x1780, 0x17DD),(0x17E0, 0x17E9),
(0x17F0, 0x17F9),(0x1800, 0x180D),(0x180F, 0x1819),(0x1820, 0x1878),(0x1880, 0x18AA),(0x18B0, 0x18F5),
(0x1900, 0x191E),(0x1920, 0x192B),(0x1930, 0x193B),(0x1940, 0x1940),(0x1944, 0x196D),(0x1970, 0x1974),
(0x1980, 0x19AB),(0x19B0, 0x19C9),(0x19D0, 0x19DA),(0x19DE, 0x1A1B),(0x1A1E, 0x1A5E),(0x1A60, 0x1A7C),
(0x1A7F, 0x1A89),(0x1A90, 0x1A99),(0x1AA0, 0x1AAD),(0x1AB0, 0x1ACE),(0x1B00, 0x1B4C),(0x1B50, 0x1B7E),
(0x1B80, 0x1BF3),(0x1BFC, 0x1C37),(0x1C3B, 0x1C49),(0x1C4D, 0x1C88),(0x1C90, 0x1CBA),(0x1CBD, 0x1CC7),
(0x1CD0, 0x1CFA),(0x1D00, 0x1F15),(0x1F18, 0x1F1D),(0x1F20, 0x1F45),(0x1F48, 0x1F4D),(0x1F50, 0x1F57),
(0x1F59, 0x1F59),(0x1F5B, 0x1F5B),(0x1F5D, 0x1F5D),(0x1F5F, 0x1F7D),(0x1F80, 0x1FB4),(0x1FB6, 0x1FC4),
(0x1FC6, 0x1FD3),(0x1FD6, 0x1FDB),(0x1FDD, 0x1FEF),(0x1FF2, 0x1FF4),(0x1FF6, 0x1FFE),(0x2010, 0x2027),
(0x2030, 0x205E),(0x2070, 0x2071),(0x2074, 0x208E),(0x2090, 0x209C),(0x20A0, 0x20C0),(0x20D0, 0x20F0),
(0x2100, 0x218B),(0x2190, 0x2426),(0x2440, 0x244A),(0x2460, 0x2B73),(0x2B76, 0x2B95),(0x2B97, 0x2CF3),
(0x2CF9, 0x2D25),(0x2D27, 0x2D27),(0x2D2D, 0x2D2D),(0x2D30, 0x2D67),(0x2D6F, 0x2D70),(0x2D7F, 0x2D96),
(0x2DA0, 0x2DA6),(0x2DA8, 0x2DAE),(0x2DB0, 0x2DB6),(0x2DB8, 0x2DBE),(0x2DC0, 0x2DC6),(0x2DC8, 0x2DCE),
(0x2DD0, 0x2DD6),(0x2DD8, 0x2DDE),(0x2DE0, 0x2E5D),(0x2E80, 0x2E99),(0x2E9B, 0x2EF3),(0x2F00, 0x2FD5),
(0x2FF0, 0x2FFB),(0x3001, 0x303F),(0x3041, 0x3096),(0x3099, 0x30FF),(0x3105, 0x312F),(0x3131, 0x318E),
(0x3190, 0x31E3),(0x31F0, 0x321E),(0x3220, 0xA48C),(0xA490, 0xA4C6),(0xA4D0, 0xA62B),(0xA640, 0xA6F7),
(0xA700, 0xA7CA),(0xA7D0, 0xA7D1),(0xA7D3, 0xA7D3),(0xA7D5, 0xA7D9),(0xA7F2, 0xA82C),(0xA830, 0xA839),
(0xA840, 0xA877),(0xA880, 0xA8C5),(0xA8CE, 0xA8D9),(0xA8E0, 0xA953),(0xA95F, 0xA97C),(0xA980, 0xA9CD),
(0xA9CF, 0xA9D9),(0xA9DE, 0xA9FE),(0xAA00, 0xAA36),(0xAA40, 0xAA4D),(0xAA50, 0xAA59),(0xAA5C, 0xAAC2),
(0xAADB, 0xAAF6),(0xAB01, 0xAB06),(0xAB09, 0xAB0E),(0xAB11, 0xAB16),(0xAB20, 0xAB26),(0xAB28, 0xAB2E),
(0xAB30, 0xAB6B),(0xAB70, 0xABED),(0xABF0, 0xABF9),(0xAC00, 0xD7A3),(0xD7B0, 0xD7C6),(0xD7CB, 0xD7FB),
(0xF900, 0xFA6D),(0xFA70, 0xFAD9),(0xFB00, 0xFB06),(0xFB13, 0xFB17),(0xFB1D, 0xFB36),(0xFB38, 0xFB3C),
(0xFB3E, 0xFB3E),(0xFB40, 0xFB41),(0xFB43, 0xFB44),(0xFB46, 0xFBC2),(0xFBD3, 0xFD8F),(0xFD92, 0xFDC7),
(0xFDCF, 0xFDCF),(0xFDF0, 0xFE19),(0xFE20, 0xFE52),(0xFE54, 0xFE66),(0xFE68, 0xFE6B),(0xFE70, 0xFE74),
(0xFE76, 0xFEFC),(0xFF01, 0xFFBE),(0xFFC2, 0xFFC7),(0xFFCA, 0xFFCF),(0xFFD2, 0xFFD7),(0xFFDA, 0xFFDC),
(0xFFE0, 0xFFE6),(0xFFE8, 0xFFEE),(0xFFFC, 0xFFFD),(0x10000, 0x1000B),(0x1000D, 0x10026),(0x10028, 0x1003A),
(0x1003C, 0x1003D),(0x1003F, 0x1004D),(0x10050, 0x1005D),(0x10080, 0x100FA),(0x10100, 0x10102),(0x10107, 0x10133),
(0x10137, 0x1018E),(0x10190, 0x1019C),(0x101A0, 0x101A0),(0x101D0, 0x101FD),(0x10280, 0x1029C),(0x102A0, 0x102D0),
(0x102E0, 0x102FB),(0x10300, 0x10323),(0x1032D, 0x1034A),(0x10350, 0x1037A),(0x10380, 0x1039D),(0x1039F, 0x103C3),
(0x103C8, 0x103D5),(0x10400, 0x1049D),(0x104A0, 0x104A9),(0x104B0, 0x104D3),(0x104D8, 0x104FB),(0x10500, 0x10527),
(0x10530, 0x10563),(0x1056F, 0x1057A),(0x1057C, 0x1058A),(0x1058C, 0x10592),(0x10594, 0x10595),(0x10597, 0x105A1),
(0x105A3, 0x105B1),(0x105B3, 0x105B9),(0x105BB, 0x105BC),(0x10600, 0x10736),(0x10740, 0x10755),(0x10760, 0x10767),
(0x10780, 0x10785),(0x10787, 0x107B0),(0x107B2, 0x107BA),(0x10800, 0x10805),(0x10808, 0x10808),(0x1080A, 0x10835),
(0x10837, 0x10838),(0x1083C, 0x1083C),(0x1083F, 0x10855),(0x10857, 0x1089E),(0x108A7, 0x108AF),(0x108E0, 0x108F2),
(0x108F4, 0x108F5),(0x108FB, 0x1091B),(0x1091F, 0x10939),(0x1093F, 0x1093F),(0x10980, 0x109B7),(0x109BC, 0x109CF),
(0x109D2, 0x10A03),(0x10A05, 0x10A06),(0x10A0C, 0x10A13),(0x10A15, 0x10A17),(0x10A19, 0x10A35),(0x10A38, 0x10A3A),
(0x10A3F, 0x10A48),(0x10A50, 0x10A58),(0x10A60, 0x10A9F),(0x10AC0, 0x10AE6),(0x10AEB, 0x10AF6),(0x10B00, 0x10B35),
(0x10B39, 0x10B55),(0x10B58, 0x10B72),(0x10B78, 0x10B91),(0x10B99, 0x10B9C),(0x10BA9, 0x10BAF),(0x10C00, 0x10C48),
(0x10C80, 0x10CB2),(0x10CC0, 0x10CF2),(0x10CFA, 0x10D27),(0x10D30, 0x10D39),(0x10E60, 0x10E7E),(0x10E80, 0x10EA9),
(0x10EAB, 0x10EAD),(0x10EB0, 0x10EB1),(0x10EFD, 0x10F27),(0x10F30, 0x10F59),(0x10F70, 0x10F89),(0x10FB0, 0x10FCB),
(0x10FE0, 0x10FF6),(0x11000, 0x1104D),(0x11052, 0x11075),(0x1107F, 0x110BC),(0x110BE, 0x110C2),(0x110D0, 0x110E8),
(0x110F0, 0x110F9),(0x11100, 0x11134),(0x11136, 0x11147),(0x11150, 0x11176),(0x11180, 0x111DF),(0x111E1, 0x111F4),
(0x11200, 0x11211),(0x11213, 0x11241),(0x11280, 0x11286),(0x11288, 0x11288),(0x1128A, 0x1128D),(0x1128F, 0x1129D),
(0x1129F, 0x112A9),(0x112B0, 0x112EA),(0x112F0, 0x112F9),(0x11300, 0x11303),(0x11305, 0x1130C),(0x1130F, 0x11310),
(0x11313, 0x11328),(0x1132A, 0x11330),(0x11332, 0x11333),(0x11335, 0x11339),(0x1133B, 0x11344),(0x11347, 0x11348),
(0x1134B, 0x1134D),(0x11350, 0x11350),(0x11357, 0x11357),(0x1135D, 0x11363),(0x11366, 0x1136C),(0x11370, 0x11374),
(0x11400, 0x1145B),(0x1145D, 0x11461),(0x11480, 0x114C7),(0x114D0, 0x114D9),(0x11580, 0x115B5),(0x115B8, 0x115DD),
(0x11600, 0x11644),(0x11650, 0x11659),(0x11660, 0x1166C),(0x11680, 0x116B9),(0x116C0, 0x116C9),(0x11700, 0x1171A),
(0x1171D, 0x1172B),(0x11730, 0x11746),(0x11800, 0x1183B),(0x118A0, 0x118F2),(0x118FF, 0x11906),(0x11909, 0x11909),
(0x1190C, 0x11913),(0x11915, 0x11916),(0x11918, 0x11935),(0x11937, 0x11938),(0x1193B, 0x11946),(0x11950, 0x11959),
(0x119A0, 0x119A7),(0x119AA, 0x119D7),(0x119DA, 0x119E4),(0x11A00, 0x11A47),(0x11A50, 0x11AA2),(0x11AB0, 0x11AF8),
(0x11B00, 0x11B09),(0x11C00, 0x11C08),(0x11C0A, 0x11C36),(0x11C38, 0x11C45),(0x11C50, 0x11C6C),(0x11C70, 0x11C8F),
(0x11C92, 0x11CA7),(0x11CA9, 0x11CB6),(0x11D00, 0x11D06),(0x11D08, 0x11D09),(0x11D0B, 0x11D36),(0x11D3A, 0x11D3A),
(0x11D3C, 0x11D3D),(0x11D3F, 0x11D47),(0x11D50, 0x11D59),(0x11D60, 0x11D65),(0x11D67, 0x11D68),(0x11D6A, 0x11D8E),
(0x11D90, 0x11D91),(0x11D93, 0x11D98),(0x11DA0, 0x11DA9),(0x11EE0, 0x11EF8),(0x11F00, 0x11F10),(0x11F12, 0x11F3A),
(0x11F3E, 0x11F59),(0x11FB0, 0x11FB0),(0x11FC0, 0x11FF1),(0x11FFF, 0x12399),(0x12400, 0x1246E),(0x12470, 0x12474),
(0x12480, 0x12543),(0x12F90, 0x12FF2),(0x13000, 0x1342F),(0x13440, 0x13455),(0x14400, 0x14646),(0x16800, 0x16A38),
(0x16A40, 0x16A5E),(0x16A60, 0x16A69),(0x16A6E, 0x16ABE),(0x16AC0, 0x16AC9),(0x16AD0, 0x16AED),(0x16AF0, 0x16AF5),
(0x16B00, 0x16B45),(0x16B50, 0x16B59),(0x16B5B, 0x16B61),(0x16B63, 0x16B77),(0x16B7D, 0x16B8F),(0x16E40, 0x16E9A),
(0x16F00, 0x16F4A),(0x16F4F, 0x16F87),(0x16F8F, 0x16F9F),(0x16FE0, 0x16FE4),(0x16FF0, 0x16FF1),(0x17000, 0x187F7),
(0x18800, 0x18CD5),(0x18D00, 0x18D08),(0x1AFF0, 0x1AFF3),(0x1AFF5, 0x1AFFB),(0x1AFFD, 0x1AFFE),(0x1B000, 0x1B122),
(0x1B132, 0x1B132),(0x1B150, 0x1B152),(0x1B155, 0x1B155),(0x1B164, 0x1B167),(0x1B170, 0x1B2FB),(0x1BC00, 0x1BC6A),
(0x1BC70, 0x1BC7C),(0x1BC80, 0x1BC88),(0x1BC90, 0x1BC99),(0x1BC9C, 0x1BC9F),(0x1CF00, 0x1CF2D),(0x1CF30, 0x1CF46),
(0x1CF50, 0x1CFC3),(0x1D000, 0x1D0F5),(0x1D100, 0x1D126),(0x1D129, 0x1D172),(0x1D17B, 0x1D1EA),(0x1D200, 0x1D245),
(0x1D2C0, 0x1D2D3),(0x1D2E0, 0x1D2F3),(0x1D300, 0x1D356),(0x1D360, 0x1D378),(0x1D400, 0x1D454),(0x1D456, 0x1D49C),
(0x1D49E, 0x1D49F),(0x1D4A2, 0x1D4A2),(0x1D4A5, 0x1D4A6),(0x1D4A9, 0x1D4AC),(0x1D4AE, 0x1D4B9),(0x1D4BB, 0x1D4BB),
(0x1D4BD, 0x1D4C3),(0x1D4C5, 0x1D505),(0x1D507, 0x1D50A),(0x1D50D, 0x1D514),(0x1D516, 0x1D51C),(0x1D51E, 0x1D539),
(0x1D53B, 0x1D53E),(0x1D540, 0x1D544),(0x1D546, 0x1D546),(0x1D54A, 0x1D550),(0x1D552, 0x1D6A5),(0x1D6A8, 0x1D7CB),
(0x1D7CE, 0x1DA8B),(0x1DA9B, 0x1DA9F),(0x1DAA1, 0x1DAAF),(0x1DF00, 0x1DF1E),(0x1DF25, 0x1DF2A),(0x1E000, 0x1E006),
(0x1E008, 0x1E018),(0x1E01B, 0x1E021),(0x1E023, 0x1E024),(0x1E026, 0x1E02A),(0x1E030, 0x1E06D),(0x1E08F, 0x1E08F),
(0x1E100, 0x1E12C),(0x1E130, 0x1E13D),(0x1E140, 0x1E149),(0x1E14E, 0x1E14F),(0x1E290, 0x1E2AE),(0x1E2C0, 0x1E2F9),
(0x1E2FF, 0x1E2FF),(0x1E4D0, 0x1E4F9),(0x1E7E0, 0x1E7E6),(0x1E7E8, 0x1E7EB),(0x1E7ED, 0x1E7EE),(0x1E7F0, 0x1E7FE),
(0x1E800, 0x1E8C4),(0x1E8C7, 0x1E8D6),(0x1E900, 0x1E94B),(0x1E950, 0x1E959),(0x1E95E, 0x1E95F),(0x1EC71, 0x1ECB4),
(0x1ED01, 0x1ED3D),(0x1EE00, 0x1EE03),(0x1EE05, 0x1EE1F),(0x1EE21, 0x1EE22),(0x1EE24, 0x1EE24),(0x1EE27, 0x1EE27),
(0x1EE29, 0x1EE32),(0x1EE34, 0x1EE37),(0x1EE39, 0x1EE39),(0x1EE3B, 0x1EE3B),(0x1EE42, 0x1EE42),(0x1EE47, 0x1EE47),
(0x1EE49, 0x1EE49),(0x1EE4B, 0x1EE4B),(0x1EE4D, 0x1EE4F),(0x1EE51, 0x1EE52),(0x1EE54, 0x1EE54),(0x1EE57, 0x1EE57),
(0x1EE59, 0x1EE59),(0x1EE5B, 0x1EE5B),(0x1EE5D, 0x1EE5D),(0x1EE5F, 0x1EE5F),(0x1EE61, 0x1EE62),(0x1EE64, 0x1EE64),
(0x1EE67, 0x1EE6A),(0x1EE6C, 0x1EE72),(0x1EE74, 0x1EE77),(0x1EE79, 0x1EE7C),(0x1EE7E, 0x1EE7E),(0x1EE80, 0x1EE89),
(0x1EE8B, 0x1EE9B),(0x1EEA1, 0x1EEA3),(0x1EEA5, 0x1EEA9),(0x1EEAB, 0x1EEBB),(0x1EEF0, 0x1EEF1),(0x1F000, 0x1F02B),
(0x1F030, 0x1F093),(0x1F0A0, 0x1F0AE),(0x1F0B1, 0x1F0BF),(0x1F0C1, 0x1F0CF),(0x1F0D1, 0x1F0F5),(0x1F100, 0x1F1AD),
(0x1F1E6, 0x1F202),(0x1F210, 0x1F23B),(0x1F240, 0x1F248),(0x1F250, 0x1F251),(0x1F260, 0x1F265),(0x1F300, 0x1F6D7),
(0x1F6DC, 0x1F6EC),(0x1F6F0, 0x1F6FC),(0x1F700, 0x1F776),(0x1F77B, 0x1F7D9),(0x1F7E0, 0x1F7EB),(0x1F7F0, 0x1F7F0),
(0x1F800, 0x1F80B),(0x1F810, 0x1F847),(0x1F850, 0x1F859),(0x1F860, 0x1F887),(0x1F890, 0x1F8AD),(0x1F8B0, 0x1F8B1),
(0x1F900, 0x1FA53),(0x1FA60, 0x1FA6D),(0x1FA70, 0x1FA7C),(0x1FA80, 0x1FA88),(0x1FA90, 0x1FABD),(0x1FABF, 0x1FAC5),
(0x1FACE, 0x1FADB),(0x1FAE0, 0x1FAE8),(0x1FAF0, 0x1FAF8),(0x1FB00, 0x1FB92),(0x1FB94, 0x1FBCA),(0x1FBF0, 0x1FBF9),
(0x20000, 0x2A6DF),(0x2A700, 0x2B739),(0x2B740, 0x2B81D),(0x2B820, 0x2CEA1),(0x2CEB0, 0x2EBE0),(0x2F800, 0x2FA1D),
(0x30000, 0x3134A),(0x31350, 0x323AF),(0xE0100, 0xE01EF),
];
