//! Element iteration over strided tensors, in row-major index order.

use alloc::{vec, vec::Vec};
use core::iter::FusedIterator;
use core::marker::PhantomData;

use crate::element::Element;

/// One axis of a walk: its extent and its step in bytes.
#[derive(Clone, Debug)]
struct Axis {
    len: usize,
    step: isize,
}

/// The byte offsets of every element of a non-overlapping or overlapping strided layout, from
/// the first element, in row-major index order. Axes of extent 1 are dropped.
#[derive(Clone, Debug)]
pub(crate) struct Offsets {
    axes: Vec<Axis>,
    index: Vec<usize>,
    offset: isize,
    remaining: usize,
}

impl Offsets {
    /// The walk over `count` elements of `shape` with `strides` (in elements of `itemsize`
    /// bytes). The layout must have passed validation: every offset then fits in `isize`.
    pub(crate) fn new(shape: &[i64], strides: &[i64], itemsize: usize, count: usize) -> Self {
        let axes: Vec<Axis> = if count == 0 {
            Vec::new()
        } else {
            shape
                .iter()
                .zip(strides)
                .filter(|&(&d, _)| d != 1)
                .map(|(&d, &s)| Axis {
                    len: d as usize,
                    // Validated: |s| * (d - 1) * itemsize <= isize::MAX with d >= 2.
                    step: (s as isize).wrapping_mul(itemsize as isize),
                })
                .collect()
        };
        Self {
            index: vec![0; axes.len()],
            axes,
            offset: 0,
            remaining: count,
        }
    }
}

impl Iterator for Offsets {
    type Item = isize;

    fn next(&mut self) -> Option<isize> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let current = self.offset;
        if self.remaining > 0 {
            // Odometer step. Wrapping arithmetic: the intermediate "one past an axis" offset
            // may leave isize for extreme strides, but the offset of every element fits.
            for (axis, i) in self.axes.iter().zip(self.index.iter_mut()).rev() {
                *i += 1;
                self.offset = self.offset.wrapping_add(axis.step);
                if *i < axis.len {
                    break;
                }
                *i = 0;
                self.offset = self
                    .offset
                    .wrapping_sub(axis.step.wrapping_mul(axis.len as isize));
            }
        }
        Some(current)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for Offsets {}
impl FusedIterator for Offsets {}

/// The elements of a tensor view, by value, in row-major index order, whatever the strides
/// (negative and zero ones included). Made by [`TensorView::iter`](crate::tensor::TensorView::iter).
///
/// ```
/// use dlpack_core::ManagedTensor;
///
/// let tensor = ManagedTensor::from_vec(vec![1_i32, 2, 3, 4, 5, 6], &[2, 3])?;
/// let sum: i32 = tensor.view()?.iter::<i32>()?.sum();
/// assert_eq!(sum, 21);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
pub struct Iter<'a, T> {
    first: *const u8,
    offsets: Offsets,
    _data: PhantomData<&'a [T]>,
}

// SAFETY: an `Iter` only reads `T: Sync` values it could equally read through `&'a [T]`.
unsafe impl<T: Element> Send for Iter<'_, T> {}
// SAFETY: as for `Send`; `&Iter` gives no access at all.
unsafe impl<T: Element> Sync for Iter<'_, T> {}

impl<'a, T: Element> Iter<'a, T> {
    /// # Safety
    ///
    /// `first` plus each of `offsets` must address an aligned, initialised, valid `T` that
    /// nobody writes for `'a` (`first` may dangle when `offsets` is empty).
    pub(crate) unsafe fn new(first: *const u8, offsets: Offsets) -> Self {
        Self {
            first,
            offsets,
            _data: PhantomData,
        }
    }
}

/// Yields each element by value, row-major: the last index varies fastest.
///
/// ```
/// use dlpack_core::ManagedTensor;
///
/// let tensor = ManagedTensor::from_vec(vec![1_u8, 2, 3, 4], &[2, 2])?;
/// let view = tensor.view()?;
/// let mut iter = view.iter::<u8>()?;
/// assert_eq!(iter.next(), Some(1));
/// assert_eq!(iter.collect::<Vec<_>>(), [2, 3, 4]);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
impl<T: Element> Iterator for Iter<'_, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        let offset = self.offsets.next()?;
        // SAFETY: `new`'s contract: every offset addresses a readable, aligned, valid `T`.
        Some(unsafe { self.first.wrapping_offset(offset).cast::<T>().read() })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.offsets.size_hint()
    }
}

/// The number of elements left.
///
/// ```
/// use dlpack_core::ManagedTensor;
///
/// let tensor = ManagedTensor::from_vec(vec![0_u8; 6], &[2, 3])?;
/// let view = tensor.view()?;
/// let mut iter = view.iter::<u8>()?;
/// assert_eq!(iter.len(), 6);
/// iter.next();
/// assert_eq!(iter.len(), 5);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
impl<T: Element> ExactSizeIterator for Iter<'_, T> {}
impl<T: Element> FusedIterator for Iter<'_, T> {}

impl<T> core::fmt::Debug for Iter<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Iter")
            .field("remaining", &self.offsets.remaining)
            .finish_non_exhaustive()
    }
}

/// Mutable references to the elements of a mutable tensor view, in row-major index order.
/// Made by [`TensorViewMut::iter_mut`](crate::tensor::TensorViewMut::iter_mut), which refuses layouts
/// whose strides reach an element from two indices (decided exactly, within a search bound).
///
/// ```
/// use dlpack_core::ManagedTensor;
///
/// let mut tensor = ManagedTensor::from_vec(vec![1.0_f64, 2.0, 3.0], &[3])?;
/// for x in tensor.view_mut()?.iter_mut::<f64>()? {
///     *x *= 10.0;
/// }
/// assert_eq!(tensor.view()?.as_slice::<f64>()?, [10.0, 20.0, 30.0]);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
pub struct IterMut<'a, T> {
    first: *mut u8,
    offsets: Offsets,
    _data: PhantomData<&'a mut [T]>,
}

// SAFETY: an `IterMut` hands out `&mut T` to distinct elements, as `slice::IterMut` does.
unsafe impl<T: Element> Send for IterMut<'_, T> {}
// SAFETY: `&IterMut` gives no access at all.
unsafe impl<T: Element> Sync for IterMut<'_, T> {}

impl<'a, T: Element> IterMut<'a, T> {
    /// # Safety
    ///
    /// As [`Iter::new`], and the offsets must be distinct and the memory writable and not
    /// accessed by anyone else for `'a`.
    pub(crate) unsafe fn new(first: *mut u8, offsets: Offsets) -> Self {
        Self {
            first,
            offsets,
            _data: PhantomData,
        }
    }
}

/// Yields a mutable reference to each element, row-major, each element once.
///
/// ```
/// use dlpack_core::ManagedTensor;
///
/// let mut tensor = ManagedTensor::from_vec(vec![1_u8, 2, 3], &[3])?;
/// let mut view = tensor.view_mut()?;
/// let mut iter = view.iter_mut::<u8>()?;
/// *iter.next().unwrap() = 10;
/// iter.for_each(|x| *x += 1);
/// assert_eq!(tensor.view()?.as_slice::<u8>()?, [10, 3, 4]);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
impl<'a, T: Element> Iterator for IterMut<'a, T> {
    type Item = &'a mut T;

    fn next(&mut self) -> Option<&'a mut T> {
        let offset = self.offsets.next()?;
        // SAFETY: `new`'s contract: each offset addresses a distinct, valid, writable `T`
        // that nobody else accesses for 'a, and each is handed out once.
        Some(unsafe { &mut *self.first.wrapping_offset(offset).cast::<T>() })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.offsets.size_hint()
    }
}

/// The number of elements left.
///
/// ```
/// use dlpack_core::ManagedTensor;
///
/// let mut tensor = ManagedTensor::from_vec(vec![0_u8; 4], &[2, 2])?;
/// let mut view = tensor.view_mut()?;
/// let mut iter = view.iter_mut::<u8>()?;
/// assert_eq!(iter.len(), 4);
/// iter.next();
/// assert_eq!(iter.len(), 3);
/// # Ok::<(), dlpack_core::Error>(())
/// ```
impl<T: Element> ExactSizeIterator for IterMut<'_, T> {}
impl<T: Element> FusedIterator for IterMut<'_, T> {}

impl<T> core::fmt::Debug for IterMut<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("IterMut")
            .field("remaining", &self.offsets.remaining)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::Offsets;
    use std::prelude::rust_2024::*;

    #[test]
    fn offsets_walk_row_major() {
        let o: Vec<isize> = Offsets::new(&[2, 3], &[3, 1], 4, 6).collect();
        assert_eq!(o, [0, 4, 8, 12, 16, 20]);
        let o: Vec<isize> = Offsets::new(&[2, 3], &[1, 2], 1, 6).collect();
        assert_eq!(o, [0, 2, 4, 1, 3, 5]);
        let o: Vec<isize> = Offsets::new(&[3], &[-1], 8, 3).collect();
        assert_eq!(o, [0, -8, -16]);
        let o: Vec<isize> = Offsets::new(&[2, 1, 2], &[0, 99, 1], 1, 4).collect();
        assert_eq!(o, [0, 1, 0, 1]);
        assert_eq!(Offsets::new(&[], &[], 4, 1).collect::<Vec<_>>(), [0]);
        assert_eq!(Offsets::new(&[0, 5], &[5, 1], 4, 0).count(), 0);
    }
}
