//! What `#[pymethods(…)]` refuses in the author's block: a method that would change what
//! kind of object the class is, and, on a value class, an `__eq__` without its `__hash__` (or
//! the reverse).
//! Everything else the author writes wins over the generated method of the same name.

use crate::parse::ctxt::Ctxt;
use crate::parse::python::{ClassProtocol, Written};

/// Reports every mistake in the author's names into `cx`.
pub(crate) fn check(cx: &Ctxt, protocol: ClassProtocol, written: &[Written]) {
    for method in written {
        let other_protocol = match (protocol, method.name.as_str()) {
            (ClassProtocol::DataType | ClassProtocol::Device, "__dlpack__") => Some("a tensor"),
            (ClassProtocol::Device | ClassProtocol::Tensor, "__dlpack_data_type__") => {
                Some("a data type")
            }
            _ => None,
        };
        if let Some(becomes) = other_protocol {
            let own = match protocol {
                ClassProtocol::DataType => "`__dlpack_data_type__`",
                ClassProtocol::Device => "`__dlpack_device__`",
                ClassProtocol::Tensor => "`__dlpack__` and `__dlpack_device__`",
            };
            cx.error(
                method.span,
                format_args!(
                    "`{}` makes this class {becomes} to every consumer (TVM FFI and \
                     `value_kind` decide a class's kind by its methods); a {} class has {own} \
                     only, which `#[pymethods({})]` writes: remove `{}`",
                    method.name,
                    protocol.noun(),
                    protocol.argument(),
                    method.name,
                ),
            );
        }
    }
    // A tensor is compared and hashed as the author decides (by identity, as PyO3's default):
    // nothing is generated for `==` or `hash()`, so there is no half to disagree with.
    if protocol == ClassProtocol::Tensor {
        return;
    }
    let find = |name: &str| written.iter().find(|m| m.name == name);
    let eq = find("__eq__").or_else(|| find("__richcmp__"));
    match (eq, find("__hash__")) {
        (Some(eq), None) => cx.error(
            eq.span,
            format_args!(
                "`{}` without `__hash__`: the generated `__hash__` hashes the DLPack value, \
                 and equal values must hash alike; write `__hash__` too, or neither",
                eq.name
            ),
        ),
        (None, Some(hash)) => cx.error(
            hash.span,
            "`__hash__` without `__eq__`: the generated `__eq__` compares the DLPack value, \
             and equal values must hash alike; write `__eq__` too, or neither",
        ),
        _ => {}
    }
}
