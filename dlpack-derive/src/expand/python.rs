//! `#[pymethods(…)]`: the author's block, as one `#[pyo3::pymethods]` block with every
//! generated method whose Python name the author did not write, and the `ProtocolClass` impl of a
//! data type or device class.
//!
//! PyO3 allows one `#[pymethods]` block per class (unless its `multiple-pymethods` feature is
//! on), which is why the generated methods go into the author's block instead of a block of
//! their own. Each is a one-line wrapper over a generic function of
//! `dlpack_core::python::__generated`, where the behaviour is written once.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{ImplItem, ItemImpl, Path};

use crate::check;
use crate::parse::ctxt::Ctxt;
use crate::parse::python::{self, ClassProtocol, Written};

/// The whole attribute: parse the arguments and the block, check the author's names, expand;
/// on a mistake, the errors beside the author's block as a plain `#[pymethods]` block, so the
/// mistake is reported once and not as missing methods wherever the class is used.
pub(crate) fn pymethods(args: TokenStream, input: TokenStream) -> TokenStream {
    let item: ItemImpl = match syn::parse2(input) {
        Ok(item) => item,
        Err(err) => return err.to_compile_error(),
    };
    let (args, args_error) = python::parse_args(args);
    let cx = Ctxt::default();
    if let Some(err) = args_error {
        cx.syn_error(err);
    }
    let (written, names_read) = match python::written_names(&item) {
        Ok(written) => (written, true),
        Err(err) => {
            cx.syn_error(err);
            (Vec::new(), false)
        }
    };
    if let Some(protocol) = args.protocol {
        check::python::check(&cx, protocol, &written);
    }
    match (cx.finish(), args.protocol) {
        (Ok(()), Some(protocol)) => expand(item, protocol, &args.krate, &written),
        // A mistake in the arguments alone, with the kind meant clear (`dtype`): the block as
        // that kind, beside the error, so that the uses of the class are no errors of their own.
        (Err(err), Some(protocol)) if names_read && block_is_sound(protocol, &written) => {
            let errors = err.to_compile_error();
            let expanded = expand(item, protocol, &args.krate, &written);
            quote!(#expanded #errors)
        }
        (result, _) => {
            let errors = result.err().map(|err| err.to_compile_error());
            let krate = &args.krate;
            let pyo3_str = format!("{}::python::pyo3", quote!(#krate)).replace(' ', "");
            quote! {
                #[#krate::python::pyo3::pymethods]
                #[pyo3(crate = #pyo3_str)]
                #item
                #errors
            }
        }
    }
}

/// Whether the author's block has no mistake of its own for a class of `protocol`, so that
/// expanding it as that kind adds no error to the arguments' one.
fn block_is_sound(protocol: ClassProtocol, written: &[Written]) -> bool {
    let cx = Ctxt::default();
    check::python::check(&cx, protocol, written);
    cx.finish().is_ok()
}

/// The expanded block.
fn expand(
    mut item: ItemImpl,
    protocol: ClassProtocol,
    krate: &Path,
    written: &[Written],
) -> TokenStream {
    let pyo3 = quote!(#krate::python::pyo3);
    let pyo3_str = format!("{}::python::pyo3", quote!(#krate)).replace(' ', "");
    let g = quote!(#krate::__private::generated);
    let is_written = |name: &str| written.iter().any(|m| m.name == name);
    // An `__eq__` (or `__richcmp__`) of the author's replaces the generated comparison whole.
    let own_comparison = is_written("__eq__") || is_written("__richcmp__");
    for (name, method) in methods(protocol, &pyo3, &g) {
        let comparison = matches!(name, "__eq__" | "__ne__");
        if is_written(name) || (comparison && own_comparison) {
            continue;
        }
        item.items.push(
            syn::parse2::<ImplItem>(method)
                .unwrap_or_else(|e| unreachable!("a generated method is an impl item: {e}")),
        );
    }
    let self_ty = &item.self_ty;
    let (impl_generics, _, where_clause) = item.generics.split_for_impl();
    let block = quote! {
        #[#pyo3::pymethods]
        #[pyo3(crate = #pyo3_str)]
        #item
    };
    let (marker, name_of, value_of) = match protocol {
        ClassProtocol::DataType => (
            quote!(DataTypeClass),
            quote!(data_type_name),
            quote!(data_type_value),
        ),
        ClassProtocol::Device => (
            quote!(DeviceClass),
            quote!(device_name),
            quote!(device_value),
        ),
        ClassProtocol::Tensor => {
            // Spanned on the type, as below: a class without `TensorClass` is one error there.
            let assert = quote_spanned! {self_ty.span()=>
                #[automatically_derived]
                impl #impl_generics #g::TensorClassOf for #self_ty #where_clause {}
            };
            return quote!(#block #assert);
        }
    };
    let value_names = value_name_checks(protocol, krate, self_ty, written);
    // Spanned on the type, so that a type that derives neither trait is reported there, once:
    // the generated methods need only this impl, which exists even when its supertraits fail.
    let assert = quote_spanned! {self_ty.span()=>
        #[automatically_derived]
        impl #impl_generics #g::#marker for #self_ty #where_clause {}
    };
    quote! {
        #block

        #assert

        #value_names

        #[automatically_derived]
        impl #impl_generics #krate::__private::ProtocolClass for #self_ty #where_clause {
            fn name_of(value: &Self) -> ::core::option::Option<::std::string::String> {
                #g::#name_of(value)
            }
            fn value_of(name: &str) -> ::core::option::Option<Self> {
                #g::#value_of(name)
            }
        }
    }
}

/// Every generated method of a class of `protocol`, with its Python name.
fn methods(
    protocol: ClassProtocol,
    pyo3: &TokenStream,
    g: &TokenStream,
) -> Vec<(&'static str, TokenStream)> {
    let any = quote!(#pyo3::Bound<'py, #pyo3::PyAny>);
    let result = quote!(#pyo3::PyResult);
    let string = quote!(::std::string::String);
    let (new, protocol_method, repr, str_, key, name) = match protocol {
        ClassProtocol::Tensor => return tensor_methods(pyo3, g),
        ClassProtocol::DataType => (
            quote!(construct_data_type),
            quote! {
                /// `(code, bits, lanes)`: the DLPack data type, as plain ints.
                fn __dlpack_data_type__<'py>(&self, py: #pyo3::Python<'py>) -> #result<#pyo3::Bound<'py, #pyo3::types::PyTuple>> {
                    #g::dlpack_data_type(py, self)
                }
            },
            quote!(data_type_repr),
            quote!(data_type_str),
            quote!(data_type_key),
            quote!(data_type_name),
        ),
        ClassProtocol::Device => (
            quote!(construct_device),
            quote! {
                /// `(device_type, device_id)`: the DLPack device, as plain ints.
                fn __dlpack_device__<'py>(&self, py: #pyo3::Python<'py>) -> #result<#pyo3::Bound<'py, #pyo3::types::PyTuple>> {
                    #g::dlpack_device(py, self)
                }
            },
            quote!(device_repr),
            quote!(device_str),
            quote!(device_key),
            quote!(device_name),
        ),
    };
    let what = protocol.noun();
    let protocol_name = match protocol {
        ClassProtocol::DataType => "__dlpack_data_type__",
        ClassProtocol::Device | ClassProtocol::Tensor => "__dlpack_device__",
    };
    let mut methods = vec![
        (
            "__new__",
            quote! {
                /// The value of any object or name of its kind, as DLPack's readers read it.
                #[new]
                fn __new__<'py>(obj: &#any) -> #result<#pyo3::Bound<'py, Self>> {
                    #g::#new::<Self>(obj)
                }
            },
        ),
        (
            "__int__",
            quote! {
                /// A `TypeError`: a value is no number (PyO3 would give a fieldless enum's
                /// discriminant).
                fn __int__(&self, py: #pyo3::Python<'_>) -> #result<i64> {
                    #g::no_int::<Self>(py, #what, #protocol_name)
                }
            },
        ),
        (
            match protocol {
                ClassProtocol::DataType => "__dlpack_data_type__",
                ClassProtocol::Device | ClassProtocol::Tensor => "__dlpack_device__",
            },
            protocol_method,
        ),
        (
            "__repr__",
            quote! {
                fn __repr__<'py>(slf: &#pyo3::Bound<'py, Self>) -> #result<#string> {
                    #g::#repr(slf)
                }
            },
        ),
        (
            "__str__",
            quote! {
                fn __str__<'py>(slf: &#pyo3::Bound<'py, Self>) -> #result<#string> {
                    #g::#str_(slf)
                }
            },
        ),
        (
            "__eq__",
            quote! {
                fn __eq__<'py>(slf: &#pyo3::Bound<'py, Self>, other: &#any) -> #pyo3::Py<#pyo3::PyAny> {
                    #g::eq(slf, other, #g::#key::<Self>)
                }
            },
        ),
        (
            "__ne__",
            quote! {
                fn __ne__<'py>(slf: &#pyo3::Bound<'py, Self>, other: &#any) -> #pyo3::Py<#pyo3::PyAny> {
                    #g::ne(slf, other, #g::#key::<Self>)
                }
            },
        ),
        (
            "__hash__",
            quote! {
                fn __hash__<'py>(slf: &#pyo3::Bound<'py, Self>) -> u64 {
                    #g::hash(slf, #g::#key::<Self>)
                }
            },
        ),
        (
            "__reduce__",
            quote! {
                /// Pickled as `cls(name)`, its DLPack name.
                fn __reduce__<'py>(
                    slf: &#pyo3::Bound<'py, Self>,
                ) -> #result<(#pyo3::Bound<'py, #pyo3::types::PyType>, #pyo3::Bound<'py, #pyo3::types::PyTuple>)> {
                    let name = #g::#name(&*#pyo3::Bound::borrow(slf));
                    #g::reduce(slf, name, #what)
                }
            },
        ),
        (
            "__copy__",
            quote! {
                /// The value itself: it is immutable.
                fn __copy__<'py>(slf: #pyo3::Bound<'py, Self>) -> #pyo3::Bound<'py, Self> {
                    slf
                }
            },
        ),
        (
            "__deepcopy__",
            quote! {
                /// The value itself: it is immutable.
                fn __deepcopy__<'py>(slf: #pyo3::Bound<'py, Self>, _memo: &#any) -> #pyo3::Bound<'py, Self> {
                    slf
                }
            },
        ),
    ];
    match protocol {
        ClassProtocol::Tensor => {}
        ClassProtocol::DataType => methods.push((
            "dtype",
            quote! {
                /// The NumPy dtype (NumPy's `dtype`-attribute protocol, which JAX reads too).
                #[getter]
                fn dtype<'py>(&self, py: #pyo3::Python<'py>) -> #result<#any> {
                    #g::numpy_dtype_of(py, self)
                }
            },
        )),
        ClassProtocol::Device => {
            methods.push((
                "type",
                quote! {
                    /// The device type's name: `"cpu"`, `"cuda"`, … (as `torch.device` has it).
                    #[getter]
                    fn r#type(&self, py: #pyo3::Python<'_>) -> #result<&'static str> {
                        #g::device_type(py, self)
                    }
                },
            ));
            methods.push((
                "index",
                quote! {
                    /// The device id (0 for host memory).
                    #[getter]
                    fn index(&self, py: #pyo3::Python<'_>) -> #result<i32> {
                        #g::device_index(py, self)
                    }
                },
            ));
        }
    }
    methods
}

/// The methods of a tensor class: the protocol's two, around the author's `TensorClass` impl.
fn tensor_methods(pyo3: &TokenStream, g: &TokenStream) -> Vec<(&'static str, TokenStream)> {
    let arg = quote!(::core::option::Option<&#pyo3::Bound<'py, #pyo3::PyAny>>);
    vec![
        (
            "__dlpack__",
            quote! {
                /// The DLPack capsule one consumer asks for (the array API standard's
                /// `__dlpack__`): arguments checked, then `TensorClass::dlpack`.
                #[pyo3(signature = (*, stream=None, max_version=None, dl_device=None, copy=None))]
                fn __dlpack__<'py>(
                    &self,
                    py: #pyo3::Python<'py>,
                    stream: #arg,
                    max_version: #arg,
                    dl_device: #arg,
                    copy: ::core::option::Option<bool>,
                ) -> #pyo3::PyResult<#pyo3::Bound<'py, #pyo3::types::PyCapsule>> {
                    #g::tensor_dlpack(self, py, stream, max_version, dl_device, copy)
                }
            },
        ),
        (
            "__dlpack_device__",
            quote! {
                /// `(device_type, device_id)`: where the tensor is, as plain ints.
                fn __dlpack_device__(&self) -> #pyo3::PyResult<(i32, i32)> {
                    #g::tensor_dlpack_device(self)
                }
            },
        ),
    ]
}

/// A `const` check for each of the author's names that is a canonical DLPack name (`float16`,
/// `cpu`): it fails the build when a unit value of the class imports as that value, since
/// [`add_values`] puts the value under that name on the class and in the module, where a
/// method of that name would stand. The derive lists the unit values (`__UNIT_VALUES`), which
/// this attribute, on another item, cannot see; a name the check cannot know of (a function
/// of the module) is refused by `add_values` at import.
///
/// [`add_values`]: https://docs.rs/dlpack-core/latest/dlpack_core/python/fn.add_values.html
fn value_name_checks(
    protocol: ClassProtocol,
    krate: &Path,
    self_ty: &syn::Type,
    written: &[Written],
) -> TokenStream {
    let g = quote!(#krate::__private::generated);
    let class = quote!(#self_ty).to_string().replace(' ', "");
    let mut checks = TokenStream::new();
    for method in written {
        let name = method.name.as_str();
        let mut canonical = String::new();
        let (holds, what) = match protocol {
            ClassProtocol::DataType => {
                let Ok(p) = dlpack_grammar::parse_data_type(name) else {
                    continue;
                };
                // A `fmt::Write` into a `String` does not fail.
                let _ = dlpack_grammar::write_data_type(&mut canonical, p.code, p.bits, p.lanes);
                let (code, bits, lanes) = (p.code, p.bits, p.lanes);
                (
                    quote!(#g::has_unit_data_type(
                        <#self_ty as #krate::DlpackDataType>::__UNIT_VALUES, #code, #bits, #lanes
                    )),
                    "data type",
                )
            }
            ClassProtocol::Device => {
                let Ok(p) = dlpack_grammar::parse_device(name) else {
                    continue;
                };
                let _ = dlpack_grammar::write_device(&mut canonical, p.device_type, p.device_id);
                let (device_type, device_id) = (p.device_type, p.device_id);
                (
                    quote!(#g::has_unit_device(
                        <#self_ty as #krate::DlpackDevice>::__UNIT_VALUES, #device_type, #device_id
                    )),
                    "device",
                )
            }
            ClassProtocol::Tensor => return checks,
        };
        // An alias (`half`) or a name with an id (`cuda:1`) is no value's name.
        if canonical != name {
            continue;
        }
        let message = format!(
            "the Python name `{name}` belongs to a value: `add_values` puts the value of `{class}` \
             that imports the DLPack {what} {name} at `{class}.{name}` and in the module; \
             rename this method, or give it another Python name with `#[pyo3(name = \"…\")]`"
        );
        let cfgs = &method.cfgs;
        checks.extend(quote_spanned! {method.span=>
            #(#cfgs)*
            const _: () = if #holds {
                ::core::panic!(#message)
            };
        });
    }
    checks
}
