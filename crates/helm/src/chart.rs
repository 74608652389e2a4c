//! A chart in memory, and loading one from a directory the way Helm's loader does.

use std::path::{Path, PathBuf};
use std::rc::Rc;

use gotemplate::{List, Map, Value};

use crate::yaml;

#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot load {file}: {message}")]
    Yaml { file: String, message: String },
    #[error("validation: {0}")]
    Invalid(String),
    #[error("Chart.yaml file is missing")]
    MissingChartYaml,
    #[error("{0}")]
    Archive(String),
}

/// A file of the chart, by its path relative to the chart root (`templates/x.yaml`).
#[derive(Clone, Debug)]
pub struct ChartFile {
    pub path: String,
    pub data: Rc<[u8]>,
}

impl ChartFile {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.data).into_owned()
    }
}

/// Chart.yaml, as Helm's `chart.Metadata` holds it.
#[derive(Clone, Debug, Default)]
pub struct Metadata {
    pub api_version: String,
    pub name: String,
    pub version: String,
    pub app_version: String,
    pub description: String,
    pub kube_version: String,
    pub chart_type: String,
    pub home: String,
    pub icon: String,
    pub condition: String,
    pub tags: String,
    pub deprecated: bool,
    pub keywords: Vec<String>,
    pub sources: Vec<String>,
    pub annotations: Vec<(String, String)>,
}

#[derive(Clone)]
pub struct Chart {
    pub metadata: Metadata,
    /// values.yaml, parsed.
    pub values: Map,
    /// Everything under `templates/` (NOTES.txt and partials included), sorted by path.
    pub templates: Vec<ChartFile>,
    /// The other files, for `.Files` (Chart.yaml, values.yaml and templates excluded), in the
    /// order they were loaded (an archive's order, a directory's lexical walk), which decides
    /// the order of CRDs as in Helm.
    pub files: Vec<ChartFile>,
}

impl Chart {
    /// Builds a chart from its files (paths relative to the chart root, `/`-separated).
    pub fn from_files(files: Vec<ChartFile>) -> Result<Chart, ChartError> {
        let mut metadata = None;
        let mut values = Map::named("common.Values");
        let mut templates = Vec::new();
        let mut others = Vec::new();
        for file in files {
            match file.path.as_str() {
                "Chart.yaml" => metadata = Some(parse_metadata(&file.text())?),
                "values.yaml" => {
                    values =
                        yaml::values_from_yaml(&file.text()).map_err(|e| ChartError::Yaml {
                            file: "values.yaml".to_string(),
                            message: e.to_string(),
                        })?;
                }
                path if path.starts_with("templates/") => templates.push(file),
                _ => others.push(file),
            }
        }
        let metadata = metadata.ok_or(ChartError::MissingChartYaml)?;
        templates.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(Chart {
            metadata,
            values,
            templates,
            files: others,
        })
    }

    /// The files of `crds/` that Helm installs as CRDs (`.yaml`, `.yml`, `.json`), by path.
    pub fn crds(&self) -> impl Iterator<Item = &ChartFile> {
        self.files.iter().filter(|f| {
            f.path.starts_with("crds/")
                && [".yaml", ".yml", ".json"]
                    .iter()
                    .any(|ext| f.path.ends_with(ext))
        })
    }

    /// `.Chart` as templates see it: Helm 4 exposes the metadata as a plain map.
    pub fn metadata_value(&self, is_root: bool) -> Value {
        let m = &self.metadata;
        let strings = |items: &[String]| {
            Value::List(List::typed(
                items.iter().map(|s| Value::str(s)).collect(),
                "string",
            ))
        };
        let annotations = Map::named("map[string]string");
        for (k, v) in &m.annotations {
            annotations.insert(k.as_str(), Value::str(v));
        }
        let entries: Vec<(&str, Value)> = vec![
            ("APIVersion", Value::str(&m.api_version)),
            ("Annotations", Value::Map(annotations)),
            ("AppVersion", Value::str(&m.app_version)),
            ("Condition", Value::str(&m.condition)),
            (
                "Dependencies",
                Value::List(List::typed(vec![], "*chart.Dependency")),
            ),
            ("Deprecated", Value::Bool(m.deprecated)),
            ("Description", Value::str(&m.description)),
            ("Home", Value::str(&m.home)),
            ("Icon", Value::str(&m.icon)),
            ("IsRoot", Value::Bool(is_root)),
            ("Keywords", strings(&m.keywords)),
            ("KubeVersion", Value::str(&m.kube_version)),
            (
                "Maintainers",
                Value::List(List::typed(vec![], "*chart.Maintainer")),
            ),
            ("Name", Value::str(&m.name)),
            ("Sources", strings(&m.sources)),
            ("Tags", Value::str(&m.tags)),
            ("Type", Value::str(&m.chart_type)),
            ("Version", Value::str(&m.version)),
        ];
        Value::Map(Map::from_entries(entries))
    }
}

fn parse_metadata(text: &str) -> Result<Metadata, ChartError> {
    let yaml_error = |message: String| ChartError::Yaml {
        file: "Chart.yaml".to_string(),
        message,
    };
    let doc = yaml::from_yaml(text).map_err(|e| yaml_error(e.to_string()))?;
    let map = match doc {
        Value::Map(m) => m,
        Value::Nil | Value::Invalid => Map::new(),
        _ => return Err(yaml_error("Chart.yaml is not a map".to_string())),
    };
    let string = |key: &str| match map.get(key) {
        Some(Value::String(s)) => s.to_string(),
        Some(Value::Float(f)) => gotemplate::fmt::print_value(&Value::Float(f)),
        Some(Value::Bool(b)) => b.to_string(),
        _ => String::new(),
    };
    let strings = |key: &str| match map.get(key) {
        Some(Value::List(l)) => l
            .items()
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    };
    let annotations = match map.get("annotations") {
        Some(Value::Map(a)) => a
            .entries()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.as_str().unwrap_or_default().to_string()))
            .collect(),
        _ => Vec::new(),
    };
    let metadata = Metadata {
        api_version: string("apiVersion"),
        name: string("name"),
        version: string("version"),
        app_version: string("appVersion"),
        description: string("description"),
        kube_version: string("kubeVersion"),
        chart_type: string("type"),
        home: string("home"),
        icon: string("icon"),
        condition: string("condition"),
        tags: string("tags"),
        deprecated: matches!(map.get("deprecated"), Some(Value::Bool(true))),
        keywords: strings("keywords"),
        sources: strings("sources"),
        annotations,
    };
    if metadata.api_version.is_empty() {
        return Err(ChartError::Invalid(
            "chart.metadata.apiVersion is required".to_string(),
        ));
    }
    if metadata.name.is_empty() {
        return Err(ChartError::Invalid(
            "chart.metadata.name is required".to_string(),
        ));
    }
    if metadata.version.is_empty() {
        return Err(ChartError::Invalid(
            "chart.metadata.version is required".to_string(),
        ));
    }
    Ok(metadata)
}

/// Loads a chart from a directory or a `.tgz` archive, as `helm template CHART` accepts them.
pub fn load_path(path: &Path) -> Result<Chart, ChartError> {
    if path.is_dir() {
        return load_dir(path);
    }
    let data = std::fs::read(path).map_err(|source| ChartError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    load_archive(&data)
}

/// Loads a chart from the bytes of a gzipped tar archive: Helm's layout, one top-level
/// directory (the chart's name) holding the chart's files.
pub fn load_archive(data: &[u8]) -> Result<Chart, ChartError> {
    let archive_error = |e: std::io::Error| ChartError::Archive(e.to_string());
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(data));
    let mut files = Vec::new();
    for entry in archive.entries().map_err(archive_error)? {
        let mut entry = entry.map_err(archive_error)?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let path = entry
            .path()
            .map_err(archive_error)?
            .to_string_lossy()
            .replace('\\', "/");
        let Some((_, relative)) = path.trim_start_matches("./").split_once('/') else {
            continue;
        };
        if relative.is_empty() || relative.split('/').any(|part| part == "..") {
            return Err(ChartError::Archive(format!(
                "chart illegally references parent directory: {path}"
            )));
        }
        let relative = relative.to_string();
        let mut content = Vec::new();
        std::io::Read::read_to_end(&mut entry, &mut content).map_err(archive_error)?;
        files.push(ChartFile {
            path: relative,
            data: Rc::from(content),
        });
    }
    if files.is_empty() {
        return Err(ChartError::Archive("no files in chart archive".to_string()));
    }
    Chart::from_files(files)
}

/// Loads a chart directory (every file below it, `.helmignore` not yet honoured).
pub fn load_dir(dir: &Path) -> Result<Chart, ChartError> {
    let mut files = Vec::new();
    collect(dir, dir, &mut files)?;
    Chart::from_files(files)
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<ChartFile>) -> Result<(), ChartError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ChartError::Io { path, source }
    };
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(io(dir))?
        .collect::<Result<_, _>>()
        .map_err(io(dir))?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let file_type = entry.file_type().map_err(io(&path))?;
        if file_type.is_dir() {
            collect(root, &path, out)?;
        } else {
            let data = std::fs::read(&path).map_err(io(&path))?;
            let relative = path.strip_prefix(root).unwrap_or(&path);
            let rel: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            out.push(ChartFile {
                path: rel.join("/"),
                data: Rc::from(data),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn archive(entries: &[(&str, &str)]) -> Vec<u8> {
        let mut builder = tar::Builder::new(flate2::write::GzEncoder::new(
            Vec::new(),
            flate2::Compression::default(),
        ));
        for (path, text) in entries {
            let mut header = tar::Header::new_gnu();
            header.set_size(text.len() as u64);
            header.set_mode(0o644);
            header.set_cksum();
            builder
                .append_data(&mut header, path, text.as_bytes())
                .unwrap();
        }
        builder.into_inner().unwrap().finish().unwrap()
    }

    #[test]
    fn archives_load_with_their_top_directory_stripped_and_their_order_kept() {
        let data = archive(&[
            (
                "demo/Chart.yaml",
                "apiVersion: v2\nname: demo\nversion: 1.0.0\n",
            ),
            ("demo/crds/b.yaml", "kind: CustomResourceDefinition\n"),
            ("demo/crds/a.yaml", "kind: CustomResourceDefinition\n"),
            ("demo/templates/x.yaml", "kind: ConfigMap\n"),
        ]);
        let chart = load_archive(&data).unwrap();
        assert_eq!(chart.metadata.name, "demo");
        assert_eq!(chart.templates[0].path, "templates/x.yaml");
        let crds: Vec<&str> = chart.crds().map(|f| f.path.as_str()).collect();
        assert_eq!(crds, ["crds/b.yaml", "crds/a.yaml"]);
    }

    #[test]
    fn bad_archives_are_errors() {
        assert!(matches!(
            load_archive(b"not gzip"),
            Err(ChartError::Archive(_))
        ));
        let no_chart = archive(&[("demo/values.yaml", "a: 1\n")]);
        assert!(matches!(
            load_archive(&no_chart),
            Err(ChartError::MissingChartYaml)
        ));
    }
}
