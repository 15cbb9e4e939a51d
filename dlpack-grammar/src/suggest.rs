//! "Did you mean …?": the closest known name to a misspelt one.

use crate::aliases::{ForeignName, data_type_meaning, device_meaning};
use crate::tables::{DEVICES, NAMED_DATA_TYPES};

/// The canonical data type name meant by `s`: DLPack's name for another framework's spelling
/// when it has exactly one (`half` is `float16`, `f8e4m3` is `float8_e4m3fn`, not the
/// `float8_e4m3` that edit distance would pick), else the closest name within a small edit
/// distance.
pub fn suggest_data_type(s: &str) -> Option<&'static str> {
    only_meaning(data_type_meaning(s))
        .or_else(|| closest(s, NAMED_DATA_TYPES.iter().map(|named| named.name)))
}

/// The device name meant by `s`: DLPack's name for another framework's spelling (`mps` is
/// `metal`, `hip` is `rocm`; `gpu`, which names any GPU, is `cuda`, its first and most common
/// meaning: PaddlePaddle's `gpu:0` on NVIDIA hardware), else the closest name within a small
/// edit distance. A device spelling with no DLPack equivalent (`meta`) gets none.
pub fn suggest_device(s: &str) -> Option<&'static str> {
    match device_meaning(s) {
        Some(foreign) => foreign.dlpack.first().copied(),
        None => closest(s, DEVICES.iter().map(|info| info.name)),
    }
}

fn only_meaning(foreign: Option<ForeignName>) -> Option<&'static str> {
    match foreign?.dlpack {
        [one] => Some(one),
        _ => None,
    }
}

/// The candidate closest to `s`, if one is within a small edit distance: the rule behind
/// [`suggest_data_type`] and [`suggest_device`], for other word lists (a derive's option names).
pub fn suggest(s: &str, candidates: &[&'static str]) -> Option<&'static str> {
    closest(s, candidates.iter().copied())
}

fn closest(s: &str, candidates: impl Iterator<Item = &'static str>) -> Option<&'static str> {
    // Within a third of the word, at least 1: `flaot32` finds `float32`, `xyz` finds nothing.
    let limit = (s.len() / 3).max(1);
    candidates
        .map(|c| (edit_distance(s, c), c))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// Optimal-string-alignment distance (Levenshtein plus adjacent transpositions) over bytes,
/// without allocating: names are short, so three rows on the stack suffice.
fn edit_distance(a: &str, b: &str) -> usize {
    const MAX: usize = 64;
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() >= MAX || b.len() >= MAX {
        return usize::MAX;
    }
    let mut prev2 = [0usize; MAX];
    let mut prev: [usize; MAX] = core::array::from_fn(|j| j);
    let mut cur = [0usize; MAX];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(prev2[j - 2] + 1);
            }
            cur[j] = best;
        }
        prev2 = prev;
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_basics() {
        assert_eq!(edit_distance("float", "float"), 0);
        assert_eq!(edit_distance("flaot", "float"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        let long = core::str::from_utf8(&[b'a'; 64]).unwrap();
        assert_eq!(edit_distance(long, "a"), usize::MAX);
    }

    #[test]
    fn suggestions() {
        assert_eq!(suggest_data_type("flaot32"), Some("float32"));
        assert_eq!(suggest_data_type("xyz"), None);
        assert_eq!(suggest_device("cdua"), Some("cuda"));
        assert_eq!(suggest_device("rcom_host"), Some("rocm_host"));
        // Another framework's spelling finds what it means, not the nearest string.
        assert_eq!(suggest_data_type("half"), Some("float16"));
        assert_eq!(suggest_data_type("f8e4m3"), Some("float8_e4m3fn"));
        assert_eq!(suggest_device("mps"), Some("metal"));
        // One of several: the first, the one PaddlePaddle's `gpu` means on NVIDIA hardware.
        assert_eq!(suggest_device("gpu"), Some("cuda"));
        assert_eq!(suggest("delegat", &["skip", "delegate"]), Some("delegate"));
    }
}
