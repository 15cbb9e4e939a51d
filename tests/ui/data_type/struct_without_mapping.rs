use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
struct Pair {
    code: u8,
    bits: u8,
}

fn main() {}
