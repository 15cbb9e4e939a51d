//! Parsing of `#[dlpack(...)]` attributes: syntax only, with the span of every option.
//!
//! Which options may go on which item, and which combine, is `check`'s business: here an
//! unknown key, a malformed value or a repeated option is an error pointing at that key, and
//! the parse goes on so that one build reports every mistake. The options after an optional
//! leading string (`#[dlpack("float32", export_only)]`) go through syn's `parse_nested_meta`
//! machinery; every key is a [`Sym`], and what follows it is decided by the key's [`Form`].

use dlpack_grammar::{CodeInfo, DeviceInfo};
use proc_macro2::{Span, TokenStream, TokenTree};
use syn::meta::ParseNestedMeta;
use syn::parse::{ParseStream, Parser};
use syn::spanned::Spanned;
use syn::{Attribute, Ident, LitInt, LitStr, Meta, Path, Token, Type};

use super::ctxt::Ctxt;
use super::kind::Kind;
use super::names::{self, Target};
use super::path::{crate_path, type_path};
use super::symbol::{Form, Sym};

/// One option as written: its key, where the key is, and its value.
pub(crate) struct Opt {
    pub sym: Sym,
    pub key: Span,
    pub value: Value,
}

/// What followed a key.
pub(crate) enum Value {
    /// Nothing: a flag, or a field role (`#[dlpack(id)]`).
    None,
    Path(Path),
    Type(Type),
    /// `code = float`.
    Code(&'static CodeInfo, Span),
    /// `bits = 16`, `lanes = 4`, `id = 0`, checked against the key's range.
    Int(i64, Span),
}

/// A name and where it was written.
#[derive(Clone, Copy)]
pub(crate) struct Named {
    pub span: Span,
    pub target: Target,
}

/// Everything the `#[dlpack(...)]` attributes of one item (type, variant or field) said.
#[derive(Default)]
pub(crate) struct Attrs {
    /// The first `#[dlpack]` attribute, for "not allowed here" errors.
    pub first: Option<Span>,
    /// The options, each key once, in the order written.
    pub opts: Vec<Opt>,
    /// `#[dlpack("float32")]` or `#[dlpack(cuda)]`.
    pub name: Option<Named>,
    /// Whether parsing reported an error: the options are incomplete, so `check` draws no
    /// further conclusion from them (one mistake, one error).
    pub poisoned: bool,
}

impl Attrs {
    /// Whether any option was given.
    pub(crate) fn is_empty(&self) -> bool {
        self.first.is_none()
    }

    pub(crate) fn get(&self, sym: Sym) -> Option<&Opt> {
        self.opts.iter().find(|o| o.sym == sym)
    }

    /// Where `sym` was written, in any form.
    pub(crate) fn span(&self, sym: Sym) -> Option<Span> {
        self.get(sym).map(|o| o.key)
    }

    /// `sym` written alone, as a field role (`#[dlpack(code)]`).
    pub(crate) fn role(&self, sym: Sym) -> Option<Span> {
        self.get(sym)
            .filter(|o| matches!(o.value, Value::None))
            .map(|o| o.key)
    }

    /// `sym` written with a value (`code = float`).
    pub(crate) fn valued(&self, sym: Sym) -> Option<&Opt> {
        self.get(sym).filter(|o| !matches!(o.value, Value::None))
    }

    /// The path of `sym = path`.
    pub(crate) fn path(&self, sym: Sym) -> Option<&Path> {
        match &self.get(sym)?.value {
            Value::Path(path) => Some(path),
            _ => None,
        }
    }

    /// The key span and path of `sym = path`.
    pub(crate) fn path_opt(&self, sym: Sym) -> Option<(Span, &Path)> {
        let opt = self.get(sym)?;
        match &opt.value {
            Value::Path(path) => Some((opt.key, path)),
            _ => None,
        }
    }
}

impl Opt {
    /// The integer of `bits = 16`, with its span.
    pub(crate) fn int(&self) -> Option<(i64, Span)> {
        match self.value {
            Value::Int(n, span) => Some((n, span)),
            _ => None,
        }
    }
}

/// Parses every `#[dlpack(...)]` among `attrs`, reporting mistakes into `cx`.
pub(crate) fn parse(cx: &Ctxt, kind: Kind, attrs: &[Attribute]) -> Attrs {
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
                    kind.example()
                ),
            );
            continue;
        }
        let result = attr.parse_args_with(|input: ParseStream| body(cx, kind, &mut out, input));
        if let Err(error) = result {
            cx.syn_error(error);
        }
    }
    out.poisoned = cx.count() > before;
    out
}

fn body(cx: &Ctxt, kind: Kind, out: &mut Attrs, input: ParseStream) -> syn::Result<()> {
    if input.is_empty() {
        return Err(input.error(format_args!("expected options, as in `{}`", kind.example())));
    }
    if input.peek(LitStr) {
        let lit: LitStr = input.parse()?;
        name(cx, kind, out, &lit);
        if input.is_empty() {
            return Ok(());
        }
        input.parse::<Token![,]>()?;
        if input.is_empty() {
            return Ok(());
        }
    }
    let rest: TokenStream = input.parse()?;
    syn::meta::parser(|meta| option(cx, kind, out, &meta)).parse2(rest)
}

/// A leading string: a data type name, or (for devices) a mistake with a precise fix.
fn name(cx: &Ctxt, kind: Kind, out: &mut Attrs, lit: &LitStr) {
    let text = lit.value();
    let target = match kind {
        Kind::DataType => names::data_type_string(&text),
        Kind::Device => Err(names::device_string(&text)),
    };
    match target {
        Err(message) => cx.error(lit.span(), message),
        Ok(_) if out.name.is_some() => {
            cx.error(lit.span(), "a second data type name; give one per item");
        }
        Ok(target) => {
            out.name = Some(Named {
                span: lit.span(),
                target,
            });
        }
    }
}

fn option(cx: &Ctxt, kind: Kind, out: &mut Attrs, meta: &ParseNestedMeta) -> syn::Result<()> {
    let Some(key) = meta.path.get_ident() else {
        cx.error_spanned(
            &meta.path,
            format_args!("expected an option name, as in `{}`", kind.example()),
        );
        return skip_value(meta.input);
    };
    let span = key.span();
    let text = key.to_string();
    let Some(sym) = Sym::from_name(&text).filter(|s| s.kind().is_none_or(|k| k == kind)) else {
        if kind == Kind::Device {
            if let Some(info) = dlpack_grammar::device_by_name(&text) {
                return device_name(cx, out, meta, span, info);
            }
        }
        cx.error(span, names::unknown_option(kind, &text));
        return skip_value(meta.input);
    };
    let value = match sym.form() {
        Form::Flag => {
            if meta.input.peek(Token![=]) || meta.input.peek(syn::token::Paren) {
                cx.error(
                    span,
                    format_args!("`{sym}` takes no value: write `{sym}` alone"),
                );
                skip_value(meta.input)?;
            }
            Value::None
        }
        Form::Path => Value::Path(meta.value()?.parse()?),
        Form::Type => Value::Type(meta.value()?.parse()?),
        Form::CratePath => Value::Path(crate_path(meta)?),
        Form::TypePath => Value::Path(type_path(meta)?),
        Form::Decision => decision(meta)?,
        Form::ValueOrRole if !meta.input.peek(Token![=]) => Value::None,
        Form::ValueOrRole => match sym {
            Sym::Code => code_value(meta)?,
            Sym::Bits => int_value(meta, 255, "the bit width must be a number from 1 to 255")?,
            Sym::Lanes => int_value(
                meta,
                65535,
                "the lane count must be a number from 1 to 65535",
            )?,
            _ => id_value(meta)?,
        },
    };
    if out.get(sym).is_some() {
        cx.error(span, format_args!("duplicate option `{sym}`"));
    } else {
        out.opts.push(Opt {
            sym,
            key: span,
            value,
        });
    }
    Ok(())
}

/// A bare device name: `#[dlpack(cuda)]`.
fn device_name(
    cx: &Ctxt,
    out: &mut Attrs,
    meta: &ParseNestedMeta,
    span: Span,
    info: &'static DeviceInfo,
) -> syn::Result<()> {
    let name = info.name;
    if meta.input.peek(Token![=]) {
        cx.error(
            span,
            format_args!(
                "a device name takes no value; give the id as its own option: `#[dlpack({name}, id = 0)]`"
            ),
        );
        return skip_value(meta.input);
    }
    match &out.name {
        Some(Named {
            target: Target::Device(first),
            ..
        }) => cx.error(
            span,
            format_args!(
                "a second device type `{name}` after `{}`: an item maps to one device type",
                first.name
            ),
        ),
        _ => {
            out.name = Some(Named {
                span,
                target: Target::Device(info),
            });
        }
    }
    Ok(())
}

/// `non_exhaustive = "error"`: what a mirror does with a variant its foreign enum gains.
fn decision(meta: &ParseNestedMeta) -> syn::Result<Value> {
    let value = meta.value()?;
    let expected = "write `non_exhaustive = \"error\"`: a value of a variant the mirror does not list converts to an error";
    let lit: LitStr = value
        .parse()
        .map_err(|e| syn::Error::new(e.span(), expected))?;
    if lit.value() != "error" {
        return Err(syn::Error::new(
            lit.span(),
            format_args!("unknown decision `{}`; {expected}", lit.value()),
        ));
    }
    Ok(Value::None)
}

/// `code = float` (a name stem, aliases included) or `code = 2`.
fn code_value(meta: &ParseNestedMeta) -> syn::Result<Value> {
    let input = meta.value()?;
    if input.peek(LitInt) {
        let lit: LitInt = input.parse()?;
        let code = lit.base10_parse::<u8>().ok();
        return match code.and_then(dlpack_grammar::code_info) {
            Some(info) => Ok(Value::Code(info, lit.span())),
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
        Some(info) => Ok(Value::Code(info, ident.span())),
        None => Err(syn::Error::new(ident.span(), names::unknown_code(&text))),
    }
}

/// `key = 16`, at most `max`. Zero parses: the grammar's check of the whole data type says why
/// it is invalid.
fn int_value(meta: &ParseNestedMeta, max: i64, range: &str) -> syn::Result<Value> {
    let input = meta.value()?;
    let lit: LitInt = input
        .parse()
        .map_err(|e| syn::Error::new(e.span(), format_args!("expected an integer: {range}")))?;
    let value = lit
        .base10_parse::<i64>()
        .ok()
        .filter(|n| (0..=max).contains(n))
        .ok_or_else(|| syn::Error::new(lit.span(), range))?;
    Ok(Value::Int(value, lit.span()))
}

/// `id = 0`: a DLPack device id, `0..=i32::MAX`.
fn id_value(meta: &ParseNestedMeta) -> syn::Result<Value> {
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
    Ok(Value::Int(i64::from(id), lit.span()))
}

/// Skips an option's value (`= …` up to the next comma, or a parenthesised list), after an
/// error, so that the options after it are still parsed.
fn skip_value(input: ParseStream) -> syn::Result<()> {
    while !input.is_empty() && !input.peek(Token![,]) {
        input.parse::<TokenTree>()?;
    }
    Ok(())
}
