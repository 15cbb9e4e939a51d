use dlpack_core::DlpackDataType;

// `default` on a struct rebuilds it with `Self::default()`, which this struct lacks.
#[derive(DlpackDataType)]
#[dlpack("int8", default)]
struct QInt8 {
    scale: f32,
}

fn main() {}
