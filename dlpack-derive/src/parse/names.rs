//! Names of data types and devices, as the grammar reads them, and every message about a
//! name: a misspelling, a spelling from another framework (`half`, `mps`, `e4m3`), or a name
//! of the other derive's kind (a data type in a device derive). This is the one module that
//! calls dlpack-grammar's parsers.

use dlpack_grammar::{DeviceInfo, ForeignName, InvalidDataType};

use super::kind::Kind;
use super::symbol::{Form, Sym};

/// What an item maps to by name: a data type string, or a bare device name.
#[derive(Clone, Copy)]
pub(crate) enum Target {
    DataType { code: u8, bits: u8, lanes: u16 },
    Device(&'static DeviceInfo),
}

/// A data type name as written in `#[dlpack("…")]`.
pub(crate) fn data_type_string(text: &str) -> Result<Target, String> {
    match dlpack_grammar::parse_data_type(text) {
        Ok(dlpack_grammar::DataTypeParts { code, bits, lanes }) => {
            Ok(Target::DataType { code, bits, lanes })
        }
        Err(reason) => Err(
            if let Some(foreign) = dlpack_grammar::foreign_data_type(text) {
                elsewhere(Kind::DataType, text, foreign)
            } else if let Some(device) = device_meant(text) {
                wrong_kind(Kind::Device, text, device)
            } else {
                format!("`{text}` is not a data type: {reason}")
            },
        ),
    }
}

/// The error for a string in a device derive: a device is a bare name.
pub(crate) fn device_string(text: &str) -> String {
    if let Ok(dlpack_grammar::DeviceParts {
        device_type,
        device_id: id,
    }) = dlpack_grammar::parse_device(text)
    {
        let info = dlpack_grammar::device_info(device_type).expect("a parsed device");
        let fix = if info.host_side || (!info.indexed && id == 0) {
            format!("#[dlpack({})]", info.name)
        } else {
            format!("#[dlpack({}, id = {id})]", info.name)
        };
        return format!("write the device as a bare name, not a string: `{fix}`");
    }
    if let Some(data_type) = data_type_meant(text) {
        return wrong_kind(Kind::DataType, text, data_type);
    }
    let name = text.split(':').next().unwrap_or("");
    let hint = match dlpack_grammar::foreign_device(name) {
        Some(foreign) => format!("; {}", elsewhere(Kind::Device, name, foreign)),
        None => dlpack_grammar::suggest_device(name)
            .map(|s| format!("; did you mean `#[dlpack({s})]`?"))
            .unwrap_or_default(),
    };
    format!("a device is written as a bare name such as `#[dlpack(cuda)]`, not a string{hint}")
}

/// The error for a key that is no option of this derive.
pub(crate) fn unknown_option(kind: Kind, key: &str) -> String {
    if key == "impl_remote" {
        // The hidden `__impl_remote`'s old public name: say what a user does instead.
        return format!(
            "unknown option `impl_remote`: this crate cannot implement `{}` for another crate's type (the orphan rule, E0117); convert through the mirror instead: `from_dlpack::<Mirror>(&value)?.into()` imports the foreign type, `Mirror::from(&theirs).{}()` exports it",
            kind.trait_name(),
            kind.export_name()
        );
    }
    if let Some(sym) = Sym::from_name(key).filter(|s| s.kind() == Some(kind.other())) {
        return format!(
            "`{sym}` describes a {}; `#[derive({})]` maps {}s, as in `{}`",
            kind.other().noun(),
            kind.trait_name(),
            kind.noun(),
            kind.example()
        );
    }
    let (meant, foreign) = match kind {
        Kind::DataType => (
            device_meant(key).map(|d| (Kind::Device, d)),
            dlpack_grammar::foreign_data_type(key),
        ),
        Kind::Device => (
            data_type_meant(key).map(|d| (Kind::DataType, d)),
            dlpack_grammar::foreign_device(key),
        ),
    };
    if let Some((other, dlpack)) = meant {
        return wrong_kind(other, key, dlpack);
    }
    if kind == Kind::DataType && dlpack_grammar::parse_data_type(key).is_ok() {
        return format!("write the data type as a string: `#[dlpack(\"{key}\")]`");
    }
    if let Some(foreign) = foreign {
        return elsewhere(kind, key, foreign);
    }
    let keys: Vec<&'static str> = Sym::keys(kind).map(Sym::name).collect();
    if let Some(s) = dlpack_grammar::suggest(key, &keys) {
        return format!("unknown option `{key}`; did you mean `{s}`?");
    }
    match kind {
        Kind::DataType => {
            if let Some(s) = dlpack_grammar::suggest_data_type(key) {
                return format!(
                    "unknown option `{key}`; did you mean the data type `#[dlpack(\"{s}\")]`?"
                );
            }
        }
        Kind::Device => {
            if let Some(s) = dlpack_grammar::suggest_device(key) {
                return format!("unknown device `{key}`; did you mean `{s}`?");
            }
        }
    }
    let first = match kind {
        Kind::DataType => "a data type name such as `\"float32\"`".to_owned(),
        Kind::Device => {
            let names: Vec<&str> = dlpack_grammar::DEVICES.iter().map(|d| d.name).collect();
            format!("a device name ({})", names.join(", "))
        }
    };
    let options: Vec<String> = Sym::keys(kind).map(written).collect();
    format!(
        "unknown option `{key}`: expected {first}, {}",
        or_list(&options)
    )
}

/// The error for `code = …` with an unknown stem.
pub(crate) fn unknown_code(text: &str) -> String {
    let stems: Vec<&'static str> = dlpack_grammar::CODES.iter().map(|c| c.name).collect();
    match dlpack_grammar::suggest(text, &stems) {
        Some(s) => format!("unknown data type code `{text}`; did you mean `{s}`?"),
        None => format!(
            "unknown data type code `{text}`: expected one of {}",
            stems.join(", ")
        ),
    }
}

/// Whether `(code, bits, lanes)` is a valid data type, by the grammar's rules.
pub(crate) fn check_data_type(code: u8, bits: u8, lanes: u16) -> Result<(), InvalidDataType> {
    dlpack_grammar::check_data_type(code, bits, lanes).map(|_| ())
}

/// A data type as `Display` writes it: `float32`.
pub(crate) fn data_type(code: u8, bits: u8, lanes: u16) -> String {
    let mut name = String::new();
    let _ = dlpack_grammar::write_data_type(&mut name, code, bits, lanes);
    name
}

/// How an option is written, for lists.
fn written(sym: Sym) -> String {
    match sym.form() {
        Form::Flag => format!("`{sym}`"),
        Form::CratePath | Form::TypePath => format!("`{sym} = \"…\"`"),
        Form::Decision => format!("`{sym} = \"error\"`"),
        _ => format!("`{sym} = …`"),
    }
}

fn or_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// The DLPack device `text` names, natively or in another framework's spelling.
fn device_meant(text: &str) -> Option<Option<&'static str>> {
    if let Ok(dlpack_grammar::DeviceParts { device_type, .. }) = dlpack_grammar::parse_device(text)
    {
        return Some(dlpack_grammar::device_info(device_type).map(|d| d.name));
    }
    Some(only(dlpack_grammar::foreign_device(text)?))
}

/// The DLPack data type `text` names, natively or in another framework's spelling.
fn data_type_meant(text: &str) -> Option<Option<&'static str>> {
    if dlpack_grammar::parse_data_type(text).is_ok() {
        return Some(None);
    }
    Some(only(dlpack_grammar::foreign_data_type(text)?))
}

/// The one DLPack name of a foreign spelling, if it has exactly one.
fn only(foreign: ForeignName) -> Option<&'static str> {
    match foreign.dlpack {
        [one] => Some(one),
        _ => None,
    }
}

/// "`mps` is a device (DLPack's `metal`); `#[derive(DlpackDataType)]` maps data types, …".
fn wrong_kind(is: Kind, text: &str, dlpack: Option<&str>) -> String {
    let derive = is.other();
    let dlpack = match dlpack {
        Some(name) if name != text => format!(" (DLPack's `{name}`)"),
        _ => String::new(),
    };
    format!(
        "`{text}` is a {}{dlpack}; `#[derive({})]` maps {}s, as in `{}`",
        is.noun(),
        derive.trait_name(),
        derive.noun(),
        derive.example()
    )
}

/// "`half` is the name PyTorch (`torch.half`) and C++ use; DLPack calls it `float16`: …".
fn elsewhere(kind: Kind, text: &str, foreign: ForeignName) -> String {
    let fix = |name: &str| match kind {
        Kind::DataType => format!("`#[dlpack(\"{name}\")]`"),
        Kind::Device => format!("`#[dlpack({name})]`"),
    };
    let mut message = format!("`{text}` is {}", foreign.origin);
    match foreign.dlpack {
        [] => message.push_str(&format!(", which has no DLPack {}", kind.noun())),
        [one] => message.push_str(&format!("; DLPack calls it `{one}`: write {}", fix(one))),
        many => {
            let names: Vec<String> = many.iter().map(|n| format!("`{n}`")).collect();
            message.push_str(&format!(
                "; DLPack has a name for each: {}",
                or_list(&names)
            ));
        }
    }
    if !foreign.note.is_empty() {
        message.push_str("; ");
        message.push_str(foreign.note);
    }
    message
}
