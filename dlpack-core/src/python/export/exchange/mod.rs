//! DLPack 1.3's C exchange API, `__dlpack_c_exchange_api__`, producer side: a table of C
//! functions a tensor *type* publishes, through which C, C++ and Rust code exchanges its
//! tensors without a Python call (see the [module documentation](crate::python), "The C
//! exchange API"). The consumer side is `python/import/` (`table.rs`, `view.rs`).

mod api;
mod producer;
mod tensor_type;
#[cfg(test)]
mod tests;

pub use api::ExchangeApi;
pub use tensor_type::{AllocError, ExchangeTensor};
