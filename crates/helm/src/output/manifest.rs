//! From rendered files to `helm template`'s output: documents split on `---` with Helm's own
//! regular expression (quirks included), each head read as YAML, hooks set apart, documents
//! ordered by kind (framing them is [`crate::printed`]'s and `helm template`'s).

use std::collections::BTreeMap;

use gotemplate::{Str, Value};

use crate::engine::{RenderError, is_partial};
use crate::log::LogLine;
use goyaml as yaml;

/// Helm's kind order for installs; unknown kinds go last, alphabetically among themselves.
const INSTALL_ORDER: &[&str] = &[
    "PriorityClass",
    "Namespace",
    "NetworkPolicy",
    "ResourceQuota",
    "LimitRange",
    "PodSecurityPolicy",
    "PodDisruptionBudget",
    "ServiceAccount",
    "Secret",
    "SecretList",
    "ConfigMap",
    "StorageClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleList",
    "ClusterRoleBinding",
    "ClusterRoleBindingList",
    "Role",
    "RoleList",
    "RoleBinding",
    "RoleBindingList",
    "Service",
    "DaemonSet",
    "Pod",
    "ReplicationController",
    "ReplicaSet",
    "Deployment",
    "HorizontalPodAutoscaler",
    "StatefulSet",
    "Job",
    "CronJob",
    "IngressClass",
    "Ingress",
    "APIService",
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
];

const HOOK_ANNOTATION: &str = "helm.sh/hook";
/// Helm's `events` table (`pkg/release/v1/util`): the `helm.sh/hook` names it knows, each
/// with the event it stands for. Helm 2's `test-success` is kept as another name of `test`
/// (so `--skip-tests` leaves it out too); `test-failure` is not known, and a document naming
/// it is left out as an unknown hook.
const HOOK_EVENTS: &[(&str, &str)] = &[
    ("pre-install", "pre-install"),
    ("post-install", "post-install"),
    ("pre-delete", "pre-delete"),
    ("post-delete", "post-delete"),
    ("pre-upgrade", "pre-upgrade"),
    ("post-upgrade", "post-upgrade"),
    ("pre-rollback", "pre-rollback"),
    ("post-rollback", "post-rollback"),
    ("test", "test"),
    ("test-success", "test"),
];

/// The events of a `helm.sh/hook` annotation (split on commas, trimmed, lower-cased, each
/// mapped to the event it names), or `None` when one of them is unknown.
fn hook_events(annotation: &str) -> Option<Vec<String>> {
    annotation
        .split(',')
        .map(|name| {
            let name = name.trim().to_lowercase();
            HOOK_EVENTS
                .iter()
                .find(|(known, _)| *known == name)
                .map(|(_, event)| event.to_string())
        })
        .collect()
}

/// One document of the output, borrowed from the rendered file it was split from (a chart
/// like Istio's base renders a megabyte: a copy costs fresh pages).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest<'a> {
    /// The file it came from (`chart/templates/x.yaml`).
    pub source: &'a str,
    pub content: Doc<'a>,
    pub kind: String,
    /// A hook's events (`helm.sh/hook`, split on commas, trimmed, lower-cased, `test-success`
    /// read as `test`).
    pub events: Vec<String>,
}

/// A document's text: pieces of the rendered file, in order (a file is kept as the pieces it
/// was printed in, see [`gotemplate::exec::Output::into_pieces`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Doc<'a>(Vec<&'a str>);

impl<'a> Doc<'a> {
    pub fn parts(&self) -> &[&'a str] {
        &self.0
    }

    pub fn len(&self) -> usize {
        self.0.iter().map(|p| p.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The text when it is one piece.
    fn single(&self) -> Option<&'a str> {
        match self.0.as_slice() {
            [] => Some(""),
            [one] => Some(one),
            _ => None,
        }
    }

    /// Its YAML after the comment lines it starts with (see [`yaml::skip_comment_lines`]),
    /// as pieces (none empty); `None` when a comment line runs on into the next piece.
    fn after_comments(&self) -> Option<Vec<&'a str>> {
        for (k, part) in self.0.iter().enumerate() {
            let rest = yaml::skip_comment_lines(part);
            if !rest.is_empty() {
                if rest.starts_with('#') {
                    return None;
                }
                let mut pieces = vec![rest];
                pieces.extend(self.0[k + 1..].iter().copied().filter(|p| !p.is_empty()));
                return Some(pieces);
            }
        }
        Some(Vec::new())
    }
}

impl std::fmt::Display for Doc<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.iter().try_for_each(|p| f.write_str(p))
    }
}

/// Pieces read as one text, by byte offsets.
struct Joined<'a> {
    pieces: Vec<&'a str>,
    /// Where each piece starts in the text.
    starts: Vec<usize>,
    len: usize,
}

impl<'a> Joined<'a> {
    fn new(pieces: impl IntoIterator<Item = &'a str>) -> Joined<'a> {
        let pieces: Vec<&'a str> = pieces.into_iter().filter(|p| !p.is_empty()).collect();
        let mut starts = Vec::with_capacity(pieces.len());
        let mut len = 0;
        for p in &pieces {
            starts.push(len);
            len += p.len();
        }
        Joined {
            pieces,
            starts,
            len,
        }
    }

    /// The piece holding byte `at` (below `len`), and where in it.
    fn locate(&self, at: usize) -> (usize, usize) {
        let k = self.starts.partition_point(|&s| s <= at) - 1;
        (k, at - self.starts[k])
    }

    fn byte(&self, at: usize) -> u8 {
        let (k, i) = self.locate(at);
        self.pieces[k].as_bytes()[i]
    }

    fn matches_at(&self, at: usize, pattern: &[u8]) -> bool {
        at + pattern.len() <= self.len
            && pattern
                .iter()
                .enumerate()
                .all(|(i, &b)| self.byte(at + i) == b)
    }

    /// Where `pattern` occurs, in order (for a pattern that cannot overlap itself).
    fn find_all(&self, pattern: &[u8]) -> Vec<usize> {
        let mut found = Vec::new();
        for (p, &start) in self.pieces.iter().zip(&self.starts) {
            found.extend(memchr::memmem::find_iter(p.as_bytes(), pattern).map(|i| start + i));
        }
        // Those across the start of a piece.
        for &boundary in self.starts.iter().skip(1) {
            let from = boundary.saturating_sub(pattern.len() - 1);
            found.extend((from..boundary).filter(|&at| self.matches_at(at, pattern)));
        }
        found.sort_unstable();
        found.dedup();
        found
    }

    /// The pieces of `range` (its ends on character boundaries).
    fn slices(&self, range: std::ops::Range<usize>) -> Vec<&'a str> {
        let mut out = Vec::new();
        if range.is_empty() {
            return out;
        }
        let (first, _) = self.locate(range.start);
        for (p, &start) in self.pieces[first..].iter().zip(&self.starts[first..]) {
            if start >= range.end {
                break;
            }
            let from = range.start.max(start) - start;
            let to = range.end.min(start + p.len()) - start;
            out.push(&p[from..to]);
        }
        out
    }

    /// `range` without Go's white space (`unicode.IsSpace`) at either end.
    fn trim(&self, mut range: std::ops::Range<usize>) -> std::ops::Range<usize> {
        while !range.is_empty() {
            let (k, i) = self.locate(range.start);
            let piece = &self.pieces[k][i..(range.end - self.starts[k]).min(self.pieces[k].len())];
            let kept = piece.trim_start_matches(is_go_space);
            range.start += piece.len() - kept.len();
            if !kept.is_empty() {
                break;
            }
        }
        while !range.is_empty() {
            let (k, i) = self.locate(range.end - 1);
            let from = range.start.max(self.starts[k]) - self.starts[k];
            let piece = &self.pieces[k][from..=i];
            let kept = piece.trim_end_matches(is_go_space);
            range.end -= piece.len() - kept.len();
            if !kept.is_empty() {
                break;
            }
        }
        range
    }

    /// Helm's `SplitManifests` (see [`split_documents`]).
    fn documents(&self) -> Vec<Doc<'a>> {
        let whole = self.trim(0..self.len);
        self.separated(whole)
            .into_iter()
            .filter(|doc| !doc.is_empty())
            .map(|doc| Doc(self.slices(self.trim(doc))))
            .collect()
    }

    /// `regexp.MustCompile("(?:^|\\s*\n)---\\s*").Split(text, -1)` of `range`, with Go's `\s`
    /// (ASCII `[\t\n\f\r ]`): a separator is `---` at the start, or after a line break
    /// together with the blanks before that line break, and takes the blanks after it. Found
    /// with a substring search: a rendered chart is megabytes of text the regex would step
    /// through.
    fn separated(&self, range: std::ops::Range<usize>) -> Vec<std::ops::Range<usize>> {
        let blank = |c: u8| matches!(c, b'\t' | b'\n' | 0x0C | b'\r' | b' ');
        let end = range.end;
        let blanks_from = |mut i: usize| {
            while i < end && blank(self.byte(i)) {
                i += 1;
            }
            i
        };
        let mut parts = Vec::new();
        // Where the text after the last separator starts.
        let mut rest = range.start;
        if range.len() >= 3 && self.matches_at(range.start, b"---") {
            parts.push(rest..rest);
            rest = blanks_from(range.start + 3);
        }
        for nl in self.find_all(b"\n---") {
            // Only those wholly in the range; a line break the last separator took cannot
            // start another.
            if nl < rest || nl + 4 > end {
                continue;
            }
            // The match starts at the first of the blanks before the line break (matches do
            // not overlap, so not before the last one's end).
            let mut start = nl;
            while start > rest && blank(self.byte(start - 1)) {
                start -= 1;
            }
            parts.push(rest..start);
            rest = blanks_from(nl + 4);
        }
        parts.push(rest..end);
        parts
    }
}

/// Helm's `SplitManifests`: the documents of one rendered file, in order, surrounding blanks
/// trimmed (helm 4.1.4 trims both ends), empty ones dropped.
pub fn split_documents(file: &str) -> Vec<&str> {
    one_piece(Joined::new([file]).documents())
}

/// The documents of a text that is one piece, as slices of it.
fn one_piece(docs: Vec<Doc<'_>>) -> Vec<&str> {
    docs.iter()
        .map(|doc| doc.single().expect("a document of one piece is one piece"))
        .collect()
}

/// Go's `unicode.IsSpace`.
pub(crate) fn is_go_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ' | '\u{85}' | '\u{A0}'
    ) || (c > '\u{FF}' && c.is_whitespace())
}

/// The documents of a rendered file (its pieces) that Helm sorts: none for NOTES.txt,
/// partials and blank files.
fn documents<'a, S: AsRef<str>>(path: &str, pieces: &'a [S]) -> Vec<Doc<'a>> {
    if is_skipped(path) || pieces.iter().all(|p| p.as_ref().trim().is_empty()) {
        return Vec::new();
    }
    Joined::new(pieces.iter().map(|p| p.as_ref())).documents()
}

/// The rendered files of a render, each as the pieces it was printed in, with the head of
/// each of their documents (see [`HeadReader`]).
pub struct Rendered {
    pub files: BTreeMap<String, Vec<Str>>,
    /// By file: one head for each of [`documents`], in order.
    heads: BTreeMap<String, Vec<HeadResult>>,
}

/// The documents of all rendered files, split into ordinary manifests and hooks, each sorted
/// by kind as Helm installs them. NOTES.txt, partials and blank files are skipped. Errors are
/// taken in document order (files by name).
pub fn sort_manifests(rendered: &Rendered) -> Result<Sorted<'_>, RenderError> {
    let mut generic = Vec::new();
    let mut hooks = Vec::new();
    let mut logs = Vec::new();
    for (path, content) in &rendered.files {
        let docs = documents(path, content);
        let heads = &rendered.heads[path];
        debug_assert_eq!(docs.len(), heads.len());
        for (doc, head) in docs.into_iter().zip(heads) {
            let (kind, hook) = head.clone()?;
            let mut manifest = Manifest {
                source: path,
                content: doc,
                kind,
                events: Vec::new(),
            };
            match hook {
                None => generic.push(manifest),
                Some(events) => {
                    if let Some(known) = hook_events(&events) {
                        manifest.events = known;
                        hooks.push(manifest);
                    } else {
                        logs.push(LogLine {
                            level: "INFO",
                            message: "skipping unknown hooks".into(),
                            attrs: vec![("hookTypes".into(), events)],
                        });
                    }
                }
            }
        }
    }
    sort_by_kind(&mut generic);
    sort_by_kind(&mut hooks);
    Ok(Sorted {
        manifests: generic,
        hooks,
        logs,
    })
}

/// The documents of a render in the order `helm template` prints them.
pub struct Sorted<'a> {
    pub manifests: Vec<Manifest<'a>>,
    pub hooks: Vec<Manifest<'a>>,
    /// What Helm logs while sorting (hooks of unknown events, left out).
    pub logs: Vec<LogLine>,
}

/// A document's kind and hook annotation, or why Helm refuses it.
type HeadResult = Result<(String, Option<String>), RenderError>;

/// Below this many bytes of documents to read, a second thread costs more than it saves.
const PARALLEL_HEADS_MIN: usize = 64 * 1024;

/// Reads the heads of a render's documents (Helm reads each whole document as YAML for its
/// kind and hook) while the render goes on. Each file is handed over as soon as it is
/// rendered ([`HeadReader::add`]); once there is much to read and a core to spare, a helper
/// thread reads files as they come, so that little is left to read when the render ends.
/// A document that is exactly a large `toYaml` output remembered by the render's memo is not
/// read again: its head is taken from the remembered tree.
pub struct HeadReader<'m> {
    memo: Option<&'m yaml::YamlMemo>,
    worker: Option<&'m cores::Worker>,
    /// Every file added, as printed (the heads of some are still to read, in `here` or on
    /// the helper).
    files: Vec<(String, Vec<Str>)>,
    /// Heads of files not handed to a helper (all of them while there is none).
    here: Vec<FileHeads>,
    /// Bytes of documents to read in `here`.
    unread: usize,
    helper: Option<Helper<'m>>,
}

/// A rendered file's heads known so far, with its text for reading the others: a joined
/// copy of its pieces, which a helper thread can read (the pieces are this thread's), made
/// only for files with heads to read.
struct FileHeads {
    name: String,
    content: Option<String>,
    heads: Vec<Option<HeadResult>>,
}

impl FileHeads {
    fn unread(&self) -> usize {
        let Some(content) = &self.content else {
            return 0;
        };
        documents_of_text(&self.name, content)
            .iter()
            .zip(&self.heads)
            .filter(|(_, head)| head.is_none())
            .map(|(doc, _)| doc.len())
            .sum()
    }

    fn read_missing(&mut self) {
        let Some(content) = &self.content else {
            return;
        };
        let docs = documents_of_text(&self.name, content);
        for (doc, head) in docs.iter().zip(&mut self.heads) {
            if head.is_none() {
                *head = Some(read_document_head(&self.name, doc));
            }
        }
    }
}

/// [`documents`] of a file's text joined into one.
fn documents_of_text<'a>(path: &str, content: &'a String) -> Vec<&'a str> {
    one_piece(documents(path, std::slice::from_ref(content)))
}

/// Files whose documents Helm does not sort, whatever they hold.
fn is_skipped(path: &str) -> bool {
    is_partial(path) || path.ends_with("NOTES.txt")
}

fn read_document_head(path: &str, doc: &str) -> HeadResult {
    let head = yaml::from_yaml_for_head(doc)
        .map_err(|e| RenderError(format!("YAML parse error on {path}: {e}")))?;
    read_head(&head).map_err(|e| not_a_head(path, &e))
}

/// Files handed to the helper, and what it has read.
#[derive(Default)]
struct Queue {
    waiting: std::collections::VecDeque<FileHeads>,
    read: Vec<FileHeads>,
    /// Files the helper is reading now.
    reading: usize,
    /// Whether a job reading `waiting` is with the worker and not done.
    draining: bool,
}

type Shared = std::sync::Arc<(std::sync::Mutex<Queue>, std::sync::Condvar)>;

fn lock(queue: &std::sync::Mutex<Queue>) -> std::sync::MutexGuard<'_, Queue> {
    // Single assignments under the lock: a panic while holding it leaves nothing half-done.
    queue.lock().unwrap_or_else(|e| e.into_inner())
}

/// The files a render hands to its worker: read by jobs on the worker, which end when no
/// file is waiting (the worker has other work to do), and by the render's own thread at the
/// end for whatever the worker has not started.
struct Helper<'w> {
    worker: &'w cores::Worker,
    queue: Shared,
}

impl Helper<'_> {
    fn send(&self, files: impl IntoIterator<Item = FileHeads>) {
        let (queue, _) = &*self.queue;
        let mut q = lock(queue);
        q.waiting.extend(files);
        if q.draining || q.waiting.is_empty() {
            return;
        }
        q.draining = true;
        drop(q);
        let shared = self.queue.clone();
        self.worker.run(move || {
            let (queue, changed) = &*shared;
            loop {
                let mut file = {
                    let mut q = lock(queue);
                    let Some(file) = q.waiting.pop_front() else {
                        q.draining = false;
                        return;
                    };
                    q.reading += 1;
                    file
                };
                // A panic leaves heads unread, which the render's thread reads again (meeting
                // the panic itself) instead of waiting for ever for this file.
                let _ =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| file.read_missing()));
                let mut q = lock(queue);
                q.reading -= 1;
                q.read.push(file);
                changed.notify_all();
            }
        });
    }

    /// Takes back what the worker has not started (read on this thread), waits for the files
    /// it is reading, and returns every file handed over.
    fn finish(self) -> Vec<FileHeads> {
        let (queue, changed) = &*self.queue;
        let mut mine: Vec<FileHeads> = lock(queue).waiting.drain(..).collect();
        for file in &mut mine {
            file.read_missing();
        }
        let mut q = lock(queue);
        while q.reading > 0 {
            q = changed.wait(q).unwrap_or_else(|e| e.into_inner());
        }
        for mut file in q.read.drain(..) {
            file.read_missing();
            mine.push(file);
        }
        mine
    }
}

impl<'m> HeadReader<'m> {
    /// `memo`: the render's, if it has one; `worker`: a thread to read on, if there is one.
    pub fn new(
        memo: Option<&'m yaml::YamlMemo>,
        worker: Option<&'m cores::Worker>,
    ) -> HeadReader<'m> {
        HeadReader {
            memo,
            worker,
            files: Vec::new(),
            here: Vec::new(),
            unread: 0,
            helper: None,
        }
    }

    /// A rendered file, as the pieces it was printed in, taken as soon as it is rendered.
    pub fn add(&mut self, name: String, pieces: Vec<Str>) {
        // Heads remembered by the memo first (the memo is this thread's).
        let heads: Vec<Option<HeadResult>> = documents(&name, &pieces)
            .iter()
            .map(|doc| {
                let head = self
                    .memo
                    .and_then(|m| m.emitted_value(&doc.after_comments()?))?;
                // A remembered tree whose head is not all strings is read from its text,
                // which is what Helm reads (its numbers there become strings).
                Some(read_head(&head).ok().map(Ok))?
            })
            .collect();
        let content = heads.iter().any(Option::is_none).then(|| pieces.concat());
        let file = FileHeads {
            name: name.clone(),
            content,
            heads,
        };
        self.files.push((name, pieces));
        let unread = file.unread();
        if unread == 0 {
            self.here.push(file);
            return;
        }
        if let Some(helper) = &self.helper {
            helper.send([file]);
            return;
        }
        self.here.push(file);
        self.unread += unread;
        let Some(worker) = self.worker.filter(|_| self.unread >= PARALLEL_HEADS_MIN) else {
            return;
        };
        let helper = Helper {
            worker,
            queue: Shared::default(),
        };
        let (unread, known): (Vec<FileHeads>, Vec<FileHeads>) = std::mem::take(&mut self.here)
            .into_iter()
            .partition(|f| f.heads.iter().any(Option::is_none));
        self.here = known;
        self.unread = 0;
        helper.send(unread);
        self.helper = Some(helper);
    }

    /// Every file added, with the head of each document.
    pub fn finish(mut self) -> Rendered {
        for file in &mut self.here {
            file.read_missing();
        }
        let mut files = std::mem::take(&mut self.here);
        if let Some(helper) = self.helper.take() {
            files.extend(helper.finish());
        }
        let mut rendered = Rendered {
            files: std::mem::take(&mut self.files).into_iter().collect(),
            heads: BTreeMap::new(),
        };
        for file in files {
            let heads = file
                .heads
                .into_iter()
                .map(|head| head.expect("every head is read"))
                .collect();
            rendered.heads.insert(file.name, heads);
        }
        rendered
    }
}

impl Drop for HeadReader<'_> {
    /// A render that failed: the worker reads no more of its files than it has started.
    fn drop(&mut self) {
        if let Some(helper) = &self.helper {
            lock(&helper.queue.0).waiting.clear();
        }
    }
}

fn not_a_head(path: &str, json_error: &str) -> RenderError {
    RenderError(format!(
        "YAML parse error on {path}: error unmarshaling JSON: while decoding JSON: json: {json_error}"
    ))
}

/// How Go prints the type of `SimpleHead.metadata`, an anonymous struct.
const METADATA_TYPE: &str = r#"struct { Name string "json:\"name\""; Annotations map[string]string "json:\"annotations\"" }"#;

/// encoding/json's decoding of a document into Helm's `SimpleHead`: the kind and the hook
/// annotation. Keys are taken in the order of the JSON text (sorted) and match fields case
/// folded; a value of the wrong type is an error (the first one found), a null leaves the field
/// as it is. `Err` holds the message after `json: `.
fn read_head(head: &Value) -> Result<(String, Option<String>), String> {
    let map = match head {
        Value::Map(m) => m,
        Value::Nil | Value::Invalid => return Ok((String::new(), None)),
        other => {
            return Err(format!(
                "cannot unmarshal {} into Go value of type util.SimpleHead",
                json_type(other)
            ));
        }
    };
    let mut error = FirstError::default();
    let mut kind = String::new();
    // `Metadata` is a pointer (nil until an object is decoded into it) holding a nil map
    // until an object is decoded into that.
    let mut annotations: Option<Option<BTreeMap<String, String>>> = None;
    for (key, value) in map.entries() {
        match yaml::go_json_field(&key, &["apiVersion", "kind", "metadata"]) {
            Some("metadata") => match &value {
                Value::Nil => annotations = None,
                Value::Map(meta) => {
                    read_metadata(meta, annotations.get_or_insert(None), &mut error)
                }
                _ => error.note("SimpleHead.metadata", METADATA_TYPE, &value),
            },
            Some(name) => match &value {
                Value::Nil => {}
                Value::String(s) if name == "kind" => kind = s.to_string(),
                Value::String(_) => {}
                _ => error.note(&format!("SimpleHead.{name}"), "string", &value),
            },
            None => {}
        }
    }
    if let Some(e) = error.0 {
        return Err(e);
    }
    let hook = annotations
        .flatten()
        .and_then(|mut a| a.remove(HOOK_ANNOTATION));
    Ok((kind, hook))
}

/// `SimpleHead.metadata`'s fields, decoded into `annotations` (a map that stays nil until an
/// object is decoded into it).
fn read_metadata(
    meta: &gotemplate::Map,
    annotations: &mut Option<BTreeMap<String, String>>,
    error: &mut FirstError,
) {
    for (key, value) in meta.entries() {
        match yaml::go_json_field(&key, &["name", "annotations"]) {
            Some("name") if !matches!(value, Value::Nil | Value::String(_)) => {
                error.note(".metadata.name", "string", &value)
            }
            Some("name") => {}
            Some(_) => match &value {
                Value::Nil => *annotations = None,
                Value::Map(values) => {
                    let into = annotations.get_or_insert_with(BTreeMap::new);
                    for (key, value) in values.entries() {
                        // A null is stored as the element's zero value.
                        let text = match &value {
                            Value::Nil => String::new(),
                            Value::String(s) => s.to_string(),
                            _ => {
                                error.note(".metadata.annotations", "string", &value);
                                continue;
                            }
                        };
                        into.insert(key.to_string(), text);
                    }
                }
                _ => error.note(".metadata.annotations", "map[string]string", &value),
            },
            None => {}
        }
    }
}

/// The first type error encoding/json meets: it decodes on, and reports that one.
#[derive(Default)]
struct FirstError(Option<String>);

impl FirstError {
    fn note(&mut self, field: &str, ty: &str, v: &Value) {
        self.0.get_or_insert_with(|| {
            format!(
                "cannot unmarshal {} into Go struct field {field} of type {ty}",
                json_type(v)
            )
        });
    }
}

/// The JSON type encoding/json names in its errors.
fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Nil | Value::Invalid => "null",
        Value::Bool(_) => "bool",
        Value::String(_) => "string",
        Value::List(_) => "array",
        Value::Map(_) | Value::Object(_) => "object",
        _ => "number",
    }
}

/// Helm's stable sort by install order.
fn sort_by_kind(manifests: &mut [Manifest]) {
    let rank = |kind: &str| INSTALL_ORDER.iter().position(|k| *k == kind);
    manifests.sort_by(|a, b| match (rank(&a.kind), rank(&b.kind)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.kind.cmp(&b.kind),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Heads read along the render, on a helper once there is much to read, are the heads
    /// of each document read in turn, and the first error in document order (files by name)
    /// is the one reported, whichever thread read it.
    #[test]
    fn heads_read_along_the_render_are_the_heads_read_in_order() {
        let filler = format!("data:\n  x: |\n{}", "    line\n".repeat(10_000));
        let files = [
            ("c/templates/z.yaml", format!("kind: ConfigMap\n{filler}")),
            (
                "c/templates/y.yaml",
                "kind: Service\n---\nkind: [\n".to_string(),
            ),
            (
                "c/templates/b.yaml",
                format!("kind: Secret\n{filler}\n---\nkind: {{a: 1}}\n"),
            ),
            (
                "c/templates/a.yaml",
                "kind: Job\nmetadata:\n  annotations:\n    helm.sh/hook: pre-install\n".into(),
            ),
            ("c/templates/NOTES.txt", "not: [yaml".into()),
            ("c/templates/_helpers.tpl", "x: [".into()),
            ("c/templates/blank.yaml", " \n".into()),
        ];
        let worker = cores::Worker::start("test-heads", cores::MAIN_THREAD_STACK);
        let read = |files: &[(&str, String)]| {
            let mut reader = HeadReader::new(None, worker.as_ref());
            for (k, (name, text)) in files.iter().enumerate() {
                // Some files as one piece, some cut into several.
                let pieces = if k % 2 == 0 {
                    vec![Str::from(text.as_str())]
                } else {
                    cut(text, 7 + k)
                };
                reader.add(name.to_string(), pieces);
            }
            assert!(
                reader.helper.is_some() || cores::available() < 2,
                "a helper reads this much"
            );
            reader.finish()
        };
        let rendered = read(&files);
        assert_eq!(rendered.files.len(), files.len());
        for (name, content) in &rendered.files {
            let want: Vec<HeadResult> = documents(name, content)
                .iter()
                .map(|doc| read_document_head(name, &doc.to_string()))
                .collect();
            assert_eq!(rendered.heads[name], want, "{name}");
        }
        let error = sort_manifests(&rendered)
            .err()
            .expect("b.yaml's kind is a map");
        assert!(
            error.0.contains("c/templates/b.yaml") && error.0.contains("cannot unmarshal object"),
            "{error}"
        );

        let fine: Vec<(&str, String)> = files
            .iter()
            .filter(|(name, _)| !name.ends_with("/b.yaml") && !name.ends_with("/y.yaml"))
            .cloned()
            .chain([("c/templates/b.yaml", format!("kind: Secret\n{filler}"))])
            .collect();
        let rendered = read(&fine);
        let sorted = sort_manifests(&rendered).expect("all heads read");
        let kinds: Vec<&str> = sorted.manifests.iter().map(|m| m.kind.as_str()).collect();
        assert_eq!(kinds, ["Secret", "ConfigMap"]);
        assert_eq!(sorted.hooks.len(), 1);
        assert_eq!(sorted.hooks[0].events, ["pre-install"]);
    }

    #[test]
    fn hook_events_follow_helm_s_table() {
        assert_eq!(
            hook_events(" Pre-Install, TEST-success ,test"),
            Some(vec!["pre-install".into(), "test".into(), "test".into()])
        );
        // Helm 2's `test-failure` is not one of Helm's names: the hook is unknown.
        assert_eq!(hook_events("test-failure"), None);
        assert_eq!(hook_events("test,test-failure"), None);
        assert_eq!(hook_events(""), None);
    }

    /// `text` cut into pieces about `every` bytes long (at character boundaries).
    fn cut(text: &str, every: usize) -> Vec<Str> {
        let mut pieces = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            let at = rest.ceil_char_boundary(every.min(rest.len()));
            pieces.push(Str::from(&rest[..at]));
            rest = &rest[at..];
        }
        pieces
    }

    /// [`Joined::separated`] of one text.
    fn split_at_separators(text: &str) -> Vec<&str> {
        Joined::new([text])
            .separated(0..text.len())
            .into_iter()
            .map(|r| &text[r])
            .collect()
    }

    #[test]
    fn splits_like_helm() {
        assert_eq!(split_documents("a: 1\n---\nb: 2 \n"), ["a: 1", "b: 2"]);
        // After a separator the whitespace is eaten, so a second `---` stays in the document.
        assert_eq!(split_documents("a\n---\n---\nb"), ["a", "---\nb"]);
        assert_eq!(split_documents("---\na"), ["a"]);
        assert_eq!(split_documents("\n\n---\n\n"), Vec::<String>::new());
        assert_eq!(split_documents("a: x---y"), ["a: x---y"]);
        assert_eq!(split_documents("a\n---b"), ["a", "b"]);
    }

    /// The substring search against the regular expression Helm uses, with Go's `\s`.
    #[test]
    fn separators_split_as_helm_s_regex() {
        let go = regex::Regex::new(r"(?:^|[\t\n\x0C\r ]*\n)---[\t\n\x0C\r ]*").expect("regex");
        const PIECES: &[&str] = &[
            "---", "\n", " ", "\t", "\r", "\x0B", "\u{a0}", "a", "-", "\n---", "x: 1",
        ];
        let mut rng = testkit::Xorshift::new(0x5851_f42d_4c95_7f2d);
        for _ in 0..100_000 {
            let seed = rng.next();
            let text: String = (0..(seed % 12) as usize)
                .map(|k| PIECES[((seed >> (5 * k)) % PIECES.len() as u64) as usize])
                .collect();
            let want: Vec<&str> = go.split(&text).collect();
            assert_eq!(split_at_separators(&text), want, "{text:?}");
            // Cut into pieces, the text splits into the same documents.
            let pieces: Vec<&str> = {
                let mut cuts: Vec<usize> = (0..4)
                    .map(|k| ((seed >> (8 * k + 3)) as usize) % (text.len() + 1))
                    .filter(|&at| text.is_char_boundary(at))
                    .collect();
                cuts.extend([0, text.len()]);
                cuts.sort_unstable();
                cuts.windows(2).map(|w| &text[w[0]..w[1]]).collect()
            };
            let docs: Vec<String> = Joined::new(pieces.iter().copied())
                .documents()
                .iter()
                .map(|d| d.to_string())
                .collect();
            assert_eq!(docs, split_documents(&text), "{pieces:?}");
        }
    }

    #[test]
    fn sorts_by_install_order_then_unknown_alphabetically() {
        let m = |kind: &'static str| Manifest {
            source: "",
            content: Doc(vec![kind]),
            kind: kind.into(),
            events: vec![],
        };
        let mut list = vec![
            m("Zed"),
            m("Deployment"),
            m("Alpha"),
            m("Namespace"),
            m("Deployment"),
        ];
        sort_by_kind(&mut list);
        let kinds: Vec<&str> = list.iter().map(|m| m.kind.as_str()).collect();
        assert_eq!(
            kinds,
            ["Namespace", "Deployment", "Deployment", "Alpha", "Zed"]
        );
    }
}
