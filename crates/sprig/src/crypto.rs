//! Sprig's encodings, digests and ciphers: `b64enc`, `b64dec`, `sha256sum`, `encryptAES`,
//! `decryptAES`.

use gotemplate::{ArgType, FuncError, FuncMap, Value};

use super::{def, s};

const STR: ArgType = ArgType::String;
const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

pub(crate) use goyaml::json_value::b64_encode;

fn b64_value(c: u8) -> Option<u32> {
    B64.iter().position(|&x| x == c).map(|p| p as u32)
}

/// Go's `base64.StdEncoding.DecodeString`: the bytes decoded before an error, and the error's
/// input offset (`illegal base64 data at input byte N`). `\r` and `\n` are ignored.
pub(super) fn b64_decode(src: &[u8]) -> (Vec<u8>, Option<usize>) {
    let mut out = Vec::new();
    let mut si = 0;
    let is_nl = |c: u8| c == b'\n' || c == b'\r';
    loop {
        let mut buf = [0u32; 4];
        let mut dlen = 4;
        let mut end = false;
        let mut j = 0;
        while j < 4 {
            if si == src.len() {
                if j == 0 {
                    return (out, None);
                }
                return (out, Some(si - j));
            }
            let c = src[si];
            si += 1;
            if let Some(v) = b64_value(c) {
                buf[j] = v;
                j += 1;
                continue;
            }
            if is_nl(c) {
                continue;
            }
            if c != b'=' || j < 2 {
                return (out, Some(si - 1));
            }
            if j == 2 {
                while si < src.len() && is_nl(src[si]) {
                    si += 1;
                }
                if si == src.len() {
                    return (out, Some(src.len()));
                }
                if src[si] != b'=' {
                    return (out, Some(si - 1));
                }
                si += 1;
            }
            while si < src.len() && is_nl(src[si]) {
                si += 1;
            }
            dlen = j;
            end = true;
            break;
        }
        let n = buf[0] << 18 | buf[1] << 12 | buf[2] << 6 | buf[3];
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..dlen - 1]);
        if end {
            if si < src.len() {
                return (out, Some(si));
            }
            return (out, None);
        }
    }
}

const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

/// SHA-256 of `data`, as lowercase hex.
pub fn sha256_hex(data: &[u8]) -> String {
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&((data.len() as u64) * 8).to_be_bytes());
    for block in msg.chunks(64) {
        let mut w = [0u32; 64];
        for i in 0..16 {
            w[i] = u32::from_be_bytes(block[4 * i..4 * i + 4].try_into().unwrap());
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let mut v = h;
        for i in 0..64 {
            let s1 = v[4].rotate_right(6) ^ v[4].rotate_right(11) ^ v[4].rotate_right(25);
            let ch = (v[4] & v[5]) ^ (!v[4] & v[6]);
            let t1 = v[7]
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let s0 = v[0].rotate_right(2) ^ v[0].rotate_right(13) ^ v[0].rotate_right(22);
            let maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
            let t2 = s0.wrapping_add(maj);
            v = [
                t1.wrapping_add(t2),
                v[0],
                v[1],
                v[2],
                v[3].wrapping_add(t1),
                v[4],
                v[5],
                v[6],
            ];
        }
        for (x, y) in h.iter_mut().zip(v) {
            *x = x.wrapping_add(y);
        }
    }
    h.iter().map(|x| format!("{x:08x}")).collect()
}

/// Sprig's AES key: the password's first 32 bytes, zero-padded (AES-256).
fn aes_key(password: &str) -> aes::Aes256 {
    use aes::cipher::KeyInit;
    let mut key = [0u8; 32];
    let n = password.len().min(32);
    key[..n].copy_from_slice(&password.as_bytes()[..n]);
    aes::Aes256::new(&key.into())
}

/// Sprig's `encryptAES`: PKCS#7 padding, a random IV, AES-256-CBC, base64 of IV + ciphertext.
fn encrypt_aes(password: &str, plain: &str) -> Result<String, FuncError> {
    use aes::cipher::BlockEncrypt;
    if plain.is_empty() {
        return Ok(String::new());
    }
    let cipher = aes_key(password);
    let mut content = plain.as_bytes().to_vec();
    let pad = 16 - content.len() % 16;
    content.extend(std::iter::repeat_n(pad as u8, pad));
    let mut out = vec![0u8; 16];
    getrandom::getrandom(&mut out).map_err(|e| FuncError::new(e.to_string()))?;
    let mut prev: [u8; 16] = out[..16].try_into().unwrap();
    for chunk in content.chunks(16) {
        let mut block = [0u8; 16];
        for i in 0..16 {
            block[i] = chunk[i] ^ prev[i];
        }
        let mut b = block.into();
        cipher.encrypt_block(&mut b);
        prev = b.into();
        out.extend_from_slice(&prev);
    }
    Ok(b64_encode(&out))
}

/// Sprig's `decryptAES`, with Go's panics where its slicing goes wrong.
fn decrypt_aes(password: &str, crypt64: &str) -> Result<String, FuncError> {
    use aes::cipher::BlockDecrypt;
    if crypt64.is_empty() {
        return Ok(String::new());
    }
    let (crypt, err) = b64_decode(crypt64.as_bytes());
    if let Some(at) = err {
        return Err(FuncError::new(format!(
            "illegal base64 data at input byte {at}"
        )));
    }
    if crypt.len() < 16 {
        return Err(super::runtime_error(&format!(
            "slice bounds out of range [:16] with capacity {}",
            crypt.len()
        )));
    }
    let (iv, body) = crypt.split_at(16);
    if body.len() % 16 != 0 {
        return Err(FuncError::new("crypto/cipher: input not full blocks"));
    }
    if body.is_empty() {
        return Err(super::runtime_error("index out of range [-1]"));
    }
    let cipher = aes_key(password);
    let mut prev: [u8; 16] = iv.try_into().unwrap();
    let mut out = Vec::with_capacity(body.len());
    for chunk in body.chunks(16) {
        let mut b: [u8; 16] = chunk.try_into().unwrap();
        let mut g = b.into();
        cipher.decrypt_block(&mut g);
        b = g.into();
        for i in 0..16 {
            out.push(b[i] ^ prev[i]);
        }
        prev = chunk.try_into().unwrap();
    }
    let pad = out[out.len() - 1] as usize;
    if pad > out.len() {
        return Err(super::runtime_error(&format!(
            "slice bounds out of range [:{}]",
            out.len() as i64 - pad as i64
        )));
    }
    out.truncate(out.len() - pad);
    Ok(String::from_utf8_lossy(&out).into_owned())
}

pub(super) fn register(map: &mut FuncMap) {
    def(
        map,
        "encryptAES",
        &[STR, STR],
        None,
        "string",
        true,
        |_, a| encrypt_aes(s(&a, 0), s(&a, 1)).map(Value::from),
    );
    def(
        map,
        "decryptAES",
        &[STR, STR],
        None,
        "string",
        true,
        |_, a| decrypt_aes(s(&a, 0), s(&a, 1)).map(Value::from),
    );
    def(map, "b64enc", &[STR], None, "string", false, |_, a| {
        Ok(Value::from(b64_encode(s(&a, 0).as_bytes())))
    });
    def(map, "b64dec", &[STR], None, "string", false, |_, a| {
        let (data, err) = b64_decode(s(&a, 0).as_bytes());
        Ok(Value::from(match err {
            Some(at) => format!("illegal base64 data at input byte {at}"),
            None => String::from_utf8_lossy(&data).into_owned(),
        }))
    });
    def(map, "sha256sum", &[STR], None, "string", false, |_, a| {
        Ok(Value::from(sha256_hex(s(&a, 0).as_bytes())))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_known() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn base64_round_trip() {
        for s in ["", "a", "ab", "abc", "abcd", "hello world"] {
            let e = b64_encode(s.as_bytes());
            assert_eq!(b64_decode(e.as_bytes()), (s.as_bytes().to_vec(), None));
        }
        assert_eq!(b64_encode(b"ab"), "YWI=");
        assert_eq!(b64_decode(b"YW").1, Some(0));
        assert_eq!(b64_decode(b"YW!=").1, Some(2));
    }
}
