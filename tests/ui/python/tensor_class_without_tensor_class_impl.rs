use pyo3::prelude::*;

// A tensor class whose `TensorClass` impl was forgotten.
#[pyclass(frozen)]
struct Floats(Vec<f32>);

#[dlpack_core::python::pymethods(tensor)]
impl Floats {
    fn tolist(&self) -> Vec<f32> {
        self.0.clone()
    }
}

fn main() {}
