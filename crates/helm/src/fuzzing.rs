//! The chart loader's fuzz harness (issue 34), shared by `fuzz/fuzz_targets/chart_loader.rs`
//! (libFuzzer, nightly) and this crate's own bounded run on stable Rust
//! (`tests::seeds_and_mutations_load_without_panicking`). Built only for tests and with the
//! `fuzzing` feature: it writes the folders it loads, which nothing else in this crate does.
//!
//! [`load_input`] reads arbitrary bytes three ways, by the first byte:
//! - `0`: the rest is a `.tgz` archive, given to [`load_archive`];
//! - `1`: the rest is a tar, gzipped here (so mutations reach the tar reader, not only gzip's
//!   checksum), given to [`load_archive`] and, written to a file, to [`load_path`];
//! - `2`: the rest is a small tar-like layout written into a scratch folder and loaded with
//!   [`load_dir`]: records of a kind byte (file, folder, symbolic link, FIFO), a name
//!   (a length byte, then the bytes) and, for a file, a 2-byte little-endian length and the
//!   data (`0xffff`: a sparse file of 6 MiB, beyond Helm's per-file limit), for a link its
//!   target (a length byte, then the bytes). Names and link targets stay inside the scratch
//!   folder (`..` is clamped), except an absolute target, which becomes `/dev/zero`.

use std::io::Write;
use std::path::{Component, Path, PathBuf};

use crate::chart::{load_archive, load_dir, load_path};

/// The most records a layout makes (more bytes are ignored).
const MAX_RECORDS: usize = 64;

/// Loads `data` as described in the module doc, using `scratch` (emptied first) for the files
/// it makes. Whatever the bytes, it must return: every outcome of the loader is accepted.
pub fn load_input(data: &[u8], scratch: &Path) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let _ = std::fs::remove_dir_all(scratch);
    if std::fs::create_dir_all(scratch).is_err() {
        return;
    }
    match mode % 3 {
        0 => {
            let _ = load_archive(rest);
        }
        1 => {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            if gz.write_all(rest).is_err() {
                return;
            }
            let Ok(tgz) = gz.finish() else { return };
            let _ = load_archive(&tgz);
            let file = scratch.join("chart.tgz");
            if std::fs::write(&file, &tgz).is_ok() {
                let _ = load_path(&file);
            }
        }
        _ => {
            let root = scratch.join("c");
            if std::fs::create_dir_all(&root).is_ok() {
                write_layout(rest, &root);
                let _ = load_dir(&root);
            }
        }
    }
}

/// A relative path made of `bytes`, kept inside its root: `.`, empty and `..` components
/// beyond the root go (starting from `base`, the components already below the root).
fn clamp(base: &[String], bytes: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes).replace('\0', "_");
    let mut parts = base.to_vec();
    for c in Path::new(&text).components() {
        match c {
            Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
            Component::ParentDir => {
                parts.pop();
            }
            _ => {}
        }
    }
    parts
}

fn joined(root: &Path, parts: &[String]) -> PathBuf {
    parts.iter().fold(root.to_path_buf(), |p, c| p.join(c))
}

/// Writes the records of a layout under `root`; a record that cannot be made is skipped.
fn write_layout(mut data: &[u8], root: &Path) {
    let mut take = |n: usize| -> Option<&[u8]> {
        let n = n.min(data.len());
        let (head, tail) = data.split_at(n);
        data = tail;
        (n > 0).then_some(head)
    };
    for _ in 0..MAX_RECORDS {
        let Some(&[kind]) = take(1) else { return };
        let Some(&[name_len]) = take(1) else { return };
        let name = clamp(&[], take(usize::from(name_len % 64)).unwrap_or_default());
        if name.is_empty() {
            continue;
        }
        let path = joined(root, &name);
        if let Some(parent) = path.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        // A name made twice keeps what was made first: writing through a FIFO made there
        // would wait for a reader forever, and through a link would write where it leads.
        let taken = std::fs::symlink_metadata(&path).is_ok();
        match kind % 4 {
            0 => {
                let len = take(2).map_or(0, |b| {
                    u16::from_le_bytes([b[0], b.get(1).copied().unwrap_or(0)])
                });
                if taken {
                    take(usize::from(len));
                } else if len == u16::MAX {
                    if let Ok(f) = std::fs::File::create(&path) {
                        let _ = f.set_len(6 << 20);
                    }
                } else {
                    let body = take(usize::from(len)).unwrap_or_default();
                    let _ = std::fs::write(&path, body);
                }
            }
            1 => {
                let _ = std::fs::create_dir_all(&path);
            }
            2 => {
                let Some(&[target_len]) = take(1) else { return };
                let target = take(usize::from(target_len % 64)).unwrap_or_default();
                if taken {
                    continue;
                }
                let target = if target.first() == Some(&b'/') {
                    PathBuf::from("/dev/zero")
                } else {
                    joined(root, &clamp(&name[..name.len() - 1], target))
                };
                let _ = std::os::unix::fs::symlink(target, &path);
            }
            _ if taken => {}
            _ => {
                if let Ok(c) = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()) {
                    // SAFETY: a NUL-terminated path; mkfifo only creates a file there.
                    unsafe { libc::mkfifo(c.as_ptr(), 0o644) };
                }
            }
        }
    }
}

/// Inputs that load a chart, one per mode (and one with a subchart archive): the seeds of the
/// bounded run and of the libFuzzer corpus.
pub fn seeds() -> Vec<Vec<u8>> {
    let files: &[(&str, &[u8])] = &[
        ("c/Chart.yaml", b"apiVersion: v2\nname: c\nversion: 1.0.0\n"),
        ("c/values.yaml", b"a: 1\nlist: [x, y]\n"),
        (
            "c/templates/cm.yaml",
            b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  a: {{ .Values.a | quote }}\n",
        ),
        ("c/templates/_helpers.tpl", b"{{- define \"x\" -}}x{{- end -}}\n"),
        ("c/.helmignore", b"*.bak\n"),
        (
            "c/charts/sub/Chart.yaml",
            b"apiVersion: v2\nname: sub\nversion: 0.1.0\n",
        ),
        ("c/crds/crd.yaml", b"kind: CustomResourceDefinition\n"),
    ];
    let tar = tar_of(files);
    let sub = gzip(&tar_of(&[(
        "sub2/Chart.yaml",
        b"apiVersion: v2\nname: sub2\nversion: 0.2.0\n",
    )]));
    let mut with_sub: Vec<(&str, &[u8])> = files.to_vec();
    with_sub.push(("c/charts/sub2-0.2.0.tgz", &sub));
    let mut layout = vec![2u8];
    for (name, body) in files {
        let name = name.strip_prefix("c/").unwrap_or(name);
        layout.extend_from_slice(&[0, name.len() as u8]);
        layout.extend_from_slice(name.as_bytes());
        layout.extend_from_slice(&(body.len() as u16).to_le_bytes());
        layout.extend_from_slice(body);
    }
    // A link to a file of the chart, and an empty folder.
    layout.extend_from_slice(&[2, 12]);
    layout.extend_from_slice(b"templates/l.");
    layout.extend_from_slice(&[7]);
    layout.extend_from_slice(b"cm.yaml");
    layout.extend_from_slice(&[1, 5]);
    layout.extend_from_slice(b"empty");
    vec![
        [&[0u8][..], &gzip(&tar)].concat(),
        [&[1u8][..], &tar].concat(),
        [&[1u8][..], &tar_of(&with_sub)].concat(),
        layout,
    ]
}

fn tar_of(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (name, body) in files {
        let mut h = tar::Header::new_ustar();
        h.set_size(body.len() as u64);
        h.set_mode(0o644);
        h.set_entry_type(tar::EntryType::Regular);
        b.append_data(&mut h, name, *body).expect("tar in memory");
    }
    b.into_inner().expect("tar in memory")
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(data).expect("gzip in memory");
    gz.finish().expect("gzip in memory")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SplitMix64: a fixed-seed generator, so every run makes the same mutations.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n.max(1) as u64) as usize
        }
    }

    /// One of libFuzzer's simpler mutations of `input`, with `other` for splicing.
    fn mutate(rng: &mut Rng, input: &mut Vec<u8>, other: &[u8]) {
        const INTERESTING: &[u8] = &[0, 1, 0x7f, 0x80, 0xff, b'/', b'.', b'0', b'\n', b' '];
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(input.len().max(1));
            match rng.below(8) {
                0 if !input.is_empty() => input[at] ^= 1 << rng.below(8),
                1 if !input.is_empty() => input[at] = rng.next() as u8,
                2 if !input.is_empty() => input[at] = INTERESTING[rng.below(INTERESTING.len())],
                3 => input.insert(at.min(input.len()), rng.next() as u8),
                4 if input.len() > 1 => {
                    let end = (at + 1 + rng.below(64)).min(input.len());
                    input.drain(at..end);
                }
                5 => input.truncate(at.max(1)),
                6 if !other.is_empty() => {
                    let from = rng.below(other.len());
                    let end = (from + 1 + rng.below(512)).min(other.len());
                    let cut = at.min(input.len());
                    input.splice(cut..cut, other[from..end].iter().copied());
                }
                _ if input.len() > 8 => {
                    // A tar header's size or checksum field, in octal digits.
                    let field = at - at % 512 + [124, 148, 156][rng.below(3)];
                    if field < input.len() {
                        input[field] = b'0' + rng.below(8) as u8;
                    }
                }
                _ => input.push(rng.next() as u8),
            }
        }
        // The mode byte stays a valid mode most of the time.
        if let Some(first) = input.first_mut()
            && rng.below(8) != 0
        {
            *first %= 3;
        }
    }

    /// With `HELM_FUZZ_SEED_DIR` set, also writes the seeds there (the libFuzzer corpus:
    /// `fuzz/seed-corpus.sh`).
    #[test]
    fn the_seeds_are_charts() {
        if let Some(dir) = std::env::var_os("HELM_FUZZ_SEED_DIR") {
            std::fs::create_dir_all(&dir).unwrap();
            for (i, seed) in seeds().iter().enumerate() {
                std::fs::write(Path::new(&dir).join(format!("seed-{i}")), seed).unwrap();
            }
        }
        let scratch = std::env::temp_dir().join(format!("helm-fuzz-seeds-{}", std::process::id()));
        for (i, seed) in seeds().iter().enumerate() {
            let rest = &seed[1..];
            match seed[0] {
                0 => assert!(load_archive(rest).is_ok(), "seed {i}"),
                1 => assert!(load_archive(&gzip(rest)).is_ok(), "seed {i}"),
                _ => {
                    let root = scratch.join("c");
                    std::fs::create_dir_all(&root).unwrap();
                    write_layout(rest, &root);
                    let chart = load_dir(&root);
                    assert!(chart.is_ok(), "seed {i}: {:?}", chart.err());
                    let _ = std::fs::remove_dir_all(&scratch);
                }
            }
        }
    }

    /// The bounded run CI makes on stable Rust: the seeds and 2000 deterministic mutations
    /// of them through [`load_input`], the function the libFuzzer target calls. Bounded in
    /// count, not time (a few seconds in a debug build).
    #[test]
    fn seeds_and_mutations_load_without_panicking() {
        let scratch = std::env::temp_dir().join(format!("helm-fuzz-run-{}", std::process::id()));
        let seeds = seeds();
        let mut rng = Rng(0x5eed_0034);
        for seed in &seeds {
            load_input(seed, &scratch);
        }
        // Found by the libFuzzer target: a FIFO, then a file of the same name (the harness
        // itself waited for a reader).
        load_input(b"\x02\x5bA\x02\x5bA\0\0\0\0\0\0\0\x10\x19\0", &scratch);
        load_input(b"\x02\x03\x01f\x00\x01f\x02\x00x", &scratch);
        for _ in 0..2000 {
            let mut input = seeds[rng.below(seeds.len())].clone();
            let other = &seeds[rng.below(seeds.len())];
            mutate(&mut rng, &mut input, other);
            load_input(&input, &scratch);
        }
        let _ = std::fs::remove_dir_all(&scratch);
    }

    #[test]
    fn layouts_stay_inside_their_folder() {
        assert_eq!(clamp(&[], b"../../a/./b/.."), vec!["a"]);
        assert_eq!(clamp(&["t".into()], b"../../../x"), vec!["x"]);
        assert_eq!(clamp(&[], b"/etc/passwd"), vec!["etc", "passwd"]);
        assert!(clamp(&[], b"..").is_empty());
    }
}
