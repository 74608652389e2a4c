//! Parity with real helm on a corpus of public charts (`tests/charts-corpus/`, see its README):
//! every chart × variant is rendered by `helm template` and by `bosun helm template`, and the
//! two must print the same bytes on stdout, or both fail at the same template locations.
//!
//! Data-driven: each `tests/charts-corpus/NAME/` holds `chart/` (the chart, dependencies
//! vendored), `variants/*.yaml` (values files; the variant `default` uses none) and an optional
//! `case.yaml`:
//!
//! ```yaml
//! args: [--kube-version, "1.30.0"]      # flags both tools get, for every variant
//! variants:                             # flags for one variant only
//!   metrics: [--api-versions, monitoring.coreos.com/v1]
//! mask:                                 # random output: capture group 1 of each match (the
//!   - regex: 'password: "([^"]*)"'      #  whole match without a group) becomes <masked> in
//!     why: randAlphaNum when unset      #  both outputs before they are compared; `variants`
//!     variants: [default]               #  limits a mask to some variants
//! waiting:                              # a known engine divergence another change fixes:
//!   - variant: default                  #  reported, not failed, while bosun's stderr or the
//!     class: 1                          #  diff still contains `sign`; a case that now
//!     sign: "error calling tpl"         #  matches fails until its entry is removed
//! ```
//!
//! `CORPUS_FILTER=s` keeps the cases whose `NAME/VARIANT` contains `s`; `CORPUS_JOBS=n` sets
//! the workers (default 3); `CORPUS_EXTRA_ARGS="--include-crds -n x"` adds flags to every case
//! (for probing); `BOSUN_HELM` names the helm binary (else `scripts/fetch-helm`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

mod common;
use common::{fetched, repo_root};

const RELEASE: &str = "corpus";
const TIMEOUT: Duration = Duration::from_secs(300);

struct Mask {
    regex: regex::Regex,
    /// The variants it applies to (all when empty).
    variants: Vec<String>,
}

struct Waiting {
    variant: String,
    class: u64,
    sign: String,
}

#[derive(Default)]
struct CaseFile {
    args: Vec<String>,
    variant_args: BTreeMap<String, Vec<String>>,
    masks: Vec<Mask>,
    waiting: Vec<Waiting>,
}

fn strings(v: &serde_json::Value, what: &str) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("{what}: a list of strings"))
        .iter()
        .map(|a| match a {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect()
}

fn read_case_file(dir: &Path) -> CaseFile {
    let path = dir.join("case.yaml");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return CaseFile::default();
    };
    let v = goyaml::from_yaml_json(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut case = CaseFile::default();
    let Some(obj) = v.as_object() else {
        return case;
    };
    for key in obj.keys() {
        assert!(
            ["args", "variants", "mask", "waiting", "notes"].contains(&key.as_str()),
            "{}: unknown key {key}",
            path.display()
        );
    }
    if let Some(args) = obj.get("args") {
        case.args = strings(args, "args");
    }
    if let Some(vars) = obj.get("variants").and_then(|v| v.as_object()) {
        for (name, args) in vars {
            case.variant_args
                .insert(name.clone(), strings(args, "variants.NAME"));
        }
    }
    for m in obj
        .get("mask")
        .and_then(|v| v.as_array())
        .into_iter()
        .flatten()
    {
        let re = m["regex"].as_str().expect("mask: regex");
        assert!(
            m["why"].as_str().is_some_and(|w| !w.is_empty()),
            "{}: every mask says why",
            path.display()
        );
        case.masks.push(Mask {
            regex: regex::Regex::new(&format!("(?m){re}"))
                .unwrap_or_else(|e| panic!("{}: {re}: {e}", path.display())),
            variants: m
                .get("variants")
                .map(|v| strings(v, "mask.variants"))
                .unwrap_or_default(),
        });
    }
    for w in obj
        .get("waiting")
        .and_then(|v| v.as_array())
        .into_iter()
        .flatten()
    {
        case.waiting.push(Waiting {
            variant: w["variant"].as_str().expect("waiting: variant").to_string(),
            class: w["class"]
                .as_u64()
                .or_else(|| w["class"].as_f64().map(|f| f as u64))
                .expect("waiting: class"),
            sign: w["sign"].as_str().expect("waiting: sign").to_string(),
        });
    }
    case
}

/// A case's id, what differs (if anything), and the class of the waiting mark it matched.
type Outcome = (String, Option<String>, Option<u64>);

struct Job {
    name: String,
    variant: String,
    chart: PathBuf,
    args: Vec<String>,
}

fn jobs(root: &Path, cases: &BTreeMap<String, CaseFile>) -> Vec<Job> {
    let mut out = Vec::new();
    for (name, case) in cases {
        let dir = root.join(name);
        let mut variants = vec![("default".to_string(), None)];
        if let Ok(entries) = std::fs::read_dir(dir.join("variants")) {
            let mut files: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
            files.sort();
            for f in files {
                if f.extension().is_some_and(|e| e == "yaml") {
                    let v = f.file_stem().unwrap().to_string_lossy().into_owned();
                    variants.push((v, Some(f)));
                }
            }
        }
        for v in case.variant_args.keys() {
            assert!(
                variants.iter().any(|(n, _)| n == v),
                "{name}/case.yaml: flags for unknown variant {v}"
            );
        }
        for (variant, file) in variants {
            let mut args: Vec<String> = case.args.clone();
            if let Some(f) = file {
                args.push("-f".into());
                args.push(f.display().to_string());
            }
            args.extend(case.variant_args.get(&variant).cloned().unwrap_or_default());
            out.push(Job {
                name: name.clone(),
                variant,
                chart: dir.join("chart"),
                args,
            });
        }
    }
    out
}

/// Runs a command with stdin closed, killed after `TIMEOUT`.
fn run(mut cmd: Command) -> Output {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn renderer");
    let (mut so, mut se) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let out_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut so, &mut b).ok();
        b
    });
    let err_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut se, &mut b).ok();
        b
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > TIMEOUT {
            child.kill().ok();
            break child.wait().expect("wait");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Output {
        status,
        stdout: out_t.join().unwrap(),
        stderr: err_t.join().unwrap(),
    }
}

fn mask(text: &str, masks: &[&Mask]) -> String {
    let mut text = text.to_string();
    for m in masks {
        text = m
            .regex
            .replace_all(&text, |c: &regex::Captures| {
                let whole = c.get(0).unwrap();
                match c.get(1) {
                    Some(g) => format!(
                        "{}<masked>{}",
                        &whole.as_str()[..g.start() - whole.start()],
                        &whole.as_str()[g.end() - whole.start()..]
                    ),
                    None => "<masked>".to_string(),
                }
            })
            .into_owned();
    }
    text
}

/// The error as helm reports it: stderr from the line starting `Error:` on.
fn error_text(stderr: &[u8]) -> String {
    let s = String::from_utf8_lossy(stderr);
    match s.find("Error:") {
        Some(i) => s[i..].to_string(),
        None => s.into_owned(),
    }
}

/// Every `FILE:LINE[:COL]` template location of an error, in order (Helm 4 prints chains on
/// several lines, older formats on one: the locations are what must agree).
fn locations(err: &str) -> Vec<String> {
    let re = regex::Regex::new(r"[\w.\-/]+\.(?:yaml|yml|tpl|txt|json|toml|conf|tmpl):\d+(?::\d+)?")
        .unwrap();
    re.find_iter(err).map(|m| m.as_str().to_string()).collect()
}

/// A few lines around the first difference (with the common tail cut): a short diff.
fn short_diff(a: &str, b: &str) -> String {
    let al: Vec<&str> = a.lines().collect();
    let bl: Vec<&str> = b.lines().collect();
    let pre = al.iter().zip(&bl).take_while(|(x, y)| x == y).count();
    let suf = al[pre..]
        .iter()
        .rev()
        .zip(bl[pre..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (am, bm) = (&al[pre..al.len() - suf], &bl[pre..bl.len() - suf]);
    let clip = |s: &str| {
        if s.len() > 160 {
            let mut end = 160;
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            format!("{}…", &s[..end])
        } else {
            s.to_string()
        }
    };
    let mut out = format!(
        "    @@ line {} (helm {} lines differ, bosun {}) @@\n",
        pre + 1,
        am.len(),
        bm.len()
    );
    if pre > 0 {
        out += &format!("      {}\n", clip(al[pre - 1]));
    }
    for l in am.iter().take(6) {
        out += &format!("    - {}\n", clip(l));
    }
    if am.len() > 6 {
        out += "    - …\n";
    }
    for l in bm.iter().take(6) {
        out += &format!("    + {}\n", clip(l));
    }
    if bm.len() > 6 {
        out += "    + …\n";
    }
    out
}

fn first_line(s: &str) -> String {
    let l = s.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if l.len() > 300 {
        let mut end = 300;
        while !l.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &l[..end])
    } else {
        l.to_string()
    }
}

/// `None` when the two runs agree, else what differs.
fn compare(h: &Output, b: &Output, masks: &[&Mask]) -> Option<String> {
    match (h.status.success(), b.status.success()) {
        (true, true) => {
            let hs = mask(&String::from_utf8_lossy(&h.stdout), masks);
            let bs = mask(&String::from_utf8_lossy(&b.stdout), masks);
            (hs != bs).then(|| format!("  stdout differs\n{}", short_diff(&hs, &bs)))
        }
        (false, false) => {
            let (he, be) = (error_text(&h.stderr), error_text(&b.stderr));
            let (hl, bl) = (locations(&he), locations(&be));
            let same = if hl.is_empty() {
                he.lines().next() == be.lines().next()
            } else {
                hl == bl
            };
            (!same).then(|| {
                format!(
                    "  both fail, differently\n    helm:  {}\n    bosun: {}\n    helm at {hl:?}\n    bosun at {:?}",
                    first_line(&he),
                    first_line(&be),
                    bl.iter().take(12).collect::<Vec<_>>()
                )
            })
        }
        (hok, _) => Some(format!(
            "  helm {}, bosun {}\n    helm:  {}\n    bosun: {}",
            if hok { "succeeds" } else { "fails" },
            if hok { "fails" } else { "succeeds" },
            first_line(&error_text(&h.stderr)),
            first_line(&error_text(&b.stderr)),
        )),
    }
}

#[test]
fn public_charts_render_like_helm() {
    let helm = fetched("BOSUN_HELM", "fetch-helm");
    let bosun = PathBuf::from(env!("CARGO_BIN_EXE_bosun"));
    let root = repo_root().join("tests/charts-corpus");
    let filter = std::env::var("CORPUS_FILTER").unwrap_or_default();
    let workers: usize = std::env::var("CORPUS_JOBS")
        .ok()
        .and_then(|j| j.parse().ok())
        .unwrap_or(3);

    let mut cases = BTreeMap::new();
    let mut names: Vec<String> = std::fs::read_dir(&root)
        .expect("tests/charts-corpus")
        .map(|e| e.unwrap())
        .filter(|e| e.path().join("chart/Chart.yaml").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in names {
        let case = read_case_file(&root.join(&name));
        cases.insert(name, case);
    }
    assert!(
        cases.len() >= 25,
        "expected the corpus under {}",
        root.display()
    );
    let mut all = jobs(&root, &cases);
    let extra: Vec<String> = std::env::var("CORPUS_EXTRA_ARGS")
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_string)
        .collect();
    for job in &mut all {
        job.args.extend(extra.iter().cloned());
    }
    all.retain(|j| format!("{}/{}", j.name, j.variant).contains(&filter));
    let total = all.len();
    assert!(total > 0, "no case matches CORPUS_FILTER={filter}");

    let queue = Mutex::new(all);
    let results: Mutex<Vec<Outcome>> = Mutex::new(Vec::new());
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let Some(job) = queue.lock().unwrap().pop() else {
                        break;
                    };
                    let case = &cases[&job.name];
                    let command = |program: &Path, prefix: &[&str]| {
                        let mut c = Command::new(program);
                        c.args(prefix)
                            .arg("template")
                            .arg(RELEASE)
                            .arg(&job.chart)
                            .args(&job.args);
                        c
                    };
                    let h = run(command(&helm, &[]));
                    let b = run(command(&bosun, &["helm"]));
                    let id = format!("{}/{}", job.name, job.variant);
                    let masks: Vec<&Mask> = case
                        .masks
                        .iter()
                        .filter(|m| m.variants.is_empty() || m.variants.contains(&job.variant))
                        .collect();
                    let differs = compare(&h, &b, &masks);
                    let waiting = case
                        .waiting
                        .iter()
                        .find(|w| w.variant == job.variant || w.variant == "*");
                    let matched = match (&differs, waiting) {
                        (Some(d), Some(w))
                            if d.contains(&w.sign)
                                || String::from_utf8_lossy(&b.stderr).contains(&w.sign) =>
                        {
                            Some(w.class)
                        }
                        _ => None,
                    };
                    let differs = match (differs, waiting) {
                        (None, Some(w)) => Some(format!(
                            "  identical now, but case.yaml still marks it waiting for class {}: remove the mark",
                            w.class
                        )),
                        (d, _) => d,
                    };
                    results.lock().unwrap().push((id, differs, matched));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by(|a, b| a.0.cmp(&b.0));
    let identical = results.iter().filter(|r| r.1.is_none()).count();
    let mut failed = 0;
    for (id, differs, waiting) in &results {
        let Some(d) = differs else { continue };
        match waiting {
            Some(class) => println!("WAITING for class {class}: {id}\n{d}"),
            None => {
                failed += 1;
                println!("DIFF {id}\n{d}")
            }
        }
    }
    let waiting = results.iter().filter(|r| r.2.is_some()).count();
    println!(
        "{identical} of {total} identical ({} charts; {waiting} waiting for a known engine fix; {:.0} s with {workers} workers)",
        cases.len(),
        started.elapsed().as_secs_f64()
    );
    println!("{} passed, {failed} failed", total - failed);
    assert_eq!(
        failed, 0,
        "{failed} of {total} public chart renders differ from helm"
    );
}
