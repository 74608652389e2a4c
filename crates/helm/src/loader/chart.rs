//! A chart in memory, and loading one from a directory the way Helm's loader does.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use gotemplate::{List, Map, Str, Value};

use super::mapped::{MAP_MIN, MappedText};
use goyaml as yaml;

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
    /// The archive is not one Helm can use (its own words).
    #[error("{0}")]
    Archive(String),
    /// The archive could not be read (not gzip, a broken tar).
    #[error(transparent)]
    ArchiveRead(std::io::Error),
    #[error(transparent)]
    Ignore(#[from] crate::ignore::IgnoreError),
    #[error("error unpacking subchart {name} in {parent}: {source}")]
    Subchart {
        name: String,
        parent: String,
        source: Box<ChartError>,
    },
    /// A FIFO, socket or device where a chart file should be: Helm's words, and where a
    /// symbolic link led.
    #[error(
        "cannot load irregular file {} as it has file mode type bits set{}",
        path.display(),
        link_note(link)
    )]
    Irregular {
        path: PathBuf,
        link: Option<PathBuf>,
    },
    /// A chart folder's file beyond Helm's [`MAX_FILE_SIZE`] (`file`: its path in the chart).
    #[error(
        "chart file {file:?} is larger than the maximum file size {limit}{}",
        link_note(link)
    )]
    FileTooLarge {
        file: String,
        link: Option<PathBuf>,
        limit: u64,
    },
    /// A chart archive that could not be unpacked: Helm's `unable to load chart archive`,
    /// with the archive and why (Helm's command line says neither).
    #[error("unable to load chart archive {}: {source}", path.display())]
    LoadArchive {
        path: PathBuf,
        source: Box<ChartError>,
    },
    /// An archive whose files hold more than Helm's [`MAX_CHART_SIZE`] once unpacked.
    #[error("decompressed chart is larger than the maximum size {limit}")]
    ArchiveTooLarge { limit: u64 },
    /// An archive's file beyond Helm's [`MAX_FILE_SIZE`] once unpacked (`file`: its name in
    /// the archive).
    #[error("decompressed chart file {file:?} is larger than the maximum file size {limit}")]
    ArchiveFileTooLarge { file: String, limit: u64 },
    /// A tar entry that is not a file (a PAX or GNU long-name header, a directory, a link)
    /// holding more than [`MAX_TAR_HEADER`] bytes: Go's `archive/tar` refuses such headers too.
    #[error("a tar entry that is no file holds more than {limit} bytes")]
    ArchiveHeaderTooLarge { limit: u64 },
    /// A symbolic link to a folder that holds it: walking it would never end.
    #[error("{} is a symbolic link to {}, a folder that holds it (a loop)", path.display(), link.as_deref().unwrap_or(Path::new("?")).display())]
    LinkLoop {
        path: PathBuf,
        link: Option<PathBuf>,
    },
}

/// Helm's `archive.MaxDecompressedChartSize`: the most an archive's files may hold unpacked.
/// (`release::archive::Limits` bounds Istio's downloaded packages by the same numbers.)
pub const MAX_CHART_SIZE: u64 = 100 * 1024 * 1024;
/// Helm's `archive.MaxDecompressedFileSize`: the largest file of a chart, in a folder or
/// unpacked from an archive.
pub const MAX_FILE_SIZE: u64 = 5 * 1024 * 1024;
/// Go's `archive/tar` `maxSpecialFileSize`: the most a PAX or GNU long-name header may hold.
/// Entries that are no file (directories, links) are held to it too.
pub const MAX_TAR_HEADER: u64 = 1024 * 1024;

fn link_note(link: &Option<PathBuf>) -> String {
    match link {
        Some(target) => format!(" (a symbolic link to {})", target.display()),
        None => String::new(),
    }
}

/// The length of the UTF-8 byte order mark `bytes` start with (0 without one): Helm's loader
/// drops it from every file.
pub(crate) fn bom_len(bytes: &[u8]) -> usize {
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    }
}

/// A file of the chart, by its path relative to the chart root (`templates/x.yaml`).
#[derive(Clone, Debug)]
pub struct ChartFile {
    pub path: String,
    pub data: FileData,
}

impl ChartFile {
    /// The file as text (shared when it is UTF-8; invalid bytes replaced otherwise).
    pub fn text(&self) -> Str {
        self.data.text()
    }
}

/// A file's bytes, kept as text when they are UTF-8: `.Files.Get` then shares them instead of
/// copying (Istio's CRD file is 1 MB).
#[derive(Clone, Debug)]
pub enum FileData {
    Text(Str),
    Binary(Rc<[u8]>),
}

impl FileData {
    pub fn new(bytes: &[u8]) -> FileData {
        match std::str::from_utf8(bytes) {
            Ok(text) => FileData::Text(Str::from(text)),
            Err(_) => FileData::Binary(Rc::from(bytes)),
        }
    }

    /// The file at `path`: mapped when it is large text (see [`super::mapped`]), else read
    /// into the shared buffer it is kept in (a read into a `Vec` and a copy would write each
    /// byte twice). A UTF-8 byte order mark is dropped, as Helm's loader does.
    /// A file of more than [`MAX_FILE_SIZE`] bytes (Helm's bound) is an error of kind
    /// `FileTooLarge`, found without reading more than that.
    pub fn read(path: &Path) -> std::io::Result<FileData> {
        let file = std::fs::File::open(path)?;
        let len = file.metadata()?.len();
        FileData::read_open(file, len, MAX_FILE_SIZE)
    }

    /// [`FileData::read`] of an open file whose length (`len`, a hint) the caller has read;
    /// more than `max` bytes is an error of kind `FileTooLarge`.
    fn read_open(file: std::fs::File, len: u64, max: u64) -> std::io::Result<FileData> {
        let too_large = || std::io::Error::from(std::io::ErrorKind::FileTooLarge);
        if len > max {
            return Err(too_large());
        }
        if len >= MAP_MIN {
            // The size the file has now, not the caller's hint: a mapping must not reach
            // past the file's end.
            let now = file.metadata()?.len();
            if now > max {
                return Err(too_large());
            }
            if let Some(mapped) = MappedText::map(&file, now) {
                return Ok(FileData::Text(Str::held(mapped)));
            }
        }
        FileData::read_all(file, len, max)
    }

    /// The whole of `file`, read; `len` is a hint of its size, `max` the most it may hold.
    fn read_all(mut file: std::fs::File, len: u64, max: u64) -> std::io::Result<FileData> {
        let len = usize::try_from(len.min(max)).unwrap_or(usize::MAX);
        let mut buf = Rc::<[u8]>::from(Vec::new());
        if len > 0 && len < isize::MAX as usize {
            // SAFETY: a zeroed byte is an initialized `u8`.
            buf = unsafe { Rc::<[u8]>::new_zeroed_slice(len).assume_init() };
            let out = Rc::get_mut(&mut buf).expect("a new Rc is not shared");
            let mut filled = 0;
            while filled < len {
                match file.read(&mut out[filled..]) {
                    Ok(0) => break,
                    Ok(n) => filled += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            if filled < len {
                buf = Rc::from(&buf[..filled]);
            }
        }
        // The length was only a hint: whatever the file has beyond it is read too. (Not with
        // `read_to_end`, which asks the file for its size and position first: two more system
        // calls for each of a chart's files.)
        let mut rest = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            match file.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => {
                    rest.extend_from_slice(&chunk[..n]);
                    if (buf.len() + rest.len()) as u64 > max {
                        return Err(std::io::Error::from(std::io::ErrorKind::FileTooLarge));
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        if !rest.is_empty() {
            buf = Rc::from([&buf[..], &rest].concat());
        }
        let bom = bom_len(&buf);
        if bom > 0 {
            buf = Rc::from(&buf[bom..]);
        }
        Ok(match std::str::from_utf8(&buf) {
            // SAFETY: `str` is `[u8]` with the UTF-8 invariant, which was just checked; the
            // pointer comes from `Rc::into_raw` of the same allocation.
            Ok(_) => FileData::Text(Str::from(unsafe {
                Rc::from_raw(Rc::into_raw(buf) as *const str)
            })),
            Err(_) => FileData::Binary(buf),
        })
    }

    /// The file as a Go string converts it (invalid UTF-8 replaced).
    pub fn text(&self) -> Str {
        match self {
            FileData::Text(text) => text.clone(),
            FileData::Binary(bytes) => Str::from(goyaml::utf8_lossy(bytes).into_owned()),
        }
    }

    pub fn bytes(&self) -> Rc<[u8]> {
        match self {
            FileData::Text(text) => Rc::from(text.as_bytes()),
            FileData::Binary(bytes) => bytes.clone(),
        }
    }
}

impl std::ops::Deref for FileData {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            FileData::Text(text) => text.as_bytes(),
            FileData::Binary(bytes) => bytes,
        }
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
    pub maintainers: Vec<Maintainer>,
    /// `dependencies:` of Chart.yaml (after loading: only the enabled ones, aliases applied, as
    /// Helm's `ProcessDependencies` leaves them).
    pub dependencies: Vec<Dependency>,
}

/// One `maintainers:` entry.
#[derive(Clone, Debug, Default)]
pub struct Maintainer {
    pub name: String,
    pub email: String,
    pub url: String,
}

/// One `dependencies:` entry of Chart.yaml (Helm's `chart.Dependency`).
#[derive(Clone, Debug, Default)]
pub struct Dependency {
    pub name: String,
    pub version: String,
    pub repository: String,
    pub condition: String,
    pub tags: Vec<String>,
    pub enabled: bool,
    /// `import-values`: strings or `{child, parent}` maps, as written.
    pub import_values: Vec<Value>,
    pub alias: String,
}

impl Dependency {
    /// The name the subchart goes by in its parent: the alias if there is one.
    pub fn key(&self) -> &str {
        if self.alias.is_empty() {
            &self.name
        } else {
            &self.alias
        }
    }

    /// As `.Chart.Dependencies` shows it (Helm 4 turns the struct into a map).
    pub fn as_value(&self) -> Value {
        let tags = self.tags.iter().map(|t| Value::str(t)).collect();
        Value::Map(Map::from_entries([
            ("Alias", Value::str(&self.alias)),
            ("Condition", Value::str(&self.condition)),
            ("Enabled", Value::Bool(self.enabled)),
            (
                "ImportValues",
                Value::List(List::new(self.import_values.clone())),
            ),
            ("Name", Value::str(&self.name)),
            ("Repository", Value::str(&self.repository)),
            ("Tags", Value::List(List::new(tags))),
            ("Version", Value::str(&self.version)),
        ]))
    }
}

#[derive(Clone)]
pub struct Chart {
    pub metadata: Metadata,
    /// values.yaml, parsed.
    pub values: Map,
    /// values.schema.json, as written.
    pub schema: Option<Rc<[u8]>>,
    /// Everything under `templates/` (NOTES.txt and partials included), sorted by path.
    pub templates: Vec<ChartFile>,
    /// The other files, for `.Files` (Chart.yaml, values.yaml and templates excluded), in the
    /// order they were loaded (an archive's order, a directory's lexical walk), which decides
    /// the order of CRDs as in Helm.
    pub files: Vec<ChartFile>,
    /// The subcharts found in `charts/` (directories and archives), by name; after
    /// [`crate::deps::process_dependencies`], the enabled ones in Helm's order, aliases renamed.
    pub dependencies: Vec<Chart>,
}

impl Chart {
    /// Builds a chart from its files (paths relative to the chart root, `/`-separated), with
    /// Helm's `LoadFiles` rules: `charts/NAME/...` and `charts/NAME.tgz` are subcharts (names
    /// starting with `_` or `.` are skipped), `charts/*.prov` stay plain files.
    pub fn from_files(files: Vec<ChartFile>) -> Result<Chart, ChartError> {
        let mut metadata = None;
        let mut values = Map::named("common.Values");
        let mut schema = None;
        let mut templates = Vec::new();
        let mut others = Vec::new();
        let mut subcharts: std::collections::BTreeMap<String, Vec<ChartFile>> = Default::default();
        let requirements = files
            .iter()
            .find(|f| f.path == "requirements.yaml")
            .map(ChartFile::text);
        for file in &files {
            if file.path == "Chart.yaml" {
                metadata = Some(parse_metadata(&file.text(), requirements.as_deref())?);
            }
        }
        let v1 = metadata.as_ref().is_some_and(|m| m.api_version == "v1");
        for file in files {
            match file.path.as_str() {
                "Chart.yaml" | "Chart.lock" => {}
                // Dependencies (and their lock) of Helm's v1 layout; v1 charts also keep them
                // as files.
                "requirements.yaml" | "requirements.lock" if !v1 => {}
                "values.yaml" => {
                    values =
                        yaml::values_from_yaml(&file.text()).map_err(|e| ChartError::Yaml {
                            file: "values.yaml".to_string(),
                            message: e.to_string(),
                        })?;
                }
                "values.schema.json" => schema = Some(file.data.bytes()),
                path if path.starts_with("templates/") => templates.push(file),
                path if path.starts_with("charts/") && !path.ends_with(".prov") => {
                    let rest = &path["charts/".len()..];
                    let name = rest.split('/').next().unwrap_or_default().to_string();
                    subcharts.entry(name).or_default().push(ChartFile {
                        path: rest.to_string(),
                        data: file.data,
                    });
                }
                _ => others.push(file),
            }
        }
        let metadata = metadata.ok_or(ChartError::MissingChartYaml)?;
        templates.sort_by(|a, b| a.path.cmp(&b.path));
        let mut dependencies = Vec::new();
        for (name, files) in subcharts {
            if name.starts_with(['_', '.']) {
                continue;
            }
            let unpack = |source: ChartError| ChartError::Subchart {
                name: name.clone(),
                parent: metadata.name.clone(),
                source: Box::new(source),
            };
            let sub = if name.ends_with(".tgz") {
                let file = &files[0];
                if file.path != name {
                    return Err(ChartError::Archive(format!(
                        "error unpacking subchart tar in {}: expected {name}, got {}",
                        metadata.name, file.path
                    )));
                }
                load_archive(&file.data).map_err(unpack)?
            } else {
                let inner = files
                    .into_iter()
                    .filter_map(|f| {
                        let (_, rest) = f.path.split_once('/')?;
                        Some(ChartFile {
                            path: rest.to_string(),
                            data: f.data,
                        })
                    })
                    .collect();
                Chart::from_files(inner).map_err(unpack)?
            };
            dependencies.push(sub);
        }
        Ok(Chart {
            metadata,
            values,
            schema,
            templates,
            files: others,
            dependencies,
        })
    }

    /// Bytes of template text, subcharts' included.
    pub fn template_bytes(&self) -> usize {
        let own: usize = self.templates.iter().map(|t| t.data.len()).sum();
        own + self
            .dependencies
            .iter()
            .map(Chart::template_bytes)
            .sum::<usize>()
    }

    /// The size of the largest of the files that are not templates, subcharts' included.
    pub fn largest_file(&self) -> usize {
        let own = self.files.iter().map(|f| f.data.len()).max().unwrap_or(0);
        self.dependencies
            .iter()
            .map(Chart::largest_file)
            .fold(own, usize::max)
    }

    /// `library` charts only lend their partials.
    pub fn is_library(&self) -> bool {
        self.metadata.chart_type == "library"
    }

    /// The files of `crds/` that Helm installs as CRDs (`.yaml`, `.yml`, `.json`, any case), of
    /// this chart and then of its subcharts, depth first, each named by its full path
    /// (`parent/charts/sub/crds/x.yaml`); `full_path` is this chart's (`parent/charts/sub`).
    pub fn crd_objects(&self, full_path: &str) -> Vec<(String, ChartFile)> {
        let mut out: Vec<(String, ChartFile)> = self
            .files
            .iter()
            .filter(|f| {
                let ext = f.path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
                f.path.starts_with("crds/")
                    && matches!(ext.as_deref(), Some("yaml" | "yml" | "json"))
            })
            .map(|f| (format!("{full_path}/{}", f.path), f.clone()))
            .collect();
        for dep in &self.dependencies {
            out.extend(dep.crd_objects(&format!("{full_path}/charts/{}", dep.metadata.name)));
        }
        out
    }

    /// `.Chart` as templates see it: Helm 4 exposes the metadata as a plain map.
    pub fn metadata_value(&self, is_root: bool) -> Value {
        let m = &self.metadata;
        let strings = |items: &[String]| {
            Value::List(List::new(items.iter().map(|s| Value::str(s)).collect()))
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
                Value::List(List::new(
                    m.dependencies.iter().map(Dependency::as_value).collect(),
                )),
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
                Value::List(List::new(
                    m.maintainers
                        .iter()
                        .map(|x| {
                            Value::Map(Map::from_entries([
                                ("Email", Value::str(&x.email)),
                                ("Name", Value::str(&x.name)),
                                ("URL", Value::str(&x.url)),
                            ]))
                        })
                        .collect(),
                )),
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

/// Chart.yaml, with the `dependencies` of a `requirements.yaml` (Helm's v1 layout) replacing
/// its own when there is one, validated as Helm's loader validates it.
fn parse_metadata(text: &str, requirements: Option<&str>) -> Result<Metadata, ChartError> {
    let read = |file: &str, text: &str| {
        let yaml_error = |message: String| ChartError::Yaml {
            file: file.to_string(),
            message,
        };
        match yaml::from_yaml(text).map_err(|e| yaml_error(e.to_string()))? {
            Value::Map(m) => Ok(m),
            Value::Nil | Value::Invalid => Ok(Map::new()),
            _ => Err(yaml_error(format!("{file} is not a map"))),
        }
    };
    let map = read("Chart.yaml", text)?;
    if let Some(requirements) = requirements
        && let Some(deps) = read("requirements.yaml", requirements)?.get("dependencies")
    {
        map.insert("dependencies", deps);
    }
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
    let text_of = |v: Option<Value>| match v {
        Some(Value::String(s)) => s.to_string(),
        Some(Value::Float(f)) => gotemplate::fmt::print_value(&Value::Float(f)),
        Some(Value::Bool(b)) => b.to_string(),
        _ => String::new(),
    };
    let mut dependencies = Vec::new();
    if let Some(Value::List(list)) = map.get("dependencies") {
        for item in list.items() {
            let Value::Map(d) = item else {
                return Err(ChartError::Invalid(
                    "dependencies must not contain empty or null nodes".to_string(),
                ));
            };
            let tags = match d.get("tags") {
                Some(Value::List(l)) => {
                    l.items().iter().map(|t| text_of(Some(t.clone()))).collect()
                }
                _ => Vec::new(),
            };
            let import_values = match d.get("import-values") {
                Some(Value::List(l)) => l.items().to_vec(),
                _ => Vec::new(),
            };
            dependencies.push(Dependency {
                name: text_of(d.get("name")),
                version: text_of(d.get("version")),
                repository: text_of(d.get("repository")),
                condition: text_of(d.get("condition")),
                tags,
                enabled: matches!(d.get("enabled"), Some(Value::Bool(true))),
                import_values,
                alias: text_of(d.get("alias")),
            });
        }
    }
    let mut maintainers = Vec::new();
    if let Some(Value::List(list)) = map.get("maintainers") {
        for item in list.items() {
            if let Value::Map(m) = item {
                maintainers.push(Maintainer {
                    name: text_of(m.get("name")),
                    email: text_of(m.get("email")),
                    url: text_of(m.get("url")),
                });
            }
        }
    }
    let mut api_version = string("apiVersion");
    if api_version.is_empty() {
        // Helm's loader takes a Chart.yaml without apiVersion for a v1 chart.
        api_version = "v1".to_string();
    }
    let metadata = Metadata {
        api_version,
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
        maintainers,
        dependencies,
    };
    if metadata.name.is_empty() {
        return Err(ChartError::Invalid(
            "chart.metadata.name is required".to_string(),
        ));
    }
    if metadata.name == "." || metadata.name == ".." {
        return Err(ChartError::Invalid(format!(
            "chart.metadata.name {:?} is not allowed",
            metadata.name
        )));
    }
    if metadata.name.contains('/') {
        return Err(ChartError::Invalid(format!(
            "chart.metadata.name {:?} is invalid",
            metadata.name
        )));
    }
    if metadata.version.is_empty() {
        return Err(ChartError::Invalid(
            "chart.metadata.version is required".to_string(),
        ));
    }
    if !sprig::semver::is_valid_version(&metadata.version) {
        return Err(ChartError::Invalid(format!(
            "chart.metadata.version {:?} is invalid",
            metadata.version
        )));
    }
    if !matches!(metadata.chart_type.as_str(), "" | "application" | "library") {
        return Err(ChartError::Invalid(
            "chart.metadata.type must be application or library".to_string(),
        ));
    }
    let mut seen = std::collections::HashSet::new();
    for dep in &metadata.dependencies {
        if !dep.alias.is_empty()
            && !dep
                .alias
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            return Err(ChartError::Invalid(format!(
                "dependency {:?} has disallowed characters in the alias",
                dep.name
            )));
        }
        if !seen.insert(dep.key().to_string()) {
            return Err(ChartError::Invalid(format!(
                "more than one dependency with name or alias {:?}",
                dep.key()
            )));
        }
    }
    Ok(metadata)
}

/// Loads a chart from a directory or a `.tgz` archive, as `helm template CHART` accepts them.
/// The archive is read as a stream, within Helm's limits ([`MAX_CHART_SIZE`],
/// [`MAX_FILE_SIZE`]); a FIFO, socket or device is refused before it is read.
pub fn load_path(path: &Path) -> Result<Chart, ChartError> {
    if path.is_dir() {
        return load_dir(path);
    }
    let file = open_regular(path).map_err(|e| read_failure(e, path, None, None))?;
    let files =
        read_archive(std::io::BufReader::with_capacity(1 << 16, file)).map_err(|source| {
            ChartError::LoadArchive {
                path: path.to_path_buf(),
                source: Box::new(source),
            }
        })?;
    Chart::from_files(files)
}

/// Loads a chart from the bytes of a gzipped tar archive: Helm's layout, one top-level
/// directory (the chart's name) holding the chart's files.
pub fn load_archive(data: &[u8]) -> Result<Chart, ChartError> {
    Chart::from_files(read_archive(data)?)
}

/// A reader that gives at most what is left of its allowance, which its owner sets before each
/// step: a gzip bomb is stopped when an entry would hold more than it may, not once memory is
/// gone (the `tar` crate reads PAX and long-name headers whole).
struct Allowance<R> {
    inner: R,
    left: std::rc::Rc<std::cell::Cell<u64>>,
    exceeded: std::rc::Rc<std::cell::Cell<bool>>,
}

impl<R: Read> Read for Allowance<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let left = self.left.get();
        if left == 0 {
            self.exceeded.set(true);
            return Err(std::io::Error::other("over the archive's allowance"));
        }
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..want])?;
        self.left.set(left - n as u64);
        Ok(n)
    }
}

/// The files of a gzipped tar chart archive, as Helm's `LoadArchiveFiles` takes them out:
/// within [`MAX_CHART_SIZE`] in all and [`MAX_FILE_SIZE`] each (refused from the entry's
/// header, before its content is unpacked), paths checked, a UTF-8 BOM dropped.
fn read_archive(data: impl Read) -> Result<Vec<ChartFile>, ChartError> {
    let left = std::rc::Rc::new(std::cell::Cell::new(0));
    let exceeded = std::rc::Rc::new(std::cell::Cell::new(false));
    let reader = Allowance {
        inner: flate2::read::GzDecoder::new(data),
        left: left.clone(),
        exceeded: exceeded.clone(),
    };
    let read_error = |e: std::io::Error| {
        if exceeded.get() {
            ChartError::ArchiveHeaderTooLarge {
                limit: MAX_TAR_HEADER,
            }
        } else {
            ChartError::ArchiveRead(e)
        }
    };
    // Between two files: the last one's padding, then headers (a PAX header and a GNU long
    // name at most, each within Go's bound) and whatever an entry that is no file holds.
    let between = 2 * MAX_TAR_HEADER + 8 * 512;
    let mut archive = tar::Archive::new(reader);
    let mut remaining = MAX_CHART_SIZE;
    let mut files = Vec::new();
    left.set(between);
    let mut entries = archive.entries().map_err(read_error)?;
    loop {
        left.set(between);
        let Some(entry) = entries.next() else { break };
        let mut entry = entry.map_err(read_error)?;
        let kind = entry.header().entry_type();
        // GNU sparse files are files too (Go's reader and so Helm's fill in their holes).
        if !(kind.is_file() || kind.is_gnu_sparse()) {
            continue;
        }
        let sparse = if kind.is_file() {
            sparse_header(&mut entry).map_err(read_error)?
        } else {
            None
        };
        let path = match sparse.as_ref().and_then(|s| s.name.clone()) {
            Some(name) => name,
            None => entry.path().map_err(read_error)?.to_string_lossy().into(),
        }
        .replace('\\', "/");
        let Some((_, relative)) = path.trim_start_matches("./").split_once('/') else {
            continue;
        };
        if relative.is_empty() || relative.split('/').any(|part| part == "..") {
            return Err(ChartError::Archive(format!(
                "chart illegally references parent directory: {path}"
            )));
        }
        let size = entry.size();
        // A sparse file's holes count, as in Go, where its header's size is the real one.
        let unpacked = sparse.as_ref().map_or(size, |s| s.real_size.max(size));
        if unpacked > remaining {
            return Err(ChartError::ArchiveTooLarge {
                limit: MAX_CHART_SIZE,
            });
        }
        if unpacked > MAX_FILE_SIZE {
            return Err(ChartError::ArchiveFileTooLarge {
                file: path,
                limit: MAX_FILE_SIZE,
            });
        }
        let relative = relative.to_string();
        left.set(size);
        let mut content = Vec::with_capacity(size as usize);
        entry.read_to_end(&mut content).map_err(read_error)?;
        if let Some(sparse) = &sparse {
            content = super::sparse::expand(sparse, &content)
                .map_err(|e| ChartError::Archive(format!("{path}: {e}")))?;
        }
        remaining -= content.len() as u64;
        let bom = bom_len(&content);
        files.push(ChartFile {
            path: relative,
            data: FileData::new(&content[bom..]),
        });
    }
    if files.is_empty() {
        return Err(ChartError::Archive("no files in chart archive".to_string()));
    }
    Ok(files)
}

/// The GNU sparse header in `entry`'s PAX records, if it has one.
fn sparse_header<R: Read>(
    entry: &mut tar::Entry<R>,
) -> std::io::Result<Option<super::sparse::SparseHeader>> {
    let Some(extensions) = entry.pax_extensions()? else {
        return Ok(None);
    };
    let mut records = Vec::new();
    for extension in extensions {
        let extension = extension?;
        if let (Ok(key), Ok(value)) = (extension.key(), extension.value()) {
            records.push((key.to_string(), value.to_string()));
        }
    }
    super::sparse::header(records.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .map_err(std::io::Error::other)
}

/// Why a chart file could not be read.
enum ReadFail {
    Io(std::io::Error),
    /// Not a regular file (a FIFO, socket or device).
    Irregular,
    /// More than [`MAX_FILE_SIZE`] bytes.
    TooLarge,
}

impl From<std::io::Error> for ReadFail {
    fn from(e: std::io::Error) -> ReadFail {
        ReadFail::Io(e)
    }
}

/// `path` opened for reading if it is a regular file. Opened without waiting (a FIFO with no
/// writer would block the open itself), then checked on the open file, so a file swapped for a
/// FIFO after it was looked at is refused too.
fn open_regular(path: &Path) -> Result<std::fs::File, ReadFail> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(ReadFail::Irregular);
    }
    Ok(file)
}

/// A chart file read within [`MAX_FILE_SIZE`] (`len`: its size when it was listed).
fn read_chart_file(path: &Path, len: u64) -> Result<FileData, ReadFail> {
    let file = open_regular(path)?;
    match FileData::read_open(file, len, MAX_FILE_SIZE) {
        Ok(data) => Ok(data),
        Err(e) if e.kind() == std::io::ErrorKind::FileTooLarge => Err(ReadFail::TooLarge),
        Err(e) => Err(ReadFail::Io(e)),
    }
}

/// The error for a chart file that could not be read (`rel`: its path in the chart, `link`:
/// where it leads when it is a symbolic link).
fn read_failure(
    fail: ReadFail,
    path: &Path,
    rel: Option<&str>,
    link: Option<PathBuf>,
) -> ChartError {
    match fail {
        ReadFail::Io(source) => ChartError::Io {
            path: path.to_path_buf(),
            source,
        },
        ReadFail::Irregular => ChartError::Irregular {
            path: path.to_path_buf(),
            link,
        },
        ReadFail::TooLarge => ChartError::FileTooLarge {
            file: rel.map_or_else(|| path.display().to_string(), str::to_string),
            link,
            limit: MAX_FILE_SIZE,
        },
    }
}

/// Loads a chart directory as Helm's `LoadDir` does: every file below it in lexical order,
/// except what `.helmignore` (and Helm's default `templates/.?*`) excludes, a UTF-8 BOM dropped
/// from every file. Symbolic links are followed, as Helm's walk follows them; a FIFO, socket
/// or device is refused (Helm's words), and so is a file beyond [`MAX_FILE_SIZE`], before it
/// is read.
pub fn load_dir(dir: &Path) -> Result<Chart, ChartError> {
    let ignore_file = dir.join(".helmignore");
    let mut rules = match std::fs::metadata(&ignore_file) {
        Ok(meta) if !meta.is_dir() => {
            let link = link_target(&ignore_file);
            let data = read_chart_file(&ignore_file, meta.len())
                .map_err(|e| read_failure(e, &ignore_file, Some(".helmignore"), link))?;
            crate::ignore::Rules::parse(&data.text())?
        }
        _ => crate::ignore::Rules::default(),
    };
    rules.add_defaults();
    let mut files = Vec::new();
    let mut folders = Vec::new();
    collect(dir, dir, &rules, &mut folders, &mut files)?;
    Chart::from_files(files)
}

/// Where `path` leads, when it is a symbolic link (every link on the way resolved).
fn link_target(path: &Path) -> Option<PathBuf> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.file_type().is_symlink() {
        return None;
    }
    Some(
        std::fs::canonicalize(path)
            .unwrap_or_else(|_| std::fs::read_link(path).unwrap_or_default()),
    )
}

/// The identity of a folder (device and inode), to notice a symbolic link back to a folder
/// being walked.
#[cfg(unix)]
fn folder_id(meta: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn folder_id(_meta: &std::fs::Metadata) -> (u64, u64) {
    (0, 0)
}

fn collect(
    root: &Path,
    dir: &Path,
    rules: &crate::ignore::Rules,
    folders: &mut Vec<(u64, u64)>,
    out: &mut Vec<ChartFile>,
) -> Result<(), ChartError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ChartError::Io { path, source }
    };
    let here = std::fs::metadata(dir).map_err(io(dir))?;
    if cfg!(unix) && folders.contains(&folder_id(&here)) {
        return Err(ChartError::LinkLoop {
            path: dir.to_path_buf(),
            link: link_target(dir),
        });
    }
    folders.push(folder_id(&here));
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(io(dir))?
        .collect::<Result<_, _>>()
        .map_err(io(dir))?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let relative = path.strip_prefix(root).unwrap_or(&path);
        let rel: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let rel = rel.join("/");
        // Symbolic links are followed, as Helm's walk does.
        let meta = std::fs::metadata(&path).map_err(io(&path))?;
        if rules.ignore(&rel, meta.is_dir()) {
            continue;
        }
        if meta.is_dir() {
            collect(root, &path, rules, folders, out)?;
            continue;
        }
        let fail = if !meta.is_file() {
            ReadFail::Irregular
        } else if meta.len() > MAX_FILE_SIZE {
            ReadFail::TooLarge
        } else {
            match read_chart_file(&path, meta.len()) {
                Ok(data) => {
                    out.push(ChartFile { path: rel, data });
                    continue;
                }
                Err(fail) => fail,
            }
        };
        return Err(read_failure(fail, &path, Some(&rel), link_target(&path)));
    }
    folders.pop();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_data_read_keeps_bytes_drops_bom_and_tells_text_from_binary() {
        let dir = std::env::temp_dir().join(format!("bosun-filedata-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // Files of MAP_MIN bytes and more are mapped: the same bytes, BOM and all.
        let big = "key: value\n".repeat(100_000);
        let big_bom = [b"\xEF\xBB\xBF", big.as_bytes()].concat();
        let big_binary = [big.as_bytes(), b"\xFF"].concat();
        let just_mapped = "x".repeat(MAP_MIN as usize);
        let cases: [(&str, &[u8], Option<&str>); 8] = [
            ("empty", b"", Some("")),
            ("text", b"a: 1\n", Some("a: 1\n")),
            ("bom", b"\xEF\xBB\xBFa: 1\n", Some("a: 1\n")),
            ("binary", b"\xFF\x00\x01", None),
            ("big", big.as_bytes(), Some(&big)),
            ("big-bom", &big_bom, Some(&big)),
            ("big-binary", &big_binary, None),
            ("just-mapped", just_mapped.as_bytes(), Some(&just_mapped)),
        ];
        for (name, bytes, text) in cases {
            let path = dir.join(name);
            std::fs::write(&path, bytes).unwrap();
            let data = FileData::read(&path).unwrap();
            match (text, &data) {
                (Some(want), FileData::Text(got)) => assert_eq!(&**got, want, "{name}"),
                (None, FileData::Binary(got)) => assert_eq!(&**got, bytes, "{name}"),
                _ => panic!("{name}: read as {data:?}"),
            }
        }
        assert!(FileData::read(&dir.join("missing")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

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
        let crds: Vec<String> = chart
            .crd_objects("demo")
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(crds, ["demo/crds/b.yaml", "demo/crds/a.yaml"]);
    }

    /// A gzipped tar of raw pieces (header blocks and contents as given), cut where they end:
    /// what a loader must refuse from a header needs nothing after it.
    fn raw_archive(pieces: &[Vec<u8>]) -> Vec<u8> {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        for piece in pieces {
            std::io::Write::write_all(&mut gz, piece).unwrap();
        }
        gz.finish().unwrap()
    }

    fn header(name: &str, size: u64, kind: tar::EntryType) -> Vec<u8> {
        let mut h = tar::Header::new_ustar();
        h.set_path(name).unwrap();
        h.set_size(size);
        h.set_mode(0o644);
        h.set_entry_type(kind);
        h.set_cksum();
        h.as_bytes().to_vec()
    }

    #[test]
    fn archives_beyond_helms_limits_are_refused_from_their_headers() {
        let chart_yaml = {
            let text = b"apiVersion: v2\nname: c\nversion: 1.0.0\n";
            let mut out = header("c/Chart.yaml", text.len() as u64, tar::EntryType::Regular);
            out.extend_from_slice(text);
            out.resize(1024, 0);
            out
        };
        let cases: [(&str, Vec<Vec<u8>>, &str); 4] = [
            (
                "a file of 6 MiB",
                vec![
                    chart_yaml.clone(),
                    header("c/templates/x.yaml", 6 << 20, tar::EntryType::Regular),
                ],
                "decompressed chart file \"c/templates/x.yaml\" is larger than the maximum file size 5242880",
            ),
            (
                "a file of 1 GiB",
                vec![
                    chart_yaml.clone(),
                    header("c/templates/x.yaml", 1 << 30, tar::EntryType::Regular),
                ],
                "decompressed chart is larger than the maximum size 104857600",
            ),
            (
                "a PAX header of 1 GiB",
                vec![
                    header("c/PaxHeader", 1 << 30, tar::EntryType::XHeader),
                    vec![0; 3 << 20],
                ],
                "a tar entry that is no file holds more than 1048576 bytes",
            ),
            (
                "a directory entry of 1 GiB",
                vec![
                    chart_yaml,
                    header("c/templates/", 1 << 30, tar::EntryType::Directory),
                    vec![0; 3 << 20],
                ],
                "a tar entry that is no file holds more than 1048576 bytes",
            ),
        ];
        for (name, pieces, want) in cases {
            let got = load_archive(&raw_archive(&pieces))
                .map(|_| ())
                .unwrap_err()
                .to_string();
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn bad_archives_are_errors() {
        assert!(matches!(
            load_archive(b"not gzip"),
            Err(ChartError::ArchiveRead(_))
        ));
        let no_chart = archive(&[("demo/values.yaml", "a: 1\n")]);
        assert!(matches!(
            load_archive(&no_chart),
            Err(ChartError::MissingChartYaml)
        ));
    }
}
