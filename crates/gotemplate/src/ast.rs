//! The parse tree, shaped like Go's `text/template/parse` nodes.
//!
//! Every node keeps its byte offset (`pos`) in the text it was parsed from; with the tree's text
//! that gives Go's `name:line:col` error locations. `Display` prints a node the way Go's
//! `Node.String()` does, which is what error messages show as `at <...>`.

use std::fmt::{self, Write as _};
use std::rc::Rc;

use crate::strconv;

/// A byte offset into the template text.
pub type Pos = usize;

pub(crate) use crate::stack::{RED_ZONE, STACK_GROW};

/// One parsed template: a top-level text or a `define`/`block` body.
#[derive(Debug)]
pub struct Tree {
    /// The template's name.
    pub name: Rc<str>,
    /// The name given to the parse that produced it (the file), used in error locations.
    pub parse_name: Rc<str>,
    /// The whole text that was parsed (shared by all trees of one parse).
    pub text: Rc<str>,
    pub root: ListNode,
}

impl Tree {
    /// Go's `ErrorContext` location for `pos`: 1-based line, 0-based byte column.
    pub fn line_col(&self, pos: Pos) -> (usize, usize) {
        let pos = pos.min(self.text.len());
        let before = &self.text.as_bytes()[..pos];
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
        let col = match before.iter().rposition(|&b| b == b'\n') {
            Some(nl) => pos - (nl + 1),
            None => pos,
        };
        (line, col)
    }

    /// Go's `IsEmptyTree`: nothing but spaces (and comments, which are not kept).
    pub fn is_empty(&self) -> bool {
        self.root.is_empty_tree()
    }
}

/// A sequence of nodes.
#[derive(Debug, Default)]
pub struct ListNode {
    pub pos: Pos,
    pub nodes: Vec<Node>,
}

impl ListNode {
    pub(crate) fn is_empty_tree(&self) -> bool {
        self.nodes.iter().all(|n| match n {
            Node::Text(t) => t.text.trim().is_empty(),
            _ => false,
        })
    }
}

/// Deeply nested trees must not overflow the stack when dropped.
impl Drop for ListNode {
    fn drop(&mut self) {
        if !self.nodes.is_empty() {
            let nodes = std::mem::take(&mut self.nodes);
            stacker::maybe_grow(RED_ZONE, STACK_GROW, move || drop(nodes));
        }
    }
}

/// A statement-level node.
#[derive(Debug)]
pub enum Node {
    Text(TextNode),
    /// A non-control action such as `{{.x}}` or `{{$x := 1}}`.
    Action(ActionNode),
    If(BranchNode),
    Range(BranchNode),
    With(BranchNode),
    Template(TemplateNode),
    Break(ControlNode),
    Continue(ControlNode),
}

impl Node {
    pub fn pos(&self) -> Pos {
        match self {
            Node::Text(n) => n.pos,
            Node::Action(n) => n.pos,
            Node::If(n) | Node::Range(n) | Node::With(n) => n.pos,
            Node::Template(n) => n.pos,
            Node::Break(n) | Node::Continue(n) => n.pos,
        }
    }
}

#[derive(Debug)]
pub struct TextNode {
    pub pos: Pos,
    pub text: Box<str>,
}

#[derive(Debug)]
pub struct ActionNode {
    pub pos: Pos,
    pub line: usize,
    pub pipe: PipeNode,
}

/// `{{break}}` or `{{continue}}`.
#[derive(Debug)]
pub struct ControlNode {
    pub pos: Pos,
    pub line: usize,
}

/// The shared shape of `if`, `range` and `with`.
#[derive(Debug)]
pub struct BranchNode {
    pub pos: Pos,
    pub line: usize,
    pub pipe: PipeNode,
    pub list: ListNode,
    /// `{{else}}` part; `{{else if}}` and `{{else with}}` are a nested node in here, as in Go.
    pub else_list: Option<ListNode>,
}

/// `{{template "name" pipeline}}` (also what `{{block}}` leaves in place).
#[derive(Debug)]
pub struct TemplateNode {
    pub pos: Pos,
    pub line: usize,
    pub name: Rc<str>,
    pub pipe: Option<PipeNode>,
}

/// A pipeline with optional variable declarations (`$x :=`) or assignments (`$x =`).
#[derive(Debug)]
pub struct PipeNode {
    pub pos: Pos,
    pub line: usize,
    pub is_assign: bool,
    pub decl: Vec<VariableNode>,
    pub cmds: Vec<CommandNode>,
}

impl Drop for PipeNode {
    fn drop(&mut self) {
        if !self.cmds.is_empty() {
            let cmds = std::mem::take(&mut self.cmds);
            stacker::maybe_grow(RED_ZONE, STACK_GROW, move || drop(cmds));
        }
    }
}

/// One stage of a pipeline: an operand possibly followed by arguments.
#[derive(Debug)]
pub struct CommandNode {
    pub pos: Pos,
    pub args: Vec<Operand>,
}

/// What can appear as a word in a command.
#[derive(Debug)]
pub enum Operand {
    /// `.a.b`: the idents without their dots.
    Field(FieldNode),
    /// `(pipeline).a.b` or `fn.a`.
    Chain(ChainNode),
    /// `$x.a.b`: the first ident includes the `$`.
    Variable(VariableNode),
    Dot(Pos),
    Nil(Pos),
    Bool(Pos, bool),
    Number(Box<NumberNode>),
    String(StringNode),
    /// A function name.
    Identifier(IdentifierNode),
    /// A parenthesized pipeline.
    Pipe(Box<PipeNode>),
}

impl Operand {
    pub fn pos(&self) -> Pos {
        match self {
            Operand::Field(n) => n.pos,
            Operand::Chain(n) => n.pos,
            Operand::Variable(n) => n.pos,
            Operand::Dot(p) | Operand::Nil(p) | Operand::Bool(p, _) => *p,
            Operand::Number(n) => n.pos,
            Operand::String(n) => n.pos,
            Operand::Identifier(n) => n.pos,
            Operand::Pipe(n) => n.pos,
        }
    }
}

#[derive(Debug)]
pub struct FieldNode {
    pub pos: Pos,
    pub ident: Vec<Box<str>>,
}

#[derive(Debug)]
pub struct ChainNode {
    pub pos: Pos,
    pub node: Box<Operand>,
    pub field: Vec<Box<str>>,
}

#[derive(Debug)]
pub struct VariableNode {
    pub pos: Pos,
    pub ident: Vec<Box<str>>,
}

#[derive(Debug)]
pub struct IdentifierNode {
    pub pos: Pos,
    pub ident: Box<str>,
}

#[derive(Debug)]
pub struct StringNode {
    pub pos: Pos,
    /// The literal as written, quotes included.
    pub quoted: Box<str>,
    /// The value after unquoting.
    pub text: crate::Str,
}

/// A numeric constant under every interpretation that represents it exactly, like Go's
/// `NumberNode` (a stand-in for Go's untyped constants).
#[derive(Debug, Clone, PartialEq)]
pub struct NumberNode {
    pub pos: Pos,
    pub is_int: bool,
    pub is_uint: bool,
    pub is_float: bool,
    pub is_complex: bool,
    pub int64: i64,
    pub uint64: u64,
    pub float64: f64,
    /// Real and imaginary parts.
    pub complex128: (f64, f64),
    /// The literal as written.
    pub text: Box<str>,
}

/// Why a number literal is not one (Go's `newNumber`), in Go's words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NumberError {
    #[error("illegal number syntax: {}", strconv::quote(.text))]
    Syntax { text: String },
    #[error("integer overflow: {}", strconv::quote(.text))]
    Overflow { text: String },
    /// Go's `strconv.UnquoteChar` refused the literal; its message is Go's.
    #[error("{message}")]
    CharConstant { message: String },
}

const TWO_63: f64 = 9_223_372_036_854_775_808.0;
const TWO_64: f64 = 18_446_744_073_709_551_616.0;

impl NumberNode {
    /// Go's `newNumber`; `char_constant` for `'x'` literals and `complex` for `1+2i`.
    pub fn new(
        pos: Pos,
        text: &str,
        char_constant: bool,
        complex: bool,
    ) -> Result<NumberNode, NumberError> {
        let mut n = NumberNode {
            pos,
            is_int: false,
            is_uint: false,
            is_float: false,
            is_complex: false,
            int64: 0,
            uint64: 0,
            float64: 0.0,
            complex128: (0.0, 0.0),
            text: text.into(),
        };
        if char_constant {
            let r =
                strconv::unquote_char_constant(text).map_err(|e| NumberError::CharConstant {
                    message: e.unwrap_or_else(|| "invalid syntax".to_string()),
                })?;
            n.int64 = i64::from(r);
            n.uint64 = u64::from(r);
            n.float64 = f64::from(r);
            n.is_int = true;
            n.is_uint = true;
            n.is_float = true;
            return Ok(n);
        }
        if complex {
            let (re, im) =
                parse_complex(text).ok_or_else(|| NumberError::Syntax { text: text.into() })?;
            n.is_complex = true;
            n.complex128 = (re, im);
            n.simplify_complex();
            return Ok(n);
        }
        if let Some(body) = text.strip_suffix('i')
            && let Some(f) = strconv::parse_float(body)
        {
            n.is_complex = true;
            n.complex128 = (0.0, f);
            n.simplify_complex();
            return Ok(n);
        }
        let u = strconv::parse_uint(text);
        if let Some(u) = u {
            n.is_uint = true;
            n.uint64 = u;
        }
        if let Some(i) = strconv::parse_int(text) {
            n.is_int = true;
            n.int64 = i;
            if i == 0 {
                // -0 is an unsigned zero too.
                n.is_uint = true;
                n.uint64 = 0;
            }
        }
        if n.is_int {
            n.is_float = true;
            n.float64 = n.int64 as f64;
        } else if n.is_uint {
            n.is_float = true;
            n.float64 = n.uint64 as f64;
        } else if let Some(f) = strconv::parse_float(text) {
            // Parsed as a float but looks like an integer: too big for an integer type.
            if !text.contains(['.', 'e', 'E', 'p', 'P']) {
                return Err(NumberError::Overflow { text: text.into() });
            }
            n.is_float = true;
            n.float64 = f;
            n.set_integers_from_float();
        }
        if !n.is_int && !n.is_uint && !n.is_float {
            return Err(NumberError::Syntax { text: text.into() });
        }
        Ok(n)
    }

    /// Go tests `float64(int64(f)) == f`; the explicit ranges give the same answers without
    /// relying on how out-of-range conversions behave.
    fn set_integers_from_float(&mut self) {
        let f = self.float64;
        let integral = f.is_finite() && f.fract() == 0.0;
        if !self.is_int && integral && (-TWO_63..TWO_63).contains(&f) {
            self.is_int = true;
            self.int64 = f as i64;
        }
        if !self.is_uint && integral && (0.0..TWO_64).contains(&f.abs()) && (f >= 0.0 || f == 0.0) {
            self.is_uint = true;
            self.uint64 = f as u64;
        }
    }

    fn simplify_complex(&mut self) {
        self.is_float = self.complex128.1 == 0.0;
        if self.is_float {
            self.float64 = self.complex128.0;
            self.set_integers_from_float();
        }
    }
}

/// `1+2i` as `fmt.Sscan` reads it for the parser.
fn parse_complex(text: &str) -> Option<(f64, f64)> {
    let body = text.strip_suffix('i')?;
    let b = body.as_bytes();
    // The sign that starts the imaginary part: not the leading one, not an exponent's.
    let split = (1..b.len())
        .rev()
        .find(|&i| matches!(b[i], b'+' | b'-') && !matches!(b[i - 1] | 0x20, b'e' | b'p'))?;
    let re = strconv::parse_float(&body[..split])?;
    let im = strconv::parse_float(&body[split..])?;
    Some((re, im))
}

// Go's String() forms.

impl fmt::Display for ListNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for n in &self.nodes {
            write!(f, "{n}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Node::Text(t) => f.write_str(&t.text),
            Node::Action(a) => write!(f, "{{{{{}}}}}", a.pipe),
            Node::If(b) => b.write(f, "if"),
            Node::Range(b) => b.write(f, "range"),
            Node::With(b) => b.write(f, "with"),
            Node::Template(t) => {
                write!(f, "{{{{template {}", strconv::quote(&t.name))?;
                if let Some(p) = &t.pipe {
                    write!(f, " {p}")?;
                }
                f.write_str("}}")
            }
            Node::Break(_) => f.write_str("{{break}}"),
            Node::Continue(_) => f.write_str("{{continue}}"),
        }
    }
}

impl BranchNode {
    fn write(&self, f: &mut fmt::Formatter<'_>, name: &str) -> fmt::Result {
        stacker::maybe_grow(RED_ZONE, STACK_GROW, || {
            write!(f, "{{{{{name} {}}}}}{}", self.pipe, self.list)?;
            if let Some(e) = &self.else_list {
                write!(f, "{{{{else}}}}{e}")?;
            }
            f.write_str("{{end}}")
        })
    }
}

impl fmt::Display for PipeNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        stacker::maybe_grow(RED_ZONE, STACK_GROW, || {
            if !self.decl.is_empty() {
                for (i, v) in self.decl.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str(if self.is_assign { " = " } else { " := " })?;
            }
            for (i, c) in self.cmds.iter().enumerate() {
                if i > 0 {
                    f.write_str(" | ")?;
                }
                write!(f, "{c}")?;
            }
            Ok(())
        })
    }
}

impl fmt::Display for CommandNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, arg) in self.args.iter().enumerate() {
            if i > 0 {
                f.write_char(' ')?;
            }
            match arg {
                Operand::Pipe(p) => write!(f, "({p})")?,
                _ => write!(f, "{arg}")?,
            }
        }
        Ok(())
    }
}

fn write_joined(f: &mut fmt::Formatter<'_>, lead: &str, idents: &[Box<str>]) -> fmt::Result {
    for id in idents {
        f.write_str(lead)?;
        f.write_str(id)?;
    }
    Ok(())
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Field(n) => write_joined(f, ".", &n.ident),
            Operand::Chain(n) => {
                match &*n.node {
                    Operand::Pipe(p) => write!(f, "({p})")?,
                    other => write!(f, "{other}")?,
                }
                write_joined(f, ".", &n.field)
            }
            Operand::Variable(n) => write!(f, "{n}"),
            Operand::Dot(_) => f.write_str("."),
            Operand::Nil(_) => f.write_str("nil"),
            Operand::Bool(_, b) => write!(f, "{b}"),
            Operand::Number(n) => f.write_str(&n.text),
            Operand::String(s) => f.write_str(&s.quoted),
            Operand::Identifier(i) => f.write_str(&i.ident),
            Operand::Pipe(p) => write!(f, "{p}"),
        }
    }
}

impl fmt::Display for VariableNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, id) in self.ident.iter().enumerate() {
            if i > 0 {
                f.write_char('.')?;
            }
            f.write_str(id)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(text: &str) -> Result<NumberNode, String> {
        let complex = text.ends_with('i') && text[1..].contains(['+', '-']);
        NumberNode::new(0, text, text.starts_with('\''), complex).map_err(|e| e.to_string())
    }

    /// Go's parse_test.go numberTests: which interpretations each literal has.
    #[test]
    fn number_interpretations() {
        // text, is_int, is_uint, is_float, is_complex, int, uint, float, complex
        type Row = (
            &'static str,
            bool,
            bool,
            bool,
            bool,
            i64,
            u64,
            f64,
            (f64, f64),
        );
        const Z: (f64, f64) = (0.0, 0.0);
        let rows: &[Row] = &[
            ("0", true, true, true, false, 0, 0, 0.0, Z),
            ("-0", true, true, true, false, 0, 0, 0.0, Z),
            ("73", true, true, true, false, 73, 73, 73.0, Z),
            ("7_3", true, true, true, false, 73, 73, 73.0, Z),
            ("0b10_010_01", true, true, true, false, 73, 73, 73.0, Z),
            ("0B10_010_01", true, true, true, false, 73, 73, 73.0, Z),
            ("073", true, true, true, false, 59, 59, 59.0, Z),
            ("0o73", true, true, true, false, 59, 59, 59.0, Z),
            ("0O73", true, true, true, false, 59, 59, 59.0, Z),
            ("0x73", true, true, true, false, 115, 115, 115.0, Z),
            ("0X73", true, true, true, false, 115, 115, 115.0, Z),
            ("0x7_3", true, true, true, false, 115, 115, 115.0, Z),
            ("-73", true, false, true, false, -73, 0, -73.0, Z),
            ("+73", true, false, true, false, 73, 0, 73.0, Z),
            ("100", true, true, true, false, 100, 100, 100.0, Z),
            (
                "1e9",
                true,
                true,
                true,
                false,
                1_000_000_000,
                1_000_000_000,
                1e9,
                Z,
            ),
            ("-1e9", true, false, true, false, -1_000_000_000, 0, -1e9, Z),
            ("-1.2", false, false, true, false, 0, 0, -1.2, Z),
            (
                "1e19",
                false,
                true,
                true,
                false,
                0,
                10_000_000_000_000_000_000,
                1e19,
                Z,
            ),
            (
                "1e1_9",
                false,
                true,
                true,
                false,
                0,
                10_000_000_000_000_000_000,
                1e19,
                Z,
            ),
            (
                "1E19",
                false,
                true,
                true,
                false,
                0,
                10_000_000_000_000_000_000,
                1e19,
                Z,
            ),
            ("-1e19", false, false, true, false, 0, 0, -1e19, Z),
            ("0x_1p4", true, true, true, false, 16, 16, 16.0, Z),
            ("0X_1P4", true, true, true, false, 16, 16, 16.0, Z),
            ("0x_1p-4", false, false, true, false, 0, 0, 1.0 / 16.0, Z),
            ("4i", false, false, false, true, 0, 0, 0.0, (0.0, 4.0)),
            (
                "-1.2+4.2i",
                false,
                false,
                false,
                true,
                0,
                0,
                0.0,
                (-1.2, 4.2),
            ),
            ("073i", false, false, false, true, 0, 0, 0.0, (0.0, 73.0)),
            ("0i", true, true, true, true, 0, 0, 0.0, Z),
            ("-1.2+0i", false, false, true, true, 0, 0, -1.2, (-1.2, 0.0)),
            (
                "-12+0i",
                true,
                false,
                true,
                true,
                -12,
                0,
                -12.0,
                (-12.0, 0.0),
            ),
            ("13+0i", true, true, true, true, 13, 13, 13.0, (13.0, 0.0)),
            ("0123", true, true, true, false, 83, 83, 83.0, Z),
            ("-0x0", true, true, true, false, 0, 0, 0.0, Z),
            (
                "0xdeadbeef",
                true,
                true,
                true,
                false,
                0xdeadbeef,
                0xdeadbeef,
                3735928559.0,
                Z,
            ),
            ("'a'", true, true, true, false, 97, 97, 97.0, Z),
            ("'\\n'", true, true, true, false, 10, 10, 10.0, Z),
            ("'\\\\'", true, true, true, false, 92, 92, 92.0, Z),
            ("'\\''", true, true, true, false, 39, 39, 39.0, Z),
            ("'\\xFF'", true, true, true, false, 255, 255, 255.0, Z),
            ("'パ'", true, true, true, false, 0x30d1, 0x30d1, 12497.0, Z),
            (
                "'\\u30d1'",
                true,
                true,
                true,
                false,
                0x30d1,
                0x30d1,
                12497.0,
                Z,
            ),
            (
                "'\\U000030d1'",
                true,
                true,
                true,
                false,
                0x30d1,
                0x30d1,
                12497.0,
                Z,
            ),
            ("0xef", true, true, true, false, 0xef, 0xef, 239.0, Z),
        ];
        for &(text, is_int, is_uint, is_float, is_complex, i, u, f, c) in rows {
            let n = num(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(
                (n.is_int, n.is_uint, n.is_float, n.is_complex),
                (is_int, is_uint, is_float, is_complex),
                "{text}"
            );
            if is_int {
                assert_eq!(n.int64, i, "{text}");
            }
            if is_uint {
                assert_eq!(n.uint64, u, "{text}");
            }
            if is_float {
                assert_eq!(n.float64, f, "{text}");
            }
            if is_complex {
                assert_eq!(n.complex128, c, "{text}");
            }
        }
        for bad in [
            "+-2",
            "0x123.",
            "1e.",
            "0xi.",
            "1+2.",
            "'x",
            "'xx'",
            "'433937734937734969526500969526500'",
        ] {
            assert!(num(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn number_errors() {
        assert_eq!(num("089").unwrap_err(), "integer overflow: \"089\"");
        assert_eq!(
            num("18446744073709551616").unwrap_err(),
            "integer overflow: \"18446744073709551616\""
        );
        assert_eq!(
            num("1e400").unwrap_err(),
            "illegal number syntax: \"1e400\""
        );
        assert_eq!(
            num("'ab'").unwrap_err(),
            "malformed character constant: 'ab'"
        );
        assert_eq!(num("'\\q'").unwrap_err(), "invalid syntax");
        assert_eq!(
            NumberNode::new(0, "089", false, false).err(),
            Some(NumberError::Overflow { text: "089".into() })
        );
        let c = NumberNode::new(0, "1+2i", false, true).unwrap();
        assert!(c.is_complex && !c.is_float);
        assert_eq!(c.complex128, (1.0, 2.0));
        let c = NumberNode::new(0, "1e3-0i", false, true).unwrap();
        assert!(c.is_complex && c.is_int && c.int64 == 1000);
    }
}
