//! Hostile charts and input files (issue 34), against real helm v4 on the same input: chart
//! folders with symbolic links to `/dev/zero`, to a file beyond Helm's 5 MiB, back to the
//! chart, or holding a FIFO; gzip bombs (small archives that unpack beyond Helm's 100 MiB, one
//! header that claims a gibibyte, a PAX header that never ends); GNU sparse files in PAX
//! archives (rendered as helm renders them); alias bombs; FIFOs and devices given as
//! `-f`, `--set-file` or the chart; templates that ask a function for a string or list of
//! 10^11 or 10^15 items (`repeat`, `indent`, `until`, `untilStep`, `seq`, `randAlphaNum`).
//! Every input is made here, in a temporary folder (no bomb is
//! committed). Each case says what bosun must print and, where helm finishes at all, what helm
//! prints; bosun's peak memory (the child's `ru_maxrss`) must stay under a bound and at most
//! helm's. A case that hung would be killed after 60 s and fail.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What a child run did: its exit status, stderr and peak memory.
struct Run {
    code: i32,
    stderr: String,
    max_rss_kib: i64,
}

/// Runs `command` to its end and reads its peak memory from `wait4`; kills it after 60 s.
fn run(mut command: Command, dir: &Path, name: &str) -> Run {
    let err_path = dir.join(format!("{name}.stderr"));
    let err = std::fs::File::create(&err_path).unwrap();
    let child = command
        .stdout(Stdio::null())
        .stderr(err)
        .spawn()
        .expect("spawning");
    let pid = child.id() as libc::pid_t;
    let (done, waited) = std::sync::mpsc::channel::<()>();
    let killer = std::thread::spawn(move || {
        if waited
            .recv_timeout(std::time::Duration::from_secs(60))
            .is_err()
        {
            // SAFETY: signals the child this test started, which has not been reaped yet.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    });
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid out-parameter; `pid` is our unreaped child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let _ = done.send(());
    killer.join().unwrap();
    assert_eq!(reaped, pid, "wait4");
    std::mem::forget(child);
    let killed = libc::WIFSIGNALED(status) && libc::WTERMSIG(status) == libc::SIGKILL;
    assert!(!killed, "{name}: still running after 60 s (it hung)");
    Run {
        code: if libc::WIFEXITED(status) {
            libc::WEXITSTATUS(status)
        } else {
            -1
        },
        stderr: std::fs::read_to_string(&err_path).unwrap(),
        max_rss_kib: usage.ru_maxrss,
    }
}

/// A chart folder `name` with a Chart.yaml and one template.
fn chart(dir: &Path, name: &str) -> PathBuf {
    let root = dir.join(name);
    std::fs::create_dir_all(root.join("templates")).unwrap();
    std::fs::write(
        root.join("Chart.yaml"),
        "apiVersion: v2\nname: c\nversion: 1.0.0\n",
    )
    .unwrap();
    std::fs::write(
        root.join("templates/cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
    )
    .unwrap();
    root
}

/// A chart folder `name` whose one template prints `expr` (a template action).
fn template_chart(dir: &Path, name: &str, expr: &str) -> Vec<String> {
    let root = chart(dir, name);
    std::fs::write(root.join("templates/cm.yaml"), format!("out: {expr}\n")).unwrap();
    s(&["template", "r", &path(&root)])
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a NUL-terminated path of ours.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
}

/// Raw deflate of `data`, ending on a byte boundary with a sync flush and referring to nothing
/// before it: such pieces concatenate into one deflate stream, so a chunk of zeros compressed
/// once can be repeated to make a bomb without compressing its whole size.
fn deflate_piece(data: &[u8]) -> Vec<u8> {
    let mut c = flate2::Compress::new(flate2::Compression::fast(), false);
    let mut out = Vec::with_capacity(data.len() / 64 + 4096);
    loop {
        if out.capacity() - out.len() < 4096 {
            out.reserve(1 << 16);
        }
        let consumed = c.total_in() as usize;
        c.compress_vec(&data[consumed..], &mut out, flate2::FlushCompress::Sync)
            .unwrap();
        if c.total_in() as usize == data.len() && out.capacity() - out.len() >= 4096 {
            return out;
        }
    }
}

/// A ustar header block for `name` of `size` bytes and tar type `kind`.
fn tar_header(name: &str, size: u64, kind: tar::EntryType) -> Vec<u8> {
    let mut h = tar::Header::new_ustar();
    h.set_path(name).unwrap();
    h.set_size(size);
    h.set_mode(0o644);
    h.set_entry_type(kind);
    h.set_cksum();
    h.as_bytes().to_vec()
}

/// A gzipped tar made of pieces: each (bytes, times) is deflated once and repeated. The gzip
/// trailer is left off: the loaders must stop long before it.
fn bomb(pieces: &[(Vec<u8>, usize)]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    for (bytes, times) in pieces {
        let piece = deflate_piece(bytes);
        for _ in 0..*times {
            out.extend_from_slice(&piece);
        }
    }
    out
}

fn chart_yaml_entry() -> Vec<u8> {
    let text = b"apiVersion: v2\nname: c\nversion: 1.0.0\n";
    let mut out = tar_header("c/Chart.yaml", text.len() as u64, tar::EntryType::Regular);
    out.extend_from_slice(text);
    out.resize(1024, 0);
    out
}

/// One hostile input: what to make, the command's arguments after the program, and what
/// bosun (and helm, when it finishes at all) must say.
struct Case {
    name: &'static str,
    /// Makes the input in the folder; returns the arguments (`helm template …` for both, or
    /// bosun's own command when `helm` is `None`).
    make: fn(&Path) -> Vec<String>,
    bosun: &'static [&'static str],
    /// Helm's words, or `None` where helm hangs or fills memory (it is not run then).
    helm: Option<&'static str>,
    /// The most bosun may use, in MiB.
    max_mib: i64,
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|a| a.to_string()).collect()
}

fn path(p: &Path) -> String {
    p.display().to_string()
}

const CASES: &[Case] = &[
    Case {
        name: "folder-symlink-to-dev-zero",
        make: |dir| {
            let c = chart(dir, "zero");
            std::os::unix::fs::symlink("/dev/zero", c.join("templates/z.yaml")).unwrap();
            s(&["template", "r", &path(&c)])
        },
        bosun: &[
            "cannot load irregular file",
            "templates/z.yaml as it has file mode type bits set (a symbolic link to /dev/zero)",
        ],
        helm: Some("cannot load irregular file"),
        max_mib: 40,
    },
    Case {
        name: "folder-symlink-to-a-6-MiB-file",
        make: |dir| {
            let c = chart(dir, "big");
            let big = dir.join("big-file");
            std::fs::File::create(&big)
                .unwrap()
                .set_len(6 << 20)
                .unwrap();
            std::os::unix::fs::symlink(&big, c.join("templates/big.yaml")).unwrap();
            s(&["template", "r", &path(&c)])
        },
        bosun: &[
            "chart file \"templates/big.yaml\" is larger than the maximum file size 5242880 (a symbolic link to ",
        ],
        helm: Some("is larger than the maximum file size 5242880"),
        max_mib: 40,
    },
    Case {
        name: "folder-holding-a-fifo",
        make: |dir| {
            let c = chart(dir, "fifo");
            mkfifo(&c.join("templates/f.yaml"));
            s(&["template", "r", &path(&c)])
        },
        bosun: &[
            "cannot load irregular file",
            "templates/f.yaml as it has file mode type bits set",
        ],
        helm: Some("cannot load irregular file"),
        max_mib: 40,
    },
    Case {
        name: "folder-symlink-loop",
        make: |dir| {
            let c = chart(dir, "loop");
            std::os::unix::fs::symlink("..", c.join("templates/up")).unwrap();
            s(&["template", "r", &path(&c)])
        },
        bosun: &[
            "templates/up is a symbolic link to",
            "a folder that holds it (a loop)",
        ],
        helm: Some("too many levels of symbolic links"),
        max_mib: 40,
    },
    Case {
        name: "archive-of-30-files-of-4-MiB-zeros",
        make: |dir| {
            let archive = dir.join("many.tgz");
            let mut pieces = vec![(chart_yaml_entry(), 1)];
            for i in 0..30 {
                let name = format!("c/templates/z{i:02}.yaml");
                pieces.push((tar_header(&name, 4 << 20, tar::EntryType::Regular), 1));
                pieces.push((vec![0; 1 << 20], 4));
            }
            std::fs::write(&archive, bomb(&pieces)).unwrap();
            s(&["template", "r", &path(&archive)])
        },
        bosun: &[
            "unable to load chart archive",
            "many.tgz: decompressed chart is larger than the maximum size 104857600",
        ],
        helm: Some("unable to load chart archive"),
        max_mib: 160,
    },
    Case {
        name: "archive-with-a-1-GiB-file-header",
        make: |dir| {
            let archive = dir.join("one.tgz");
            let header = tar_header("c/templates/z.yaml", 1 << 30, tar::EntryType::Regular);
            let pieces = vec![(chart_yaml_entry(), 1), (header, 1), (vec![0; 1 << 20], 64)];
            std::fs::write(&archive, bomb(&pieces)).unwrap();
            s(&["template", "r", &path(&archive)])
        },
        bosun: &["one.tgz: decompressed chart is larger than the maximum size 104857600"],
        helm: Some("unable to load chart archive"),
        max_mib: 40,
    },
    Case {
        name: "archive-with-a-6-MiB-file",
        make: |dir| {
            let archive = dir.join("six.tgz");
            let header = tar_header("c/templates/z.yaml", 6 << 20, tar::EntryType::Regular);
            let pieces = vec![(chart_yaml_entry(), 1), (header, 1), (vec![0; 1 << 20], 6)];
            std::fs::write(&archive, bomb(&pieces)).unwrap();
            s(&["template", "r", &path(&archive)])
        },
        bosun: &[
            "six.tgz: decompressed chart file \"c/templates/z.yaml\" is larger than the maximum file size 5242880",
        ],
        helm: Some("unable to load chart archive"),
        max_mib: 40,
    },
    Case {
        name: "archive-with-a-1-GiB-pax-header",
        make: |dir| {
            let archive = dir.join("pax.tgz");
            let header = tar_header("c/PaxHeader", 1 << 30, tar::EntryType::XHeader);
            let pieces = vec![(header, 1), (vec![0; 1 << 20], 64)];
            std::fs::write(&archive, bomb(&pieces)).unwrap();
            s(&["template", "r", &path(&archive)])
        },
        bosun: &["pax.tgz: a tar entry that is no file holds more than 1048576 bytes"],
        helm: Some("unable to load chart archive"),
        max_mib: 40,
    },
    Case {
        name: "chart-argument-is-a-fifo",
        make: |dir| {
            let fifo = dir.join("chart.tgz");
            mkfifo(&fifo);
            s(&["template", "r", &path(&fifo)])
        },
        bosun: &[
            "cannot load irregular file",
            "chart.tgz as it has file mode type bits set",
        ],
        helm: None,
        max_mib: 40,
    },
    Case {
        name: "values-file-is-a-fifo-without-writer",
        make: |dir| {
            let c = chart(dir, "ok-f");
            let fifo = dir.join("values.yaml");
            mkfifo(&fifo);
            s(&["template", "r", &path(&c), "-f", &path(&fifo)])
        },
        bosun: &["values.yaml: it is a named pipe that no program is writing to"],
        helm: None,
        max_mib: 40,
    },
    Case {
        name: "set-file-of-dev-zero",
        make: |dir| {
            let c = chart(dir, "ok-set-file");
            s(&["template", "r", &path(&c), "--set-file", "a=/dev/zero"])
        },
        bosun: &["open /dev/zero: it is a character device, not a regular file"],
        helm: None,
        max_mib: 40,
    },
    Case {
        name: "manifest-generate-f-fifo-without-writer",
        make: |dir| {
            let fifo = dir.join("iop.yaml");
            mkfifo(&fifo);
            s(&["manifest", "generate", "-f", &path(&fifo)])
        },
        bosun: &["iop.yaml: it is a named pipe that no program is writing to"],
        helm: None,
        max_mib: 40,
    },
    Case {
        name: "values-file-alias-bomb",
        make: |dir| {
            let c = chart(dir, "ok-alias");
            let bomb = dir.join("bomb.yaml");
            std::fs::write(&bomb, alias_bomb()).unwrap();
            s(&["template", "r", &path(&c), "-f", &path(&bomb)])
        },
        bosun: &["document contains excessive aliasing"],
        helm: Some("document contains excessive aliasing"),
        max_mib: 40,
    },
    Case {
        name: "manifest-generate-f-alias-bomb",
        make: |dir| {
            let bomb = dir.join("iop-bomb.yaml");
            let text = format!(
                "apiVersion: install.istio.io/v1alpha1\nkind: IstioOperator\nspec:\n  values:\n{}",
                alias_bomb()
                    .lines()
                    .map(|l| format!("    {l}\n"))
                    .collect::<String>()
            );
            std::fs::write(&bomb, text).unwrap();
            s(&["manifest", "generate", "-f", &path(&bomb)])
        },
        bosun: &["excessive aliasing", "iop-bomb.yaml"],
        helm: None,
        max_mib: 60,
    },
    Case {
        name: "template-repeat-1e15",
        make: |dir| {
            template_chart(
                dir,
                "template-repeat-1e15",
                "{{ repeat 1000000000000000 \"x\" | len }}",
            )
        },
        bosun: &["error calling repeat: runtime error: makeslice: len out of range"],
        helm: Some("error calling repeat: runtime error: makeslice: len out of range"),
        max_mib: 40,
    },
    Case {
        name: "template-repeat-1e11",
        make: |dir| {
            template_chart(
                dir,
                "template-repeat-1e11",
                "{{ repeat 100000000000 \"x\" | len }}",
            )
        },
        bosun: &[
            "error calling repeat: the result would be 100000000000 bytes long, more than bosun's limit of 1073741824 bytes",
        ],
        helm: None,
        max_mib: 40,
    },
    Case {
        name: "template-indent-1e11",
        make: |dir| {
            template_chart(
                dir,
                "template-indent-1e11",
                "{{ indent 100000000000 \"x\" | len }}",
            )
        },
        bosun: &["error calling indent: the result would be 100000000000 bytes long"],
        helm: None,
        max_mib: 40,
    },
    Case {
        name: "template-randAlphaNum-1e11",
        make: |dir| {
            template_chart(
                dir,
                "template-randAlphaNum-1e11",
                "{{ randAlphaNum 100000000000 | len }}",
            )
        },
        bosun: &["error calling randAlphaNum: the result would be 100000000000 bytes long"],
        helm: None,
        max_mib: 40,
    },
    Case {
        name: "template-until-1e11",
        make: |dir| template_chart(dir, "template-until-1e11", "{{ until 100000000000 | len }}"),
        bosun: &[
            "error calling until: the result would be a list of 100000000000 numbers, more than bosun's limit of 33554432 items",
        ],
        helm: None,
        max_mib: 40,
    },
    Case {
        name: "template-untilStep-1e11",
        make: |dir| {
            template_chart(
                dir,
                "template-untilStep-1e11",
                "{{ untilStep 0 100000000000 1 | len }}",
            )
        },
        bosun: &["error calling untilStep: the result would be a list of 100000000000 numbers"],
        helm: None,
        max_mib: 40,
    },
    Case {
        name: "template-seq-1e11",
        make: |dir| template_chart(dir, "template-seq-1e11", "{{ seq 1 100000000000 | len }}"),
        bosun: &["error calling seq: the result would be a list of 100000000000 numbers"],
        helm: None,
        max_mib: 40,
    },
    Case {
        name: "template-untilStep-that-wraps-forever",
        make: |dir| {
            template_chart(
                dir,
                "template-untilStep-that-wraps-forever",
                "{{ untilStep 9223372036854775806 9223372036854775807 2 | len }}",
            )
        },
        bosun: &[
            "error calling untilStep: the result would be a list of more than 33554432 numbers",
        ],
        helm: None,
        max_mib: 40,
    },
];

/// "Billion laughs": nine levels of ten aliases, 10^9 strings if it were expanded.
fn alias_bomb() -> String {
    let mut text =
        String::from("a: &a [\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\"]\n");
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    for pair in names.windows(2) {
        let (prev, name) = (pair[0], pair[1]);
        let refs = vec![format!("*{prev}"); 10].join(",");
        text.push_str(&format!("{name}: &{name} [{refs}]\n"));
    }
    text
}

#[test]
fn hostile_charts_and_inputs_are_refused_at_once_in_bounded_memory() {
    let dir = std::env::temp_dir().join(format!("bosun-hostile-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let helm = common::fetched("BOSUN_HELM", "fetch-helm");
    let mut failures = Vec::new();
    for case in CASES {
        let args = (case.make)(&dir);
        let mut bosun = Command::new(env!("CARGO_BIN_EXE_bosun"));
        if args[0] == "template" {
            bosun.arg("helm");
        }
        bosun.args(&args).stdin(Stdio::null()).current_dir(&dir);
        let got = run(bosun, &dir, case.name);
        let missing: Vec<_> = case
            .bosun
            .iter()
            .filter(|want| !got.stderr.contains(**want))
            .collect();
        if got.code == 0 || !missing.is_empty() || got.stderr.contains("panicked") {
            failures.push(format!(
                "{}: bosun exited {} without {missing:?}:\n{}",
                case.name, got.code, got.stderr
            ));
        }
        if got.max_rss_kib > case.max_mib * 1024 {
            failures.push(format!(
                "{}: bosun's peak memory {} KiB is over {} MiB",
                case.name, got.max_rss_kib, case.max_mib
            ));
        }
        if let Some(words) = case.helm {
            let mut h = Command::new(&helm);
            h.args(&args).stdin(Stdio::null()).current_dir(&dir);
            let helm_run = run(h, &dir, &format!("{}-helm", case.name));
            if helm_run.code == 0 || !helm_run.stderr.contains(words) {
                failures.push(format!(
                    "{}: helm exited {} without {words:?} (the case no longer shows helm's behaviour):\n{}",
                    case.name, helm_run.code, helm_run.stderr
                ));
            }
            if got.max_rss_kib > helm_run.max_rss_kib {
                failures.push(format!(
                    "{}: bosun's peak memory {} KiB is over helm's {} KiB",
                    case.name, got.max_rss_kib, helm_run.max_rss_kib
                ));
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What must keep working: stdin as `-` and as `/dev/stdin`, and a pipe with a writer
/// (`<(command)`, bash's process substitution).
#[test]
fn stdin_and_pipes_with_a_writer_are_still_read() {
    let dir = std::env::temp_dir().join(format!("bosun-pipes-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let c = chart(&dir, "echo");
    std::fs::write(
        c.join("templates/cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.name }}\n",
    )
    .unwrap();
    let bosun = env!("CARGO_BIN_EXE_bosun");
    for values in ["-", "/dev/stdin"] {
        let mut child = Command::new(bosun)
            .args(["helm", "template", "r", &path(&c), "-f", values])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(b"name: from-stdin\n")
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("name: from-stdin"),
            "-f {values}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = Command::new("bash")
        .arg("-c")
        .arg(r#"exec "$0" helm template r "$1" -f <(printf 'name: from-a-pipe\n')"#)
        .arg(bosun)
        .arg(&c)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("name: from-a-pipe"),
        "-f <(…): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Helm's bounds, named once in each crate that applies them, are the same numbers.
#[test]
fn the_chart_and_package_bounds_are_helms() {
    let package = release::archive::Limits::default();
    assert_eq!(package.max_file, helm::chart::MAX_FILE_SIZE);
    assert_eq!(package.max_kept, helm::chart::MAX_CHART_SIZE);
    assert_eq!(helm::chart::MAX_FILE_SIZE, 5 * 1024 * 1024);
    assert_eq!(helm::chart::MAX_CHART_SIZE, 100 * 1024 * 1024);
}

/// One PAX record, `LEN key=value\n`, its length counting its own digits.
fn pax_record(key: &str, value: &str) -> String {
    let body = format!(" {key}={value}\n");
    let mut len = body.len() + 1;
    while format!("{len}{body}").len() != len {
        len += 1;
    }
    format!("{len}{body}")
}

/// A tar entry: its header, then `data` padded to whole blocks.
fn tar_entry(name: &str, kind: tar::EntryType, data: &[u8]) -> Vec<u8> {
    let mut out = tar_header(name, data.len() as u64, kind);
    out.extend_from_slice(data);
    out.resize(out.len().div_ceil(512) * 512, 0);
    out
}

/// A chart archive whose `big.txt` is a GNU sparse file in PAX format `version` (as `tar
/// --sparse --format=posix --sparse-version=V` writes it): "start", 299,995 zero bytes, "end",
/// or, for `real_size` beyond that, more zeros.
fn sparse_chart(version: &str, real_size: u64) -> Vec<u8> {
    let template = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  \
        files: \"{{ range $p, $_ := .Files }}{{ $p }} {{ end }}\"\n  \
        length: \"{{ .Files.Get \"big.txt\" | len }}\"\n  \
        sha256: \"{{ .Files.Get \"big.txt\" | sha256sum }}\"\n";
    let size = real_size.to_string();
    let (records, name, data): (Vec<(&str, &str)>, &str, Vec<u8>) = match version {
        "0.0" => (
            vec![
                ("GNU.sparse.size", &size),
                ("GNU.sparse.numblocks", "2"),
                ("GNU.sparse.offset", "0"),
                ("GNU.sparse.numbytes", "5"),
                ("GNU.sparse.offset", "300000"),
                ("GNU.sparse.numbytes", "3"),
            ],
            "c/big.txt",
            b"startend".to_vec(),
        ),
        "0.1" => (
            vec![
                ("GNU.sparse.major", "0"),
                ("GNU.sparse.minor", "1"),
                ("GNU.sparse.name", "c/big.txt"),
                ("GNU.sparse.size", &size),
                ("GNU.sparse.numblocks", "2"),
                ("GNU.sparse.map", "0,5,300000,3"),
            ],
            "c/GNUSparseFile.1/big.txt",
            b"startend".to_vec(),
        ),
        _ => {
            let mut data = b"2\n0\n5\n300000\n3\n".to_vec();
            data.resize(512, 0);
            data.extend_from_slice(b"startend");
            (
                vec![
                    ("GNU.sparse.major", "1"),
                    ("GNU.sparse.minor", "0"),
                    ("GNU.sparse.name", "c/big.txt"),
                    ("GNU.sparse.realsize", &size),
                ],
                "c/GNUSparseFile.0/big.txt",
                data,
            )
        }
    };
    let pax: String = records.iter().map(|(k, v)| pax_record(k, v)).collect();
    let mut tar = chart_yaml_entry();
    tar.extend(tar_entry(
        "c/templates/cm.yaml",
        tar::EntryType::Regular,
        template.as_bytes(),
    ));
    tar.extend(tar_entry(
        "c/PaxHeaders/big.txt",
        tar::EntryType::XHeader,
        pax.as_bytes(),
    ));
    tar.extend(tar_entry(name, tar::EntryType::Regular, &data));
    tar.resize(tar.len() + 1024, 0);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&tar).unwrap();
    gz.finish().unwrap()
}

/// GNU sparse files in PAX archives load as Go's reader, and so helm, loads them: under their
/// real name, holes filled (before: the entry's made-up name and only its chunks, silently);
/// one whose real size is beyond Helm's 5 MiB is refused by both.
#[test]
fn sparse_files_in_archives_load_as_helm_loads_them() {
    let helm = common::fetched("BOSUN_HELM", "fetch-helm");
    let dir = std::env::temp_dir().join(format!("bosun-sparse-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let render = |program: &Path, prefix: &[&str], archive: &Path| {
        let out = Command::new(program)
            .args(prefix)
            .args(["template", "r"])
            .arg(archive)
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let bosun = PathBuf::from(env!("CARGO_BIN_EXE_bosun"));
    for version in ["0.0", "0.1", "1.0"] {
        let archive = dir.join(format!("sparse-{version}.tgz"));
        std::fs::write(&archive, sparse_chart(version, 300_003)).unwrap();
        let (helm_ok, helm_out, helm_err) = render(&helm, &[], &archive);
        assert!(helm_ok, "helm, sparse {version}: {helm_err}");
        assert!(helm_out.contains("length: \"300003\""), "{helm_out}");
        let (ok, out, err) = render(&bosun, &["helm"], &archive);
        assert!(ok, "bosun, sparse {version}: {err}");
        assert_eq!(
            out, helm_out,
            "sparse {version}: bosun's render differs from helm's"
        );

        let archive = dir.join(format!("sparse-{version}-6-MiB.tgz"));
        std::fs::write(&archive, sparse_chart(version, 6 << 20)).unwrap();
        let (helm_ok, _, helm_err) = render(&helm, &[], &archive);
        assert!(
            !helm_ok && helm_err.contains("unable to load chart archive"),
            "{helm_err}"
        );
        let (ok, _, err) = render(&bosun, &["helm"], &archive);
        assert!(!ok, "bosun loaded a 6 MiB sparse file");
        assert!(
            err.contains(
                "decompressed chart file \"c/big.txt\" is larger than the maximum file size 5242880"
            ),
            "sparse {version}, 6 MiB: {err}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
