//! The tokens that differ by kind: a constant value, what a directly mapped item adds to the
//! sets, and how an import matches it.
//!
//! A data type imports through one `match` on the data type as one integer
//! (`code | bits << 8 | lanes << 16`, written as a literal that reads as its parts); a device
//! through one `match` on the device type, with a guard on the id for an item that imports one
//! id only. A data type constant is an inline `const` block, a device constant a plain
//! constructor call: the shapes under which LLVM compiles a derived conversion to the table a
//! hand-written `match` compiles to (the benchmarks' documentation says how that was measured).

use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::check::{Const, Export, mentions_type_param};
use crate::parse::ast::Input;
use crate::parse::kind::{Kind, Paths};

/// The value of a constant.
pub(super) fn constant(paths: &Paths, value: Const) -> TokenStream {
    let krate = &paths.krate;
    match value {
        Const::DataType { code, bits, lanes } => {
            let (code, bits, lanes) = (
                Literal::u8_suffixed(code),
                Literal::u8_suffixed(bits),
                Literal::u16_suffixed(lanes),
            );
            quote!(const { #krate::DataType::new(#krate::ffi::DLDataTypeCode(#code), #bits, #lanes) })
        }
        Const::Device {
            device_type, id, ..
        } => {
            let ty = device_type_tokens(paths, device_type);
            let id = Literal::i32_suffixed(id);
            quote!(#krate::Device::new(#ty, #id))
        }
    }
}

/// `DLDeviceType(2i32)`.
pub(super) fn device_type_tokens(paths: &Paths, device_type: i32) -> TokenStream {
    let krate = &paths.krate;
    let t = Literal::i32_suffixed(device_type);
    quote!(#krate::ffi::DLDeviceType(#t))
}

/// The value of an item whose value is known at compile time (a constant, an `element`).
pub(super) fn known(paths: &Paths, export: &Export) -> Option<TokenStream> {
    let krate = &paths.krate;
    match export {
        Export::Const(value) => Some(constant(paths, *value)),
        Export::Element(ty) => {
            Some(quote_spanned!(ty.span()=> <#ty as #krate::Element>::DATA_TYPE))
        }
        _ => None,
    }
}

/// What a directly mapped item adds to its sets with `set.with(…)`: its data type, or its
/// range of devices.
pub(super) fn entry(paths: &Paths, export: &Export) -> Option<TokenStream> {
    let krate = &paths.krate;
    match export {
        Export::Const(Const::Device { .. }) => {
            let device = known(paths, export)?;
            Some(quote!(#krate::set::DeviceRange::one(#device)))
        }
        Export::Const(_) | Export::Element(_) => known(paths, export),
        Export::IdField { device_type, field } => {
            let (ty, fty) = (device_type_tokens(paths, *device_type), field.ty);
            Some(
                quote_spanned!(field.span=> #krate::__private::id_range(#ty, <#fty as #krate::__private::DeviceId>::MAX)),
            )
        }
        Export::IdWith { device_type, .. }
        | Export::With {
            device_type: Some(device_type),
            ..
        } => {
            let ty = device_type_tokens(paths, *device_type);
            Some(quote!(#krate::set::DeviceRange::every(#ty)))
        }
        _ => None,
    }
}

/// What an import matches on.
pub(super) fn scrutinee(paths: &Paths) -> TokenStream {
    let (krate, param) = (&paths.krate, &paths.param);
    match paths.kind {
        Kind::DataType => quote!(#krate::__private::data_type_key(#param)),
        Kind::Device => quote!(#param.device_type.0),
    }
}

/// How an import's `match` finds one item.
pub(super) struct Key {
    pub pattern: TokenStream,
    /// A pattern for one id of a device type: it goes before the patterns for every id.
    pub specific: bool,
    /// A local constant the pattern names (an `element`'s key).
    pub decl: Option<TokenStream>,
}

/// The key of the `index`-th item, if it is matched directly.
pub(super) fn key(paths: &Paths, input: &Input, index: usize, export: &Export) -> Option<Key> {
    let krate = &paths.krate;
    let plain = |pattern| Key {
        pattern,
        specific: false,
        decl: None,
    };
    match export {
        Export::Const(Const::DataType { code, bits, lanes }) => {
            // Reads as its parts: `0x0001_20_02` is lanes 1, bits 0x20, code 2 (`float32`).
            let lit = syn::LitInt::new(
                &format!("0x{lanes:04x}_{bits:02x}_{code:02x}_u32"),
                Span::call_site(),
            );
            Some(plain(quote!(#lit)))
        }
        Export::Element(ty) if !mentions_type_param(input, ty) => {
            let name = format_ident!("__DLPACK_KEY_{}", index);
            let value = known(paths, export)?;
            Some(Key {
                pattern: quote!(#name),
                specific: false,
                decl: Some(quote!(const #name: u32 = #krate::__private::data_type_key(#value);)),
            })
        }
        Export::Element(_) => {
            let value = known(paths, export)?;
            let key = super::tokens::binding("key");
            Some(plain(
                quote!(#key if #key == #krate::__private::data_type_key(#value)),
            ))
        }
        Export::Const(Const::Device {
            device_type,
            id,
            any_id,
        }) => {
            let (t, n) = (
                Literal::i32_suffixed(*device_type),
                Literal::i32_suffixed(*id),
            );
            let param = &paths.param;
            Some(match any_id {
                true => plain(quote!(#t)),
                false => Key {
                    pattern: quote!(#t if #param.device_id == #n),
                    specific: true,
                    decl: None,
                },
            })
        }
        Export::IdField { device_type, .. }
        | Export::IdWith { device_type, .. }
        | Export::With {
            device_type: Some(device_type),
            ..
        } => {
            let t = Literal::i32_suffixed(*device_type);
            Some(plain(quote!(#t)))
        }
        _ => None,
    }
}
