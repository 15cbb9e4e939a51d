//! The data-type comparison: one 18-variant dtype enum, three ways.
//!
//! - [`DType`](crate::derived::DType): `#[derive(DlpackDataType)]`.
//! - [`HandDType`]: the same enum with the `match` a framework author writes by hand today,
//!   with the same semantics (exact `(code, bits, lanes)` match, the same error variant).
//! - [`to_dlpark`]/[`from_dlpark`]: the same mapping onto dlpark 0.10's `DLDataType`, written
//!   the way dlpark's own interop modules write theirs (a `match` on `(code, bits)` after a
//!   lanes check, `Option` for a miss). dlpark has no derive, so this is where its dtype
//!   conversions apply.

use dlpack_core::ffi::DLDataTypeCode;
use dlpack_core::{DataType, DlpackDataType, Error};
use dlpark::ffi::{DLDataType as ParkDataType, DLDataTypeCode as ParkCode};

/// Declares the hand-written enum and its table once, so the derived enum (in `derived.rs`)
/// and this one cannot drift apart: a test checks that they agree value for value.
macro_rules! hand_dtype {
    ($($variant:ident => $dt:ident, $code:ident, $bits:literal;)*) => {
        /// The benchmark's dtype enum with a hand-written [`DlpackDataType`] implementation.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[allow(missing_docs)]
        pub enum HandDType { $($variant,)* }

        impl HandDType {
            /// Every variant, in declaration order.
            pub const ALL: &[HandDType] = &[$(HandDType::$variant,)*];
        }

        impl DlpackDataType for HandDType {
            #[inline]
            fn dlpack_data_type(&self) -> Result<DataType, Error> {
                Ok(match self { $(HandDType::$variant => DataType::$dt,)* })
            }

            #[inline]
            fn from_dlpack_data_type(data_type: DataType) -> Result<Self, Error> {
                match (data_type.code, data_type.bits, data_type.lanes) {
                    $((DLDataTypeCode::$code, $bits, 1) => Ok(HandDType::$variant),)*
                    _ => Err(unsupported(data_type)),
                }
            }
        }

        /// `variant` as dlpark's `DLDataType`.
        #[inline]
        pub fn to_dlpark(variant: HandDType) -> ParkDataType {
            match variant { $(HandDType::$variant => ParkDataType::scalar(ParkCode::$code, $bits),)* }
        }

        /// The variant for dlpark's `DLDataType`, `None` if there is none.
        #[inline]
        pub fn from_dlpark(data_type: ParkDataType) -> Option<HandDType> {
            if data_type.lanes != 1 {
                return None;
            }
            match (data_type.code, data_type.bits) {
                $((ParkCode::$code, $bits) => Some(HandDType::$variant),)*
                _ => None,
            }
        }
    };
}

hand_dtype! {
    Bool => BOOL, BOOL, 8;
    I8 => I8, INT, 8;
    I16 => I16, INT, 16;
    I32 => I32, INT, 32;
    I64 => I64, INT, 64;
    U8 => U8, UINT, 8;
    U16 => U16, UINT, 16;
    U32 => U32, UINT, 32;
    U64 => U64, UINT, 64;
    F16 => F16, FLOAT, 16;
    BF16 => BF16, BFLOAT, 16;
    F32 => F32, FLOAT, 32;
    F64 => F64, FLOAT, 64;
    C64 => C64, COMPLEX, 64;
    C128 => C128, COMPLEX, 128;
    F8E4M3FN => FLOAT8_E4M3FN, FLOAT8_E4M3FN, 8;
    F8E5M2 => FLOAT8_E5M2, FLOAT8_E5M2, 8;
    F4E2M1FN => FLOAT4_E2M1FN, FLOAT4_E2M1FN, 4;
}

/// The error a hand-written `from` returns: what the derive's error carries (the type, the
/// value, and what the type supports), built only on the cold path.
#[cold]
#[inline(never)]
fn unsupported(data_type: DataType) -> Error {
    Error::UnsupportedDataType {
        type_name: core::any::type_name::<HandDType>(),
        data_type,
        supported: HandDType::ALL
            .iter()
            .filter_map(|v| v.dlpack_data_type().ok())
            .collect(),
    }
}

/// A shuffled stream of every variant.
pub fn variant_stream(seed: u64) -> Vec<HandDType> {
    crate::stream::shuffled(HandDType::ALL, crate::stream::STREAM_LEN, seed)
}

/// A shuffled stream of every variant's data type (what `from_dlpack_data_type` is fed).
pub fn data_type_stream(seed: u64) -> Vec<DataType> {
    variant_stream(seed)
        .into_iter()
        .map(|v| v.dlpack_data_type().expect("every variant maps"))
        .collect()
}

/// [`data_type_stream`] as dlpark's `DLDataType` values.
pub fn park_data_type_stream(seed: u64) -> Vec<ParkDataType> {
    variant_stream(seed).into_iter().map(to_dlpark).collect()
}
