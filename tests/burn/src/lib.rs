//! The burn bridge of `dlpack-core` on a real burn backend. Its tests are in `tests/`: burn
//! tensors on `Device::flex()` exported and imported (counting the copies), the device both
//! ways, and burn tensors handed to NumPy and taken back. The bridge's backend-free tests
//! (every data type, `TensorData` both ways, under Miri) are `dlpack-core/tests/bridges_burn.rs`.
