//! `bosun manifest translate`: what istioctl's `manifest translate` writes to move an
//! IstioOperator install to Helm. For each component with a Helm release: its values file, a
//! script that labels and annotates the live objects as Helm's and runs `helm upgrade
//! --install`, and, when Helm alone renders the component differently from istioctl, both
//! renderings to diff; then a README over all components. Nothing touches the cluster.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use manifest::object::Object;

use crate::mesh::{InputArgs, MeshFailure};

#[derive(Args, Debug)]
pub struct TranslateArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Where to put the translated outputs (created if missing; default: a new temporary
    /// directory).
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
}

/// The README around the per-component results (istioctl's `readme.tpl`, evaluated).
const README_HEAD: &str = "# IstioOperator to Helm Migration

This folder contains auto-generated output from the `istioctl manifest translate` command.
Note the `manifest translate` command only outputs this folders contents, and does not modify the cluster state.

Follow the instructions below for each component to complete the migration.

# Components";

/// Objects as istioctl compares them: sorted, each marshalled, joined by `\n---\n`.
fn joined(objects: &[Object]) -> String {
    let mut sorted = objects.to_vec();
    manifest::order::sort_objects(&mut sorted);
    sorted
        .iter()
        .map(Object::to_yaml)
        .collect::<Vec<_>>()
        .join("\n---\n")
}

/// `Deployment.apps`, `ServiceAccount`: Go's `GroupKind.String()`.
fn group_kind(obj: &Object) -> String {
    match obj.group() {
        "" => obj.kind().to_string(),
        group => format!("{}.{group}", obj.kind()),
    }
}

fn install_script(
    name: &str,
    namespace: &str,
    values_file: &str,
    release: &str,
    objects: &[Object],
) -> String {
    let mut lines = vec![
        "#!/usr/bin/env bash".to_string(),
        String::new(),
        "# Label/Annotate resources to mark them a part of the Helm release.".to_string(),
    ];
    for obj in objects {
        let gk = group_kind(obj);
        let ns_flag = match obj.namespace() {
            "" => String::new(),
            ns => format!(" --namespace={ns}"),
        };
        let object = obj.name();
        lines.push(format!(
            "kubectl annotate {gk}{ns_flag} {object} meta.helm.sh/release-name={name}"
        ));
        lines.push(format!(
            "kubectl annotate {gk}{ns_flag} {object} meta.helm.sh/release-namespace={namespace}"
        ));
        lines.push(format!(
            "kubectl label {gk}{ns_flag} {object} app.kubernetes.io/managed-by=Helm"
        ));
    }
    lines.push("\n".to_string());
    lines.push("# Run the actual Helm install operation".to_string());
    lines.push(format!(
        "helm upgrade --install {name} --namespace {namespace} -f {values_file} oci://ghcr.io/istio/release/charts/{release}"
    ));
    lines.join("\n") + "\n"
}

fn write(dir: &Path, name: &str, contents: &str) -> Result<(), MeshFailure> {
    let path = dir.join(name);
    std::fs::write(&path, contents)
        .map_err(|e| MeshFailure(format!("writing {}: {e}", path.display())))?;
    #[cfg(unix)]
    if name.ends_with(".sh") {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| MeshFailure(format!("making {} executable: {e}", path.display())))?;
    }
    Ok(())
}

fn output_dir(requested: Option<PathBuf>) -> Result<PathBuf, MeshFailure> {
    if let Some(dir) = requested {
        std::fs::create_dir_all(&dir)
            .map_err(|e| MeshFailure(format!("creating {}: {e}", dir.display())))?;
        return Ok(dir);
    }
    let base = std::env::temp_dir();
    for attempt in 0u32..100 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or_default();
        let dir = base.join(format!(
            "bosun-migrate-{}{}",
            std::process::id(),
            nanos.wrapping_add(attempt)
        ));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(MeshFailure(format!("creating {}: {e}", dir.display()))),
        }
    }
    Err(MeshFailure(format!(
        "could not create a new directory under {}",
        base.display()
    )))
}

pub fn manifest_translate(args: TranslateArgs) -> Result<(), MeshFailure> {
    // The same validation and rendering as `manifest generate` first: bad input stops here.
    let packages = crate::mesh::packages();
    let pipeline::Rendered {
        merged, generated, ..
    } = crate::mesh::render(&args.input, &packages, false, None)?;
    let migrations = pipeline::migrate(&merged, &packages)?;
    let dir = output_dir(args.output)?;

    let mut results = Vec::new();
    for m in &migrations {
        let name = if m.spec.name.is_empty() {
            m.component.spec_name
        } else {
            m.spec.name.as_str()
        };
        let Some(release) = m.component.release_name else {
            results.push(format!(
                "* ❌ **Component `{name}`**: migration is **NOT** directly supported!"
            ));
            continue;
        };
        let values_file = format!("{name}-values.yaml");
        let values = match &m.values {
            Some(values) => goyaml::json_to_yaml(&serde_json::Value::Object(values.clone()))
                .map_err(|e| MeshFailure(format!("writing {values_file}: {e}")))?,
            None => "null\n".to_string(),
        };
        write(&dir, &values_file, &values)?;
        let script = install_script(
            name,
            &m.spec.namespace,
            &values_file,
            release,
            &m.helm_objects,
        );
        write(&dir, &format!("install-{name}.sh"), &script)?;

        let Some(istioctl) = generated
            .components
            .iter()
            .rev()
            .find(|c| c.component.name == m.component.name)
        else {
            continue;
        };
        let helm_text = joined(&m.helm_objects);
        let istioctl_text = joined(&istioctl.objects);
        let mut diff_warning = String::new();
        if helm_text != istioctl_text {
            let helm_name = format!("diff-{name}-helm-output.yaml");
            let istioctl_name = format!("diff-{name}-istioctl-output.yaml");
            write(&dir, &helm_name, &helm_text)?;
            write(&dir, &istioctl_name, &istioctl_text)?;
            diff_warning = format!(
                "\n  ⚠️ Component rendering is different between Istioctl and Helm!\n  This may be from incompatibilities between the two installation methods.\n  Review the difference between the two and take appropriate actions to resolve these, if needed: `diff {helm_name} {istioctl_name}`.\n"
            );
        }
        results.push(format!(
            "* ✅ **Component `{name}`**: migration is supported!\n{diff_warning}\n  The translated values have been written to {values_file}.\n  You may use these directly, or follow the guided `install-{name}.sh` script."
        ));
    }
    let mut readme = README_HEAD.to_string();
    for r in &results {
        readme.push('\n');
        readme.push_str(r);
    }
    readme.push('\n');
    write(&dir, "README.md", &readme)?;
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(
        stdout,
        "Output written to {}! See the README.md for next steps",
        dir.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn group_kind_is_gos() {
        let dep = Object::new(
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}}),
        );
        let sa = Object::new(
            json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "s"}}),
        );
        assert_eq!(group_kind(&dep), "Deployment.apps");
        assert_eq!(group_kind(&sa), "ServiceAccount");
    }
}
