#!/usr/bin/env python3
"""Fails unless every public item of dlpack_core has a doc example (a ``` block).

The issue's done-when asks that the crate docs show each public item with an example that
runs as a doctest; `cargo test --doc` runs them, this checks none is missing. It walks the
rustdoc JSON of the public API from the crate root, so items reachable only through a private
module, or hidden with #[doc(hidden)], are not part of it.

What needs an example:

- modules, structs, enums, unions, traits, functions, constants, statics, type aliases and
  macros; the methods, associated constants and types of our traits; the public methods and
  associated constants of inherent impls. Fields and variants are not items that need one:
  their type's example shows them.
- impls of this crate's own traits, each one (the example on the impl or on one of its items,
  which rustdoc shows in the same block): the trait page lists them as implementors, and
  a reader picks one there (`Vec<T>: ToDlpackTensor`, `ndarray::Array: TensorOwner`).
- impls of the standard-library traits in STD_TRAITS_WITH_EXAMPLES: conversions (From,
  TryFrom, FromStr), Display, Error, a hand-written Default, iteration and operators. They
  carry behaviour of ours that a reader must know: what converts and what fails, what a value
  prints as, which element an iterator yields, what `a | b` means.
- re-exports of items from other crates (`pub use pyo3;` included): the example sits on the
  re-export, or, for a re-export with #[doc(inline)] of a crate of this workspace (the derives of dlpack-derive,
  whose attribute reference is written there), on the item in that crate's own rustdoc JSON,
  found next to this one (`target/doc/<crate>.json`). Build it first:

      cargo +nightly rustdoc -q -p dlpack-derive -- -Z unstable-options --output-format json

One example may cover a type and its trivial items: an inherent method taking only `self`
whose name the type's own example calls (`.shape(`), or an associated constant it names
(`::READ_ONLY`), needs no example of its own. Anything taking arguments needs its own.

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
  span of the attribute, our own macros give theirs the span of the macro body). A trait
  whose crate rustdoc does not record is judged by its name alone, erring towards asking.

Checking the checker: remove the example of a public fn, method, const, type or trait of
ours, or of one impl of `Display`/`From`/an own trait, and this fails naming that item.

Usage (needs the nightly toolchain for rustdoc's JSON output; `cargo doc` deletes the JSON
files in target/doc, so build them after it):

    cargo +nightly rustdoc -q -p dlpack-derive -- -Z unstable-options --output-format json
    cargo +nightly rustdoc -q -p dlpack-core --all-features -- -Z unstable-options --output-format json
    python3 .ci/check-doc-examples.py target/doc/dlpack_core.json
"""
import json
import os
import sys

STD_CRATES = {"core", "alloc", "std"}

STD_TRAITS_WITH_EXAMPLES = {
    # conversions, formatting, errors
    "From", "TryFrom", "FromStr", "Display", "Error", "Default",
    # iteration (FusedIterator is a marker: it promises, it does nothing to show)
    "Iterator", "DoubleEndedIterator", "ExactSizeIterator", "IntoIterator", "FromIterator",
    "Extend",
    # operators
    "Add", "Sub", "Mul", "Div", "Rem", "Neg", "Not", "BitAnd", "BitOr", "BitXor", "Shl", "Shr",
    "AddAssign", "SubAssign", "MulAssign", "DivAssign", "RemAssign", "BitAndAssign",
    "BitOrAssign", "BitXorAssign", "ShlAssign", "ShrAssign", "Index", "IndexMut", "Deref",
    "DerefMut",
}


def has_example(item):
    return bool(item.get("docs")) and "```" in item["docs"]


def code_of(docs):
    """The text of the fenced code blocks of `docs`."""
    return "".join((docs or "").split("```")[1::2])


def covered_by_owner(owner, item):
    """Whether the example of the type that defines `item` shows it, for a trivial item: an
    accessor taking only `self` (used as `.name(` there) or an associated constant (named as
    `::NAME` there). The issue's rule: one example may cover a type and its trivial accessors."""
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

    def crate_of(self, item_id):
        """The name of the crate an id belongs to, or None when rustdoc does not say."""
        entry = self.paths.get(str(item_id))
        if entry is None:
            return None
        if entry["crate_id"] == 0:
            return self.paths[str(self.doc["root"])]["path"][0]
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


def impl_needs_example(crate, item, inner):
    """The rule above for trait impls: whether this one must carry an example."""
    if inner.get("is_synthetic") or inner.get("blanket_impl"):
        return False
    if any("automatically_derived" in str(attr) for attr in item.get("attrs", [])):
        return False
    trait = inner["trait"]
    owner = crate.crate_of(trait["id"])
    if owner == crate.crate_of(crate.doc["root"]):
        return True
    # A trait whose crate rustdoc does not record is judged by its name, to err on the side
    # of asking for an example.
    std = owner in STD_CRATES or owner is None
    return std and trait["path"].split("::")[-1] in STD_TRAITS_WITH_EXAMPLES


def main(path):
    crate = Crate(path)
    index = crate.index
    seen, have, missing = set(), [], []

    def kind(item):
        return next(iter(item["inner"]))

    counted = {}

    def record(item, what, owner=None):
        shown = has_example(item) or covered_by_owner(owner, item)
        (have if shown else missing).append(what)
        if not what.startswith("impl "):
            counted.setdefault(kind(item), set()).add(what)

    def walk(item_id, parent, in_trait=False, owner=None):
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
                for child in inner["items"]:
                    walk(child, name, in_trait=True)
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
            elif impl_needs_example(crate, item, inner):
                trait_name = trait["path"].split("::")[-1]
                args = (trait.get("args") or {}).get("angle_bracketed", {}).get("args", [])
                types = [type_name(a["type"]) for a in args if "type" in a]
                if types:
                    trait_name += f"<{', '.join(types)}>"
                what = f"impl {trait_name} for {type_name(inner['for'])} (in {parent})"
                methods = (index.get(str(c)) for c in inner["items"])
                if any(m is not None and has_example(m) for m in methods):
                    have.append(what)
                else:
                    record(item, what)
        else:
            record(item, name, owner)

    walk(crate.doc["root"], "")
    print(f"{len(have)} public items have a doc example, {len(missing)} do not")
    # The size of the public API, as the issues quote it: every public path a user can name
    # (modules, types, traits, functions, constants, macros, methods, associated items and
    # re-exports), without trait impls, fields and variants.
    total = sum(len(v) for v in counted.values())
    by_kind = ", ".join(f"{k} {len(v)}" for k, v in sorted(counted.items(), key=lambda kv: -len(kv[1])))
    print(f"public API: {total} items ({by_kind})")
    for what in missing:
        print(f"  missing: {what}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "target/doc/dlpack_core.json"))
