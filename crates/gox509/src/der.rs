//! DER: tags, lengths, integers, bit strings, sequences and extensions, as Go's
//! `encoding/asn1` writes them, and the object identifiers bosun uses.

use rsa::BigUint;

pub const OID_RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
pub const OID_SHA256_RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b];
pub const OID_EC_PUBLIC_KEY: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
pub const OID_P256: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
pub const OID_ECDSA_SHA256: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02];
pub const OID_ED25519: &[u8] = &[0x2b, 0x65, 0x70];
pub const OID_CN: &[u8] = &[0x55, 0x04, 0x03];
pub const OID_O: &[u8] = &[0x55, 0x04, 0x0a];
pub const OID_L: &[u8] = &[0x55, 0x04, 0x07];
pub const OID_KEY_USAGE: &[u8] = &[0x55, 0x1d, 0x0f];
pub const OID_EXT_KEY_USAGE: &[u8] = &[0x55, 0x1d, 0x25];
pub const OID_BASIC_CONSTRAINTS: &[u8] = &[0x55, 0x1d, 0x13];
pub const OID_SKI: &[u8] = &[0x55, 0x1d, 0x0e];
pub const OID_AKI: &[u8] = &[0x55, 0x1d, 0x23];
pub const OID_SAN: &[u8] = &[0x55, 0x1d, 0x11];
pub const OID_SERVER_AUTH: &[u8] = &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x01];
pub const OID_CLIENT_AUTH: &[u8] = &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x02];

pub const SEQ: u8 = 0x30;
pub const INTEGER: u8 = 0x02;
pub const BIT_STRING: u8 = 0x03;
pub const OCTET_STRING: u8 = 0x04;
pub const OID: u8 = 0x06;

pub fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let len = content.len();
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes = len.to_be_bytes();
        let skip = bytes.iter().take_while(|&&b| b == 0).count();
        out.push(0x80 | (bytes.len() - skip) as u8);
        out.extend_from_slice(&bytes[skip..]);
    }
    out.extend_from_slice(content);
    out
}

pub fn seq(parts: &[&[u8]]) -> Vec<u8> {
    tlv(SEQ, &parts.concat())
}

/// A non-negative INTEGER from big-endian magnitude bytes.
pub fn uint(be: &[u8]) -> Vec<u8> {
    let skip = be.iter().take_while(|&&b| b == 0).count();
    let mut body = be[skip..].to_vec();
    if body.first().is_none_or(|&b| b & 0x80 != 0) {
        body.insert(0, 0);
    }
    tlv(INTEGER, &body)
}

pub fn big(n: &BigUint) -> Vec<u8> {
    uint(&n.to_bytes_be())
}

pub fn bit_string(bytes: &[u8]) -> Vec<u8> {
    let mut body = vec![0];
    body.extend_from_slice(bytes);
    tlv(BIT_STRING, &body)
}
