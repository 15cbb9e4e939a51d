//! The code newtypes, [`DLDeviceType`] and [`DLDataTypeCode`], with their named values from
//! the grammar's table. They sit below the structs that hold them (`value.rs`, `tensor.rs`), so
//! that every file of the ABI uses only files under it.

/// `DLDeviceType`: a C `int32_t` enum, kept as a newtype so that any value a producer sends can
/// be read.
///
/// ```
/// use dlpack_core::ffi::DLDeviceType;
/// assert_eq!(DLDeviceType::CPU, DLDeviceType(1));
/// assert_eq!(DLDeviceType(21).name(), Some("ascend"));
/// assert_eq!(DLDeviceType(99).name(), None);
/// ```
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DLDeviceType(pub i32);

/// The named values of a code newtype, each with its row's doc line (their values and names
/// are checked by one table test, `tests/generated_constants.rs`).
macro_rules! named_values {
    ($ty:ident: $($(#[$doc:meta])* $name:ident = $value:literal, $str:literal;)*) => {
        impl $ty {
            $(
                $(#[$doc])*
                pub const $name: Self = Self($value);
            )*
        }
    };
}

/// The named device types, from the grammar's table: `CUDA = 2` and so on.
macro_rules! device_types {
    ($($(#[doc = $desc:literal])* $name:ident = $value:literal, $str:literal, $c_name:literal, $kind:ident $($ctor:ident)?;)*) => {
        named_values!(DLDeviceType: $(
            #[doc = concat!("`", $c_name, "`:", $($desc,)* ".")]
            $name = $value, $str;
        )*);
    };
}
dlpack_grammar::for_each_device_type!(device_types);

impl DLDeviceType {
    /// The canonical name (`"cuda"`), or `None` for a device type this crate does not know.
    ///
    /// ```
    /// use dlpack_core::ffi::DLDeviceType;
    /// assert_eq!(DLDeviceType::CUDA_MANAGED.name(), Some("cuda_managed"));
    /// assert_eq!(DLDeviceType(5).name(), None); // 5 and 6 were never assigned
    /// ```
    pub const fn name(self) -> Option<&'static str> {
        match dlpack_grammar::device_info(self.0) {
            Some(info) => Some(info.name),
            None => None,
        }
    }
}

/// `DLDataTypeCode`: a C `uint8_t` code, kept as a newtype so that any value a producer sends
/// can be read.
///
/// ```
/// use dlpack_core::ffi::DLDataTypeCode;
/// assert_eq!(DLDataTypeCode::FLOAT8_E4M3FN.name(), Some("float8_e4m3fn"));
/// assert_eq!(DLDataTypeCode(200).name(), None); // a code newer than this crate
/// ```
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DLDataTypeCode(pub u8);

/// The named codes, from the grammar's table: `FLOAT = 2` and so on.
macro_rules! codes {
    ($($(#[$doc:meta])* $name:ident = $value:literal, $stem:literal, $c_name:literal, $bits:ident $(($n:literal))?;)*) => {
        named_values!(DLDataTypeCode: $($(#[$doc])* $name = $value, $stem;)*);
    };
}
dlpack_grammar::for_each_code!(codes);

impl DLDataTypeCode {
    /// The canonical name stem (`"float"`, `"bool"`), or `None` for an unknown code. A stem
    /// takes the bit width after it where the width varies (`float` → `float32`).
    ///
    /// ```
    /// use dlpack_core::ffi::DLDataTypeCode;
    /// assert_eq!(DLDataTypeCode::FLOAT.name(), Some("float"));
    /// assert_eq!(DLDataTypeCode::OPAQUE_HANDLE.name(), Some("handle"));
    /// assert_eq!(DLDataTypeCode(200).name(), None);
    /// ```
    pub const fn name(self) -> Option<&'static str> {
        match dlpack_grammar::code_info(self.0) {
            Some(info) => Some(info.name),
            None => None,
        }
    }
}
