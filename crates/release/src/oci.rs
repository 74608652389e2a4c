//! An OCI registry as a release mirror (pure: text in, values out). Release `V` is the
//! artifact `HOST/REPO:V` whose layer is `istio-V-linux-amd64.tar.gz`, as
//! `oras push HOST/REPO:V istio-V-linux-amd64.tar.gz` makes it: an OCI image manifest, the
//! layer annotated `org.opencontainers.image.title` with the file name.
//!
//! Here: the mirror's name (`oci://HOST[:PORT]/REPO`), choosing the layer in a manifest,
//! content addressing (a digest names the SHA-256 of the bytes), a registry's
//! `WWW-Authenticate` challenge and token answer, and a login from docker's `config.json`.
//! The HTTP exchange is [`crate::fetch::oci`].

use base64::Engine;

/// The annotation that names a layer's file (what `oras push` sets; `oras pull` writes the
/// layer to that name).
pub const TITLE_ANNOTATION: &str = "org.opencontainers.image.title";
/// The manifest types bosun asks a registry for (an index is asked for too, to be named in
/// the error instead of a registry's bare 404 for a type it would not serve).
pub const ACCEPT: &str = "application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json, application/vnd.oci.image.index.v1+json, application/vnd.docker.distribution.manifest.list.v2+json";
/// The most a manifest may be (what the distribution spec asks registries to take at least).
pub const MAX_MANIFEST: u64 = 4 << 20;

/// A registry login (basic credentials), from docker's `config.json`.
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    pub username: String,
    pub password: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Credentials {{ username: {:?}, password: … }}",
            self.username
        )
    }
}

impl Credentials {
    /// The `Authorization` header value of HTTP basic authentication.
    pub fn basic(&self) -> String {
        let pair = format!("{}:{}", self.username, self.password);
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(pair)
        )
    }
}

/// An OCI registry mirror: `oci://HOST[:PORT]/REPO`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OciMirror {
    /// `HOST[:PORT]` as given (`[::1]:5000` for IPv6).
    pub registry: String,
    /// The repository, `/`-separated.
    pub repository: String,
    /// Speak plain HTTP: a registry on loopback, or when asked for.
    pub plain_http: bool,
    /// The login for this registry, when docker's `config.json` has one.
    pub credentials: Option<Credentials>,
}

/// Why an `oci://` mirror name is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MirrorError {
    #[error("{text:?}: an OCI mirror is oci://HOST[:PORT]/REPOSITORY (the tag is the release)")]
    Shape { text: String },
    #[error(
        "{text:?}: {repository:?} is not a repository name (lower-case letters, digits and . _ - between them, / between components){}",
        if repository.contains([':', '@']) { "; name the repository only: bosun adds the release as the tag" } else { "" }
    )]
    Repository { text: String, repository: String },
}

impl OciMirror {
    /// Parses `oci://HOST[:PORT]/REPO`. `plain_http` asks for plain HTTP whatever the host;
    /// a loopback host (`localhost`, `127.x.y.z`, `[::1]`) is spoken to over plain HTTP anyway.
    pub fn parse(text: &str, plain_http: bool) -> Result<OciMirror, MirrorError> {
        let shape = || MirrorError::Shape {
            text: text.to_string(),
        };
        let rest = text.trim().strip_prefix("oci://").ok_or_else(shape)?;
        let rest = rest.trim_end_matches('/');
        let (registry, repository) = rest.split_once('/').ok_or_else(shape)?;
        if registry.is_empty() || registry.contains(['@', '?', '#', ' ']) {
            return Err(shape());
        }
        if !valid_repository(repository) {
            return Err(MirrorError::Repository {
                text: text.to_string(),
                repository: repository.to_string(),
            });
        }
        Ok(OciMirror {
            registry: registry.to_string(),
            repository: repository.to_string(),
            plain_http: plain_http || is_loopback(registry),
            credentials: None,
        })
    }

    /// The registry's API base: `http(s)://HOST[:PORT]/v2/REPO`.
    pub fn api(&self) -> String {
        let scheme = if self.plain_http { "http" } else { "https" };
        format!("{scheme}://{}/v2/{}", self.registry, self.repository)
    }

    /// The artifact of `tag`, as users write it: `HOST/REPO:TAG`.
    pub fn artifact(&self, tag: &str) -> String {
        format!("{}/{}:{tag}", self.registry, self.repository)
    }

    /// The token scope a pull of this repository needs.
    pub fn pull_scope(&self) -> String {
        format!("repository:{}:pull", self.repository)
    }
}

/// The host part of `HOST[:PORT]` is a loopback address or `localhost`.
pub fn is_loopback(registry: &str) -> bool {
    let host = if let Some(v6) = registry.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        registry.split(':').next().unwrap_or("")
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// A repository name as the distribution spec allows it: components of `[a-z0-9]` separated
/// by `.`, `_`, `__` or `-`s, joined by `/`.
fn valid_repository(repository: &str) -> bool {
    !repository.is_empty()
        && repository.len() <= 255
        && repository.split('/').all(|c| {
            let bytes = c.as_bytes();
            !c.is_empty()
                && bytes.first().is_some_and(u8::is_ascii_alphanumeric)
                && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(b))
                && !c.contains("..")
                && !c.contains("___")
        })
}

/// A content digest: `sha256:<64 hex>` (the only algorithm bosun verifies).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Digest {
    pub hex: String,
}

impl Digest {
    /// `None` when `text` is not `sha256:` and 64 lower-case hex digits.
    pub fn parse(text: &str) -> Option<Digest> {
        let hex = text.strip_prefix("sha256:")?;
        (hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
        .then(|| Digest {
            hex: hex.to_string(),
        })
    }
}

impl std::fmt::Display for Digest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "sha256:{}", self.hex)
    }
}

/// The layer bosun takes from a manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layer {
    pub digest: Digest,
    pub size: u64,
    pub media_type: String,
}

/// Why a manifest does not name the release archive.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("the manifest is not JSON: {0}")]
    NotJson(#[source] serde_json::Error),
    #[error(
        "the tag names an image index ({media_type}), not an artifact; push the archive with `oras push HOST/REPO:VERSION istio-VERSION-linux-amd64.tar.gz`"
    )]
    Index { media_type: String },
    #[error("the manifest is {media_type:?}, not an OCI image manifest")]
    MediaType { media_type: String },
    #[error("the manifest has no layer titled {file:?} ({TITLE_ANNOTATION}); its layers: {}", if layers.is_empty() { "none".to_string() } else { layers.join(", ") })]
    NoLayer { file: String, layers: Vec<String> },
    #[error("layer {index} of the manifest has {what}")]
    BadLayer { index: usize, what: String },
}

/// The layer of `file` in `manifest` (JSON; `content_type` is the registry's `Content-Type`,
/// used when the manifest names no `mediaType`): the layer titled `file`, else the only layer
/// when there is just one (tools other than oras add no title).
pub fn release_layer(
    manifest: &[u8],
    content_type: Option<&str>,
    file: &str,
) -> Result<Layer, ManifestError> {
    let json: serde_json::Value =
        serde_json::from_slice(manifest).map_err(ManifestError::NotJson)?;
    let media_type = json
        .get("mediaType")
        .and_then(|m| m.as_str())
        .or(content_type.map(|c| c.split(';').next().unwrap_or(c).trim()))
        .unwrap_or("")
        .to_string();
    if json.get("manifests").is_some()
        || media_type.contains("image.index")
        || media_type.contains("manifest.list")
    {
        return Err(ManifestError::Index { media_type });
    }
    let known = [
        "",
        "application/vnd.oci.image.manifest.v1+json",
        "application/vnd.docker.distribution.manifest.v2+json",
    ];
    if !known.contains(&media_type.as_str())
        || json.get("schemaVersion").and_then(|v| v.as_u64()) != Some(2)
    {
        return Err(ManifestError::MediaType { media_type });
    }
    let layers = json
        .get("layers")
        .and_then(|l| l.as_array())
        .map(Vec::as_slice)
        .unwrap_or_default();
    let title = |l: &serde_json::Value| {
        l.get("annotations")
            .and_then(|a| a.get(TITLE_ANNOTATION))
            .and_then(|t| t.as_str())
            .map(str::to_string)
    };
    let chosen = layers
        .iter()
        .position(|l| title(l).as_deref() == Some(file))
        .or((layers.len() == 1 && title(&layers[0]).is_none()).then_some(0));
    let Some(index) = chosen else {
        return Err(ManifestError::NoLayer {
            file: file.to_string(),
            layers: layers
                .iter()
                .map(|l| title(l).unwrap_or_else(|| "(untitled)".to_string()))
                .collect(),
        });
    };
    let layer = &layers[index];
    let bad = |what: &str| ManifestError::BadLayer {
        index,
        what: what.to_string(),
    };
    let digest_text = layer
        .get("digest")
        .and_then(|d| d.as_str())
        .ok_or_else(|| bad("no digest"))?;
    let digest = Digest::parse(digest_text).ok_or_else(|| {
        bad(&format!(
            "digest {digest_text:?}, not sha256:<64 hex> (the only digest bosun verifies)"
        ))
    })?;
    let size = layer
        .get("size")
        .and_then(|s| s.as_u64())
        .ok_or_else(|| bad("no size"))?;
    Ok(Layer {
        digest,
        size,
        media_type: layer
            .get("mediaType")
            .and_then(|m| m.as_str())
            .unwrap_or("")
            .to_string(),
    })
}

/// A registry's `WWW-Authenticate` challenge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Challenge {
    /// `Bearer realm="…",service="…",scope="…"`: a token is fetched from `realm`.
    Bearer {
        realm: String,
        service: Option<String>,
        scope: Option<String>,
    },
    /// `Basic realm="…"`: credentials go with each request.
    Basic,
}

/// Parses a `WWW-Authenticate` header value (`None` for a scheme bosun does not speak).
pub fn parse_challenge(header: &str) -> Option<Challenge> {
    let header = header.trim();
    let (scheme, params) = header.split_once(' ').unwrap_or((header, ""));
    if scheme.eq_ignore_ascii_case("basic") {
        return Some(Challenge::Basic);
    }
    if !scheme.eq_ignore_ascii_case("bearer") {
        return None;
    }
    let mut realm = None;
    let mut service = None;
    let mut scope = None;
    let mut rest = params.trim();
    while !rest.is_empty() {
        let (key, after) = rest.split_once('=')?;
        let key = key.trim().to_ascii_lowercase();
        let after = after.trim_start();
        let (value, next) = if let Some(quoted) = after.strip_prefix('"') {
            let end = quoted.find('"')?;
            (&quoted[..end], &quoted[end + 1..])
        } else {
            let end = after.find(',').unwrap_or(after.len());
            (after[..end].trim(), &after[end..])
        };
        match key.as_str() {
            "realm" => realm = Some(value.to_string()),
            "service" => service = Some(value.to_string()),
            "scope" => scope = Some(value.to_string()),
            _ => {}
        }
        rest = next.trim_start().trim_start_matches(',').trim_start();
    }
    Some(Challenge::Bearer {
        realm: realm?,
        service,
        scope,
    })
}

/// The token in a token endpoint's answer (`token`, or OAuth2's `access_token`).
pub fn token_from_answer(answer: &[u8]) -> Option<String> {
    let json: serde_json::Value = serde_json::from_slice(answer).ok()?;
    ["token", "access_token"]
        .iter()
        .find_map(|k| json.get(*k).and_then(|t| t.as_str()))
        .filter(|t| !t.is_empty())
        .map(str::to_string)
}

/// The login docker's `config.json` holds for `registry` (`auths.<registry>`: `auth`, the
/// base64 of `user:password`, or `username` and `password`; keys may carry a scheme and a
/// path, as `https://index.docker.io/v1/`, Docker Hub's, which also serves `docker.io` and
/// `registry-1.docker.io`). Credential helpers (`credsStore`, `credHelpers`)
/// are not run: a login kept only in a helper is not found.
pub fn docker_config_credentials(config: &str, registry: &str) -> Option<Credentials> {
    let json: serde_json::Value = serde_json::from_str(config).ok()?;
    let auths = json.get("auths")?.as_object()?;
    // docker keeps Docker Hub's login under its index's name.
    let docker_hub = ["docker.io", "registry-1.docker.io", "index.docker.io"];
    let same = |host: &str| {
        host.eq_ignore_ascii_case(registry)
            || (docker_hub.contains(&host) && docker_hub.contains(&registry))
    };
    let entry = auths.iter().find_map(|(key, value)| {
        let host = key
            .trim_start_matches("https://")
            .trim_start_matches("http://");
        let host = host.split('/').next().unwrap_or(host);
        same(host).then_some(value)
    })?;
    if let Some(auth) = entry
        .get("auth")
        .and_then(|a| a.as_str())
        .filter(|a| !a.is_empty())
    {
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(auth.trim())
            .ok()?;
        let (user, password) = std::str::from_utf8(&decoded).ok()?.split_once(':')?;
        return Some(Credentials {
            username: user.to_string(),
            password: password.to_string(),
        });
    }
    let username = entry.get("username")?.as_str()?;
    let password = entry.get("password")?.as_str()?;
    Some(Credentials {
        username: username.to_string(),
        password: password.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirror_names() {
        let m = OciMirror::parse("oci://127.0.0.1:5000/istio/releases", false).unwrap();
        assert_eq!(m.api(), "http://127.0.0.1:5000/v2/istio/releases");
        assert_eq!(m.artifact("1.30.3"), "127.0.0.1:5000/istio/releases:1.30.3");
        let m = OciMirror::parse("oci://harbor.example.com/istio/", false).unwrap();
        assert_eq!(m.api(), "https://harbor.example.com/v2/istio");
        assert!(
            OciMirror::parse("oci://harbor.example.com/istio", true)
                .unwrap()
                .plain_http
        );
        for loopback in ["localhost:5000", "[::1]:5000", "127.0.0.2"] {
            let m = OciMirror::parse(&format!("oci://{loopback}/r"), false).unwrap();
            assert!(m.plain_http, "{loopback}");
        }
        assert!(!is_loopback("localhost.example.com:5000"));
        for bad in ["oci://host", "oci:///repo", "oci://host/"] {
            assert!(
                matches!(OciMirror::parse(bad, false), Err(MirrorError::Shape { .. })),
                "{bad}"
            );
        }
        let e = OciMirror::parse("oci://host/istio/releases:1.30.3", false).unwrap_err();
        assert!(
            e.to_string().ends_with("bosun adds the release as the tag"),
            "{e}"
        );
        assert!(OciMirror::parse("oci://host/Istio", false).is_err());
        assert!(OciMirror::parse("oci://host/a..b", false).is_err());
        assert!(OciMirror::parse("oci://host/a__b/c-d.e", false).is_ok());
    }

    const FILE: &str = "istio-1.30.3-linux-amd64.tar.gz";
    const D: &str = "sha256:e07118694cd90013072918f7b37c5f14dad3463ab7599228d21b68e01d4d740d";

    fn manifest(layers: &str) -> String {
        format!(
            r#"{{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","artifactType":"application/vnd.unknown.artifact.v1","config":{{"mediaType":"application/vnd.oci.empty.v1+json","digest":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","size":2}},"layers":[{layers}]}}"#
        )
    }

    fn layer(title: Option<&str>, digest: &str) -> String {
        let annotations = title
            .map(|t| format!(r#","annotations":{{"{TITLE_ANNOTATION}":"{t}"}}"#))
            .unwrap_or_default();
        format!(
            r#"{{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"{digest}","size":1000{annotations}}}"#
        )
    }

    #[test]
    fn the_release_layer() {
        // As oras push makes it, and among other files.
        let m = manifest(&layer(Some(FILE), D));
        let got = release_layer(m.as_bytes(), None, FILE).unwrap();
        assert_eq!((got.digest.to_string(), got.size), (D.to_string(), 1000));
        let other = layer(Some("README.md"), &format!("sha256:{}", "1".repeat(64)));
        let m = manifest(&format!("{other},{}", layer(Some(FILE), D)));
        assert_eq!(
            release_layer(m.as_bytes(), None, FILE)
                .unwrap()
                .digest
                .to_string(),
            D
        );
        // One untitled layer is taken; a titled one of another name is not.
        let m = manifest(&layer(None, D));
        assert!(release_layer(m.as_bytes(), None, FILE).is_ok());
        let m = manifest(&layer(Some("istio-1.30.2-linux-amd64.tar.gz"), D));
        assert_eq!(
            release_layer(m.as_bytes(), None, FILE)
                .unwrap_err()
                .to_string(),
            format!(
                "the manifest has no layer titled \"{FILE}\" ({TITLE_ANNOTATION}); its layers: istio-1.30.2-linux-amd64.tar.gz"
            )
        );
        let m = manifest(&layer(Some(FILE), "sha512:abc"));
        assert!(matches!(
            release_layer(m.as_bytes(), None, FILE),
            Err(ManifestError::BadLayer { index: 0, .. })
        ));
        let index = r#"{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}"#;
        assert!(matches!(
            release_layer(index.as_bytes(), None, FILE),
            Err(ManifestError::Index { .. })
        ));
        assert!(matches!(
            release_layer(b"<html>", None, FILE),
            Err(ManifestError::NotJson(_))
        ));
        // No mediaType in the body: the Content-Type decides.
        let m = format!(
            r#"{{"schemaVersion":2,"layers":[{}]}}"#,
            layer(Some(FILE), D)
        );
        assert!(
            release_layer(
                m.as_bytes(),
                Some("application/vnd.oci.image.manifest.v1+json"),
                FILE
            )
            .is_ok()
        );
        assert!(matches!(
            release_layer(
                m.as_bytes(),
                Some("application/vnd.docker.distribution.manifest.v1+prettyjws"),
                FILE
            ),
            Err(ManifestError::MediaType { .. })
        ));
    }

    #[test]
    fn challenges_and_tokens() {
        assert_eq!(
            parse_challenge(
                r#"Bearer realm="https://ghcr.io/token",service="ghcr.io",scope="repository:istio/releases:pull""#
            ),
            Some(Challenge::Bearer {
                realm: "https://ghcr.io/token".to_string(),
                service: Some("ghcr.io".to_string()),
                scope: Some("repository:istio/releases:pull".to_string()),
            })
        );
        assert_eq!(
            parse_challenge(
                r#"bearer realm="https://auth.docker.io/token", service=registry.docker.io"#
            ),
            Some(Challenge::Bearer {
                realm: "https://auth.docker.io/token".to_string(),
                service: Some("registry.docker.io".to_string()),
                scope: None,
            })
        );
        assert_eq!(
            parse_challenge(r#"Basic realm="Harbor""#),
            Some(Challenge::Basic)
        );
        assert_eq!(parse_challenge("Bearer service=\"x\""), None);
        assert_eq!(parse_challenge("Negotiate"), None);
        assert_eq!(
            token_from_answer(br#"{"token":"abc","expires_in":300}"#).as_deref(),
            Some("abc")
        );
        assert_eq!(
            token_from_answer(br#"{"access_token":"xyz"}"#).as_deref(),
            Some("xyz")
        );
        assert_eq!(token_from_answer(br#"{"token":""}"#), None);
    }

    #[test]
    fn docker_config_logins() {
        let config = r#"{"auths":{
            "https://index.docker.io/v1/":{"auth":"dXNlcjpwYXNz"},
            "harbor.example.com:8443":{"username":"robot$istio","password":"s:e:cret"},
            "other.example.com":{"auth":"bm9jb2xvbg=="}},
            "credsStore":"desktop"}"#;
        let got = |r: &str| docker_config_credentials(config, r);
        assert_eq!(
            got("index.docker.io"),
            Some(Credentials {
                username: "user".to_string(),
                password: "pass".to_string()
            })
        );
        assert_eq!(got("registry-1.docker.io"), got("index.docker.io"));
        assert_eq!(got("harbor.example.com:8443").unwrap().password, "s:e:cret");
        assert_eq!(got("harbor.example.com"), None);
        assert_eq!(got("other.example.com"), None, "no colon in the auth");
        assert_eq!(
            got("index.docker.io").unwrap().basic(),
            "Basic dXNlcjpwYXNz"
        );
        assert!(!format!("{:?}", got("index.docker.io")).contains("pass\""));
    }

    #[test]
    fn digests() {
        assert!(Digest::parse(D).is_some());
        assert!(Digest::parse(&D.to_uppercase()).is_none());
        assert!(Digest::parse("sha256:abc").is_none());
        assert!(Digest::parse("sha512:abc").is_none());
    }
}
