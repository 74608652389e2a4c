//! Validation of a merged IstioOperator: what istioctl's own validation checks
//! (operator/pkg/apis/validation, with its messages), the schemas of the Istio version that
//! renders it ([`VersionSchemas`]: the pin's, compiled in, or those read from another version's
//! package: its IstioOperator types from `types.go`, [`IopSchema`]; its `values` from
//! values_types.proto, [`ValuesSchema`]; its MeshConfig protos, [`MeshSchema`]) (unknown
//! fields, wrong types, deprecated fields as warnings), and
//! Kubernetes' own field rules inside every component's `k8s` block, which istioctl leaves to
//! the API server (so its users learn of them only mid-install). Each finding names the field
//! (as istioctl prints paths) and, through the [`SourceMap`], where it was set. `meshConfig`
//! is decoded as Istio's MeshConfig proto and judged by Istio's mesh rules (`mesh`).

mod comments;
mod gotypes;
mod istio;
mod k8s;
mod mesh;
mod mesh_rules;
mod proto;
mod schema;

/// The pin's own sources, for the tests that check a reader against the committed schemas.
#[cfg(test)]
pub(crate) mod pinned_source {
    /// Bosun's Go module cache (`scripts/fetch-istio` fills it) and the pin's module version.
    pub(crate) fn gomod_cache_and_pin() -> (std::path::PathBuf, &'static str) {
        let pin = include_str!("../../../../scripts/istio-pin");
        let version = pin
            .lines()
            .find_map(|l| l.strip_prefix("ISTIO_VERSION="))
            .expect("ISTIO_VERSION in scripts/istio-pin")
            .trim_matches(|c| c == '"' || c == '\'');
        let cache = std::env::var_os("BOSUN_GOMODCACHE")
            .map(std::path::PathBuf::from)
            .or_else(|| {
                let base = std::env::var_os("BOSUN_CACHE")
                    .map(std::path::PathBuf::from)
                    .or_else(|| {
                        std::env::var_os("HOME")
                            .map(|h| std::path::Path::new(&h).join(".cache/bosun"))
                    })?;
                Some(base.join("gomod"))
            })
            .expect("a cache folder");
        (cache, version)
    }

    /// The pin's `istio.io/istio` file `rel`, from bosun's Go module cache (see
    /// [`read_or_skip`]).
    pub(crate) fn pinned_module_file(rel: &str) -> Option<String> {
        let (cache, version) = gomod_cache_and_pin();
        read_or_skip(&cache.join(format!("istio.io/istio@{version}")).join(rel))
    }

    /// Skips (outside CI) when `path` is not there: CI fetches the pin first, and there a
    /// missing file is a failure.
    pub(crate) fn read_or_skip(path: &std::path::Path) -> Option<String> {
        match std::fs::read_to_string(path) {
            Ok(text) => Some(text),
            Err(_) => {
                assert!(
                    std::env::var_os("CI").is_none(),
                    "{} is not there",
                    path.display()
                );
                eprintln!(
                    "skipping: {} is not there (scripts/fetch-istio fetches it)",
                    path.display()
                );
                None
            }
        }
    }
}

pub use gotypes::GoTypesError;
pub use proto::ProtoError;
pub use schema::{IopSchema, MeshSchema, ValuesSchema};

use std::fmt;

use serde_json::Value;

use crate::source::{Origin, PathSeg, SourceMap, dotted};

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    /// The field, from the IstioOperator's root.
    pub path: Vec<PathSeg>,
    /// The field as istioctl prints it (relative to `spec`: `components.pilot.k8s.env[0]`).
    pub field: String,
    pub message: String,
    /// Where the field (or its nearest recorded parent) was set.
    pub origin: Option<Origin>,
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(o) = &self.origin {
            write!(f, "{o}: ")?;
        }
        if self.field.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

/// Errors (the IstioOperator must not be installed) and warnings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub errors: Vec<Issue>,
    pub warnings: Vec<Issue>,
}

impl Report {
    pub fn is_ok(&self) -> bool {
        self.errors.is_empty()
    }
}

/// The checking context: where findings go and where they came from.
pub(crate) struct Ctx<'a> {
    sources: &'a SourceMap,
    /// The IstioOperator's own schema, of the install package's Istio version.
    iop: &'a schema::IopSchema,
    /// The `values` schema of the install package's Istio version.
    values: &'a schema::ProtoSchema,
    /// Its MeshConfig schema.
    mesh: &'a schema::ProtoSchema,
    report: Report,
}

impl Ctx<'_> {
    fn issue(&self, path: &[PathSeg], message: String) -> Issue {
        Issue {
            path: path.to_vec(),
            field: dotted(path),
            message,
            origin: self.sources.lookup(path).cloned(),
        }
    }

    pub(crate) fn error(&mut self, path: &[PathSeg], message: impl Into<String>) {
        let i = self.issue(path, message.into());
        if !self.report.errors.contains(&i) {
            self.report.errors.push(i);
        }
    }

    pub(crate) fn warn(&mut self, path: &[PathSeg], message: impl Into<String>) {
        let i = self.issue(path, message.into());
        if !self.report.warnings.contains(&i) {
            self.report.warnings.push(i);
        }
    }
}

pub(crate) fn child(path: &[PathSeg], seg: PathSeg) -> Vec<PathSeg> {
    let mut p = path.to_vec();
    p.push(seg);
    p
}

pub(crate) fn key(path: &[PathSeg], k: &str) -> Vec<PathSeg> {
    child(path, PathSeg::Key(k.to_string()))
}

/// JSON's name for a value's type, as Go's encoding/json errors say it.
pub(crate) fn kind_name(v: &Value) -> &'static str {
    crate::tree::json_type(v)
}

/// A number as Go prints a float64 that holds it (YAML numbers arrive as floats even when
/// integral: `3`, not `3.0`).
pub(crate) fn num(v: &Value) -> String {
    match v.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() < 1e21 => format!("{}", f as i128),
        Some(f) => format!("{f}"),
        None => v.to_string(),
    }
}

/// The schemas of the Istio version that renders an IstioOperator: the IstioOperator's own,
/// its `values` and its MeshConfig.
#[derive(Debug, Clone, Copy)]
pub struct VersionSchemas<'a> {
    pub iop: &'a IopSchema,
    pub values: &'a ValuesSchema,
    pub mesh: &'a MeshSchema,
}

impl VersionSchemas<'static> {
    /// The pinned Istio's, compiled in.
    pub fn pinned() -> VersionSchemas<'static> {
        VersionSchemas {
            iop: IopSchema::pinned(),
            values: ValuesSchema::pinned(),
            mesh: MeshSchema::pinned(),
        }
    }
}

/// Validates a merged IstioOperator (the whole document: `apiVersion`, `kind`, `metadata`,
/// `spec`) with the pinned Istio's schemas. Findings come in a stable order: schema, then
/// istioctl's checks, then Kubernetes'.
pub fn validate(iop: &Value, sources: &SourceMap) -> Report {
    validate_with(iop, sources, VersionSchemas::pinned())
}

/// [`validate`] with the schemas of the Istio version that will render it.
pub fn validate_with(iop: &Value, sources: &SourceMap, schemas: VersionSchemas<'_>) -> Report {
    let mut cx = Ctx {
        sources,
        iop: schemas.iop,
        values: &schemas.values.schema,
        mesh: &schemas.mesh.schema,
        report: Report::default(),
    };
    schema::check_struct(&mut cx, iop, schema::root_type(), &[]);
    let spec_path = key(&[], "spec");
    if let Some(spec) = iop.get("spec")
        && spec.is_object()
    {
        if let Some(values) = spec.get("values")
            && !values.is_null()
        {
            schema::check_values(&mut cx, values, &key(&spec_path, "values"));
        }
        istio::check(&mut cx, spec, &spec_path);
        mesh::check(&mut cx, spec, &spec_path);
        k8s::check_components(&mut cx, spec, &spec_path);
    }
    cx.report
}

/// An issue as a compiler prints one: the message, then the offending line of `text` (the
/// file its origin names) with a caret under the column. Without a file position, the message
/// alone.
pub fn render(issue: &Issue, text: &str) -> String {
    let mut out = format!("error: {issue}\n");
    let Some((file, line, col)) = issue.origin.as_ref().and_then(Origin::location) else {
        return out;
    };
    if text.lines().nth(line.saturating_sub(1)).is_none() {
        return out;
    }
    out.push_str(&crate::source::pointer(file, text, line, col));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{Layer, path};

    #[test]
    fn render_points_at_the_column() {
        let text = "spec:\n  components:\n    pilot:\n      k8s:\n        bogus: 1\n";
        let mut sm = SourceMap::new();
        sm.push(Layer::file("in.yaml", text).unwrap());
        let v: Value =
            serde_json::json!({"spec": {"components": {"pilot": {"k8s": {"bogus": 1}}}}});
        let r = validate(&v, &sm);
        assert_eq!(r.errors.len(), 1, "{r:?}");
        let e = &r.errors[0];
        assert_eq!(e.path, path("spec.components.pilot.k8s.bogus"));
        assert_eq!(
            render(e, text),
            "error: in.yaml:5:9: components.pilot.k8s.bogus: unknown field \"bogus\"\n  --> in.yaml:5:9\n   |\n 5 |         bogus: 1\n   |         ^\n"
                .replace("  -->", " -->")
                .replace("   |\n 5", "  |\n5")
                .replace("\n   |         ^", "\n  |         ^")
        );
    }

    #[test]
    fn numbers_print_as_go_prints_float64() {
        assert_eq!(num(&serde_json::json!(3.0)), "3");
        assert_eq!(num(&serde_json::json!(-1.5)), "-1.5");
    }
}
