//! `bosun revision list`: every control-plane revision with its version and components, the
//! tags pointing at it, the namespaces selecting it and the pods running its proxy — what tells
//! whether an old revision can go. istioctl dropped its `x revision list`; this one reads only
//! live objects (no installed-state record): `cluster::Client::revisions`, judged by
//! `assess::revisions`. Revisions that namespaces, tags or pods name but that have no control
//! plane are listed too, as not installed.

use std::fmt::Write as _;

use assess::revisions::{Inventory, NamespaceSelection, Revision};
use clap::{Args, Subcommand, ValueEnum};

use crate::mesh::MeshFailure;

#[derive(Subcommand, Debug)]
pub enum RevisionCommand {
    /// List every control-plane revision: its Istio version, istiod namespace and components,
    /// the tags pointing at it, the namespaces selecting it (`istio.io/rev`, `istio-injection`)
    /// and how many pods run its proxy. Revisions that are used but not installed are listed
    /// too. `-o json` adds each pod's name and each namespace's label.
    List(ListArgs),
}

/// How `revision list` prints.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A table, one revision a line.
    #[default]
    Table,
    /// One JSON document: `{"revisions": [...], "tags": [...]}`.
    Json,
}

#[derive(Args, Debug)]
pub struct ListArgs {
    #[command(flatten)]
    pub cluster: crate::target::ClusterArgs,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value = "table")]
    pub output: Format,
}

pub fn revision(
    command: RevisionCommand,
    runtime: &crate::runtime::Runtime,
) -> Result<(), MeshFailure> {
    let RevisionCommand::List(args) = command;
    let inventory = runtime.get()?.block_on(async {
        let client = args.cluster.client().await?;
        Ok::<_, MeshFailure>(client.revisions().await?)
    })?;
    crate::mesh::write_stdout(&match args.output {
        Format::Table => table(&inventory),
        Format::Json => {
            let mut text = serde_json::to_string_pretty(&inventory)
                .map_err(|e| MeshFailure(format!("writing JSON: {e}")))?;
            text.push('\n');
            text
        }
    })
}

/// How a namespace selects: its name, then `[tag=T]` when through a tag, `[istio-injection]`
/// when by that label.
fn namespace_cell(n: &NamespaceSelection) -> String {
    let injection = n.label.starts_with(vocab::labels::INJECTION_LABEL);
    match (&n.tag, injection) {
        (_, true) => format!("{}[istio-injection]", n.namespace),
        (Some(tag), false) => format!("{}[tag={tag}]", n.namespace),
        (None, false) => n.namespace.clone(),
    }
}

fn list_or_dash(items: &[String]) -> String {
    if items.is_empty() {
        "-".to_string()
    } else {
        items.join(",")
    }
}

fn row(r: &Revision) -> Vec<String> {
    let (version, istiod, components) = if r.installed {
        (
            list_or_dash(&r.versions),
            list_or_dash(&r.istiod_namespaces),
            list_or_dash(&r.components),
        )
    } else {
        ("-".into(), "-".into(), "(not installed)".into())
    };
    vec![
        r.revision.clone(),
        version,
        istiod,
        components,
        list_or_dash(&r.tags),
        list_or_dash(&r.namespaces.iter().map(namespace_cell).collect::<Vec<_>>()),
        r.pods.len().to_string(),
    ]
}

/// The table: Go's tabwriter as istioctl's tables use it (cells padded to the column's widest
/// plus one space).
fn table(inventory: &Inventory) -> String {
    if inventory.revisions.is_empty() {
        return "No Istio control plane revisions found.\n".to_string();
    }
    let mut rows = vec![
        [
            "REVISION",
            "VERSION",
            "ISTIOD",
            "COMPONENTS",
            "TAGS",
            "NAMESPACES",
            "PODS",
        ]
        .map(str::to_string)
        .to_vec(),
    ];
    rows.extend(inventory.revisions.iter().map(row));
    let widths: Vec<usize> = (0..rows[0].len())
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for r in &rows {
        let mut line = String::new();
        for (i, cell) in r.iter().enumerate() {
            if i + 1 == r.len() {
                line.push_str(cell);
            } else {
                let _ = write!(line, "{cell:<width$} ", width = widths[i]);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use assess::revisions::{LiveObject, inventory};

    #[test]
    fn table_shows_each_revision_on_a_line() {
        let mut pod = LiveObject::new("Pod", Some("shop"), "cart", &[]);
        pod.annotations
            .insert("istio.io/rev".into(), "canary".into());
        let objects = [
            LiveObject::new(
                "Deployment",
                Some("istio-system"),
                "istiod-canary",
                &[
                    ("app", "istiod"),
                    ("operator.istio.io/component", "Pilot"),
                    ("operator.istio.io/version", "1.31"),
                    ("istio.io/rev", "canary"),
                ],
            ),
            LiveObject::new(
                "MutatingWebhookConfiguration",
                None,
                "istio-revision-tag-default",
                &[("istio.io/tag", "default"), ("istio.io/rev", "canary")],
            ),
            LiveObject::new("Namespace", None, "shop", &[("istio-injection", "enabled")]),
            LiveObject::new("Namespace", None, "web", &[("istio.io/rev", "default")]),
            LiveObject::new("Namespace", None, "api", &[("istio.io/rev", "canary")]),
            LiveObject::new("Namespace", None, "old", &[("istio.io/rev", "gone")]),
            pod,
        ];
        assert_eq!(
            table(&inventory(&objects)),
            "\
REVISION VERSION ISTIOD       COMPONENTS      TAGS    NAMESPACES                                 PODS
canary   1.31    istio-system Pilot           default api,shop[istio-injection],web[tag=default] 1
gone     -       -            (not installed) -       old                                        0
"
        );
        assert_eq!(
            table(&inventory(&[])),
            "No Istio control plane revisions found.\n"
        );
    }
}
