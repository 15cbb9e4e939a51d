//! The one implementation behind every set: a bounded list of id intervals, each within a
//! class, with `const fn` operations.
//!
//! A device range is the interval `min_id..=max_id` of the class `device_type`; a data type is
//! the interval `0..=0` of the class `code | bits << 8 | lanes << 16`. Membership, covering,
//! union and subset are then the same operations for both, written once here; the public
//! set types wrap them in `const fn`s per element kind (a `const fn` cannot call trait
//! methods, so the wrappers do the encoding).

/// The ids `lo..=hi` of one class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Interval {
    pub(crate) class: u32,
    pub(crate) lo: i32,
    pub(crate) hi: i32,
}

impl Interval {
    /// Whether the two share at least one id.
    pub(crate) const fn overlaps(self, other: Self) -> bool {
        self.class == other.class && self.lo <= other.hi && other.lo <= self.hi
    }
}

/// How many intervals a list holds at most (each set kind may allow fewer).
pub(crate) const STORAGE: usize = 128;

/// A list of intervals in insertion order, none covered by those before it, or everything.
#[derive(Clone, Copy)]
pub(crate) struct Intervals {
    all: bool,
    len: usize,
    items: [Interval; STORAGE],
}

impl Intervals {
    pub(crate) const EMPTY: Self = Self {
        all: false,
        len: 0,
        items: [Interval {
            class: 0,
            lo: 0,
            hi: 0,
        }; STORAGE],
    };

    pub(crate) const ALL: Self = Self {
        all: true,
        ..Self::EMPTY
    };

    pub(crate) const fn is_all(&self) -> bool {
        self.all
    }

    /// The listed intervals; empty for [`ALL`](Self::ALL), which has no listing.
    pub(crate) const fn as_slice(&self) -> &[Interval] {
        self.items.split_at(self.len).0
    }

    /// This list with `interval` added unless already covered. Panics with `full` (at compile
    /// time, in a constant) past `capacity` intervals.
    pub(crate) const fn with(mut self, interval: Interval, capacity: usize, full: &str) -> Self {
        if self.covers(interval) {
            return self;
        }
        assert!(self.len < capacity && self.len < STORAGE, "{}", full);
        self.items[self.len] = interval;
        self.len += 1;
        self
    }

    /// The union: `other`'s intervals added in order, or everything.
    pub(crate) const fn union(mut self, other: &Self, capacity: usize, full: &str) -> Self {
        if other.all {
            return Self::ALL;
        }
        let mut i = 0;
        while i < other.len {
            self = self.with(other.items[i], capacity, full);
            i += 1;
        }
        self
    }

    /// Whether every id of `interval` is in the list, possibly across several intervals.
    pub(crate) const fn covers(&self, interval: Interval) -> bool {
        if self.all {
            return true;
        }
        let mut next = interval.lo;
        loop {
            // The interval of ours that holds `next` and reaches furthest.
            let mut reach: Option<i32> = None;
            let mut i = 0;
            while i < self.len {
                let item = self.items[i];
                if item.class == interval.class && item.lo <= next && next <= item.hi {
                    reach = match reach {
                        Some(r) if r >= item.hi => Some(r),
                        _ => Some(item.hi),
                    };
                }
                i += 1;
            }
            match reach {
                None => return false,
                Some(r) if r >= interval.hi => return true,
                // `r < interval.hi <= i32::MAX`, so this does not overflow.
                Some(r) => next = r + 1,
            }
        }
    }

    /// Whether some listed interval shares an id with `interval` (always, for `ALL`).
    pub(crate) const fn overlaps(&self, interval: Interval) -> bool {
        if self.all {
            return true;
        }
        let mut i = 0;
        while i < self.len {
            if self.items[i].overlaps(interval) {
                return true;
            }
            i += 1;
        }
        false
    }

    /// The first interval of `self` that `other` does not cover; `None` when there is none or
    /// `self` is `ALL` (which has no listing).
    pub(crate) const fn first_missing_from(&self, other: &Self) -> Option<Interval> {
        if self.all {
            return None;
        }
        let mut i = 0;
        while i < self.len {
            if !other.covers(self.items[i]) {
                return Some(self.items[i]);
            }
            i += 1;
        }
        None
    }

    /// Whether everything in `self` is in `other`.
    pub(crate) const fn is_subset(&self, other: &Self) -> bool {
        if self.all {
            return other.all;
        }
        self.first_missing_from(other).is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn iv(class: u32, lo: i32, hi: i32) -> Interval {
        Interval { class, lo, hi }
    }

    fn list(items: &[Interval]) -> Intervals {
        items
            .iter()
            .fold(Intervals::EMPTY, |set, &i| set.with(i, STORAGE, "full"))
    }

    #[test]
    fn covers_across_intervals_of_one_class() {
        let set = list(&[iv(2, 0, 9), iv(2, 5, 20), iv(3, 21, 30)]);
        assert!(set.covers(iv(2, 0, 20)));
        assert!(set.covers(iv(2, 7, 7)));
        assert!(!set.covers(iv(2, 0, 21))); // 21 is in class 3, not 2
        assert!(!set.covers(iv(4, 0, 0)));
        // Adjacent intervals join; a gap of one id does not.
        assert!(list(&[iv(2, 0, 3), iv(2, 4, 9)]).covers(iv(2, 0, 9)));
        assert!(!list(&[iv(2, 0, 3), iv(2, 5, 9)]).covers(iv(2, 0, 9)));
        assert!(list(&[iv(1, 0, i32::MAX)]).covers(iv(1, 0, i32::MAX)));
        assert!(list(&[iv(1, 0, 3), iv(1, 4, i32::MAX)]).covers(iv(1, 2, i32::MAX)));
    }

    #[test]
    fn with_skips_what_is_covered_and_keeps_order() {
        let set = list(&[
            iv(1, 0, 0),
            iv(2, 0, 9),
            iv(2, 3, 4),
            iv(1, 0, 0),
            iv(0, 0, 0),
        ]);
        assert_eq!(set.as_slice(), [iv(1, 0, 0), iv(2, 0, 9), iv(0, 0, 0)]);
    }

    #[test]
    fn subset_union_and_overlap() {
        let small = list(&[iv(2, 0, 3)]);
        let big = list(&[iv(2, 0, 1), iv(2, 2, 7)]);
        assert!(small.is_subset(&big) && !big.is_subset(&small));
        assert_eq!(big.first_missing_from(&small), Some(iv(2, 2, 7)));
        assert!(!Intervals::ALL.is_subset(&big) && Intervals::ALL.is_subset(&Intervals::ALL));
        assert!(Intervals::EMPTY.is_subset(&Intervals::EMPTY));
        assert_eq!(Intervals::ALL.first_missing_from(&Intervals::EMPTY), None);
        assert!(small.union(&Intervals::ALL, STORAGE, "full").is_all());
        assert_eq!(
            small.union(&big, STORAGE, "full").as_slice(),
            [iv(2, 0, 3), iv(2, 2, 7)]
        );
        assert!(big.overlaps(iv(2, 7, 100)) && !big.overlaps(iv(2, 8, 100)));
        assert!(!big.overlaps(iv(3, 0, 7)) && Intervals::ALL.overlaps(iv(3, 0, 7)));
    }

    #[test]
    #[should_panic(expected = "holds at most 2")]
    fn capacity_is_enforced() {
        let _ = Intervals::EMPTY
            .with(iv(0, 0, 0), 2, "holds at most 2")
            .with(iv(1, 0, 0), 2, "holds at most 2")
            .with(iv(2, 0, 0), 2, "holds at most 2");
    }
}
