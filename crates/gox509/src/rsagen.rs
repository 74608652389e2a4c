//! RSA key generation as fast as Go's `crypto/rsa` (what helm's `genCA` runs): two random
//! primes, each the first probable prime after a random odd start in a sieved window, made into
//! a key by the `rsa` crate ([`rsa::RsaPrivateKey::from_p_q`]: d = e⁻¹ mod λ(n), as Go).
//!
//! Why our own prime search rather than `rsa::RsaPrivateKey::new` (rsa 0.9), measured in a
//! release build on this project's 2-core VM (2026-12-07, loaded by other builds; medians):
//! `RsaPrivateKey::new(2048)` took 1.09 s, Go 1.26's `rsa.GenerateKey(2048)` 94 ms. Three
//! causes, each fixed here with little code:
//! - `num-bigint-dig`, as `rsa` asks for it, computes with 32-bit digits: a 1024-bit `modpow`
//!   took 1.97 ms, with its `u64_digit` feature 0.65 ms (as fast as `num-bigint` 0.4 and
//!   `crypto-bigint` 0.5 measured in the same run). This crate turns the feature on (see its
//!   Cargo.toml); that alone brought `RsaPrivateKey::new` to 293 ms.
//! - `rsa` 0.9 tests each prime it keeps with 20 Miller–Rabin rounds and a Lucas test. We run
//!   the rounds Go runs (FIPS 186-5 table B.1 via BoringSSL: 5 for a 1024-bit prime, 4 for a
//!   2048-bit one), each with a base drawn from the OS RNG, which bounds the chance of a
//!   composite far below 2⁻¹⁰⁰ for random candidates.
//! - Most of the time goes into Miller–Rabin on candidates with a small factor. Go divides each
//!   fresh candidate by the 255 odd primes below 1620 (about 15% of odd candidates survive);
//!   we sieve a window of 4096 odd numbers after a random start by every odd prime below 2¹⁶
//!   (about 10% survive), and strike the numbers ≡ 1 mod 65537 in the same pass so that
//!   gcd(e, λ(n)) = 1 holds by construction.
//!
//! Taking the first probable prime after a random start (as OpenSSL, `rsa` 0.9's `gen_prime`
//! and Go before 1.24 do) favours primes after long gaps, a loss of a few bits of entropy out of
//! about a thousand; Go 1.24+ draws a fresh candidate each time only to follow FIPS 186-5 to the
//! letter. Alternatives weighed: `rsa` 0.10 (pre-release, `crypto-bigint` based) and
//! `aws-lc-rs` (a C library built with cmake: minutes of build on every cold CI run) bring
//! more than this file for the same result. Key sizes and types are the callers' (2048 for
//! Sprig's `genCA` family, 4096 for `genPrivateKey "rsa"` and the mesh CA, as Go's callers).

use std::sync::OnceLock;

use rand_core::{OsRng, RngCore};
use rsa::BigUint;

use crate::KeyError;

/// The public exponent, as Go and every caller here use.
const E: u32 = 65537;
/// The sieve strikes multiples of every odd prime below this.
const SIEVE_LIMIT: u32 = 1 << 16;
/// Odd numbers sieved after each random start. A window holds about 11 primes at 1024 bits,
/// so it is almost never exhausted (then a new start is drawn).
const WINDOW: usize = 1 << 12;
/// The smallest modulus made here: below it the sieve could strike a prime itself.
const MIN_BITS: usize = 512;

/// A new RSA key of `bits` bits (exactly), e = 65537, from the OS RNG.
pub fn rsa_key(bits: usize) -> Result<rsa::RsaPrivateKey, KeyError> {
    if bits < MIN_BITS {
        return Err(KeyError::TooSmall(bits));
    }
    let p = random_prime(bits.div_ceil(2))?;
    let q = random_prime(bits / 2)?;
    // p = q only with a broken random source; `from_p_q` refuses it (InvalidPrime).
    let key = rsa::RsaPrivateKey::from_p_q(p, q, BigUint::from(E)).map_err(KeyError::Rsa)?;
    use rsa::traits::PublicKeyParts;
    // Both primes have their top two bits set, so n has exactly `bits` bits.
    if key.n().bits() != bits {
        return Err(KeyError::Rsa(rsa::Error::InvalidModulus));
    }
    Ok(key)
}

/// The odd primes below [`SIEVE_LIMIT`], and their products grouped to fit in a u64 (the
/// residues of a candidate are taken once per group, then per prime from the group's).
struct SmallPrimes {
    primes: Vec<u32>,
    /// (product, number of primes in it), in the order of `primes`.
    groups: Vec<(u64, usize)>,
}

fn small_primes() -> &'static SmallPrimes {
    static PRIMES: OnceLock<SmallPrimes> = OnceLock::new();
    PRIMES.get_or_init(|| {
        let n = SIEVE_LIMIT as usize;
        let mut composite = vec![false; n];
        let mut primes = Vec::new();
        for i in 3..n {
            if i % 2 == 1 && !composite[i] {
                primes.push(i as u32);
                for m in (i * i..n).step_by(2 * i) {
                    composite[m] = true;
                }
            }
        }
        let mut groups = Vec::new();
        let (mut product, mut count) = (1u64, 0);
        for &p in &primes {
            match product.checked_mul(u64::from(p)) {
                Some(x) => (product, count) = (x, count + 1),
                None => {
                    groups.push((product, count));
                    (product, count) = (u64::from(p), 1);
                }
            }
        }
        groups.push((product, count));
        SmallPrimes { primes, groups }
    })
}

/// `n mod m` of a big-endian byte string.
fn rem(bytes: &[u8], m: u64) -> u64 {
    let m = u128::from(m);
    let mut r = 0u128;
    for chunk in bytes.chunks(8) {
        let mut limb = 0u128;
        for &b in chunk {
            limb = limb << 8 | u128::from(b);
        }
        r = ((r << (8 * chunk.len())) | limb) % m;
    }
    r as u64
}

/// Marks, for the odd numbers `start + 2k` (k < [`WINDOW`]), those divisible by a small prime
/// or ≡ 1 mod [`E`]. `start` is odd, given as big-endian bytes.
fn sieve(start: &[u8]) -> Vec<bool> {
    let mut struck = vec![false; WINDOW];
    // The k with start + 2k ≡ target (mod m), m odd: k ≡ (target - start)·2⁻¹, 2⁻¹ = (m+1)/2.
    let mut strike = |residue: u64, target: u64, m: u64| {
        let k = (target + m - residue) % m * m.div_ceil(2) % m;
        for i in (k as usize..WINDOW).step_by(m as usize) {
            struck[i] = true;
        }
    };
    let small = small_primes();
    let mut primes = small.primes.iter();
    for &(product, count) in &small.groups {
        let r = rem(start, product);
        for &p in primes.by_ref().take(count) {
            strike(r % u64::from(p), 0, u64::from(p));
        }
    }
    strike(rem(start, u64::from(E)), 1, u64::from(E));
    struck
}

/// A random prime of exactly `bits` bits whose top two bits are set, p ≢ 1 (mod 65537).
pub(crate) fn random_prime(bits: usize) -> Result<BigUint, KeyError> {
    let mut bytes = vec![0u8; bits.div_ceil(8)];
    let excess = bytes.len() * 8 - bits;
    loop {
        OsRng.try_fill_bytes(&mut bytes).map_err(KeyError::Random)?;
        // As Go: clear the bits above `bits`, set the top two (so p·q never falls one bit
        // short) and the lowest.
        bytes[0] &= 0xff >> excess;
        if excess < 7 {
            bytes[0] |= 0xc0 >> excess;
        } else {
            bytes[0] |= 1;
            bytes[1] |= 0x80;
        }
        *bytes.last_mut().expect("at least 64 bytes") |= 1;
        let start = BigUint::from_bytes_be(&bytes);
        for (k, _) in sieve(&bytes).iter().enumerate().filter(|(_, s)| !**s) {
            let candidate = &start + BigUint::from(2 * k as u64);
            if candidate.bits() != bits {
                break;
            }
            if miller_rabin(&candidate, rounds(bits))? {
                return Ok(candidate);
            }
        }
    }
}

/// Go's number of Miller–Rabin rounds for a random candidate of `bits` bits (FIPS 186-5
/// table B.1, as BoringSSL and `crypto/internal/fips140/rsa` compute it).
fn rounds(bits: usize) -> usize {
    match bits {
        3747.. => 3,
        1345.. => 4,
        476.. => 5,
        400.. => 6,
        347.. => 7,
        308.. => 8,
        55.. => 27,
        _ => 34,
    }
}

/// The Miller–Rabin test of an odd `w` > 3 with `rounds` bases drawn uniformly from
/// [2, w-2] by the OS RNG: false means composite, true probably prime.
pub(crate) fn miller_rabin(w: &BigUint, rounds: usize) -> Result<bool, KeyError> {
    let one = BigUint::from(1u32);
    let two = BigUint::from(2u32);
    let w1 = w - &one;
    let s = w1.trailing_zeros().unwrap_or(0);
    let d = &w1 >> s;
    let len = (w.bits()).div_ceil(8);
    let excess = len * 8 - w.bits();
    let mut buf = vec![0u8; len];
    let mut done = 0;
    'rounds: while done < rounds {
        OsRng.try_fill_bytes(&mut buf).map_err(KeyError::Random)?;
        buf[0] &= 0xff >> excess;
        let base = BigUint::from_bytes_be(&buf);
        if base < two || base >= w1 {
            continue;
        }
        done += 1;
        let mut x = base.modpow(&d, w);
        if x == one || x == w1 {
            continue;
        }
        for _ in 1..s {
            x = &x * &x % w;
            if x == w1 {
                continue 'rounds;
            }
            if x == one {
                return Ok(false);
            }
        }
        return Ok(false);
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsa::traits::{PrivateKeyParts, PublicKeyParts};

    fn big(text: &str) -> BigUint {
        BigUint::parse_bytes(text.as_bytes(), 10).unwrap()
    }

    /// Known primes and composites, including strong pseudoprimes to many fixed bases and
    /// Carmichael numbers (which fool the Fermat test but not Miller–Rabin with random bases).
    #[test]
    fn miller_rabin_known_numbers() {
        let mersenne = |p: usize| (BigUint::from(1u32) << p) - BigUint::from(1u32);
        let cases: &[(BigUint, bool)] = &[
            (big("5"), true),
            (big("65537"), true),
            (mersenne(127), true),
            (mersenne(521), true),
            (mersenne(607), true),
            (mersenne(1279), true),
            (big("9"), false),
            (big("561"), false),                 // Carmichael
            (big("41041"), false),               // Carmichael
            (big("3215031751"), false),          // strong pseudoprime to bases 2, 3, 5, 7
            (big("3825123056546413051"), false), // strong pseudoprime to the first 9 prime bases
            (mersenne(523), false),
            (&mersenne(521) * &mersenne(607), false),
        ];
        for (n, prime) in cases {
            assert_eq!(miller_rabin(n, 40).unwrap(), *prime, "{n}");
        }
    }

    /// Every number the sieve keeps has no odd prime factor below 2¹⁶ and is not 1 mod e;
    /// every number it strikes has one of those.
    #[test]
    fn sieve_strikes_exactly_the_small_factors() {
        let small = small_primes();
        assert_eq!(small.primes.len(), 6541);
        assert_eq!(small.primes[..4], [3, 5, 7, 11]);
        let mut start = vec![0u8; 128];
        OsRng.fill_bytes(&mut start);
        start[127] |= 1;
        let base = BigUint::from_bytes_be(&start);
        for (k, struck) in sieve(&start).into_iter().enumerate().take(200) {
            let n = &base + BigUint::from(2 * k as u64);
            let bytes = n.to_bytes_be();
            let factor = small.primes.iter().any(|&p| rem(&bytes, u64::from(p)) == 0)
                || rem(&bytes, u64::from(E)) == 1;
            assert_eq!(struck, factor, "offset {k}");
        }
    }

    /// The keys are sound RSA keys of exactly the size asked, e = 65537: n = p·q with both
    /// primes passing `num-bigint-dig`'s own test (20 rounds and Lucas, an independent check),
    /// d·e ≡ 1 mod λ(n), and a PKCS#1 v1.5 signature verifies with the public key.
    #[test]
    fn keys_are_sound() {
        use num_integer::Integer;
        for bits in [2048, 1024, 1025] {
            let key = rsa_key(bits).unwrap();
            let (p, q) = (&key.primes()[0], &key.primes()[1]);
            assert_eq!(key.n().bits(), bits);
            assert_eq!(key.e(), &BigUint::from(E));
            assert_eq!(&(p * q), key.n());
            assert!(num_bigint_dig::prime::probably_prime(p, 20));
            assert!(num_bigint_dig::prime::probably_prime(q, 20));
            let one = BigUint::from(1u32);
            let lambda = (p - &one).lcm(&(q - &one));
            assert_eq!(key.e() * key.d() % &lambda, one);
            assert_eq!(lambda.gcd(&BigUint::from(E)), one);
            use sha2::Digest;
            let digest = sha2::Sha256::digest(b"bosun");
            let scheme = || rsa::Pkcs1v15Sign::new::<sha2::Sha256>();
            let signature = key.sign(scheme(), &digest).unwrap();
            key.to_public_key()
                .verify(scheme(), &digest, &signature)
                .unwrap();
            assert!(
                key.to_public_key()
                    .verify(scheme(), &sha2::Sha256::digest(b"other"), &signature)
                    .is_err()
            );
        }
        assert!(matches!(rsa_key(256), Err(KeyError::TooSmall(256))));
    }

    /// Two keys never share a prime (the RNG is really used).
    #[test]
    fn keys_differ() {
        let a = rsa_key(1024).unwrap();
        let b = rsa_key(1024).unwrap();
        assert_ne!(a.primes()[0], b.primes()[0]);
        assert_ne!(a.n(), b.n());
    }
}
