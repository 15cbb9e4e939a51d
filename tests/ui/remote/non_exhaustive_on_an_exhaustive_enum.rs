use dlpack_core::DlpackDataType;

// `foreign::Precision` is exhaustive: the decision would only hide a variant left out.
#[derive(DlpackDataType)]
#[dlpack(remote = "dlpack_tests::foreign::Precision", non_exhaustive = "error")]
enum Precision {
    #[dlpack("float16")]
    Half,
    #[dlpack("float32")]
    Single,
    #[dlpack("float64")]
    Double,
}

fn main() {}
