//! The guided canary upgrade (`bosun upgrade --canary`) as a step machine, and the record of
//! its progress kept in the cluster. Pure: what the steps are, which revision is the old one,
//! which tags move, which workloads restart, and the record's format (a ConfigMap's `data`,
//! read and written through `cluster::Client::{read,create,update,delete}_record`). The
//! command line runs each step and saves the record after each.
//!
//! The steps, in order ([`Step`]): install the new version as a new revision beside the old
//! one (after the release gates) → verify it (istiod ready, every object as rendered) → move
//! the revision tags that point at the old revision (the default tag among them) to the new
//! one → restart the workloads whose pods the old revision injected, namespace by namespace →
//! remove the old revision once nothing uses it.

use std::collections::BTreeMap;

use assess::proxies::{RestartPlan, Selection, WorkloadProxies};
use assess::revisions::Inventory;

/// The name of the ConfigMap (in the Istio namespace) that records a canary upgrade in
/// progress. One at a time per cluster: creating it is the lock.
pub const RECORD_NAME: &str = "bosun-canary-upgrade";
/// Labels on the record: what it is and who wrote it.
pub const RECORD_LABELS: [(&str, &str); 2] = [
    ("app.kubernetes.io/managed-by", "bosun"),
    ("bosun.io/procedure", "canary-upgrade"),
];

/// A step of the procedure. The record holds the step reached: the first one not finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Step {
    Install,
    Verify,
    MoveTags,
    Restart,
    RemoveOld,
    Done,
}

impl Step {
    pub const ALL: [Step; 6] = [
        Step::Install,
        Step::Verify,
        Step::MoveTags,
        Step::Restart,
        Step::RemoveOld,
        Step::Done,
    ];

    /// The record's word for the step.
    pub fn as_str(self) -> &'static str {
        match self {
            Step::Install => "install",
            Step::Verify => "verify",
            Step::MoveTags => "move-tags",
            Step::Restart => "restart",
            Step::RemoveOld => "remove-old",
            Step::Done => "done",
        }
    }

    /// What the step does, for progress lines.
    pub fn describe(self) -> &'static str {
        match self {
            Step::Install => "install the new revision beside the old one",
            Step::Verify => "verify the new revision",
            Step::MoveTags => "move the revision tags to the new revision",
            Step::Restart => "restart the workloads injected by the old revision",
            Step::RemoveOld => "remove the old revision",
            Step::Done => "done",
        }
    }

    pub fn parse(text: &str) -> Option<Step> {
        Step::ALL.into_iter().find(|s| s.as_str() == text)
    }

    /// The step after this one.
    pub fn next(self) -> Step {
        match self {
            Step::Install => Step::Verify,
            Step::Verify => Step::MoveTags,
            Step::MoveTags => Step::Restart,
            Step::Restart => Step::RemoveOld,
            Step::RemoveOld | Step::Done => Step::Done,
        }
    }
}

/// What the new revision is rendered from, as the first run was given it, so that `--continue`
/// renders the same (the `-f` files are read again from these paths).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Source {
    /// `--version`.
    pub version: Option<String>,
    /// `--mirror`.
    pub mirror: Option<String>,
    /// `--manifests`.
    pub manifests: Option<String>,
    /// `-f` files.
    pub filenames: Vec<String>,
    /// `--set` flags.
    pub set: Vec<String>,
}

/// The procedure's state: the record kept in the cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct State {
    pub old_revision: String,
    pub new_revision: String,
    /// The Istio version of the new revision's charts.
    pub version: String,
    pub source: Source,
    /// The revision tags as they were before the move: each pointed at the old revision.
    pub tags: Vec<String>,
    /// The step reached (the first not finished).
    pub step: Step,
    /// Namespaces whose workloads were restarted and rolled out.
    pub namespaces_done: Vec<String>,
}

/// Bad input, or a cluster the procedure cannot start or go on from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CanaryError {
    #[error(
        "no Istio control plane is installed to upgrade from; install one first (bosun install --revision R)"
    )]
    NothingInstalled,
    #[error(
        "several control plane revisions are installed ({}); bosun upgrade --canary upgrades from one: remove the others first (bosun revision list shows what uses each)",
        .0.join(", ")
    )]
    SeveralInstalled(Vec<String>),
    #[error(
        "revision {0} is the installed one; a canary upgrade installs the new version as another revision: pass --revision with a new name"
    )]
    SameRevision(String),
    #[error(
        "revision {revision:?} is not a valid revision name: {why} (a revision is a DNS label: lower-case letters, digits and '-', at most 63 characters, starting and ending with a letter or digit)"
    )]
    InvalidRevision { revision: String, why: &'static str },
    #[error(
        "a canary upgrade from revision {old} to {new} (Istio {version}) is in progress at step {step}: run `bosun upgrade --continue` to resume it, or `bosun upgrade --abort` to move the tags back to {old}"
    )]
    InProgress {
        old: String,
        new: String,
        version: String,
        step: &'static str,
    },
    #[error(
        "no canary upgrade is in progress (no ConfigMap {namespace}/{RECORD_NAME}); start one with bosun upgrade --canary --version V"
    )]
    NotInProgress { namespace: String },
    #[error(
        "the canary upgrade from {old} to {new} is at step {step}: the old revision is being removed, so it can no longer be aborted; run `bosun upgrade --continue` to finish it"
    )]
    CannotAbort {
        old: String,
        new: String,
        step: &'static str,
    },
    #[error("the canary upgrade record {namespace}/{RECORD_NAME}: {what}")]
    Record { namespace: String, what: String },
}

/// The revision name derived from an Istio version, as Istio's docs name revisions: each `.`
/// becomes `-` (`1.30.3` → `1-30-3`), other characters a DNS label cannot hold too, upper
/// case is lowered, and the name is cut to 63 characters.
pub fn revision_for(version: &str) -> String {
    let mut out: String = version
        .trim_start_matches('v')
        .chars()
        .map(|c| match c.to_ascii_lowercase() {
            c @ ('a'..='z' | '0'..='9' | '-') => c,
            _ => '-',
        })
        .collect();
    out.truncate(63);
    out.trim_matches('-').to_string()
}

/// The revision name for a version the catalog resolved: a release's number, a module
/// version's Istio version (what its `VERSION` file names: `1.31` → `1-31`).
pub fn revision_for_resolved(resolved: &release::Resolved<'_>) -> String {
    match resolved {
        release::Resolved::Release { patch, .. } => revision_for(&patch.version),
        release::Resolved::Module(module) => revision_for(&module.istio),
    }
}

/// Checks that `revision` is a DNS label (what an `istio.io/rev` value and the `istiod-R` names
/// need).
pub fn check_revision(revision: &str) -> Result<(), CanaryError> {
    let bad = |why| {
        Err(CanaryError::InvalidRevision {
            revision: revision.to_string(),
            why,
        })
    };
    if revision.is_empty() {
        return bad("it is empty");
    }
    if revision.len() > 63 {
        return bad("it is longer than 63 characters");
    }
    if !revision
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return bad("it holds a character other than a-z, 0-9 and '-'");
    }
    if revision.starts_with('-') || revision.ends_with('-') {
        return bad("it starts or ends with '-'");
    }
    if revision == "default" {
        return bad("`default` is the revision of an install without one");
    }
    Ok(())
}

/// The installed control plane revisions (istiod or an injector), by name.
pub fn installed(inventory: &Inventory) -> Vec<String> {
    inventory
        .revisions
        .iter()
        .filter(|r| r.installed && (!r.istiod_namespaces.is_empty() || !r.injectors.is_empty()))
        .map(|r| r.revision.clone())
        .collect()
}

/// The revision a canary upgrade to `new` starts from: the one installed control plane.
pub fn old_revision(inventory: &Inventory, new: &str) -> Result<String, CanaryError> {
    let installed = installed(inventory);
    match installed.as_slice() {
        [] => Err(CanaryError::NothingInstalled),
        [one] if one == new => Err(CanaryError::SameRevision(new.to_string())),
        [one] => Ok(one.clone()),
        many => Err(CanaryError::SeveralInstalled(many.to_vec())),
    }
}

/// The revision tags pointing at `revision`, by name.
pub fn tags_of(inventory: &Inventory, revision: &str) -> Vec<String> {
    inventory
        .tags
        .iter()
        .filter(|t| t.revision == revision)
        .map(|t| t.tag.clone())
        .collect()
}

/// What the procedure will do on this cluster, for `--plan` and before asking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub old_revision: String,
    /// The old revision's Istio versions (its labels or istiod's image).
    pub old_versions: Vec<String>,
    pub new_revision: String,
    pub version: String,
    /// Tags that move from the old revision to the new one.
    pub tags: Vec<String>,
    /// The workloads to restart, namespace by namespace.
    pub restarts: RestartPlan,
    /// Namespaces that select the old revision directly (`istio.io/rev=<old>`): the procedure
    /// moves tags, not namespace labels, so these keep the old revision in use and stop the
    /// removal step until they are relabelled.
    pub direct_namespaces: Vec<String>,
}

/// The plan for upgrading from `old` to `new` (Istio `version`), given what `revision list`
/// and `proxy status` read.
pub fn plan(
    inventory: &Inventory,
    rows: &[WorkloadProxies],
    old: &str,
    new: &str,
    version: &str,
) -> Plan {
    let revision = inventory.revision(old);
    Plan {
        old_revision: old.to_string(),
        old_versions: revision.map(|r| r.versions.clone()).unwrap_or_default(),
        new_revision: new.to_string(),
        version: version.to_string(),
        tags: tags_of(inventory, old),
        restarts: restart_plan(rows, old),
        direct_namespaces: revision
            .map(|r| {
                r.namespaces
                    .iter()
                    .filter(|n| n.tag.is_none())
                    .map(|n| n.namespace.clone())
                    .collect()
            })
            .unwrap_or_default(),
    }
}

/// The workloads still injected by `old`, namespace by namespace (what the restart step does,
/// computed again on each run so that a resumed run restarts only what is left).
pub fn restart_plan(rows: &[WorkloadProxies], old: &str) -> RestartPlan {
    // `old` is a revision: judged without tags, so that it is never resolved as a tag's name.
    assess::proxies::restart_plan(
        &Inventory {
            revisions: Vec::new(),
            tags: Vec::new(),
        },
        rows,
        &Selection::Revision(old.to_string()),
    )
}

const KEYS: [&str; 8] = [
    "oldRevision",
    "newRevision",
    "version",
    "source",
    "tags",
    "step",
    "namespacesDone",
    "format",
];

impl State {
    /// The state at the start: nothing done yet.
    pub fn start(plan: &Plan, source: Source) -> State {
        State {
            old_revision: plan.old_revision.clone(),
            new_revision: plan.new_revision.clone(),
            version: plan.version.clone(),
            source,
            tags: plan.tags.clone(),
            step: Step::Install,
            namespaces_done: Vec::new(),
        }
    }

    /// Whether `--abort` may still undo it: until the old revision's removal starts.
    pub fn can_abort(&self) -> bool {
        self.step < Step::RemoveOld
    }

    /// The refusal a second `upgrade --canary` gets while this one is in progress.
    pub fn in_progress(&self) -> CanaryError {
        CanaryError::InProgress {
            old: self.old_revision.clone(),
            new: self.new_revision.clone(),
            version: self.version.clone(),
            step: self.step.as_str(),
        }
    }

    /// The record's labels.
    pub fn labels() -> BTreeMap<String, String> {
        RECORD_LABELS
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// The record's `data`: one key per field; lists and the source as JSON.
    pub fn to_data(&self) -> BTreeMap<String, String> {
        let source = serde_json::json!({
            "version": self.source.version,
            "mirror": self.source.mirror,
            "manifests": self.source.manifests,
            "filenames": self.source.filenames,
            "set": self.source.set,
        });
        [
            ("format", "1".to_string()),
            ("oldRevision", self.old_revision.clone()),
            ("newRevision", self.new_revision.clone()),
            ("version", self.version.clone()),
            ("source", source.to_string()),
            ("tags", serde_json::json!(self.tags).to_string()),
            ("step", self.step.as_str().to_string()),
            (
                "namespacesDone",
                serde_json::json!(self.namespaces_done).to_string(),
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }

    /// Reads a record's `data` (from the ConfigMap in `namespace`, named in errors).
    pub fn from_data(
        namespace: &str,
        data: &BTreeMap<String, String>,
    ) -> Result<State, CanaryError> {
        let bad = |what: String| CanaryError::Record {
            namespace: namespace.to_string(),
            what,
        };
        let get = |key: &str| {
            data.get(key)
                .cloned()
                .ok_or_else(|| bad(format!("key {key} is missing (it has {})", keys(data))))
        };
        if get("format")? != "1" {
            return Err(bad(format!(
                "format {:?} is not one this bosun reads (1)",
                data["format"]
            )));
        }
        let list = |key: &str| -> Result<Vec<String>, CanaryError> {
            serde_json::from_str(&get(key)?)
                .map_err(|e| bad(format!("key {key} is not a JSON list of strings: {e}")))
        };
        let source: serde_json::Value = serde_json::from_str(&get("source")?)
            .map_err(|e| bad(format!("key source is not JSON: {e}")))?;
        let text = |key: &str| source[key].as_str().map(str::to_string);
        let strings = |key: &str| -> Result<Vec<String>, CanaryError> {
            match &source[key] {
                serde_json::Value::Null => Ok(Vec::new()),
                v => serde_json::from_value(v.clone())
                    .map_err(|e| bad(format!("key source: {key} is not a list of strings: {e}"))),
            }
        };
        let step = get("step")?;
        let state = State {
            old_revision: get("oldRevision")?,
            new_revision: get("newRevision")?,
            version: get("version")?,
            source: Source {
                version: text("version"),
                mirror: text("mirror"),
                manifests: text("manifests"),
                filenames: strings("filenames")?,
                set: strings("set")?,
            },
            tags: list("tags")?,
            step: Step::parse(&step).ok_or_else(|| {
                bad(format!(
                    "step {step:?} is none of {}",
                    Step::ALL.map(Step::as_str).join(", ")
                ))
            })?,
            namespaces_done: list("namespacesDone")?,
        };
        for revision in [&state.old_revision, &state.new_revision] {
            check_revision(revision).map_err(|e| bad(e.to_string()))?;
        }
        Ok(state)
    }
}

fn keys(data: &BTreeMap<String, String>) -> String {
    let known: Vec<&str> = data
        .keys()
        .map(String::as_str)
        .filter(|k| KEYS.contains(k))
        .collect();
    if known.is_empty() {
        "none of the keys".to_string()
    } else {
        known.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use assess::revisions::{LiveObject, inventory};

    fn istiod(revision: &str, version: &str) -> LiveObject {
        LiveObject::new(
            "Deployment",
            Some("istio-system"),
            &format!("istiod-{revision}"),
            &[
                ("app", "istiod"),
                ("operator.istio.io/component", "Pilot"),
                ("operator.istio.io/version", version),
                ("istio.io/rev", revision),
            ],
        )
    }

    fn tag(tag: &str, revision: &str) -> LiveObject {
        LiveObject::new(
            "MutatingWebhookConfiguration",
            None,
            &format!("istio-revision-tag-{tag}"),
            &[("istio.io/tag", tag), ("istio.io/rev", revision)],
        )
    }

    #[test]
    fn revision_names_follow_istio_docs() {
        for (version, revision) in [
            ("1.30.3", "1-30-3"),
            ("1.31.0-beta.1", "1-31-0-beta-1"),
            ("1.30", "1-30"),
            ("v1.29.0", "1-29-0"),
            ("1.31-alpha.B01690E6DB7D", "1-31-alpha-b01690e6db7d"),
        ] {
            assert_eq!(revision_for(version), revision, "{version}");
            check_revision(revision).unwrap();
        }
        assert_eq!(revision_for(&"1".repeat(80)).len(), 63);
        for bad in ["", "Canary", "a_b", "-a", "a-", "default", &"a".repeat(64)] {
            assert!(check_revision(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_old_revision_is_the_one_installed() {
        let one = inventory(&[
            istiod("1-29-0", "1.29.0"),
            tag("default", "1-29-0"),
            tag("prod", "1-29-0"),
            tag("other", "x"),
        ]);
        assert_eq!(old_revision(&one, "1-30-3").unwrap(), "1-29-0");
        assert_eq!(tags_of(&one, "1-29-0"), ["default", "prod"]);
        assert_eq!(
            old_revision(&one, "1-29-0"),
            Err(CanaryError::SameRevision("1-29-0".into()))
        );
        assert_eq!(
            old_revision(&inventory(&[tag("prod", "gone")]), "new"),
            Err(CanaryError::NothingInstalled)
        );
        let two = inventory(&[istiod("a", "1.29.0"), istiod("b", "1.30.0")]);
        assert_eq!(
            old_revision(&two, "c"),
            Err(CanaryError::SeveralInstalled(vec!["a".into(), "b".into()]))
        );
    }

    #[test]
    fn the_plan_names_tags_and_directly_selecting_namespaces() {
        let objects = [
            istiod("old", "1.29.0"),
            tag("prod", "old"),
            LiveObject::new("Namespace", None, "apps", &[("istio.io/rev", "prod")]),
            LiveObject::new("Namespace", None, "pinned", &[("istio.io/rev", "old")]),
        ];
        let inv = inventory(&objects);
        let plan = plan(&inv, &[], "old", "new", "1.30.3");
        assert_eq!(plan.tags, ["prod"]);
        assert_eq!(plan.direct_namespaces, ["pinned"]);
        assert_eq!(plan.old_versions, ["1.29.0"]);
        assert!(plan.restarts.is_empty());
    }

    #[test]
    fn the_record_round_trips_and_bad_records_are_named() {
        let state = State {
            old_revision: "1-29-0".into(),
            new_revision: "1-30-3".into(),
            version: "1.30.3".into(),
            source: Source {
                version: Some("1.30.3".into()),
                mirror: None,
                manifests: None,
                filenames: vec!["iop.yaml".into()],
                set: vec!["profile=minimal".into()],
            },
            tags: vec!["default".into(), "prod".into()],
            step: Step::Restart,
            namespaces_done: vec!["a".into()],
        };
        let data = state.to_data();
        assert_eq!(data["step"], "restart");
        assert_eq!(data["tags"], r#"["default","prod"]"#);
        assert_eq!(State::from_data("istio-system", &data).unwrap(), state);
        assert!(state.can_abort());

        let mut broken = data.clone();
        broken.insert("step".into(), "sideways".into());
        let e = State::from_data("istio-system", &broken)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("step \"sideways\" is none of install, verify"),
            "{e}"
        );
        let mut broken = data.clone();
        broken.remove("oldRevision");
        let e = State::from_data("istio-system", &broken)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("the canary upgrade record istio-system/bosun-canary-upgrade: key oldRevision is missing"), "{e}");
        let mut broken = data;
        broken.insert("tags".into(), "prod".into());
        assert!(State::from_data("istio-system", &broken).is_err());
    }

    #[test]
    fn steps_go_in_order_and_abort_stops_at_removal() {
        let mut step = Step::Install;
        let mut seen = vec![step];
        while step != Step::Done {
            step = step.next();
            seen.push(step);
        }
        assert_eq!(seen, Step::ALL);
        for s in Step::ALL {
            assert_eq!(Step::parse(s.as_str()), Some(s));
        }
    }
}
