//! Where each value of a document sits in its text: the same tree [`crate::from_yaml`] reads
//! (first document, go-yaml's key conversion, merge keys, aliases, later duplicate keys winning),
//! with the line and column of every node, for error messages that point into the file.

use crate::YamlError;
use crate::libyaml;
use crate::read::{Decoder, Node, NodeKind, TreeParser, key_string};

/// One step of a path into a document: a mapping key (as `sigs.k8s.io/yaml` turns it into a
/// string) or a sequence index.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PathSeg {
    Key(String),
    Index(usize),
}

/// A 1-based line and column (in characters, as libyaml counts them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Mark {
    pub line: usize,
    pub column: usize,
}

impl Mark {
    fn from_libyaml(m: libyaml::Mark) -> Mark {
        Mark {
            line: m.line + 1,
            column: m.column + 1,
        }
    }
}

/// What a node holds, so a caller layering documents knows which records a later document
/// replaces (a mapping merges into an earlier one; anything else replaces it whole).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Scalar,
    Sequence,
    Mapping,
}

/// A node of the document: its path from the root, where its key starts (for a mapping entry),
/// where its value starts, and its shape. For a value reached through an alias, `value` is the
/// alias (`*name`) and the nodes under it are where the anchored text is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    pub path: Vec<PathSeg>,
    pub key: Option<Mark>,
    pub value: Mark,
    pub shape: Shape,
}

impl Position {
    /// The key's position for a mapping entry (what names the field), else the value's.
    pub fn mark(&self) -> Mark {
        self.key.unwrap_or(self.value)
    }
}

/// A node of the positioned tree, before flattening.
struct PNode {
    key: Option<Mark>,
    value: Mark,
    body: PBody,
}

enum PBody {
    Scalar,
    Sequence(Vec<PNode>),
    Mapping(Vec<(String, PNode)>),
}

/// Every node of the first document, parents before children, in document order. The root (an
/// empty path) is included unless the document is empty. Fails exactly when `from_yaml` fails,
/// with its error.
pub(crate) fn positions(input: &[u8]) -> Result<Vec<Position>, YamlError> {
    // Reading the value first gives every error (bad keys, aliasing limits, JSON conversion)
    // exactly as from_yaml reports it; the walk below then cannot meet them.
    crate::read::from_yaml_bytes(input)?;
    let mut p = TreeParser::new(input);
    let fail = |f: crate::read::Fail| f.into_error("error converting YAML to JSON: ");
    let Some(root) = p.parse().map_err(fail)? else {
        return Ok(Vec::new());
    };
    let nodes = &p.nodes;
    let NodeKind::Document(child) = &nodes[root].kind else {
        return Ok(Vec::new());
    };
    let Some(child) = *child else {
        return Ok(Vec::new());
    };
    let walker = Walker { nodes };
    let tree = walker.node(child, None).map_err(fail)?;
    let mut out = Vec::new();
    flatten(&tree, &mut Vec::new(), &mut out);
    Ok(out)
}

struct Walker<'a> {
    nodes: &'a [Node],
}

impl Walker<'_> {
    fn node(&self, id: usize, key: Option<Mark>) -> Result<PNode, crate::read::Fail> {
        gotemplate::stack::grow(|| {
            let value = Mark::from_libyaml(self.nodes[id].mark);
            let target = self.deref(id);
            let body = match &self.nodes[target].kind {
                NodeKind::Sequence(children) => {
                    let mut items = Vec::with_capacity(children.len());
                    for &c in children {
                        items.push(self.node(c, None)?);
                    }
                    PBody::Sequence(items)
                }
                NodeKind::Mapping(_) => {
                    let mut entries = Vec::new();
                    self.mapping_into(target, &mut entries)?;
                    PBody::Mapping(entries)
                }
                _ => PBody::Scalar,
            };
            Ok(PNode { key, value, body })
        })
    }

    /// Follows aliases to the anchored node.
    fn deref(&self, mut id: usize) -> usize {
        while let NodeKind::Alias { target, .. } = &self.nodes[id].kind {
            id = *target;
        }
        id
    }

    /// go-yaml's mapping decode order: merges and entries in turn, a later key replacing an
    /// earlier one in place.
    fn mapping_into(
        &self,
        id: usize,
        out: &mut Vec<(String, PNode)>,
    ) -> Result<(), crate::read::Fail> {
        gotemplate::stack::grow(|| {
            let id = self.deref(id);
            let NodeKind::Mapping(children) = &self.nodes[id].kind else {
                return Ok(());
            };
            let decoder = Decoder::new(self.nodes);
            for pair in children.chunks(2) {
                let (k, v) = (pair[0], pair[1]);
                if decoder.is_merge(k) {
                    // As go-yaml: a sequence written in place is a list of maps to merge; an alias
                    // or a mapping is one map.
                    match &self.nodes[v].kind {
                        NodeKind::Sequence(items) => {
                            // Earlier maps of a merge sequence take precedence: apply them last.
                            for &c in items.iter().rev() {
                                self.mapping_into(c, out)?;
                            }
                        }
                        _ => self.mapping_into(v, out)?,
                    }
                    continue;
                }
                let key_val = Decoder::new(self.nodes).unmarshal(k)?;
                let value_val = Decoder::new(self.nodes).unmarshal(v)?;
                let name = key_string(&key_val, &value_val)?;
                let node = self.node(v, Some(Mark::from_libyaml(self.nodes[k].mark)))?;
                match out.iter_mut().find(|(n, _)| *n == name) {
                    Some(slot) => slot.1 = node,
                    None => out.push((name, node)),
                }
            }
            Ok(())
        })
    }
}

/// Where the first collection (in document order) of the first document sits that is inside
/// more than `max` collections (the root counting as the first), following aliases to what
/// they name; `None` when none does, or when the text does not parse (its reader then says
/// why). Linear in the document: each node's height is found once.
pub(crate) fn first_too_deep(input: &[u8], max: usize) -> Option<Mark> {
    let mut p = TreeParser::new(input);
    let root = p.parse().ok()??;
    let nodes = &p.nodes;
    let NodeKind::Document(Some(child)) = nodes[root].kind else {
        return None;
    };
    let mut heights = vec![None; nodes.len()];
    let mut on_path = vec![false; nodes.len()];
    find_too_deep(nodes, child, 1, max, &mut heights, &mut on_path)
}

/// How many collections deep the tree under `id` goes (0 for a scalar), following aliases; an
/// alias back into its own anchor (a cycle) counts as infinitely deep.
fn height(nodes: &[Node], id: usize, memo: &mut [Option<usize>], on_path: &mut [bool]) -> usize {
    gotemplate::stack::grow(|| {
        if let Some(h) = memo[id] {
            return h;
        }
        if on_path[id] {
            return usize::MAX;
        }
        on_path[id] = true;
        let h = match &nodes[id].kind {
            NodeKind::Alias { target, .. } => height(nodes, *target, memo, on_path),
            NodeKind::Sequence(children) | NodeKind::Mapping(children) => children
                .iter()
                .map(|&c| height(nodes, c, memo, on_path))
                .max()
                .unwrap_or(0)
                .saturating_add(1),
            _ => 0,
        };
        on_path[id] = false;
        memo[id] = Some(h);
        h
    })
}

/// The first collection under `id` (which sits at `depth`, 1 for the root) beyond `max`.
fn find_too_deep(
    nodes: &[Node],
    id: usize,
    depth: usize,
    max: usize,
    memo: &mut [Option<usize>],
    on_path: &mut [bool],
) -> Option<Mark> {
    gotemplate::stack::grow(|| {
        let h = height(nodes, id, memo, on_path);
        if h == 0 || depth.saturating_add(h - 1) <= max {
            return None;
        }
        if depth > max {
            return Some(Mark::from_libyaml(nodes[id].mark));
        }
        match &nodes[id].kind {
            NodeKind::Alias { target, .. } => {
                // The alias's own text stands for what it names.
                find_too_deep(nodes, *target, depth, max, memo, on_path)
                    .map(|_| Mark::from_libyaml(nodes[id].mark))
            }
            NodeKind::Sequence(children) | NodeKind::Mapping(children) => children
                .iter()
                .find_map(|&c| find_too_deep(nodes, c, depth + 1, max, memo, on_path)),
            _ => None,
        }
    })
}

fn flatten(n: &PNode, path: &mut Vec<PathSeg>, out: &mut Vec<Position>) {
    gotemplate::stack::grow(|| {
        let shape = match n.body {
            PBody::Scalar => Shape::Scalar,
            PBody::Sequence(_) => Shape::Sequence,
            PBody::Mapping(_) => Shape::Mapping,
        };
        out.push(Position {
            path: path.clone(),
            key: n.key,
            value: n.value,
            shape,
        });
        match &n.body {
            PBody::Scalar => {}
            PBody::Sequence(items) => {
                for (i, item) in items.iter().enumerate() {
                    path.push(PathSeg::Index(i));
                    flatten(item, path, out);
                    path.pop();
                }
            }
            PBody::Mapping(entries) => {
                for (k, v) in entries {
                    path.push(PathSeg::Key(k.clone()));
                    flatten(v, path, out);
                    path.pop();
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(s: &str) -> PathSeg {
        PathSeg::Key(s.to_string())
    }

    fn at(ps: &[Position], path: &[PathSeg]) -> (usize, usize) {
        let p = ps
            .iter()
            .find(|p| p.path == path)
            .unwrap_or_else(|| panic!("no position for {path:?}"));
        let m = p.mark();
        (m.line, m.column)
    }

    #[test]
    fn keys_and_items_have_their_lines_and_columns() {
        let text = "spec:\n  hub: foo\n  list:\n  - a\n  -   b: 1\n      c: [x, y]\n";
        let ps = positions(text.as_bytes()).unwrap();
        assert_eq!(at(&ps, &[]), (1, 1));
        assert_eq!(at(&ps, &[k("spec")]), (1, 1));
        assert_eq!(at(&ps, &[k("spec"), k("hub")]), (2, 3));
        let hub = ps.iter().find(|p| p.path == [k("spec"), k("hub")]).unwrap();
        assert_eq!((hub.value.line, hub.value.column), (2, 8));
        assert_eq!(hub.shape, Shape::Scalar);
        let list = [k("spec"), k("list")];
        assert_eq!(at(&ps, &list), (3, 3));
        let mut p = list.to_vec();
        p.push(PathSeg::Index(0));
        assert_eq!(at(&ps, &p), (4, 5));
        p[2] = PathSeg::Index(1);
        assert_eq!(at(&ps, &p), (5, 7));
        p.push(k("c"));
        assert_eq!(at(&ps, &p), (6, 7));
        p.push(PathSeg::Index(1));
        assert_eq!(at(&ps, &p), (6, 14));
    }

    #[test]
    fn later_duplicate_keys_replace_the_whole_subtree() {
        let text = "a:\n  x: 1\n  y: 2\na:\n  z: 3\n";
        let ps = positions(text.as_bytes()).unwrap();
        assert_eq!(at(&ps, &[k("a")]), (4, 1));
        assert_eq!(at(&ps, &[k("a"), k("z")]), (5, 3));
        assert!(!ps.iter().any(|p| p.path == [k("a"), k("x")]));
    }

    #[test]
    fn keys_are_converted_as_sigs_yaml_converts_them() {
        let ps = positions(b"1: a\ny: b\n1.5: c\n").unwrap();
        assert_eq!(at(&ps, &[k("1")]), (1, 1));
        assert_eq!(at(&ps, &[k("true")]), (2, 1));
        assert_eq!(at(&ps, &[k("1.5")]), (3, 1));
    }

    #[test]
    fn merge_keys_and_aliases_point_at_the_anchored_text() {
        // (Not `y`: YAML 1.1 reads that key as the boolean true.)
        let text = "base: &b\n  x: 1\n  w: 2\nother:\n  <<: *b\n  w: 3\nref: *b\n";
        let ps = positions(text.as_bytes()).unwrap();
        assert_eq!(at(&ps, &[k("other"), k("x")]), (2, 3));
        assert_eq!(at(&ps, &[k("other"), k("w")]), (6, 3));
        assert_eq!(at(&ps, &[k("ref")]), (7, 1));
        let r = ps.iter().find(|p| p.path == [k("ref")]).unwrap();
        assert_eq!((r.value.line, r.value.column), (7, 6));
        assert_eq!(r.shape, Shape::Mapping);
        assert_eq!(at(&ps, &[k("ref"), k("w")]), (3, 3));
    }

    #[test]
    fn empty_documents_have_no_positions_and_errors_are_from_yamls() {
        assert!(positions(b"").unwrap().is_empty());
        assert!(positions(b"# only a comment\n").unwrap().is_empty());
        let e = positions(b"a: [\n").unwrap_err();
        let want = crate::from_yaml("a: [\n").unwrap_err();
        assert_eq!(e, want);
    }

    #[test]
    fn the_first_collection_too_deep_is_found() {
        let deep = |d: usize| format!("a:\n  b: {}1{}\n", "[".repeat(d), "]".repeat(d));
        // The root mapping, `a`'s mapping, then the lists: `d` lists are `d + 2` deep.
        assert_eq!(first_too_deep(deep(8).as_bytes(), 10), None);
        let at = first_too_deep(deep(9).as_bytes(), 10).unwrap();
        assert_eq!((at.line, at.column), (2, 14));
        let at = first_too_deep(deep(9000).as_bytes(), 10).unwrap();
        assert_eq!((at.line, at.column), (2, 14));
        let flow = format!("{}1{}", "{a: ".repeat(12), "}".repeat(12));
        let at = first_too_deep(flow.as_bytes(), 10).unwrap();
        assert_eq!((at.line, at.column), (1, 41));
        // Aliases count as what they name; the alias's text is where it is too deep.
        let text = "x: &x [[[1]]]\ny:\n  z: *x\n";
        assert_eq!(first_too_deep(text.as_bytes(), 5), None);
        let at = first_too_deep(text.as_bytes(), 4).unwrap();
        assert_eq!((at.line, at.column), (3, 6));
        // Scalars are no collections; text that does not parse is left to its reader.
        assert_eq!(first_too_deep(b"a: 1\n", 1), None);
        assert_eq!(first_too_deep(b"a: [\n", 1), None);
        assert_eq!(first_too_deep(b"", 0), None);
    }

    #[test]
    fn only_the_first_document_is_read() {
        let ps = positions(b"a: 1\n---\nb: 2\n").unwrap();
        assert!(ps.iter().any(|p| p.path == [k("a")]));
        assert!(!ps.iter().any(|p| p.path == [k("b")]));
    }
}
