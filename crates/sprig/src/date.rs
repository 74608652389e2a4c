//! Sprig's date functions (`now`, `date`, `toDate`, `duration`, `ago`, …) over the model of
//! Go's `time.Time` in the `gotime` crate.

use std::rc::Rc;

use gotemplate::{ArgType, FuncError, FuncMap, IntKind, Value};
use gotime::time::{
    Location, Time, duration_string, format, load_location, local, parse, parse_duration, parse_in,
    utc,
};

use super::{def, s};

const ANY: ArgType = ArgType::Any;
const STR: ArgType = ArgType::String;
/// Go's `time.Time` parameter: Go checks the argument (any value that is not a `time.Time`, a
/// literal, `nil`) before calling, so a wrong one fails in the executor's words and position.
const TIME: ArgType = ArgType::Struct("time.Time");

const NANOS: i64 = 1_000_000_000;

/// Sprig's `dateInZone` argument: a time, or Unix seconds as `int`, `int32` or `int64`; anything
/// else is now.
fn date_arg(v: &Value, with_int32: bool) -> Time {
    if let Some(t) = Time::from_value(v) {
        return t;
    }
    match v {
        Value::Int(n, IntKind::Int | IntKind::Int64) => Time::unix(*n),
        Value::Int(n, IntKind::Int32) if with_int32 => Time::unix(*n),
        _ => Time::now(),
    }
}

fn date_in_zone(layout: &str, date: &Value, zone: &str) -> String {
    let t = date_arg(date, true);
    let loc = load_location(zone).unwrap_or_else(utc);
    format(&t.in_loc(loc), layout)
}

/// A `time.Time` argument. The executor has already checked it against [`TIME`], as Go's does;
/// the wording here only matters to a caller that bypasses that check.
fn time_arg(v: &Value) -> Result<Time, FuncError> {
    Time::from_value(v).ok_or_else(|| {
        FuncError::new(format!(
            "wrong type for value; expected time.Time; got {}",
            v.type_name()
        ))
    })
}

pub(super) fn register(map: &mut FuncMap) {
    def(map, "now", &[], None, "time.Time", false, |_, _| {
        Ok(Time::now().to_value())
    });
    def(map, "date", &[STR, ANY], None, "string", false, |_, a| {
        Ok(Value::from(date_in_zone(s(&a, 0), &a[1], "Local")))
    });
    for name in ["dateInZone", "date_in_zone"] {
        def(
            map,
            name,
            &[STR, ANY, STR],
            None,
            "string",
            false,
            |_, a| Ok(Value::from(date_in_zone(s(&a, 0), &a[1], s(&a, 2)))),
        );
    }
    def(map, "htmlDate", &[ANY], None, "string", false, |_, a| {
        Ok(Value::from(date_in_zone("2006-01-02", &a[0], "Local")))
    });
    def(
        map,
        "htmlDateInZone",
        &[ANY, STR],
        None,
        "string",
        false,
        |_, a| Ok(Value::from(date_in_zone("2006-01-02", &a[0], s(&a, 1)))),
    );
    for name in ["dateModify", "date_modify"] {
        def(map, name, &[STR, TIME], None, "time.Time", false, |_, a| {
            let t = time_arg(&a[1])?;
            Ok(match parse_duration(s(&a, 0)) {
                Ok(d) => t.add(d),
                Err(_) => t,
            }
            .to_value())
        });
    }
    for name in ["mustDateModify", "must_date_modify"] {
        def(map, name, &[STR, TIME], None, "time.Time", true, |_, a| {
            let t = time_arg(&a[1])?;
            let d = parse_duration(s(&a, 0)).map_err(|e| FuncError::new(e.to_string()))?;
            Ok(t.add(d).to_value())
        });
    }
    def(map, "ago", &[ANY], None, "string", false, |_, a| {
        let t = match Time::from_value(&a[0]) {
            Some(t) => t,
            None => match &a[0] {
                Value::Int(n, IntKind::Int | IntKind::Int64) => Time::unix(*n),
                _ => Time::now(),
            },
        };
        let since = Time::now().sub(&t);
        Ok(Value::from(duration_string(round_duration(since, NANOS))))
    });
    def(map, "duration", &[ANY], None, "string", false, |_, a| {
        let n = match &a[0] {
            Value::String(text) => text.parse::<i64>().unwrap_or(0),
            Value::Int(n, IntKind::Int64) => *n,
            _ => 0,
        };
        Ok(Value::from(duration_string(n.wrapping_mul(NANOS))))
    });
    def(
        map,
        "durationRound",
        &[ANY],
        None,
        "string",
        false,
        |_, a| {
            let d = if let Some(t) = Time::from_value(&a[0]) {
                Time::now().sub(&t)
            } else {
                match &a[0] {
                    Value::String(text) => parse_duration(text).unwrap_or(0),
                    Value::Int(n, IntKind::Int64) => *n,
                    _ => 0,
                }
            };
            Ok(Value::from(duration_round(d)))
        },
    );
    def(
        map,
        "toDate",
        &[STR, STR],
        None,
        "time.Time",
        false,
        |_, a| {
            Ok(parse(s(&a, 0), s(&a, 1))
                .unwrap_or_else(|_| Time::zero())
                .to_value())
        },
    );
    def(
        map,
        "mustToDate",
        &[STR, STR],
        None,
        "time.Time",
        true,
        |_, a| {
            parse(s(&a, 0), s(&a, 1))
                .map(|t| t.to_value())
                .map_err(|e| FuncError::new(e.to_string()))
        },
    );
    def(map, "unixEpoch", &[TIME], None, "string", false, |_, a| {
        Ok(Value::from(time_arg(&a[0])?.secs.to_string()))
    });
}

/// `time.Duration.Round(m)`: halves away from zero.
fn round_duration(d: i64, m: i64) -> i64 {
    let r = d % m;
    if d < 0 {
        let r = -r;
        if r + r < m {
            return d + r;
        }
        d.checked_sub(m - r).unwrap_or(i64::MIN)
    } else {
        if r + r < m {
            return d - r;
        }
        d.checked_add(m - r).unwrap_or(i64::MAX)
    }
}

/// Sprig's `durationRound`: the largest whole unit (y, mo, d, h, m, s) that the duration
/// exceeds.
fn duration_round(d: i64) -> String {
    let u = d.unsigned_abs();
    let hour: u64 = 3_600_000_000_000;
    let units: [(u64, &str); 6] = [
        (hour * 24 * 365, "y"),
        (hour * 24 * 30, "mo"),
        (hour * 24, "d"),
        (hour, "h"),
        (60_000_000_000, "m"),
        (1_000_000_000, "s"),
    ];
    for (size, unit) in units {
        if u > size {
            return format!("{}{unit}", u / size);
        }
    }
    "0s".to_string()
}

/// BurntSushi/toml's date-time decoding: `time.ParseInLocation(layout, value, loc)` where `loc`
/// is `Local` (`zone` `None`) or a fixed zone named `zone` at the local offset of now (its
/// `datetime-local`, `date-local` and `time-local` zones). The error is Go's parse error.
pub(super) fn parse_toml_datetime(
    layout: &str,
    value: &str,
    zone: Option<&str>,
) -> Result<Value, String> {
    let loc = match zone {
        None => local(),
        Some(name) => {
            let off = local().lookup(Time::now().secs).offset;
            Rc::new(Location::fixed(name, off))
        }
    };
    parse_in(layout, value, loc)
        .map(|t| t.to_value())
        .map_err(|e| e.to_string())
}

/// BurntSushi/toml's encoding of a `time.Time` (its `eElement`): RFC 3339 with nanoseconds, or,
/// for the local date-time kinds its decoder makes, that kind's layout of the UTC time. `None`
/// for a value that is not a `time.Time`.
pub(super) fn toml_time_text(v: &Value) -> Option<String> {
    let t = Time::from_value(v)?;
    let local_kind = match t.loc.name.as_str() {
        "datetime-local" => Some("2006-01-02T15:04:05.999999999"),
        "date-local" => Some("2006-01-02"),
        "time-local" => Some("15:04:05.999999999"),
        _ => None,
    };
    Some(match local_kind {
        Some(layout) => format(&t.in_loc(utc()), layout),
        None => t.rfc3339_nano(),
    })
}
