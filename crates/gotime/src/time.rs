//! A model of Go's `time.Time` as templates see it (an object of type `time.Time` with Go's
//! methods): Go layouts (`2006-01-02 15:04:05`) for formatting and parsing, `time.Duration`
//! strings, and time zones read from the system's zoneinfo files as Go's `time.LoadLocation`
//! does (`Local` is `/etc/localtime` or `$TZ`).

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::OnceLock;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use gotemplate::fmt::quote;
use gotemplate::{ArgType, Func, IntKind, MarshalError, Object, Value};

const STR: ArgType = ArgType::String;
const INT: ArgType = ArgType::Int(IntKind::Int);

const NANOS: i64 = 1_000_000_000;
/// Seconds from 0001-01-01 (Go's zero time) to the Unix epoch.
const ZERO_UNIX: i64 = -62_135_596_800;

/// One zone of a location: abbreviation and offset east of UTC in seconds.
#[derive(Clone, Debug)]
pub struct Zone {
    name: String,
    pub offset: i64,
}

/// Go's `*time.Location`.
#[derive(Debug)]
pub struct Location {
    pub name: String,
    zones: Vec<Zone>,
    /// (transition time in Unix seconds, index into `zones`), ascending.
    transitions: Vec<(i64, usize)>,
}

impl Location {
    pub fn fixed(name: &str, offset: i64) -> Location {
        Location {
            name: name.to_string(),
            zones: vec![Zone {
                name: name.to_string(),
                offset,
            }],
            transitions: Vec::new(),
        }
    }

    fn utc() -> Location {
        Location::fixed("UTC", 0)
    }

    /// The zone in effect at `unix`.
    pub fn lookup(&self, unix: i64) -> &Zone {
        if self.transitions.is_empty() || unix < self.transitions[0].0 {
            return &self.zones[0];
        }
        let i = self.transitions.partition_point(|&(t, _)| t <= unix);
        &self.zones[self.transitions[i - 1].1]
    }

    /// Reads a TZif file (version 2+ data where present).
    fn from_tzif(name: &str, data: &[u8]) -> Option<Location> {
        let header = |d: &[u8]| -> Option<[usize; 6]> {
            if d.len() < 44 || &d[..4] != b"TZif" {
                return None;
            }
            let mut c = [0usize; 6];
            for (i, v) in c.iter_mut().enumerate() {
                let at = 20 + 4 * i;
                *v = u32::from_be_bytes(d[at..at + 4].try_into().ok()?) as usize;
            }
            Some(c)
        };
        let [isut, isstd, leap, timecnt, typecnt, charcnt] = header(data)?;
        let mut body = &data[44..];
        let mut width = 4;
        let counts = if data[4] >= b'2' {
            let v1 = timecnt * 5 + typecnt * 6 + charcnt + leap * 8 + isstd + isut;
            let rest = body.get(v1..)?;
            let c = header(rest)?;
            body = &rest[44..];
            width = 8;
            c
        } else {
            [isut, isstd, leap, timecnt, typecnt, charcnt]
        };
        let [_, _, _, timecnt, typecnt, charcnt] = counts;
        let times = body.get(..timecnt * width)?;
        let idx = body.get(timecnt * width..timecnt * (width + 1))?;
        let types = body.get(timecnt * (width + 1)..timecnt * (width + 1) + typecnt * 6)?;
        let chars_at = timecnt * (width + 1) + typecnt * 6;
        let chars = body.get(chars_at..chars_at + charcnt)?;
        let mut zones = Vec::new();
        for t in types.chunks(6) {
            let offset = i32::from_be_bytes(t[..4].try_into().ok()?) as i64;
            let at = t[5] as usize;
            let end = chars[at..].iter().position(|&b| b == 0)? + at;
            zones.push(Zone {
                name: String::from_utf8_lossy(&chars[at..end]).into_owned(),
                offset,
            });
        }
        if zones.is_empty() {
            return None;
        }
        let mut transitions = Vec::new();
        for (i, t) in times.chunks(width).enumerate() {
            let when = if width == 8 {
                i64::from_be_bytes(t.try_into().ok()?)
            } else {
                i32::from_be_bytes(t.try_into().ok()?) as i64
            };
            let z = idx[i] as usize;
            if z >= zones.len() {
                return None;
            }
            transitions.push((when, z));
        }
        // Before the first transition Go uses the first standard-time zone.
        let first = if transitions.is_empty() {
            0
        } else {
            let dst = |i: usize| types.get(i * 6 + 4).copied().unwrap_or(0) != 0;
            (0..zones.len()).find(|&i| !dst(i)).unwrap_or(0)
        };
        if first != 0 {
            zones.swap(0, first);
            for t in &mut transitions {
                if t.1 == 0 {
                    t.1 = first;
                } else if t.1 == first {
                    t.1 = 0;
                }
            }
        }
        Some(Location {
            name: name.to_string(),
            zones,
            transitions,
        })
    }
}

const ZONE_DIRS: [&str; 4] = [
    "/usr/share/zoneinfo/",
    "/usr/share/lib/zoneinfo/",
    "/usr/lib/locale/TZ/",
    "/etc/zoneinfo/",
];

/// Go's `time.LoadLocation`.
pub fn load_location(name: &str) -> Option<Rc<Location>> {
    match name {
        "" | "UTC" => return Some(utc()),
        "Local" => return Some(local()),
        _ => {}
    }
    if name.starts_with('/') || name.contains("..") || name.contains('\\') {
        return None;
    }
    let mut dirs: Vec<String> = Vec::new();
    if let Ok(z) = std::env::var("ZONEINFO")
        && !z.is_empty()
    {
        dirs.push(format!("{z}/"));
    }
    dirs.extend(ZONE_DIRS.iter().map(|d| d.to_string()));
    for dir in dirs {
        if let Ok(data) = std::fs::read(format!("{dir}{name}"))
            && let Some(loc) = Location::from_tzif(name, &data)
        {
            return Some(Rc::new(loc));
        }
    }
    None
}

thread_local! {
    static UTC: Rc<Location> = Rc::new(Location::utc());
    static LOCAL: Rc<Location> = Rc::new(read_local());
    /// Every location a time value has used, so that a value can name its location by index.
    static LOCATIONS: RefCell<Vec<Rc<Location>>> = const { RefCell::new(Vec::new()) };
}

pub fn utc() -> Rc<Location> {
    UTC.with(Rc::clone)
}

pub fn local() -> Rc<Location> {
    LOCAL.with(Rc::clone)
}

/// Go's `initLocal`: `$TZ` (a zone name, `:name`, or empty for UTC), else `/etc/localtime`.
fn read_local() -> Location {
    let renamed = |loc: Option<Rc<Location>>| {
        loc.map(|l| Location {
            name: "Local".to_string(),
            zones: l.zones.clone(),
            transitions: l.transitions.clone(),
        })
    };
    match std::env::var("TZ") {
        Ok(tz) => {
            let tz = tz.strip_prefix(':').unwrap_or(&tz).to_string();
            if tz.is_empty() || tz == "UTC" {
                return Location::fixed("UTC", 0).with_name("Local");
            }
            let loaded = if tz.starts_with('/') {
                std::fs::read(&tz)
                    .ok()
                    .and_then(|d| Location::from_tzif(&tz, &d))
                    .map(Rc::new)
            } else {
                load_location(&tz)
            };
            renamed(loaded).unwrap_or_else(|| Location::fixed("UTC", 0).with_name("Local"))
        }
        Err(_) => std::fs::read("/etc/localtime")
            .ok()
            .and_then(|d| Location::from_tzif("Local", &d))
            .unwrap_or_else(|| Location::fixed("UTC", 0).with_name("Local")),
    }
}

impl Location {
    fn with_name(mut self, name: &str) -> Location {
        self.name = name.to_string();
        self
    }
}

fn location_id(loc: &Rc<Location>) -> usize {
    LOCATIONS.with(|all| {
        let mut all = all.borrow_mut();
        if let Some(i) = all.iter().position(|l| Rc::ptr_eq(l, loc)) {
            return i;
        }
        all.push(loc.clone());
        all.len() - 1
    })
}

fn location_by_id(id: usize) -> Rc<Location> {
    LOCATIONS.with(|all| all.borrow().get(id).cloned().unwrap_or_else(utc))
}

/// Go's `time.Time`: an instant (Unix seconds and nanoseconds) seen in a location, with the
/// monotonic clock reading `now` carries.
#[derive(Clone)]
pub struct Time {
    pub secs: i64,
    pub nanos: i64,
    pub loc: Rc<Location>,
    mono: Option<i64>,
}

/// The hidden field through which a time value gives itself back to these functions (no
/// template can name it: it is not an identifier).
const SELF_FIELD: &str = "\0time";

static START: OnceLock<Instant> = OnceLock::new();

impl Time {
    pub fn zero() -> Time {
        Time {
            secs: ZERO_UNIX,
            nanos: 0,
            loc: utc(),
            mono: None,
        }
    }

    pub fn now() -> Time {
        let start = *START.get_or_init(Instant::now);
        let d = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        Time {
            secs: d.as_secs() as i64,
            nanos: d.subsec_nanos() as i64,
            loc: local(),
            mono: Some(start.elapsed().as_nanos() as i64 + 1),
        }
    }

    pub fn unix(secs: i64) -> Time {
        Time {
            secs,
            nanos: 0,
            loc: local(),
            mono: None,
        }
    }

    pub fn in_loc(&self, loc: Rc<Location>) -> Time {
        Time {
            loc,
            mono: self.mono,
            ..self.clone()
        }
    }

    fn zone(&self) -> &Zone {
        self.loc.lookup(self.secs)
    }

    /// `t.Add(d)`.
    pub fn add(&self, d: i64) -> Time {
        let total = self.nanos as i128 + d as i128;
        let secs = self.secs as i128 + total.div_euclid(NANOS as i128);
        Time {
            secs: secs as i64,
            nanos: total.rem_euclid(NANOS as i128) as i64,
            loc: self.loc.clone(),
            mono: self.mono.map(|m| m.wrapping_add(d)),
        }
    }

    /// Nanoseconds from `other` to `self` (`self.Sub(other)`), saturating as Go does.
    pub fn sub(&self, other: &Time) -> i64 {
        if let (Some(a), Some(b)) = (self.mono, other.mono) {
            return a.saturating_sub(b);
        }
        let d = (self.secs as i128 - other.secs as i128) * NANOS as i128
            + (self.nanos - other.nanos) as i128;
        d.clamp(i64::MIN as i128, i64::MAX as i128) as i64
    }

    pub fn civil(&self) -> Civil {
        Civil::from_unix(self.secs + self.zone().offset)
    }

    pub fn to_value(&self) -> Value {
        Value::Object(Rc::new(self.clone()))
    }

    pub fn from_value(v: &Value) -> Option<Time> {
        let Value::Object(o) = v else { return None };
        if o.type_name() != "time.Time" {
            return None;
        }
        let f = o.field(SELF_FIELD)?;
        let text = f.as_str()?;
        let mut parts = text.split(' ');
        let secs = parts.next()?.parse().ok()?;
        let nanos = parts.next()?.parse().ok()?;
        let loc = location_by_id(parts.next()?.parse().ok()?);
        let mono = parts.next().and_then(|m| m.parse().ok());
        Some(Time {
            secs,
            nanos,
            loc,
            mono,
        })
    }

    /// `t.Format(time.RFC3339Nano)`.
    pub fn rfc3339_nano(&self) -> String {
        format(self, "2006-01-02T15:04:05.999999999Z07:00")
    }

    /// `t.MarshalJSON()`: RFC 3339 with nanoseconds, quoted, refused (as Go's
    /// `appendStrictRFC3339` refuses it) where that text would not be RFC 3339.
    pub fn marshal_json(&self) -> Result<String, MarshalJsonError> {
        if !(0..=9999).contains(&self.civil().year) {
            return Err(MarshalJsonError::Year);
        }
        // The zone is written in whole minutes; its hours must fit RFC 3339's two digits.
        let offset = self.zone().offset;
        if offset != 0 && (offset / 60).abs() / 60 >= 24 {
            return Err(MarshalJsonError::ZoneHour);
        }
        Ok(format!("\"{}\"", self.rfc3339_nano()))
    }

    /// `t.GoString()` (what `%#v` prints): a `time.Date` call, its location `time.UTC`,
    /// `time.Local` or `time.Location("NAME")`.
    fn go_string(&self) -> String {
        let c = self.civil();
        let loc = if Rc::ptr_eq(&self.loc, &utc()) {
            "time.UTC".to_string()
        } else if Rc::ptr_eq(&self.loc, &local()) {
            "time.Local".to_string()
        } else {
            format!("time.Location({})", quote(&self.loc.name))
        };
        format!(
            "time.Date({}, time.{}, {}, {}, {}, {}, {}, {loc})",
            c.year,
            MONTHS[c.month as usize - 1],
            c.day,
            c.hour,
            c.min,
            c.sec,
            self.nanos
        )
    }

    /// `t.String()`.
    fn string(&self) -> String {
        let mut out = format(self, "2006-01-02 15:04:05.999999999 -0700 MST");
        if let Some(m) = self.mono {
            let sign = if m < 0 { '-' } else { '+' };
            let m = m.unsigned_abs();
            out.push_str(&format!(
                " m={sign}{}.{:09}",
                m / NANOS as u64,
                m % NANOS as u64
            ));
        }
        out
    }
}

/// A broken-down date and time of day.
pub struct Civil {
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    min: i64,
    sec: i64,
    /// 0 = Sunday.
    weekday: i64,
    /// 1-based day of the year.
    yday: i64,
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

fn days_in(month: i64, year: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to the given proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

impl Civil {
    fn from_unix(t: i64) -> Civil {
        let days = t.div_euclid(86_400);
        let rem = t.rem_euclid(86_400);
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = yoe + era * 400 + if month <= 2 { 1 } else { 0 };
        let yday = days - days_from_civil(year, 1, 1) + 1;
        Civil {
            year,
            month,
            day,
            hour: rem / 3600,
            min: rem % 3600 / 60,
            sec: rem % 60,
            weekday: (days + 4).rem_euclid(7),
            yday,
        }
    }
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// A layout element (Go's `std*` constants).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Std {
    LongMonth,
    Month,
    NumMonth,
    ZeroMonth,
    LongWeekDay,
    WeekDay,
    Day,
    UnderDay,
    ZeroDay,
    UnderYearDay,
    ZeroYearDay,
    Hour,
    Hour12,
    ZeroHour12,
    Minute,
    ZeroMinute,
    Second,
    ZeroSecond,
    LongYear,
    Year,
    PM,
    Pm,
    Tz,
    /// `Z07…` (`iso`: Z for UTC), with `colon`, `mins`, `secs` parts.
    Offset {
        iso: bool,
        colon: bool,
        mins: bool,
        secs: bool,
    },
    /// `.000` (`zeros`) or `.999`, with its digit count and separator.
    Frac {
        zeros: bool,
        digits: usize,
        sep: u8,
    },
}

fn starts_lower(s: &[u8]) -> bool {
    s.first().is_some_and(|c| c.is_ascii_lowercase())
}

/// Go's `nextStdChunk`: (literal prefix, element, element text, rest).
fn next_chunk(layout: &str) -> (&str, Option<Std>, &str, &str) {
    let b = layout.as_bytes();
    let at = |i: usize, s: &str| b.len() >= i + s.len() && &b[i..i + s.len()] == s.as_bytes();
    for i in 0..b.len() {
        let found: Option<(Std, usize)> = match b[i] {
            b'J' if at(i, "Jan") => {
                if at(i, "January") {
                    Some((Std::LongMonth, 7))
                } else if !starts_lower(&b[i + 3..]) {
                    Some((Std::Month, 3))
                } else {
                    None
                }
            }
            b'M' if at(i, "Mon") => {
                if at(i, "Monday") {
                    Some((Std::LongWeekDay, 6))
                } else if !starts_lower(&b[i + 3..]) {
                    Some((Std::WeekDay, 3))
                } else {
                    None
                }
            }
            b'M' if at(i, "MST") => Some((Std::Tz, 3)),
            b'0' if b.len() >= i + 2 && (b'1'..=b'6').contains(&b[i + 1]) => Some((
                match b[i + 1] {
                    b'1' => Std::ZeroMonth,
                    b'2' => Std::ZeroDay,
                    b'3' => Std::ZeroHour12,
                    b'4' => Std::ZeroMinute,
                    b'5' => Std::ZeroSecond,
                    _ => Std::Year,
                },
                2,
            )),
            b'0' if at(i, "002") => Some((Std::ZeroYearDay, 3)),
            b'1' if at(i, "15") => Some((Std::Hour, 2)),
            b'1' => Some((Std::NumMonth, 1)),
            b'2' if at(i, "2006") => Some((Std::LongYear, 4)),
            b'2' => Some((Std::Day, 1)),
            b'_' if at(i, "_2") => {
                if at(i, "_2006") {
                    // A literal `_` followed by the long year.
                    return (
                        &layout[..i + 1],
                        Some(Std::LongYear),
                        "2006",
                        &layout[i + 5..],
                    );
                }
                Some((Std::UnderDay, 2))
            }
            b'_' if at(i, "__2") => Some((Std::UnderYearDay, 3)),
            b'3' => Some((Std::Hour12, 1)),
            b'4' => Some((Std::Minute, 1)),
            b'5' => Some((Std::Second, 1)),
            b'P' if at(i, "PM") => Some((Std::PM, 2)),
            b'p' if at(i, "pm") => Some((Std::Pm, 2)),
            b'-' | b'Z' => {
                let iso = b[i] == b'Z';
                let forms: [(&str, bool, bool, bool); 5] = [
                    ("070000", false, true, true),
                    ("07:00:00", true, true, true),
                    ("0700", false, true, false),
                    ("07:00", true, true, false),
                    ("07", false, false, false),
                ];
                forms.iter().find(|f| at(i + 1, f.0)).map(|f| {
                    (
                        Std::Offset {
                            iso,
                            colon: f.1,
                            mins: f.2,
                            secs: f.3,
                        },
                        f.0.len() + 1,
                    )
                })
            }
            b'.' | b',' if b.len() > i + 1 && (b[i + 1] == b'0' || b[i + 1] == b'9') => {
                let ch = b[i + 1];
                let mut j = i + 1;
                while j < b.len() && b[j] == ch {
                    j += 1;
                }
                if j < b.len() && b[j].is_ascii_digit() {
                    None
                } else {
                    Some((
                        Std::Frac {
                            zeros: ch == b'0',
                            digits: j - i - 1,
                            sep: b[i],
                        },
                        j - i,
                    ))
                }
            }
            _ => None,
        };
        if let Some((std, len)) = found {
            return (
                &layout[..i],
                Some(std),
                &layout[i..i + len],
                &layout[i + len..],
            );
        }
    }
    (layout, None, "", "")
}

fn pad(out: &mut String, v: i64, width: usize) {
    if v < 0 {
        out.push('-');
        out.push_str(&format!("{:0width$}", -v));
    } else {
        out.push_str(&format!("{v:0width$}"));
    }
}

/// `t.Format(layout)`.
pub fn format(t: &Time, layout: &str) -> String {
    let zone = t.zone().clone();
    let c = t.civil();
    let mut out = String::new();
    let mut rest = layout;
    loop {
        let (prefix, std, _, suffix) = next_chunk(rest);
        out.push_str(prefix);
        let Some(std) = std else { break };
        rest = suffix;
        match std {
            Std::Year => pad(&mut out, c.year.rem_euclid(100), 2),
            Std::LongYear => pad(&mut out, c.year, 4),
            Std::Month => out.push_str(&MONTHS[c.month as usize - 1][..3]),
            Std::LongMonth => out.push_str(MONTHS[c.month as usize - 1]),
            Std::NumMonth => pad(&mut out, c.month, 0),
            Std::ZeroMonth => pad(&mut out, c.month, 2),
            Std::WeekDay => out.push_str(&DAYS[c.weekday as usize][..3]),
            Std::LongWeekDay => out.push_str(DAYS[c.weekday as usize]),
            Std::Day => pad(&mut out, c.day, 0),
            Std::UnderDay => {
                if c.day < 10 {
                    out.push(' ');
                }
                pad(&mut out, c.day, 0);
            }
            Std::ZeroDay => pad(&mut out, c.day, 2),
            Std::UnderYearDay => out.push_str(&format!("{:>3}", c.yday)),
            Std::ZeroYearDay => pad(&mut out, c.yday, 3),
            Std::Hour => pad(&mut out, c.hour, 2),
            Std::Hour12 => pad(&mut out, if c.hour % 12 == 0 { 12 } else { c.hour % 12 }, 0),
            Std::ZeroHour12 => pad(&mut out, if c.hour % 12 == 0 { 12 } else { c.hour % 12 }, 2),
            Std::Minute => pad(&mut out, c.min, 0),
            Std::ZeroMinute => pad(&mut out, c.min, 2),
            Std::Second => pad(&mut out, c.sec, 0),
            Std::ZeroSecond => pad(&mut out, c.sec, 2),
            Std::PM => out.push_str(if c.hour >= 12 { "PM" } else { "AM" }),
            Std::Pm => out.push_str(if c.hour >= 12 { "pm" } else { "am" }),
            Std::Offset {
                iso,
                colon,
                mins,
                secs,
            } => {
                if zone.offset == 0 && iso {
                    out.push('Z');
                    continue;
                }
                let mut z = zone.offset / 60;
                let mut abs = zone.offset;
                if z < 0 {
                    out.push('-');
                    z = -z;
                    abs = -abs;
                } else {
                    out.push('+');
                }
                pad(&mut out, z / 60, 2);
                if colon {
                    out.push(':');
                }
                if mins {
                    pad(&mut out, z % 60, 2);
                }
                if secs {
                    if colon {
                        out.push(':');
                    }
                    pad(&mut out, abs % 60, 2);
                }
            }
            Std::Tz => {
                if !zone.name.is_empty() {
                    out.push_str(&zone.name);
                } else {
                    let mut z = zone.offset / 60;
                    if z < 0 {
                        out.push('-');
                        z = -z;
                    } else {
                        out.push('+');
                    }
                    pad(&mut out, z / 60, 2);
                    pad(&mut out, z % 60, 2);
                }
            }
            Std::Frac { zeros, digits, sep } => {
                let frac = format!("{:09}", t.nanos);
                let mut d = &frac[..digits.min(9)];
                if !zeros {
                    d = d.trim_end_matches('0');
                    if d.is_empty() {
                        continue;
                    }
                }
                out.push(sep as char);
                out.push_str(d);
            }
        }
    }
    out
}

/// Go's `time.ParseError`: the layout and value parsed, the element of each where parsing
/// stopped, and a message when the failure is not a mismatch (`: day out of range`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub layout: String,
    pub value: String,
    pub layout_elem: String,
    pub value_elem: String,
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.message.is_empty() {
            write!(
                f,
                "parsing time {} as {}: cannot parse {} as {}",
                quote(&self.value),
                quote(&self.layout),
                quote(&self.value_elem),
                quote(&self.layout_elem)
            )
        } else {
            write!(f, "parsing time {}{}", quote(&self.value), self.message)
        }
    }
}

impl std::error::Error for ParseError {}

fn parse_error(
    layout: &str,
    value: &str,
    elem_layout: &str,
    elem_value: &str,
    msg: &str,
) -> ParseError {
    ParseError {
        layout: layout.into(),
        value: value.into(),
        layout_elem: elem_layout.into(),
        value_elem: elem_value.into(),
        message: msg.into(),
    }
}

/// Why `Time.MarshalJSON` refused a time: RFC 3339 cannot write it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum MarshalJsonError {
    #[error("Time.MarshalJSON: year outside of range [0,9999]")]
    Year,
    #[error("Time.MarshalJSON: timezone hour outside of range [0,23]")]
    ZoneHour,
}

fn is_digit(s: &[u8], i: usize) -> bool {
    s.get(i).is_some_and(u8::is_ascii_digit)
}

/// Go's `getnum`: one or two digits (two required when `fixed`).
fn getnum(s: &str, fixed: bool) -> Option<(i64, &str)> {
    let b = s.as_bytes();
    if !is_digit(b, 0) {
        return None;
    }
    if !is_digit(b, 1) {
        if fixed {
            return None;
        }
        return Some(((b[0] - b'0') as i64, &s[1..]));
    }
    Some((((b[0] - b'0') * 10 + (b[1] - b'0')) as i64, &s[2..]))
}

/// Go's `getnum3`: one to three digits (three required when `fixed`).
fn getnum3(s: &str, fixed: bool) -> Option<(i64, &str)> {
    let b = s.as_bytes();
    let mut n = 0;
    let mut i = 0;
    while i < 3 && is_digit(b, i) {
        n = n * 10 + (b[i] - b'0') as i64;
        i += 1;
    }
    if i == 0 || fixed && i != 3 {
        return None;
    }
    Some((n, &s[i..]))
}

fn cutspace(s: &str) -> &str {
    s.trim_start_matches(' ')
}

/// Go's `skip`: the layout's literal text must match (a space matches a run of spaces).
fn skip<'a>(mut value: &'a str, mut prefix: &str) -> Result<&'a str, &'a str> {
    while !prefix.is_empty() {
        if prefix.starts_with(' ') {
            if !value.is_empty() && !value.starts_with(' ') {
                return Err(value);
            }
            prefix = cutspace(prefix);
            value = cutspace(value);
            continue;
        }
        if value.is_empty() || value.as_bytes()[0] != prefix.as_bytes()[0] {
            return Err(value);
        }
        prefix = &prefix[1..];
        value = &value[1..];
    }
    Ok(value)
}

/// Case-insensitive (ASCII) match of one of `names` at the start of `s`.
fn lookup<'a>(names: &[&str], s: &'a str) -> Option<(usize, &'a str)> {
    for (i, name) in names.iter().enumerate() {
        if s.len() >= name.len() && s.as_bytes()[..name.len()].eq_ignore_ascii_case(name.as_bytes())
        {
            return Some((i, &s[name.len()..]));
        }
    }
    None
}

/// Go's `parseNanoseconds` of `value[..n]` (separator included).
fn parse_nanos(value: &str, n: usize) -> Result<i64, bool> {
    let b = value.as_bytes();
    if b[0] != b'.' && b[0] != b',' {
        return Err(true);
    }
    let digits = &value[1..n.min(10)];
    if !digits.bytes().all(|c| c.is_ascii_digit()) {
        return Err(true);
    }
    let mut ns: i64 = digits.parse().map_err(|_| true)?;
    for _ in digits.len()..9 {
        ns *= 10;
    }
    Ok(ns)
}

/// Go's `parseTimeZone`: the length of a zone abbreviation at the start of `value`.
fn parse_zone_name(value: &str) -> Option<usize> {
    let b = value.as_bytes();
    if b.len() < 3 {
        return None;
    }
    if b.len() >= 4 && (&b[..4] == b"ChST" || &b[..4] == b"MeST") {
        return Some(4);
    }
    if &b[..3] == b"GMT" {
        // `GMT` with an optional signed hour offset.
        let rest = &value[3..];
        let rb = rest.as_bytes();
        if rb.is_empty() || (rb[0] != b'+' && rb[0] != b'-') {
            return Some(3);
        }
        let digits = rest[1..].bytes().take_while(u8::is_ascii_digit).count();
        let n: i64 = rest[1..1 + digits].parse().unwrap_or(99);
        if digits == 0 || n > 24 {
            return Some(3);
        }
        return Some(3 + 1 + digits);
    }
    if b[0] == b'+' || b[0] == b'-' {
        let digits = value[1..].bytes().take_while(u8::is_ascii_digit).count();
        return (digits > 0).then_some(1 + digits);
    }
    let upper = b.iter().take_while(|c| c.is_ascii_uppercase()).count();
    match upper {
        0..=2 => None,
        3 => Some(3),
        4 => (b[3] == b'T' || &b[..4] == b"WITA").then_some(4),
        5 => (b[4] == b'T').then_some(5),
        _ => None,
    }
}

/// `time.ParseInLocation(layout, value, Local)`.
/// Go's `time.Parse(layout, value)` for its error only (JSON Schema's `date` format).
pub fn check_parse(layout: &str, value: &str) -> Result<(), ParseError> {
    parse(layout, value).map(|_| ())
}

pub fn parse(layout: &str, value: &str) -> Result<Time, ParseError> {
    parse_in(layout, value, local())
}

/// `time.ParseInLocation(layout, value, loc)`: a value without a zone is a wall time in `loc`;
/// an offset that `loc` has at that instant gives `loc`, another offset an unnamed fixed zone.
pub fn parse_in(layout: &str, value: &str, loc: Rc<Location>) -> Result<Time, ParseError> {
    let (alayout, avalue) = (layout, value);
    let mut layout = layout;
    let mut value = value;
    let (mut year, mut month, mut day, mut yday) = (0i64, -1i64, -1i64, -1i64);
    let (mut hour, mut min, mut sec, mut nsec) = (0i64, 0i64, 0i64, 0i64);
    let (mut pm_set, mut am_set) = (false, false);
    let mut zone_offset: Option<i64> = None;
    let mut zone_name: Option<String> = None;
    let mut utc_zone = false;
    loop {
        let (prefix, std, stdstr, suffix) = next_chunk(layout);
        value = skip(value, prefix).map_err(|v| parse_error(alayout, avalue, prefix, v, ""))?;
        let Some(std) = std else {
            if !value.is_empty() {
                return Err(parse_error(
                    alayout,
                    avalue,
                    "",
                    value,
                    &format!(": extra text: {}", quote(value)),
                ));
            }
            break;
        };
        layout = suffix;
        let hold = value;
        let mut range_err = "";
        let bad = || parse_error(alayout, avalue, stdstr, hold, "");
        match std {
            Std::Year => {
                if value.len() < 2 {
                    return Err(bad());
                }
                let p = &value[..2];
                value = &value[2..];
                year = p.parse().map_err(|_| bad())?;
                if !p.bytes().all(|c| c.is_ascii_digit()) {
                    return Err(bad());
                }
                year += if year >= 69 { 1900 } else { 2000 };
            }
            Std::LongYear => {
                if value.len() < 4 || !is_digit(value.as_bytes(), 0) {
                    return Err(bad());
                }
                let p = &value[..4];
                if !p.bytes().all(|c| c.is_ascii_digit()) {
                    return Err(bad());
                }
                value = &value[4..];
                year = p.parse().map_err(|_| bad())?;
            }
            Std::Month | Std::LongMonth => {
                let names: Vec<&str> = if std == Std::Month {
                    MONTHS.iter().map(|m| &m[..3]).collect()
                } else {
                    MONTHS.to_vec()
                };
                let (i, rest) = lookup(&names, value).ok_or_else(bad)?;
                month = i as i64 + 1;
                value = rest;
            }
            Std::NumMonth | Std::ZeroMonth => {
                let (m, rest) = getnum(value, std == Std::ZeroMonth).ok_or_else(bad)?;
                month = m;
                value = rest;
                if !(1..=12).contains(&month) {
                    range_err = "month";
                }
            }
            Std::WeekDay | Std::LongWeekDay => {
                let names: Vec<&str> = if std == Std::WeekDay {
                    DAYS.iter().map(|d| &d[..3]).collect()
                } else {
                    DAYS.to_vec()
                };
                let (_, rest) = lookup(&names, value).ok_or_else(bad)?;
                value = rest;
            }
            Std::Day | Std::UnderDay | Std::ZeroDay => {
                if std == Std::UnderDay && value.starts_with(' ') {
                    value = &value[1..];
                }
                let (d, rest) = getnum(value, std == Std::ZeroDay).ok_or_else(bad)?;
                day = d;
                value = rest;
                if !(1..=31).contains(&day) {
                    range_err = "day";
                }
            }
            Std::UnderYearDay | Std::ZeroYearDay => {
                for _ in 0..2 {
                    if std == Std::UnderYearDay && value.starts_with(' ') {
                        value = &value[1..];
                    }
                }
                let (d, rest) = getnum3(value, std == Std::ZeroYearDay).ok_or_else(bad)?;
                yday = d;
                value = rest;
                if !(1..=366).contains(&yday) {
                    range_err = "day-of-year";
                }
            }
            Std::Hour => {
                let (h, rest) = getnum(value, false).ok_or_else(bad)?;
                hour = h;
                value = rest;
                if !(0..24).contains(&hour) {
                    range_err = "hour";
                }
            }
            Std::Hour12 | Std::ZeroHour12 => {
                let (h, rest) = getnum(value, std == Std::ZeroHour12).ok_or_else(bad)?;
                hour = h;
                value = rest;
                if !(0..=12).contains(&hour) {
                    range_err = "hour";
                }
            }
            Std::Minute | Std::ZeroMinute => {
                let (m, rest) = getnum(value, std == Std::ZeroMinute).ok_or_else(bad)?;
                min = m;
                value = rest;
                if !(0..60).contains(&min) {
                    range_err = "minute";
                }
            }
            Std::Second | Std::ZeroSecond => {
                let (sv, rest) = getnum(value, std == Std::ZeroSecond).ok_or_else(bad)?;
                sec = sv;
                value = rest;
                if !(0..60).contains(&sec) {
                    range_err = "second";
                } else {
                    let b = value.as_bytes();
                    let next_is_frac = matches!(next_chunk(layout).1, Some(Std::Frac { .. }));
                    if b.len() >= 2
                        && (b[0] == b'.' || b[0] == b',')
                        && is_digit(b, 1)
                        && !next_is_frac
                    {
                        let mut n = 2;
                        while n < b.len() && is_digit(b, n) {
                            n += 1;
                        }
                        nsec = parse_nanos(value, n).map_err(|_| bad())?;
                        value = &value[n..];
                    }
                }
            }
            Std::PM | Std::Pm => {
                if value.len() < 2 {
                    return Err(bad());
                }
                let p = &value[..2];
                value = &value[2..];
                let (am, pm) = if std == Std::PM {
                    ("AM", "PM")
                } else {
                    ("am", "pm")
                };
                if p == pm {
                    pm_set = true;
                } else if p == am {
                    am_set = true;
                } else {
                    return Err(bad());
                }
            }
            Std::Offset {
                iso,
                colon,
                mins,
                secs,
            } => {
                if iso && value.starts_with('Z') {
                    value = &value[1..];
                    utc_zone = true;
                } else {
                    let b = value.as_bytes();
                    let need = 3
                        + if mins { 2 } else { 0 }
                        + if secs { 2 } else { 0 }
                        + if colon { if secs { 2 } else { 1 } } else { 0 };
                    if b.len() < need {
                        return Err(bad());
                    }
                    let sign = b[0];
                    let hh = &value[1..3];
                    let mut at = 3;
                    let mut mm = "00";
                    let mut ss = "00";
                    if mins {
                        if colon {
                            if b[at] != b':' {
                                return Err(bad());
                            }
                            at += 1;
                        }
                        mm = &value[at..at + 2];
                        at += 2;
                    }
                    if secs {
                        if colon {
                            if b[at] != b':' {
                                return Err(bad());
                            }
                            at += 1;
                        }
                        ss = &value[at..at + 2];
                        at += 2;
                    }
                    let num = |t: &str| -> Option<i64> {
                        t.bytes()
                            .all(|c| c.is_ascii_digit())
                            .then(|| t.parse().ok())?
                    };
                    let (Some(h), Some(m), Some(sx)) = (num(hh), num(mm), num(ss)) else {
                        return Err(bad());
                    };
                    if h > 24 {
                        range_err = "time zone offset hour";
                    } else if m > 60 {
                        range_err = "time zone offset minute";
                    } else if sx > 60 {
                        range_err = "time zone offset second";
                    }
                    let off = (h * 60 + m) * 60 + sx;
                    let off = match sign {
                        b'+' => off,
                        b'-' => -off,
                        _ => return Err(bad()),
                    };
                    value = &value[at..];
                    zone_offset = Some(off);
                }
            }
            Std::Tz => {
                if value.len() >= 3 && &value[..3] == "UTC" {
                    value = &value[3..];
                    utc_zone = true;
                } else {
                    let n = parse_zone_name(value).ok_or_else(bad)?;
                    zone_name = Some(value[..n].to_string());
                    value = &value[n..];
                }
            }
            Std::Frac { zeros, digits, .. } => {
                if zeros {
                    let nd = 1 + digits;
                    if value.len() < nd {
                        return Err(bad());
                    }
                    nsec = parse_nanos(value, nd).map_err(|_| bad())?;
                    value = &value[nd..];
                } else {
                    let b = value.as_bytes();
                    if b.len() >= 2 && (b[0] == b'.' || b[0] == b',') && b[1].is_ascii_digit() {
                        let mut i = 0;
                        while i + 1 < b.len() && b[i + 1].is_ascii_digit() {
                            i += 1;
                        }
                        nsec = parse_nanos(value, 1 + i).map_err(|_| bad())?;
                        value = &value[1 + i..];
                    }
                }
            }
        }
        if !range_err.is_empty() {
            return Err(parse_error(
                alayout,
                avalue,
                stdstr,
                value,
                &format!(": {range_err} out of range"),
            ));
        }
    }
    if pm_set && hour < 12 {
        hour += 12;
    } else if am_set && hour == 12 {
        hour = 0;
    }
    if yday >= 0 {
        let leap = is_leap(year);
        if yday > 365 && !leap {
            return Err(parse_error(
                alayout,
                avalue,
                "",
                value,
                ": day-of-year out of range",
            ));
        }
        let mut d = yday;
        let mut m = 1;
        while d > days_in(m, year) {
            d -= days_in(m, year);
            m += 1;
        }
        if month >= 0 && month != m || day >= 0 && day != d {
            return Err(parse_error(
                alayout,
                avalue,
                "",
                value,
                ": day-of-year does not match month",
            ));
        }
        month = m;
        day = d;
    } else {
        if month < 0 {
            month = 1;
        }
        if day < 0 {
            day = 1;
        }
    }
    if day < 1 || day > days_in(month, year) {
        return Err(parse_error(
            alayout,
            avalue,
            "",
            value,
            ": day out of range",
        ));
    }
    let local_secs = days_from_civil(year, month, day) * 86_400 + hour * 3600 + min * 60 + sec;
    let mk = |secs: i64, loc: Rc<Location>| Time {
        secs,
        nanos: nsec,
        loc,
        mono: None,
    };
    if utc_zone {
        return Ok(mk(local_secs, utc()));
    }
    let local = loc;
    if let Some(off) = zone_offset {
        let secs = local_secs - off;
        if local.lookup(secs).offset == off {
            return Ok(mk(secs, local));
        }
        return Ok(mk(secs, Rc::new(Location::fixed("", off))));
    }
    if let Some(name) = zone_name {
        // A known abbreviation of the local zone (near that time) gives its offset.
        let guess = local_secs - local.lookup(local_secs).offset;
        if let Some(z) = local.zones.iter().find(|z| z.name == name) {
            let secs = local_secs - z.offset;
            if local.lookup(secs).name == name || local.lookup(guess).name == name {
                return Ok(mk(secs, local));
            }
        }
        if name.len() > 3 && name.starts_with("GMT") {
            let off: i64 = name[3..].parse().unwrap_or(0) * 3600;
            return Ok(mk(local_secs - off, Rc::new(Location::fixed(&name, off))));
        }
        return Ok(mk(local_secs, Rc::new(Location::fixed(&name, 0))));
    }
    // No zone in the text: the local zone's offset at that wall time.
    let off = local
        .lookup(local_secs - local.lookup(local_secs).offset)
        .offset;
    Ok(mk(local_secs - off, local))
}

/// `time.Duration.String()`.
pub fn duration_string(d: i64) -> String {
    crate::format_duration(d)
}

/// `time.ParseDuration`.
pub fn parse_duration(text: &str) -> Result<i64, crate::DurationError> {
    crate::parse_duration(text)
}

impl Object for Time {
    fn type_name(&self) -> &str {
        "time.Time"
    }

    fn field(&self, name: &str) -> Option<Value> {
        (name == SELF_FIELD).then(|| {
            let id = location_id(&self.loc);
            let mono = self.mono.map(|m| format!(" {m}")).unwrap_or_default();
            Value::from(format!("{} {} {id}{mono}", self.secs, self.nanos))
        })
    }

    fn method(&self, name: &str) -> Option<Rc<Func>> {
        let t = self.clone();
        let int = |v: i64| Ok(Value::int(v));
        let f: Func = match name {
            "Year" => Func::new(vec![], None, "int", move |_, _| int(t.civil().year)),
            "Day" => Func::new(vec![], None, "int", move |_, _| int(t.civil().day)),
            "Hour" => Func::new(vec![], None, "int", move |_, _| int(t.civil().hour)),
            "Minute" => Func::new(vec![], None, "int", move |_, _| int(t.civil().min)),
            "Second" => Func::new(vec![], None, "int", move |_, _| int(t.civil().sec)),
            "Nanosecond" => Func::new(vec![], None, "int", move |_, _| int(t.nanos)),
            "YearDay" => Func::new(vec![], None, "int", move |_, _| int(t.civil().yday)),
            "Month" => Func::new(vec![], None, "time.Month", move |_, _| {
                Ok(Value::Object(Rc::new(Named {
                    type_name: "time.Month",
                    text: MONTHS[t.civil().month as usize - 1],
                    value: t.civil().month,
                })))
            }),
            "Weekday" => Func::new(vec![], None, "time.Weekday", move |_, _| {
                let w = t.civil().weekday;
                Ok(Value::Object(Rc::new(Named {
                    type_name: "time.Weekday",
                    text: DAYS[w as usize],
                    value: w,
                })))
            }),
            "Unix" => Func::new(vec![], None, "int64", move |_, _| Ok(Value::int64(t.secs))),
            "UnixMilli" => Func::new(vec![], None, "int64", move |_, _| {
                Ok(Value::int64(t.secs * 1000 + t.nanos / 1_000_000))
            }),
            "UnixMicro" => Func::new(vec![], None, "int64", move |_, _| {
                Ok(Value::int64(t.secs * 1_000_000 + t.nanos / 1000))
            }),
            "UnixNano" => Func::new(vec![], None, "int64", move |_, _| {
                Ok(Value::int64(
                    t.secs.wrapping_mul(NANOS).wrapping_add(t.nanos),
                ))
            }),
            "IsZero" => Func::new(vec![], None, "bool", move |_, _| {
                Ok(Value::Bool(t.secs == ZERO_UNIX && t.nanos == 0))
            }),
            "String" => Func::new(vec![], None, "string", move |_, _| {
                Ok(Value::from(t.string()))
            }),
            "Format" => Func::new(vec![STR], None, "string", move |_, a| {
                Ok(Value::from(format(&t, s(&a, 0))))
            }),
            "UTC" => Func::new(vec![], None, "time.Time", move |_, _| {
                Ok(t.in_loc(utc()).to_value())
            }),
            "Local" => Func::new(vec![], None, "time.Time", move |_, _| {
                Ok(t.in_loc(local()).to_value())
            }),
            "AddDate" => Func::new(vec![INT, INT, INT], None, "time.Time", move |_, a| {
                let c = t.civil();
                let (y, m, d) = (c.year + n(&a, 0), c.month + n(&a, 1), c.day + n(&a, 2));
                // Go normalises month and day overflow.
                let (y, m) = (y + (m - 1).div_euclid(12), (m - 1).rem_euclid(12) + 1);
                let wall = days_from_civil(y, m, 1) * 86_400
                    + (d - 1) * 86_400
                    + c.hour * 3600
                    + c.min * 60
                    + c.sec;
                let off = t.loc.lookup(wall - t.loc.lookup(wall).offset).offset;
                Ok(Time {
                    secs: wall - off,
                    nanos: t.nanos,
                    loc: t.loc.clone(),
                    mono: None,
                }
                .to_value())
            }),
            _ => return None,
        };
        let mut f = f;
        f.returns_error = false;
        Some(Rc::new(f))
    }

    fn format(&self) -> String {
        self.string()
    }

    fn stringer(&self) -> Option<String> {
        Some(self.string())
    }

    fn go_string(&self) -> Option<String> {
        Some(Time::go_string(self))
    }

    fn marshal_json(&self) -> Option<Result<String, MarshalError>> {
        Some(Time::marshal_json(self).map_err(MarshalError::new))
    }
}

/// `args[i]` as a Rust string (the executor has checked the type).
fn s(args: &[Value], i: usize) -> &str {
    args[i].as_str().unwrap_or_default()
}

/// `args[i]` as a Go `int` (the executor has checked the type).
fn n(args: &[Value], i: usize) -> i64 {
    match &args[i] {
        Value::Int(v, _) => *v,
        _ => 0,
    }
}

/// `time.Month` / `time.Weekday`: integers that print as names.
struct Named {
    type_name: &'static str,
    text: &'static str,
    value: i64,
}

impl Object for Named {
    fn type_name(&self) -> &str {
        self.type_name
    }

    fn format(&self) -> String {
        self.text.to_string()
    }

    fn stringer(&self) -> Option<String> {
        Some(self.text.to_string())
    }

    fn as_value(&self) -> Option<Value> {
        Some(Value::int(self.value))
    }

    fn kind(&self) -> &'static str {
        "int"
    }
}

/// go-yaml v3's text for a `time.Time` (`t.Format(time.RFC3339Nano)`, written plain); `None`
/// for a value that is not a `time.Time`.
pub fn yaml_time_text(v: &Value) -> Option<String> {
    Time::from_value(v).map(|t| t.rfc3339_nano())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(duration_string(0), "0s");
        assert_eq!(duration_string(90 * NANOS), "1m30s");
        assert_eq!(duration_string(3600 * NANOS), "1h0m0s");
        assert_eq!(duration_string(1_500_000_000), "1.5s");
        assert_eq!(duration_string(1_500), "1.5µs");
        assert_eq!(duration_string(-2_000_000), "-2ms");
        assert_eq!(parse_duration("1h30m").unwrap(), 5400 * NANOS);
        assert_eq!(parse_duration("1.5h").unwrap(), 5400 * NANOS);
        assert_eq!(parse_duration("-2m").unwrap(), -120 * NANOS);
        assert!(
            parse_duration("1d")
                .unwrap_err()
                .to_string()
                .contains("unknown unit \"d\"")
        );
    }

    #[test]
    fn parse_error_keeps_where_parsing_stopped() {
        let e = parse("2006-01-02", "2020-1x-01").err().unwrap();
        assert_eq!(
            (e.layout.as_str(), e.value.as_str()),
            ("2006-01-02", "2020-1x-01")
        );
        assert_eq!(
            (e.layout_elem.as_str(), e.value_elem.as_str()),
            ("01", "1x-01")
        );
        assert_eq!(
            e.to_string(),
            "parsing time \"2020-1x-01\" as \"2006-01-02\": cannot parse \"1x-01\" as \"01\""
        );
        let e = parse("2006-01-02", "2020-02-30").err().unwrap();
        assert_eq!(e.message, ": day out of range");
        assert_eq!(
            e.to_string(),
            "parsing time \"2020-02-30\": day out of range"
        );
    }

    #[test]
    fn civil_round_trip() {
        let c = Civil::from_unix(0);
        assert_eq!(
            (c.year, c.month, c.day, c.weekday, c.yday),
            (1970, 1, 1, 4, 1)
        );
        let c = Civil::from_unix(ZERO_UNIX);
        assert_eq!((c.year, c.month, c.day), (1, 1, 1));
        assert_eq!(
            days_from_civil(2024, 3, 1) - days_from_civil(2024, 2, 1),
            29
        );
    }

    #[test]
    fn json_is_strict_rfc3339() {
        let json = |value: &str| {
            parse("2006-01-02T15:04:05.999999999Z07:00", value)
                .unwrap()
                .marshal_json()
        };
        assert_eq!(
            json("0000-01-01T00:00:00Z").unwrap(),
            "\"0000-01-01T00:00:00Z\""
        );
        assert_eq!(
            json("9999-12-31T23:59:59.000000001+23:59").unwrap(),
            "\"9999-12-31T23:59:59.000000001+23:59\""
        );
        assert_eq!(
            json("2020-01-01T00:00:00.120-00:30").unwrap(),
            "\"2020-01-01T00:00:00.12-00:30\""
        );
        assert!(
            json("2020-01-01T00:00:00+24:00")
                .unwrap_err()
                .to_string()
                .contains("timezone hour")
        );
        let t = parse("2006-01-02", "9999-12-31")
            .unwrap()
            .add(86_400 * NANOS);
        assert!(
            t.marshal_json()
                .unwrap_err()
                .to_string()
                .contains("year outside of range")
        );
        let t = parse("2006-01-02", "0000-01-01").unwrap().add(-NANOS);
        assert!(
            t.marshal_json()
                .unwrap_err()
                .to_string()
                .contains("year outside of range")
        );
    }

    #[test]
    fn layouts() {
        let t = parse("2006-01-02T15:04:05Z07:00", "2023-07-04T09:08:07Z").unwrap();
        assert_eq!(
            format(&t, "Mon Jan _2 3:04PM 2006 MST"),
            "Tue Jul  4 9:08AM 2023 UTC"
        );
        assert_eq!(format(&t, "02/01/06 15h .000"), "04/07/23 09h .000");
    }
}
