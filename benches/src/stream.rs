//! Deterministic shuffled input streams.
//!
//! A benchmark that converts the same value over and over measures a branch predictor that
//! has learnt the answer. These streams cycle through every value of a table and then shuffle
//! them with a fixed seed, so each run sees the same unpredictable order, and the derived and
//! hand-written sides see the same one.

/// The length of every benchmark stream: large enough that the branch predictor cannot learn
/// it, small enough to stay in L1 cache.
pub const STREAM_LEN: usize = 4096;

/// `len` values cycling through `table`, shuffled (Fisher–Yates with a xorshift64* generator
/// seeded by `seed`).
///
/// ```
/// let s = dlpack_benches::stream::shuffled(&[1, 2, 3], 9, 7);
/// assert_eq!(s.iter().filter(|&&v| v == 2).count(), 3);
/// assert_ne!(s, [1, 2, 3, 1, 2, 3, 1, 2, 3]);
/// ```
///
/// # Panics
///
/// If `table` is empty and `len` is not.
pub fn shuffled<T: Clone>(table: &[T], len: usize, seed: u64) -> Vec<T> {
    let mut out: Vec<T> = table.iter().cloned().cycle().take(len).collect();
    assert_eq!(out.len(), len, "an empty table cannot fill a stream");
    let mut rng = XorShift(seed | 1);
    for i in (1..out.len()).rev() {
        let j = (rng.next() % (i as u64 + 1)) as usize;
        out.swap(i, j);
    }
    out
}

/// xorshift64*: a tiny deterministic generator, good enough to defeat a branch predictor.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// Applies `convert` to every value of `stream` and hands each result to [`black_box`], so
/// the optimiser must compute and store every result but cannot fuse the conversion with
/// whatever uses it: the loop every conversion benchmark times, on both sides.
///
/// [`black_box`]: core::hint::black_box
#[inline(always)]
pub fn convert_each<T, R>(stream: &[T], convert: impl Fn(&T) -> R) {
    for value in core::hint::black_box(stream) {
        core::hint::black_box(convert(value));
    }
}

/// Whether the benches should register their sides in reverse order this run: the report
/// sets `DLPACK_BENCH_REVERSE` (to anything but the empty string) on every other round, so
/// neither side always runs first while the machine's load drifts.
pub fn reverse_order() -> bool {
    std::env::var_os("DLPACK_BENCH_REVERSE").is_some_and(|v| !v.is_empty())
}
