#!/usr/bin/env python3
"""Fails when files of a crate import each other in a cycle, or break a layer map.

    python3 .ci/check-cycles.py [--graph] dlpack-core/src dlpack-derive/src dlpack-grammar/src

Each argument is a crate's source folder (holding lib.rs or main.rs). The crate's modules are
read the way rustc finds them: from the root file through its `mod x;` declarations (`x.rs`,
`x/mod.rs`, or a `#[path]`), so a file no `mod` names is not part of the crate, and a module
declared under `#[cfg(test)]` (with all of its files) is test code, left out like inline
`#[cfg(test)]` modules and items.

A file depends on another when it names an item defined there: in a `use` declaration
(`use crate::tensor::TensorError;`, `use super::owner::Owner;`, braces, renames and globs
included) or in a path written in code (`crate::ffi::DLTensor`, `tables::code::FLOAT` after
`use crate::tables;`). Paths are followed through re-exports, private imports, `pub use`
globs and `#[macro_export]` macros to the file that defines the name, so a facade never hides
a cycle between the files behind it; a facade's own `pub use` is an offer, not a need, and
counts as a dependency of it only when its own code names what it re-exports. The `$crate`
paths in the body of a `#[macro_export]` macro are uses of the files that invoke it (its body
expands there), not of the file that defines it; a local `macro_rules!` body counts where it
is written.

A file also uses the file whose impl block defines an item that it names or calls: an item of
an inherent impl (`impl T { .. }`, `impl<X> T<X> { .. }`) or of an impl of one of the crate's
own traits (`impl LocalTrait for T`). An impl of another crate's trait (`Display`, `From`,
`Iterator`) gives no edge: which impl a call of std's traits reaches is not for a text reader
to say (`{device}` in a format string is no call it sees), and a trait's method is reached
through the trait, whose file the caller already uses. Impl blocks are read where they are
items of a module (`impl_items`, `Crate._collect_impl`) and in local `macro_rules!` bodies;
`Crate.impl_uses` resolves the uses:

- `Type::name`, `path::to::Type::name`: `Type` resolved like any name (through `use`, renames
  and re-exports) to a type the crate defines; the files of its inherent impls that define
  `name` (Rust prefers those), else of its impls of the crate's traits. `Self::name` and
  `self.name(..)` inside an impl block are the same with the block's self type (no edge when
  that is the file itself). `$crate::Type::name` in a `#[macro_export]` macro's body is a use
  by the files that invoke the macro.
- `expr.name(..)` on any other receiver, whose type a text reader cannot know: the one file
  whose impls define a method `name`, only when all of these hold: every inherent impl or impl
  of a crate trait that defines a method (a fn taking `self`) `name` is in that one file, and
  takes as many arguments as the call passes; the calling file names the impl's self type (in
  a `use`, a path, an item of its own), or for an impl whose self type is not the crate's (a
  blanket `impl<T: Bound> Trait for T`, an impl for `Result`) the trait; no other trait of the
  crate declares a method `name` (its impls may be derived); no impl of another crate's trait
  in the crate defines a fn `name` (`fmt`, `next`); and `name` is not a method name of std's
  types and traits (STD_METHODS: `len`, `get`, `new`, `map`, `kind`, `name`, ...). A call on
  a value of a type parameter `D: Driver` names only the trait: it stays a use of the trait's
  file, not of the one implementor's, so a trait keeps breaking a cycle as it does in Rust.
- An impl block some of whose items a macro makes (`fn $ctor`, `constructor!(..);`) is opaque:
  a `Type::name` that no impl of the struct `Type` names is taken for one of its items when
  one file alone has opaque inherent impls of `Type` (`Device::cuda`, `Device::CPU`, made in
  device.rs from dlpack-grammar's table) and `name` is no trait's (`default`, a crate trait's).

These rules would rather miss a use than invent one. They miss: a method call on a receiver
whose type the calling file never names (`tensor.device().can_access(..)` where `Device` is not
named), on a method name that two files' impls define or that std uses; a path through a type
parameter or a foreign type (`T::f`, `u32::f` for a crate trait's impl), a qualified path
(`<T as Trait>::f`) or a turbofish type (`Foo::<u8>::f`); impl blocks in fn bodies and in
`#[macro_export]` macro bodies, and method calls in those macro bodies; items that derives and
attribute macros make; and type aliases as self types. One known over-count: a call through a
type parameter (`driver.copy(..)` on a `D: Driver`) in a file that also names the one type with
an impl of that trait (`Cuda`) is counted as a call of that impl (in dlpack-core today the
trait and that impl share a file, so no edge is wrong). `--graph` prints each file's uses and
marks those whose first is of an impl's item: `device.rs [impl: Device::new, in impl Device,
line 389]`.

The files are read with a tokenizer of Rust's lexical grammar (nested block comments, raw and
byte strings, strings continued with `\\` at a line end, char literals against lifetimes, raw
identifiers), not with regular expressions over the text: a pattern that misreads one string
swallows the code after it, and the cycle in that code goes unseen.

A module file may also be held to a layer map (the format is in CONTRIBUTING.md): a fenced
`text` block whose first line starts with `layers`, in the file's inner docs (`//!`), or, to
keep the maps of public modules off their docs pages, in the repository's CONTRIBUTING.md (the
nearest one above the crate's source folder), whose first line is then `layers of ` and the
file's path from the repository root (`layers of dlpack-core/src/tensor/mod.rs`). Each
following line names child modules declared in the file (`mod x;`, `#[cfg(test)]` ones
included), every one exactly once (modules written inline belong to the file and are not
listed), and a file under one child may use a file under another only if the other's line is
below its own, never one on its own line. A file has one map at most, and a map in
CONTRIBUTING.md that names no module file (one deleted, renamed, or that no `mod` names) is an
error, so that maps cannot rot.

Exit status 1 when any cycle or layer error is found, 0 otherwise.
"""
import os
import re
import sys


class Token:
    __slots__ = ("kind", "text", "line")

    def __init__(self, kind, text, line):
        self.kind = kind  # "ident", "lifetime", "literal", "punct"
        self.text = text  # an identifier without `r#`; a literal as written
        self.line = line

    def __repr__(self):
        return f"{self.kind}:{self.text}@{self.line}"


class LexError(Exception):
    pass


def _ident_start(c):
    return c == "_" or c.isalpha()


def _ident_char(c):
    return c == "_" or c.isalnum()


# Multi-character punctuation that matters for paths; everything else is one character.
_PUNCT2 = ("::", "->", "=>")


def tokenize(src):
    """Rust tokens of `src`, and the inner doc comment lines (`//!`, `/*! */`) as (line, text).

    Comments and whitespace are dropped. Literals are kept whole, so nothing inside a string,
    a char or a comment is ever read as code.
    """
    tokens, docs = [], []
    i, n, line = 0, len(src), 1
    if src.startswith("#!") and not src.startswith("#!["):
        i = src.find("\n") if "\n" in src else n  # a shebang line

    def error(msg):
        raise LexError(f"line {line}: {msg}")

    def quoted(j, raw_hashes):
        """The index after a string body that starts at `j` (just past the opening quote)."""
        nonlocal line
        if raw_hashes is not None:
            close = '"' + "#" * raw_hashes
            end = src.find(close, j)
            if end < 0:
                error("unterminated raw string")
            line += src.count("\n", j, end)
            return end + len(close)
        while j < n:
            c = src[j]
            if c == "\\":
                # An escape, or a `\` before a line break that continues the string on the
                # next line: either way the next character is part of the string.
                if j + 1 < n and src[j + 1] == "\n":
                    line += 1
                j += 2
                continue
            if c == "\n":
                line += 1
            elif c == '"':
                return j + 1
            j += 1
        error("unterminated string")

    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            i += 1
            continue
        if c.isspace():
            i += 1
            continue
        start_line = line
        if src.startswith("//", i):
            end = src.find("\n", i)
            end = n if end < 0 else end
            text = src[i:end]
            if text.startswith("//!"):
                docs.append((line, text[3:]))
            i = end
            continue
        if src.startswith("/*", i):
            inner_doc = src.startswith("/*!", i)
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            if depth:
                error("unterminated block comment")
            if inner_doc:
                for k, text in enumerate(src[i + 3 : j - 2].split("\n")):
                    docs.append((line + k, text))
            line += src.count("\n", i, j)
            i = j
            continue
        # Prefixed literals: b"", br"", r"", r#""#, c"", cr"", b'', and raw identifiers r#x.
        if c in "brc":
            j = i
            prefix = ""
            while j < n and src[j] in "brc" and len(prefix) < 2:
                prefix += src[j]
                j += 1
            if prefix in ("b", "c", "r", "br", "cr"):
                k = j
                hashes = 0
                if "r" in prefix:
                    while k < n and src[k] == "#":
                        hashes += 1
                        k += 1
                if k < n and src[k] == '"':
                    end = quoted(k + 1, hashes if "r" in prefix else None)
                    tokens.append(Token("literal", src[i:end], start_line))
                    i = end
                    continue
                if prefix == "b" and k == j and k < n and src[k] == "'":
                    end = _char_end(src, k, error)
                    tokens.append(Token("literal", src[i:end], start_line))
                    i = end
                    continue
                if prefix == "r" and hashes == 1 and k < n and _ident_start(src[k]):
                    e = k
                    while e < n and _ident_char(src[e]):
                        e += 1
                    tokens.append(Token("ident", src[k:e], start_line))
                    i = e
                    continue
        if _ident_start(c):
            j = i + 1
            while j < n and _ident_char(src[j]):
                j += 1
            tokens.append(Token("ident", src[i:j], start_line))
            i = j
            continue
        if c.isdigit():
            end = _number_end(src, i)
            tokens.append(Token("literal", src[i:end], start_line))
            i = end
            continue
        if c == '"':
            end = quoted(i + 1, None)
            tokens.append(Token("literal", src[i:end], start_line))
            i = end
            continue
        if c == "'":
            # A char literal (`'a'`, `'\''`, `'\u{1F600}'`) or a lifetime or label (`'a`,
            # `'static`): a char closes with a quote right after its one character or escape.
            if i + 1 < n and src[i + 1] == "\\":
                end = _char_end(src, i, error)
                tokens.append(Token("literal", src[i:end], start_line))
                i = end
                continue
            if i + 2 < n and src[i + 2] == "'":
                tokens.append(Token("literal", src[i : i + 3], start_line))
                i += 3
                continue
            j = i + 1
            if src.startswith("r#", j):
                j += 2
            k = j
            while k < n and _ident_char(src[k]):
                k += 1
            if k == j:
                error("a quote that starts neither a char literal nor a lifetime")
            tokens.append(Token("lifetime", src[i:k], start_line))
            i = k
            continue
        if src.startswith(_PUNCT2, i):
            tokens.append(Token("punct", src[i : i + 2], start_line))
            i += 2
            continue
        tokens.append(Token("punct", c, start_line))
        i += 1
    return tokens, docs


def _number_end(src, i):
    """The index after the number literal starting at `i`: `0x1f`, `1_000u32`, `1.5e-3f64`,
    `1.`, but not the `.` of a range (`0..n`) or of a method or field (`1.max(2)`, `t.0`)."""
    n = len(src)

    def digits(j):
        while j < n and (src[j].isdigit() or src[j] == "_"):
            j += 1
        return j

    def suffix(j):
        while j < n and _ident_char(src[j]):
            j += 1
        return j

    if src.startswith(("0x", "0o", "0b"), i):
        return suffix(i + 2)  # the digits of these are letters too, and so is the suffix
    j = digits(i)
    if j + 1 < n and src[j] == "." and src[j + 1].isdigit():
        j = digits(j + 1)
    elif j < n and src[j] == "." and not _range_or_member(src, j):
        return j + 1
    if j < n and src[j] in "eE":
        k = j + 1
        if k < n and src[k] in "+-":
            k += 1
        if k < n and src[k].isdigit():
            j = digits(k)
    return suffix(j)


def _range_or_member(src, j):
    """Whether the `.` at `j`, after digits, starts a range (`0..n`) or a method or field."""
    return j + 1 < len(src) and (src[j + 1] == "." or _ident_start(src[j + 1]))


def _char_end(src, quote, error):
    """The index after a char literal whose opening quote is at `quote`."""
    j = quote + 1
    if j < len(src) and src[j] == "\\":
        if src.startswith("u{", j + 1):
            j = src.find("}", j) + 1
        elif j + 1 < len(src) and src[j + 1] == "x":
            j += 4
        else:
            j += 2
    else:
        j += 1
    if j >= len(src) + 1 or src[j : j + 1] != "'":
        error("unterminated char literal")
    return j + 1


OPEN, CLOSE = "([{", ")]}"


def matching(tokens, i):
    """The index of the bracket closing the one at `i`."""
    depth = 0
    for j in range(i, len(tokens)):
        t = tokens[j]
        if t.kind != "punct":
            continue
        if t.text in OPEN:
            depth += 1
        elif t.text in CLOSE:
            depth -= 1
            if depth == 0:
                return j
    raise LexError(f"line {tokens[i].line}: unbalanced `{tokens[i].text}`")


def is_test_only(attr):
    """Whether attribute tokens (inside `#[...]`) are a cfg that holds only under test:
    `cfg(test)`, or `cfg(all(.., test, ..))`."""
    texts = [t.text for t in attr]
    if texts[:2] != ["cfg", "("]:
        return False
    body = texts[2:-1]
    if body == ["test"]:
        return True
    if body[:2] == ["all", "("]:
        depth, items, cur = 0, [], []
        for t in body[2:-1]:
            if t in OPEN:
                depth += 1
            elif t in CLOSE:
                depth -= 1
            if t == "," and depth == 0:
                items.append(cur)
                cur = []
            else:
                cur.append(t)
        items.append(cur)
        return ["test"] in items
    return False


def literal_value(text):
    """The value of a plain or raw string literal's text (escapes other than `\\\\` and `\\"`
    are not decoded: enough for a `#[path]`)."""
    if text.startswith("r"):
        body = text[1:].strip("#")
        return body[1:-1]
    return text[1:-1].replace('\\"', '"').replace("\\\\", "\\")


# Keywords after which an identifier names an item defined in the module.
DEF_KEYWORDS = {"fn", "struct", "enum", "union", "trait", "type", "const", "static"}
# Words before an item's keyword: visibility and qualifiers.
QUALIFIERS = {"pub", "crate", "in", "self", "super", "unsafe", "async", "default"}
# Items that end at a `;` even when they hold braces (`const X: T = T { .. };`).
SEMI_ITEMS = {"const", "static", "type", "use", "let", "extern"}


def item_end(tokens, i, end, nested):
    """The index after the item (or statement, field, arm) starting at `i`: its `;`, or the
    close of its first `{}` group, or (inside brackets, `nested`) a `,` or the enclosing
    bracket's close."""
    while i + 1 < end and tokens[i].text == "#" and tokens[i + 1].text == "[":
        i = matching(tokens, i + 1) + 1
    first = None
    for k in range(i, end):
        t = tokens[k]
        if t.kind == "ident" and t.text not in QUALIFIERS:
            first = t.text
            if first == "const" and k + 1 < end and tokens[k + 1].text in ("fn", "unsafe",
                                                                          "async", "extern"):
                first = "fn"  # a `const fn` ends at its body's `}`
            break
        if t.kind == "punct" and t.text not in "()":
            break
    semi_only = first in SEMI_ITEMS and not (first == "extern" and _extern_block(tokens, i, end))
    depth, j = 0, i
    while j < end:
        t = tokens[j]
        if t.kind == "punct":
            if t.text in OPEN:
                depth += 1
            elif t.text in CLOSE:
                if depth == 0:
                    return j
                depth -= 1
                if depth == 0 and t.text == "}" and not semi_only:
                    return j + 1
            elif depth == 0 and t.text == ";":
                return j + 1
            elif depth == 0 and t.text == "," and nested:
                return j + 1
        j += 1
    return end


def _extern_block(tokens, i, end):
    """Whether `extern` at or after `i` starts a block (`extern "C" { .. }`), not a crate."""
    for t in tokens[i:end]:
        if t.kind == "ident" and t.text == "crate":
            return False
        if t.text in ("{", ";"):
            return t.text == "{"
    return False


# ---- impl blocks ----

# Tokens after which `impl` starts an item (`-> impl Trait`, `x: impl Fn()` are types).
ITEM_STARTS = {";", "}", "{", "]", "unsafe", "default"}


def starts_item(tokens, i):
    """Whether the `impl` at `i` starts an impl block (an item), not an `impl Trait` type."""
    return i == 0 or tokens[i - 1].text in ITEM_STARTS


class Impl:
    """An `impl` block as written: what it is for and the names of the items it defines. Its
    self type and trait are resolved once the whole crate is read (Crate.impl_index)."""

    def __init__(self, module, line, generics, trait_segs, self_segs, items, arity, opaque):
        self.module = module  # the Module it is written in
        self.file = module.file
        self.line = line
        self.generics = generics  # names of its type and const parameters
        self.trait_segs = trait_segs  # the trait as written; None for an inherent impl
        self.self_segs = self_segs  # the self type's path as written; None if not a path
        self.items = items  # name -> "method" (fn with a self receiver), "fn", "const", "type"
        self.arity = arity  # name of a fn -> how many parameters it takes besides `self`
        self.opaque = opaque  # it also holds items a macro makes, whose names are not known
        # Set by Crate.impl_index:
        self.kind = None  # "inherent", "local" (a trait of this crate) or "foreign"
        self.type_key = None  # (module path, name) of the self type if this crate defines it
        self.trait_key = None  # (module path, name) of the trait if this crate defines it

    def title(self):
        ty = "::".join(self.self_segs or ["?"])
        return f"impl {ty}" if self.trait_segs is None else (
            f"impl {'::'.join(self.trait_segs or ['?'])} for {ty}")


def _angle_close(tokens, i, end):
    """The index of the `>` closing the `<` at `i` (`->` is one token, so it never counts)."""
    depth = 0
    for j in range(i, end):
        if tokens[j].text == "<":
            depth += 1
        elif tokens[j].text == ">":
            depth -= 1
            if depth == 0:
                return j
    raise LexError(f"line {tokens[i].line}: unbalanced `<`")


def _generic_names(tokens):
    """The type and const parameter names in the tokens between an impl's `<` and `>`."""
    names, depth, first = set(), 0, True
    for k, t in enumerate(tokens):
        if t.text in ("<", "(", "["):
            depth += 1
        elif t.text in (">", ")", "]"):
            depth -= 1
        elif depth == 0 and t.text == ",":
            first = True
            continue
        elif depth == 0 and first and t.kind == "ident":
            if t.text == "const" and k + 1 < len(tokens):
                names.add(tokens[k + 1].text)
            else:
                names.add(t.text)
        first = False
    return names


def _type_path(tokens):
    """The path a type starts with (`&'a mut dyn a::B<T>` -> ['a', 'B']); None when it is no
    path (a tuple, a slice, a pointer, `fn(..)`, a macro variable `$ty`)."""
    k = 0
    while k < len(tokens) and (tokens[k].text in ("&", "!", "?", "mut", "dyn")
                               or tokens[k].kind == "lifetime"):
        k += 1
    segs = []
    if k < len(tokens) and tokens[k].text == "::":
        segs.append("::")  # `::other_crate::T`
        k += 1
    while k < len(tokens) and tokens[k].kind == "ident" and tokens[k].text not in ("fn", "impl"):
        segs.append(tokens[k].text)
        if k + 1 < len(tokens) and tokens[k + 1].text == "::":
            k += 2
        else:
            break
    return segs if segs and segs != ["::"] else None


def _body_open(tokens, i, end):
    """The index of the `{` opening the body of the item whose header goes on at `i` (past
    generics, bounds and a where clause); None when the item ends at a `;` first."""
    depth = 0
    for j in range(i, end):
        t = tokens[j].text
        if t in ("<", "(", "["):
            depth += 1
        elif t in (">", ")", "]"):
            depth -= 1
        elif depth == 0 and t in ("{", ";"):
            return j if t == "{" else None
    return None


def parse_impl_header(tokens, i, end):
    """Reads the header of the impl block whose `impl` is at `i`: (generic names, trait path
    or None, self type path or None, index of the body's `{`); None when no body follows."""
    j, generics = i + 1, set()
    if j < end and tokens[j].text == "<":
        close = _angle_close(tokens, j, end)
        generics = _generic_names(tokens[j + 1 : close])
        j = close + 1
    header, depth = [], 0
    while j < end:
        t = tokens[j]
        if t.text in ("<", "(", "["):
            depth += 1
        elif t.text in (">", ")", "]"):
            depth -= 1
        elif depth == 0 and (t.text in ("{", ";") or (t.kind == "ident" and t.text == "where")):
            break
        header.append(t)
        j += 1
    while j < end and tokens[j].text not in ("{", ";"):
        j += 1  # a where clause
    if j >= end or tokens[j].text != "{":
        return None
    # `impl Trait for Type`: the first `for` outside brackets that is not `for<'a>`.
    depth, split = 0, None
    for k, t in enumerate(header):
        if t.text in ("<", "(", "["):
            depth += 1
        elif t.text in (">", ")", "]"):
            depth -= 1
        elif depth == 0 and t.kind == "ident" and t.text == "for" and (
                k + 1 == len(header) or header[k + 1].text != "<"):
            split = k
            break
    if split is None:
        return generics, None, _type_path(header), j
    return generics, _type_path(header[:split]) or [], _type_path(header[split + 1 :]), j


def impl_items(tokens, open_, close):
    """The items an impl body (tokens[open_] is its `{`) defines: (name -> kind, name of a fn
    -> its number of parameters besides `self`, opaque), where kind is "method" (a fn taking
    `self`), "fn", "const" or "type", and opaque says that a macro makes some of its items
    (`constructor!(..);`, `fn $name()`), whose names a reader of the text cannot know. Items
    under `#[cfg(test)]` are test code, left out."""
    items, arity, opaque = {}, {}, False
    i = open_ + 1
    while i < close:
        test = False
        while i + 1 < close and tokens[i].text == "#" and tokens[i + 1].text in ("[", "!"):
            at = i + 1 if tokens[i + 1].text == "[" else i + 2
            end_attr = matching(tokens, at)
            test = test or is_test_only(tokens[at + 1 : end_attr])
            i = end_attr + 1
        if i >= close:
            break
        if tokens[i].text == "$" and i + 1 < close and tokens[i + 1].text == "(":
            # A macro repetition `$( .. )*`: its items are the impl's too.
            group = matching(tokens, i + 1)
            inner, inner_arity, _ = impl_items(tokens, i + 1, group)
            if not test:
                items.update(inner)
                arity.update(inner_arity)
            opaque = True
            i = group + 1
            while i < close and tokens[i].text in ("*", "+", "?", ",", ";"):
                i += 1
            continue
        after = max(item_end(tokens, i, close, nested=False), i + 1)
        k = i  # past `pub(crate) const unsafe extern "C"` to the item's keyword
        while k < after and (tokens[k].text in QUALIFIERS or tokens[k].kind == "literal"
                             or tokens[k].text in ("extern", "(", ")", "::")
                             or (tokens[k].text == "const" and k + 1 < after
                                 and tokens[k + 1].text in ("fn", "unsafe", "async", "extern"))):
            k += 1
        word = tokens[k].text if k < after else None
        name = tokens[k + 1] if k + 1 < after else None
        if word in ("fn", "const", "type") and name is not None:
            if name.kind != "ident":
                opaque = True  # `fn $name`, made by a macro
            elif not test and name.text != "_":
                kind = word
                if word == "fn":
                    takes_self, count = _parameters(tokens, k + 2, after)
                    kind = "method" if takes_self else "fn"
                    arity[name.text] = count - takes_self
                items[name.text] = kind
        elif word is not None and not test:
            opaque = True  # a macro invocation (`constructor!(..);`): items a macro makes
        i = after
    return items, arity, opaque


def _parameters(tokens, j, end):
    """(whether it takes `self` first, how many parameters) of the fn whose generics or
    parameter list start at `j`."""
    if j < end and tokens[j].text == "<":
        j = _angle_close(tokens, j, end) + 1
    if j >= end or tokens[j].text != "(":
        return False, 0
    close = matching(tokens, j)
    k = j + 1
    while k < close and (tokens[k].text in ("&", "mut") or tokens[k].kind == "lifetime"):
        k += 1
    takes_self = k < close and tokens[k].text == "self"
    return takes_self, _count_list(tokens, j, close, angles=True)


def _count_list(tokens, open_, close, angles):
    """How many comma-separated elements the bracket group tokens[open_:close + 1] holds (a
    trailing comma ends none); `<` and `>` nest too when `angles` (in parameter types)."""
    count, depth, empty = 0, 0, True
    for t in tokens[open_ + 1 : close]:
        if t.text in OPEN or (angles and t.text == "<"):
            depth += 1
        elif t.text in CLOSE or (angles and t.text == ">"):
            depth -= 1
        elif t.text == "," and depth == 0:
            count, empty = count + 1, True
            continue
        empty = False
    return count + (not empty)


# Method names of std's and core's types and traits (`Vec::len`, `Option::map`, `Iterator::next`,
# `io::Error::kind`, `Thread::name`, `Hasher::finish`, ...). A `.name(` call with one of these
# names may be a call on such a value, whatever this crate's impls define: it gives no edge.
STD_METHODS = frozenset("""
    abs add addr all and_then any as_bytes as_deref as_mut as_mut_ptr as_mut_slice as_ptr as_ref
    as_slice as_str binary_search borrow borrow_mut by_ref bytes capacity cast chain
    char_indices chars checked_add checked_mul checked_sub chunks chunks_exact clamp clear clone
    cloned cmp collect contains contains_key copied count dedup default deref deref_mut
    description downcast downcast_ref drain drop ends_with entry enumerate eq err expect extend
    extend_from_slice fill filter filter_map find find_map finish first flat_map flatten flush
    fmt fold for_each from from_str get get_mut get_or_init get_or_insert_with hash insert
    inspect into into_inner into_iter into_raw is_empty is_err is_none is_none_or is_null is_ok
    is_some is_some_and iter iter_mut join keys kind last len lines load lock map map_err map_or
    map_or_else max max_by_key min min_by_key name ne new next nth offset ok ok_or ok_or_else
    or_else parse partial_cmp partition path peek peekable pop position pow product push
    push_str read recv remove replace reserve resize retain rev rsplit saturating_add
    saturating_mul saturating_sub send set size_hint skip skip_while sort sort_by sort_by_key
    source split split_at split_once starts_with step_by store strip_prefix strip_suffix sub sum
    swap take take_while then then_some to_le_bytes to_lowercase to_owned to_string to_uppercase
    to_vec trim trim_end trim_start truncate try_from try_into try_lock type_id unwrap unwrap_or
    unwrap_or_default unwrap_or_else unzip values wait windows with_capacity wrapping_add
    wrapping_sub write write_fmt write_str zip
""".split())


def find_contributing(root):
    """The CONTRIBUTING.md nearest above a crate's source folder `root` (the repository
    root's, two folders above `dlpack-core/src`); None when there is none."""
    folder = os.path.abspath(root)
    while True:
        candidate = os.path.join(folder, "CONTRIBUTING.md")
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def contributing_layer_blocks(text):
    """The layer maps that a Markdown file (CONTRIBUTING.md) holds for module files: each is a
    fenced `text` block, outside any other fence, whose first line is `layers of <path>` (the
    path from the Markdown file's folder, `dlpack-core/src/tensor/mod.rs`) and whose other
    lines are as in a map in inner docs. Returns ([(line, path, [(line, names)])], errors as
    "line: message"). A `layers` block that names no file is an error, not a block to skip."""
    lines = text.split("\n")
    blocks, errors = [], []
    k = 0
    while k < len(lines):
        opening = re.match(r"\s{0,3}(`{3,}|~{3,})\s*(\S*)", lines[k])
        if not opening:
            k += 1
            continue
        fence, info = opening.group(1), opening.group(2)
        closing = re.compile(r"\s{0,3}%s{%d,}\s*" % (re.escape(fence[0]), len(fence)))
        j = k + 1
        while j < len(lines) and not closing.fullmatch(lines[j]):
            j += 1
        body = [(n + 1, lines[n]) for n in range(k + 1, min(j, len(lines)))]
        words = body[0][1].split() if body else []
        if info == "text" and words[:1] == ["layers"]:
            if j == len(lines):
                errors.append(f"{k + 1}: the layers block is not closed")
            if len(words) < 3 or words[1] != "of":
                errors.append(f"{body[0][0]}: a layers block here names its file: "
                              "`layers of <path from the repository root>`")
            else:
                rows = [(n, line.split()) for n, line in body[1:] if line.split()]
                blocks.append((body[0][0], words[2], rows))
        k = j + 1
    return blocks, errors


class Module:
    def __init__(self, path, file, parent, inline):
        self.path = path  # tuple of names from the crate root
        self.file = file  # the file it is written in, relative to the source folder
        self.parent = parent
        self.inline = inline
        self.children = {}  # name -> Module
        self.bindings = {}  # name -> (list of segments as written, line, pub)
        self.globs = []  # (segments as written, line, pub)
        self.defs = set()  # names of items defined here
        self.def_kinds = {}  # name of an item defined here -> its keyword (`struct`, `fn`, ..)
        self.paths = []  # (segments, line) written in code
        self.idents = set()  # identifiers in code (outside `use` declarations)
        self.uses = []  # (segments as written, line, pub, binding or None for a glob)
        self.test_children = {}  # `#[cfg(test)] mod x`: name -> written inline or not
        self.macro_calls = []  # (segments, line) of invocations of #[macro_export] macros
        self.impls = []  # Impl blocks written in it
        self.trait_methods = {}  # name of a trait defined here -> the names of its methods
        self.self_paths = []  # (name, line, Impl) of each `Self::name` inside an impl block
        # (name, line, number of arguments, Impl or None) of each method call `.name(..)`:
        # the Impl when the receiver is `self` inside an impl block (its self type is known)
        self.method_calls = []


class Crate:
    def __init__(self, root, contributing=None):
        """The crate whose source folder is `root`. `contributing`: the CONTRIBUTING.md whose
        `layers of` maps apply (see contributing_layer_blocks); None finds the nearest one
        above `root` (the repository's), False reads none."""
        self.root = root
        self.errors = []
        if contributing is None:
            contributing = find_contributing(root)
        self.contributing = contributing or None
        self._maps = None  # see layer_maps
        self.map_errors = []
        self.modules = {}  # path tuple -> Module
        self.files = {}  # file -> its Module (the file's own, not inline ones)
        self.docs = {}  # file -> inner doc lines
        self.macros = {}  # #[macro_export] name -> file
        # #[macro_export] name -> the `$crate` paths of its body: uses of the files that
        # invoke it, not of the file that defines it (the body expands where it is invoked)
        self.macro_bodies = {}
        self.self_aliases = {"crate"}  # `crate`, and names given by `extern crate self as x;`
        self._memo = {}
        self._impls = None  # see impl_index
        self._named = {}  # module path -> keys of the items it names, see named_keys
        self.test_files = set()  # files of modules declared under #[cfg(test)]
        self.test_dirs = set()  # and the folders of their submodules
        for name in ("lib.rs", "main.rs"):
            if os.path.isfile(os.path.join(root, name)):
                self._load((), name, None)
                break
        else:
            raise SystemExit(f"{root}: no lib.rs or main.rs")
        on_disk = set()
        for dirpath, _, names in os.walk(root):
            for n in names:
                if n.endswith(".rs"):
                    on_disk.add(os.path.relpath(os.path.join(dirpath, n), root))
        self.not_modules = sorted(
            f for f in on_disk - set(self.files) - self.test_files
            if not any(f.startswith(d + os.sep) for d in self.test_dirs))

    # ---- reading ----

    def _load(self, path, file, parent):
        full = os.path.join(self.root, file)
        with open(full, encoding="utf-8") as f:
            src = f.read()
        try:
            tokens, docs = tokenize(src)
        except LexError as e:
            raise SystemExit(f"{full}: {e}")
        # `#![cfg(test)]` at the top of a file makes all of it test code.
        i = 0
        while i + 2 < len(tokens) and [t.text for t in tokens[i : i + 3]] == ["#", "!", "["]:
            close = matching(tokens, i + 2)
            if is_test_only(tokens[i + 3 : close]):
                self._mark_test(file)
                return
            i = close + 1
        module = Module(path, file, parent, inline=False)
        self.modules[path] = module
        self.files[file] = module
        self.docs[file] = docs
        if parent is not None:
            parent.children[path[-1]] = module
        try:
            self._walk(module, tokens, 0, len(tokens), file, ())
        except LexError as e:
            raise SystemExit(f"{full}: {e}")

    def _mod_file(self, file, inline_dirs, name, attrs):
        """The file of `mod name;` declared in `file` inside inline modules `inline_dirs`."""
        here = os.path.dirname(file)
        stem = os.path.basename(file)[:-3]
        mod_rs = stem in ("lib", "main", "mod")
        for attr in attrs:
            if len(attr) == 3 and attr[0].text == "path" and attr[1].text == "=":
                rel = literal_value(attr[2].text)
                base = here if (mod_rs or not inline_dirs) else os.path.join(here, stem)
                return os.path.normpath(os.path.join(base, *inline_dirs, rel))
        base = here if mod_rs else os.path.join(here, stem)
        base = os.path.join(base, *inline_dirs)
        for candidate in (os.path.join(base, name + ".rs"), os.path.join(base, name, "mod.rs")):
            if os.path.isfile(os.path.join(self.root, candidate)):
                return os.path.normpath(candidate)
        return None

    def _note_test_mod(self, module, item, file, inline_dirs):
        """Remembers a `#[cfg(test)] mod x`: its name, for the layer maps, and the files of a
        `mod x;`, so that they are not reported as files no module names."""
        texts = [t.text for t in item if t.text not in ("pub", "(", ")", "crate", "super")]
        while texts[:1] == ["#"]:
            texts = texts[texts.index("]") + 1 :] if "]" in texts else []
        if len(texts) >= 3 and texts[0] == "mod" and texts[2] in (";", "{"):
            module.test_children[texts[1]] = texts[2] == "{"
        if len(texts) == 3 and texts[0] == "mod" and texts[2] == ";":
            child = self._mod_file(file, inline_dirs, texts[1], [])
            if child is not None:
                self._mark_test(child)

    def _mark_test(self, file):
        self.test_files.add(file)
        folder = os.path.dirname(file) if os.path.basename(file) == "mod.rs" else file[:-3]
        self.test_dirs.add(folder)

    def _walk(self, module, tokens, i, end, file, inline_dirs):
        attrs = []  # attributes of the next item at this level
        depth = 0
        prev = None
        current = None  # (Impl, index of its body's `}`) while inside an impl block
        while i < end:
            t = tokens[i]
            if current is not None and i > current[1]:
                current = None
            if t.kind == "punct" and t.text == "#" and i + 1 < end:
                inner = tokens[i + 1].text == "!"
                open_at = i + 2 if inner else i + 1
                if open_at < end and tokens[open_at].text == "[":
                    close = matching(tokens, open_at)
                    attr = tokens[open_at + 1 : close]
                    for k in range(open_at + 1, close):
                        self._scan_code(module, tokens, k, tokens[k - 1], close)
                    if is_test_only(attr) and not inner:
                        after = item_end(tokens, close + 1, end, nested=depth > 0)
                        self._note_test_mod(module, tokens[close + 1 : after], file, inline_dirs)
                        i = after
                        attrs = []
                        prev = None
                        continue
                    if not inner:
                        attrs.append(attr)
                    i = close + 1
                    continue
            # `use<'a, T>` in a return type (precise capturing) is not a use declaration.
            if t.kind == "ident" and t.text == "use" and tokens[min(i + 1, end - 1)].text != "<":
                j = i + 1
                while j < end and tokens[j].text != ";":
                    j += 1
                is_pub = depth == 0 and _visibility_before(tokens, i)
                # `use $crate::x;` in a macro body names this crate like `crate::x`.
                tree = [u for k, u in enumerate(tokens[i + 1 : j], i + 1)
                        if not (u.text == "$" and tokens[k + 1].text == "crate")]
                for segs, binding in expand_use(tree):
                    module.uses.append((segs, t.line, is_pub, binding))
                    if binding is None:
                        module.globs.append((segs, t.line, is_pub))
                    elif binding != "_":
                        module.bindings.setdefault(binding, (segs, t.line, is_pub))
                i = j + 1
                attrs = []
                prev = None
                continue
            if depth == 0 and t.kind == "ident":
                nxt = tokens[i + 1] if i + 1 < end else None
                if t.text == "mod" and nxt is not None and nxt.kind == "ident" and i + 2 < end:
                    name = nxt.text
                    after = tokens[i + 2].text
                    child_path = module.path + (name,)
                    if after == ";":
                        child_file = self._mod_file(file, inline_dirs, name, attrs)
                        if child_file is None:
                            self.errors.append(f"{file}:{t.line}: `mod {name};` has no file")
                        elif child_file not in self.files:
                            self._load(child_path, child_file, module)
                        i += 3
                    elif after == "{":
                        close = matching(tokens, i + 2)
                        child = Module(child_path, file, module, inline=True)
                        self.modules[child_path] = child
                        module.children[name] = child
                        self._walk(child, tokens, i + 3, close, file, inline_dirs + (name,))
                        i = close + 1
                    else:
                        i += 1
                    attrs = []
                    prev = None
                    continue
                if t.text == "extern" and nxt is not None and nxt.text == "crate":
                    j = i + 2
                    names = []
                    while j < end and tokens[j].text != ";":
                        names.append(tokens[j].text)
                        j += 1
                    if names[:1] == ["self"] and len(names) == 3 and names[1] == "as":
                        self.self_aliases.add(names[2])
                    i = j + 1
                    attrs = []
                    prev = None
                    continue
                named = nxt is not None and nxt.kind == "ident" and nxt.text not in ("fn", "mut")
                if t.text in DEF_KEYWORDS and named:
                    module.defs.add(nxt.text)
                    module.def_kinds.setdefault(nxt.text, t.text)
                if t.text == "impl" and starts_item(tokens, i):
                    current = self._collect_impl(module, tokens, i, end)
                if t.text == "trait" and named:
                    body = _body_open(tokens, i + 2, end)
                    if body is not None:
                        items, _, _ = impl_items(tokens, body, matching(tokens, body))
                        module.trait_methods[nxt.text] = {
                            n for n, kind in items.items() if kind == "method"}
                if t.text == "macro_rules" and nxt is not None and nxt.text == "!" and i + 3 < end:
                    name = tokens[i + 2].text
                    module.defs.add(name)
                    close = matching(tokens, i + 3)
                    if any(a and a[0].text == "macro_export" for a in attrs):
                        self.macros.setdefault(name, file)
                        self.macro_bodies.setdefault(name, _crate_paths(tokens, i + 4, close))
                        i = close + 1
                        prev = None
                        continue
                    # A local macro expands where it is written: its impl blocks are this
                    # file's (their items are mostly made of macro variables: opaque).
                    for k in range(i + 4, close):
                        if tokens[k].text == "impl" and starts_item(tokens, k):
                            self._collect_impl(module, tokens, k, close)
            if t.kind == "punct":
                if t.text in OPEN:
                    depth += 1
                elif t.text in CLOSE:
                    depth -= 1
                if depth == 0 and t.text in (";", "}"):
                    attrs = []
            self._scan_code(module, tokens, i, prev, end, current[0] if current else None)
            prev = t
            i += 1

    def _collect_impl(self, module, tokens, i, end):
        """Records in `module` the impl block whose `impl` keyword is at `i`: its header and
        the names of the items it defines (see impl_items). Returns (the Impl, the index of
        its body's closing brace), or None for a header without a body."""
        header = parse_impl_header(tokens, i, end)
        if header is None:
            return None
        generics, trait_segs, self_segs, open_ = header
        close = matching(tokens, open_)
        items, arity, opaque = impl_items(tokens, open_, close)
        impl = Impl(module, tokens[i].line, generics, trait_segs, self_segs, items, arity, opaque)
        module.impls.append(impl)
        return impl, close

    def _scan_code(self, module, tokens, k, prev, end, impl=None):
        """Records the identifier at `k` (after `prev`) and the path that starts there; a
        method call `.name(`, and inside an impl block (`impl`) a `Self::name`."""
        t = tokens[k]
        if t.kind == "ident" and prev is not None and prev.text == ".":
            args = _call_arguments(tokens, k, end)
            if args is not None and not (k >= 2 and tokens[k - 2].text == "."):
                on_self = (k >= 2 and tokens[k - 2].text == "self"
                           and not (k >= 3 and tokens[k - 3].text in (".", "::")))
                module.method_calls.append((t.text, t.line, args, impl if on_self else None))
            return  # a field or method, not a name
        if t.kind != "ident":
            return  # not a name
        module.idents.add(t.text)
        if prev is not None and prev.text == "::":
            return  # inside a path that started earlier
        if prev is not None and prev.text == "$" and t.text != "crate":
            return  # a macro_rules variable
        segs, j = [t.text], k + 1
        while j + 1 < end and tokens[j].text == "::" and tokens[j + 1].kind == "ident":
            segs.append(tokens[j + 1].text)
            j += 2
        if len(segs) > 1:
            module.paths.append((segs, t.line))
            if segs[0] == "Self" and impl is not None:
                module.self_paths.append((segs[1], t.line, impl))
        if j + 1 < end and tokens[j].text == "!" and tokens[j + 1].text != "=":
            module.macro_calls.append((segs, t.line))

    # ---- resolving ----

    def absolute(self, module, segs, seen=frozenset()):
        """A path as written in `module`, as segments from the crate root; None when it names
        another crate's item (or nothing this crate declares)."""
        head, rest = segs[0], list(segs[1:])
        if head in self.self_aliases:
            return rest
        if head == "self":
            return list(module.path) + rest
        if head == "super":
            base = module.path[:-1]
            while rest and rest[0] == "super":
                base, rest = base[:-1], rest[1:]
            return list(base) + rest
        if head in module.children or head in module.defs:
            return list(module.path) + [head] + rest
        if head in module.bindings and (module.path, head) not in seen:
            target = self.binding_target(module, head, seen)
            return None if target is None else target + rest
        return None

    def binding_target(self, module, name, seen=frozenset()):
        """Where the name a `use` binds in `module` points, from the crate root."""
        key = (module.path, name)
        if key in self._memo:
            return self._memo[key]
        target = self.absolute(module, module.bindings[name][0], seen | {key})
        if not seen:  # a result cut short by a circle of imports is not the answer
            self._memo[key] = target
        return target

    def offers(self, module, name, seen=frozenset()):
        """Whether `module::name` is a name (defined, imported or glob-imported there)."""
        if name in module.defs or name in module.children or name in module.bindings:
            return True
        if not module.path and name in self.macros:
            return True
        if module.path in seen:
            return False
        for segs, _, _ in module.globs:
            target = self.absolute(module, segs)
            if target is not None and tuple(target) in self.modules:
                if self.offers(self.modules[tuple(target)], name, seen | {module.path}):
                    return True
        return False

    def resolve(self, path):
        """The file defining the item at `path` (segments from the crate root)."""
        return self._find(path)[0]

    def locate(self, path):
        """The item that `path` (segments from the crate root) names, as (path of the module
        defining it, its name there): the key of a type or trait across renames and
        re-exports. None when the path names a module, another crate's item, or goes on past
        the item (`Device::cuda`: an associated item, see impl_uses)."""
        file, key, rest = self._find(path)
        return key if rest == 0 else None

    def _find(self, path, seen=frozenset()):
        """(file, key, rest) for `path`: the file defining the item it names; the item's
        key (module path, name) when it is defined in a module of the crate, else None; and
        how many segments follow the item's name in the path (`Device::cuda`: 1)."""
        for cut in range(len(path), -1, -1):
            module = self.modules.get(tuple(path[:cut]))
            if module is not None:
                break
        rest = path[cut:]
        if not rest:
            return module.file, None, 0
        name = rest[0]
        key = (module.path, name)
        if key in seen:
            return module.file, None, 0
        if name in module.bindings:
            target = self.binding_target(module, name)
            if target is None:
                return None, None, 0  # another crate's item, imported or re-exported here
            return self._find(target + rest[1:], seen | {key})
        if name in module.defs:
            return module.file, key, len(rest) - 1
        if not module.path and name in self.macros:
            return self.macros[name], None, 0
        for segs, _, _ in module.globs:
            target = self.absolute(module, segs)
            if target is not None and tuple(target) in self.modules:
                if self.offers(self.modules[tuple(target)], name):
                    return self._find(target + rest, seen | {key})
        return module.file, None, 0

    # ---- impl blocks ----

    def impl_index(self):
        """Resolves every impl block's self type and trait (once the crate is read) and
        indexes them: {type key: [Impl]}; {method name: [Impl]} of the inherent impls and
        those of the crate's traits; the names of the fns of impls of other crates' traits
        (`fmt`, `next`, `from`: a `.name(` call with such a name may be a call of that trait's
        method on any type); and {method name: keys of the crate's traits declaring it}."""
        if self._impls is not None:
            return self._impls
        by_type, by_method, foreign_fns, declared = {}, {}, set(), {}
        for module in self.modules.values():
            for trait, methods in module.trait_methods.items():
                for name in methods:
                    declared.setdefault(name, set()).add((module.path, trait))
            for impl in module.impls:
                if impl.self_segs and impl.self_segs[0] not in impl.generics:
                    target = self.absolute(module, impl.self_segs)
                    impl.type_key = self.locate(target) if target is not None else None
                if impl.trait_segs is None:
                    impl.kind = "inherent"
                else:
                    target = self.absolute(module, impl.trait_segs) if impl.trait_segs else None
                    impl.trait_key = self.locate(target) if target is not None else None
                    impl.kind = "local" if impl.trait_key is not None else "foreign"
                if impl.type_key is not None:
                    by_type.setdefault(impl.type_key, []).append(impl)
                if impl.kind == "foreign":
                    foreign_fns.update(n for n, kind in impl.items.items() if kind != "type")
                    continue
                for name, kind in impl.items.items():
                    if kind == "method":
                        by_method.setdefault(name, []).append(impl)
        self._impls = by_type, by_method, foreign_fns, declared
        return self._impls

    def named_keys(self, module):
        """The keys of the crate's items that `module` names: its own items, what its `use`
        declarations import (`use Trait as _` too), the items its paths start with or name,
        and the names its code takes from glob imports."""
        if module.path in self._named:
            return self._named[module.path]
        keys = {(module.path, name) for name in module.defs}
        for segs, _, _, binding in module.uses:
            target = self.absolute(module, segs) if binding is not None else None
            if target is not None:
                keys.add(self.locate(target))
        for segs, _ in module.paths:
            target = self.absolute(module, segs)
            if target is not None:
                keys.add(self._find(target)[1])  # `Device` for `Device::cuda` too
        for name in module.idents - set(module.bindings) - module.defs:
            for segs, _, _ in module.globs:
                target = self.absolute(module, segs)
                if target is not None and tuple(target) in self.modules:
                    if self.offers(self.modules[tuple(target)], name):
                        keys.add(self.locate(target + [name]))
        keys.discard(None)
        self._named[module.path] = keys
        return keys

    def impl_uses(self, module):
        """The uses of items defined in impl blocks by the code of `module`, as (file of the
        impl, line, what). See the module docs for the rules."""
        by_type, by_method, foreign_fns, declared = self.impl_index()

        def of_type(key, name, macro_made=True):
            """The impls of the type `key` that define `name`: the inherent ones, which
            Rust prefers, else those of this crate's traits (other crates' traits give none).
            When no impl of the type names it (and `macro_made`), the opaque inherent impls
            of a struct (`Device::cuda`, made by a macro in device.rs), if one file alone
            has any, and the name is no trait's."""
            impls = by_type.get(key, ())
            found = [i for i in impls if name in i.items]
            if found:
                inherent = [i for i in found if i.kind == "inherent"]
                return inherent or [i for i in found if i.kind == "local"]
            opaque = [i for i in impls if i.opaque and i.kind == "inherent"]
            if (macro_made and len({i.file for i in opaque}) == 1
                    and self.def_kind(key) in ("struct", "union")
                    and name not in STD_METHODS and name not in foreign_fns
                    and name not in declared):
                return opaque
            return []

        # `Type::name` and `path::to::Type::name`, `Self::name` in an impl block, and the
        # `$crate::Type::name` paths of the #[macro_export] macros the module invokes.
        paths = []
        for segs, line in module.paths:
            if segs[0] != "Self":
                target = self.absolute(module, segs[:-1])
                if target is not None:
                    paths.append((self.locate(target), segs[-1], line, "::".join(segs)))
        for name, line, impl in module.self_paths:
            paths.append((self._impl_type(impl), name, line, f"Self::{name}"))
        for segs, line in module.macro_calls:
            if self.invokes_exported(module, segs):
                for body, _ in self.macro_bodies.get(segs[-1], ()):
                    if len(body) > 1:
                        paths.append((self.locate(body[:-1]), body[-1], line,
                                      f"{segs[-1]}! ($crate::{'::'.join(body)})"))
        for key, name, line, what in paths:
            if key is not None:
                for impl in of_type(key, name):
                    yield impl.file, line, f"{what}, in {impl.title()}"

        # `.name(`: on `self` in an impl block, the self type's impls; on anything else,
        # one file's impls that define a method of that name (see the module docs).
        named = self.named_keys(module)
        for name, line, args, impl in module.method_calls:
            key = self._impl_type(impl) if impl is not None else None
            if key is not None and of_type(key, name, macro_made=False):
                for found in of_type(key, name, macro_made=False):
                    yield found.file, line, f"self.{name}(), in {found.title()}"
                continue
            if name in STD_METHODS or name in foreign_fns:
                continue
            impls = by_method.get(name, ())
            if len({i.file for i in impls}) != 1:
                continue  # no impl, or several files' impls: the receiver's type decides
            if any(i.arity[name] != args for i in impls):
                continue  # another type's method of that name (`ident.span()`, not `span(sym)`)
            if declared.get(name, set()) - {i.trait_key for i in impls}:
                continue  # also a method of another trait of the crate, whose impls may be
                # made by a derive or a macro (`TensorClass::dlpack_device`)
            for found in impls:
                # The receiver's type named in the file: the impl's self type, or for a
                # blanket impl of a trait (`impl<T: Bound> Trait for T`) the trait. A call
                # through a generic bound (`driver: &impl Driver`) names only the trait, and
                # stays a use of the trait's file, not of one implementor's.
                if (found.type_key or found.trait_key) in named:
                    yield found.file, line, f".{name}(), in {found.title()}"
                    break

    def def_kind(self, key):
        """The keyword defining the item `key` (`struct`, `enum`, `fn`, ...)."""
        return self.modules[key[0]].def_kinds.get(key[1])

    def _impl_type(self, impl):
        """The key of the self type of an impl block (resolving the crate's impls first)."""
        self.impl_index()
        return impl.type_key

    def invokes_exported(self, module, segs):
        """Whether `segs!` in `module` invokes one of the crate's #[macro_export] macros."""
        name = segs[-1]
        if name not in self.macros:
            return False  # another crate's macro, or a local macro_rules!
        if len(segs) > 1:  # `crate::name!`: the crate's macro only if it resolves to it
            target = self.absolute(module, segs)
            return target is not None and self.resolve(target) == self.macros[name]
        return True

    def deps(self):
        """file -> {file it uses: (line, what) of its first use}. The uses whose first is of
        an item of an impl block are also in self.impl_edges: {(file, file it uses)}."""
        graph = {f: {} for f in self.files}
        self.impl_edges = set()
        for module in self.modules.values():
            out = graph[module.file]

            def add(target, line, what, via_impl=False):
                if target is not None and target != module.file and target in self.files:
                    if target not in out and via_impl:
                        self.impl_edges.add((module.file, target))
                    out.setdefault(target, (line, what))

            for segs, line, is_pub, binding in module.uses:
                written = "::".join(segs) + ("::*" if binding is None else "")
                if is_pub and binding is not None and binding not in module.idents:
                    continue  # a re-export that the file's own code does not name
                if binding is None and is_pub:
                    continue
                target = self.absolute(module, segs)
                if target is None:
                    continue
                if binding is None:
                    glob = self.modules.get(tuple(target))
                    used = set()
                    if glob is not None:
                        for name in sorted(module.idents):
                            if self.offers(glob, name):
                                f = self.resolve(target + [name])
                                if f is not None:
                                    used.add(f)
                                    add(f, line, f"use {written} ({name})")
                    if not used:
                        add(self.resolve(target), line, f"use {written}")
                else:
                    add(self.resolve(target), line, f"use {written}")
            for segs, line in module.paths:
                target = self.absolute(module, segs)
                if target is not None:
                    add(self.resolve(target), line, "::".join(segs))
            for segs, line in module.macro_calls:
                name = segs[-1]
                if not self.invokes_exported(module, segs):
                    continue
                add(self.macros[name], line, f"{name}!")
                for body, _ in self.macro_bodies.get(name, ()):
                    add(self.resolve(body), line, f"{name}! ({'::'.join(['$crate'] + body)})")
            for target, line, what in self.impl_uses(module):
                add(target, line, what, via_impl=True)
        return graph

    def layer_maps(self):
        """(file, [(where, [names of a line]), ...], where) for each module file with a map,
        in its inner docs or in CONTRIBUTING.md (see contributing_layer_blocks); `where` is
        `file:line` of the map's block or of one of its lines. Problems with the maps
        themselves (a block not closed, two maps for a file, a map naming no module file of
        the crate) are in self.map_errors."""
        if self._maps is not None:
            return self._maps
        maps, errors = {}, []
        for file, docs in sorted(self.docs.items()):
            blocks, k = [], 0
            while k < len(docs):
                line, text = docs[k]
                if text.strip() == "```text" and k + 1 < len(docs):
                    first = docs[k + 1][1].split()
                    if first and first[0] == "layers":
                        rows, j = [], k + 2
                        while j < len(docs) and docs[j][1].strip() != "```":
                            rows.append((f"{file}:{docs[j][0]}", docs[j][1].split()))
                            j += 1
                        if j == len(docs):
                            errors.append(f"{file}:{line}: the layers block is not closed")
                        blocks.append((line, [r for r in rows if r[1]]))
                        k = j
                k += 1
            if len(blocks) > 1:
                errors.append(f"{file}:{blocks[1][0]}: a second layers block (one per file)")
            if blocks:
                maps[file] = (file, blocks[0][1], f"{file}:{blocks[0][0]}")
        if self.contributing is not None:
            md = os.path.relpath(self.contributing)
            with open(self.contributing, encoding="utf-8") as f:
                blocks, block_errors = contributing_layer_blocks(f.read())
            errors += [f"{md}:{e}" for e in block_errors]
            here = os.path.abspath(self.root)
            for line, path, rows in blocks:
                full = os.path.normpath(os.path.join(os.path.dirname(self.contributing), path))
                file = os.path.relpath(full, here)
                if file == os.pardir or file.startswith(os.pardir + os.sep):
                    # Another crate's map, unless it names no file at all.
                    if not os.path.isfile(full):
                        errors.append(f"{md}:{line}: layers of {path}: no such file")
                    continue
                if not os.path.isfile(full):
                    errors.append(f"{md}:{line}: layers of {path}: no such file")
                elif file not in self.files:
                    errors.append(f"{md}:{line}: layers of {path}: not a module file of the "
                                  "crate (no `mod` names it, or it is test code)")
                elif file in maps:
                    errors.append(f"{md}:{line}: layers of {path}: {file} has a map already "
                                  f"({maps[file][2]}); keep one")
                else:
                    maps[file] = (file, [(f"{md}:{n}", names) for n, names in rows],
                                  f"{md}:{line}")
        self._maps = [maps[f] for f in sorted(maps)]
        self.map_errors = errors
        return self._maps

    def check_layers(self, graph):
        """The problems with the layer maps, and the uses in `graph` that break one."""
        errors = []
        for file, rows, at in self.layer_maps():
            module = self.files[file]
            # A test module with a file is a child like any other, though its uses are not
            # checked (test code is not in the graph); one written inline belongs to the file.
            declared = {n for n, c in module.children.items() if not c.inline}
            declared |= {n for n, inline in module.test_children.items() if not inline}
            inline = {n for n, c in module.children.items() if c.inline}
            inline |= {n for n, inline in module.test_children.items() if inline}
            # A map in the file's own docs says `layers`; one elsewhere names the file.
            label = "layers" if at.startswith(file + ":") else f"layers of {file}"
            level = {}
            for row, (where, names) in enumerate(rows):
                for name in names:
                    if name in level:
                        errors.append(f"{where}: {label}: `{name}` is listed twice")
                    elif name in inline:
                        errors.append(
                            f"{where}: {label}: `{name}` is written inline in {file}, "
                            "so it belongs to the file: leave it out")
                    elif name not in declared:
                        known = ", ".join(sorted(declared)) or "none"
                        errors.append(
                            f"{where}: {label}: `{name}` is not a child module of {file} "
                            f"(its children: {known})")
                    else:
                        level[name] = (row, where)
            for name in sorted(declared - set(level)):
                errors.append(f"{at}: {label}: child module `{name}` is missing from the map")
            depth = len(module.path)
            for a, uses in sorted(graph.items()):
                pa = self.files[a].path
                if len(pa) <= depth or pa[:depth] != module.path or pa[depth] not in level:
                    continue
                for b, (line, what) in sorted(uses.items()):
                    pb = self.files[b].path
                    if len(pb) <= depth or pb[:depth] != module.path or pb[depth] not in level:
                        continue
                    ca, cb = pa[depth], pb[depth]
                    if ca == cb:
                        continue
                    (ra, _), (rb, _) = level[ca], level[cb]
                    if rb > ra:
                        continue
                    how = "on the same line as" if rb == ra else "above"
                    source = "" if label == "layers" else f" (its map: {at})"
                    errors.append(
                        f"{a}:{line}: layers of {file}{source}: `{ca}` uses `{cb}` ({what}, in "
                        f"{b}), which is {how} it; a module may use only modules on lines below "
                        "its own")
        return self.map_errors + errors



def _call_arguments(tokens, k, end):
    """How many arguments the name at `k` is called with (`name(a, b)`, `name::<T>()`); None
    when it is not called (a field)."""
    j = k + 1
    if j + 1 < end and tokens[j].text == "::" and tokens[j + 1].text == "<":
        j = _angle_close(tokens, j + 1, end) + 1
    if j >= end or tokens[j].text != "(":
        return None
    return _count_list(tokens, j, matching(tokens, j), angles=False)


def _crate_paths(tokens, i, end):
    """The `$crate::a::b` paths in tokens[i:end], as segments from the crate root."""
    out = []
    for k in range(i, end - 2):
        if tokens[k].text == "$" and tokens[k + 1].text == "crate":
            segs, j = [], k + 2
            while j + 1 < end and tokens[j].text == "::" and tokens[j + 1].kind == "ident":
                segs.append(tokens[j + 1].text)
                j += 2
            if segs:
                out.append((segs, tokens[k].line))
    return out


def _visibility_before(tokens, i):
    """Whether the `use` at `i` is preceded by a visibility (`pub`, `pub(crate)`, ...)."""
    j = i - 1
    if j >= 0 and tokens[j].text == ")":
        depth = 0
        while j >= 0:
            if tokens[j].text == ")":
                depth += 1
            elif tokens[j].text == "(":
                depth -= 1
                if depth == 0:
                    break
            j -= 1
        j -= 1
    return j >= 0 and tokens[j].kind == "ident" and tokens[j].text == "pub"


def expand_use(tokens):
    """The leaves of a use tree: `a::{b, c::{d, e as f}, self, g::*}` ->
    [(['a','b'],'b'), (['a','c','d'],'d'), (['a','c','e'],'f'), (['a'],'a'), (['a','g'],None)].
    A path starting with `::` (another crate) is returned with its first segment `::`."""
    out = []

    def tree(i, prefix):
        segs = list(prefix)
        if i < len(tokens) and tokens[i].text == "::":
            if not segs:
                segs.append("::")
            i += 1
        while i < len(tokens):
            t = tokens[i]
            if t.text == "{":
                i += 1
                while i < len(tokens) and tokens[i].text != "}":
                    i = tree(i, segs)
                    if i < len(tokens) and tokens[i].text == ",":
                        i += 1
                return i + 1
            if t.text == "*":
                out.append((segs, None))
                return i + 1
            if t.kind == "ident":
                if t.text == "self" and segs and segs != ["::"]:
                    name = segs[-1]
                    i += 1
                    if i + 1 < len(tokens) and tokens[i].text == "as":
                        name = tokens[i + 1].text
                        i += 2
                    out.append((segs, name))
                    return i
                segs = segs + [t.text]
                i += 1
                if i < len(tokens) and tokens[i].text == "::":
                    i += 1
                    continue
                name = t.text
                if i + 1 < len(tokens) and tokens[i].text == "as":
                    name = tokens[i + 1].text
                    i += 2
                out.append((segs, name))
                return i
            return i + 1

    tree(0, [])
    return [(s, b) for s, b in out if s and s[0] != "::"]


def cycles(graph):
    """Strongly connected components with more than one file (Tarjan, iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            pushed = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    pushed = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if pushed:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def circles(graph, comp):
    """The shortest circle through each file of a strongly connected component, each once:
    what to cut, where a component of many files lists too many uses to read."""
    inside, found = set(comp), []
    for start in sorted(comp):
        back, queue, path = {start: None}, [start], None
        while queue and path is None:
            nxt = []
            for v in queue:
                for w in sorted(graph[v]):
                    if w == start:
                        path = [v]
                        while back[path[-1]] is not None:
                            path.append(back[path[-1]])
                        path.reverse()
                        break
                    if w in inside and w not in back:
                        back[w] = v
                        nxt.append(w)
                if path is not None:
                    break
            queue = nxt
        turn = path.index(min(path))
        circle = path[turn:] + path[:turn]
        if circle not in found:
            found.append(circle)
    return found


def check(root, show_graph=False, out=None, contributing=None):
    """Checks one crate; returns the number of problems found. `contributing`: as for
    Crate."""
    out = out or sys.stdout
    crate = Crate(root, contributing)
    graph = crate.deps()
    if show_graph:
        # A use whose first is of an item of an impl block says which item and where.
        for f in sorted(graph):
            uses = []
            for g in sorted(graph[f]):
                line, what = graph[f][g]
                impl = (f, g) in crate.impl_edges
                uses.append(f"{g} [impl: {what}, line {line}]" if impl else g)
            print(f"{f}: {', '.join(uses)}", file=out)
    problems = list(crate.errors)
    for e in problems:
        print(f"ERROR: {e}", file=out)
    found = cycles(graph)
    for c in found:
        print("CYCLE: " + " <-> ".join(c), file=out)
        for circle in circles(graph, c):
            print("  circle: " + " -> ".join(circle + circle[:1]), file=out)
        for f in c:
            for g in sorted(d for d in graph[f] if d in c):
                line, what = graph[f][g]
                print(f"    {f}:{line} uses {g} ({what})", file=out)
    layer_errors = crate.check_layers(graph)
    for e in layer_errors:
        print(f"LAYERS: {e}", file=out)
    maps = [f if at.startswith(f + ":") else f"{f} in {at.rsplit(':', 1)[0]}"
            for f, _, at in crate.layer_maps()]
    for f in crate.not_modules:
        print(f"note: {f} is not a module of the crate (no `mod` names it), not checked", file=out)
    print(
        f"{root}: {len(graph)} files, {len(found)} import cycle(s), "
        f"{len(layer_errors)} layer error(s) in {len(maps)} layer map(s)"
        + (f" ({', '.join(maps)})" if maps else ""),
        file=out,
    )
    return len(problems) + len(found) + len(layer_errors)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    if not args:
        print(__doc__.strip().split("\n\n")[0], file=sys.stderr)
        return 2
    bad = 0
    for root in args:
        bad += check(root, show_graph="--graph" in argv)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
