use dlpack_core::DlpackDataType;

// Neither the trait nor `foreign::Precision` is this crate's: only the mirror's impls compile.
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
