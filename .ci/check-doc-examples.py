#!/usr/bin/env python3
"""Fails unless every public item of dlpack_core that needs a doc example (a ``` block) has one.

The issue's done-when asks that the crate docs show each public item with an example that
runs as a doctest; `cargo test --doc` runs them, this checks none is missing. It walks the
rustdoc JSON of the public API from the crate root, so items reachable only through a private
module, or hidden with #[doc(hidden)], are not part of it.

What needs an example:

- modules, structs, enums, unions, traits, functions, constants, statics, type aliases and
  macros; the methods, associated constants and types of our traits; the public methods and
  associated constants of inherent impls, but for the three exemptions below. Fields and
  variants are not items that need one: their type's example shows them.
- impls of this crate's own traits, each one (the example on the impl or on one of its items,
  which rustdoc shows in the same block): the trait page lists them as implementors, and
  a reader picks one there (`Vec<T>: ToDlpackTensor`, `ndarray::Array: TensorOwner`); but for
  the impls of sealed traits and of traits that document every implementor, below.
- impls of the standard-library traits in STD_TRAITS_WITH_EXAMPLES: FromStr, Display, Error,
  a hand-written Default, iteration and operators. They carry behaviour of ours that a reader
  must know: what a value prints as, what parses and what is refused (FromStr and Display are
  where the names live, so they keep their examples even where the type's example prints or
  parses a value), which element an iterator yields, what `a | b` means.
- re-exports of items from other crates (`pub use pyo3;` included): the example sits on the
  re-export, or, for a re-export with #[doc(inline)] of a crate of this workspace (the derives of dlpack-derive,
  whose attribute reference is written there), on the item in that crate's own rustdoc JSON,
  found next to this one (`target/doc/<crate>.json`). Build it first:

      cargo +nightly rustdoc -q -p dlpack-derive -- -Z unstable-options --output-format json

What needs no example of its own, though it may have one:

- accessors. An accessor is a public method of an inherent impl (`impl TensorMeta { .. }`)
  that meets all four of:
  1. its only input is its receiver, and that is `&self`, or `self` of a type that implements
     `Copy` (such a `self` reads the value as `&self` does). A `self` that consumes a value
     (`into_raw`, `into_view`) hands ownership over, and `&mut self` writes or lends for
     writing: both need an example.
  2. it is safe, and has no type or const parameters of its own (lifetimes are fine): a
     caller who picks a type (`as_slice::<T>`) needs to be shown how.
  3. it returns a value that is not `()`, not `impl Trait` (an iterator's order and items are
     behaviour) and not a `Result` (a return type whose last path segment ends in `Result`:
     `Result`, `PyResult`): what fails, and how, is behaviour.
  4. its docs are one paragraph: without a code block, they contain no blank line. What takes
     a second paragraph to tell takes an example to show.
  The same goes, as before, for what the type's own example shows: a method taking only
  `self` (any receiver) that it calls (`.shape(`), an associated constant it names
  (`::READ_ONLY`). And for what a trait's own example shows of the trait's items, by the same
  rule: an associated constant it names (`Both::COMPACT`), an associated type it names or
  binds (`::Output`, `Output = usize`), a method taking only `self` that it calls; a trait's
  page shows its items right below that example.
- impls of a sealed trait of ours: a trait with a supertrait of this crate that is not part of
  the public API (not reached from the crate root, as `tensor::require::sealed::Sealed` is
  not). No user implements it and none writes its items but through the types it marks, so
  the trait's docs and the implementing types' docs are the whole story; an example per impl
  would only assert what the impl's lines say (`Requirement for Owned`'s flags).
- impls of a trait of ours that documents every implementor: its docs link (an intra-doc link,
  rustdoc's `links`) to the self type of each of its impls that this rule set would check (not
  made up, blanket or derived), as `Input`'s docs link `TypeOnly`, `Slice`, .. each of which
  says what it hands the kernel. The list is closed on the trait's page, which says what each
  does; one implementor missing from the links (a new impl, a primitive or generic self type,
  which a link cannot name) and every impl of the trait needs its example again.
- impls of a trait of ours that is not part of the public API (hidden with #[doc(hidden)], or
  in a private module): rustdoc strips most of them; any left are not on a page a user reads.
- conversions: impls of the standard library's `From`, `TryFrom` and `Into`. Their signature
  says what converts to what, and a fallible one's docs say what it refuses; the types'
  examples show them in use. (`FromStr` is not among them: see above.)
- generated constants: the items that dlpack-core's `named!` (src/data_type/mod.rs),
  `constructor!` (src/device/mod.rs) and `named_values!` (src/ffi/code.rs) generate from
  dlpack-grammar's tables, one per row: for each row of `for_each_named_data_type!`, the
  associated constant `DataType::<NAME>`; for each row of `for_each_device_type!`, the
  `const fn` `Device::<ctor>` where the row's kind is `indexed <ctor>`, the associated
  constant `Device::<NAME>` otherwise, and `DLDeviceType::<NAME>`; for each row of
  `for_each_code!`, `DLDataTypeCode::<NAME>`. The script reads the rows from those three
  macros in dlpack-grammar/src (GENERATED below; the same rows the crate
  is built from), so the list is exact: only an item of that kind, of that type, with that
  name is exempt. Every line of a table's body must read as a row, and every row's item must
  be in the API, or the check fails naming it (the table's form or the macros changed: update
  GENERATED). Their docs are the row's one line; dlpack-core/tests/generated_constants.rs
  checks every one's value, Display and FromStr in one table test.

What is skipped, and why:

- impls that rustdoc makes up (auto traits: `is_synthetic`) and blanket impls (`impl<T>
  From<T> for T` shown on every type): nobody wrote them here.
- derived impls (`automatically_derived`): the derive's behaviour, not ours.
- impls of the other standard-library traits: Clone, Copy, Debug, PartialEq/Eq, Ord/
  PartialOrd, Hash, Send/Sync and the other markers (FusedIterator included), Drop, AsRef,
  Borrow. They are boilerplate or promises; where ours differ from the obvious (Device's
  PartialEq canonicalises ids, why a tensor is Send), the type's own docs say so and show it.
- impls of traits of other crates (pyo3's PyClassImpl, PyMethods, PyTypeInfo, PyClass,
  DerefToPyAny, PyClassNewTextSignature, IntoPyObject, FromPyObject, …): mostly the output of
  #[pyclass]/#[pymethods], which no user reads; a hand-written one is glue whose use the
  type's own example shows (`obj.extract::<DataTypeLike>()`). Recognising macro output by the
  trait it implements is exact; recognising it by its span is not (pyo3 gives its impls the
  span of the attribute, our own macros give theirs the span of their invocation). A trait
  whose crate rustdoc does not record is judged by its name alone, erring towards asking.

Checking the checker: remove the example of a public fn, of a method that is not an accessor,
of a const that is not a generated one, of a type or trait of ours, or of one impl of
`Display`/`FromStr`/an own trait that is public, not sealed and does not link every
implementor, and this fails naming that item.
.ci/tests/test_check_doc_examples.py shows it on a fabricated rustdoc JSON, with each
exemption above:

    python3 .ci/tests/test_check_doc_examples.py

Usage (needs the nightly toolchain for rustdoc's JSON output; `cargo doc` deletes the JSON
files in target/doc, so build them after it):

    cargo +nightly rustdoc -q -p dlpack-derive -- -Z unstable-options --output-format json
    cargo +nightly rustdoc -q -p dlpack-core --all-features -- -Z unstable-options --output-format json
    python3 .ci/check-doc-examples.py target/doc/dlpack_core.json [--grammar dlpack-grammar/src]
"""
import argparse
import json
import os
import re
import sys

STD_CRATES = {"core", "alloc", "std"}

STD_TRAITS_WITH_EXAMPLES = {
    # names, formatting, errors
    "FromStr", "Display", "Error", "Default",
    # iteration (FusedIterator is a marker: it promises, it does nothing to show)
    "Iterator", "DoubleEndedIterator", "ExactSizeIterator", "IntoIterator", "FromIterator",
    "Extend",
    # operators
    "Add", "Sub", "Mul", "Div", "Rem", "Neg", "Not", "BitAnd", "BitOr", "BitXor", "Shl", "Shr",
    "AddAssign", "SubAssign", "MulAssign", "DivAssign", "RemAssign", "BitAndAssign",
    "BitOrAssign", "BitXorAssign", "ShlAssign", "ShrAssign", "Index", "IndexMut", "Deref",
    "DerefMut",
}

# Conversions need no example of their own (the docstring's rule).
STD_CONVERSION_TRAITS = {"From", "TryFrom", "Into"}

HERE = os.path.dirname(os.path.abspath(__file__))
GRAMMAR_SRC = os.path.join(HERE, "..", "dlpack-grammar", "src")

# The generated constants: (the grammar's table macro, the type whose items dlpack-core
# generates from its rows, the form of a row, the item a row makes: (name, rustdoc kind)).
NAMED_ROW = re.compile(r'(?P<name>[A-Z][A-Z0-9_]*) = "(?P<str>[^"]*)", (?P<code>[A-Z][A-Z0-9_]*), (?P<bits>\d+);')
DEVICE_ROW = re.compile(
    r'(?P<name>[A-Z][A-Z0-9_]*) = (?P<value>\d+), "(?P<str>[^"]*)", "(?P<c_name>[^"]*)", '
    r'(?:indexed (?P<ctor>[a-z][a-z0-9_]*)|(?P<kind>host|plain));')
CODE_ROW = re.compile(
    r'(?P<name>[A-Z][A-Z0-9_]*) = (?P<value>\d+), "(?P<str>[^"]*)", "(?P<c_name>[^"]*)", '
    r'(?P<bits>[A-Za-z]+(?:\(\d+\))?);')
GENERATED = [
    ("for_each_named_data_type", "DataType", NAMED_ROW, lambda row: (row["name"], "assoc_const")),
    ("for_each_device_type", "Device", DEVICE_ROW,
     lambda row: (row["ctor"], "function") if row["ctor"] else (row["name"], "assoc_const")),
    # `named_values!` in src/ffi/code.rs: every row's code newtype value.
    ("for_each_code", "DLDataTypeCode", CODE_ROW, lambda row: (row["name"], "assoc_const")),
    ("for_each_device_type", "DLDeviceType", DEVICE_ROW, lambda row: (row["name"], "assoc_const")),
]


class TableError(Exception):
    pass


def macro_body(text, macro):
    """The rows of `macro_rules! <macro>`: the body of its `$callback! { .. }`, or None."""
    at = text.find(f"macro_rules! {macro} ")
    if at < 0:
        return None
    open_at = text.find("$callback! {", at)
    if open_at < 0:
        raise TableError(f"{macro}: no `$callback! {{` in its body")
    # The matching brace, braces in comments and string literals aside.
    depth, i, j = 0, text.index("{", open_at), text.index("{", open_at)
    while j < len(text):
        if text.startswith("//", j):
            j = text.find("\n", j)
            if j < 0:
                break
        elif text[j] == '"':
            j += 1
            while j < len(text) and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
        elif text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return text[i + 1:j]
        j += 1
    raise TableError(f"{macro}: unbalanced braces")


def generated_items(grammar_src):
    """{(type name, item name, rustdoc kind): "<macro> row N"} for every generated item, read
    from the table macros in the .rs files under `grammar_src`. Raises TableError when a macro
    is not found or a line of its body is not a row."""
    texts = []
    for folder, _, files in os.walk(grammar_src):
        for f in sorted(files):
            if f.endswith(".rs"):
                with open(os.path.join(folder, f), encoding="utf-8") as fh:
                    texts.append((os.path.join(folder, f), fh.read()))
    items = {}
    for macro, owner, pattern, item_of in GENERATED:
        bodies = [(path, macro_body(text, macro)) for path, text in texts]
        bodies = [(path, body) for path, body in bodies if body is not None]
        if len(bodies) != 1:
            raise TableError(f"macro_rules! {macro}: found {len(bodies)} times under {grammar_src}")
        path, body = bodies[0]
        rows = 0
        # A row may span lines; doc comments and blank lines sit between rows.
        pending = ""
        for line in body.splitlines():
            line = line.strip()
            if not line or line.startswith("//"):
                if pending:
                    raise TableError(f"{macro} ({path}): unreadable row {pending!r}")
                continue
            pending = f"{pending} {line}".strip()
            if not pending.endswith(";"):
                continue
            m = pattern.fullmatch(" ".join(pending.split()))
            if m is None:
                raise TableError(f"{macro} ({path}): unreadable row {pending!r}")
            rows += 1
            name, kind = item_of(m)
            items[(owner, name, kind)] = f"{macro} row {rows}"
            pending = ""
        if pending or rows == 0:
            raise TableError(f"{macro} ({path}): unreadable row {pending!r}" if pending else
                             f"{macro} ({path}): no rows")
    return items


def has_example(item):
    return bool(item.get("docs")) and "```" in item["docs"]


def kind_of(item):
    return next(iter(item["inner"]))


def is_copy(crate, owner):
    """Whether the type `owner` implements Copy (derived or written)."""
    kind = kind_of(owner)
    for impl_id in owner["inner"][kind].get("impls", []):
        impl = crate.index.get(str(impl_id))
        trait = impl and impl["inner"]["impl"].get("trait")
        if trait and trait["path"].split("::")[-1] == "Copy":
            return True
    return False


def not_an_accessor(crate, owner, item):
    """Why the method `item` of an inherent impl of `owner` is not an accessor (the
    docstring's four conditions), or None when it is one; "" for a function without `self`."""
    fn = item["inner"]["function"]
    inputs = fn["sig"]["inputs"]
    if not inputs or inputs[0][0] != "self":
        return ""
    if len(inputs) != 1:
        return "takes arguments"
    receiver = inputs[0][1]
    if "borrowed_ref" in receiver:
        if receiver["borrowed_ref"].get("is_mutable"):
            return "takes `&mut self`"
    elif receiver == {"generic": "Self"}:
        if not is_copy(crate, owner):
            return "consumes `self`"
    else:
        return "a receiver other than `&self`/`self`"
    if fn["header"].get("is_unsafe"):
        return "unsafe"
    if any("lifetime" not in p.get("kind", {}) for p in fn["generics"]["params"]):
        return "generic"
    output = fn["sig"]["output"]
    if output is None or output == {"tuple": []}:
        return "returns nothing"
    if "impl_trait" in output:
        return "returns `impl Trait`"
    if "resolved_path" in output and output["resolved_path"]["path"].split("::")[-1].endswith("Result"):
        return "returns a Result"
    if "\n\n" in (item.get("docs") or "").strip():
        return "docs of more than one paragraph"
    return None


def code_of(docs):
    """The text of the fenced code blocks of `docs`."""
    return "".join((docs or "").split("```")[1::2])


def covered_by_owner(owner, item):
    """Whether the example of the type or trait that defines `item` shows it, for a trivial
    item: an accessor taking only `self` (used as `.name(` there), an associated constant
    (named as `::NAME` there) or an associated type (`::Name`, or bound as `Name =`). The
    issue's rule: one example may cover a type and its trivial accessors."""
    if owner is None or not has_example(owner):
        return False
    code = code_of(owner.get("docs"))
    kind = next(iter(item["inner"]))
    name = item.get("name") or ""
    if kind == "function":
        inputs = item["inner"]["function"]["sig"]["inputs"]
        return len(inputs) == 1 and inputs[0][0] == "self" and f".{name}(" in code
    if kind == "assoc_const":
        return f"::{name}" in code
    if kind == "assoc_type":
        return re.search(rf"::{name}\b|\b{name} =", code) is not None
    return False


def type_name(ty):
    """A short readable name of a rustdoc JSON type, for messages."""
    if not isinstance(ty, dict):
        return "?"
    if "resolved_path" in ty:
        return ty["resolved_path"]["path"].split("::")[-1]
    if "generic" in ty:
        return ty["generic"]
    if "primitive" in ty:
        return ty["primitive"]
    if "slice" in ty:
        return f"[{type_name(ty['slice'])}]"
    if "borrowed_ref" in ty:
        return f"&{type_name(ty['borrowed_ref']['type'])}"
    if "array" in ty:
        return f"[{type_name(ty['array']['type'])}; {ty['array']['len']}]"
    if "tuple" in ty:
        return f"({', '.join(type_name(t) for t in ty['tuple'])})"
    return next(iter(ty), "?")


class Crate:
    def __init__(self, path):
        with open(path) as f:
            self.doc = json.load(f)
        self.index = self.doc["index"]
        self.paths = self.doc["paths"]
        self.external = self.doc["external_crates"]
        self.dir = os.path.dirname(path)
        self.name = self.paths[str(self.doc["root"])]["path"][0]

    def crate_of(self, item_id):
        """The name of the crate an id belongs to, or None when rustdoc does not say."""
        entry = self.paths.get(str(item_id))
        if entry is None:
            return None
        if entry["crate_id"] == 0:
            return self.name
        return self.external[str(entry["crate_id"])]["name"]

    def item_by_path(self, path):
        """The local item at `path` (a list of names, the crate's first), or None.

        Followed through the module tree: the ids in `paths` need not be those of `index`.
        """
        item = self.index.get(str(self.doc["root"]))
        for name in path[1:]:
            if item is None or "module" not in item["inner"]:
                return None
            children = (self.index.get(str(c)) for c in item["inner"]["module"]["items"])
            item = next((c for c in children if c is not None and c.get("name") == name), None)
        return item


def reexport_example(crate, use):
    """Whether the re-exported item of another crate has an example in its own crate's JSON.

    Returns True or False when that JSON is there, None when it is not.
    """
    entry = crate.paths.get(str(use.get("id")))
    if entry is None:
        return None
    other_path = os.path.join(crate.dir, f"{entry['path'][0]}.json")
    if not os.path.exists(other_path):
        return None
    target = Crate(other_path).item_by_path(entry["path"])
    return target is not None and has_example(target)


def written_here(item, inner):
    """Whether an impl was written by hand: not made up by rustdoc (auto traits, blanket impls
    shown on every type) nor derived."""
    if inner.get("is_synthetic") or inner.get("blanket_impl"):
        return False
    return not any("automatically_derived" in str(attr) for attr in item.get("attrs", []))


def self_type_id(inner):
    """The id of an impl's self type, when it is a path (a generic or primitive has none)."""
    return (inner["for"].get("resolved_path") or {}).get("id")


def own_trait_rule(crate, trait_id, public_traits):
    """The rules above for an impl of a trait of this crate: "needs", "hidden" (the trait is
    not public API), "sealed" or "documented" (its docs link every implementor)."""
    if trait_id not in public_traits:
        return "hidden"
    trait = crate.index[str(trait_id)]
    inner = trait["inner"]["trait"]
    for bound in inner.get("bounds", []):
        sup = (bound.get("trait_bound") or {}).get("trait")
        if sup and crate.crate_of(sup["id"]) == crate.name and sup["id"] not in public_traits:
            return "sealed"
    linked = set(trait.get("links", {}).values())
    impls = [crate.index.get(str(i)) for i in inner.get("implementations", [])]
    impls = [(i, i["inner"]["impl"]) for i in impls if i is not None]
    impls = [inner for i, inner in impls if written_here(i, inner)]
    if impls and all(self_type_id(i) in linked for i in impls):
        return "documented"
    return "needs"


def impl_rule(crate, item, inner, public_traits):
    """The rules above for a trait impl: "needs" (an example), "conversion" (exempt: From,
    TryFrom, Into), "sealed" or "documented" (exempt: see own_trait_rule) or "skip" (not ours
    to show, or not shown)."""
    if not written_here(item, inner):
        return "skip"
    trait = inner["trait"]
    owner = crate.crate_of(trait["id"])
    if owner == crate.name:
        rule = own_trait_rule(crate, trait["id"], public_traits)
        return "skip" if rule == "hidden" else rule
    # A trait whose crate rustdoc does not record is judged by its name, to err on the side
    # of asking for an example.
    std = owner in STD_CRATES or owner is None
    name = trait["path"].split("::")[-1]
    if std and name in STD_CONVERSION_TRAITS:
        return "conversion"
    return "needs" if std and name in STD_TRAITS_WITH_EXAMPLES else "skip"


def main(path, grammar_src=GRAMMAR_SRC, out=None):
    out = out or sys.stdout
    crate = Crate(path)
    index = crate.index
    try:
        generated = generated_items(grammar_src)
    except TableError as e:
        print(f"cannot read the generated constants from the grammar's tables: {e}", file=out)
        return 1
    generated_seen = set()
    seen, have, missing = set(), [], []
    exempt = {"accessors": [], "conversions": [], "generated constants": [],
              "impls of sealed traits": [], "impls their traits document": []}
    # The traits of ours a user can name, filled by the walk; trait impls wait in `impls` until
    # it is done, since whether a trait is public or sealed is known only then.
    public_traits, impls = set(), []
    kind = kind_of

    counted = {}

    def record(item, what, owner=None, trait=None):
        """`owner` is the type of an inherent impl's item, `trait` the trait of a trait's
        item, None for any other item."""
        if not what.startswith("impl "):
            counted.setdefault(kind(item), set()).add(what)
        if owner is not None and owner["crate_id"] == 0:
            key = (owner.get("name"), item.get("name"), kind(item))
            if key in generated:
                generated_seen.add(key)
                if not has_example(item):
                    exempt["generated constants"].append(what)
                    return
        if has_example(item) or covered_by_owner(owner or trait, item):
            have.append(what)
            return
        why = None
        if owner is not None and kind(item) == "function":
            why = not_an_accessor(crate, owner, item)
            if why is None:
                exempt["accessors"].append(what)
                return
        missing.append(f"{what} (not an accessor: {why})" if why else what)

    def walk(item_id, parent, in_trait=None, owner=None):
        """`in_trait` is the trait whose item `item_id` is, `owner` the type of an inherent
        impl's item."""
        if item_id in seen or str(item_id) not in index:
            return
        seen.add(item_id)
        item = index[str(item_id)]
        k = kind(item)
        inner = item["inner"][k]
        name = f"{parent}::{item.get('name')}" if parent else item.get("name")
        if item["visibility"] != "public" and k != "impl" and not in_trait:
            return
        if k == "module":
            record(item, name)
            for child in inner["items"]:
                walk(child, name)
        elif k == "use":
            target = index.get(str(inner.get("id")))
            if target is not None and target["crate_id"] == 0:
                if inner.get("is_glob") and kind(target) == "module":
                    for child in target["inner"]["module"]["items"]:
                        walk(child, parent)
                else:
                    walk(inner["id"], parent)
            elif has_example(item):
                have.append(f"{parent}::{inner['name']}")
                counted.setdefault("re-export", set()).add(f"{parent}::{inner['name']}")
            elif any("doc(inline)" in str(attr) for attr in item.get("attrs", [])):
                found = reexport_example(crate, inner)
                what = f"{parent}::{inner['name']} (re-export of {inner['source']}"
                if found is None:
                    what += f"; build the rustdoc JSON of {inner['source'].split('::')[0]} first)"
                else:
                    what += ")"
                (have if found else missing).append(what)
                counted.setdefault("re-export", set()).add(f"{parent}::{inner['name']}")
            else:
                missing.append(f"{parent}::{inner['name']} (re-export of {inner['source']})")
        elif k in ("struct", "enum", "trait", "union"):
            record(item, name)
            if k == "trait":
                public_traits.add(item_id)
                for child in inner["items"]:
                    walk(child, name, in_trait=item)
                for child in inner.get("implementations", []):
                    walk(child, name)
            for child in inner.get("impls", []):
                walk(child, name, owner=item)
        elif k == "impl":
            trait = inner.get("trait")
            if trait is None:
                if not inner.get("is_synthetic") and not inner.get("blanket_impl"):
                    for child in inner["items"]:
                        walk(child, parent, owner=owner)
            else:
                impls.append((item, inner, parent))
        else:
            record(item, name, owner, in_trait)

    def trait_impl(item, inner, parent):
        rule = impl_rule(crate, item, inner, public_traits)
        if rule == "skip":
            return
        trait = inner["trait"]
        trait_name = trait["path"].split("::")[-1]
        args = (trait.get("args") or {}).get("angle_bracketed", {}).get("args", [])
        types = [type_name(a["type"]) for a in args if "type" in a]
        if types:
            trait_name += f"<{', '.join(types)}>"
        what = f"impl {trait_name} for {type_name(inner['for'])} (in {parent})"
        methods = (index.get(str(c)) for c in inner["items"])
        exempt_as = {"conversion": "conversions", "sealed": "impls of sealed traits",
                     "documented": "impls their traits document"}.get(rule)
        if any(m is not None and has_example(m) for m in methods):
            have.append(what)
        elif exempt_as and not has_example(item):
            exempt[exempt_as].append(what)
        else:
            record(item, what)

    walk(crate.doc["root"], "")
    for item, inner, parent in impls:
        trait_impl(item, inner, parent)
    for owner, name, k in sorted(set(generated) - generated_seen):
        what = "const fn" if k == "function" else "associated constant"
        missing.append(f"{owner}::{name}: the {what} of {generated[(owner, name, k)]} is not in "
                       "the public API (the table's form or the macros changed: update GENERATED "
                       "in .ci/check-doc-examples.py)")
    print(f"{len(have)} public items have a doc example, {len(missing)} do not", file=out)
    print("needing none: " + ", ".join(f"{len(v)} {k}" for k, v in exempt.items()), file=out)
    # The size of the public API, as the issues quote it: every public path a user can name
    # (modules, types, traits, functions, constants, macros, methods, associated items and
    # re-exports), without trait impls, fields and variants.
    total = sum(len(v) for v in counted.values())
    by_kind = ", ".join(f"{k} {len(v)}" for k, v in sorted(counted.items(), key=lambda kv: -len(kv[1])))
    print(f"public API: {total} items ({by_kind})", file=out)
    for what in missing:
        print(f"  missing: {what}", file=out)
    return 1 if missing else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", nargs="?", default="target/doc/dlpack_core.json",
                        help="dlpack_core's rustdoc JSON")
    parser.add_argument("--grammar", default=GRAMMAR_SRC,
                        help="dlpack-grammar's sources, where the table macros are")
    args = parser.parse_args()
    sys.exit(main(args.json, args.grammar))
