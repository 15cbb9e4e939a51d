use dlpack_core::DlpackDevice;

struct Context;

fn name(_: &Context) -> String {
    String::new()
}

#[derive(DlpackDevice)]
enum Place {
    #[dlpack(cuda, id_with = name, export_only)]
    Handle(Context),
}

fn main() {}
