//! `Device::can_access` against an explicit matrix: every known device type as the accessor
//! (the row: where the code runs) against every known device type as the memory (the column).

use dlpack_core::Device;
use dlpack_core::ffi::DLDeviceType;

/// Row: code runs on; column: memory lives on. `1`: readable without a copy.
/// Columns, in device-type order: cpu cuda cuda_host opencl vulkan metal vpi rocm rocm_host
/// ext_dev cuda_managed oneapi webgpu hexagon maia trn tpu tpu_host ascend.
const MATRIX: &[&str] = &[
    //              c c c o v m v r r e c o w h m t t t a
    //              p u h c k t p o h x m n g x a r p h s
    "cpu           1 0 1 0 0 0 0 0 1 0 1 0 0 0 0 0 0 1 0",
    "cuda          0 1 1 0 0 0 0 0 0 0 1 0 0 0 0 0 0 0 0",
    "cuda_host     1 0 1 0 0 0 0 0 1 0 1 0 0 0 0 0 0 1 0",
    "opencl        0 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0",
    "vulkan        0 0 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0",
    "metal         0 0 0 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0",
    "vpi           0 0 0 0 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0",
    "rocm          0 0 0 0 0 0 0 1 1 0 0 0 0 0 0 0 0 0 0",
    "rocm_host     1 0 1 0 0 0 0 0 1 0 1 0 0 0 0 0 0 1 0",
    "ext_dev       0 0 0 0 0 0 0 0 0 1 0 0 0 0 0 0 0 0 0",
    "cuda_managed  1 0 1 0 0 0 0 0 1 0 1 0 0 0 0 0 0 1 0",
    "oneapi        0 0 0 0 0 0 0 0 0 0 0 1 0 0 0 0 0 0 0",
    "webgpu        0 0 0 0 0 0 0 0 0 0 0 0 1 0 0 0 0 0 0",
    "hexagon       0 0 0 0 0 0 0 0 0 0 0 0 0 1 0 0 0 0 0",
    "maia          0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 0 0 0 0",
    "trn           0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 0 0 0",
    "tpu           0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 0 0",
    "tpu_host      1 0 1 0 0 0 0 0 1 0 1 0 0 0 0 0 0 1 0",
    "ascend        0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1",
];

fn known_device_types() -> Vec<DLDeviceType> {
    (-1024..=1024)
        .map(DLDeviceType)
        .filter(|t| t.name().is_some())
        .collect()
}

#[test]
fn can_access_follows_the_matrix() {
    let types = known_device_types();
    assert_eq!(MATRIX.len(), types.len(), "one row per known device type");
    for (row, &accessor) in MATRIX.iter().zip(&types) {
        let mut cells = row.split_whitespace();
        let label = cells.next().unwrap();
        assert_eq!(
            Some(label),
            accessor.name(),
            "rows are in device-type order"
        );
        let cells: Vec<bool> = cells.map(|c| c == "1").collect();
        assert_eq!(cells.len(), types.len(), "row {label}");
        for (&expected, &memory) in cells.iter().zip(&types) {
            let (code_on, memory_on) = (Device::new(accessor, 0), Device::new(memory, 0));
            assert_eq!(
                code_on.can_access(memory_on),
                expected,
                "code on {code_on} reading memory on {memory_on}"
            );
        }
    }
}

#[test]
fn ids_matter_only_for_indexed_device_types() {
    // Two GPUs of one kind do not read each other's memory (peer access is not assumed) …
    for make in [Device::cuda, Device::rocm, Device::oneapi, Device::tpu] {
        assert!(make(1).can_access(make(1)));
        assert!(!make(0).can_access(make(1)));
        assert!(!make(1).can_access(make(0)));
    }
    // … but every GPU reads its kind's host memory, whatever the id.
    assert!(Device::cuda(7).can_access(Device::CUDA_HOST));
    assert!(Device::cuda(7).can_access(Device::CUDA_MANAGED));
    assert!(Device::rocm(3).can_access(Device::ROCM_HOST));
    // Host-side memory has id 0 by convention: another id is the same memory.
    let cpu_1 = Device::new(DLDeviceType::CPU, 1);
    assert!(Device::CPU.can_access(cpu_1) && cpu_1.can_access(Device::CPU));
    assert!(Device::cuda(0).can_access(Device::new(DLDeviceType::CUDA_HOST, 5)));
    // A GPU never reads plain host memory, nor the host the GPU of another vendor.
    assert!(!Device::cuda(0).can_access(Device::CPU));
    assert!(!Device::cuda(0).can_access(Device::ROCM_HOST));
    assert!(!Device::rocm(0).can_access(Device::CUDA_HOST));
}

#[test]
fn unknown_device_types_reach_only_themselves() {
    let unknown = |id| Device::new(DLDeviceType(99), id);
    assert!(unknown(0).can_access(unknown(0)));
    assert!(!unknown(0).can_access(unknown(1)));
    for memory in known_device_types() {
        let memory = Device::new(memory, 0);
        assert!(!unknown(0).can_access(memory), "{memory}");
        assert!(!memory.can_access(unknown(0)), "{memory}");
    }
}
