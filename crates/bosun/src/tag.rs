//! `bosun tag set|generate|list|remove` (istioctl's `istioctl tag`), and the default revision
//! tag `install` creates as istioctl's installer does. The objects come from `manifest::tag`,
//! the checks and writes from `cluster::tags`, the renders from `pipeline::tag`; this module
//! asks and prints.

use std::io::Write;

use clap::{Args, Subcommand, ValueEnum};
use serde_json::{Value, json};

use crate::mesh::MeshFailure;

/// The field manager of `tag set`: not the installer's (`bosun`), as istioctl's `tag` commands
/// apply as `istio-ci` and its installer as `istio-operator`. So a user's tag and an install's
/// default tag keep their own fields (labels one of them set stay until that one changes them).
pub const TAG_FIELD_MANAGER: &str = "bosun-tag";

#[derive(Subcommand, Debug)]
pub enum TagCommand {
    /// Create or modify a revision tag: point it at a control plane revision, for namespaces
    /// labelled `istio.io/rev=<tag>` (the tag `default` also serves `istio-injection=enabled`
    /// and validates config cluster-wide).
    Set(SetArgs),
    /// Print the objects of a revision tag instead of applying them.
    Generate(SetArgs),
    /// List the revision tags, the revision each points at and the namespaces using it.
    #[command(alias = "show")]
    List(ListArgs),
    /// Remove a revision tag (its webhooks and Service); asks first when namespaces use it.
    #[command(alias = "delete")]
    Remove(RemoveArgs),
}

#[derive(Args, Debug)]
pub struct SetArgs {
    /// The revision tag's name.
    pub tag: String,
    /// Control plane revision to reference from the revision tag.
    #[arg(short = 'r', long, required = true)]
    pub revision: String,
    /// Replace an existing revision tag of this name (otherwise refused).
    #[arg(long)]
    pub overwrite: bool,
    /// The install package (charts and profiles) to render the tag from; the pinned release
    /// by default.
    #[arg(short = 'd', long = "manifests")]
    pub manifests: Option<String>,
    /// Do not ask before applying a tag whose injector would overlap another revision's.
    #[arg(short = 'y', long = "skip-confirmation")]
    pub yes: bool,
    /// Name of the revision tag's MutatingWebhookConfiguration.
    #[arg(long = "webhook-name")]
    pub webhook_name: Option<String>,
    /// Inject sidecars into all namespaces by default (those not opting out).
    #[arg(long = "auto-inject-namespaces")]
    pub auto_inject_namespaces: bool,
    /// Istio system namespace.
    #[arg(short = 'i', long = "istioNamespace", default_value = "istio-system")]
    pub istio_namespace: String,
    #[command(flatten)]
    pub cluster: crate::target::ClusterArgs,
}

#[derive(Clone, Copy, Debug, Default, ValueEnum)]
pub enum ListFormat {
    #[default]
    Table,
    Json,
    Yaml,
}

#[derive(Args, Debug)]
pub struct ListArgs {
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value = "table")]
    pub output: ListFormat,
    /// Istio system namespace.
    #[arg(short = 'i', long = "istioNamespace", default_value = "istio-system")]
    pub istio_namespace: String,
    #[command(flatten)]
    pub cluster: crate::target::ClusterArgs,
}

#[derive(Args, Debug)]
pub struct RemoveArgs {
    /// The revision tag to remove.
    pub tag: String,
    /// Do not ask, even when namespaces still use the tag.
    #[arg(short = 'y', long = "skip-confirmation")]
    pub yes: bool,
    /// Istio system namespace.
    #[arg(short = 'i', long = "istioNamespace", default_value = "istio-system")]
    pub istio_namespace: String,
    #[command(flatten)]
    pub cluster: crate::target::ClusterArgs,
}

pub fn tag(command: TagCommand, runtime: &crate::runtime::Runtime) -> Result<(), MeshFailure> {
    let runtime = runtime.get()?;
    match command {
        TagCommand::Set(args) => set(args, false, runtime),
        TagCommand::Generate(args) => set(args, true, runtime),
        TagCommand::List(args) => list(args, runtime),
        TagCommand::Remove(args) => remove(args, runtime),
    }
}

/// The objects as YAML documents joined by `---` lines, as istioctl prints a tag.
fn documents(objects: &[Value]) -> String {
    objects
        .iter()
        .map(|o| manifest::object::Object::new(o.clone()).to_yaml())
        .collect::<Vec<_>>()
        .join("---\n")
}

/// `tag set` and `tag generate` (istioctl's `setTag`).
fn set(
    args: SetArgs,
    generate_only: bool,
    runtime: &tokio::runtime::Runtime,
) -> Result<(), MeshFailure> {
    let client = args.cluster.connect(runtime)?;
    let manifests = args.manifests.clone().unwrap_or_default();
    let options = manifest::tag::TagOptions {
        tag: args.tag.clone(),
        revision: args.revision.clone(),
        webhook_name: args.webhook_name.clone(),
        auto_inject_namespaces: args.auto_inject_namespaces,
        custom_labels: Default::default(),
        user_managed: true,
        istio_namespace: args.istio_namespace.clone(),
        manifests,
    };
    let overlaps = if args.yes {
        Overlaps::Allow
    } else if generate_only {
        Overlaps::Say
    } else {
        Overlaps::Ask
    };
    let Some(done) = point(
        &client,
        runtime,
        &options,
        args.overwrite,
        generate_only,
        overlaps,
    )?
    else {
        return Ok(());
    };
    let mut stdout = std::io::stdout().lock();
    let _ = write!(
        stdout,
        "Revision tag {:?} {done}, referencing control plane revision {:?}. To enable injection using this\nrevision tag, use 'kubectl label namespace <NAMESPACE> istio.io/rev={}'\n",
        args.tag, args.revision, args.tag
    );
    Ok(())
}

/// What [`point`] does about a tag's injector that would overlap another revision's.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Overlaps {
    /// Say so and ask whether to apply anyway.
    Ask,
    /// Say so (for `tag generate`, which applies nothing).
    Say,
    /// Apply without asking (`-y`).
    Allow,
    /// Fail.
    Refuse,
}

/// Renders the tag `options` names and (unless `generate_only`, which prints it) applies it:
/// the default tag first deactivates the `default` revision's own injector. Returns what
/// happened to the tag's injector (`created`, `updated`, `unchanged`), or `None` when nothing
/// was applied (generated, or the user said no). The canary upgrade moves tags with this.
pub(crate) fn point(
    client: &cluster::Client,
    runtime: &tokio::runtime::Runtime,
    options: &manifest::tag::TagOptions,
    overwrite: bool,
    generate_only: bool,
    on_overlap: Overlaps,
) -> Result<Option<&'static str>, MeshFailure> {
    let packages = crate::mesh::packages();
    // A package given on the command line is checked now, not by the first render.
    packages.dir(&options.manifests)?;
    let checks = cluster::tags::TagChecks {
        generate_only,
        overwrite,
    };
    let render = pipeline::tag::ChartRender {
        packages: &packages,
    };
    let objects = runtime.block_on(client.generate_tag(options, checks, &render))??;
    // Would the tag's injector inject pods another revision's injector injects? For the
    // default tag, the `default` revision's own injector is deactivated first, so it is judged
    // deactivated (as istioctl, which deactivates it before this check).
    let overlaps = runtime.block_on(client.webhook_overlaps_after(
        &objects[..1],
        options.tag == vocab::labels::DEFAULT_REVISION,
    ))?;
    if !overlaps.is_empty() && on_overlap != Overlaps::Allow {
        let error = cluster::Error::WebhookOverlap { overlaps };
        if on_overlap == Overlaps::Refuse {
            return Err(MeshFailure(format!(
                "pointing tag {} at revision {} would conflict:\n{error}",
                options.tag, options.revision
            )));
        }
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(stderr, "creating tag would conflict:\n{error}");
        drop(stderr);
        if on_overlap == Overlaps::Ask && !crate::prompt::ask("tag set", "Apply anyways? [y/N]")? {
            return Ok(None);
        }
    }
    if generate_only {
        crate::mesh::write_stdout(&documents(&objects))?;
        return Ok(None);
    }
    let report = runtime.block_on(async {
        if options.tag == vocab::labels::DEFAULT_REVISION {
            client
                .deactivate_default_injector(TAG_FIELD_MANAGER)
                .await??;
        }
        client
            .apply(&objects, TAG_FIELD_MANAGER, true)
            .await
            .map_err(|e| {
                MeshFailure(format!(
                    "failed to apply tag webhook MutatingWebhookConfiguration to cluster: {e}"
                ))
            })
    })?;
    // istioctl says "created" whatever happened; the tag's injector (the first object) tells
    // whether it was made, moved, or already pointed there.
    Ok(Some(match report.objects.first().map(|a| a.outcome) {
        Some(cluster::Outcome::Configured) => "updated",
        Some(cluster::Outcome::Unchanged) => "unchanged",
        _ => "created",
    }))
}

/// `tag list` (istioctl's `listTags`): a table, or JSON/YAML of `{tag, revision, namespaces}`.
fn list(args: ListArgs, runtime: &tokio::runtime::Runtime) -> Result<(), MeshFailure> {
    let client = args.cluster.connect(runtime)?;
    let rows = runtime.block_on(client.tag_descriptions(&args.istio_namespace))?;
    if rows.is_empty() {
        return crate::mesh::write_stdout("No Istio revision tags found.\n");
    }
    let text = match args.output {
        ListFormat::Table => table(&rows),
        // `fmt.Fprintln` of the marshalled text: YAML's own final newline gets a second.
        ListFormat::Json => rows_json(&rows) + "\n",
        ListFormat::Yaml => {
            let value = Value::Array(
                rows.iter()
                    .map(|r| json!({"tag": r.tag, "revision": r.revision, "namespaces": r.namespaces}))
                    .collect(),
            );
            goyaml::json_to_yaml(&value)
                .map_err(|e| MeshFailure(format!("error while marshaling to YAML: {e}")))?
                + "\n"
        }
    };
    crate::mesh::write_stdout(&text)
}

/// istioctl's table: Go's `tabwriter` with minimum width 0, padding 1, space padded.
fn table(rows: &[manifest::tag::TagDescription]) -> String {
    let cells: Vec<[String; 3]> = std::iter::once([
        "TAG".to_string(),
        "REVISION".to_string(),
        "NAMESPACES".to_string(),
    ])
    .chain(
        rows.iter()
            .map(|r| [r.tag.clone(), r.revision.clone(), r.namespaces.join(",")]),
    )
    .collect();
    let width = |i: usize| {
        cells
            .iter()
            .map(|c| c[i].chars().count())
            .max()
            .unwrap_or(0)
            + 1
    };
    let (w0, w1) = (width(0), width(1));
    let mut out = String::new();
    for c in &cells {
        out.push_str(&format!("{:<w0$}{:<w1$}{}\n", c[0], c[1], c[2]));
    }
    out
}

/// Go's `json.MarshalIndent(rows, "", "\t")` of istioctl's `tagDescription` structs (fields in
/// struct order: tag, revision, namespaces).
fn rows_json(rows: &[manifest::tag::TagDescription]) -> String {
    if rows.is_empty() {
        return "[]".to_string();
    }
    let string = |s: &str| go_escape(&Value::String(s.to_string()).to_string());
    let mut out = String::from("[\n");
    for (i, r) in rows.iter().enumerate() {
        out.push_str(&format!(
            "\t{{\n\t\t\"tag\": {},\n\t\t\"revision\": {},\n\t\t\"namespaces\": ",
            string(&r.tag),
            string(&r.revision)
        ));
        if r.namespaces.is_empty() {
            out.push_str("[]");
        } else {
            out.push_str("[\n");
            let names: Vec<String> = r
                .namespaces
                .iter()
                .map(|n| format!("\t\t\t{}", string(n)))
                .collect();
            out.push_str(&names.join(",\n"));
            out.push_str("\n\t\t]");
        }
        out.push_str(if i + 1 < rows.len() {
            "\n\t},\n"
        } else {
            "\n\t}\n"
        });
    }
    out.push(']');
    out
}

/// Go's `encoding/json` escapes `<`, `>` and `&` (and U+2028, U+2029) in strings.
fn go_escape(json: &str) -> String {
    json.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// `tag remove` (istioctl's `removeTag`).
fn remove(args: RemoveArgs, runtime: &tokio::runtime::Runtime) -> Result<(), MeshFailure> {
    let client = args.cluster.connect(runtime)?;
    let namespaces = runtime.block_on(client.namespaces_with_tag(&args.tag))?;
    // istioctl looks the tag up first: a tag that does not exist is an error before any
    // question.
    if !runtime.block_on(client.tag_exists(&args.tag, &args.istio_namespace))? {
        return Err(cluster::tags::TagRefusal::NotFound(args.tag.clone()).into());
    }
    if !namespaces.is_empty() && !args.yes {
        let question = format!(
            "Caution, found {} namespace(s) still injected by tag {:?}: {}\nProceed with operation? [y/N]",
            namespaces.len(),
            args.tag,
            namespaces.join(" ")
        );
        if !crate::prompt::ask("tag remove", &question)? {
            return crate::mesh::write_stdout("Aborting operation.\n");
        }
    }
    runtime.block_on(client.remove_tag(&args.tag, &args.istio_namespace))??;
    crate::mesh::write_stdout(&format!("Revision tag {} removed\n", args.tag))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_json_matches_marshal_indent() {
        let row = |tag: &str, revision: &str, namespaces: &[&str]| manifest::tag::TagDescription {
            tag: tag.into(),
            revision: revision.into(),
            namespaces: namespaces.iter().map(|n| n.to_string()).collect(),
        };
        let rows = [row("default", "1-31", &[]), row("p<r>", "x", &["a", "b"])];
        assert_eq!(
            rows_json(&rows),
            "[\n\t{\n\t\t\"tag\": \"default\",\n\t\t\"revision\": \"1-31\",\n\t\t\"namespaces\": []\n\t},\n\t{\n\t\t\"tag\": \"p\\u003cr\\u003e\",\n\t\t\"revision\": \"x\",\n\t\t\"namespaces\": [\n\t\t\t\"a\",\n\t\t\t\"b\"\n\t\t]\n\t}\n]"
        );
    }

    #[test]
    fn table_pads_as_tabwriter() {
        let rows = vec![manifest::tag::TagDescription {
            tag: "default".into(),
            revision: "canary".into(),
            namespaces: vec!["a".into(), "b".into()],
        }];
        assert_eq!(
            table(&rows),
            "TAG     REVISION NAMESPACES\ndefault canary   a,b\n"
        );
    }
}
