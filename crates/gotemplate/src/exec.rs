//! The executor: walks a parse tree with Go's `text/template` semantics.
//!
//! Go's behaviour hangs on reflection details that the value model does not carry, so the
//! executor tracks the ones that show: whether a value came through a static `interface{}`
//! (map values, `[]interface{}` elements, `interface{}` results), which decides error texts like
//! `can't evaluate field x in type interface {}`; and the node being evaluated, which decides the
//! `at <...>` part and position of every error. Both follow Go's code path by path.

use std::rc::Rc;

use crate::ast::*;
use crate::error::{ExecError, ExecErrorKind, Location};
use crate::funcs::{ArgType, Context, Func, FuncError, TextError, convert_arg};
use crate::strconv::quote;
use crate::template::{MissingKey, Templates};
use crate::text::Str;
use crate::value::{IntKind, Value};

/// Go's `maxExecDepth`: how deeply `{{template}}` calls may nest.
pub const MAX_EXEC_DEPTH: usize = 100_000;
/// How deeply fresh executions started by functions (Helm's `include`, `tpl`) may nest. Go has no
/// such limit and, without Helm's own guard, would take quadratic time building the nested error
/// messages of an endless recursion; this bound keeps that finite and is far above real charts.
pub const MAX_NESTED_EXECUTIONS: usize = 2_000;

type R<T> = Result<T, Box<ExecError>>;

/// A value and whether its static Go type is `interface{}`.
#[derive(Clone)]
struct Val {
    v: Value,
    iface: bool,
}

impl Val {
    fn plain(v: Value) -> Val {
        Val { v, iface: false }
    }

    /// The type Go names in "can't evaluate field" errors: the static type, before unwrapping.
    fn static_type(&self) -> String {
        if self.iface {
            "interface {}".to_string()
        } else {
            self.v.type_name()
        }
    }
}

/// How a walk ended: normally, or by `{{break}}`/`{{continue}}` on its way to the range.
enum Flow {
    Normal,
    Break,
    Continue,
}

/// The node Go's `state.at` points to: the source of error positions and contexts.
#[derive(Clone, Copy)]
enum At<'t> {
    None,
    Node(&'t Node),
    List(&'t ListNode),
    Pipe(&'t PipeNode),
    Cmd(&'t CommandNode),
    Op(&'t Operand),
}

impl At<'_> {
    fn pos(&self) -> Option<Pos> {
        Some(match self {
            At::None => return None,
            At::Node(n) => n.pos(),
            At::List(l) => l.pos,
            At::Pipe(p) => p.pos,
            At::Cmd(c) => c.pos,
            At::Op(o) => o.pos(),
        })
    }

    fn text(&self) -> String {
        match self {
            At::None => String::new(),
            At::Node(n) => n.to_string(),
            At::List(l) => l.to_string(),
            At::Pipe(p) => p.to_string(),
            At::Cmd(c) => c.to_string(),
            At::Op(o) => o.to_string(),
        }
    }
}

struct Var<'t> {
    name: &'t str,
    val: Val,
}

/// One execution: Go's `state`.
pub(crate) struct State<'t> {
    set: &'t Templates,
    tree: &'t Tree,
    at: At<'t>,
    vars: Vec<Var<'t>>,
    depth: usize,
    /// Fresh executions (through functions) enclosing this one.
    nest: usize,
    out: Output,
}

/// What an execution prints. Large strings (a chart's `toYaml` of a CRD, say) are kept by
/// reference where they are printed: joined once, into the exactly sized result
/// ([`Output::into_string`]), or not at all ([`Output::into_pieces`]). Copied into a growing
/// buffer instead, a megabyte of output touches about two megabytes of fresh pages, which
/// cost more than the copies.
#[derive(Default)]
pub struct Output {
    text: String,
    /// Strings printed at these offsets of `text`, in order.
    spliced: Vec<(usize, Str)>,
    spliced_len: usize,
}

/// Strings at least this long are spliced in at the end rather than copied as printed.
const SPLICE_MIN: usize = 4096;

impl Output {
    fn len(&self) -> usize {
        self.text.len() + self.spliced_len
    }

    fn push_str(&mut self, s: &str) {
        self.text.push_str(s);
    }

    fn push_shared(&mut self, s: &Str) {
        // A spliced string is printed as its pieces: the texts set into it stay shared (they
        // are shared already, so even the smaller ones cost no more than a copy).
        if let Some((own, spliced)) = s.splices() {
            let mut from = 0;
            for (at, text) in spliced {
                self.text.push_str(&own[from..*at]);
                self.spliced.push((self.text.len(), text.clone()));
                self.spliced_len += text.len();
                from = *at;
            }
            self.text.push_str(&own[from..]);
            return;
        }
        if s.len() < SPLICE_MIN {
            self.text.push_str(s);
        } else {
            self.spliced.push((self.text.len(), s.clone()));
            self.spliced_len += s.len();
        }
    }

    /// The whole text.
    pub fn into_string(self) -> String {
        if self.spliced.is_empty() {
            return self.text;
        }
        crate::text::join_spliced(&self.text, &self.spliced, self.len())
    }

    /// The text as the pieces it was printed in, in order, none of them empty: what was
    /// printed between large strings, and the large strings themselves, shared.
    pub fn into_pieces(self) -> Vec<Str> {
        let mut pieces = Vec::with_capacity(2 * self.spliced.len() + 1);
        let text = Str::from(self.text);
        let mut from = 0;
        for (at, s) in self.spliced {
            if at > from {
                pieces.push(text.slice(&text[from..at]));
            }
            pieces.push(s);
            from = at;
        }
        if text.len() > from {
            pieces.push(text.slice(&text[from..]));
        }
        pieces
    }
}

/// Where a fresh execution starts: template depth carries on from the caller (so recursion
/// through functions also meets Go's depth limit), `nest` counts the fresh executions.
#[derive(Clone, Copy, Default)]
pub(crate) struct Depth {
    pub(crate) depth: usize,
    pub(crate) nest: usize,
}

/// Executes `tree` of `set` with `data` as dot.
pub(crate) fn execute(set: &Templates, tree: &Tree, data: Value, start: Depth) -> R<String> {
    execute_output(set, tree, data, start).map(Output::into_string)
}

/// [`execute`], its output as printed.
pub(crate) fn execute_output(set: &Templates, tree: &Tree, data: Value, start: Depth) -> R<Output> {
    // Go's reflect.ValueOf(nil) is no value at all.
    let dot = Val::plain(if matches!(data, Value::Nil) {
        Value::Invalid
    } else {
        data
    });
    let vars = vec![Var {
        name: "$",
        val: dot.clone(),
    }];
    let mut st = State {
        set,
        tree,
        at: At::None,
        vars,
        depth: start.depth,
        nest: start.nest,
        out: Output::default(),
    };
    if start.depth >= MAX_EXEC_DEPTH {
        return Err(st.error(format!(
            "exceeded maximum template depth ({MAX_EXEC_DEPTH})"
        )));
    }
    if start.nest > MAX_NESTED_EXECUTIONS {
        return Err(st.error(format!(
            "exceeded maximum nesting of template executions ({MAX_NESTED_EXECUTIONS})"
        )));
    }
    st.walk_list(&dot, &tree.root)?;
    Ok(st.out)
}

/// `%v` of a value in an error message.
fn show(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        other => crate::fmt::print_value(other),
    }
}

/// Go's `reflect.Value.String()`, which `call` uses to name a callee that came down the pipe.
fn reflect_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        Value::Invalid => "<invalid Value>".to_string(),
        other => format!("<{} Value>", other.type_name()),
    }
}

fn is_hex_int(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() > 2 && b[0] == b'0' && (b[1] == b'x' || b[1] == b'X') && !s.contains(['p', 'P'])
}

/// Stores a literal into an integer of `kind`, truncating as reflect's `SetInt`/`SetUint` do.
fn int_of_kind(bits: u64, kind: IntKind) -> Value {
    let n = match kind {
        IntKind::Int8 => bits as i8 as i64,
        IntKind::Int16 => bits as i16 as i64,
        IntKind::Int32 => bits as i32 as i64,
        IntKind::Uint8 => i64::from(bits as u8),
        IntKind::Uint16 => i64::from(bits as u16),
        IntKind::Uint32 => i64::from(bits as u32),
        _ => bits as i64,
    };
    Value::Int(n, kind)
}

impl<'t> State<'t> {
    fn error(&self, message: String) -> Box<ExecError> {
        let (location, context) = match self.at.pos() {
            Some(pos) => {
                let (line, col) = self.tree.line_col(pos);
                (
                    Some(Location {
                        parse_name: self.tree.parse_name.to_string(),
                        line,
                        col,
                    }),
                    Some(self.at.text()),
                )
            }
            None => (None, None),
        };
        Box::new(ExecError {
            kind: ExecErrorKind::Exec,
            name: self.tree.name.to_string(),
            location,
            context,
            message,
        })
    }

    // Variables.

    fn set_var(&mut self, name: &str, val: Val) -> R<()> {
        match self.vars.iter_mut().rev().find(|v| v.name == name) {
            Some(v) => {
                v.val = val;
                Ok(())
            }
            None => Err(self.error(format!("undefined variable: {name}"))),
        }
    }

    /// Overwrites the n-th variable from the top (range iterations).
    fn set_top_var(&mut self, n: usize, val: Val) {
        let len = self.vars.len();
        if let Some(v) = len.checked_sub(n).and_then(|i| self.vars.get_mut(i)) {
            v.val = val;
        }
    }

    fn var_value(&self, name: &str) -> R<Val> {
        match self.vars.iter().rev().find(|v| v.name == name) {
            Some(v) => Ok(v.val.clone()),
            None => Err(self.error(format!("undefined variable: {name}"))),
        }
    }

    // Walking.

    /// Spends one step of the set's budget (Go has none; a caller may set one to bound work).
    fn tick(&self) -> R<()> {
        self.spend(1)
    }

    /// Spends `cost` steps; printing is charged by size, so output that grows without loops
    /// (recursion on ever longer strings) is bounded too.
    fn spend(&self, cost: u64) -> R<()> {
        if self.set.steps.spend(cost) {
            Ok(())
        } else {
            Err(self.error(format!(
                "exceeded the execution step limit ({})",
                self.set.steps.limit().unwrap_or_default()
            )))
        }
    }

    fn walk_list(&mut self, dot: &Val, list: &'t ListNode) -> R<Flow> {
        stacker::maybe_grow(RED_ZONE, STACK_GROW, || {
            self.at = At::List(list);
            self.tick()?;
            for node in &list.nodes {
                match self.walk(dot, node)? {
                    Flow::Normal => {}
                    flow => return Ok(flow),
                }
            }
            Ok(Flow::Normal)
        })
    }

    fn walk(&mut self, dot: &Val, node: &'t Node) -> R<Flow> {
        self.at = At::Node(node);
        self.tick()?;
        match node {
            Node::Text(t) => self.out.push_str(&t.text),
            Node::Action(a) => {
                // Variables declared here stay until the enclosing end; declarations print nothing.
                let v = self.eval_pipeline(dot, &a.pipe)?;
                if a.pipe.decl.is_empty() {
                    self.print_value(node, v)?;
                }
            }
            Node::If(b) => return self.walk_if_or_with(false, dot, b),
            Node::With(b) => return self.walk_if_or_with(true, dot, b),
            Node::Range(r) => return self.walk_range(dot, node, r),
            Node::Template(t) => self.walk_template(dot, node, t)?,
            Node::Break(_) => return Ok(Flow::Break),
            Node::Continue(_) => return Ok(Flow::Continue),
        }
        Ok(Flow::Normal)
    }

    fn print_value(&mut self, node: &'t Node, v: Value) -> R<()> {
        self.at = At::Node(node);
        let before = self.out.len();
        let printed = self.print_value_unbudgeted(node, v);
        self.spend((self.out.len() - before) as u64 / 64)?;
        printed
    }

    fn print_value_unbudgeted(&mut self, node: &'t Node, v: Value) -> R<()> {
        match &v {
            Value::Invalid => self.out.push_str("<no value>"),
            Value::String(s) => self.out.push_shared(s),
            // Go prints an addressable struct through its String method; `Object::print` says how.
            Value::Object(o) => self.out.push_str(&o.print()),
            Value::Func(f) => {
                return Err(self.error(format!("can't print {node} of type {}", f.go_type())));
            }
            _ => self.out.push_str(&crate::fmt::print_value(&v)),
        }
        Ok(())
    }

    fn walk_if_or_with(&mut self, with: bool, dot: &Val, b: &'t BranchNode) -> R<Flow> {
        let mark = self.vars.len();
        let flow = self.if_or_with_body(with, dot, b);
        self.vars.truncate(mark);
        flow
    }

    fn if_or_with_body(&mut self, with: bool, dot: &Val, b: &'t BranchNode) -> R<Flow> {
        let val = self.eval_pipeline(dot, &b.pipe)?;
        if val.truth().unwrap_or(false) {
            if with {
                self.walk_list(&Val::plain(val), &b.list)
            } else {
                self.walk_list(dot, &b.list)
            }
        } else if let Some(e) = &b.else_list {
            self.walk_list(dot, e)
        } else {
            Ok(Flow::Normal)
        }
    }

    fn walk_range(&mut self, dot: &Val, node: &'t Node, r: &'t BranchNode) -> R<Flow> {
        self.at = At::Node(node);
        let mark = self.vars.len();
        let flow = self.range_body(dot, r);
        self.vars.truncate(mark);
        flow
    }

    fn range_body(&mut self, dot: &Val, r: &'t BranchNode) -> R<Flow> {
        let mut val = self.eval_pipeline(dot, &r.pipe)?;
        if let Value::Object(o) = &val
            && let Some(inner) = o.as_value()
        {
            val = inner;
        }
        // Variables of the body are dropped after each iteration; the range's own stay.
        let mark = self.vars.len();
        let ran = match &val {
            Value::Int(n, kind) => {
                if r.pipe.decl.len() > 1 {
                    let shown = show(&val);
                    return Err(self.error(format!(
                        "can't use {shown} to iterate over more than one variable"
                    )));
                }
                let count = if kind.is_unsigned() {
                    *n as u64
                } else {
                    (*n).max(0) as u64
                };
                for i in 0..count {
                    let elem = Val::plain(int_of_kind(i, *kind));
                    if self.one_iteration(r, mark, Val::plain(Value::Invalid), elem)? {
                        break;
                    }
                }
                count > 0
            }
            Value::List(l) => {
                let iface = l.elem_type() == "interface {}";
                for (i, item) in l.items().iter().enumerate() {
                    let elem = Val {
                        v: item.clone(),
                        iface,
                    };
                    if self.one_iteration(r, mark, Val::plain(Value::int(i as i64)), elem)? {
                        break;
                    }
                }
                !l.is_empty()
            }
            Value::Bytes(b) => {
                for (i, byte) in b.iter().enumerate() {
                    let elem = Val::plain(Value::Int(i64::from(*byte), IntKind::Uint8));
                    if self.one_iteration(r, mark, Val::plain(Value::int(i as i64)), elem)? {
                        break;
                    }
                }
                !b.is_empty()
            }
            Value::Map(m) => {
                // Go iterates over a sorted snapshot of the keys.
                let entries = m.entries();
                for (k, v) in &entries {
                    let elem = Val {
                        v: v.clone(),
                        iface: true,
                    };
                    if self.one_iteration(r, mark, Val::plain(Value::String(k.into())), elem)? {
                        break;
                    }
                }
                !entries.is_empty()
            }
            // No value acts like an empty map.
            Value::Invalid => false,
            _ => {
                let shown = show(&val);
                return Err(self.error(format!("range can't iterate over {shown}")));
            }
        };
        if !ran && let Some(e) = &r.else_list {
            // Go recovers a break anywhere inside the range node, its else part included; a
            // continue there belongs to an enclosing range.
            return match self.walk_list(dot, e)? {
                Flow::Break => Ok(Flow::Normal),
                flow => Ok(flow),
            };
        }
        Ok(Flow::Normal)
    }

    /// One pass of a range body; `Ok(true)` when it ended with `{{break}}`.
    fn one_iteration(&mut self, r: &'t BranchNode, mark: usize, index: Val, elem: Val) -> R<bool> {
        let decl = &r.pipe.decl;
        let name = |i: usize| {
            decl.get(i)
                .and_then(|v| v.ident.first())
                .map_or("", |s| &**s)
        };
        if !decl.is_empty() {
            if r.pipe.is_assign {
                // With two variables the index comes first; with one, the element.
                let v = if decl.len() > 1 {
                    index.clone()
                } else {
                    elem.clone()
                };
                self.set_var(name(0), v)?;
            } else {
                self.set_top_var(1, elem.clone());
            }
        }
        if decl.len() > 1 {
            if r.pipe.is_assign {
                self.set_var(name(1), elem.clone())?;
            } else {
                self.set_top_var(2, index);
            }
        }
        let flow = self.walk_list(&elem, &r.list);
        self.vars.truncate(mark);
        Ok(matches!(flow?, Flow::Break))
    }

    fn walk_template(&mut self, dot: &Val, node: &'t Node, t: &'t TemplateNode) -> R<()> {
        self.at = At::Node(node);
        let set = self.set;
        let Some(tree) = set.lookup(&t.name) else {
            return Err(self.error(format!("template {} not defined", quote(&t.name))));
        };
        if self.depth >= MAX_EXEC_DEPTH {
            return Err(self.error(format!(
                "exceeded maximum template depth ({MAX_EXEC_DEPTH})"
            )));
        }
        // Variables declared by the pipeline persist in the caller.
        let new_dot = match &t.pipe {
            Some(p) => self.eval_pipeline(dot, p)?,
            None => Value::Invalid,
        };
        let new_dot = Val::plain(new_dot);
        // No dynamic scoping: the callee sees only `$`.
        let saved_vars = std::mem::replace(
            &mut self.vars,
            vec![Var {
                name: "$",
                val: new_dot.clone(),
            }],
        );
        let saved_tree = std::mem::replace(&mut self.tree, &**tree);
        self.depth += 1;
        let r = self.walk_list(&new_dot, &tree.root);
        self.depth -= 1;
        self.tree = saved_tree;
        self.vars = saved_vars;
        self.at = At::Node(node);
        r.map(|_| ())
    }

    // Evaluation.

    /// A pipeline's value; declared variables are pushed (the caller pops them).
    fn eval_pipeline(&mut self, dot: &Val, pipe: &'t PipeNode) -> R<Value> {
        stacker::maybe_grow(RED_ZONE, STACK_GROW, || {
            self.at = At::Pipe(pipe);
            let mut value: Option<Value> = None;
            for cmd in &pipe.cmds {
                let v = self.eval_command(dot, cmd, value.take())?;
                // Values of type interface{} are unwrapped one level: a nil interface becomes no
                // value at all.
                value = Some(match v.v {
                    Value::Nil => Value::Invalid,
                    other => other,
                });
            }
            let value = value.unwrap_or_default();
            for var in &pipe.decl {
                let Some(name) = var.ident.first() else {
                    continue;
                };
                let val = Val::plain(value.clone());
                if pipe.is_assign {
                    self.set_var(name, val)?;
                } else {
                    self.vars.push(Var { name, val });
                }
            }
            Ok(value)
        })
    }

    fn not_a_function(&self, args: &[Operand], fin: &Option<Value>) -> R<()> {
        if args.len() > 1 || fin.is_some() {
            let first = args.first().map(|a| a.to_string()).unwrap_or_default();
            return Err(self.error(format!("can't give argument to non-function {first}")));
        }
        Ok(())
    }

    /// One command; `fin` is the previous command's value, passed as the last argument.
    fn eval_command(&mut self, dot: &Val, cmd: &'t CommandNode, fin: Option<Value>) -> R<Val> {
        let Some(first) = cmd.args.first() else {
            return Err(self.error("empty command".to_string()));
        };
        match first {
            Operand::Field(f) => return self.eval_field_node(dot, first, f, &cmd.args, fin),
            Operand::Chain(c) => return self.eval_chain_node(dot, first, c, &cmd.args, fin),
            Operand::Identifier(id) => {
                return self.eval_function(dot, first, id, At::Cmd(cmd), &cmd.args, fin);
            }
            Operand::Pipe(p) => {
                self.not_a_function(&cmd.args, &fin)?;
                return Ok(Val::plain(self.eval_pipeline(dot, p)?));
            }
            Operand::Variable(v) => return self.eval_variable_node(dot, first, v, &cmd.args, fin),
            _ => {}
        }
        self.at = At::Op(first);
        self.not_a_function(&cmd.args, &fin)?;
        match first {
            Operand::Bool(_, b) => Ok(Val::plain(Value::Bool(*b))),
            Operand::Dot(_) => Ok(dot.clone()),
            Operand::Nil(_) => Err(self.error("nil is not a command".to_string())),
            Operand::Number(n) => Ok(Val::plain(self.ideal_constant(first, n)?)),
            Operand::String(s) => Ok(Val::plain(Value::String(s.text.clone()))),
            _ => Err(self.error(format!(
                "can't evaluate command {}",
                quote(&first.to_string())
            ))),
        }
    }

    /// A number where no type is expected: Go's rules for untyped constants.
    fn ideal_constant(&mut self, op: &'t Operand, n: &NumberNode) -> R<Value> {
        self.at = At::Op(op);
        if n.is_complex {
            return Err(self.error(format!("complex constant {} is not supported", n.text)));
        }
        if n.is_float
            && !is_hex_int(&n.text)
            && !n.text.starts_with('\'')
            && n.text.contains(['.', 'e', 'E', 'p', 'P'])
        {
            return Ok(Value::Float(n.float64));
        }
        if n.is_int {
            return Ok(Value::int(n.int64));
        }
        if n.is_uint {
            return Err(self.error(format!("{} overflows int", n.text)));
        }
        Ok(Value::Invalid)
    }

    fn eval_field_node(
        &mut self,
        dot: &Val,
        op: &'t Operand,
        f: &'t FieldNode,
        args: &'t [Operand],
        fin: Option<Value>,
    ) -> R<Val> {
        self.at = At::Op(op);
        self.eval_field_chain(dot, dot.clone(), op, &f.ident, args, fin)
    }

    fn eval_chain_node(
        &mut self,
        dot: &Val,
        op: &'t Operand,
        c: &'t ChainNode,
        args: &'t [Operand],
        fin: Option<Value>,
    ) -> R<Val> {
        self.at = At::Op(op);
        if c.field.is_empty() {
            return Err(self.error("internal error: no fields in evalChainNode".to_string()));
        }
        if matches!(*c.node, Operand::Nil(_)) {
            return Err(self.error(format!("indirection through explicit nil in {op}")));
        }
        let recv = self.eval_arg_untyped(dot, &c.node)?;
        self.eval_field_chain(dot, recv, op, &c.field, args, fin)
    }

    fn eval_variable_node(
        &mut self,
        dot: &Val,
        op: &'t Operand,
        v: &'t VariableNode,
        args: &'t [Operand],
        fin: Option<Value>,
    ) -> R<Val> {
        self.at = At::Op(op);
        let name = v.ident.first().map_or("", |s| &**s);
        let value = self.var_value(name)?;
        if v.ident.len() <= 1 {
            self.not_a_function(args, &fin)?;
            return Ok(value);
        }
        self.eval_field_chain(dot, value, op, &v.ident[1..], args, fin)
    }

    /// `.X.Y.Z`, where only the last may be a method taking the arguments.
    fn eval_field_chain(
        &mut self,
        dot: &Val,
        receiver: Val,
        op: &'t Operand,
        ident: &'t [Box<str>],
        args: &'t [Operand],
        fin: Option<Value>,
    ) -> R<Val> {
        let Some((last, init)) = ident.split_last() else {
            return Ok(receiver);
        };
        let mut recv = receiver;
        for name in init {
            recv = self.eval_field(dot, name, op, &[], None, recv)?;
        }
        self.eval_field(dot, last, op, args, fin, recv)
    }

    fn eval_field(
        &mut self,
        dot: &Val,
        name: &str,
        op: &'t Operand,
        args: &'t [Operand],
        fin: Option<Value>,
        recv: Val,
    ) -> R<Val> {
        let has_args = args.len() > 1 || fin.is_some();
        match &recv.v {
            Value::Invalid => {
                if self.set.missing_key() == MissingKey::Error {
                    return Err(self.error(format!("nil data; no entry for key {}", quote(name))));
                }
                Ok(Val::plain(Value::Invalid))
            }
            Value::Nil => Err(self.error(format!("nil pointer evaluating interface {{}}.{name}"))),
            Value::Map(m) => {
                // A named map type's methods come first, as Go looks them up.
                if m.is_named()
                    && let Some(methods) = self.set.map_methods()
                    && let Some(method) = methods(m, name)
                {
                    return self.eval_call(dot, &method, false, At::Op(op), name, args, fin);
                }
                self.map_field(m, name, has_args)
            }
            Value::Object(o) => {
                // Methods first, then fields, as Go looks them up.
                if let Some(method) = o.method(name) {
                    return self.eval_call(dot, &method, false, At::Op(op), name, args, fin);
                }
                if let Some(v) = o.field(name) {
                    if has_args {
                        return Err(self.error(format!(
                            "{name} has arguments but cannot be invoked as function"
                        )));
                    }
                    return Ok(Val::plain(v));
                }
                if let Some(Value::Map(m)) = o.as_value() {
                    return self.map_field(&m, name, has_args);
                }
                Err(self.error(format!(
                    "can't evaluate field {name} in type {}",
                    recv.static_type()
                )))
            }
            _ => Err(self.error(format!(
                "can't evaluate field {name} in type {}",
                recv.static_type()
            ))),
        }
    }

    fn map_field(&self, m: &crate::value::Map, name: &str, has_args: bool) -> R<Val> {
        if has_args {
            return Err(self.error(format!("{name} is not a method but has arguments")));
        }
        if let Some(v) = m.get(name) {
            return Ok(Val { v, iface: true });
        }
        match self.set.missing_key() {
            MissingKey::Default => Ok(Val::plain(Value::Invalid)),
            // The zero value of interface{}: a nil interface.
            MissingKey::Zero => Ok(Val {
                v: Value::Nil,
                iface: true,
            }),
            MissingKey::Error => {
                Err(self.error(format!("map has no entry for key {}", quote(name))))
            }
        }
    }

    fn eval_function(
        &mut self,
        dot: &Val,
        op: &'t Operand,
        id: &'t IdentifierNode,
        node: At<'t>,
        args: &'t [Operand],
        fin: Option<Value>,
    ) -> R<Val> {
        self.at = At::Op(op);
        let name = &*id.ident;
        let Some(func) = self.set.funcs().get(name).cloned() else {
            return Err(self.error(format!("{} is not a defined function", quote(name))));
        };
        self.eval_call(dot, &func, func.builtin, node, name, args, fin)
    }

    /// Calls a function or method. `args` is the whole command (its first word is the function
    /// itself) or empty; `node` is where a failed call is reported.
    #[allow(clippy::too_many_arguments)]
    fn eval_call(
        &mut self,
        dot: &Val,
        func: &Rc<Func>,
        is_builtin: bool,
        node: At<'t>,
        name: &str,
        args: &'t [Operand],
        fin: Option<Value>,
    ) -> R<Val> {
        let args = args.get(1..).unwrap_or(&[]);
        let num_in = args.len() + usize::from(fin.is_some());
        if func.variadic.is_some() {
            let want = func.params.len();
            if num_in < want {
                // Go counts the piped value in the check but not in the message.
                return Err(self.error(format!(
                    "wrong number of args for {name}: want at least {want} got {}",
                    args.len()
                )));
            }
        } else if num_in != func.params.len() {
            return Err(self.error(format!(
                "wrong number of args for {name}: want {} got {num_in}",
                func.params.len()
            )));
        }

        // Go's builtin and/or evaluate lazily and return the deciding operand itself.
        if is_builtin && (name == "and" || name == "or") {
            let ty = func.param(0);
            let stop_on = name == "or";
            let mut v = Value::Invalid;
            for arg in args {
                v = self.eval_arg(dot, ty, arg)?;
                if v.truth().unwrap_or(false) == stop_on {
                    return Ok(Val::plain(v));
                }
            }
            if let Some(fin) = fin {
                v = self.validate(fin, ty)?;
            }
            return Ok(Val::plain(v));
        }

        let callee = (is_builtin && name == "call").then(|| match args.first() {
            Some(a) => a.to_string(),
            None => fin.as_ref().map(reflect_string).unwrap_or_default(),
        });
        let mut argv = Vec::with_capacity(num_in + 1);
        if let Some(callee) = callee {
            // Go's `call` gets the callee's name first, for its error messages.
            argv.push(Value::from(callee));
        }
        for (i, arg) in args.iter().enumerate() {
            argv.push(self.eval_arg(dot, func.param(i), arg)?);
        }
        if let Some(fin) = fin {
            argv.push(self.validate(fin, func.param(args.len()))?);
        }
        match (func.imp)(self, argv) {
            Ok(v) => {
                // Strings built by functions are charged by size: recursion that grows a
                // string at every level uses quadratic memory without printing anything.
                if let Value::String(s) = &v
                    && !self.set.steps.spend(s.len() as u64 / 64)
                {
                    self.at = node;
                    self.spend(0)?;
                }
                Ok(Val {
                    v,
                    iface: func.result == "interface {}",
                })
            }
            Err(e) => {
                self.at = node;
                Err(self.error(format!("error calling {name}: {e}")))
            }
        }
    }

    fn validate(&self, v: Value, ty: ArgType) -> R<Value> {
        convert_arg(ty, v).map_err(|e| self.error(e.message))
    }

    /// An argument for a parameter of type `ty`: computed values are checked, literals are
    /// converted to the parameter type as Go converts untyped constants.
    fn eval_arg(&mut self, dot: &Val, ty: ArgType, n: &'t Operand) -> R<Value> {
        self.at = At::Op(n);
        let computed = match n {
            Operand::Dot(_) => dot.v.clone(),
            Operand::Nil(_) => {
                return match ty {
                    ArgType::Reflect => Ok(Value::Invalid),
                    t if t.can_be_nil() => Ok(Value::Nil),
                    t => Err(self.error(format!("cannot assign nil to {}", t.go_name()))),
                };
            }
            Operand::Field(f) => {
                self.eval_field_node(dot, n, f, std::slice::from_ref(n), None)?
                    .v
            }
            Operand::Variable(v) => self.eval_variable_node(dot, n, v, &[], None)?.v,
            Operand::Pipe(p) => self.eval_pipeline(dot, p)?,
            Operand::Identifier(id) => self.eval_function(dot, n, id, At::Op(n), &[], None)?.v,
            Operand::Chain(c) => self.eval_chain_node(dot, n, c, &[], None)?.v,
            Operand::Bool(..) | Operand::Number(_) | Operand::String(_) => {
                return self.eval_literal(ty, n);
            }
        };
        self.validate(computed, ty)
    }

    fn eval_literal(&mut self, ty: ArgType, n: &'t Operand) -> R<Value> {
        let found = |st: &Self, what: &str| Err(st.error(format!("expected {what}; found {n}")));
        match ty {
            ArgType::Bool => match n {
                Operand::Bool(_, b) => Ok(Value::Bool(*b)),
                _ => found(self, "bool"),
            },
            ArgType::String => match n {
                Operand::String(s) => Ok(Value::String(s.text.clone())),
                _ => found(self, "string"),
            },
            ArgType::Float64 => match n {
                Operand::Number(num) if num.is_float => Ok(Value::Float(num.float64)),
                _ => found(self, "float"),
            },
            ArgType::Int(kind) if kind.is_unsigned() => match n {
                Operand::Number(num) if num.is_uint => Ok(int_of_kind(num.uint64, kind)),
                _ => found(self, "unsigned integer"),
            },
            ArgType::Int(kind) => match n {
                Operand::Number(num) if num.is_int => Ok(int_of_kind(num.int64 as u64, kind)),
                _ => found(self, "integer"),
            },
            ArgType::Any | ArgType::Reflect => match n {
                Operand::Bool(_, b) => Ok(Value::Bool(*b)),
                Operand::Number(num) => self.ideal_constant(n, num),
                Operand::String(s) => Ok(Value::String(s.text.clone())),
                _ => Err(self.error(format!(
                    "can't handle assignment of {n} to empty interface argument"
                ))),
            },
            ArgType::List
            | ArgType::Map
            | ArgType::Bytes
            | ArgType::Struct(_)
            | ArgType::Interface(_) => {
                Err(self.error(format!("can't handle {n} for arg of type {}", ty.go_name())))
            }
        }
    }

    /// The receiver of a chain (`(pipeline).X` or `fn.X`), unconverted.
    fn eval_arg_untyped(&mut self, dot: &Val, n: &'t Operand) -> R<Val> {
        self.at = At::Op(n);
        match n {
            Operand::Pipe(p) => Ok(Val::plain(self.eval_pipeline(dot, p)?)),
            Operand::Identifier(id) => self.eval_function(dot, n, id, At::Op(n), &[], None),
            Operand::Dot(_) => Ok(dot.clone()),
            Operand::Field(f) => self.eval_field_node(dot, n, f, std::slice::from_ref(n), None),
            Operand::Variable(v) => self.eval_variable_node(dot, n, v, &[], None),
            Operand::Chain(c) => self.eval_chain_node(dot, n, c, &[], None),
            _ => Ok(Val::plain(self.eval_literal(ArgType::Any, n)?)),
        }
    }
}

/// What functions see of the running template: Helm's `include` and `tpl` are built on this.
impl State<'_> {
    fn inner_depth(&self) -> Depth {
        Depth {
            depth: self.depth,
            nest: self.nest + 1,
        }
    }
}

impl Context for State<'_> {
    fn execute_template(&mut self, name: &str, data: Value) -> Result<String, FuncError> {
        self.set
            .execute_at_depth(name, data, self.inner_depth())
            .map_err(|e| FuncError::new(e.to_string()))
    }

    fn execute_text(&mut self, name: &str, text: &str, data: Value) -> Result<String, TextError> {
        let mut set = self.set.clone();
        let tree = set
            .parse_template(name, text)
            .map_err(|e| TextError::Parse(FuncError::new(e.to_string())))?;
        execute(&set, &tree, data, self.inner_depth())
            .map_err(|e| TextError::Execute(FuncError::new(e.to_string())))
    }
}

#[cfg(test)]
#[path = "exec_tests.rs"]
mod tests;
