//! Comparing manifests object by object: what the parity suites and the `--version` tests
//! check (the same objects with the same content, whatever the order and formatting).

use std::collections::BTreeMap;

/// The objects of a manifest by identity (a multi-map: duplicates are kept in order).
pub fn objects(text: &str) -> Result<BTreeMap<String, Vec<serde_json::Value>>, String> {
    let docs = goyaml::documents(text).map_err(|e| e.message)?;
    let mut out: BTreeMap<String, Vec<serde_json::Value>> = BTreeMap::new();
    for doc in docs {
        let v = goyaml::json_value::to_json_value(&doc).map_err(|e| e.to_string())?;
        if v.is_null() {
            continue;
        }
        let s = |p: &str| {
            v.pointer(p)
                .and_then(|x| x.as_str())
                .unwrap_or("")
                .to_string()
        };
        let key = format!(
            "{} {} {}/{}",
            s("/apiVersion"),
            s("/kind"),
            s("/metadata/namespace"),
            s("/metadata/name")
        );
        out.entry(key).or_default().push(v);
    }
    Ok(out)
}

/// The first path where two JSON values differ.
pub fn first_difference(
    a: &serde_json::Value,
    b: &serde_json::Value,
    path: &str,
) -> Option<String> {
    use serde_json::Value::*;
    match (a, b) {
        (Object(x), Object(y)) => {
            let only_in_y = y.keys().filter(|k| !x.contains_key(*k));
            for k in x.keys().chain(only_in_y) {
                let p = format!("{path}.{k}");
                match (x.get(k), y.get(k)) {
                    (Some(va), Some(vb)) => {
                        if let Some(d) = first_difference(va, vb, &p) {
                            return Some(d);
                        }
                    }
                    (va, vb) => return Some(format!("{p}: istioctl {va:?}, bosun {vb:?}")),
                }
            }
            None
        }
        (Array(x), Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (va, vb))| first_difference(va, vb, &format!("{path}[{i}]"))),
        _ if a == b => None,
        _ => {
            let short = |v: &serde_json::Value| {
                let t = v.to_string();
                if t.len() > 200 {
                    format!("{}…", &t[..t.floor_char_boundary(200)])
                } else {
                    t
                }
            };
            Some(format!("{path}: istioctl {}, bosun {}", short(a), short(b)))
        }
    }
}

/// What one run of `manifest generate` (istioctl's or bosun's) gave.
pub struct Run {
    pub ok: bool,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn of(out: &std::process::Output) -> Run {
        Run {
            ok: out.status.success(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

/// Compares istioctl's run with bosun's: `Ok(byte_identical)` when both succeeded with the same
/// objects (the same identities, each the same content), or both failed (then whether their
/// words are the same); else what differs (the first eight differences).
pub fn compare(istioctl: &Run, bosun: &Run) -> Result<bool, String> {
    match (istioctl.ok, bosun.ok) {
        (false, false) => return Ok(istioctl.stderr.trim() == bosun.stderr.trim()),
        (true, false) => return Err(format!("bosun failed: {}", bosun.stderr.trim())),
        (false, true) => {
            return Err(format!(
                "istioctl failed but bosun succeeded: {}",
                istioctl.stderr.trim()
            ));
        }
        (true, true) => {}
    }
    if istioctl.stdout == bosun.stdout {
        return Ok(true);
    }
    let want = objects(&istioctl.stdout).map_err(|e| format!("istioctl output: {e}"))?;
    let got = objects(&bosun.stdout).map_err(|e| format!("bosun output: {e}"))?;
    let mut problems = Vec::new();
    for (key, objs) in &want {
        match got.get(key) {
            None => problems.push(format!("missing {key}")),
            Some(g) if g.len() != objs.len() => {
                problems.push(format!("{key}: {} objects, want {}", g.len(), objs.len()))
            }
            Some(g) => {
                for (a, b) in objs.iter().zip(g) {
                    if let Some(d) = first_difference(a, b, "") {
                        problems.push(format!("{key}: {d}"));
                    }
                }
            }
        }
    }
    for key in got.keys() {
        if !want.contains_key(key) {
            problems.push(format!("unexpected {key}"));
        }
    }
    if problems.is_empty() {
        Ok(istioctl.stdout == bosun.stdout)
    } else {
        problems.truncate(8);
        Err(problems.join("\n    "))
    }
}
