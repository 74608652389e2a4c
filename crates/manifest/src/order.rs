//! istioctl's output order for `manifest generate` (and its apply order): CRDs first, then
//! service accounts and cluster roles, bindings, validating webhooks, config maps, workloads,
//! autoscalers, services last; ties by group, kind and name, otherwise stable.

use std::borrow::Borrow;

use crate::object::Object;

/// istioctl's `objectKindOrdering`.
pub fn kind_rank(obj: &Object) -> i32 {
    match (obj.group(), obj.kind()) {
        ("apiextensions.k8s.io", "CustomResourceDefinition") => -1000,
        ("", "ServiceAccount") | ("rbac.authorization.k8s.io", "ClusterRole") => 1,
        ("rbac.authorization.k8s.io", "ClusterRoleBinding") => 2,
        ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration") => 3,
        // istioctl's table says "Secrets", so Secrets keep the default rank.
        ("", "ConfigMap") | ("", "Secrets") => 100,
        ("extensions" | "apps", "Deployment") => 1000,
        ("autoscaling", "HorizontalPodAutoscaler") => 1001,
        ("", "Service") => 10000,
        _ => 1000,
    }
}

/// Sorts as istioctl's `sortManifests` (a stable sort).
pub fn sort_objects<T: Borrow<Object>>(objects: &mut [T]) {
    objects.sort_by(|a, b| {
        let (a, b) = (a.borrow(), b.borrow());
        kind_rank(a)
            .cmp(&kind_rank(b))
            .then_with(|| a.group().cmp(b.group()))
            .then_with(|| a.kind().cmp(b.kind()))
            .then_with(|| a.name().cmp(b.name()))
    });
}

/// `manifest generate`'s stdout: every object's YAML followed by `\n---\n`.
pub fn print_objects<T: Borrow<Object>>(objects: &[T]) -> String {
    let mut out = Vec::new();
    write_objects(objects, &mut out).expect("writing to memory does not fail");
    String::from_utf8(out).expect("objects' YAML is text")
}

/// [`print_objects`] written to `w` as it goes (the output of a full install is over 1 MB;
/// most objects' YAML is kept already and is written without a copy).
pub fn write_objects<T: Borrow<Object>>(
    objects: &[T],
    w: &mut impl std::io::Write,
) -> std::io::Result<()> {
    let mut made = String::new();
    for obj in objects {
        let obj = obj.borrow();
        let yaml = match obj.kept_yaml() {
            Some(yaml) => yaml,
            None => {
                made.clear();
                obj.write_yaml(&mut made);
                &made
            }
        };
        w.write_all(yaml.as_bytes())?;
        w.write_all(b"\n---\n")?;
    }
    Ok(())
}
