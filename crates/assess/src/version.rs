//! Versions as Istio and Kubernetes write them: `1.31`, `1.30.3`, `v1.36.3`, `1.31-dev`,
//! `1.31.0-alpha.5`, `v1.36.3+k3s1`. Numbers compare numerically with missing ones as 0
//! (`1.31` = `1.31.0`); a pre-release (after the first `-`) sorts before the release, and
//! pre-releases compare by dot-separated identifiers as semver does; build metadata (after
//! `+`) is ignored.

use std::cmp::Ordering;
use std::fmt;

/// A parsed version. [`Version::parse`] keeps the text it read for messages.
#[derive(Debug, Clone)]
pub struct Version {
    text: String,
    numbers: Vec<u64>,
    pre: Vec<String>,
}

impl Version {
    /// Parses `text` (an optional leading `v`, one or more dot-separated numbers, an optional
    /// `-pre-release`, an optional `+build`); `None` for anything else (`unknown`, `latest`).
    pub fn parse(text: &str) -> Option<Version> {
        let trimmed = text.trim();
        let body = trimmed.strip_prefix('v').unwrap_or(trimmed);
        let body = body.split_once('+').map_or(body, |(b, _)| b);
        let (release, pre) = match body.split_once('-') {
            Some((r, p)) if !p.is_empty() => (r, p.split('.').map(str::to_string).collect()),
            Some(_) => return None,
            None => (body, Vec::new()),
        };
        let numbers = release
            .split('.')
            .map(|n| {
                (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                    .then(|| n.parse::<u64>().ok())
                    .flatten()
            })
            .collect::<Option<Vec<u64>>>()?;
        Some(Version {
            text: trimmed.to_string(),
            numbers,
            pre,
        })
    }

    /// The major version (`1` of `1.31.2`).
    pub fn major(&self) -> u64 {
        self.numbers.first().copied().unwrap_or(0)
    }

    /// The minor version (`31` of `1.31.2`; 0 when not written).
    pub fn minor(&self) -> u64 {
        self.numbers.get(1).copied().unwrap_or(0)
    }

    /// The text it was parsed from (trimmed).
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

fn compare_pre(a: &[String], b: &[String]) -> Ordering {
    match (a.is_empty(), b.is_empty()) {
        (true, true) => return Ordering::Equal,
        (true, false) => return Ordering::Greater,
        (false, true) => return Ordering::Less,
        (false, false) => {}
    }
    for (x, y) in a.iter().zip(b) {
        let order = match (x.parse::<u64>(), y.parse::<u64>()) {
            (Ok(x), Ok(y)) => x.cmp(&y),
            // Semver: numeric identifiers sort before alphanumeric ones.
            (Ok(_), Err(_)) => Ordering::Less,
            (Err(_), Ok(_)) => Ordering::Greater,
            (Err(_), Err(_)) => x.cmp(y),
        };
        if order != Ordering::Equal {
            return order;
        }
    }
    a.len().cmp(&b.len())
}

impl Ord for Version {
    fn cmp(&self, other: &Version) -> Ordering {
        let len = self.numbers.len().max(other.numbers.len());
        for i in 0..len {
            let a = self.numbers.get(i).copied().unwrap_or(0);
            let b = other.numbers.get(i).copied().unwrap_or(0);
            if a != b {
                return a.cmp(&b);
            }
        }
        compare_pre(&self.pre, &other.pre)
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Version) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Version {
    fn eq(&self, other: &Version) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Version {}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> Version {
        Version::parse(text).unwrap_or_else(|| panic!("{text} does not parse"))
    }

    #[test]
    fn parses_istio_and_kubernetes_versions() {
        for (text, major, minor) in [
            ("1.31", 1, 31),
            ("1.30.3", 1, 30),
            ("v1.36.3", 1, 36),
            ("v1.36.3+k3s1", 1, 36),
            ("1.31-dev", 1, 31),
            ("1.31.0-alpha.5", 1, 31),
            ("2", 2, 0),
        ] {
            let parsed = v(text);
            assert_eq!((parsed.major(), parsed.minor()), (major, minor), "{text}");
            assert_eq!(parsed.to_string(), text);
        }
        for bad in ["", "unknown", "latest", "1.x", "1.31-", "1..2", "v", "-1"] {
            assert!(Version::parse(bad).is_none(), "{bad:?} parsed");
        }
    }

    #[test]
    fn orders_as_semver_with_missing_numbers_as_zero() {
        let ascending = [
            "1.0.0",
            "1.9",
            "1.30.0-alpha.2",
            "1.30.0-alpha.10",
            "1.30.0-beta",
            "1.30",
            "1.30.3",
            "1.31-dev",
            "1.31",
            "v1.31.1",
            "1.100",
        ];
        for pair in ascending.windows(2) {
            assert!(v(pair[0]) < v(pair[1]), "{} < {}", pair[0], pair[1]);
        }
        assert_eq!(v("1.31"), v("1.31.0"));
        assert_eq!(v("v1.36.3+k3s1"), v("1.36.3"));
        assert!(v("1.30.0-1") < v("1.30.0-a"));
    }
}
