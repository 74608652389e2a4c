//! Whether the catalog lets a version be installed (pure: the catalog, the version, the
//! cluster's Kubernetes version, the control planes already installed and today's date in;
//! [`Concern`]s out). Today's date is passed in, never read here, so the same inputs always
//! give the same answer; the CLI reads the clock.
//!
//! The rules, as Istio states them:
//! - a release past its end of life (status `end-of-life`, or its `end_of_life` date passed) is
//!   not to be installed ([`Concern::EndOfLife`]);
//! - a release supports the Kubernetes minors of its catalog range ([`Concern::KubernetesTooOld`],
//!   [`Concern::KubernetesTooNew`]);
//! - an in-place upgrade (the same revision) moves at most one minor; a canary (a new revision
//!   beside the installed ones) at most two; replacing a revision with an older minor is a
//!   downgrade ([`upgrade`]).
//!
//! A version the catalog does not know (an unstamped build, `--manifests` of a newer release)
//! gets [`Concern::NotInCatalog`] and no end-of-life or Kubernetes judgement.

use std::fmt;

use crate::catalog::{Catalog, Minor, Status, is_module_version, parse_minor};

/// A calendar day (proleptic Gregorian), as the catalog's dates are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Date {
    pub year: i64,
    pub month: u32,
    pub day: u32,
}

impl Date {
    /// `YYYY-MM-DD`.
    pub fn parse(text: &str) -> Option<Date> {
        let mut parts = text.split('-');
        let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() || y.len() != 4 || m.len() != 2 || d.len() != 2 {
            return None;
        }
        let date = Date {
            year: y.parse().ok()?,
            month: m.parse().ok()?,
            day: d.parse().ok()?,
        };
        let valid = (1..=12).contains(&date.month)
            && date.day >= 1
            && date.day <= days_in_month(date.year, date.month);
        valid.then_some(date)
    }

    /// The day `days` days after 1970-01-01 (what the CLI computes from the clock).
    pub fn from_unix_days(days: i64) -> Date {
        // Howard Hinnant's civil_from_days: eras of 400 years (146097 days) from 0000-03-01.
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let year = yoe + era * 400 + i64::from(month <= 2);
        Date { year, month, day }
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The first day a minor is past its end of life: the day after `YYYY-MM-DD`, or the first day
/// of the next month for `YYYY-MM` (only the month announced: supported through that month).
fn first_day_past(end_of_life: &str) -> Option<Date> {
    let parts: Vec<&str> = end_of_life.split('-').collect();
    let (year, month, day) = match parts.as_slice() {
        [y, m] => {
            let (y, m): (i64, u32) = (y.parse().ok()?, m.parse().ok()?);
            (y, m, days_in_month(y, m))
        }
        [_, _, _] => {
            let d = Date::parse(end_of_life)?;
            (d.year, d.month, d.day)
        }
        _ => return None,
    };
    Some(if day < days_in_month(year, month) {
        Date {
            year,
            month,
            day: day + 1,
        }
    } else if month < 12 {
        Date {
            year,
            month: month + 1,
            day: 1,
        }
    } else {
        Date {
            year: year + 1,
            month: 1,
            day: 1,
        }
    })
}

/// `MAJOR.MINOR` of an Istio version as install packages and labels write it (`1.30.3`,
/// `1.31`, `1.31-dev`, `1.31.0-beta.1`, `v1.30.3`); none for `unknown` and the like.
pub fn minor_of(version: &str) -> Option<(u64, u64)> {
    let v = version.trim();
    let v = v.strip_prefix('v').unwrap_or(v);
    let core = v.split(['-', '+']).next().unwrap_or(v);
    let mut parts = core.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

impl Catalog {
    /// The catalog's minor of `version`: a release or minor number by its `MAJOR.MINOR`; an
    /// `istio.io/istio` module version through the release its catalog entry says it is a
    /// snapshot of (`istio`). None when the catalog has no such minor.
    pub fn minor_for(&self, version: &str) -> Option<&Minor> {
        let version = version.trim();
        let wanted = if is_module_version(version)
            && let Some(module) = self.modules.iter().find(|m| m.version == version)
        {
            minor_of(&module.istio)?
        } else {
            minor_of(version)?
        };
        self.releases
            .iter()
            .find(|m| parse_minor(&m.minor) == Some(wanted))
    }
}

/// Something the catalog says about an install. [`Concern::refuses`] says which ones stop an
/// install (unless forced); the others are told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Concern {
    /// The catalog has no minor for the version: no end-of-life or Kubernetes judgement.
    NotInCatalog { version: String },
    /// The release is past its end of life (`since`: the catalog's date, when it has one).
    EndOfLife {
        version: String,
        minor: String,
        since: Option<String>,
    },
    /// The cluster's Kubernetes is older than the release supports.
    KubernetesTooOld {
        version: String,
        kubernetes: String,
        min: String,
    },
    /// The cluster's Kubernetes is newer than the release is known to support.
    KubernetesTooNew {
        version: String,
        kubernetes: String,
        max: String,
    },
    /// The install replaces `revision`'s control plane of Istio `installed` with `version`,
    /// more than one minor newer.
    InPlaceSkip {
        revision: String,
        installed: String,
        version: String,
    },
    /// The install adds revision `revision` of Istio `version` beside `installed_revision` of
    /// Istio `installed`, more than two minors newer.
    CanarySkip {
        revision: String,
        installed_revision: String,
        installed: String,
        version: String,
    },
    /// The install replaces `revision`'s control plane of Istio `installed` with an older
    /// minor, `version`.
    Downgrade {
        revision: String,
        installed: String,
        version: String,
    },
}

/// The newest minor an in-place upgrade may move to, and a canary.
pub const IN_PLACE_MINORS: u64 = 1;
pub const CANARY_MINORS: u64 = 2;

impl Concern {
    /// Whether it stops an install unless forced (end of life, and the upgrade rules). The
    /// Kubernetes range is a warning for install, as istioctl's installer only warns.
    pub fn refuses(&self) -> bool {
        matches!(
            self,
            Concern::EndOfLife { .. }
                | Concern::InPlaceSkip { .. }
                | Concern::CanarySkip { .. }
                | Concern::Downgrade { .. }
        )
    }

    /// A short stable name (test cases, status reasons).
    pub fn kind(&self) -> &'static str {
        match self {
            Concern::NotInCatalog { .. } => "not-in-catalog",
            Concern::EndOfLife { .. } => "end-of-life",
            Concern::KubernetesTooOld { .. } => "kubernetes-too-old",
            Concern::KubernetesTooNew { .. } => "kubernetes-too-new",
            Concern::InPlaceSkip { .. } => "in-place-skip",
            Concern::CanarySkip { .. } => "canary-skip",
            Concern::Downgrade { .. } => "downgrade",
        }
    }

    /// One line saying what to do about it.
    pub fn fix(&self) -> String {
        match self {
            Concern::NotInCatalog { .. } => "nothing to do; to have it checked, add its minor to a catalog named by BOSUN_CATALOG (docs/versions.md)".to_string(),
            Concern::EndOfLife { .. } => "install a supported release (`bosun version --list` shows them), or pass --force to install it anyway".to_string(),
            Concern::KubernetesTooOld { min, .. } => format!(
                "upgrade the cluster to Kubernetes {min} or newer, or install an Istio release that supports it (`bosun version --list`)"
            ),
            Concern::KubernetesTooNew { .. } => "install an Istio release that supports this Kubernetes version (`bosun version --list`), or proceed knowing it is untested".to_string(),
            Concern::InPlaceSkip { revision, installed, version } => {
                let step = minor_of(installed)
                    .map(|(major, minor)| format!("upgrade to {major}.{} first", minor + IN_PLACE_MINORS))
                    .unwrap_or_else(|| "upgrade one minor at a time".to_string());
                format!(
                    "use a canary: install Istio {version} as a new revision (--revision R) beside {revision}, or {step}; --force replaces it anyway"
                )
            }
            Concern::CanarySkip { installed_revision, installed, .. } => {
                let step = minor_of(installed)
                    .map(|(major, minor)| format!("{major}.{}", minor + CANARY_MINORS))
                    .unwrap_or_else(|| "a closer release".to_string());
                format!(
                    "upgrade {installed_revision} to {step} first (a canary may move two minors), or pass --force"
                )
            }
            Concern::Downgrade { .. } => "install the older Istio as a new revision (--revision R), or pass --force to replace it anyway".to_string(),
        }
    }
}

impl fmt::Display for Concern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Concern::NotInCatalog { version } => write!(
                f,
                "Istio {version} is not in bosun's catalog: its end of life and supported Kubernetes versions are not checked"
            ),
            Concern::EndOfLife {
                version,
                minor,
                since,
            } => match since {
                Some(date) => write!(
                    f,
                    "Istio {version} is end of life: support for {minor} ended {date}"
                ),
                None => write!(
                    f,
                    "Istio {version} is end of life: {minor} is no longer supported"
                ),
            },
            // istioctl's IST0142 wording where it checks (the minimum).
            Concern::KubernetesTooOld {
                kubernetes, min, ..
            } => write!(
                f,
                "The Kubernetes Version {kubernetes:?} is lower than the minimum version: {min}"
            ),
            Concern::KubernetesTooNew {
                version,
                kubernetes,
                max,
            } => write!(
                f,
                "The Kubernetes Version {kubernetes:?} is newer than the newest Istio {version} supports: {max}"
            ),
            Concern::InPlaceSkip {
                revision,
                installed,
                version,
            } => write!(
                f,
                "The install replaces revision {revision} of Istio {installed} in place with Istio {version}: an in-place upgrade may move one minor version only"
            ),
            Concern::CanarySkip {
                revision,
                installed_revision,
                installed,
                version,
            } => write!(
                f,
                "The install adds revision {revision} of Istio {version} beside revision {installed_revision} of Istio {installed}: a canary upgrade may move two minor versions only"
            ),
            Concern::Downgrade {
                revision,
                installed,
                version,
            } => write!(
                f,
                "The install replaces revision {revision} of Istio {installed} in place with an older minor, Istio {version} (a downgrade)"
            ),
        }
    }
}

/// What the catalog says about installing Istio `version` on Kubernetes `kubernetes` (the API
/// server's version as it gives it, `v1.36.3`; none when unknown) on day `today`: end of life
/// and the Kubernetes range of its minor, or [`Concern::NotInCatalog`].
pub fn lifecycle(
    catalog: &Catalog,
    version: &str,
    kubernetes: Option<&str>,
    today: Date,
) -> Vec<Concern> {
    let Some(minor) = catalog.minor_for(version) else {
        return vec![Concern::NotInCatalog {
            version: version.to_string(),
        }];
    };
    let mut out = Vec::new();
    let past = minor
        .end_of_life
        .as_deref()
        .and_then(first_day_past)
        .is_some_and(|first| today >= first);
    if minor.status == Status::EndOfLife || past {
        out.push(Concern::EndOfLife {
            version: version.to_string(),
            minor: minor.minor.clone(),
            since: minor.end_of_life.clone(),
        });
    }
    if let Some(kubernetes) = kubernetes
        && let Some(cluster) = minor_of(kubernetes)
    {
        if let Some(min) = parse_minor(&minor.kubernetes.min)
            && cluster < min
        {
            out.push(Concern::KubernetesTooOld {
                version: version.to_string(),
                kubernetes: kubernetes.to_string(),
                min: minor.kubernetes.min.clone(),
            });
        }
        if let Some(max_text) = &minor.kubernetes.max
            && let Some(max) = parse_minor(max_text)
            && cluster > max
        {
            out.push(Concern::KubernetesTooNew {
                version: version.to_string(),
                kubernetes: kubernetes.to_string(),
                max: max_text.clone(),
            });
        }
    }
    out
}

/// Istio's upgrade rules for installing `version` as revision `revision` while revision
/// `installed_revision` runs Istio `installed`: in place (the same revision) at most one minor
/// up and never to an older minor; beside it (a canary) at most two minors up. Patch releases
/// within a minor move freely; an older revision beside a newer one is not a downgrade (it is
/// how a canary is rolled back). None when either version has no `MAJOR.MINOR`.
pub fn upgrade(
    installed_revision: &str,
    installed: &str,
    revision: &str,
    version: &str,
) -> Option<Concern> {
    let (from, to) = (minor_of(installed)?, minor_of(version)?);
    let in_place = installed_revision == revision;
    // Across a major version there is no rule to apply but "not in place".
    let distance = if from.0 == to.0 {
        to.1 as i64 - from.1 as i64
    } else if to.0 > from.0 {
        i64::MAX
    } else {
        i64::MIN
    };
    if in_place && distance < 0 {
        return Some(Concern::Downgrade {
            revision: revision.to_string(),
            installed: installed.to_string(),
            version: version.to_string(),
        });
    }
    if in_place && distance > IN_PLACE_MINORS as i64 {
        return Some(Concern::InPlaceSkip {
            revision: revision.to_string(),
            installed: installed.to_string(),
            version: version.to_string(),
        });
    }
    if !in_place && distance > CANARY_MINORS as i64 {
        return Some(Concern::CanarySkip {
            revision: revision.to_string(),
            installed_revision: installed_revision.to_string(),
            installed: installed.to_string(),
            version: version.to_string(),
        });
    }
    None
}

/// Everything of the above for one install: [`lifecycle`], then [`upgrade`] against each
/// installed `(revision, version)`.
pub fn judge(
    catalog: &Catalog,
    version: &str,
    revision: &str,
    kubernetes: Option<&str>,
    installed: &[(String, String)],
    today: Date,
) -> Vec<Concern> {
    let mut out = lifecycle(catalog, version, kubernetes, today);
    out.extend(
        installed
            .iter()
            .filter_map(|(r, v)| upgrade(r, v, revision, version)),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_from_unix_days() {
        for (days, text) in [
            (0, "1970-01-01"),
            (-1, "1969-12-31"),
            (59, "1970-03-01"),
            (11_016, "2000-02-29"),
            (20_793, "2026-12-06"),
        ] {
            assert_eq!(Date::from_unix_days(days).to_string(), text, "{days}");
            assert_eq!(Date::parse(text), Some(Date::from_unix_days(days)));
        }
        for bad in ["2026-02-30", "2026-13-01", "2026-1-01", "2026-01", "x"] {
            assert_eq!(Date::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn end_of_life_begins_the_day_after() {
        for (eol, first) in [
            ("2026-10-12", "2026-10-13"),
            ("2027-02", "2027-03-01"),
            ("2026-12", "2027-01-01"),
            ("2028-02", "2028-03-01"),
            ("2026-12-31", "2027-01-01"),
        ] {
            assert_eq!(first_day_past(eol), Date::parse(first), "{eol}");
        }
    }

    #[test]
    fn fixes_name_the_step_to_take() {
        let skip = upgrade("default", "1.28.3", "default", "1.30.1").unwrap();
        assert!(
            skip.fix().contains("upgrade to 1.29 first"),
            "{}",
            skip.fix()
        );
        assert!(skip.fix().contains("--revision R"), "{}", skip.fix());
        assert!(skip.to_string().contains("1.28.3") && skip.to_string().contains("1.30.1"));
        let canary = upgrade("old", "1.27.0", "new", "1.30.1").unwrap();
        assert!(
            canary.fix().contains("upgrade old to 1.29 first"),
            "{}",
            canary.fix()
        );
    }
}
