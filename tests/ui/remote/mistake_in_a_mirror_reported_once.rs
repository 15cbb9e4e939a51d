use dlpack_core::{DataType, DlpackDataType, from_dlpack};

// One mistake in the mirror: its conversions still exist, so their uses add no errors.
#[derive(DlpackDataType)]
#[dlpack(remote = "dlpack_tests::foreign::Precision")]
enum Precision {
    #[dlpack("float16")]
    Half,
    #[dlpack("float32")]
    Single,
    #[dlpack("float64", export_onyl)]
    Double,
}

fn main() {
    let theirs: dlpack_tests::foreign::Precision =
        from_dlpack::<Precision>(&DataType::F16).unwrap().into();
    let _ = Precision::from(&theirs);
}
