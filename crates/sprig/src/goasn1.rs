//! Go's `encoding/asn1.Unmarshal` into the few structs that key parsing decodes: x509's
//! `pkcs1PrivateKey`, `ecPrivateKey` and `pkcs8`, and Sprig's `DSAKeyFormat`.
//!
//! Go decodes by reflection over the struct's fields; here each struct is a static list of
//! fields with the Go type and `asn1` tag parameters that matter, and the reader follows Go's
//! `parseField` decisions in the same order, so a malformed key fails with Go's words
//! (`asn1: structure error: tags don't match (16 vs {class:0 tag:2 …}) … pkcs1PrivateKey @2`,
//! `asn1: syntax error: sequence truncated`, …). x509 also decides which format a key "looks
//! like" by whether `Unmarshal` into another struct succeeds; [`unmarshal`] answers that exactly.

/// The Go field types these structs use.
#[derive(Clone, Copy, Debug)]
pub(super) enum GoType {
    /// `int` (64 bits).
    Int,
    /// `*big.Int`.
    BigInt,
    /// `[]byte` (an OCTET STRING).
    Bytes,
    /// `asn1.ObjectIdentifier`.
    Oid,
    /// `asn1.BitString`.
    BitString,
    /// `asn1.RawValue`: any element.
    Raw,
    /// A struct (a SEQUENCE), by Go name.
    Struct(&'static str, &'static [Field]),
    /// `[]T` for a struct `T` (a SEQUENCE OF).
    SliceOf(&'static GoType),
}

impl GoType {
    /// `reflect.Type.Name()`, which Go's "tags don't match" message ends with: empty for
    /// unnamed types (pointers and slices).
    fn name(self) -> &'static str {
        match self {
            GoType::Int => "int",
            GoType::Oid => "ObjectIdentifier",
            GoType::BitString => "BitString",
            GoType::Raw => "RawValue",
            GoType::Struct(name, _) => name,
            GoType::BigInt | GoType::Bytes | GoType::SliceOf(_) => "",
        }
    }

    /// Go's `getUniversalType`: (matches any element, universal tag, constructed).
    fn universal(self) -> (bool, u64, bool) {
        match self {
            GoType::Raw => (true, 0, false),
            GoType::Oid => (false, TAG_OID, false),
            GoType::BitString => (false, TAG_BIT_STRING, false),
            GoType::Int | GoType::BigInt => (false, TAG_INTEGER, false),
            GoType::Bytes => (false, TAG_OCTET_STRING, false),
            GoType::Struct(..) | GoType::SliceOf(_) => (false, TAG_SEQUENCE, true),
        }
    }
}

/// A struct field: its type and `asn1:"optional"` / `asn1:"explicit,tag:N"` parameters.
#[derive(Clone, Copy, Debug)]
pub(super) struct Field {
    pub ty: GoType,
    pub optional: bool,
    pub explicit: Option<u64>,
}

const fn field(ty: GoType) -> Field {
    Field {
        ty,
        optional: false,
        explicit: None,
    }
}

const fn optional(ty: GoType) -> Field {
    Field {
        ty,
        optional: true,
        explicit: None,
    }
}

const fn explicit(ty: GoType, tag: u64) -> Field {
    Field {
        ty,
        optional: true,
        explicit: Some(tag),
    }
}

const TAG_INTEGER: u64 = 2;
const TAG_BIT_STRING: u64 = 3;
const TAG_OCTET_STRING: u64 = 4;
const TAG_OID: u64 = 6;
const TAG_SEQUENCE: u64 = 16;
const CLASS_UNIVERSAL: u8 = 0;
const CLASS_CONTEXT: u8 = 2;

/// x509's `pkcs1PrivateKey`.
pub(super) const PKCS1: GoType = GoType::Struct(
    "pkcs1PrivateKey",
    &[
        field(GoType::Int),
        field(GoType::BigInt),
        field(GoType::Int),
        field(GoType::BigInt),
        field(GoType::BigInt),
        field(GoType::BigInt),
        optional(GoType::BigInt),
        optional(GoType::BigInt),
        optional(GoType::BigInt),
        optional(GoType::SliceOf(&GoType::Struct(
            "pkcs1AdditionalRSAPrime",
            &[
                field(GoType::BigInt),
                field(GoType::BigInt),
                field(GoType::BigInt),
            ],
        ))),
    ],
);

/// x509's `ecPrivateKey` (SEC 1).
pub(super) const SEC1: GoType = GoType::Struct(
    "ecPrivateKey",
    &[
        field(GoType::Int),
        field(GoType::Bytes),
        explicit(GoType::Oid, 0),
        explicit(GoType::BitString, 1),
    ],
);

/// x509's `pkcs8` (with `pkix.AlgorithmIdentifier`).
pub(super) const PKCS8: GoType = GoType::Struct(
    "pkcs8",
    &[
        field(GoType::Int),
        field(GoType::Struct(
            "AlgorithmIdentifier",
            &[field(GoType::Oid), optional(GoType::Raw)],
        )),
        field(GoType::Bytes),
    ],
);

/// Sprig's `DSAKeyFormat`: `Version int` and `P, Q, G, Y, X *big.Int`.
pub(super) const DSA: GoType = GoType::Struct(
    "DSAKeyFormat",
    &[
        field(GoType::Int),
        field(GoType::BigInt),
        field(GoType::BigInt),
        field(GoType::BigInt),
        field(GoType::BigInt),
        field(GoType::BigInt),
    ],
);

/// A decoded value.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Decoded<'a> {
    /// An optional field that is not there.
    Absent,
    Int(i64),
    /// The two's complement bytes of a `*big.Int` (checked minimal).
    BigInt(&'a [u8]),
    /// `[]byte` contents.
    Bytes(&'a [u8]),
    /// An OBJECT IDENTIFIER's contents (checked).
    Oid(&'a [u8]),
    /// A BIT STRING's bytes, after the padding count.
    BitString(&'a [u8]),
    /// A raw element's whole encoding (`RawValue.FullBytes`).
    Raw(&'a [u8]),
    Struct(Vec<Decoded<'a>>),
    Slice(Vec<Decoded<'a>>),
}

fn syntax(msg: &str) -> String {
    format!("asn1: syntax error: {msg}")
}

fn structure(msg: &str) -> String {
    format!("asn1: structure error: {msg}")
}

/// Go's `tagAndLength`.
#[derive(Clone, Copy)]
struct TagLen {
    class: u8,
    tag: u64,
    length: usize,
    compound: bool,
}

/// Go's `parseBase128Int`.
fn base128(b: &[u8], mut off: usize) -> Result<(u64, usize), String> {
    let mut value: u64 = 0;
    let mut shifted = 0;
    while off < b.len() {
        if shifted == 5 {
            return Err(structure("base 128 integer too large"));
        }
        let byte = b[off];
        if shifted == 0 && byte == 0x80 {
            return Err(syntax("integer is not minimally encoded"));
        }
        value = value << 7 | u64::from(byte & 0x7f);
        off += 1;
        if byte & 0x80 == 0 {
            if value > i32::MAX as u64 {
                return Err(structure("base 128 integer too large"));
            }
            return Ok((value, off));
        }
        shifted += 1;
    }
    Err(syntax("truncated base 128 integer"))
}

/// Go's `parseTagAndLength`.
fn tag_and_length(b: &[u8], mut off: usize) -> Result<(TagLen, usize), String> {
    let Some(&first) = b.get(off) else {
        return Err("asn1: internal error in parseTagAndLength".into());
    };
    off += 1;
    let mut t = TagLen {
        class: first >> 6,
        tag: u64::from(first & 0x1f),
        length: 0,
        compound: first & 0x20 != 0,
    };
    if t.tag == 0x1f {
        let (tag, next) = base128(b, off)?;
        off = next;
        if tag < 0x1f {
            return Err(syntax("non-minimal tag"));
        }
        t.tag = tag;
    }
    let Some(&len_byte) = b.get(off) else {
        return Err(syntax("truncated tag or length"));
    };
    off += 1;
    if len_byte & 0x80 == 0 {
        t.length = usize::from(len_byte & 0x7f);
        return Ok((t, off));
    }
    let count = usize::from(len_byte & 0x7f);
    if count == 0 {
        return Err(syntax("indefinite length found (not DER)"));
    }
    for _ in 0..count {
        let Some(&byte) = b.get(off) else {
            return Err(syntax("truncated tag or length"));
        };
        off += 1;
        if t.length >= 1 << 23 {
            return Err(structure("length too large"));
        }
        t.length = t.length << 8 | usize::from(byte);
        if t.length == 0 {
            return Err(structure("superfluous leading zeros in length"));
        }
    }
    if t.length < 0x80 {
        return Err(structure("non-minimal length"));
    }
    Ok((t, off))
}

/// Go's `checkInteger`.
fn check_integer(b: &[u8]) -> Result<(), String> {
    match b {
        [] => Err(structure("empty integer")),
        [0, next, ..] if next & 0x80 == 0 => Err(structure("integer not minimally-encoded")),
        [0xff, next, ..] if next & 0x80 != 0 => Err(structure("integer not minimally-encoded")),
        _ => Ok(()),
    }
}

/// Go's `parseInt64`.
fn int64(b: &[u8]) -> Result<i64, String> {
    check_integer(b)?;
    if b.len() > 8 {
        return Err(structure("integer too large"));
    }
    let negative = b[0] & 0x80 != 0;
    Ok(b.iter().fold(if negative { -1i64 } else { 0 }, |acc, &x| {
        acc << 8 | i64::from(x)
    }))
}

/// Go's `parseObjectIdentifier` (validation only).
fn check_oid(b: &[u8]) -> Result<(), String> {
    if b.is_empty() {
        return Err(syntax("zero length OBJECT IDENTIFIER"));
    }
    let mut off = 0;
    while off < b.len() {
        off = base128(b, off)?.1;
    }
    Ok(())
}

/// Go's `parseBitString`: the bytes after the padding count.
fn bit_string(b: &[u8]) -> Result<&[u8], String> {
    let Some(&padding) = b.first() else {
        return Err(syntax("zero length BIT STRING"));
    };
    let last = b[b.len() - 1];
    if padding > 7 || b.len() == 1 && padding > 0 || last & ((1u8 << padding) - 1) != 0 {
        return Err(syntax("invalid padding bits in BIT STRING"));
    }
    Ok(&b[1..])
}

/// Go's `%+v` of a field's `fieldParameters` (only fields without an explicit tag reach the
/// message: an explicit tag is a pointer, which Go prints as an address).
fn params_text(f: Field) -> String {
    format!(
        "{{optional:{} explicit:false application:false private:false defaultValue:<nil> \
         tag:<nil> stringType:0 timeType:0 set:false omitEmpty:false}}",
        f.optional
    )
}

/// Go's `parseField` of `f` in `b` at `init`: the value and the offset after it.
fn parse_field<'a>(b: &'a [u8], init: usize, f: Field) -> Result<(Decoded<'a>, usize), String> {
    if init == b.len() {
        return if f.optional {
            Ok((Decoded::Absent, init))
        } else {
            Err(syntax("sequence truncated"))
        };
    }
    let (mut t, mut off) = tag_and_length(b, init)?;
    if let Some(tag) = f.explicit {
        if off == b.len() {
            return Err(structure("explicit tag has no child"));
        }
        if t.class == CLASS_CONTEXT && t.tag == tag && (t.length == 0 || t.compound) {
            if t.length == 0 {
                return Err(structure("zero length explicit tag was not an asn1.Flag"));
            }
            (t, off) = tag_and_length(b, off)?;
        } else {
            // A missing optional element: the field keeps its default and nothing is read.
            return Ok((Decoded::Absent, init));
        }
    }
    let (any, tag, compound) = f.ty.universal();
    if !any && (t.class != CLASS_UNIVERSAL || t.tag != tag || t.compound != compound) {
        if f.optional {
            return Ok((Decoded::Absent, init));
        }
        return Err(structure(&format!(
            "tags don't match ({tag} vs {{class:{} tag:{} length:{} isCompound:{}}}) {} {} @{off}",
            t.class,
            t.tag,
            t.length,
            t.compound,
            params_text(f),
            f.ty.name()
        )));
    }
    let end = off
        .checked_add(t.length)
        .filter(|&end| end <= b.len())
        .ok_or_else(|| syntax("data truncated"))?;
    let inner = &b[off..end];
    let value = match f.ty {
        GoType::Raw => Decoded::Raw(&b[init..end]),
        GoType::Oid => {
            check_oid(inner)?;
            Decoded::Oid(inner)
        }
        GoType::BitString => Decoded::BitString(bit_string(inner)?),
        GoType::BigInt => {
            check_integer(inner)?;
            Decoded::BigInt(inner)
        }
        GoType::Int => Decoded::Int(int64(inner)?),
        GoType::Bytes => Decoded::Bytes(inner),
        GoType::Struct(_, fields) => {
            let mut values = Vec::with_capacity(fields.len());
            let mut at = 0;
            for &field in fields {
                let (v, next) = parse_field(inner, at, field)?;
                values.push(v);
                at = next;
            }
            // Go allows extra elements at the end of a SEQUENCE.
            Decoded::Struct(values)
        }
        GoType::SliceOf(elem) => Decoded::Slice(parse_sequence_of(inner, *elem)?),
    };
    Ok((value, end))
}

/// Go's `parseSequenceOf`: every element's tag is checked before any is decoded.
fn parse_sequence_of(b: &[u8], elem: GoType) -> Result<Vec<Decoded<'_>>, String> {
    let (any, tag, compound) = elem.universal();
    let mut count = 0;
    let mut off = 0;
    while off < b.len() {
        let (t, next) = tag_and_length(b, off)?;
        if !any && (t.class != CLASS_UNIVERSAL || t.compound != compound || t.tag != tag) {
            return Err(structure("sequence tag mismatch"));
        }
        off = next
            .checked_add(t.length)
            .filter(|&end| end <= b.len())
            .ok_or_else(|| syntax("truncated sequence"))?;
        count += 1;
    }
    let mut values = Vec::with_capacity(count);
    let mut at = 0;
    for _ in 0..count {
        let (v, next) = parse_field(b, at, field(elem))?;
        values.push(v);
        at = next;
    }
    Ok(values)
}

/// Go's `asn1.Unmarshal(der, &value)` for a value of type `ty`: the value and the bytes after
/// it.
pub(super) fn unmarshal(der: &[u8], ty: GoType) -> Result<(Decoded<'_>, &[u8]), String> {
    let (value, end) = parse_field(der, 0, field(ty))?;
    Ok((value, &der[end..]))
}

/// [`unmarshal`] of a struct type: its fields in order.
pub(super) fn unmarshal_struct(
    der: &[u8],
    ty: GoType,
) -> Result<(Vec<Decoded<'_>>, &[u8]), String> {
    match unmarshal(der, ty)? {
        (Decoded::Struct(fields), rest) => Ok((fields, rest)),
        // Unreachable for a struct type: `parse_field` decodes a struct as `Decoded::Struct`.
        (other, _) => Err(format!("asn1: unexpected value {other:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_wording_of_malformed_keys() {
        let cases: &[(&[u8], GoType, &str)] = &[
            (&[], DSA, "asn1: syntax error: sequence truncated"),
            (
                &[0x30, 0x03, 0x02, 0x01, 0x00],
                DSA,
                "asn1: syntax error: sequence truncated",
            ),
            (
                &[0x02, 0x01, 0x00],
                DSA,
                "asn1: structure error: tags don't match (16 vs {class:0 tag:2 length:1 \
                 isCompound:false}) {optional:false explicit:false application:false \
                 private:false defaultValue:<nil> tag:<nil> stringType:0 timeType:0 set:false \
                 omitEmpty:false} DSAKeyFormat @2",
            ),
            (
                &[0x30, 0x03, 0x04, 0x01, 0x00],
                DSA,
                "asn1: structure error: tags don't match (2 vs {class:0 tag:4 length:1 \
                 isCompound:false}) {optional:false explicit:false application:false \
                 private:false defaultValue:<nil> tag:<nil> stringType:0 timeType:0 set:false \
                 omitEmpty:false} int @2",
            ),
            (
                &[0x30, 0x05, 0x02],
                DSA,
                "asn1: syntax error: data truncated",
            ),
            (&[0x30], DSA, "asn1: syntax error: truncated tag or length"),
            (
                &[0x30, 0x80],
                DSA,
                "asn1: syntax error: indefinite length found (not DER)",
            ),
            (
                &[0x30, 0x81, 0x05],
                DSA,
                "asn1: structure error: non-minimal length",
            ),
            (
                &[0x30, 0x82, 0x00, 0x90],
                DSA,
                "asn1: structure error: superfluous leading zeros in length",
            ),
            (
                &[0x30, 0x04, 0x02, 0x02, 0x00, 0x01],
                DSA,
                "asn1: structure error: integer not minimally-encoded",
            ),
            (
                &[0x30, 0x02, 0x02, 0x00],
                DSA,
                "asn1: structure error: empty integer",
            ),
            (
                &[0x30, 0x0b, 0x02, 0x09, 1, 2, 3, 4, 5, 6, 7, 8, 9],
                DSA,
                "asn1: structure error: integer too large",
            ),
            (
                &[0x1f, 0x01, 0x00],
                DSA,
                "asn1: syntax error: non-minimal tag",
            ),
            (
                &[0x3f, 0x80],
                DSA,
                "asn1: syntax error: integer is not minimally encoded",
            ),
            (
                &[0x3f, 0x81],
                DSA,
                "asn1: syntax error: truncated base 128 integer",
            ),
        ];
        for (der, ty, want) in cases {
            assert_eq!(unmarshal_struct(der, *ty).unwrap_err(), *want, "{der:02x?}");
        }
    }

    #[test]
    fn optional_and_explicit_fields() {
        // An ecPrivateKey with only the required fields, and one with a curve.
        let (fields, rest) =
            unmarshal_struct(&[0x30, 0x06, 0x02, 0x01, 0x01, 0x04, 0x01, 0x07], SEC1).unwrap();
        assert!(rest.is_empty());
        assert_eq!(
            fields,
            vec![
                Decoded::Int(1),
                Decoded::Bytes(&[7]),
                Decoded::Absent,
                Decoded::Absent
            ]
        );
        let der = [
            0x30, 0x0b, 0x02, 0x01, 0x01, 0x04, 0x01, 0x07, 0xa0, 0x03, 0x06, 0x01, 0x2a, 0xff,
        ];
        let (fields, rest) = unmarshal_struct(&der, SEC1).unwrap();
        assert_eq!(rest, &[0xff]);
        assert_eq!(fields[2], Decoded::Oid(&[0x2a]));
        // A SEC 1 key is not a PKCS#1 one: its second element is no INTEGER.
        assert!(unmarshal_struct(&der, PKCS1).is_err());
    }
}
