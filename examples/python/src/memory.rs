//! Where tensors' elements live: the buffers `dlpack_demo` allocates (in host memory, or with
//! feature `cuda` on a GPU), foreign DLPack tensors, and a pointer that may cross threads.

use std::alloc::{self, Layout};
use std::ptr::NonNull;
#[cfg(feature = "cuda")]
use std::sync::Arc;

use dlpack_core::ManagedTensor;

use pyo3::exceptions::PyMemoryError;
use pyo3::prelude::*;

use crate::live::Live;

/// A data pointer into a tensor's memory.
#[derive(Clone, Copy, Debug)]
pub struct Ptr(pub *mut u8);

// SAFETY: a plain address. What it points to is kept alive by the `Memory` stored next to it
// and is only read and written through raw pointers, while attached to the interpreter.
unsafe impl Send for Ptr {}
// SAFETY: as for `Send`; sharing the address shares no Rust reference to the memory.
unsafe impl Sync for Ptr {}

/// A zeroed heap block, 64-byte aligned (what NumPy and most SIMD code like best).
pub struct Buffer {
    ptr: NonNull<u8>,
    layout: Layout,
    _live: Live,
}

// SAFETY: the block is owned by this value alone and freed once, on drop; its bytes are only
// reached through `ptr()`, by raw pointer reads and writes while attached to the interpreter.
unsafe impl Send for Buffer {}
// SAFETY: as for `Send`: `&Buffer` gives out only the address.
unsafe impl Sync for Buffer {}

impl Buffer {
    /// The alignment of every buffer.
    pub const ALIGN: usize = 64;

    /// `len` zero bytes (at least one byte is allocated, so that the pointer is never dangling).
    pub fn zeroed(len: usize, live: Live) -> PyResult<Self> {
        let layout = Layout::from_size_align(len.max(1), Self::ALIGN)
            .map_err(|_| PyMemoryError::new_err(format!("cannot allocate {len} bytes")))?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc::alloc_zeroed(layout) };
        let ptr = NonNull::new(ptr)
            .ok_or_else(|| PyMemoryError::new_err(format!("cannot allocate {len} bytes")))?;
        Ok(Self {
            ptr,
            layout,
            _live: live,
        })
    }

    /// The first byte.
    pub fn ptr(&self) -> Ptr {
        Ptr(self.ptr.as_ptr())
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: allocated in `zeroed` with this layout, freed only here.
        unsafe { alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

/// Where a tensor's elements live.
pub enum Memory {
    /// A block allocated here.
    Owned(Buffer),
    /// A block allocated here in CUDA memory (feature `cuda`).
    #[cfg(feature = "cuda")]
    Cuda(crate::cuda::DeviceMemory),
    /// A tensor imported from another library, released to it when dropped.
    Foreign {
        /// The imported tensor (its deleter runs when this drops).
        tensor: ManagedTensor,
        /// Counts it in `live()["imports"]`.
        _live: Live,
        /// For a `cuda:n` tensor, the library's stream there, where this library queues its
        /// work on the memory: waited for before the producer gets the memory back.
        #[cfg(feature = "cuda")]
        wait: Option<Arc<dlpack_core::cuda::cudarc::driver::CudaStream>>,
    },
}

#[cfg(feature = "cuda")]
impl Drop for Memory {
    fn drop(&mut self) {
        if let Memory::Foreign {
            wait: Some(stream), ..
        } = self
        {
            // Reads and writes this library queued on the memory finish before the producer
            // may reuse it, without leaving the stream's context bound to the thread. (Nothing
            // can be done about an error in a drop; the driver reports it again on the next
            // call.)
            let _ = dlpack_core::cuda::with_current(stream.context(), || stream.synchronize());
        }
    }
}
