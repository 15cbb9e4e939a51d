use dlpack_core::DlpackDataType;

// Neither the trait nor `foreign::Precision` is this crate's, so no impl for the foreign type
// could compile here (E0117): `impl_remote` is no option, and the error says to convert
// through the mirror.
#[derive(DlpackDataType)]
#[dlpack(remote = "dlpack_tests::foreign::Precision", impl_remote)]
enum Precision {
    #[dlpack("float16")]
    Half,
    #[dlpack("float32")]
    Single,
    #[dlpack("float64")]
    Double,
}

fn main() {}
