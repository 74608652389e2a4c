//! Sprig's float math (`addf`, `subf`, `mulf`, `divf`, `add1f` through shopspring/decimal,
//! `maxf`, `minf`), `seq`, `toDecimal`, `randInt` and `chunk`.

use gotemplate::fmt::sprint;
use gotemplate::{ArgType, FuncError, FuncMap, IntKind, List, Value};
use num_bigint::BigInt;
use num_traits::{Signed, Zero};

use super::conv::to_float64;
use super::{def, limits, n, runtime_error};

const ANY: ArgType = ArgType::Any;
const INT: ArgType = ArgType::Int(IntKind::Int);

/// shopspring/decimal's `Decimal`: `value × 10^exp`, exact.
#[derive(Clone, Debug)]
struct Decimal {
    value: BigInt,
    exp: i64,
}

/// Digits after the decimal point `Div` keeps (shopspring's `DivisionPrecision`).
const DIVISION_PRECISION: i64 = 16;

fn pow10(k: u64) -> BigInt {
    num_traits::pow(BigInt::from(10), k as usize)
}

impl Decimal {
    /// `decimal.NewFromFloat`: the shortest decimal that reads back as `f`.
    fn from_float(f: f64) -> Result<Decimal, FuncError> {
        if f.is_nan() {
            return Err(FuncError::new("Cannot create a Decimal from NaN"));
        }
        if f.is_infinite() {
            let sign = if f > 0.0 { "+" } else { "-" };
            return Err(FuncError::new(format!(
                "Cannot create a Decimal from {sign}Inf"
            )));
        }
        // `{:e}` is Rust's shortest round-trip form: `d.ddddde±x`.
        let text = format!("{f:e}");
        let (mant, exp) = text.split_once('e').unwrap();
        let exp: i64 = exp.parse().unwrap();
        let (int_part, frac) = mant.split_once('.').unwrap_or((mant, ""));
        let digits = format!("{int_part}{frac}");
        let value: BigInt = digits.parse().unwrap();
        Ok(Decimal {
            value,
            exp: exp - frac.len() as i64,
        })
    }

    /// Both values scaled to the smaller exponent.
    fn aligned(&self, o: &Decimal) -> (BigInt, BigInt, i64) {
        let exp = self.exp.min(o.exp);
        let a = &self.value * pow10((self.exp - exp) as u64);
        let b = &o.value * pow10((o.exp - exp) as u64);
        (a, b, exp)
    }

    fn add(&self, o: &Decimal) -> Decimal {
        let (a, b, exp) = self.aligned(o);
        Decimal { value: a + b, exp }
    }

    fn sub(&self, o: &Decimal) -> Decimal {
        let (a, b, exp) = self.aligned(o);
        Decimal { value: a - b, exp }
    }

    fn mul(&self, o: &Decimal) -> Decimal {
        Decimal {
            value: &self.value * &o.value,
            exp: self.exp + o.exp,
        }
    }

    /// `Div`: the quotient rounded half away from zero to 16 decimal places.
    fn div(&self, o: &Decimal) -> Result<Decimal, FuncError> {
        if o.value.is_zero() {
            return Err(FuncError::new("decimal division by 0"));
        }
        // self/o × 10^16 = self.value × 10^(self.exp - o.exp + 16) / o.value
        let k = self.exp - o.exp + DIVISION_PRECISION;
        let (num, den) = if k >= 0 {
            (&self.value * pow10(k as u64), o.value.clone())
        } else {
            (self.value.clone(), &o.value * pow10((-k) as u64))
        };
        let mut q = &num / &den;
        let r = &num - &q * &den;
        if (r.abs() * 2u32) >= den.abs() {
            if num.is_negative() != den.is_negative() {
                q -= 1;
            } else {
                q += 1;
            }
        }
        Ok(Decimal {
            value: q,
            exp: -DIVISION_PRECISION,
        })
    }

    /// `Float64`: the nearest float64.
    fn to_f64(&self) -> f64 {
        format!("{}e{}", self.value, self.exp)
            .parse()
            .unwrap_or(f64::NAN)
    }
}

type Op = fn(&Decimal, &Decimal) -> Result<Decimal, FuncError>;

/// Sprig's `execDecimalOp`: folds `rest` into `first` with `op`, in decimal.
fn decimal_op(first: &Value, rest: &[Value], op: Op) -> Result<Value, FuncError> {
    let mut acc = Decimal::from_float(to_float64(first))?;
    for v in rest {
        acc = op(&acc, &Decimal::from_float(to_float64(v))?)?;
    }
    Ok(Value::Float(acc.to_f64()))
}

/// Go's `math.Max`.
fn go_max(x: f64, y: f64) -> f64 {
    if x == f64::INFINITY || y == f64::INFINITY {
        return f64::INFINITY;
    }
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if x == 0.0 && y == 0.0 {
        return if x.is_sign_negative() { y } else { x };
    }
    if x > y { x } else { y }
}

/// Go's `math.Min`.
fn go_min(x: f64, y: f64) -> f64 {
    if x == f64::NEG_INFINITY || y == f64::NEG_INFINITY {
        return f64::NEG_INFINITY;
    }
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if x == 0.0 && y == 0.0 {
        return if x.is_sign_negative() { x } else { y };
    }
    if x < y { x } else { y }
}

/// How many numbers Sprig's `untilStep` yields (found without looping when the loop ends
/// before Go's `int` wraps). A step that carries past the largest (or smallest) `int` goes on
/// from the other end, as Go's loop does: those are counted one by one, and `None` is more
/// than `max`.
pub(crate) fn until_step_len(start: i64, stop: i64, step: i64, max: u64) -> Option<u64> {
    let down = stop < start;
    if (down && step >= 0) || (!down && step <= 0) {
        return Some(0);
    }
    let span = (i128::from(stop) - i128::from(start)).unsigned_abs();
    let stride = i128::from(step).unsigned_abs();
    let count = span.div_ceil(stride);
    // The value that ends the loop, when it is reached without wrapping.
    let next = i128::from(start) + i128::from(step) * count as i128;
    if i64::try_from(next).is_ok() {
        return u64::try_from(count).ok();
    }
    let (mut i, mut count) = (start, 0u64);
    while (down && i > stop) || (!down && i < stop) {
        count += 1;
        if count > max {
            return None;
        }
        i = i.wrapping_add(step);
    }
    Some(count)
}

/// Sprig's `untilStep` (and `until`, which is `untilStep 0 count ±1`), refused beyond bosun's
/// bound on a built list before anything is allocated ([`limits`]).
pub(crate) fn until_step(start: i64, stop: i64, step: i64) -> Result<Vec<i64>, FuncError> {
    let len = until_step_len(start, stop, step, limits::MAX_BUILT_ITEMS);
    limits::list_within_limit(len)?;
    let len = len.unwrap_or_default() as usize;
    let mut v = Vec::with_capacity(len);
    let mut i = start;
    for _ in 0..len {
        v.push(i);
        i = i.wrapping_add(step);
    }
    Ok(v)
}

/// Sprig's `seq`, as a space-separated string (Go's `int` arithmetic wraps, as there).
fn seq(params: &[i64]) -> Result<String, FuncError> {
    let nums = match *params {
        [end] => {
            let inc = if end < 1 { -1 } else { 1 };
            until_step(1, end.wrapping_add(inc), inc)?
        }
        [start, end] => {
            let step = if end < start { -1 } else { 1 };
            until_step(start, end.wrapping_add(step), step)?
        }
        [start, step, end] => {
            let mut inc = 1;
            if end < start {
                inc = -1;
                if step > 0 {
                    return Ok(String::new());
                }
            }
            until_step(start, end.wrapping_add(inc), step)?
        }
        _ => return Ok(String::new()),
    };
    let mut out = String::with_capacity(nums.len() * 4);
    for (k, n) in nums.iter().enumerate() {
        if k > 0 {
            out.push(' ');
        }
        out.push_str(&n.to_string());
    }
    Ok(out)
}

/// Go's `strconv.ParseInt(s, 8, 64)`, `None` on any error.
fn parse_octal(s: &str) -> Option<i64> {
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() || !digits.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        return None;
    }
    let mag = u64::from_str_radix(digits, 8).ok()?;
    if neg {
        (mag <= i64::MAX as u64 + 1).then(|| (mag as i64).wrapping_neg())
    } else {
        i64::try_from(mag).ok()
    }
}

/// Sprig's `mustChunk`.
fn chunk(size: i64, list: &Value) -> Result<Value, FuncError> {
    let items: Vec<Value> = match list {
        Value::List(l) => l.items().to_vec(),
        Value::Bytes(b) => b
            .iter()
            .map(|&x| Value::Int(x as i64, IntKind::Uint8))
            .collect(),
        other => {
            return Err(FuncError::new(format!(
                "Cannot chunk type {}",
                crate::go_kind(other)
            )));
        }
    };
    let len = items.len() as i64;
    let count = ((len - 1) as f64 / size as f64).floor() + 1.0;
    if !count.is_finite() || count < 0.0 {
        return Err(runtime_error("makeslice: len out of range"));
    }
    let count = count as i64;
    let mut out = Vec::new();
    for i in 0..count {
        let mut clen = size;
        if i == count - 1 {
            clen = len % size;
            if clen == 0 {
                clen = size;
            }
        }
        let lo = (i * size) as usize;
        let hi = lo + clen as usize;
        if hi > items.len() {
            return Err(runtime_error(&format!(
                "index out of range [{}] with length {}",
                items.len(),
                items.len()
            )));
        }
        out.push(Value::List(List::new(items[lo..hi].to_vec())));
    }
    Ok(Value::List(List::typed(out, "[]interface {}")))
}

pub(super) fn register(map: &mut FuncMap) {
    def(map, "add1f", &[ANY], None, "float64", false, |_, a| {
        decimal_op(&a[0], &[Value::int(1)], |x, y| Ok(x.add(y)))
    });
    def(map, "addf", &[], Some(ANY), "float64", false, |_, a| {
        decimal_op(&Value::Float(0.0), &a, |x, y| Ok(x.add(y)))
    });
    def(map, "subf", &[ANY], Some(ANY), "float64", false, |_, a| {
        decimal_op(&a[0], &a[1..], |x, y| Ok(x.sub(y)))
    });
    def(map, "mulf", &[ANY], Some(ANY), "float64", false, |_, a| {
        decimal_op(&a[0], &a[1..], |x, y| Ok(x.mul(y)))
    });
    def(map, "divf", &[ANY], Some(ANY), "float64", false, |_, a| {
        decimal_op(&a[0], &a[1..], Decimal::div)
    });
    def(map, "maxf", &[ANY], Some(ANY), "float64", false, |_, a| {
        Ok(Value::Float(
            a[1..]
                .iter()
                .map(to_float64)
                .fold(to_float64(&a[0]), go_max),
        ))
    });
    def(map, "minf", &[ANY], Some(ANY), "float64", false, |_, a| {
        Ok(Value::Float(
            a[1..]
                .iter()
                .map(to_float64)
                .fold(to_float64(&a[0]), go_min),
        ))
    });
    def(map, "seq", &[], Some(INT), "string", false, |_, a| {
        let params: Vec<i64> = (0..a.len()).map(|i| n(&a, i)).collect();
        seq(&params).map(Value::from)
    });
    def(map, "toDecimal", &[ANY], None, "int64", false, |_, a| {
        Ok(Value::int64(
            parse_octal(&sprint(&a[..1])).unwrap_or_default(),
        ))
    });
    def(map, "randInt", &[INT, INT], None, "int", false, |_, a| {
        let (min, max) = (n(&a, 0), n(&a, 1));
        let span = max.wrapping_sub(min);
        if span <= 0 {
            return Err(FuncError::new("invalid argument to Intn"));
        }
        Ok(Value::int(
            super::text::random_below(span as u64) as i64 + min,
        ))
    });
    for (name, must) in [("chunk", false), ("mustChunk", true)] {
        def(
            map,
            name,
            &[INT, ANY],
            None,
            "[][]interface {}",
            must,
            |_, a| chunk(n(&a, 0), &a[1]),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(f: f64) -> Decimal {
        Decimal::from_float(f).unwrap()
    }

    #[test]
    fn decimal_ops() {
        assert_eq!(d(1.1).add(&d(2.2)).to_f64(), 3.3);
        assert_eq!(d(0.1).mul(&d(3.0)).to_f64(), 0.3);
        assert_eq!(d(1.0).div(&d(3.0)).unwrap().to_f64(), 0.3333333333333333);
        assert_eq!(d(2.0).div(&d(3.0)).unwrap().to_f64(), 0.6666666666666667);
        assert_eq!(d(-2.0).div(&d(3.0)).unwrap().to_f64(), -0.6666666666666667);
        assert_eq!(d(1e300).add(&d(1e-300)).to_f64(), 1e300);
    }

    #[test]
    fn seq_like_sprig() {
        let seq = |p: &[i64]| seq(p).unwrap();
        assert_eq!(seq(&[5]), "1 2 3 4 5");
        assert_eq!(seq(&[-3]), "1 0 -1 -2 -3");
        assert_eq!(seq(&[0, 2, 10]), "0 2 4 6 8 10");
        assert_eq!(seq(&[10, -2, 0]), "10 8 6 4 2 0");
        assert_eq!(seq(&[10, 2, 0]), "");
        // Go's int wraps: `end + 1` of the largest int is the smallest, so nothing.
        assert_eq!(seq(&[i64::MAX]), "");
        assert_eq!(seq(&[i64::MIN]), "");
    }

    #[test]
    fn until_step_counts_as_go_loops() {
        let max = 1000;
        // (start, stop, step, numbers Go's loop yields; None: wraps and runs past max)
        let cases: &[(i64, i64, i64, Option<u64>)] = &[
            (0, 10, 1, Some(10)),
            (0, 10, 3, Some(4)),
            (0, 10, 0, Some(0)),
            (0, 10, -1, Some(0)),
            (10, 0, -3, Some(4)),
            (10, 0, 3, Some(0)),
            (5, 5, 1, Some(0)),
            (0, 1_000_000, 1, Some(1_000_000)),
            (i64::MIN, i64::MAX, 1, Some(u64::MAX)),
            (i64::MIN, i64::MAX, i64::MAX, None),
            (i64::MIN, i64::MAX, 1 << 62, None),
            (i64::MIN, 1 << 62, 1 << 62, Some(3)),
            (i64::MAX, i64::MIN, i64::MIN, None),
            (0, i64::MAX, i64::MAX, Some(1)),
            // The step carries past the largest int: Go's i wraps and the loop goes on.
            (i64::MAX - 1, i64::MAX, 2, None),
            (0, i64::MAX, 1 << 62, None),
            (i64::MIN + 1, i64::MIN, -2, None),
        ];
        for &(start, stop, step, want) in cases {
            assert_eq!(
                until_step_len(start, stop, step, max),
                want,
                "untilStep {start} {stop} {step}"
            );
            // Against Go's loop itself, wrapping, run to the bound.
            let mut go = 0u64;
            let mut i = start;
            let down = stop < start;
            if (down && step < 0) || (!down && step > 0) {
                while (down && i > stop) || (!down && i < stop) {
                    go += 1;
                    if go > max {
                        break;
                    }
                    i = i.wrapping_add(step);
                }
            }
            let bounded = want.filter(|&c| c <= max);
            assert_eq!(
                bounded,
                (go <= max).then_some(go),
                "the loop for {start} {stop} {step}"
            );
        }
    }

    #[test]
    fn huge_counts_are_refused_before_allocating() {
        let err = until_step(0, 100_000_000_000, 1).unwrap_err().to_string();
        assert!(err.contains("a list of 100000000000 numbers"), "{err}");
        assert!(seq(&[1, 100_000_000_000]).is_err());
        assert_eq!(until_step(0, 4, 1).unwrap(), vec![0, 1, 2, 3],);
    }
}
