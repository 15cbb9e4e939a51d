//! Golden expansion tests: the code both derives generate for representative inputs,
//! pretty-printed and compared with `golden/<name>.txt`.
//!
//! They pin the shapes the benchmarks justify (`benches/src/lib.rs`, "The generated code"):
//! one `match` whose arms are constants for a unit variant's export, one `match` on an integer
//! key for an import, cold error paths behind `__private`. A change to the expansion shows here
//! as a diff to read; accept it with `UPDATE_EXPECT=1 cargo test -p dlpack-derive golden`, and
//! rerun the conversion benchmarks if the hot path moved.

use expect_test::{ExpectFile, expect_file};
use proc_macro2::TokenStream;
use quote::quote;

use crate::parse::kind::Kind;

fn check(kind: Kind, input: TokenStream, expected: ExpectFile) {
    let source: syn::File = syn::parse2(input.clone()).expect("the input is an item");
    let derive_input: syn::DeriveInput = syn::parse2(input).expect("the input is a derive input");
    let output = crate::expand::derive(&derive_input, kind);
    let expanded: syn::File = syn::parse2(output).expect("the expansion parses as items");
    let code = prettyplease::unparse(&expanded);
    // What a `no_std` crate can compile: `::core` and dlpack-core's paths, never `::std` or
    // `::alloc` (which the user's crate may not link).
    for root in ["::std::", "::alloc::", "std::", "alloc::"] {
        assert!(
            !code.contains(root),
            "the expansion names `{root}`, which a no_std crate without `extern crate alloc` \
             cannot compile:\n{code}"
        );
    }
    let text = format!(
        "// Input:\n{}\n// Expansion:\n{}",
        prettyplease::unparse(&source)
            .lines()
            .map(|l| format!("// {l}\n"))
            .collect::<String>(),
        code
    );
    expected.assert_eq(&text);
}

#[test]
fn data_type_unit_variants() {
    check(
        Kind::DataType,
        quote! {
            enum DType {
                #[dlpack("float32")] F32,
                #[dlpack(code = bfloat, bits = 16)] BF16,
                #[dlpack("float32", export_only)] Flex32,
                #[dlpack(skip)] QInt8,
            }
        },
        expect_file!["../golden/data_type_unit_variants.txt"],
    );
}

#[test]
fn data_type_element_and_generic() {
    check(
        Kind::DataType,
        quote! {
            enum Dtype<E: Element> {
                #[dlpack(element = f32)] F32,
                #[dlpack(element = u8)] U8,
                #[dlpack(element = E, export_only)] Native(PhantomData<E>),
            }
        },
        expect_file!["../golden/data_type_element_and_generic.txt"],
    );
}

#[test]
fn data_type_delegates() {
    check(
        Kind::DataType,
        quote! {
            enum DType {
                #[dlpack("uint8")] U8,
                Bool(#[dlpack(delegate)] BoolStore),
                Other(#[dlpack(delegate)] DataType),
            }
        },
        expect_file!["../golden/data_type_delegates.txt"],
    );
}

#[test]
fn data_type_raw_struct() {
    check(
        Kind::DataType,
        quote! {
            struct RawDType {
                #[dlpack(code)] code: u8,
                #[dlpack(bits)] bits: u8,
                #[dlpack(lanes)] lanes: u16,
            }
        },
        expect_file!["../golden/data_type_raw_struct.txt"],
    );
}

#[test]
fn data_type_newtype_and_crate_path() {
    check(
        Kind::DataType,
        quote! {
            #[dlpack(crate = "my_framework::dlpack")]
            struct Wrapper<T>(T);
        },
        expect_file!["../golden/data_type_newtype_and_crate_path.txt"],
    );
}

#[test]
fn device_unit_and_id_fields() {
    check(
        Kind::Device,
        quote! {
            enum Place {
                #[dlpack(cpu)] Cpu,
                #[dlpack(cuda)] Cuda(usize),
                #[dlpack(rocm)] Rocm { #[dlpack(id)] ordinal: u8 },
                #[dlpack(metal, id = 0)] Mps,
                #[dlpack(cuda_host)] Pinned,
                #[cfg(feature = "webgpu")] #[dlpack(webgpu)] Wgpu,
            }
        },
        expect_file!["../golden/device_unit_and_id_fields.txt"],
    );
}

#[test]
fn device_struct() {
    check(
        Kind::Device,
        quote! {
            #[dlpack(cuda)]
            pub struct CudaDevice { #[dlpack(id)] pub index: u16 }
        },
        expect_file!["../golden/device_struct.txt"],
    );
}

#[test]
fn device_delegates_and_skip() {
    check(
        Kind::Device,
        quote! {
            enum Dispatch {
                Cuda(#[dlpack(delegate)] CudaDevice),
                #[dlpack(export_only)] LibTorch(#[dlpack(delegate)] LibTorchDevice),
                #[dlpack(skip)] Remote(String),
            }
        },
        expect_file!["../golden/device_delegates_and_skip.txt"],
    );
}

#[test]
fn fallback_on_error() {
    check(
        Kind::Device,
        quote! {
            enum Place {
                #[dlpack(cdua)] Cuda(usize),
            }
        },
        expect_file!["../golden/fallback_on_error.txt"],
    );
}

#[test]
fn data_type_import_policies() {
    check(
        Kind::DataType,
        quote! {
            enum DType {
                #[dlpack("int8")] I8,
                #[dlpack("int8", export_only)] QInt8(QuantParams),
                #[dlpack("uint8", import_with = DType::identity)] QUInt8(QuantParams),
                #[dlpack("int32", default)] QInt32(QuantParams, PhantomData<u8>),
            }
        },
        expect_file!["../golden/data_type_import_policies.txt"],
    );
}

#[test]
fn data_type_raw_struct_with_default() {
    check(
        Kind::DataType,
        quote! {
            #[dlpack(default)]
            struct Scalar {
                #[dlpack(code)] code: u8,
                #[dlpack(bits)] bits: u8,
                note: Option<String>,
            }
        },
        expect_file!["../golden/data_type_raw_struct_with_default.txt"],
    );
}

#[test]
fn device_handles() {
    check(
        Kind::Device,
        quote! {
            enum Place {
                #[dlpack(cpu)] Cpu,
                #[dlpack(cuda, device_with = CudaDevice::location, import_with = Place::open_cuda)]
                Cuda(CudaDevice),
                #[dlpack(device_with = MetalDevice::location, import_with = Place::open_metal)]
                Metal(MetalDevice),
                #[dlpack(rocm, id_with = ordinal, export_only)]
                Rocm(RocmContext),
            }
        },
        expect_file!["../golden/device_handles.txt"],
    );
}

#[test]
fn data_type_with() {
    check(
        Kind::DataType,
        quote! {
            enum DType {
                #[dlpack("float32")] F32,
                #[dlpack(data_type_with = QuantScheme::storage, import_with = DType::quantised)]
                QFloat(QuantScheme),
                #[dlpack(export_only)]
                Blocked { #[dlpack(data_type_with = storage)] scheme: QuantScheme, block: u32 },
            }
        },
        expect_file!["../golden/data_type_with.txt"],
    );
}

#[test]
fn device_handle_struct() {
    check(
        Kind::Device,
        quote! {
            #[dlpack(device_with = Self::location, import_with = Self::open)]
            struct Queue { context: Context }
        },
        expect_file!["../golden/device_handle_struct.txt"],
    );
}

#[test]
fn device_struct_with_default() {
    check(
        Kind::Device,
        quote! {
            #[dlpack(cuda, default)]
            struct Stream { #[dlpack(id)] device: u16, priority: i32 }
        },
        expect_file!["../golden/device_struct_with_default.txt"],
    );
}

#[test]
fn device_pointer_delegates() {
    check(
        Kind::Device,
        quote! {
            enum Place {
                Cuda(#[dlpack(delegate)] Arc<CudaContext>),
                #[dlpack(default)]
                Labelled(#[dlpack(delegate)] Box<Vulkan>, String),
            }
        },
        expect_file!["../golden/device_pointer_delegates.txt"],
    );
}

#[test]
fn data_type_remote_non_exhaustive() {
    check(
        Kind::DataType,
        quote! {
            #[dlpack(remote = "candle_core::DType", non_exhaustive = "error", __impl_remote)]
            enum CandleDType {
                #[dlpack("float32")] F32,
                #[dlpack("bfloat16")] BF16,
            }
        },
        expect_file!["../golden/data_type_remote_non_exhaustive.txt"],
    );
}

#[test]
fn device_remote_fields() {
    check(
        Kind::Device,
        quote! {
            #[dlpack(remote = candle_core::DeviceLocation)]
            enum Location {
                #[dlpack(cpu)] Cpu,
                #[dlpack(cuda)] Cuda { #[dlpack(id)] gpu_id: usize },
                #[dlpack(metal)] Metal(#[dlpack(id)] usize),
            }
        },
        expect_file!["../golden/device_remote_fields.txt"],
    );
}
