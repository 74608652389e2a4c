//! Unpacking and verifying downloads: Go's module hash against the `.ziphash` files Go itself
//! wrote into the module cache, release archives with the entries a hostile or broken archive
//! may hold (links, paths that leave the directory, oversized files, no profiles, not gzip),
//! and the `.sha256` file's format.

use release::archive::{self, ArchiveError, Limits};

/// A gzipped tar of `entries`: (path, contents, kind). Paths are written into the header as
/// given (`tar::Builder` would refuse `..`, which is what these tests need).
fn tgz(entries: &[(&str, &[u8], tar::EntryType)]) -> Vec<u8> {
    let mut builder = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::fast(),
    ));
    for (path, data, kind) in entries {
        let mut header = tar::Header::new_old();
        let name = &mut header.as_old_mut().name;
        name[..path.len()].copy_from_slice(path.as_bytes());
        header.set_entry_type(*kind);
        header.set_mode(0o644);
        if kind.is_symlink() {
            header.set_link_name("../../../etc/passwd").unwrap();
            header.set_size(0);
        } else {
            header.set_size(data.len() as u64);
        }
        header.set_cksum();
        builder.append(&header, *data).unwrap();
    }
    builder.into_inner().unwrap().finish().unwrap()
}

const FILE: tar::EntryType = tar::EntryType::Regular;

fn release(extra: &[(&str, &[u8], tar::EntryType)]) -> Vec<u8> {
    let mut entries: Vec<(&str, &[u8], tar::EntryType)> = vec![
        ("istio-1.30.3/bin/istioctl", b"\x7fELF", FILE),
        (
            "istio-1.30.3/manifests/profiles/default.yaml",
            b"spec: {}\n",
            FILE,
        ),
        (
            "istio-1.30.3/manifests/charts/base/Chart.yaml",
            b"name: base\n",
            FILE,
        ),
        ("istio-1.30.3/samples/bookinfo.yaml", b"kind: x\n", FILE),
    ];
    entries.extend_from_slice(extra);
    tgz(&entries)
}

#[test]
fn a_release_archive_gives_only_its_manifests() {
    let files = archive::release_files(&release(&[]), "1.30.3", Limits::default()).unwrap();
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "manifests/profiles/default.yaml",
            "manifests/charts/base/Chart.yaml"
        ]
    );
    assert_eq!(files[0].data, b"spec: {}\n");
}

#[test]
fn hostile_or_broken_archives_are_refused() {
    let symlink = tar::EntryType::Symlink;
    let hard = tar::EntryType::Link;
    let cases: Vec<(Vec<u8>, &str, Limits)> = vec![
        (
            release(&[("istio-1.30.3/manifests/charts/x", b"", symlink)]),
            "holds a link in manifests/: \"istio-1.30.3/manifests/charts/x\" (only files and directories are unpacked)",
            Limits::default(),
        ),
        (
            release(&[("istio-1.30.3/manifests/charts/y", b"", hard)]),
            "holds a link in manifests/: \"istio-1.30.3/manifests/charts/y\" (only files and directories are unpacked)",
            Limits::default(),
        ),
        (
            release(&[("istio-1.30.3/manifests/../../evil", b"x", FILE)]),
            "holds a path that leaves its directory: \"manifests/../../evil\"",
            Limits::default(),
        ),
        (
            release(&[("istio-1.30.3/manifests/big.yaml", &[b'a'; 2000], FILE)]),
            "\"manifests/big.yaml\" is larger than 1000 bytes",
            Limits {
                max_file: 1000,
                ..Limits::default()
            },
        ),
        (
            release(&[("istio-1.30.3/manifests/a.yaml", &[b'a'; 900], FILE)]),
            "manifests/ is larger than 919 bytes",
            Limits {
                max_kept: 919,
                ..Limits::default()
            },
        ),
        (
            release(&[]),
            "holds more than 3 entries",
            Limits {
                max_entries: 3,
                ..Limits::default()
            },
        ),
        (
            tgz(&[("istio-1.30.3/manifests/charts/base/Chart.yaml", b"x", FILE)]),
            "has no istio-1.30.3/manifests/profiles/",
            Limits::default(),
        ),
        (
            // Another release's archive under this one's name.
            release(&[]),
            "has no istio-1.30.2/manifests/profiles/",
            Limits::default(),
        ),
        (
            b"not gzip at all".to_vec(),
            "not a readable tar.gz archive",
            Limits::default(),
        ),
    ];
    for (i, (data, want, limits)) in cases.into_iter().enumerate() {
        let version = if want.contains("1.30.2") {
            "1.30.2"
        } else {
            "1.30.3"
        };
        let got = archive::release_files(&data, version, limits)
            .map(|_| "accepted".to_string())
            .unwrap_or_else(|e| e.to_string());
        assert_eq!(got, want, "case {i}");
    }
    // A truncated archive: its bytes cut short.
    let whole = release(&[]);
    let e =
        archive::release_files(&whole[..whole.len() / 2], "1.30.3", Limits::default()).unwrap_err();
    assert!(
        matches!(
            e,
            ArchiveError::Unreadable { .. } | ArchiveError::NoManifests { .. }
        ),
        "{e}"
    );
}

#[test]
fn checksum_files() {
    let hex = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    let name = "istio-1.30.3-linux-amd64.tar.gz";
    let cases: [(String, Option<&str>); 7] = [
        (format!("{hex} {name}\n"), Some(hex)),
        (format!("{hex}  {name}\n"), Some(hex)),
        (format!("{hex} *{name}"), Some(hex)),
        (format!("{}\n", hex.to_uppercase()), Some(hex)),
        (format!("{hex} istio-1.30.2-linux-amd64.tar.gz\n"), None),
        (format!("{} {name}\n", &hex[1..]), None),
        ("<html>Not Found</html>\n".to_string(), None),
    ];
    for (text, want) in cases {
        assert_eq!(
            archive::parse_checksum_file(&text, name).as_deref(),
            want,
            "{text:?}"
        );
    }
    assert_eq!(
        archive::sha256_hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}

/// Go wrote `<version>.ziphash` (the go.sum hash it computed) beside each module zip it
/// downloaded: bosun's hash of the zip must be Go's. The zips are in Go's module cache under
/// bosun's once `scripts/fetch-istio` and `scripts/fetch-istio --previous` ran (they are run
/// here, as the other tests run the scripts that fetch their oracles).
#[test]
fn module_hash_is_gos() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut fetched = None;
    for flag in [&[][..], &["--previous"]] {
        let out = std::process::Command::new(root.join("scripts/fetch-istio"))
            .args(flag)
            .output()
            .expect("running scripts/fetch-istio");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        fetched = Some(std::path::PathBuf::from(
            String::from_utf8_lossy(&out.stdout).trim(),
        ));
    }
    // scripts/fetch-istio prints $BOSUN_CACHE/istio-<version>; Go's module cache is beside it.
    let cache = fetched.unwrap().parent().unwrap().to_path_buf();
    let dir = cache.join("gomod/cache/download/istio.io/istio/@v");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "zip") {
            continue;
        }
        let Ok(go) = std::fs::read_to_string(path.with_extension("ziphash")) else {
            continue;
        };
        let zip = std::fs::read(&path).unwrap();
        assert_eq!(
            archive::module_hash(&zip).unwrap(),
            go.trim(),
            "{}",
            path.display()
        );
        let version = path.file_stem().unwrap().to_string_lossy().into_owned();
        let files = archive::module_files(&zip, &version, Limits::default()).unwrap();
        assert!(files.iter().any(|f| f.path == "VERSION"));
        // The values API's proto and the IstioOperator types are kept too: a version's
        // IstioOperator and `values` are validated against them.
        let values_proto = "operator/pkg/apis/values_types.proto";
        let iop_types = "operator/pkg/apis/types.go";
        assert!(files.iter().any(|f| f.path == values_proto));
        assert!(files.iter().any(|f| f.path == iop_types));
        assert!(files.iter().all(|f| f.path == "VERSION"
            || f.path == values_proto
            || f.path == iop_types
            || f.path.starts_with("manifests/")));
        // Its MeshConfig API: the istio.io/api its go.mod requires, whose hash its go.sum
        // records as Go recorded it when it downloaded that zip (beside this one).
        let api = archive::module_requirement(&zip, &version, archive::API_MODULE)
            .unwrap()
            .expect("istio requires istio.io/api");
        let api_zip = cache.join(format!(
            "gomod/cache/download/istio.io/api/@v/{}.zip",
            api.version
        ));
        let go = std::fs::read_to_string(api_zip.with_extension("ziphash")).unwrap();
        assert_eq!(api.sum, go.trim(), "{}", api_zip.display());
        let api_zip = std::fs::read(&api_zip).unwrap();
        assert_eq!(archive::module_hash(&api_zip).unwrap(), api.sum);
        let protos = archive::mesh_protos(&api_zip, &api.version, Limits::default()).unwrap();
        let paths: Vec<&str> = protos.iter().map(|f| f.path.as_str()).collect();
        for want in [
            "istio.io/api/mesh/v1alpha1/config.proto",
            "istio.io/api/mesh/v1alpha1/proxy.proto",
            "istio.io/api/networking/v1alpha3/destination_rule.proto",
        ] {
            assert!(paths.contains(&want), "{version}: {paths:?}");
        }
        assert!(
            paths.iter().all(|p| p.ends_with(".proto")
                && !p.contains("/google/")
                && p.starts_with("istio.io/api/")),
            "{paths:?}"
        );
        checked += 1;
    }
    assert!(
        checked >= 2,
        "{} holds {checked} module zips, want the pin's and the previous one",
        dir.display()
    );
}
