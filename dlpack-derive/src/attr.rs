//! Parsing of `#[dlpack(...)]` attributes: syntax only, with the span of every option.
//!
//! Which options may go on which item, and which combine, is `check`'s business: here an
//! unknown key, a malformed value or a repeated option is an error pointing at that key, and
//! the parse goes on so that one build reports every mistake. The options after an optional
//! leading string (`#[dlpack("float32", export_only)]`) go through syn's `parse_nested_meta`
//! machinery.

use dlpack_grammar::{CodeInfo, DeviceInfo};
use proc_macro2::{Span, TokenStream, TokenTree};
use syn::meta::ParseNestedMeta;
use syn::parse::{ParseStream, Parser};
use syn::spanned::Spanned;
use syn::{Attribute, Ident, LitInt, LitStr, Meta, Path, Token, Type};

use crate::ctxt::Ctxt;

/// Which derive is parsing: the two share the attribute name but not the vocabulary.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Which {
    DataType,
    Device,
}

impl Which {
    /// An example annotation, for messages.
    pub(crate) fn example(self) -> &'static str {
        match self {
            Which::DataType => "#[dlpack(\"float32\")]",
            Which::Device => "#[dlpack(cuda)]",
        }
    }

    fn keys(self) -> &'static [&'static str] {
        match self {
            Which::DataType => &[
                "code",
                "bits",
                "lanes",
                "element",
                "export_only",
                "skip",
                "delegate",
                "crate",
            ],
            Which::Device => &["id", "id_with", "export_only", "skip", "delegate", "crate"],
        }
    }
}

/// An option: where its key was written, and its value.
pub(crate) struct Opt<T> {
    pub key: Span,
    pub value: T,
}

/// A value and where it was written.
#[derive(Clone, Copy)]
pub(crate) struct Val<T> {
    pub span: Span,
    pub value: T,
}

/// Everything the `#[dlpack(...)]` attributes of one item (type, variant or field) said.
#[derive(Default)]
pub(crate) struct Attrs {
    /// The first `#[dlpack]` attribute, for "not allowed here" errors.
    pub first: Option<Span>,
    pub krate: Option<Opt<Path>>,
    /// A data type name: `#[dlpack("float32")]`.
    pub name: Option<Val<(u8, u8, u16)>>,
    /// `code = float` (a value) or `code` alone (a field role).
    pub code: Option<Opt<Option<Val<&'static CodeInfo>>>>,
    pub bits: Option<Opt<Option<Val<u8>>>>,
    pub lanes: Option<Opt<Option<Val<u16>>>>,
    pub element: Option<Opt<Type>>,
    pub export_only: Option<Span>,
    pub skip: Option<Span>,
    pub delegate: Option<Span>,
    /// A device name: `#[dlpack(cuda)]`.
    pub device: Option<Val<&'static DeviceInfo>>,
    /// `id = 0` (a value) or `id` alone (a field role).
    pub id: Option<Opt<Option<Val<i32>>>>,
    pub id_with: Option<Opt<Path>>,
    /// Whether parsing reported an error: the options are incomplete, so `check` draws no
    /// further conclusion from them (one mistake, one error).
    pub poisoned: bool,
}

impl Attrs {
    /// Whether any option was given.
    pub(crate) fn is_empty(&self) -> bool {
        self.first.is_none()
    }
}

/// Parses every `#[dlpack(...)]` among `attrs`, reporting mistakes into `cx`.
pub(crate) fn parse(cx: &Ctxt, which: Which, attrs: &[Attribute]) -> Attrs {
    let mut out = Attrs::default();
    let before = cx.count();
    for attr in attrs {
        if !attr.path().is_ident("dlpack") {
            continue;
        }
        out.first.get_or_insert(attr.span());
        if !matches!(attr.meta, Meta::List(_)) {
            cx.error_spanned(
                attr,
                format_args!(
                    "expected options in parentheses, as in `{}`",
                    which.example()
                ),
            );
            continue;
        }
        let result = attr.parse_args_with(|input: ParseStream| body(cx, which, &mut out, input));
        if let Err(error) = result {
            cx.syn_error(error);
        }
    }
    out.poisoned = cx.count() > before;
    out
}

fn body(cx: &Ctxt, which: Which, out: &mut Attrs, input: ParseStream) -> syn::Result<()> {
    if input.is_empty() {
        return Err(input.error(format_args!(
            "expected options, as in `{}`",
            which.example()
        )));
    }
    if input.peek(LitStr) {
        let lit: LitStr = input.parse()?;
        name(cx, which, out, &lit);
        if input.is_empty() {
            return Ok(());
        }
        input.parse::<Token![,]>()?;
        if input.is_empty() {
            return Ok(());
        }
    }
    let rest: TokenStream = input.parse()?;
    syn::meta::parser(|meta| option(cx, which, out, &meta)).parse2(rest)
}

/// A leading string: a data type name, or (for devices) a mistake with a precise fix.
fn name(cx: &Ctxt, which: Which, out: &mut Attrs, lit: &LitStr) {
    let text = lit.value();
    match which {
        Which::DataType => match dlpack_grammar::parse_data_type(&text) {
            Ok(parts) => {
                if out.name.is_some() {
                    cx.error(lit.span(), "a second data type name; give one per item");
                } else {
                    out.name = Some(Val {
                        span: lit.span(),
                        value: (parts.code, parts.bits, parts.lanes),
                    });
                }
            }
            Err(reason) => cx.error(
                lit.span(),
                format_args!("`{text}` is not a data type: {reason}"),
            ),
        },
        Which::Device => match dlpack_grammar::parse_device(&text) {
            Ok(dlpack_grammar::DeviceParts {
                device_type,
                device_id: id,
            }) => {
                let info = dlpack_grammar::device_info(device_type).expect("parsed device");
                let fix = if info.host_side || (!info.indexed && id == 0) {
                    format!("#[dlpack({})]", info.name)
                } else {
                    format!("#[dlpack({}, id = {id})]", info.name)
                };
                cx.error(
                    lit.span(),
                    format_args!("write the device as a bare name, not a string: `{fix}`"),
                );
            }
            Err(_) => {
                let hint = dlpack_grammar::suggest_device(text.split(':').next().unwrap_or(""))
                    .map(|s| format!("; did you mean `#[dlpack({s})]`?"))
                    .unwrap_or_default();
                cx.error(
                    lit.span(),
                    format_args!(
                        "a device is written as a bare name such as `#[dlpack(cuda)]`, not a string{hint}"
                    ),
                );
            }
        },
    }
}

fn option(cx: &Ctxt, which: Which, out: &mut Attrs, meta: &ParseNestedMeta) -> syn::Result<()> {
    let Some(key) = meta.path.get_ident() else {
        cx.error_spanned(
            &meta.path,
            format_args!("expected an option name, as in `{}`", which.example()),
        );
        return skip_value(meta.input);
    };
    let span = key.span();
    let text = key.to_string();
    match (which, text.as_str()) {
        (_, "crate") => {
            let value = meta.value()?;
            let path = if value.peek(LitStr) {
                let lit: LitStr = value.parse()?;
                lit.parse::<Path>().map_err(|_| {
                    syn::Error::new(
                        lit.span(),
                        format_args!(
                            "`{}` is not a path; write the path of dlpack-core as re-exported, as in `crate = \"my_framework::dlpack\"`",
                            lit.value()
                        ),
                    )
                })?
            } else {
                value.call(Path::parse_mod_style)?
            };
            set(cx, &mut out.krate, span, path, "crate");
        }
        (_, "export_only") => flag(cx, meta, &mut out.export_only, span, "export_only")?,
        (_, "skip") => flag(cx, meta, &mut out.skip, span, "skip")?,
        (_, "delegate") => flag(cx, meta, &mut out.delegate, span, "delegate")?,
        (Which::DataType, "code") => {
            let value = if meta.input.peek(Token![=]) {
                Some(code_value(meta)?)
            } else {
                None
            };
            set(cx, &mut out.code, span, value, "code");
        }
        (Which::DataType, "bits") => {
            let value = int_value::<u8>(meta, "the bit width must be a number from 1 to 255")?;
            set(cx, &mut out.bits, span, value, "bits");
        }
        (Which::DataType, "lanes") => {
            let value = int_value::<u16>(meta, "the lane count must be a number from 1 to 65535")?;
            set(cx, &mut out.lanes, span, value, "lanes");
        }
        (Which::DataType, "element") => {
            let ty: Type = meta.value()?.parse()?;
            set(cx, &mut out.element, span, ty, "element");
        }
        (Which::Device, "id") => {
            let value = if meta.input.peek(Token![=]) {
                let input = meta.value()?;
                if input.peek(Token![-]) {
                    let minus: Token![-] = input.parse()?;
                    let lit: LitInt = input.parse()?;
                    return Err(syn::Error::new(
                        minus.span.join(lit.span()).unwrap_or(lit.span()),
                        "device ids are not negative; DLPack numbers devices from 0",
                    ));
                }
                let lit: LitInt = input.parse()?;
                let id = lit.base10_parse::<i32>().map_err(|_| {
                    syn::Error::new(
                        lit.span(),
                        format_args!(
                            "device id {} does not fit DLPack's `int32_t` device_id (0 to 2147483647)",
                            lit.base10_digits()
                        ),
                    )
                })?;
                Some(Val {
                    span: lit.span(),
                    value: id,
                })
            } else {
                None
            };
            set(cx, &mut out.id, span, value, "id");
        }
        (Which::Device, "id_with") => {
            let path: Path = meta.value()?.parse()?;
            set(cx, &mut out.id_with, span, path, "id_with");
        }
        (Which::Device, name) if dlpack_grammar::device_by_name(name).is_some() => {
            let info = dlpack_grammar::device_by_name(name).expect("checked");
            if meta.input.peek(Token![=]) {
                cx.error(
                    span,
                    format_args!(
                        "a device name takes no value; give the id as its own option: `#[dlpack({name}, id = 0)]`"
                    ),
                );
                return skip_value(meta.input);
            }
            match &out.device {
                Some(first) => cx.error(
                    span,
                    format_args!(
                        "a second device type `{name}` after `{}`: an item maps to one device type",
                        first.value.name
                    ),
                ),
                None => out.device = Some(Val { span, value: info }),
            }
        }
        (_, other) => {
            cx.error(span, unknown_option(which, other));
            return skip_value(meta.input);
        }
    }
    Ok(())
}

fn unknown_option(which: Which, key: &str) -> String {
    match which {
        Which::DataType => {
            if dlpack_grammar::device_by_name(key).is_some() {
                return format!(
                    "`{key}` is a device; `#[derive(DlpackDataType)]` maps data types, as in `#[dlpack(\"float32\")]`"
                );
            }
            if dlpack_grammar::parse_data_type(key).is_ok() {
                return format!("write the data type as a string: `#[dlpack(\"{key}\")]`");
            }
            if let Some(s) = dlpack_grammar::suggest(key, which.keys()) {
                return format!("unknown option `{key}`; did you mean `{s}`?");
            }
            if let Some(s) = dlpack_grammar::suggest_data_type(key) {
                return format!(
                    "unknown option `{key}`; did you mean the data type `#[dlpack(\"{s}\")]`?"
                );
            }
            format!(
                "unknown option `{key}`: expected a data type name such as `\"float32\"`, `code = …`, `bits = …`, `lanes = …`, `element = …`, `export_only`, `skip`, `delegate` or `crate = \"…\"`"
            )
        }
        Which::Device => {
            if matches!(key, "code" | "bits" | "lanes" | "element") {
                return format!(
                    "`{key}` describes a data type; `#[derive(DlpackDevice)]` maps devices, as in `#[dlpack(cuda)]`"
                );
            }
            if let Some(s) = dlpack_grammar::suggest(key, which.keys()) {
                return format!("unknown option `{key}`; did you mean `{s}`?");
            }
            if let Some(s) = dlpack_grammar::suggest_device(key) {
                return format!("unknown device `{key}`; did you mean `{s}`?");
            }
            let names: Vec<&str> = dlpack_grammar::DEVICES.iter().map(|d| d.name).collect();
            format!(
                "unknown option `{key}`: expected a device name ({}), `id = …`, `id_with = …`, `export_only`, `skip`, `delegate` or `crate = \"…\"`",
                names.join(", ")
            )
        }
    }
}

fn set<T>(cx: &Ctxt, slot: &mut Option<Opt<T>>, key: Span, value: T, name: &str) {
    if slot.is_some() {
        cx.error(key, format_args!("duplicate option `{name}`"));
    } else {
        *slot = Some(Opt { key, value });
    }
}

fn flag(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    slot: &mut Option<Span>,
    key: Span,
    name: &str,
) -> syn::Result<()> {
    if meta.input.peek(Token![=]) || meta.input.peek(syn::token::Paren) {
        cx.error(
            key,
            format_args!("`{name}` takes no value: write `{name}` alone"),
        );
        skip_value(meta.input)?;
    }
    if slot.is_some() {
        cx.error(key, format_args!("duplicate option `{name}`"));
    } else {
        *slot = Some(key);
    }
    Ok(())
}

/// `code = float` (a name stem, aliases included) or `code = 2`.
fn code_value(meta: &ParseNestedMeta) -> syn::Result<Val<&'static CodeInfo>> {
    let input = meta.value()?;
    if input.peek(LitInt) {
        let lit: LitInt = input.parse()?;
        let code = lit.base10_parse::<u8>().ok();
        return match code.and_then(dlpack_grammar::code_info) {
            Some(info) => Ok(Val {
                span: lit.span(),
                value: info,
            }),
            None => Err(syn::Error::new(
                lit.span(),
                format_args!(
                    "unknown data type code {} (known codes are 0 to {}); prefer the name, as in `code = float`",
                    lit.base10_digits(),
                    dlpack_grammar::CODES.len() - 1
                ),
            )),
        };
    }
    let ident = input.call(<Ident as syn::ext::IdentExt>::parse_any)?;
    let text = ident.to_string();
    match dlpack_grammar::code_by_name(&text) {
        Some(info) => Ok(Val {
            span: ident.span(),
            value: info,
        }),
        None => {
            let stems: Vec<&'static str> = dlpack_grammar::CODES.iter().map(|c| c.name).collect();
            let message = match dlpack_grammar::suggest(&text, &stems) {
                Some(s) => format!("unknown data type code `{text}`; did you mean `{s}`?"),
                None => format!(
                    "unknown data type code `{text}`: expected one of {}",
                    stems.join(", ")
                ),
            };
            Err(syn::Error::new(ident.span(), message))
        }
    }
}

/// `key = 16` (a value) or `key` alone.
fn int_value<N: std::str::FromStr>(
    meta: &ParseNestedMeta,
    range: &str,
) -> syn::Result<Option<Val<N>>>
where
    N::Err: std::fmt::Display,
{
    if !meta.input.peek(Token![=]) {
        return Ok(None);
    }
    let input = meta.value()?;
    let lit: LitInt = input
        .parse()
        .map_err(|e| syn::Error::new(e.span(), format_args!("expected an integer: {range}")))?;
    let value = lit
        .base10_parse::<N>()
        .map_err(|_| syn::Error::new(lit.span(), range))?;
    Ok(Some(Val {
        span: lit.span(),
        value,
    }))
}

/// Skips an option's value (`= …` up to the next comma, or a parenthesised list), after an
/// error, so that the options after it are still parsed.
fn skip_value(input: ParseStream) -> syn::Result<()> {
    while !input.is_empty() && !input.peek(Token![,]) {
        input.parse::<TokenTree>()?;
    }
    Ok(())
}
