//! A set of named templates sharing definitions: Go's `*Template` family as Helm uses it
//! (`t.New(name).Parse(text)`, then `ExecuteTemplate`).
//!
//! Cloning is O(1): trees are shared, and the name table is a chain of layers where a clone that
//! parses more templates gets its own layer on top of the shared one. Helm's `tpl` clones the
//! running set on every call, so this matters.

use std::cell::Cell;
use std::collections::BTreeSet;

use crate::{HashMap, HashSet};
use std::rc::Rc;

use crate::ast::Tree;
use crate::error::{ExecError, ParseError};
use crate::exec;
use crate::funcs::{FuncMap, MapMethods};
use crate::parse;
use crate::value::Value;

/// Go's `missingkey` option: what a missing map key yields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MissingKey {
    /// No value (printed `<no value>`): `missingkey=default` / `invalid`.
    #[default]
    Default,
    /// The map's zero value, a nil interface: `missingkey=zero`.
    Zero,
    /// An error: `missingkey=error`.
    Error,
}

#[derive(Default)]
struct Layer {
    trees: HashMap<Rc<str>, Rc<Tree>>,
    parent: Option<Rc<Layer>>,
}

impl Layer {
    fn get(&self, name: &str) -> Option<&Rc<Tree>> {
        let mut layer = self;
        loop {
            if let Some(t) = layer.trees.get(name) {
                return Some(t);
            }
            layer = layer.parent.as_deref()?;
        }
    }
}

/// A namespace of named templates sharing definitions, with the functions and options they run
/// with.
#[derive(Clone)]
pub struct Templates {
    layer: Rc<Layer>,
    funcs: Rc<FuncMap>,
    left: Rc<str>,
    right: Rc<str>,
    missing_key: MissingKey,
    root_name: Rc<str>,
    map_methods: Option<Rc<MapMethods>>,
    pub(crate) steps: Rc<StepBudget>,
}

/// An optional bound on the work of one top-level execution (nested ones share it): Go has
/// none, but a service rendering untrusted templates, or a fuzzer, needs every run to end.
#[derive(Default)]
pub(crate) struct StepBudget {
    limit: Cell<Option<u64>>,
    used: Cell<u64>,
}

impl StepBudget {
    /// Counts `cost` steps; false once the limit is passed.
    pub(crate) fn spend(&self, cost: u64) -> bool {
        match self.limit.get() {
            None => true,
            Some(limit) => {
                let used = self.used.get().saturating_add(cost);
                self.used.set(used);
                used <= limit
            }
        }
    }

    pub(crate) fn limit(&self) -> Option<u64> {
        self.limit.get()
    }
}

impl Templates {
    /// A set with Go's builtins plus `funcs` (which replace same-named builtins, as Go's
    /// template funcs shadow its builtins).
    pub fn new(funcs: FuncMap) -> Templates {
        let mut all = FuncMap::builtins();
        all.extend(funcs);
        Templates {
            layer: Rc::default(),
            funcs: Rc::new(all),
            left: Rc::from(""),
            right: Rc::from(""),
            missing_key: MissingKey::Default,
            root_name: Rc::from(""),
            map_methods: None,
            steps: Rc::default(),
        }
    }

    /// Bounds each top-level execution (with everything it starts) to `limit` walked nodes and
    /// loop iterations; beyond it execution fails. Unlimited by default, as in Go.
    pub fn set_step_limit(&mut self, limit: Option<u64>) {
        self.steps = Rc::new(StepBudget {
            limit: Cell::new(limit),
            used: Cell::new(0),
        });
    }

    /// The name of the template the set was created from, which Go's "no template ... associated
    /// with template NAME" error shows (Helm's is `gotpl`).
    pub fn set_root_name(&mut self, name: &str) {
        self.root_name = Rc::from(name);
    }

    /// Action delimiters for later parses; empty means the default `{{` / `}}`.
    pub fn set_delims(&mut self, left: &str, right: &str) {
        self.left = Rc::from(left);
        self.right = Rc::from(right);
    }

    /// The methods of named map types (see [`MapMethods`]); without them such maps have none.
    pub fn set_map_methods(&mut self, methods: Rc<MapMethods>) {
        self.map_methods = Some(methods);
    }

    pub(crate) fn map_methods(&self) -> Option<&MapMethods> {
        self.map_methods.as_deref()
    }

    pub fn set_missing_key(&mut self, mk: MissingKey) {
        self.missing_key = mk;
    }

    pub fn missing_key(&self) -> MissingKey {
        self.missing_key
    }

    /// Adds functions (replacing same-named ones). Like Go's `Funcs`, it affects later parses
    /// and all executions.
    pub fn add_funcs(&mut self, funcs: FuncMap) {
        Rc::make_mut(&mut self.funcs).extend(funcs);
    }

    pub fn funcs(&self) -> &FuncMap {
        &self.funcs
    }

    /// Parses `text` as the template `name` (Go's `t.New(name).Parse(text)`), adding it and the
    /// templates it defines. A later definition replaces an earlier one, except that a body of
    /// only spaces does not replace an existing template. On error nothing is added.
    pub fn parse(&mut self, name: &str, text: &str) -> Result<(), ParseError> {
        let trees = parse::parse(name, text, &self.left, &self.right, &*self.funcs)?;
        self.add_trees(trees, "");
        Ok(())
    }

    /// [`Templates::parse`], returning the tree that Go's new template (`t.New(name)`) holds
    /// afterwards, which `t.Execute` runs: the text's own, even where the set keeps an older
    /// template of that name (an empty text does not replace one).
    pub fn parse_template(&mut self, name: &str, text: &str) -> Result<Rc<Tree>, ParseError> {
        let trees = parse::parse(name, text, &self.left, &self.right, &*self.funcs)?;
        Ok(self
            .add_trees(trees, name)
            .expect("a parse always yields the tree of the name it parsed"))
    }

    /// What [`Templates::parse`] needs to parse on another thread: the delimiters and the
    /// functions' names as they are now.
    pub fn detached_parser(&self) -> DetachedParser {
        DetachedParser {
            left: self.left.to_string(),
            right: self.right.to_string(),
            funcs: self.funcs.names().map(str::to_string).collect(),
        }
    }

    /// Adds what a [`DetachedParser`] parsed, as [`Templates::parse`] would have.
    pub fn add_parsed(&mut self, parsed: Parsed) {
        self.add_trees(parsed.trees, "");
    }

    /// Adds the trees of a parse; returns the one named `wanted`, added or not.
    fn add_trees(&mut self, trees: HashMap<Rc<str>, Tree>, wanted: &str) -> Option<Rc<Tree>> {
        let mut added = HashMap::with_capacity_and_hasher(trees.len(), Default::default());
        let mut found = None;
        for (name, tree) in trees {
            let tree = Rc::new(tree);
            if *name == *wanted {
                found = Some(tree.clone());
            }
            if tree.is_empty() && self.layer.get(&name).is_some() {
                continue;
            }
            added.insert(name, tree);
        }
        match Rc::get_mut(&mut self.layer) {
            Some(layer) => layer.trees.extend(added),
            None => {
                let parent = Some(self.layer.clone());
                self.layer = Rc::new(Layer {
                    trees: added,
                    parent,
                });
            }
        }
        found
    }

    /// Executes the named template with `data` as dot (Go's `ExecuteTemplate`).
    // The error is returned by value, as the API promises; inside, it travels boxed.
    #[allow(clippy::result_large_err)]
    pub fn execute(&self, name: &str, data: Value) -> Result<String, ExecError> {
        self.steps.used.set(0);
        self.execute_at_depth(name, data, exec::Depth::default())
            .map_err(|e| *e)
    }

    /// [`Templates::execute`], its output as the pieces it was printed in (see
    /// [`crate::exec::Output::into_pieces`]): a large printed string is not copied.
    #[allow(clippy::result_large_err)]
    pub fn execute_pieces(&self, name: &str, data: Value) -> Result<Vec<crate::Str>, ExecError> {
        self.steps.used.set(0);
        let Some(tree) = self.lookup(name) else {
            return Err(ExecError::no_template(name, &self.root_name));
        };
        exec::execute_output(self, tree, data, exec::Depth::default())
            .map(exec::Output::into_pieces)
            .map_err(|e| *e)
    }

    /// An execution that may be started from inside another one (by a function).
    pub(crate) fn execute_at_depth(
        &self,
        name: &str,
        data: Value,
        depth: exec::Depth,
    ) -> Result<String, Box<ExecError>> {
        let Some(tree) = self.lookup(name) else {
            return Err(Box::new(ExecError::no_template(name, &self.root_name)));
        };
        exec::execute(self, tree, data, depth)
    }

    pub fn has(&self, name: &str) -> bool {
        self.lookup(name).is_some()
    }

    /// All template names, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut names = BTreeSet::new();
        let mut layer = Some(&*self.layer);
        while let Some(l) = layer {
            names.extend(l.trees.keys().map(|k| k.to_string()));
            layer = l.parent.as_deref();
        }
        names.into_iter().collect()
    }

    /// The parse tree of a template.
    pub fn lookup(&self, name: &str) -> Option<&Rc<Tree>> {
        self.layer.get(name)
    }
}

/// Parses templates for a [`Templates`] away from it, on any thread (Helm charts have dozens of
/// templates to parse before the first runs).
#[derive(Clone, Debug)]
pub struct DetachedParser {
    left: String,
    right: String,
    funcs: HashSet<String>,
}

impl DetachedParser {
    /// [`Templates::parse`]'s parse, for [`Templates::add_parsed`].
    pub fn parse(&self, name: &str, text: &str) -> Result<Parsed, ParseError> {
        let trees = parse::parse(name, text, &self.left, &self.right, &self.funcs)?;
        Ok(Parsed { trees })
    }
}

/// The trees of one [`DetachedParser::parse`], to be added to the set it was made for.
pub struct Parsed {
    trees: HashMap<Rc<str>, Tree>,
}

// SAFETY: `Rc` is not `Send` because two threads could hold clones of one allocation and race
// on its counts. Every `Rc` in `trees` was made by the parse that made `trees` (from `&str`s,
// not from clones of anything else: the parser sees only strings and a set of names) and every
// clone of it is inside `trees`: the parser, which held the others, is gone when `parse`
// returns. A `Parsed` therefore owns every handle to its allocations, and moving it moves
// them all to one thread.
unsafe impl Send for Parsed {}

#[cfg(test)]
mod step_limit_tests {
    use super::*;

    #[test]
    fn a_step_limit_ends_long_loops_with_an_error() {
        let mut set = Templates::new(FuncMap::new());
        set.set_step_limit(Some(1000));
        set.parse("t", "{{ range 1000000000000 }}{{ end }}")
            .unwrap();
        let err = set.execute("t", Value::Nil).unwrap_err();
        assert!(
            err.to_string()
                .contains("exceeded the execution step limit (1000)"),
            "{err}"
        );
        // The budget is per top-level execution.
        set.parse("small", "{{ range 10 }}x{{ end }}").unwrap();
        assert_eq!(set.execute("small", Value::Nil).unwrap(), "xxxxxxxxxx");
        assert_eq!(set.execute("small", Value::Nil).unwrap(), "xxxxxxxxxx");
    }
}
