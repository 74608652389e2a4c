//! Times `gox509::rsa_key` (what bosun's `genCA` and `genPrivateKey` run): `BITS N` prints one
//! line per key, `bosun BITS MILLISECONDS`, for scripts/bench/rsa-keygen.sh.

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>());
    let (Some(Ok(bits)), Some(Ok(n))) = (args.next(), args.next()) else {
        eprintln!("usage: rsa_keygen BITS N");
        std::process::exit(2);
    };
    for _ in 0..n {
        let start = std::time::Instant::now();
        if let Err(e) = gox509::rsa_key(bits) {
            eprintln!("{e}");
            std::process::exit(1);
        }
        println!("bosun {bits} {:.3}", start.elapsed().as_secs_f64() * 1e3);
    }
}
