/// Marsaglia's xorshift64 (shifts 13, 7, 17): a tiny deterministic stream, so generated test
/// inputs are the same on every run and a failing one can be reproduced from its seed.
#[derive(Clone, Debug)]
pub struct Xorshift(u64);

impl Xorshift {
    /// A generator starting from `seed`, which must not be 0 (xorshift's one fixed point).
    pub const fn new(seed: u64) -> Xorshift {
        assert!(seed != 0, "xorshift never leaves 0");
        Xorshift(seed)
    }

    /// The next number (never 0).
    #[allow(clippy::should_implement_trait)] // an endless stream; `Iterator` adds nothing here
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// One of `items`, drawn from the next number.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[(self.next() % items.len() as u64) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::Xorshift;

    #[test]
    fn xorshift64_from_one() {
        // The first steps from 1, computed apart from this code (Python's integers masked to
        // 64 bits): the first by hand is 1 ^ 1<<13 = 0x2001, ^ >>7 = 0x2041, ^ <<17.
        let mut rng = Xorshift::new(1);
        assert_eq!(rng.next(), 0x4082_2041);
        assert_eq!(rng.next(), 0x1000_4106_0c01_1441);
        assert_eq!(rng.next(), 0x9b1e_842f_6e86_2629);
    }

    #[test]
    fn pick_stays_in_range_and_reaches_every_item() {
        let mut rng = Xorshift::new(0x9e37_79b9_7f4a_7c15);
        let items = [0, 1, 2, 3, 4, 5, 6];
        let mut seen = [false; 7];
        for _ in 0..1000 {
            seen[rng.pick(&items)] = true;
        }
        assert!(seen.iter().all(|&s| s), "{seen:?}");
    }
}
