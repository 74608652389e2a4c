//! `helm template` as a pure function: a loaded chart and the flags' contents in, the exact
//! stdout (and the warnings Helm logs) out.

use std::collections::HashMap;
use std::ops::Range;
use std::rc::Rc;

use gotemplate::{Map, Value};

use crate::chart::Chart;
use crate::deps;
use crate::engine::{self, RenderContext, RenderError};
use crate::manifest::{self, Manifest};
use crate::objects::{self, Capabilities, KubeVersion, VersionSet};
use crate::pathmatch::glob_match;
use crate::printed::Printed;
use crate::strvals::{self, Typing};
use crate::values;
use crate::values_schema;
use goyaml as yaml;

/// Reads a file named in a flag.
pub type ReadFile = fn(&str) -> Result<String, ReadFileError>;

/// Why the caller could not read a file named in a flag, in Go's words (`open PATH: no such
/// file or directory`); the caller did the I/O, so its text is all there is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ReadFileError {
    pub message: String,
}

/// A reader words its own failure (only it knows the OS error); it hands the text over with
/// `Into::into`.
impl From<String> for ReadFileError {
    fn from(message: String) -> ReadFileError {
        ReadFileError { message }
    }
}

/// Which flag of the `--set` family a [`TemplateError::Set`] comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetFlag {
    Set,
    SetString,
    SetFile,
    SetLiteral,
}

impl SetFlag {
    pub fn name(self) -> &'static str {
        match self {
            SetFlag::Set => "--set",
            SetFlag::SetString => "--set-string",
            SetFlag::SetFile => "--set-file",
            SetFlag::SetLiteral => "--set-literal",
        }
    }
}

/// Why `helm install`'s name check refuses a release name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReleaseNameError {
    #[error("no name provided")]
    Empty,
    #[error(
        "release name {0:?}: invalid release name, must match regex {RELEASE_NAME_REGEX} and the length must not be longer than 53"
    )]
    Invalid(String),
}

const RELEASE_NAME_REGEX: &str =
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

/// The flags of `helm template` that decide what is rendered.
#[derive(Clone, Debug, Default)]
pub struct TemplateOptions {
    pub release_name: String,
    pub namespace: String,
    /// `-f` files in order: (name as given, contents).
    pub value_files: Vec<(String, String)>,
    /// `--set` flags in order.
    pub set: Vec<String>,
    /// `--set-string` flags in order.
    pub set_string: Vec<String>,
    /// `--set-file` flags in order (`key=PATH`: the value is the file's contents).
    pub set_file: Vec<String>,
    /// How `--set-file` reads a file (the caller does the I/O); an error reads like Go's
    /// (`open PATH: no such file or directory`).
    pub read_file: Option<ReadFile>,
    /// `--show-only` paths or globs, relative to the chart (`templates/x.yaml`).
    pub show_only: Vec<String>,
    pub kube_version: Option<String>,
    pub api_versions: Vec<String>,
    /// `--include-crds`: print the chart's `crds/` files first, as they are.
    pub include_crds: bool,
    /// `--set-json` flags in order.
    pub set_json: Vec<String>,
    /// `--set-literal` flags in order.
    pub set_literal: Vec<String>,
    /// `--is-upgrade`: `.Release.IsUpgrade` instead of `.Release.IsInstall`.
    pub is_upgrade: bool,
    /// `--no-hooks`: leave hooks out.
    pub no_hooks: bool,
    /// `--skip-tests`: leave `test` hooks out.
    pub skip_tests: bool,
    /// `--output-dir`: write the documents to files below this directory instead of stdout.
    pub output_dir: Option<String>,
    /// `--release-name`: with `--output-dir`, write below `DIR/RELEASE`.
    pub use_release_name: bool,
    /// `--skip-schema-validation`: do not check values against `values.schema.json`.
    pub skip_schema_validation: bool,
    /// How `http:`/`https:` documents named by schema `$ref`s are fetched (the caller does the
    /// network I/O); without it such a reference fails as one to an unknown scheme.
    pub schema_http: Option<jsonschema::FetchUrl>,
}

/// One file `--output-dir` writes: `---\n# Source: NAME\nDOC\n` created, or appended to
/// an earlier write of the same run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputFile {
    /// The directory (`DIR` or `DIR/RELEASE`, as given).
    pub dir: String,
    /// The source name (`chart/templates/x.yaml`), the path below `dir`.
    pub name: String,
    /// The framed document.
    pub data: String,
    /// Append to the file (written before in this run) instead of creating it.
    pub append: bool,
    /// A hook: Helm also appends when the file exists from before.
    pub hook: bool,
}

/// Why `helm template` failed. Helm adds a hint about `--debug` after rendering failures only.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    /// A `-f` values file is not YAML Helm can read (`LoadValues` has named the stage).
    #[error("failed to parse {name}: {source}")]
    ValuesFile {
        name: String,
        #[source]
        source: yaml::YamlError,
    },
    /// A `--set-json` flag of the `{...}` form that is not one JSON object.
    #[error("failed parsing --set-json data JSON: {flag}")]
    SetJsonObject { flag: String },
    /// A `--set-json` flag of the `KEY=JSON` form that does not parse (Helm drops its reason).
    #[error("failed parsing --set-json data {flag}")]
    SetJson {
        flag: String,
        #[source]
        source: strvals::StrvalsError,
    },
    /// A flag of the `--set` family that does not parse.
    #[error("failed parsing {} data: {source}", .flag.name())]
    Set {
        flag: SetFlag,
        #[source]
        source: strvals::StrvalsError,
    },
    /// `--set-file` given to a caller that supplied no [`ReadFile`].
    #[error("--set-file given without a way to read files")]
    NoReadFile,
    /// `--name-template` does not parse.
    #[error(transparent)]
    NameTemplateParse(Box<gotemplate::ParseError>),
    /// `--name-template` fails to execute.
    #[error(transparent)]
    NameTemplateExec(Box<gotemplate::ExecError>),
    #[error("release name check failed: {0}")]
    ReleaseName(#[source] ReleaseNameError),
    /// The chart's `type` is not `application` (a library chart).
    #[error("{chart_type} charts are not installable")]
    NotInstallable { chart_type: String },
    #[error(
        "an error occurred while checking for chart dependencies. You may need to run `helm dependency build` to fetch missing dependencies: {0}"
    )]
    Dependencies(#[source] deps::MissingDependencies),
    /// Resolving dependencies or coalescing values failed.
    #[error(transparent)]
    Values(#[from] values::ValuesError),
    #[error(
        "values don't meet the specifications of the schema(s) in the following chart(s):\n{0}"
    )]
    Schema(#[source] jsonschema::SchemaError),
    #[error(transparent)]
    KubeVersion(#[from] objects::KubeVersionError),
    /// A `--show-only` path or glob that matches no rendered template.
    #[error("could not find template {pattern} in chart")]
    ShowOnly { pattern: String },
    /// The chart's `kubeVersion` range excludes the Kubernetes version rendered for.
    #[error(
        "chart requires kubeVersion: {required} which is incompatible with Kubernetes {version}"
    )]
    KubeVersionIncompatible { required: String, version: String },
    /// Rendering the chart failed.
    #[error("{0}")]
    Render(#[from] RenderError),
    /// `error`, after Helm had logged `warnings` (which it prints as it goes, so before the
    /// error).
    #[error("{error}")]
    Logged {
        warnings: Vec<crate::log::LogLine>,
        error: Box<TemplateError>,
    },
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TemplateOutput {
    /// With `--output-dir`, what follows the `wrote FILE` lines (which the caller prints as it
    /// writes [`TemplateOutput::files`]).
    pub stdout: Printed,
    /// The files `--output-dir` writes, in order.
    pub files: Vec<OutputFile>,
    /// What Helm logs on stderr while rendering (for example skipped values).
    pub warnings: Vec<crate::log::LogLine>,
}

/// Merges the user's value layers as Helm's `MergeValues` does: every `-f` file in order, then
/// every `--set-json`, then every `--set`, `--set-string`, `--set-file`, `--set-literal`.
pub fn user_values(options: &TemplateOptions) -> Result<Map, TemplateError> {
    let base = Map::new();
    for (name, text) in &options.value_files {
        let layer = yaml::values_from_yaml(text).map_err(|source| TemplateError::ValuesFile {
            name: name.clone(),
            source,
        })?;
        values::merge_into(&base, &layer);
    }
    for flag in &options.set_json {
        let trimmed = flag.trim_matches(crate::manifest::is_go_space);
        if trimmed.starts_with('{') {
            match goyaml::json_read::from_json(trimmed) {
                Ok(Value::Map(m)) => values::merge_into(&base, &m),
                _ => {
                    return Err(TemplateError::SetJsonObject { flag: flag.clone() });
                }
            }
        } else {
            strvals::parse_json_into(flag, &base).map_err(|source| TemplateError::SetJson {
                flag: flag.clone(),
                source,
            })?;
        }
    }
    let set = |flag: SetFlag| move |source| TemplateError::Set { flag, source };
    for flag in &options.set {
        strvals::parse_into(flag, &base, Typing::Inferred).map_err(set(SetFlag::Set))?;
    }
    for flag in &options.set_string {
        strvals::parse_into(flag, &base, Typing::Strings).map_err(set(SetFlag::SetString))?;
    }
    for flag in &options.set_file {
        let read = options.read_file.ok_or(TemplateError::NoReadFile)?;
        strvals::parse_into_with(flag, &base, &|path| read(path).map(Value::from))
            .map_err(set(SetFlag::SetFile))?;
    }
    for flag in &options.set_literal {
        strvals::parse_literal_into(flag, &base).map_err(set(SetFlag::SetLiteral))?;
    }
    Ok(base)
}

/// `--name-template`: the release name rendered by Go's text/template with Sprig's functions
/// (not Helm's), on nil data.
pub fn name_from_template(text: &str) -> Result<String, TemplateError> {
    let mut set = gotemplate::Templates::new(sprig::sprig_funcs());
    set.parse("name-template", text)
        .map_err(|e| TemplateError::NameTemplateParse(Box::new(e)))?;
    set.execute("name-template", Value::Nil)
        .map_err(|e| TemplateError::NameTemplateExec(Box::new(e)))
}

/// Helm's `ValidateReleaseName`, worded as `helm install`'s name check.
pub fn validate_release_name(name: &str) -> Result<(), TemplateError> {
    let valid = name.len() <= 53
        && name.split('.').all(|part| {
            let b = part.as_bytes();
            let ok = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
            !b.is_empty()
                && ok(&b[0])
                && ok(&b[b.len() - 1])
                && b.iter().all(|c| ok(c) || *c == b'-')
        });
    let why = if name.is_empty() {
        ReleaseNameError::Empty
    } else if !valid {
        ReleaseNameError::Invalid(name.to_string())
    } else {
        return Ok(());
    };
    Err(TemplateError::ReleaseName(why))
}

/// Renders `chart` as `helm template RELEASE CHART [flags]` prints it.
pub fn template(chart: &Chart, options: &TemplateOptions) -> Result<TemplateOutput, TemplateError> {
    // One helper thread for the render's parse, the preparation of large texts the templates
    // split for `fromYaml` and the reading of its documents' heads, started first so that it
    // is running when they come; only for charts with enough to share. The memo lets
    // documents that are a large `toYaml` output (Istio's CRDs) skip a re-read.
    let worker = (chart.template_bytes() >= engine::PARSE_BESIDE_MIN
        || chart.largest_file() >= LARGE_FILE)
        .then(|| cores::Worker::start("bosun-helper", cores::MAIN_THREAD_STACK))
        .flatten();
    let ahead = worker
        .as_ref()
        .map(|worker| goyaml::Ahead::with_worker(worker.jobs()));
    let memo = match &ahead {
        Some(ahead) => goyaml::YamlMemo::with_ahead(ahead.clone()),
        None => goyaml::YamlMemo::new(),
    };
    if ahead.is_some() {
        offer_large_files(chart, &memo);
    }
    let user = user_values(options)?;
    if !matches!(chart.metadata.chart_type.as_str(), "" | "application") {
        return Err(TemplateError::NotInstallable {
            chart_type: chart.metadata.chart_type.clone(),
        });
    }
    deps::check_dependencies(chart).map_err(TemplateError::Dependencies)?;
    validate_release_name(&options.release_name)?;
    let mut chart = chart.clone();
    let mut warnings = deps::process_dependencies(&mut chart, &user)?;
    let (coalesced, coalesce_warnings) = values::coalesce_chart(&chart, &user)?;
    warnings.extend(coalesce_warnings.into_iter().map(crate::log::LogLine::info));
    if !options.skip_schema_validation {
        let mut loader = jsonschema::Loader::new(options.schema_http);
        let result = values_schema::validate_chart(&chart, &coalesced, &mut loader);
        warnings.append(&mut values_schema::urn_warnings(&mut loader));
        if let Err(e) = result {
            let error = TemplateError::Schema(e);
            return Err(if warnings.is_empty() {
                error
            } else {
                TemplateError::Logged {
                    warnings,
                    error: Box::new(error),
                }
            });
        }
    }
    let kube_version = match &options.kube_version {
        Some(text) => KubeVersion::parse(text)?,
        None => KubeVersion::parse(objects::DEFAULT_KUBE_VERSION)?,
    };
    let required = &chart.metadata.kube_version;
    if !required.is_empty()
        && !sprig::semver::semver_compare(required, &kube_version.version).unwrap_or(false)
    {
        return Err(TemplateError::KubeVersionIncompatible {
            required: required.clone(),
            version: kube_version.version,
        });
    }
    let mut api_versions: Vec<String> = objects::DEFAULT_API_VERSIONS
        .iter()
        .map(|s| s.to_string())
        .collect();
    api_versions.extend(options.api_versions.iter().cloned());
    let capabilities = Capabilities {
        kube_version: Rc::new(kube_version),
        api_versions: Rc::new(VersionSet::new(api_versions)),
    };
    let release = Map::from_entries([
        ("IsInstall", Value::Bool(!options.is_upgrade)),
        ("IsUpgrade", Value::Bool(options.is_upgrade)),
        ("Name", Value::str(&options.release_name)),
        ("Namespace", Value::str(&options.namespace)),
        ("Revision", Value::int(1)),
        ("Service", Value::str("Helm")),
    ]);
    let context = RenderContext {
        release,
        capabilities: Value::Object(Rc::new(capabilities)),
    };
    let root_values = coalesced.retyped(Some("common.Values"));
    // Each file's document heads are read (on a helper, when there is much to read) while
    // the files after it render.
    let mut heads = manifest::HeadReader::new(Some(&memo), worker.as_ref());
    let rendered = engine::render_each(
        &chart,
        &root_values,
        &context,
        &memo,
        worker.as_ref(),
        |name, out| heads.add(name, out),
    );
    if let Some(ahead) = &ahead {
        ahead.close();
    }
    rendered?;
    let rendered = heads.finish();
    let manifest::Sorted {
        manifests,
        hooks,
        mut logs,
    } = manifest::sort_manifests(&rendered)?;
    warnings.append(&mut logs);
    // The output is about as large as what the memo holds: it can take its memory.
    drop(memo);
    let hooks: Vec<Manifest> = if options.no_hooks {
        Vec::new()
    } else {
        hooks
            .into_iter()
            .filter(|h| !(options.skip_tests && h.events.iter().any(|e| e == "test")))
            .collect()
    };
    let crds = if options.include_crds {
        chart.crd_objects(&chart.metadata.name)
    } else {
        Vec::new()
    };

    if let Some(dir) = &options.output_dir {
        let dir = if options.use_release_name {
            clean_path(&format!("{dir}/{}", options.release_name))
        } else {
            dir.clone()
        };
        let mut files = Vec::new();
        let mut written = std::collections::HashSet::new();
        let mut write = |name: &str, data: String, hook: bool| {
            let append = !written.insert(name.to_string());
            files.push(OutputFile {
                dir: dir.clone(),
                name: name.to_string(),
                data: format!("---\n# Source: {name}\n{data}\n"),
                append,
                hook,
            });
        };
        for (name, file) in &crds {
            write(name, file.text().to_string(), false);
        }
        for m in &manifests {
            write(m.source, m.content.to_string(), false);
        }
        for h in &hooks {
            write(h.source, h.content.to_string(), true);
        }
        // Helm still prints the (empty) manifest buffer.
        let stdout = if options.show_only.is_empty() {
            "\n".to_string()
        } else {
            show_only("\n", &options.show_only)?
        };
        let stdout = Printed::from(stdout);
        let_go(worker);
        return Ok(TemplateOutput {
            stdout,
            files,
            warnings,
        });
    }

    // The documents are printed in place, as pieces of the rendered files (see `Printed`).
    let mut printed = Printed::new();
    let frame = printed.keep(FRAME.to_string());
    let (header, newline) = (0..FRAME.len() - 1, FRAME.len() - 1..FRAME.len());
    let push_framed =
        |printed: &mut Printed,
         name: usize,
         content: &mut dyn Iterator<Item = (usize, Range<usize>)>| {
            printed.push_range(frame, header.clone());
            printed.push_kept(name);
            printed.push_range(frame, newline.clone());
            content.for_each(|(text, range)| printed.push_range(text, range));
            printed.push_range(frame, newline.clone());
        };
    for (name, crd) in &crds {
        let name = printed.keep(name.clone());
        let text = crd.text();
        let len = text.len();
        let text = printed.keep(text);
        push_framed(&mut printed, name, &mut [(text, 0..len)].into_iter());
    }
    // Where each part of each document is among its file's pieces, so that the files can be
    // moved into `printed`.
    type Placed = Vec<(String, Vec<(usize, Range<usize>)>)>;
    let placed = |list: &[Manifest]| -> Placed {
        list.iter()
            .map(|m| {
                let file = &rendered.files[m.source];
                let parts = m
                    .content
                    .parts()
                    .iter()
                    .map(|part| {
                        let at = part.as_ptr() as usize;
                        file.iter()
                            .enumerate()
                            .find_map(|(k, piece)| {
                                let start = at.checked_sub(piece.as_ptr() as usize)?;
                                (start + part.len() <= piece.len())
                                    .then(|| (k, start..start + part.len()))
                            })
                            .expect("documents are split from their file's pieces")
                    })
                    .collect();
                (m.source.to_string(), parts)
            })
            .collect()
    };
    let (manifests, hooks) = (placed(&manifests), placed(&hooks));
    let mut files = HashMap::with_capacity(rendered.files.len());
    for (name, pieces) in rendered.files {
        let name_kept = printed.keep(name.clone());
        let pieces_kept: Vec<usize> = pieces.into_iter().map(|p| printed.keep(p)).collect();
        files.insert(name, (name_kept, pieces_kept));
    }
    let push_all = |printed: &mut Printed, list: Placed| {
        for (source, parts) in list {
            let (name, pieces) = &files[&source];
            let mut content = parts.into_iter().map(|(k, range)| (pieces[k], range));
            push_framed(printed, *name, &mut content);
        }
    };
    push_all(&mut printed, manifests);
    printed.trim();
    printed.push_range(frame, newline.clone());
    push_all(&mut printed, hooks);
    let stdout = if options.show_only.is_empty() {
        printed
    } else {
        Printed::from(show_only(&printed.to_string(), &options.show_only)?)
    };
    let_go(worker);
    Ok(TemplateOutput {
        stdout,
        files: Vec::new(),
        warnings,
    })
}

/// Ends the helper thread (an idle one), unless the process ends next (see
/// [`crate::skip_freeing`]): it then need not be woken to be joined.
fn let_go(worker: Option<cores::Worker>) {
    if crate::freeing_skipped() {
        std::mem::forget(worker);
    }
}

/// A chart file this large is likely split and read by `fromYaml` (Istio's CRDs).
const LARGE_FILE: usize = 64 * 1024;

/// Offers the documents of the chart's large YAML files (subcharts' too), cut as
/// `splitList "\n---\n"` cuts them, for preparation ahead of `fromYaml` (see `goyaml::Ahead`)
/// before the templates are even parsed: the helper thread has nothing else to do until the
/// render splits the file itself, which Istio's base chart does only after 40% of its run.
/// Offers are matched by where they lie in the file's text, so a template that splits it
/// otherwise, or not at all, takes none of them and only the helper's time is lost.
fn offer_large_files(chart: &Chart, memo: &goyaml::YamlMemo) {
    for file in &chart.files {
        let yaml = file.path.ends_with(".yaml") || file.path.ends_with(".yml");
        if !yaml || file.data.len() < LARGE_FILE {
            continue;
        }
        // The text `.Files.Get` gives, sharing the file's bytes.
        let text = file.text();
        let parts: Vec<gotemplate::Str> = sprig::strings::go_split(&text, "\n---\n")
            .into_iter()
            .map(|part| text.slice(part))
            .collect();
        memo.offer_parts(&parts);
    }
    for dependency in &chart.dependencies {
        offer_large_files(dependency, memo);
    }
}

/// How `helm template` frames each document: `---\n# Source: NAME\nCONTENT\n`.
const FRAME: &str = "---\n# Source: \n";

/// Go's `filepath.Clean` for the simple paths `--output-dir` joins.
fn clean_path(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            ".." if absolute => {}
            _ => parts.push(part),
        }
    }
    let joined = parts.join("/");
    match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_string(),
        (false, false) => joined,
    }
}

/// `--show-only`: the documents whose source matches each pattern (Go's `filepath.Match`), in
/// the order of the patterns.
fn show_only(all: &str, patterns: &[String]) -> Result<String, TemplateError> {
    let docs = manifest::split_documents(all);
    let mut out = String::new();
    for pattern in patterns {
        let mut found = false;
        for doc in &docs {
            let Some(source) = doc.lines().find_map(|l| l.strip_prefix("# Source: ")) else {
                continue;
            };
            let Some((_, path)) = source.split_once('/') else {
                continue;
            };
            if glob_match(pattern, path) {
                out.push_str("---\n");
                out.push_str(doc);
                out.push('\n');
                found = true;
            }
        }
        if !found {
            return Err(TemplateError::ShowOnly {
                pattern: pattern.clone(),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod error_tests {
    use super::*;

    #[test]
    fn input_errors_keep_the_flag_and_say_what_helm_says() {
        let options = TemplateOptions {
            set_string: vec!["a[x]=1".into()],
            ..TemplateOptions::default()
        };
        let e = user_values(&options).err().unwrap();
        assert!(matches!(
            &e,
            TemplateError::Set {
                flag: SetFlag::SetString,
                ..
            }
        ));
        assert!(
            e.to_string()
                .starts_with("failed parsing --set-string data: "),
            "{e}"
        );
        let options = TemplateOptions {
            set_file: vec!["a=/missing".into()],
            read_file: Some(|path| Err(format!("open {path}: no such file or directory").into())),
            ..TemplateOptions::default()
        };
        assert_eq!(
            user_values(&options).err().unwrap().to_string(),
            "failed parsing --set-file data: open /missing: no such file or directory"
        );
        let options = TemplateOptions {
            value_files: vec![("v.yaml".into(), "a: [".into())],
            ..TemplateOptions::default()
        };
        let e = user_values(&options).err().unwrap();
        assert!(matches!(&e, TemplateError::ValuesFile { name, .. } if name == "v.yaml"));
        assert!(e.to_string().starts_with("failed to parse v.yaml: "), "{e}");
        assert_eq!(
            validate_release_name("A").unwrap_err().to_string(),
            "release name check failed: release name \"A\": invalid release name, must match regex ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ and the length must not be longer than 53"
        );
    }
}
