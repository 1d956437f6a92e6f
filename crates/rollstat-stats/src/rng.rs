//! Vendored, portable random number generation.
//!
//! * [`SplitMix64`] (Steele, Lea & Flood 2014) is used only for seeding.
//! * [`Xoshiro256PlusPlus`] (Blackman & Vigna 2018) is the work-horse generator.
//! * [`bounded`] draws an unbiased integer in `0..s` with Lemire's
//!   nearly-divisionless method on `u64`.
//! * [`stream`] derives one independent generator per `(seed, index)`, so every
//!   resample / permutation has its own stream and results do not depend on
//!   the number of threads.
//!
//! These streams are part of the crate's reproducibility contract
//! ([`RNG_SCHEME`]) and are pinned by golden-vector tests.

/// Identifier of the random-stream scheme; record it next to the seed in any
/// output that must be reproducible.
///
/// ```
/// assert_eq!(rollstat_stats::rng::RNG_SCHEME, "xoshiro256++/splitmix64-stream-v1");
/// ```
pub const RNG_SCHEME: &str = "xoshiro256++/splitmix64-stream-v1";

const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64 generator (used to expand a 64-bit seed into xoshiro state).
///
/// ```
/// let mut sm = rollstat_stats::rng::SplitMix64::new(1234567);
/// assert_eq!(sm.next_u64(), 6457827717110365317);
/// ```
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// Creates a generator whose internal state is `seed`.
    ///
    /// ```
    /// let _ = rollstat_stats::rng::SplitMix64::new(0);
    /// ```
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// Returns the next 64-bit output.
    ///
    /// ```
    /// let mut sm = rollstat_stats::rng::SplitMix64::new(1234567);
    /// sm.next_u64();
    /// assert_eq!(sm.next_u64(), 3203168211198807973);
    /// ```
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN_GAMMA);
        mix64(self.state)
    }
}

/// The SplitMix64 output finaliser (a bijective 64-bit mixer).
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// xoshiro256++ 1.0 generator.
///
/// ```
/// use rollstat_stats::rng::Xoshiro256PlusPlus;
/// let mut x = Xoshiro256PlusPlus::from_state([1, 2, 3, 4]);
/// assert_eq!(x.next_u64(), 41943041);
/// ```
#[derive(Debug, Clone)]
pub struct Xoshiro256PlusPlus {
    s: [u64; 4],
}

impl Xoshiro256PlusPlus {
    /// Creates a generator from a raw state (must not be all zero).
    ///
    /// ```
    /// let _ = rollstat_stats::rng::Xoshiro256PlusPlus::from_state([1, 0, 0, 0]);
    /// ```
    pub fn from_state(s: [u64; 4]) -> Self {
        debug_assert!(s != [0; 4], "xoshiro state must not be all zero");
        Self { s }
    }

    /// Seeds the state with four consecutive SplitMix64 outputs of `seed`
    /// (the seeding recommended by the xoshiro authors).
    ///
    /// ```
    /// let mut a = rollstat_stats::rng::Xoshiro256PlusPlus::seed_from_u64(7);
    /// let mut b = rollstat_stats::rng::Xoshiro256PlusPlus::seed_from_u64(7);
    /// assert_eq!(a.next_u64(), b.next_u64());
    /// ```
    pub fn seed_from_u64(seed: u64) -> Self {
        let mut sm = SplitMix64::new(seed);
        let s = [sm.next_u64(), sm.next_u64(), sm.next_u64(), sm.next_u64()];
        // SplitMix64 is a bijection of its counter, so four zero outputs in a
        // row cannot happen; keep the guard anyway.
        if s == [0; 4] {
            return Self::from_state([GOLDEN_GAMMA, 1, 2, 3]);
        }
        Self { s }
    }

    /// Returns the next 64-bit output.
    ///
    /// ```
    /// let mut x = rollstat_stats::rng::Xoshiro256PlusPlus::from_state([1, 2, 3, 4]);
    /// x.next_u64();
    /// assert_eq!(x.next_u64(), 58720359);
    /// ```
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform double in `[0, 1)` with 53 random bits.
    ///
    /// ```
    /// let mut x = rollstat_stats::rng::Xoshiro256PlusPlus::seed_from_u64(1);
    /// let u = x.next_f64();
    /// assert!((0.0..1.0).contains(&u));
    /// ```
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// Unbiased uniform integer in `0..s` (Lemire 2019, nearly divisionless).
///
/// Panics if `s == 0`.
///
/// ```
/// use rollstat_stats::rng::{bounded, Xoshiro256PlusPlus};
/// let mut x = Xoshiro256PlusPlus::seed_from_u64(3);
/// for _ in 0..100 {
///     assert!(bounded(&mut x, 10) < 10);
/// }
/// ```
#[inline]
pub fn bounded(rng: &mut Xoshiro256PlusPlus, s: u64) -> u64 {
    assert!(s > 0, "bounded: empty range");
    let mut m = (rng.next_u64() as u128) * (s as u128);
    let mut l = m as u64;
    if l < s {
        let t = s.wrapping_neg() % s;
        while l < t {
            m = (rng.next_u64() as u128) * (s as u128);
            l = m as u64;
        }
    }
    (m >> 64) as u64
}

/// The generator for stream `index` under `seed`: xoshiro256++ seeded by
/// SplitMix64 from `seed ^ mix64(index + GOLDEN_GAMMA)`.
///
/// Each bootstrap resample `b` (and each permutation `r`) uses `stream(seed, b)`
/// (permutations use a domain-separated seed), which makes results independent
/// of thread count and chunking.
///
/// ```
/// let mut a = rollstat_stats::rng::stream(42, 0);
/// let mut b = rollstat_stats::rng::stream(42, 1);
/// assert_ne!(a.next_u64(), b.next_u64());
/// ```
pub fn stream(seed: u64, index: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(seed ^ mix64(index.wrapping_add(GOLDEN_GAMMA)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference outputs of SplitMix64 with seed 1234567 (Vigna's splitmix64.c;
    /// the same five values appear in many ports' test suites).
    #[test]
    fn splitmix64_golden() {
        let mut sm = SplitMix64::new(1234567);
        let expect = [
            6457827717110365317u64,
            3203168211198807973,
            9817491932198370423,
            4593380528125082431,
            16408922859458223821,
        ];
        for e in expect {
            assert_eq!(sm.next_u64(), e);
        }
    }

    /// Reference vector of xoshiro256++ from state [1,2,3,4] (rand_xoshiro's
    /// `reference()` test, generated with the C reference implementation).
    #[test]
    fn xoshiro256pp_golden() {
        let mut x = Xoshiro256PlusPlus::from_state([1, 2, 3, 4]);
        let expect = [
            41943041u64,
            58720359,
            3588806011781223,
            3591011842654386,
            9228616714210784205,
            9973669472204895162,
            14011001112246962877,
            12406186145184390807,
            15849039046786891736,
            10450023813501588000,
        ];
        for e in expect {
            assert_eq!(x.next_u64(), e);
        }
    }

    /// Pins this crate's own derived streams (scheme v1) so that any change to
    /// seeding or bounded sampling is caught. Values recorded from this
    /// implementation after the reference vectors above passed.
    #[test]
    fn stream_and_bounded_pinned() {
        let mut r = stream(0, 0);
        let first: Vec<u64> = (0..5).map(|_| bounded(&mut r, 1000)).collect();
        let mut r2 = stream(0, 0);
        let again: Vec<u64> = (0..5).map(|_| bounded(&mut r2, 1000)).collect();
        assert_eq!(first, again);
        assert_eq!(first, PINNED_STREAM_0_0_BOUNDED_1000);
    }

    /// Also reproduced by an independent Python port of the three algorithms.
    const PINNED_STREAM_0_0_BOUNDED_1000: [u64; 5] = [519, 781, 679, 913, 677];

    #[test]
    fn bounded_is_roughly_uniform() {
        let mut r = Xoshiro256PlusPlus::seed_from_u64(99);
        let mut counts = [0u32; 7];
        for _ in 0..70_000 {
            counts[bounded(&mut r, 7) as usize] += 1;
        }
        for c in counts {
            assert!((9_500..10_500).contains(&c), "{counts:?}");
        }
    }
}
