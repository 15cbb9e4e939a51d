use dlpack_core::DlpackDataType;

#[derive(DlpackDataType)]
union Bits {
    f: f32,
    u: u32,
}

fn main() {}
