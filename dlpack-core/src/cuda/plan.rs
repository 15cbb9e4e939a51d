//! The plan of a strided copy: the rectangular copies (`cuMemcpy2D`, `cuMemcpy3D`) that gather
//! the elements of a tensor with any strides into compact row-major memory.
//!
//! A copy never stages more than its own elements anywhere: the driver reads each element where
//! it lies and writes it where it belongs. The plan
//!
//! 1. drops axes of extent 1 and merges axes that are contiguous with their inner neighbour;
//! 2. takes the innermost axis as the rows' width when its stride is one element (else a row is
//!    one element);
//! 3. takes the next axis as the rows of a 2D copy when its stride is positive, at least the
//!    width and at most the device's largest pitch, and the one after as the slices of a 3D
//!    copy when its stride is a whole number of such rows, no fewer than the rows a slice holds;
//! 4. loops over every other axis: one copy per index.
//!
//! So a column or a block of a matrix, a batch of blocks, and any compact tensor are one call;
//! a transposed matrix is one call per column of the result (rows one element wide), and each
//! axis with a negative or zero stride multiplies the calls by its extent.

/// An axis: its extent, and the bytes between consecutive indices in the source (any sign) and
/// in the compact destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Axis {
    extent: usize,
    src: isize,
    dst: usize,
}

/// The box one driver call copies: `depth` slices of `height` rows of `width` bytes, read
/// `src_pitch` bytes apart (rows) and `src_slice` bytes apart (slices), written compact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Block {
    pub(crate) width: usize,
    pub(crate) height: usize,
    pub(crate) depth: usize,
    pub(crate) src_pitch: usize,
    pub(crate) src_slice: usize,
}

#[cfg(test)]
impl Block {
    /// The bytes the block writes.
    pub(crate) const fn len(&self) -> usize {
        self.width * self.height * self.depth
    }
}

/// The copies that gather a tensor into compact memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    block: Block,
    /// The axes looped over, outermost first.
    loops: Vec<Axis>,
    /// Copies issued: the product of the loops' extents, 0 for an empty tensor.
    copies: usize,
}

impl Plan {
    /// The plan for elements of `itemsize` bytes with `shape` and `strides` (in elements), in
    /// the source's address space, where the driver takes pitches up to `max_pitch` bytes.
    ///
    /// The shape and strides come from a validated view: every offset fits in `isize`.
    pub(crate) fn new(shape: &[i64], strides: &[i64], itemsize: usize, max_pitch: usize) -> Self {
        let count = shape
            .iter()
            .try_fold(1_usize, |n, &extent| n.checked_mul(extent as usize))
            .unwrap_or(0);
        let mut block = Block {
            width: itemsize,
            height: 1,
            depth: 1,
            src_pitch: itemsize,
            src_slice: itemsize,
        };
        if count == 0 {
            return Self {
                block,
                loops: Vec::new(),
                copies: 0,
            };
        }
        let mut axes = merged(shape, strides, itemsize);
        if let Some(last) = axes.last().filter(|last| last.src == itemsize as isize) {
            block.width = last.extent * itemsize;
            axes.pop();
        }
        block.src_pitch = block.width;
        block.src_slice = block.width;
        let rows = axes.last().copied().and_then(|rows| {
            let pitch = usize::try_from(rows.src).ok()?;
            (block.width..=max_pitch)
                .contains(&pitch)
                .then_some((rows, pitch))
        });
        if let Some((rows, pitch)) = rows {
            block.height = rows.extent;
            block.src_pitch = pitch;
            block.src_slice = pitch * rows.extent;
            axes.pop();
            let slices = axes.last().copied().and_then(|slices| {
                let slice = usize::try_from(slices.src).ok()?;
                (slice % pitch == 0 && slice / pitch >= block.height).then_some((slices, slice))
            });
            if let Some((slices, slice)) = slices {
                block.depth = slices.extent;
                block.src_slice = slice;
                axes.pop();
            }
        }
        let copies = axes.iter().map(|axis| axis.extent).product();
        Self {
            block,
            loops: axes,
            copies,
        }
    }

    /// The box each copy moves.
    pub(crate) fn block(&self) -> Block {
        self.block
    }

    /// How many copies the plan issues.
    #[cfg(test)]
    pub(crate) fn copies(&self) -> usize {
        self.copies
    }

    /// Where each copy starts: its first source byte, as an offset from the first element's,
    /// and its first destination byte.
    pub(crate) fn starts(&self) -> impl Iterator<Item = (isize, usize)> + '_ {
        let mut index = vec![0_usize; self.loops.len()];
        (0..self.copies).map(move |n| {
            if n > 0 {
                // The next index, in row-major order over the loops.
                for (axis, i) in self.loops.iter().zip(index.iter_mut()).rev() {
                    *i += 1;
                    if *i < axis.extent {
                        break;
                    }
                    *i = 0;
                }
            }
            self.loops
                .iter()
                .zip(&index)
                .fold((0_isize, 0_usize), |(src, dst), (axis, &i)| {
                    (src + i as isize * axis.src, dst + i * axis.dst)
                })
        })
    }
}

/// The axes of extent above 1, outermost first, each merged with its inner neighbour when one
/// step of it is a whole run of the inner one in both source and destination.
fn merged(shape: &[i64], strides: &[i64], itemsize: usize) -> Vec<Axis> {
    // Compact destination strides, innermost first.
    let mut dst = itemsize;
    let mut axes: Vec<Axis> = Vec::with_capacity(shape.len());
    for (&extent, &stride) in shape.iter().zip(strides).rev() {
        let extent = extent as usize;
        let axis = Axis {
            extent,
            src: stride as isize * itemsize as isize,
            dst,
        };
        dst *= extent;
        if extent == 1 {
            continue;
        }
        match axes.last_mut() {
            Some(inner)
                if axis.src == inner.src * inner.extent as isize
                    && axis.dst == inner.dst * inner.extent =>
            {
                inner.extent *= extent;
            }
            _ => axes.push(axis),
        }
    }
    axes.reverse();
    axes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cuda::fake::copy_on_host;
    use proptest::prelude::*;

    const UNLIMITED: usize = usize::MAX;

    fn block(width: usize, height: usize, depth: usize, pitch: usize, slice: usize) -> Block {
        Block {
            width,
            height,
            depth,
            src_pitch: pitch,
            src_slice: slice,
        }
    }

    #[test]
    fn compact_tensors_are_one_run() {
        for (shape, strides) in [
            (&[2_i64, 3, 4][..], &[12_i64, 4, 1][..]),
            (&[1, 5, 1], &[99, 1, 7]), // extents of 1 take any stride
            (&[], &[]),                // a scalar
        ] {
            let plan = Plan::new(shape, strides, 4, UNLIMITED);
            let count: i64 = shape.iter().product();
            assert_eq!(plan.copies(), 1, "{shape:?}");
            assert_eq!(
                plan.block(),
                block(
                    count as usize * 4,
                    1,
                    1,
                    count as usize * 4,
                    count as usize * 4
                )
            );
        }
        assert_eq!(Plan::new(&[0, 3], &[3, 1], 4, UNLIMITED).copies(), 0);
    }

    #[test]
    fn a_column_is_one_2d_copy() {
        // Column 3 of a 1000 x 4096 f32 matrix: 1000 rows of 4 bytes, 16 KiB apart.
        let plan = Plan::new(&[1000], &[4096], 4, UNLIMITED);
        assert_eq!(plan.copies(), 1);
        assert_eq!(plan.block(), block(4, 1000, 1, 4096 * 4, 4096 * 4 * 1000));
        // A block of rows 10..20, columns 5..9.
        let plan = Plan::new(&[10, 4], &[4096, 1], 4, UNLIMITED);
        assert_eq!(
            (plan.copies(), plan.block()),
            (1, block(16, 10, 1, 4096 * 4, 4096 * 40))
        );
    }

    #[test]
    fn a_batch_of_blocks_is_one_3d_copy() {
        // [8, 64, 64] out of an [8, 128, 256] tensor.
        let plan = Plan::new(&[8, 64, 64], &[128 * 256, 256, 1], 2, UNLIMITED);
        assert_eq!(plan.copies(), 1);
        assert_eq!(plan.block(), block(128, 64, 8, 512, 128 * 256 * 2));
        // Slices that are not a whole number of rows apart: one 2D copy per slice.
        let plan = Plan::new(&[8, 64, 64], &[128 * 256 + 1, 256, 1], 2, UNLIMITED);
        assert_eq!((plan.copies(), plan.block().depth), (8, 1));
    }

    #[test]
    fn a_transpose_is_one_copy_per_row_of_the_result() {
        // A 3 x 5 view of a 5 x 3 matrix.
        let plan = Plan::new(&[3, 5], &[1, 3], 8, UNLIMITED);
        assert_eq!(plan.copies(), 3);
        assert_eq!(plan.block(), block(8, 5, 1, 24, 120));
        let starts: Vec<_> = plan.starts().collect();
        assert_eq!(starts, [(0, 0), (8, 40), (16, 80)]);
    }

    #[test]
    fn pitches_past_the_limit_are_looped() {
        let plan = Plan::new(&[1000], &[4096], 4, 4096 * 4);
        assert_eq!(plan.copies(), 1);
        let plan = Plan::new(&[1000], &[4096], 4, 4096 * 4 - 1);
        assert_eq!((plan.copies(), plan.block()), (1000, block(4, 1, 1, 4, 4)));
    }

    #[test]
    fn negative_and_zero_strides_are_looped() {
        let plan = Plan::new(&[4, 6], &[-6, 1], 1, UNLIMITED);
        assert_eq!((plan.copies(), plan.block()), (4, block(6, 1, 1, 6, 6)));
        let starts: Vec<_> = plan.starts().collect();
        assert_eq!(starts, [(0, 0), (-6, 6), (-12, 12), (-18, 18)]);
        let plan = Plan::new(&[5, 3], &[0, 1], 4, UNLIMITED);
        assert_eq!((plan.copies(), plan.block().width), (5, 12));
    }

    /// The compact bytes of the tensor, element by element.
    fn reference(
        memory: &[u8],
        first: usize,
        shape: &[i64],
        strides: &[i64],
        itemsize: usize,
    ) -> Vec<u8> {
        let count: i64 = shape.iter().product();
        let mut out = Vec::new();
        for n in 0..count {
            let mut rest = n;
            let mut offset = 0_i64;
            for (&extent, &stride) in shape.iter().zip(strides).rev() {
                offset += rest % extent * stride;
                rest /= extent;
            }
            let at = (first as i64 + offset * itemsize as i64) as usize;
            out.extend_from_slice(&memory[at..at + itemsize]);
        }
        out
    }

    /// A layout and the memory it lives in: up to 4 axes of extent up to 4 with strides from -9
    /// to 9 elements, placed so that every element is inside the buffer.
    fn layout() -> impl Strategy<Value = (Vec<i64>, Vec<i64>, usize)> {
        proptest::collection::vec((0_i64..5, -9_i64..10), 0..5).prop_flat_map(|axes| {
            let shape: Vec<i64> = axes.iter().map(|a| a.0).collect();
            let strides: Vec<i64> = axes.iter().map(|a| a.1).collect();
            (
                Just(shape),
                Just(strides),
                prop_oneof![Just(1_usize), Just(2), Just(4), Just(8)],
            )
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: if cfg!(miri) { 24 } else { 1024 },
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        #[test]
        fn every_plan_gathers_what_the_elements_hold(
            (shape, strides, itemsize) in layout(),
            max_pitch in prop_oneof![Just(UNLIMITED), 1_usize..200],
        ) {
            let count: i64 = shape.iter().product();
            // The lowest and highest element offsets, in elements.
            let low: i64 = shape.iter().zip(&strides).map(|(&n, &s)| if n > 0 { (n - 1) * s.min(0) } else { 0 }).sum();
            let high: i64 = shape.iter().zip(&strides).map(|(&n, &s)| if n > 0 { (n - 1) * s.max(0) } else { 0 }).sum();
            let first = (-low) as usize * itemsize;
            let memory: Vec<u8> = (0..((high - low + 1) as usize * itemsize)).map(|b| (b * 7 + 3) as u8).collect();
            let plan = Plan::new(&shape, &strides, itemsize, max_pitch);
            let mut out = vec![0_u8; count as usize * itemsize];
            let mut written = 0;
            for (src, dst) in plan.starts() {
                let block = plan.block();
                prop_assert!(dst + block.len() <= out.len());
                // SAFETY: the plan keeps every row inside the tensor's elements, which lie in
                // `memory`, and inside `out`.
                unsafe {
                    copy_on_host(memory.as_ptr().wrapping_add(first).wrapping_offset(src), out.as_mut_ptr().wrapping_add(dst), block);
                }
                written += block.len();
            }
            prop_assert_eq!(written, out.len());
            prop_assert_eq!(out, reference(&memory, first, &shape, &strides, itemsize));
            // What the driver checks: rows no wider than their pitch, pitches within the limit,
            // and slices of whole rows, no fewer than a slice holds.
            let block = plan.block();
            if block.height > 1 {
                prop_assert!(block.src_pitch >= block.width && block.src_pitch <= max_pitch);
            }
            if block.depth > 1 {
                prop_assert_eq!(block.src_slice % block.src_pitch, 0);
                prop_assert!(block.src_slice / block.src_pitch >= block.height);
            }
        }
    }
}
