//! What [`DlpackRequest::capsule`] does with the owner it exports: released exactly once,
//! by the capsule or by its consumer.

use core::sync::atomic::{AtomicUsize, Ordering};

use pyo3::prelude::*;

use super::DlpackRequest;
use crate::ffi::DLPackVersion;
use crate::python::capsule::{LEGACY, VERSIONED};
use crate::python::import::capsule_tensor;
use crate::tensor::{TensorOwner, TensorParts};

/// Three `i32`s whose owner counts its drops in a 'static counter.
struct Counted {
    data: Vec<i32>,
    drops: &'static AtomicUsize,
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::SeqCst);
    }
}

// SAFETY: the Vec's three elements stay put while the owner lives; nothing else uses them.
unsafe impl TensorOwner for Counted {
    fn describe(&mut self) -> TensorParts<'_> {
        TensorParts::host(self.data.as_mut_ptr(), &[3_usize])
    }
}

fn counted(drops: &'static AtomicUsize) -> Counted {
    Counted {
        data: vec![1, 2, 3],
        drops,
    }
}

fn with_python(test: impl FnOnce(Python<'_>) -> PyResult<()>) {
    Python::initialize();
    Python::attach(test).unwrap();
}

#[test]
fn unconsumed_capsules_release_their_owner_once() {
    static DROPS: AtomicUsize = AtomicUsize::new(0);
    with_python(|py| {
        for versioned in [true, false] {
            let request = DlpackRequest {
                max_version: versioned.then_some(DLPackVersion::CURRENT),
                ..DlpackRequest::LEGACY
            };
            let capsule = request.capsule(py, counted(&DROPS))?;
            let expected = if versioned { VERSIONED } else { LEGACY };
            assert!(capsule.is_valid_checked(Some(expected)));
            drop(capsule);
        }
        assert_eq!(DROPS.load(Ordering::SeqCst), 2);
        Ok(())
    });
}

#[test]
fn consumed_capsules_release_their_owner_with_the_consumer() {
    static DROPS: AtomicUsize = AtomicUsize::new(0);
    with_python(|py| {
        let capsule = DlpackRequest::LEGACY.capsule(py, counted(&DROPS))?;
        let tensor = capsule_tensor(&capsule)?;
        drop(capsule);
        assert_eq!(DROPS.load(Ordering::SeqCst), 0);
        assert_eq!(tensor.view()?.as_slice::<i32>()?, [1, 2, 3]);
        drop(tensor);
        assert_eq!(DROPS.load(Ordering::SeqCst), 1);
        Ok(())
    });
}
