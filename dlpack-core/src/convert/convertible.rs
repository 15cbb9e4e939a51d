//! [`assert_convertible!`](crate::assert_convertible): the macro alone. The check it expands
//! to lives in `__private`, which reads the protocol traits; keeping the macro out of the
//! traits' file keeps that dependency one-way.

/// Proves at compile time that every value of `A`'s DLPack image is accepted by `B`: every
/// data type `A` can produce is one `B` can be built from (for two `DlpackDataType`s), or every
/// device `A` can be on is one `B` can name (for two `DlpackDevice`s). Which of the two is
/// inferred from the traits the types implement.
///
/// The check compares the associated constants `A::PRODUCES` and `B::ACCEPTS`, which the
/// derives compute from the annotations. It fails the build with a message naming the first
/// value that does not convert, so a conversion between two frameworks is known total before
/// the program runs.
///
/// ```
/// use dlpack_core::{DataType, DlpackDataType, assert_convertible};
///
/// #[derive(DlpackDataType)]
/// enum Small { #[dlpack("float32")] F32, #[dlpack("bfloat16")] BF16 }
///
/// #[derive(DlpackDataType)]
/// enum Large {
///     #[dlpack("float32")] F32,
///     #[dlpack("bfloat16")] BF16,
///     #[dlpack("float16")] F16,
/// }
///
/// assert_convertible!(Small => Large);    // every Small converts into Large
/// assert_convertible!(Large => DataType); // DataType accepts everything
/// ```
///
/// ```compile_fail
/// # use dlpack_core::{DlpackDataType, assert_convertible};
/// # #[derive(DlpackDataType)]
/// # enum Small { #[dlpack("float32")] F32, #[dlpack("bfloat16")] BF16 }
/// # #[derive(DlpackDataType)]
/// # enum Large { #[dlpack("float32")] F32, #[dlpack("bfloat16")] BF16, #[dlpack("float16")] F16 }
/// // error: `Large` can produce the data type float16, which `Small` does not accept
/// assert_convertible!(Large => Small);
/// ```
///
/// A type whose `PRODUCES` is unknown (`DataType` itself, or a hand-written implementation
/// that keeps the default [`DataTypeSet::ALL`](crate::set::DataTypeSet::ALL)) converts only
/// into a type that accepts everything.
#[macro_export]
macro_rules! assert_convertible {
    ($from:ty => $to:ty $(,)?) => {
        const _: () = $crate::__private::assert_convertible(
            $crate::__private::report::<$from, $to, _>(),
            ::core::stringify!($from),
            ::core::stringify!($to),
        );
    };
}
