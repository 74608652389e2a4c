//! The parser: Go's `text/template/parse` recursive descent, with its three-token lookahead and
//! its error messages.
//!
//! Some of Go's error texts depend on lookahead details (which token was read last decides the
//! reported line), so the token buffer works exactly like Go's. A `define` or `block` body is
//! parsed with a fresh per-tree state over the same lexer, as Go parses it into a new `Tree`.

use crate::{HashMap, HashSet};
use std::borrow::Cow;
use std::fmt;
use std::rc::Rc;

use crate::ast::*;
use crate::error::ParseError;
use crate::funcs::FuncMap;

/// Which identifiers a parse takes as functions: a [`FuncMap`], or only its names (which,
/// unlike the functions, can be shared with a thread parsing beside the executing one).
pub trait FuncNames {
    fn contains(&self, name: &str) -> bool;
}

impl FuncNames for FuncMap {
    fn contains(&self, name: &str) -> bool {
        FuncMap::contains(self, name)
    }
}

impl FuncNames for HashSet<String> {
    fn contains(&self, name: &str) -> bool {
        HashSet::contains(self, name)
    }
}
use crate::lex::{Item, ItemType, Lexer};
use crate::strconv::{quote, unquote};

/// Go's `maxStackDepth`: how deeply parentheses may nest.
pub const MAX_STACK_DEPTH: usize = 10_000;
/// How deeply control structures (`if`, `range`, `with`, `block`) may nest. Go has no such limit;
/// this one keeps absurd inputs from exhausting memory and is far beyond real templates.
pub const MAX_NESTING_DEPTH: usize = 10_000;

type PResult<T> = Result<T, Box<ParseError>>;

/// Parses `text` as template `name`, returning every tree it defines (the top-level one under
/// `name`, plus `define`s and `block`s). `funcs` decides which identifiers are functions.
pub fn parse(
    name: &str,
    text: &str,
    left: &str,
    right: &str,
    funcs: &dyn FuncNames,
) -> Result<HashMap<Rc<str>, Tree>, ParseError> {
    let mut lex = Lexer::new(text, left, right);
    lex.set_keywords(!funcs.contains("break"), !funcs.contains("continue"));
    let mut p = Parser {
        lex,
        parse_name: Rc::from(name),
        text: Rc::from(text),
        funcs,
        tree_set: HashMap::default(),
        st: TreeState::new(),
        nesting: 0,
    };
    match p.parse_top() {
        Ok(()) => Ok(p.tree_set),
        Err(e) => Err(*e),
    }
}

/// The result of `textOrAction`: a node, or the `{{end}}`/`{{else}}` that ends a list.
enum Stmt {
    Node(Node),
    End,
    Else(Pos),
}

impl fmt::Display for Stmt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stmt::Node(n) => write!(f, "{n}"),
            Stmt::End => f.write_str("{{end}}"),
            Stmt::Else(_) => f.write_str("{{else}}"),
        }
    }
}

/// What Go keeps per `Tree` while parsing.
struct TreeState<'a> {
    token: [Item<'a>; 3],
    peek_count: usize,
    vars: Vec<Box<str>>,
    action_line: usize,
    range_depth: usize,
    stack_depth: usize,
}

impl<'a> TreeState<'a> {
    fn new() -> TreeState<'a> {
        let eof = Item {
            typ: ItemType::Eof,
            pos: 0,
            val: Cow::Borrowed(""),
            line: 0,
        };
        TreeState {
            token: [eof.clone(), eof.clone(), eof],
            peek_count: 0,
            vars: vec!["$".into()],
            action_line: 0,
            range_depth: 0,
            stack_depth: 0,
        }
    }
}

struct Parser<'a, 'f> {
    lex: Lexer<'a>,
    parse_name: Rc<str>,
    text: Rc<str>,
    funcs: &'f dyn FuncNames,
    tree_set: HashMap<Rc<str>, Tree>,
    st: TreeState<'a>,
    nesting: usize,
}

impl<'a> Parser<'a, '_> {
    // Token buffer, as Go's.

    fn next(&mut self) -> Item<'a> {
        if self.st.peek_count > 0 {
            self.st.peek_count -= 1;
        } else {
            self.st.token[0] = self.lex.next_item();
        }
        self.st.token[self.st.peek_count].clone()
    }

    fn backup(&mut self) {
        self.st.peek_count += 1;
    }

    fn backup2(&mut self, t1: Item<'a>) {
        self.st.token[1] = t1;
        self.st.peek_count = 2;
    }

    fn backup3(&mut self, t2: Item<'a>, t1: Item<'a>) {
        self.st.token[1] = t1;
        self.st.token[2] = t2;
        self.st.peek_count = 3;
    }

    fn peek(&mut self) -> Item<'a> {
        if self.st.peek_count > 0 {
            return self.st.token[self.st.peek_count - 1].clone();
        }
        self.st.peek_count = 1;
        self.st.token[0] = self.lex.next_item();
        self.st.token[0].clone()
    }

    fn next_non_space(&mut self) -> Item<'a> {
        loop {
            let t = self.next();
            if t.typ != ItemType::Space {
                return t;
            }
        }
    }

    fn peek_non_space(&mut self) -> Item<'a> {
        let t = self.next_non_space();
        self.backup();
        t
    }

    // Errors.

    fn errorf(&self, message: String) -> Box<ParseError> {
        Box::new(ParseError {
            name: self.parse_name.to_string(),
            line: self.st.token[0].line,
            message,
        })
    }

    fn unexpected(&self, token: &Item<'_>, context: &str) -> Box<ParseError> {
        if token.typ == ItemType::Error {
            let mut extra = String::new();
            if self.st.action_line != 0 && self.st.action_line != token.line {
                extra = format!(
                    " in action started at {}:{}",
                    self.parse_name, self.st.action_line
                );
                if token.val.ends_with(" action") {
                    extra.replace_range(.." in action".len(), "");
                }
            }
            return self.errorf(format!("{token}{extra}"));
        }
        self.errorf(format!("unexpected {token} in {context}"))
    }

    fn expect(&mut self, expected: ItemType, context: &str) -> PResult<Item<'a>> {
        let token = self.next_non_space();
        if token.typ != expected {
            return Err(self.unexpected(&token, context));
        }
        Ok(token)
    }

    fn expect_one_of(&mut self, e1: ItemType, e2: ItemType, context: &str) -> PResult<Item<'a>> {
        let token = self.next_non_space();
        if token.typ != e1 && token.typ != e2 {
            return Err(self.unexpected(&token, context));
        }
        Ok(token)
    }

    /// Go's `Tree.add`: a non-empty tree may not be defined twice in one parse; an empty one
    /// never replaces a non-empty one.
    fn add(&mut self, name: Rc<str>, root: ListNode) -> PResult<()> {
        let tree = Tree {
            name: name.clone(),
            parse_name: self.parse_name.clone(),
            text: self.text.clone(),
            root,
        };
        match self.tree_set.get(&name) {
            Some(old) if !old.is_empty() => {
                if !tree.is_empty() {
                    return Err(self.errorf(format!(
                        "template: multiple definition of template {}",
                        quote(&name)
                    )));
                }
            }
            _ => {
                self.tree_set.insert(name, tree);
            }
        }
        Ok(())
    }

    // Grammar.

    /// The top level: like `itemList`, but also takes `{{define}}`s, and runs to EOF.
    fn parse_top(&mut self) -> PResult<()> {
        let mut root = ListNode {
            pos: self.peek().pos,
            nodes: Vec::new(),
        };
        while self.peek().typ != ItemType::Eof {
            if self.peek().typ == ItemType::LeftDelim {
                let delim = self.next();
                if self.next_non_space().typ == ItemType::Define {
                    let outer = std::mem::replace(&mut self.st, TreeState::new());
                    self.parse_definition()?;
                    self.st = outer;
                    continue;
                }
                self.backup2(delim);
            }
            match self.text_or_action()? {
                s @ (Stmt::End | Stmt::Else(_)) => {
                    return Err(self.errorf(format!("unexpected {s}")));
                }
                Stmt::Node(n) => root.nodes.push(n),
            }
        }
        let name = self.parse_name.clone();
        self.add(name, root)
    }

    /// `{{define "name"}} ... {{end}}`; the `define` keyword has been read.
    fn parse_definition(&mut self) -> PResult<()> {
        const CONTEXT: &str = "define clause";
        let name = self.expect_one_of(ItemType::String, ItemType::RawString, CONTEXT)?;
        let Some(name) = unquote(&name.val) else {
            return Err(self.errorf("invalid syntax".to_string()));
        };
        self.expect(ItemType::RightDelim, CONTEXT)?;
        let (root, end) = self.item_list()?;
        if !matches!(end, Stmt::End) {
            return Err(self.errorf(format!("unexpected {end} in {CONTEXT}")));
        }
        self.add(Rc::from(name), root)
    }

    /// `textOrAction*` up to an `{{end}}` or `{{else}}`, which is returned separately.
    fn item_list(&mut self) -> PResult<(ListNode, Stmt)> {
        let mut list = ListNode {
            pos: self.peek_non_space().pos,
            nodes: Vec::new(),
        };
        while self.peek_non_space().typ != ItemType::Eof {
            match self.text_or_action()? {
                Stmt::Node(n) => list.nodes.push(n),
                s => return Ok((list, s)),
            }
        }
        Err(self.errorf("unexpected EOF".to_string()))
    }

    fn text_or_action(&mut self) -> PResult<Stmt> {
        let token = self.next_non_space();
        match token.typ {
            ItemType::Text => Ok(Stmt::Node(Node::Text(TextNode {
                pos: token.pos,
                text: token.val.into(),
            }))),
            ItemType::LeftDelim => {
                self.st.action_line = token.line;
                let r = self.action();
                self.st.action_line = 0;
                r
            }
            _ => Err(self.unexpected(&token, "input")),
        }
    }

    /// After a left delimiter: a control keyword, or a pipeline.
    fn action(&mut self) -> PResult<Stmt> {
        let token = self.next_non_space();
        let node = match token.typ {
            ItemType::Block => self.nested(|p| p.block_control())?,
            ItemType::Break => self.loop_control(&token, "{{break}}")?,
            ItemType::Continue => self.loop_control(&token, "{{continue}}")?,
            ItemType::Else => return self.else_control(),
            ItemType::End => {
                self.expect(ItemType::RightDelim, "end")?;
                return Ok(Stmt::End);
            }
            ItemType::If => self.nested(|p| p.branch("if").map(Node::If))?,
            ItemType::Range => self.nested(|p| p.branch("range").map(Node::Range))?,
            ItemType::Template => self.template_control()?,
            ItemType::With => self.nested(|p| p.branch("with").map(Node::With))?,
            _ => {
                self.backup();
                let token = self.peek();
                // Variables declared here persist until the enclosing "end".
                let pipe = self.pipeline("command", ItemType::RightDelim)?;
                Node::Action(ActionNode {
                    pos: token.pos,
                    line: token.line,
                    pipe,
                })
            }
        };
        Ok(Stmt::Node(node))
    }

    /// Runs a parse step that nests control structures, bounding the depth and the stack.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.nesting >= MAX_NESTING_DEPTH {
            return Err(self.errorf("max expression depth exceeded".to_string()));
        }
        self.nesting += 1;
        let r = stacker::maybe_grow(RED_ZONE, STACK_GROW, || f(self));
        self.nesting -= 1;
        r
    }

    fn loop_control(&mut self, keyword: &Item<'_>, context: &str) -> PResult<Node> {
        let token = self.next_non_space();
        if token.typ != ItemType::RightDelim {
            return Err(self.unexpected(&token, context));
        }
        if self.st.range_depth == 0 {
            return Err(self.errorf(format!("{context} outside {{{{range}}}}")));
        }
        let n = ControlNode {
            pos: keyword.pos,
            line: keyword.line,
        };
        Ok(if keyword.typ == ItemType::Break {
            Node::Break(n)
        } else {
            Node::Continue(n)
        })
    }

    /// `declarations? command ('|' command)*`, up to `end`.
    fn pipeline(&mut self, context: &str, end: ItemType) -> PResult<PipeNode> {
        let token = self.peek_non_space();
        let mut pipe = PipeNode {
            pos: token.pos,
            line: token.line,
            is_assign: false,
            decl: Vec::new(),
            cmds: Vec::new(),
        };
        loop {
            let v = self.peek_non_space();
            if v.typ != ItemType::Variable {
                break;
            }
            self.next();
            // "$x foo" versus "$x := foo": remember the token after the variable so both can
            // be pushed back.
            let token_after = self.peek();
            let next = self.peek_non_space();
            if next.typ == ItemType::Assign || next.typ == ItemType::Declare {
                pipe.is_assign = next.typ == ItemType::Assign;
                self.next_non_space();
                pipe.decl.push(variable(v.pos, &v.val));
                self.st.vars.push(v.val.as_ref().into());
            } else if next.typ == ItemType::Char && next.val == "," {
                self.next_non_space();
                pipe.decl.push(variable(v.pos, &v.val));
                self.st.vars.push(v.val.as_ref().into());
                if context == "range" && pipe.decl.len() < 2 {
                    match self.peek_non_space().typ {
                        ItemType::Variable | ItemType::RightDelim | ItemType::RightParen => {
                            continue;
                        }
                        _ => {
                            return Err(
                                self.errorf("range can only initialize variables".to_string())
                            );
                        }
                    }
                }
                return Err(self.errorf(format!("too many declarations in {context}")));
            } else if token_after.typ == ItemType::Space {
                self.backup3(v, token_after);
            } else {
                self.backup2(v);
            }
            break;
        }
        loop {
            let token = self.next_non_space();
            match token.typ {
                t if t == end => {
                    self.check_pipeline(&pipe, context)?;
                    return Ok(pipe);
                }
                ItemType::Bool
                | ItemType::CharConstant
                | ItemType::Complex
                | ItemType::Dot
                | ItemType::Field
                | ItemType::Identifier
                | ItemType::Number
                | ItemType::Nil
                | ItemType::RawString
                | ItemType::String
                | ItemType::Variable
                | ItemType::LeftParen => {
                    self.backup();
                    let cmd = self.command()?;
                    pipe.cmds.push(cmd);
                }
                _ => return Err(self.unexpected(&token, context)),
            }
        }
    }

    fn check_pipeline(&self, pipe: &PipeNode, context: &str) -> PResult<()> {
        if pipe.cmds.is_empty() {
            return Err(self.errorf(format!("missing value for {context}")));
        }
        // Only the first command may start with a non-executable operand.
        for (i, c) in pipe.cmds.iter().enumerate().skip(1) {
            if matches!(
                c.args.first(),
                Some(
                    Operand::Bool(..)
                        | Operand::Dot(_)
                        | Operand::Nil(_)
                        | Operand::Number(_)
                        | Operand::String(_)
                )
            ) {
                return Err(self.errorf(format!(
                    "non executable command in pipeline stage {}",
                    i + 1
                )));
            }
        }
        Ok(())
    }

    /// `if`, `range` or `with`: pipeline, list, optional else (with `else if`/`else with`
    /// chains parsed as a nested node, as Go does).
    fn branch(&mut self, context: &str) -> PResult<BranchNode> {
        let nvars = self.st.vars.len();
        let pipe = self.pipeline(context, ItemType::RightDelim)?;
        if context == "range" {
            self.st.range_depth += 1;
        }
        let (list, next) = self.item_list()?;
        if context == "range" {
            self.st.range_depth -= 1;
        }
        let mut else_list = None;
        if let Stmt::Else(else_pos) = next {
            let chained = match (context, self.peek().typ) {
                ("if", ItemType::If) => Some(true),
                ("with", ItemType::With) => Some(false),
                _ => None,
            };
            match chained {
                Some(is_if) => {
                    self.next();
                    let node = if is_if {
                        self.nested(|p| p.branch("if").map(Node::If))?
                    } else {
                        self.nested(|p| p.branch("with").map(Node::With))?
                    };
                    else_list = Some(ListNode {
                        pos: else_pos,
                        nodes: vec![node],
                    });
                }
                None => {
                    let (list, next) = self.item_list()?;
                    if !matches!(next, Stmt::End) {
                        return Err(self.errorf(format!("expected end; found {next}")));
                    }
                    else_list = Some(list);
                }
            }
        }
        self.st.vars.truncate(nvars);
        Ok(BranchNode {
            pos: pipe.pos,
            line: pipe.line,
            pipe,
            list,
            else_list,
        })
    }

    /// `{{else}}`, or the `else` of `{{else if ...}}` / `{{else with ...}}`, whose keyword is
    /// left for the enclosing branch to read.
    fn else_control(&mut self) -> PResult<Stmt> {
        let peek = self.peek_non_space();
        if peek.typ == ItemType::If || peek.typ == ItemType::With {
            return Ok(Stmt::Else(peek.pos));
        }
        let token = self.expect(ItemType::RightDelim, "else")?;
        Ok(Stmt::Else(token.pos))
    }

    /// `{{block "name" pipeline}} ... {{end}}`: defines the template and invokes it.
    fn block_control(&mut self) -> PResult<Node> {
        const CONTEXT: &str = "block clause";
        let token = self.next_non_space();
        let name = self.template_name(&token, CONTEXT)?;
        let pipe = self.pipeline(CONTEXT, ItemType::RightDelim)?;
        let outer = std::mem::replace(&mut self.st, TreeState::new());
        let body = self.item_list();
        let inner = std::mem::replace(&mut self.st, outer);
        let (root, end) = body?;
        if !matches!(end, Stmt::End) {
            return Err(self.errorf(format!("unexpected {end} in {CONTEXT}")));
        }
        // The block's own tree reports errors from its own last token.
        let outer = std::mem::replace(&mut self.st, inner);
        let added = self.add(name.clone(), root);
        self.st = outer;
        added?;
        Ok(Node::Template(TemplateNode {
            pos: token.pos,
            line: token.line,
            name,
            pipe: Some(pipe),
        }))
    }

    /// `{{template "name" pipeline?}}`.
    fn template_control(&mut self) -> PResult<Node> {
        const CONTEXT: &str = "template clause";
        let token = self.next_non_space();
        let name = self.template_name(&token, CONTEXT)?;
        let mut pipe = None;
        if self.next_non_space().typ != ItemType::RightDelim {
            self.backup();
            pipe = Some(self.pipeline(CONTEXT, ItemType::RightDelim)?);
        }
        Ok(Node::Template(TemplateNode {
            pos: token.pos,
            line: token.line,
            name,
            pipe,
        }))
    }

    fn template_name(&self, token: &Item<'_>, context: &str) -> PResult<Rc<str>> {
        match token.typ {
            ItemType::String | ItemType::RawString => match unquote(&token.val) {
                Some(s) => Ok(Rc::from(s)),
                None => Err(self.errorf("invalid syntax".to_string())),
            },
            _ => Err(self.unexpected(token, context)),
        }
    }

    /// Space-separated operands up to a pipe or a right delimiter/paren; the pipe is consumed.
    fn command(&mut self) -> PResult<CommandNode> {
        let mut cmd = CommandNode {
            pos: self.peek_non_space().pos,
            args: Vec::new(),
        };
        loop {
            self.peek_non_space();
            if let Some(op) = self.operand()? {
                cmd.args.push(op);
            }
            let token = self.next();
            match token.typ {
                ItemType::Space => continue,
                ItemType::RightDelim | ItemType::RightParen => self.backup(),
                ItemType::Pipe => {}
                _ => return Err(self.unexpected(&token, "operand")),
            }
            break;
        }
        if cmd.args.is_empty() {
            return Err(self.errorf("empty command".to_string()));
        }
        Ok(cmd)
    }

    /// A term possibly followed by `.Field`s.
    fn operand(&mut self) -> PResult<Option<Operand>> {
        let Some(node) = self.term()? else {
            return Ok(None);
        };
        if self.peek().typ != ItemType::Field {
            return Ok(Some(node));
        }
        let pos = self.peek().pos;
        let mut fields: Vec<Box<str>> = Vec::new();
        while self.peek().typ == ItemType::Field {
            let f = self.next();
            fields.push(f.val.get(1..).unwrap_or("").into());
        }
        // Fields after a field or variable extend it; literals cannot have fields.
        Ok(Some(match node {
            Operand::Field(mut f) => {
                f.ident.extend(fields);
                Operand::Field(FieldNode {
                    pos,
                    ident: f.ident,
                })
            }
            Operand::Variable(mut v) => {
                v.ident.extend(fields);
                Operand::Variable(VariableNode {
                    pos,
                    ident: v.ident,
                })
            }
            n @ (Operand::Bool(..)
            | Operand::String(_)
            | Operand::Number(_)
            | Operand::Nil(_)
            | Operand::Dot(_)) => {
                return Err(
                    self.errorf(format!("unexpected . after term {}", quote(&n.to_string())))
                );
            }
            n => Operand::Chain(ChainNode {
                pos,
                node: Box::new(n),
                field: fields,
            }),
        }))
    }

    /// A literal, function name, `.`, field, variable or parenthesized pipeline; `None` if the
    /// next token is none of these.
    fn term(&mut self) -> PResult<Option<Operand>> {
        let token = self.next_non_space();
        let op = match token.typ {
            ItemType::Identifier => {
                if !self.funcs.contains(&token.val) {
                    return Err(self.errorf(format!("function {} not defined", quote(&token.val))));
                }
                Operand::Identifier(IdentifierNode {
                    pos: token.pos,
                    ident: token.val.as_ref().into(),
                })
            }
            ItemType::Dot => Operand::Dot(token.pos),
            ItemType::Nil => Operand::Nil(token.pos),
            ItemType::Variable => {
                let v = variable(token.pos, &token.val);
                if !self.st.vars.iter().any(|name| **name == *v.ident[0]) {
                    return Err(self.errorf(format!("undefined variable {}", quote(&v.ident[0]))));
                }
                Operand::Variable(v)
            }
            ItemType::Field => Operand::Field(FieldNode {
                pos: token.pos,
                ident: token
                    .val
                    .get(1..)
                    .unwrap_or("")
                    .split('.')
                    .map(Into::into)
                    .collect(),
            }),
            ItemType::Bool => Operand::Bool(token.pos, token.val == "true"),
            ItemType::CharConstant | ItemType::Complex | ItemType::Number => {
                let n = NumberNode::new(
                    token.pos,
                    &token.val,
                    token.typ == ItemType::CharConstant,
                    token.typ == ItemType::Complex,
                )
                .map_err(|e| self.errorf(e.to_string()))?;
                Operand::Number(Box::new(n))
            }
            ItemType::LeftParen => {
                if self.st.stack_depth >= MAX_STACK_DEPTH {
                    return Err(self.errorf("max expression depth exceeded".to_string()));
                }
                self.st.stack_depth += 1;
                let pipe = stacker::maybe_grow(RED_ZONE, STACK_GROW, || {
                    self.pipeline("parenthesized pipeline", ItemType::RightParen)
                });
                self.st.stack_depth -= 1;
                Operand::Pipe(Box::new(pipe?))
            }
            ItemType::String | ItemType::RawString => {
                let Some(s) = unquote(&token.val) else {
                    return Err(self.errorf("invalid syntax".to_string()));
                };
                Operand::String(StringNode {
                    pos: token.pos,
                    quoted: token.val.as_ref().into(),
                    text: crate::Str::from(s),
                })
            }
            _ => {
                self.backup();
                return Ok(None);
            }
        };
        Ok(Some(op))
    }
}

fn variable(pos: Pos, ident: &str) -> VariableNode {
    VariableNode {
        pos,
        ident: ident.split('.').map(Into::into).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::funcs::{ArgType, Func};
    use crate::value::Value;

    fn test_funcs() -> FuncMap {
        let mut m = FuncMap::new();
        for name in [
            "printf", "print", "println", "and", "or", "not", "len", "index", "eq", "html",
            "contains", "call",
        ] {
            m.insert(
                name,
                Func::new(vec![], Some(ArgType::Any), "interface {}", |_, _| {
                    Ok(Value::Nil)
                }),
            );
        }
        m
    }

    fn parse_str(text: &str) -> Result<String, String> {
        match parse("t", text, "", "", &test_funcs()) {
            Ok(trees) => Ok(trees
                .get("t")
                .map(|t| t.root.to_string())
                .unwrap_or_default()),
            Err(e) => Err(e.to_string()),
        }
    }

    /// After Go's parse_test.go parseTests: input and the tree printed back, or the error.
    #[test]
    fn parse_cases() {
        let ok: &[(&str, &str)] = &[
            ("", ""),
            ("{{/*\n\n\n*/}}", ""),
            (" \t\n", " \t\n"),
            ("some text", "some text"),
            ("{{.X}}", "{{.X}}"),
            ("{{printf}}", "{{printf}}"),
            ("{{$}}", "{{$}}"),
            (
                "{{with $x := 3}}{{$x 23}}{{end}}",
                "{{with $x := 3}}{{$x 23}}{{end}}",
            ),
            ("{{$.I}}", "{{$.I}}"),
            ("{{printf `%d` 23}}", "{{printf `%d` 23}}"),
            ("{{.X|.Y}}", "{{.X | .Y}}"),
            ("{{$x := .X|.Y}}", "{{$x := .X | .Y}}"),
            ("{{$x = .X|.Y}}", "{{$x = .X | .Y}}"),
            ("{{(.X).Y}}", "{{(.X).Y}}"),
            ("{{(.X.Y) (.Y.Z)}}", "{{(.X.Y) (.Y.Z)}}"),
            ("{{.X.Y.Z}}", "{{.X.Y.Z}}"),
            ("{{(printf \"x\").Y}}", "{{(printf \"x\").Y}}"),
            ("{{printf.Y}}", "{{printf.Y}}"),
            ("{{if .X}}hello{{end}}", "{{if .X}}hello{{end}}"),
            (
                "{{if .X}}true{{else}}false{{end}}",
                "{{if .X}}true{{else}}false{{end}}",
            ),
            (
                "{{if .A}}A{{else if .B}}B{{end}}",
                "{{if .A}}A{{else}}{{if .B}}B{{end}}{{end}}",
            ),
            (
                "{{if .A}}A{{else if .B}}B{{else if .C}}C{{else}}D{{end}}",
                "{{if .A}}A{{else}}{{if .B}}B{{else}}{{if .C}}C{{else}}D{{end}}{{end}}{{end}}",
            ),
            ("{{range .X}}hello{{end}}", "{{range .X}}hello{{end}}"),
            (
                "{{range .X.Y.Z}}hello{{end}}",
                "{{range .X.Y.Z}}hello{{end}}",
            ),
            (
                "{{range .X}}hello{{range .Y}}goodbye{{end}}{{end}}",
                "{{range .X}}hello{{range .Y}}goodbye{{end}}{{end}}",
            ),
            (
                "{{range .X}}true{{else}}false{{end}}",
                "{{range .X}}true{{else}}false{{end}}",
            ),
            (
                "{{range .X|.M}}true{{else}}false{{end}}",
                "{{range .X | .M}}true{{else}}false{{end}}",
            ),
            ("{{range .SI}}{{.}}{{end}}", "{{range .SI}}{{.}}{{end}}"),
            (
                "{{range $x := .SI}}{{.}}{{end}}",
                "{{range $x := .SI}}{{.}}{{end}}",
            ),
            (
                "{{range $x, $y := .SI}}{{.}}{{end}}",
                "{{range $x, $y := .SI}}{{.}}{{end}}",
            ),
            ("{{range 10}}{{.}}{{end}}", "{{range 10}}{{.}}{{end}}"),
            (
                "{{range .SI}}{{.}}{{break}}{{end}}",
                "{{range .SI}}{{.}}{{break}}{{end}}",
            ),
            (
                "{{range .SI}}{{.}}{{continue}}{{end}}",
                "{{range .SI}}{{.}}{{continue}}{{end}}",
            ),
            (
                "{{range $i, $v = .SI}}{{end}}",
                "{{range $i, $v = .SI}}{{end}}",
            ),
            (
                "{{$x := 1}}{{range $x = .SI}}{{end}}",
                "{{$x := 1}}{{range $x = .SI}}{{end}}",
            ),
            (
                "{{range .SI}}{{$i := .}}{{end}}{{range .SI}}{{$i := .}}{{end}}",
                "{{range .SI}}{{$i := .}}{{end}}{{range .SI}}{{$i := .}}{{end}}",
            ),
            ("{{3 | printf}}", "{{3 | printf}}"),
            ("{{with .X}}hello{{end}}", "{{with .X}}hello{{end}}"),
            (
                "{{with .X}}hello{{else}}goodbye{{end}}",
                "{{with .X}}hello{{else}}goodbye{{end}}",
            ),
            (
                "{{with .X}}X{{else with .Y}}Y{{end}}",
                "{{with .X}}X{{else}}{{with .Y}}Y{{end}}{{end}}",
            ),
            ("{{template `x`}}", "{{template \"x\"}}"),
            ("{{template `x` .Y}}", "{{template \"x\" .Y}}"),
            ("{{template \"a\\tb\"}}", "{{template \"a\\tb\"}}"),
            ("{{1i}}", "{{1i}}"),
            ("{{'x'}}", "{{'x'}}"),
            ("{{nil}}", "{{nil}}"),
            ("{{true}}", "{{true}}"),
            (
                "{{with $x := 3}}{{$x 23}}{{end}}",
                "{{with $x := 3}}{{$x 23}}{{end}}",
            ),
            (
                "{{$x := 1}}{{if true}}{{$x = 2}}{{end}}",
                "{{$x := 1}}{{if true}}{{$x = 2}}{{end}}",
            ),
            ("{{(.X)}}", "{{(.X)}}"),
            ("{{printf\n\"%d\"\n3}}", "{{printf \"%d\" 3}}"),
            ("{{printf \"%d\" ( 1 ) }}", "{{printf \"%d\" (1)}}"),
            (
                "{{with $x := 4}}{{$x}}{{end}}{{with $x := 5}}{{$x}}{{end}}",
                "{{with $x := 4}}{{$x}}{{end}}{{with $x := 5}}{{$x}}{{end}}",
            ),
            ("{{block \"foo\" .}}hello{{end}}", "{{template \"foo\" .}}"),
            ("{{define \"foo\"}}x{{end}}", ""),
            ("x {{- 3 -}} y", "x{{3}}y"),
        ];
        for (input, want) in ok {
            assert_eq!(parse_str(input).as_deref(), Ok(*want), "input {input:?}");
        }
    }

    #[test]
    fn defines_and_empty_bodies() {
        let trees = parse(
            "t",
            "{{define \"a\"}}A{{end}} {{define \"b\"}} {{end}}x",
            "",
            "",
            &test_funcs(),
        )
        .unwrap();
        let mut names: Vec<&str> = trees.keys().map(|k| &**k).collect();
        names.sort();
        assert_eq!(names, ["a", "b", "t"]);
        assert_eq!(trees["a"].root.to_string(), "A");
        assert_eq!(trees["t"].root.to_string(), " x");
        // An empty body after a non-empty one is ignored, not an error.
        let trees = parse(
            "t",
            "{{define \"a\"}}A{{end}}{{define \"a\"}} {{end}}",
            "",
            "",
            &test_funcs(),
        )
        .unwrap();
        assert_eq!(trees["a"].root.to_string(), "A");
        // The top-level body may be empty next to a define of its own name.
        let trees = parse("t", "{{define \"t\"}}T{{end}}", "", "", &test_funcs()).unwrap();
        assert_eq!(trees["t"].root.to_string(), "T");
    }

    #[test]
    fn positions() {
        let trees = parse(
            "t",
            "ab\n{{ .X.Y }}{{template \"z\"}}",
            "",
            "",
            &test_funcs(),
        )
        .unwrap();
        let t = &trees["t"];
        let Node::Action(a) = &t.root.nodes[1] else {
            panic!()
        };
        assert_eq!(a.pos, 6);
        // Go puts a merged field at the position of its second part.
        assert_eq!(a.pipe.cmds[0].args[0].pos(), 8);
        assert_eq!(t.line_col(8), (2, 5));
        let Node::Template(n) = &t.root.nodes[2] else {
            panic!()
        };
        assert_eq!(n.pos, 24);
    }

    #[test]
    fn break_can_be_a_function() {
        let mut f = test_funcs();
        f.insert(
            "break",
            Func::new(vec![], None, "string", |_, _| Ok(Value::str("b"))),
        );
        let trees = parse("t", "{{break}}", "", "", &f).unwrap();
        assert_eq!(trees["t"].root.to_string(), "{{break}}");
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let deep = format!("{{{{{}1{}}}}}", "(".repeat(20_000), ")".repeat(20_000));
        assert_eq!(
            parse_str(&deep),
            Err("template: t:1: max expression depth exceeded".to_string())
        );
        let ok = format!("{{{{{}1{}}}}}", "(".repeat(9_000), ")".repeat(9_000));
        assert!(parse_str(&ok).is_ok());
        let ifs = format!("{}x{}", "{{if 1}}".repeat(20_000), "{{end}}".repeat(20_000));
        assert_eq!(
            parse_str(&ifs),
            Err("template: t:1: max expression depth exceeded".to_string())
        );
        let ifs = format!("{}x{}", "{{if 1}}".repeat(5_000), "{{end}}".repeat(5_000));
        assert!(parse_str(&ifs).is_ok());
    }
}
