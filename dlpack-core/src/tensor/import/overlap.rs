//! Whether a strided layout reaches some element from two indices, decided exactly within a
//! bound: what mutable access needs to know before it hands out one `&mut` per index.
//!
//! Two indices `i ≠ j` reach the same element when `Σ sₖ·iₖ = Σ sₖ·jₖ`, that is when some
//! non-zero `δ` with `|δₖ| ≤ dₖ - 1` has `Σ |sₖ|·δₖ = 0` (the sign of a stride only mirrors its
//! axis). With extent-2 axes this is the equal-subset-sum problem, NP-complete in general, but
//! the layouts producers send are small instances, decided here in this order:
//!
//! 1. Axes of extent 1 never move; an axis of extent 0 leaves no element; a zero stride, or two
//!    axes of equal stride, overlap at once.
//! 2. An axis whose stride steps past everything the others reach together takes no part in a
//!    collision: it is set aside (so a layout whose strides *nest*, each stride above the reach
//!    of the smaller ones, is decided disjoint here, with no search).
//! 3. Likewise a run of the smallest axes that nest among themselves and reach less than the
//!    greatest common divisor of the other strides: their part of `Σ |sₖ|·δₖ` would have to be
//!    a multiple of that divisor smaller than it, so zero.
//! 4. What is left is divided by the common divisor of its strides; more indices than offsets
//!    it can reach is a collision by pigeonhole.
//! 5. An exact search, the cheaper of two: enumerate `δ` over all axes but the two longest, and
//!    solve `a·x + b·y = -t` for those two in closed form (extended Euclid and a box); or mark
//!    every offset the elements reach in a bitset. Each is run only when it takes at most
//!    [`SEARCH_BOUND`] steps (a millisecond or so).
//! 6. Beyond the bound, the enumeration runs over the small values of `δ` only, as many as the
//!    bound allows: it can still find a collision, not show there is none. A layout it does not
//!    decide is [`Overlap::Undecided`], and mutable access refuses it, saying so.
//!
//! The search always decides when at most two interleaved axes remain after steps 1–4, and
//! when three remain and the shortest of them has at most 2^19 elements. Any layout of up to
//! 16 384 elements is decided: an axis of extent `d` has `2d - 1 ≤ d^log₂3` values of `δ`, and
//! the two longest axes, solved in closed form, take a factor of at least 4 out of the element
//! count, so the enumeration takes at most `4096^log₂3 < 2^20` steps.

use crate::tensor::limits::SEARCH_BOUND;
use alloc::{vec, vec::Vec};

/// What [`decide`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Overlap {
    /// Every element is reached from one index only.
    Disjoint,
    /// Some element is reached from two different indices.
    Overlapping,
    /// The exact search would take more than [`SEARCH_BOUND`] steps.
    Undecided,
}

/// One axis that moves: its stride's magnitude and its extent minus one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Axis {
    stride: u128,
    last: u128,
}

impl Axis {
    fn reach(self) -> u128 {
        self.stride * self.last
    }
}

/// Decides whether two different indices of `shape` (non-negative extents) with `strides`
/// reach the same element. Layouts whose offsets do not fit in 64 bits (which validation
/// refuses) are [`Overlap::Undecided`] unless steps 1 and 2 of the module docs decide them.
pub(crate) fn decide(shape: &[i64], strides: &[i64]) -> Overlap {
    if shape.iter().any(|&d| d <= 0) {
        return Overlap::Disjoint;
    }
    let mut axes = moving(shape, strides);
    if axes.windows(2).any(|w| w[0].stride == w[1].stride)
        || axes.first().is_some_and(|a| a.stride == 0)
    {
        return Overlap::Overlapping;
    }
    // Each term is below 2^126; 64 of them fit in u128 only while the sum stays below 2^64,
    // which any layout validation accepts does (its extent is at most isize::MAX bytes).
    let Some(total) = axes
        .iter()
        .try_fold(0_u128, |sum, a| sum.checked_add(a.reach()))
        .filter(|&t| t <= u128::from(u64::MAX))
    else {
        return if nests(&axes) {
            Overlap::Disjoint
        } else {
            Overlap::Undecided
        };
    };
    reduce(&mut axes, total);
    if axes.is_empty() {
        return Overlap::Disjoint;
    }
    let divisor = axes.iter().fold(0, |g, a| gcd(g, a.stride));
    for a in &mut axes {
        a.stride /= divisor;
    }
    let reach: u128 = axes.iter().map(|a| a.reach()).sum();
    let indices = axes
        .iter()
        .try_fold(1_u128, |n, a| n.checked_mul(a.last + 1));
    if indices.is_none_or(|n| n > reach + 1) {
        return Overlap::Overlapping;
    }
    search(&mut axes, reach)
}

/// Whether the strides nest: sorted by size, each steps past everything the smaller ones
/// reach. Nesting layouts are disjoint; the converse does not hold (`[3, 2]` with strides
/// `[2, 3]` reaches offsets 0, 3, 2, 5, 4, 7).
fn nests(sorted: &[Axis]) -> bool {
    let mut reach: u128 = 0;
    sorted.iter().all(|a| {
        let steps_past = a.stride > reach;
        reach = reach.saturating_add(a.reach());
        steps_past
    })
}

/// Whether `shape` with `strides` nest, as `ndarray`'s mutable views require (axes of extent 1
/// aside; an empty layout nests).
#[cfg(any(feature = "ndarray", test))]
pub(crate) fn strides_nest(shape: &[i64], strides: &[i64]) -> bool {
    shape.iter().any(|&d| d <= 0) || nests(&moving(shape, strides))
}

/// The axes of extent above 1 of a non-empty layout, sorted by stride.
fn moving(shape: &[i64], strides: &[i64]) -> Vec<Axis> {
    let mut axes: Vec<Axis> = shape
        .iter()
        .zip(strides)
        .filter(|&(&d, _)| d > 1)
        .map(|(&d, &s)| Axis {
            stride: u128::from(s.unsigned_abs()),
            last: d as u128 - 1,
        })
        .collect();
    axes.sort_unstable();
    axes
}

/// Steps 2 and 3 of the module docs, repeated until neither sets an axis aside. `axes` is
/// sorted by stride, with distinct non-zero strides reaching `total` together.
fn reduce(axes: &mut Vec<Axis>, mut total: u128) {
    loop {
        // From the top: the largest stride steps past everything the others reach.
        while let Some(&top) = axes.last() {
            let rest = total - top.reach();
            if top.stride <= rest {
                break;
            }
            axes.pop();
            total = rest;
        }
        // From the bottom: the longest run 0..k that nests and reaches less than the common
        // divisor of the strides above it.
        let mut suffix = vec![0_u128; axes.len() + 1];
        for k in (0..axes.len()).rev() {
            suffix[k] = gcd(suffix[k + 1], axes[k].stride);
        }
        let mut reach: u128 = 0;
        let mut cut = 0;
        for (k, a) in axes.iter().enumerate() {
            if a.stride <= reach {
                break;
            }
            reach += a.reach();
            if reach < suffix[k + 1] {
                cut = k + 1;
            }
        }
        if cut == 0 {
            return;
        }
        total -= axes.drain(..cut).map(Axis::reach).sum::<u128>();
    }
}

/// Step 5 of the module docs on axes sorted by stride, at least two, reaching `reach` < 2^64.
fn search(axes: &mut [Axis], reach: u128) -> Overlap {
    // The two longest axes are solved in closed form; the others are enumerated.
    axes.sort_unstable_by_key(|a| a.last);
    let (rest, pair) = axes.split_at(axes.len() - 2);
    let pair = Pair::new(pair[0], pair[1]);
    let enumerated = rest
        .iter()
        .try_fold(1_u128, |n, a| n.checked_mul(2 * a.last + 1))
        .unwrap_or(u128::MAX);
    let marked = reach + 1;
    if enumerated <= SEARCH_BOUND && enumerated <= marked {
        return enumerate(rest, &pair, u128::MAX);
    }
    if marked <= SEARCH_BOUND {
        return mark(axes, reach);
    }
    // Beyond the bound, the small values of δ can still show a collision (most overlapping
    // layouts have one), though not its absence.
    let rank = rest.len() as u32;
    let fits = |r: u128| {
        (2 * r + 1)
            .checked_pow(rank)
            .is_some_and(|n| n <= SEARCH_BOUND)
    };
    let (mut lo, mut hi) = (0, SEARCH_BOUND);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(mid) { lo = mid } else { hi = mid - 1 }
    }
    match enumerate(rest, &pair, lo) {
        Overlap::Overlapping => Overlap::Overlapping,
        _ => Overlap::Undecided,
    }
}

/// Every `δ` of `rest` with `|δₖ| ≤ min(lastₖ, radius)`, with `t = Σ stride·δ`: overlapping
/// when the pair solves `-t` with the whole `δ` non-zero.
fn enumerate(rest: &[Axis], pair: &Pair, radius: u128) -> Overlap {
    let bound: Vec<i128> = rest.iter().map(|a| a.last.min(radius) as i128).collect();
    // Odometer over δ, from every δₖ at its lowest. |t| ≤ reach < 2^64.
    let mut delta: Vec<i128> = bound.iter().map(|&b| -b).collect();
    let mut t: i128 = rest
        .iter()
        .zip(&bound)
        .map(|(a, &b)| -(a.stride as i128) * b)
        .sum();
    loop {
        if pair.solves(-t, delta.iter().all(|&d| d == 0)) {
            return Overlap::Overlapping;
        }
        let mut axis = 0;
        loop {
            let (Some(a), Some(&b)) = (rest.get(axis), bound.get(axis)) else {
                return Overlap::Disjoint;
            };
            let stride = a.stride as i128;
            if delta[axis] < b {
                delta[axis] += 1;
                t += stride;
                break;
            }
            t -= stride * 2 * b;
            delta[axis] = -b;
            axis += 1;
        }
    }
}

/// Marks the offset of every index in a bitset of `reach + 1` bits; overlapping when one is
/// marked twice.
fn mark(axes: &[Axis], reach: u128) -> Overlap {
    let mut seen = vec![0_u64; (reach as usize + 1).div_ceil(64)];
    let mut index = vec![0_u128; axes.len()];
    let mut offset: u128 = 0;
    loop {
        let (word, bit) = ((offset / 64) as usize, offset % 64);
        if seen[word] >> bit & 1 == 1 {
            return Overlap::Overlapping;
        }
        seen[word] |= 1 << bit;
        let mut axis = 0;
        loop {
            let Some(a) = axes.get(axis) else {
                return Overlap::Disjoint;
            };
            if index[axis] < a.last {
                index[axis] += 1;
                offset += a.stride;
                break;
            }
            offset -= a.stride * a.last;
            index[axis] = 0;
            axis += 1;
        }
    }
}

/// `a·x + b·y = c` over `|x| ≤ m`, `|y| ≤ n`, for two axes `(a, m)` and `(b, n)`.
struct Pair {
    a: i128,
    b: i128,
    m: i128,
    n: i128,
    g: i128,
    /// `a·x0 + b·y0 = g`.
    x0: i128,
    y0: i128,
}

impl Pair {
    fn new(p: Axis, q: Axis) -> Self {
        let (a, b) = (p.stride as i128, q.stride as i128);
        let (g, x0, y0) = extended_gcd(a, b);
        Self {
            a,
            b,
            m: p.last as i128,
            n: q.last as i128,
            g,
            x0,
            y0,
        }
    }

    /// Whether some `(x, y)` in the box has `a·x + b·y = c`, and is not `(0, 0)` when `zero`
    /// (the enumerated part of `δ` is zero, so the pair must move).
    fn solves(&self, c: i128, zero: bool) -> bool {
        if c % self.g != 0 {
            return false;
        }
        // All solutions: x = x1 + k·(b/g), y = y1 - k·(a/g). The Bézout coefficients are at
        // most b/g and a/g, and |c|, a and b are parts of one reach below 2^64 (so b + |c| and
        // a + |c| are below 2^64): the products are below 2^126.
        let k = c / self.g;
        let (x1, y1) = (self.x0 * k, self.y0 * k);
        let (bx, ay) = (self.b / self.g, self.a / self.g);
        // |x1 + k·bx| ≤ m  and  |y1 - k·ay| ≤ n, for integers k.
        let lo = div_ceil(-self.m - x1, bx).max(div_ceil(y1 - self.n, ay));
        let hi = div_floor(self.m - x1, bx).min(div_floor(y1 + self.n, ay));
        if lo > hi {
            return false;
        }
        // (x, y) = (0, 0) happens for one k at most (only when c = 0); any other k will do.
        !zero || c != 0 || lo < hi || x1 + lo * bx != 0 || y1 - lo * ay != 0
    }
}

/// `(g, x, y)` with `a·x + b·y = g = gcd(a, b)`, for positive `a` and `b`.
fn extended_gcd(a: i128, b: i128) -> (i128, i128, i128) {
    let (mut r0, mut r1) = (a, b);
    let (mut x0, mut x1) = (1_i128, 0_i128);
    let (mut y0, mut y1) = (0_i128, 1_i128);
    while r1 != 0 {
        let q = r0 / r1;
        (r0, r1) = (r1, r0 - q * r1);
        (x0, x1) = (x1, x0 - q * x1);
        (y0, y1) = (y1, y0 - q * y1);
    }
    (r0, x0, y0)
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `⌊n / d⌋` for `d > 0`.
fn div_floor(n: i128, d: i128) -> i128 {
    n.div_euclid(d)
}

/// `⌈n / d⌉` for `d > 0`.
fn div_ceil(n: i128, d: i128) -> i128 {
    -(-n).div_euclid(d)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Whether two indices reach one offset, by enumerating them all.
    fn brute(shape: &[i64], strides: &[i64]) -> bool {
        let count: i64 = shape.iter().product();
        let mut seen = std::collections::HashSet::new();
        let mut index = vec![0_i64; shape.len()];
        for _ in 0..count {
            let offset: i64 = index.iter().zip(strides).map(|(i, s)| i * s).sum();
            if !seen.insert(offset) {
                return true;
            }
            for axis in (0..shape.len()).rev() {
                index[axis] += 1;
                if index[axis] < shape[axis] {
                    break;
                }
                index[axis] = 0;
            }
        }
        false
    }

    #[track_caller]
    fn expect(shape: &[i64], strides: &[i64], expected: Overlap) {
        assert_eq!(decide(shape, strides), expected, "{shape:?} {strides:?}");
    }

    #[test]
    fn the_issue_layout_is_disjoint_and_its_neighbours_are_not() {
        // Offsets 0, 3, 2, 5, 4, 7: each once, though the strides do not nest.
        expect(&[3, 2], &[2, 3], Overlap::Disjoint);
        assert!(!strides_nest(&[3, 2], &[2, 3]));
        expect(&[3, 2], &[-2, 3], Overlap::Disjoint);
        expect(&[2, 3], &[3, 2], Overlap::Disjoint);
        expect(&[4, 2], &[2, 3], Overlap::Disjoint);
        expect(&[4, 3], &[2, 3], Overlap::Overlapping); // 3 steps of 2 = 2 steps of 3
        expect(&[4, 3], &[2, -3], Overlap::Overlapping);
    }

    #[test]
    fn first_steps() {
        expect(&[], &[], Overlap::Disjoint);
        expect(&[2, 0], &[0, 1], Overlap::Disjoint); // no element at all
        expect(&[1, 1, 7], &[0, 0, 1], Overlap::Disjoint);
        expect(&[2, 3], &[0, 1], Overlap::Overlapping);
        expect(&[2, 2], &[4, -4], Overlap::Overlapping);
        expect(&[2, 3, 4], &[12, 4, 1], Overlap::Disjoint);
        expect(&[2, 3, 4], &[-1, 2, -6], Overlap::Disjoint);
        expect(&[i64::MAX, 2], &[1, 1], Overlap::Overlapping);
        // Offsets past 64 bits: decided when the strides nest, undecided otherwise.
        expect(&[2, 2], &[i64::MIN, i64::MAX], Overlap::Disjoint);
        expect(&[i64::MAX, 2], &[1, i64::MAX], Overlap::Disjoint);
        expect(&[3, 3], &[i64::MAX, i64::MAX - 1], Overlap::Undecided);
    }

    #[test]
    fn large_interleaved_layouts_are_decided_exactly() {
        // Two interleaved axes of a billion elements: the pair alone, no enumeration.
        expect(&[1_000_000_000, 2], &[2, 3], Overlap::Disjoint);
        expect(&[1_000_000_000, 3], &[2, 3], Overlap::Overlapping);
        // Channels inside: the contiguous axis nests below the divisor of the others.
        expect(&[1000, 2, 64], &[128, 192, 1], Overlap::Disjoint);
        expect(&[1000, 3, 64], &[128, 192, 1], Overlap::Overlapping);
        // Three interleaved axes: the shortest is enumerated, the pair solved.
        expect(&[100_000, 3, 2], &[6, 10, 15], Overlap::Disjoint);
        expect(&[100_000, 4, 2], &[6, 10, 15], Overlap::Overlapping);
        // More indices than offsets.
        expect(&[1000, 1000, 7], &[1000, 1001, 999], Overlap::Overlapping);
    }

    // 65 536 offsets marked, pure integer code: minutes under Miri, with nothing to check.
    #[cfg(not(miri))]
    #[test]
    fn many_short_axes_are_marked() {
        // 24 axes of extent 2 with strides 25..48: more indices (2^24) than offsets (877).
        let strides: Vec<i64> = (25..49).collect();
        expect(&[2; 24], &strides, Overlap::Overlapping);
        // A Conway-Guy set: 16 strides with distinct subset sums that do not nest, so that
        // 3^14 values of δ lie past the bound, and the offsets (below 2^17) are marked.
        let strides = conway_guy(16);
        assert!(!strides_nest(&[2; 16], &strides));
        expect(&[2; 16], &strides, Overlap::Disjoint);
        let mut twice = strides.clone();
        twice[0] = twice[1] + twice[2] - twice[3];
        expect(&[2; 16], &twice, Overlap::Overlapping);
    }

    /// The Conway-Guy set of `n` positive integers whose subset sums are all distinct.
    fn conway_guy(n: usize) -> Vec<i64> {
        let mut u = vec![0_i64, 1];
        for k in 1..n {
            let r = (2.0 * k as f64).sqrt().round() as usize;
            u.push(2 * u[k] - u[k - r]);
        }
        (0..n).map(|i| u[n] - u[i]).collect()
    }

    // Two million steps of pure integer search: minutes under Miri, with nothing to check.
    #[cfg(not(miri))]
    #[test]
    fn beyond_the_bound() {
        // Found by the bounded enumeration of small δ: (1, -2, 1).
        let t = 1_000_000_000_000_i64;
        expect(&[1_000_000; 3], &[t, t + 1, t + 2], Overlap::Overlapping);
        // Three disjoint copies of [n, 2] with strides [2, 3], scaled apart: (2n - 1)·27
        // values of δ and offsets up to 10^14, both past the bound. Disjoint, but undecided.
        let (n, m) = (20_000_i64, 40_003_i64);
        let shape = [n, 2, n, 2, n, 2];
        let strides = [2, 3, 2 * m, 3 * m, 2 * m * m, 3 * m * m];
        expect(&shape, &strides, Overlap::Undecided);
        // One step closer, and it is decided.
        let strides = [2, 3, 2 * m, 3 * m];
        expect(&shape[..4], &strides, Overlap::Disjoint);
    }

    #[test]
    fn agrees_with_enumeration_on_small_layouts() {
        // Every layout of rank up to 3 (1 under Miri) with extents 1..4 and strides -6..6.
        let max_rank = if cfg!(miri) { 1 } else { 3 };
        let mut checked = 0_usize;
        for rank in 0..=max_rank {
            for code in 0..52_usize.pow(rank) {
                let mut c = code;
                let (mut shape, mut strides) = (Vec::new(), Vec::new());
                for _ in 0..rank {
                    shape.push(1 + (c % 4) as i64);
                    strides.push((c / 4 % 13) as i64 - 6);
                    c /= 52;
                }
                let expected = if brute(&shape, &strides) {
                    Overlap::Overlapping
                } else {
                    Overlap::Disjoint
                };
                expect(&shape, &strides, expected);
                checked += 1;
            }
        }
        assert_eq!(
            checked,
            (0..=max_rank).map(|r| 52_usize.pow(r)).sum::<usize>()
        );
    }

    fn layout() -> impl Strategy<Value = (Vec<i64>, Vec<i64>)> {
        (0..7_usize).prop_flat_map(|rank| {
            (
                prop::collection::vec(1..6_i64, rank),
                prop::collection::vec(-60..61_i64, rank),
            )
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: if cfg!(miri) { 16 } else { 4096 },
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// Up to six axes: every path of the search (the pair alone, enumeration, marking,
        /// both reductions, pigeonhole) against enumeration.
        #[test]
        fn agrees_with_enumeration_on_random_layouts((shape, strides) in layout()) {
            let expected = if brute(&shape, &strides) {
                Overlap::Overlapping
            } else {
                Overlap::Disjoint
            };
            prop_assert_eq!(decide(&shape, &strides), expected);
        }
    }
}
