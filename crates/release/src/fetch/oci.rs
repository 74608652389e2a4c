//! Pulling a release archive from an OCI registry over the distribution API: `GET
//! /v2/REPO/manifests/TAG`, then `GET /v2/REPO/blobs/DIGEST` of the archive's layer, with
//! anonymous or logged-in bearer tokens (a 401 with `WWW-Authenticate: Bearer realm=…` sends
//! bosun to the realm for a token, as Docker Hub, ghcr.io, Harbor and Artifactory answer) or
//! basic credentials. What comes back is checked against its digest (content addressing): the
//! manifest against the digest the registry names it by, the layer against the manifest's
//! digest and size.

use crate::archive::sha256_hex;
use crate::fetch::{FetchError, Progress, call, read_body, status_error};
use crate::oci::{
    ACCEPT, Challenge, Digest, Layer, MAX_MANIFEST, ManifestError, OciMirror, parse_challenge,
    release_layer, token_from_answer,
};

/// Why an artifact could not be pulled, or was refused.
#[derive(Debug, thiserror::Error)]
pub enum OciError {
    #[error(transparent)]
    Fetch(#[from] FetchError),
    #[error("the registry has no tag {tag} (GET {url}: {status}{detail})")]
    NoTag {
        tag: String,
        url: String,
        status: String,
        detail: String,
    },
    #[error(
        "GET {url}: the registry refused access ({status}{detail}); bosun sends the login docker's config.json holds for {registry}, if any"
    )]
    Unauthorized {
        url: String,
        registry: String,
        status: String,
        detail: String,
    },
    #[error("GET {url}: the registry answered {status}{detail}")]
    Status {
        url: String,
        status: String,
        detail: String,
    },
    #[error("the token service {realm} refused a token: {source}")]
    Token {
        realm: String,
        #[source]
        source: FetchError,
    },
    #[error("the token service {realm} answered no token")]
    TokenAnswer { realm: String },
    #[error("{0}")]
    Manifest(#[from] ManifestError),
    #[error(
        "the manifest the registry sent has digest sha256:{got}, but the registry names it {named} (Docker-Content-Digest): refusing it"
    )]
    ManifestDigest { named: String, got: String },
    #[error(
        "the layer {digest} is {size} bytes, more than the {limit} bytes bosun takes: refusing it"
    )]
    LayerTooLarge {
        digest: Digest,
        size: u64,
        limit: u64,
    },
    #[error("blob {digest}: the registry sent {got} bytes, but the manifest says {want}")]
    BlobSize {
        digest: Digest,
        got: String,
        want: u64,
    },
    #[error(
        "blob {digest}: the bytes the registry sent have digest sha256:{got}, not the one they are named by (corrupted or tampered with)"
    )]
    BlobDigest { digest: Digest, got: String },
}

/// A pulled release archive: the layer and its bytes, which match its digest and size.
#[derive(Debug)]
pub struct Pulled {
    /// The manifest's digest (`sha256:…`).
    pub manifest_digest: String,
    pub layer: Layer,
    pub data: Vec<u8>,
}

/// Pulls the layer titled `file` of `mirror`'s artifact `tag`; `max_layer` is the most bytes
/// it may be.
pub fn pull(
    mirror: &OciMirror,
    tag: &str,
    file: &str,
    max_layer: u64,
    progress: &dyn Fn(Progress<'_>),
) -> Result<Pulled, OciError> {
    let mut session = Session {
        mirror,
        authorization: None,
    };
    let url = format!("{}/manifests/{tag}", mirror.api());
    let response = match session.get(&url, Some(ACCEPT))? {
        Ok(response) => response,
        Err(response) if response.status() == 404 => {
            let status = status_text(&response);
            return Err(OciError::NoTag {
                tag: tag.to_string(),
                url,
                status,
                detail: error_detail(response),
            });
        }
        Err(response) => return Err(session.refused(&url, response)),
    };
    let content_type = response.header("Content-Type").map(str::to_string);
    let named = response.header("Docker-Content-Digest").map(str::to_string);
    let manifest = read_body(&url, response, MAX_MANIFEST, &|_| {})?;
    let got = sha256_hex(&manifest);
    // A registry names a manifest by its digest; when it says which (it need not for a tag),
    // the bytes must be that. A digest of another algorithm is not checked.
    if let Some(named) = named.as_deref().and_then(Digest::parse)
        && named.hex != got
    {
        return Err(OciError::ManifestDigest {
            named: named.to_string(),
            got,
        });
    }
    let layer = release_layer(&manifest, content_type.as_deref(), file)?;
    if layer.size > max_layer {
        return Err(OciError::LayerTooLarge {
            digest: layer.digest,
            size: layer.size,
            limit: max_layer,
        });
    }
    let url = format!("{}/blobs/{}", mirror.api(), layer.digest);
    let response = match session.get(&url, None)? {
        Ok(response) => response,
        Err(response) => return Err(session.refused(&url, response)),
    };
    let data = match read_body(&url, response, layer.size, progress) {
        Ok(data) => data,
        Err(FetchError::TooLarge { .. }) => {
            return Err(OciError::BlobSize {
                digest: layer.digest,
                got: format!("more than {}", layer.size),
                want: layer.size,
            });
        }
        Err(e) => return Err(e.into()),
    };
    if data.len() as u64 != layer.size {
        return Err(OciError::BlobSize {
            digest: layer.digest,
            got: data.len().to_string(),
            want: layer.size,
        });
    }
    let got = sha256_hex(&data);
    if got != layer.digest.hex {
        return Err(OciError::BlobDigest {
            digest: layer.digest,
            got,
        });
    }
    Ok(Pulled {
        manifest_digest: format!("sha256:{}", sha256_hex(&manifest)),
        layer,
        data,
    })
}

/// Requests to one registry, with the authorization its first 401 asked for.
struct Session<'a> {
    mirror: &'a OciMirror,
    authorization: Option<String>,
}

impl Session<'_> {
    /// GETs `url`; a 401 is answered once as its challenge says, then the request is sent
    /// again.
    fn get(
        &mut self,
        url: &str,
        accept: Option<&str>,
    ) -> Result<Result<ureq::Response, ureq::Response>, OciError> {
        let mut retried = false;
        loop {
            let mut headers = Vec::new();
            if let Some(accept) = accept {
                headers.push(("Accept", accept));
            }
            if let Some(authorization) = &self.authorization {
                headers.push(("Authorization", authorization.as_str()));
            }
            match call(url, &headers)? {
                Err(response) if response.status() == 401 && !retried => {
                    retried = true;
                    let challenge = response
                        .header("WWW-Authenticate")
                        .and_then(parse_challenge);
                    match challenge {
                        Some(Challenge::Bearer {
                            realm,
                            service,
                            scope,
                        }) => self.token(&realm, service.as_deref(), scope.as_deref())?,
                        Some(Challenge::Basic) if self.mirror.credentials.is_some() => {
                            self.authorization =
                                self.mirror.credentials.as_ref().map(|c| c.basic());
                        }
                        _ => return Ok(Err(response)),
                    }
                }
                answer => return Ok(answer),
            }
        }
    }

    /// Fetches a pull token from `realm` (with the login, when there is one).
    fn token(
        &mut self,
        realm: &str,
        service: Option<&str>,
        scope: Option<&str>,
    ) -> Result<(), OciError> {
        let mut url = realm.to_string();
        let mut separator = if realm.contains('?') { '&' } else { '?' };
        let scope = scope.map_or_else(|| self.mirror.pull_scope(), str::to_string);
        for (key, value) in [("service", service), ("scope", Some(scope.as_str()))] {
            if let Some(value) = value {
                url.push(separator);
                url.push_str(key);
                url.push('=');
                url.push_str(&query_escape(value));
                separator = '&';
            }
        }
        let basic = self.mirror.credentials.as_ref().map(|c| c.basic());
        let headers: Vec<(&str, &str)> = basic
            .as_deref()
            .map(|b| ("Authorization", b))
            .into_iter()
            .collect();
        let failed = |source| OciError::Token {
            realm: realm.to_string(),
            source,
        };
        let response = match call(&url, &headers).map_err(failed)? {
            Ok(response) => response,
            Err(response) => return Err(failed(status_error(&url, &response))),
        };
        let answer = read_body(&url, response, 1 << 20, &|_| {}).map_err(failed)?;
        let token = token_from_answer(&answer).ok_or_else(|| OciError::TokenAnswer {
            realm: realm.to_string(),
        })?;
        self.authorization = Some(format!("Bearer {token}"));
        Ok(())
    }

    /// The error of an answer with an error status.
    fn refused(&self, url: &str, response: ureq::Response) -> OciError {
        let status = status_text(&response);
        let unauthorized = matches!(response.status(), 401 | 403);
        let detail = error_detail(response);
        if unauthorized {
            OciError::Unauthorized {
                url: url.to_string(),
                registry: self.mirror.registry.clone(),
                status,
                detail,
            }
        } else {
            OciError::Status {
                url: url.to_string(),
                status,
                detail,
            }
        }
    }
}

fn status_text(response: &ureq::Response) -> String {
    format!("{} {}", response.status(), response.status_text())
}

/// What a registry's error body says (`{"errors":[{"code":…,"message":…}]}`), as `: CODE
/// message`; empty when it says nothing readable.
fn error_detail(response: ureq::Response) -> String {
    let body = read_body("", response, 64 << 10, &|_| {}).unwrap_or_default();
    let Ok(json) = serde_json::from_slice::<serde_json::Value>(&body) else {
        return String::new();
    };
    let errors: Vec<String> = json
        .get("errors")
        .and_then(|e| e.as_array())
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|e| {
            let field = |k: &str| e.get(k).and_then(|v| v.as_str()).unwrap_or("");
            format!("{} {}", field("code"), field("message"))
                .trim()
                .to_string()
        })
        .filter(|e| !e.is_empty())
        .collect();
    if errors.is_empty() {
        String::new()
    } else {
        format!(": {}", errors.join("; "))
    }
}

/// Percent-encodes a query value (everything but RFC 3986's unreserved characters).
fn query_escape(value: &str) -> String {
    value
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn query_escape() {
        assert_eq!(
            super::query_escape("repository:istio/releases:pull"),
            "repository%3Aistio%2Freleases%3Apull"
        );
    }
}
