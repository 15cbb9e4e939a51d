//! The byte size of packed sub-byte arrays, exact for every element count.

/// `⌈count · bits / 8⌉`, the bytes `count` elements of `bits` bits take back to back, or `None`
/// when that exceeds `usize::MAX`.
///
/// The product `count · bits` is never formed: it can leave `usize` while the byte size fits
/// (2^62 four-bit elements take 2^61 bytes). Every 8 elements take exactly `bits` bytes, so
/// the size is `(count / 8) · bits` plus the bytes of the last `count % 8` elements.
pub(super) const fn packed_bytes(count: usize, bits: u32) -> Option<usize> {
    // `bits` is a lane width times a lane count, below 2^24, so `7 · bits` fits any usize of
    // 32 bits or more.
    let bits = bits as usize;
    let tail = (count % 8 * bits).div_ceil(8);
    match (count / 8).checked_mul(bits) {
        Some(whole) => whole.checked_add(tail),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::packed_bytes;

    /// The definition, in u128.
    fn exact(count: usize, bits: u32) -> Option<usize> {
        usize::try_from((count as u128 * u128::from(bits)).div_ceil(8)).ok()
    }

    #[test]
    fn matches_the_definition_at_the_edges() {
        let widths = [1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 64, 255, 255 * 65_535];
        let mut counts = vec![0, 1, 2, 7, 8, 9, 15, 16, 17];
        for shift in [31, 32, 58, 59, 60, 61, 62, 63] {
            let p = 1_usize << shift;
            counts.extend([p - 9, p - 8, p - 1, p, p + 1, p + 7, p + 8]);
        }
        counts.extend([usize::MAX - 8, usize::MAX - 7, usize::MAX - 1, usize::MAX]);
        counts.extend([i64::MAX as usize, usize::MAX / 3, usize::MAX / 255]);
        for &bits in &widths {
            for &count in &counts {
                assert_eq!(
                    packed_bytes(count, bits),
                    exact(count, bits),
                    "{count} x {bits}"
                );
            }
        }
    }

    #[test]
    fn the_issue_extents_fit() {
        // float4_e2m1fn [2^62]: 2^61 bytes; int3 [i64::MAX]: about 3.5e18 bytes.
        assert_eq!(packed_bytes(1 << 62, 4), Some(1 << 61));
        assert_eq!(
            packed_bytes(i64::MAX as usize, 3),
            Some(3_458_764_513_820_540_928)
        );
        assert_eq!(packed_bytes(usize::MAX, 4), Some(usize::MAX / 2 + 1));
        assert_eq!(packed_bytes(usize::MAX, 8), Some(usize::MAX));
        assert_eq!(packed_bytes(usize::MAX, 9), None);
    }
}
