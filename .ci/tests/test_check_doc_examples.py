#!/usr/bin/env python3
"""Tests of .ci/check-doc-examples.py on a fabricated rustdoc JSON: a minimal crate shaped like
rustdoc's output (the fields the checker reads), and a fabricated grammar table.

The baseline crate passes while holding one item of each exemption without an example (an
accessor, a `From` impl, generated constants); each test then takes one example away, or adds
one item, and checks that the run fails naming that item, or still passes.

    python3 .ci/tests/test_check_doc_examples.py
"""
import importlib.util
import io
import json
import os
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))

_spec = importlib.util.spec_from_file_location(
    "check_doc_examples", os.path.join(HERE, "..", "check-doc-examples.py"))
cde = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cde)

EXAMPLE = "Does a thing.\n\n```\nassert!(true);\n```"

TABLES = '''
#[macro_export]
macro_rules! for_each_device_type {
    ($callback:ident) => {
        $callback! {
            /// host memory
            CPU = 1, "cpu", "kDLCPU", host;
            /// memory on a CUDA GPU
            CUDA = 2, "cuda", "kDLCUDA", indexed cuda;
        }
    };
}

#[macro_export]
macro_rules! for_each_code {
    ($callback:ident) => {
        $callback! {
            /// `kDLFloat`: IEEE 754 binary floating point.
            FLOAT = 2, "float", "kDLFloat", Any;
            /// `kDLBool`: boolean.
            BOOL = 6, "bool", "kDLBool", Fixed(8);
        }
    };
}

#[macro_export]
macro_rules! for_each_named_data_type {
    ($callback:ident) => {
        $callback! {
            /// `float32`.
            F32 = "float32", FLOAT, 32;
        }
    };
}
'''

REF_SELF = ["self", {"borrowed_ref": {"lifetime": None, "is_mutable": False, "type": {"generic": "Self"}}}]
MUT_SELF = ["self", {"borrowed_ref": {"lifetime": None, "is_mutable": True, "type": {"generic": "Self"}}}]
SELF = ["self", {"generic": "Self"}]
U8 = {"primitive": "u8"}


class Fake:
    """A rustdoc JSON crate under construction: `dlpack_core` with types `DataType` (Copy) and
    `Device` (not Copy), the std traits From, TryFrom, Display, FromStr, Copy and a trait of
    its own, `OwnTrait`."""

    def __init__(self):
        self.index, self.paths, self.next_id = {}, {}, 0
        self.root = self.item("dlpack_core", {"module": {"is_crate": True, "items": [], "is_stripped": False}},
                              docs="The crate.\n\n```\n```", path=["dlpack_core"])
        self.std = {}
        for i, (trait, module) in enumerate([("From", "convert"), ("TryFrom", "convert"), ("Into", "convert"),
                                             ("Display", "fmt"), ("FromStr", "str"), ("Copy", "marker"),
                                             ("Clone", "clone")]):
            tid = 10_000 + i
            self.paths[str(tid)] = {"crate_id": 1, "path": ["core", module, trait], "kind": "trait"}
            self.std[trait] = tid
        self.types, self.inherent = {}, {}
        for name in ("DataType", "Device", "DLDataTypeCode", "DLDeviceType"):
            self.types[name] = self.item(name, {"struct": {"kind": {"plain": {"fields": [], "has_stripped_fields": False}},
                                                           "generics": {"params": [], "where_predicates": []},
                                                           "impls": []}},
                                         docs=f"A {name}.\n\n```\nlet _ = 1;\n```",
                                         path=["dlpack_core", name])
            self.add_to_root(self.types[name])
            self.inherent[name] = self.impl(name, None)
        self.own_trait = self.item("OwnTrait", {"trait": {"is_auto": False, "is_unsafe": False, "is_dyn_compatible": True,
                                                          "items": [], "generics": {"params": [], "where_predicates": []},
                                                          "bounds": [], "implementations": []}},
                                   docs=EXAMPLE, path=["dlpack_core", "OwnTrait"])
        self.add_to_root(self.own_trait)
        self.impl("DataType", self.std["Copy"], derived=True)

    def trait(self, name, supertraits=(), links=(), public=True):
        """A trait of ours: with `supertraits` (ids), its docs linking the types named in
        `links`, reached from the crate root when `public` (a private module's otherwise, as a
        sealing trait is)."""
        bounds = [{"trait_bound": {"trait": {"path": self.index[str(t)]["name"], "id": t, "args": None},
                                   "generic_params": [], "modifier": "none"}} for t in supertraits]
        trait_id = self.item(name, {"trait": {"is_auto": False, "is_unsafe": False, "is_dyn_compatible": True,
                                              "items": [], "generics": {"params": [], "where_predicates": []},
                                              "bounds": bounds, "implementations": []}},
                             docs=EXAMPLE, path=["dlpack_core"] + ([] if public else ["private"]) + [name])
        self.index[str(trait_id)]["links"] = {f"`{t}`": self.types[t] for t in links}
        if public:
            self.add_to_root(trait_id)
        return trait_id

    def item(self, name, inner, docs=None, path=None, visibility="public", attrs=()):
        item_id = self.next_id
        self.next_id += 1
        self.index[str(item_id)] = {"id": item_id, "crate_id": 0, "name": name, "visibility": visibility,
                                    "docs": docs, "links": {}, "attrs": list(attrs), "deprecation": None,
                                    "inner": inner}
        if path:
            self.paths[str(item_id)] = {"crate_id": 0, "path": path, "kind": next(iter(inner))}
        return item_id

    def add_to_root(self, item_id):
        self.index[str(self.root)]["inner"]["module"]["items"].append(item_id)

    def impl(self, type_name, trait_id, docs=None, derived=False, own=False):
        """An impl for `type_name`: inherent (trait_id None), of a std trait, or of a trait of
        ours (`own`: OwnTrait, or the trait `trait_id`)."""
        if own:
            trait_id = self.own_trait if trait_id is None else trait_id
            trait = {"path": self.index[str(trait_id)]["name"], "id": trait_id, "args": None}
        elif trait_id is not None:
            trait = {"path": self.paths[str(trait_id)]["path"][-1], "id": trait_id,
                     "args": {"angle_bracketed": {"args": [{"type": U8}], "constraints": []}}}
        else:
            trait = None
        attrs = ["#[automatically_derived]"] if derived else []
        impl_id = self.item(None, {"impl": {"is_unsafe": False, "generics": {"params": [], "where_predicates": []},
                                            "provided_trait_methods": [], "trait": trait,
                                            "for": {"resolved_path": {"path": type_name, "id": self.types[type_name],
                                                                      "args": None}},
                                            "items": [], "is_negative": False, "is_synthetic": False,
                                            "blanket_impl": None}},
                            docs=docs, visibility="default", attrs=attrs)
        self.index[str(self.types[type_name])]["inner"]["struct"]["impls"].append(impl_id)
        if own:
            self.index[str(trait_id)]["inner"]["trait"]["implementations"].append(impl_id)
        return impl_id

    def method(self, impl_id, name, inputs, output, docs=None, unsafe=False, generics=()):
        item_id = self.item(name, {"function": {"sig": {"inputs": inputs, "output": output, "is_c_variadic": False},
                                                "generics": {"params": list(generics), "where_predicates": []},
                                                "header": {"is_const": True, "is_unsafe": unsafe, "is_async": False,
                                                           "abi": "Rust"},
                                                "has_body": True}},
                            docs=docs, visibility="public" if self.index[str(impl_id)]["inner"]["impl"]["trait"] is None
                            else "default")
        self.index[str(impl_id)]["inner"]["impl"]["items"].append(item_id)
        return item_id

    def assoc_const(self, impl_id, name, docs=None):
        item_id = self.item(name, {"assoc_const": {"type": {"generic": "Self"}, "value": "_"}}, docs=docs)
        self.index[str(impl_id)]["inner"]["impl"]["items"].append(item_id)
        return item_id

    def trait_item(self, trait_id, name, kind, docs=None):
        """An associated constant or type (`kind`: "assoc_const", "assoc_type") of a trait."""
        inner = {"assoc_const": {"type": U8, "value": None}} if kind == "assoc_const" else \
            {"assoc_type": {"generics": {"params": [], "where_predicates": []}, "bounds": [], "type": None}}
        item_id = self.item(name, inner, docs=docs, visibility="default")
        self.index[str(trait_id)]["inner"]["trait"]["items"].append(item_id)
        return item_id

    def function(self, name, docs=None):
        item_id = self.item(name, {"function": {"sig": {"inputs": [["x", U8]], "output": U8, "is_c_variadic": False},
                                                "generics": {"params": [], "where_predicates": []},
                                                "header": {"is_const": False, "is_unsafe": False, "is_async": False,
                                                           "abi": "Rust"},
                                                "has_body": True}},
                            docs=docs, path=["dlpack_core", name])
        self.add_to_root(item_id)
        return item_id

    def drop_example(self, item_id):
        self.index[str(item_id)]["docs"] = "No example here."

    def json(self):
        return {"root": self.root, "crate_version": "0.1.0", "includes_private": False, "index": self.index,
                "paths": self.paths, "external_crates": {"1": {"name": "core", "html_root_url": None}},
                "format_version": 57}


def baseline():
    """Passes: every item that needs an example has one; one of each exemption has none."""
    f = Fake()
    f.function("documented", docs=EXAMPLE)
    data_type, device = f.inherent["DataType"], f.inherent["Device"]
    f.method(data_type, "new", [["code", U8], ["bits", U8]], {"generic": "Self"}, docs=EXAMPLE)
    # Accessors, no example: `&self`, and `self` of a Copy type.
    f.method(data_type, "bits", [REF_SELF], U8, docs="Bits of one lane.")
    f.method(data_type, "is_float", [SELF], {"primitive": "bool"}, docs="Whether it is a float.")
    # Generated constants, no example.
    f.assoc_const(data_type, "F32", docs="`float32`.")
    f.assoc_const(device, "CPU", docs="`cpu`: host memory.")
    f.method(device, "cuda", [["id", {"primitive": "i32"}]], {"generic": "Self"}, docs="`cuda:id`: a GPU.")
    for code in ("FLOAT", "BOOL"):
        f.assoc_const(f.inherent["DLDataTypeCode"], code, docs="A code.")
    for device_type in ("CPU", "CUDA"):
        f.assoc_const(f.inherent["DLDeviceType"], device_type, docs="A device type.")
    # An associated constant that the type's example names is covered by it.
    f.index[str(f.types["Device"])]["docs"] = "A Device.\n\n```\nlet _ = Device::CPU;\nlet _ = Device::OTHER;\n```"
    f.assoc_const(device, "OTHER", docs="Another.")
    # Conversions, no example.
    f.method(f.impl("DataType", f.std["From"]), "from", [["value", U8]], {"generic": "Self"}, docs="From a code.")
    f.method(f.impl("DataType", f.std["TryFrom"]), "try_from", [["value", U8]], {"generic": "Self"})
    # The names keep their examples.
    f.method(f.impl("DataType", f.std["Display"], docs=EXAMPLE), "fmt", [REF_SELF], None)
    f.method(f.impl("DataType", f.std["FromStr"]), "from_str", [["s", {"primitive": "str"}]], None, docs=EXAMPLE)
    f.method(f.impl("DataType", None, own=True), "own", [REF_SELF], U8, docs=EXAMPLE)
    return f


def run(fake, tables=TABLES):
    """(exit status, output) of the checker on `fake`'s JSON and `tables` as the grammar."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "dlpack_core.json")
        with open(path, "w") as fh:
            json.dump(fake.json(), fh)
        grammar = os.path.join(tmp, "grammar")
        os.mkdir(grammar)
        with open(os.path.join(grammar, "tables.rs"), "w") as fh:
            fh.write(tables)
        out = io.StringIO()
        status = cde.main(path, grammar, out=out)
        return status, out.getvalue()


def missing(output):
    return [line.split("missing: ", 1)[1] for line in output.splitlines() if "missing: " in line]


class Baseline(unittest.TestCase):
    def test_passes_with_each_exemption(self):
        status, out = run(baseline())
        self.assertEqual(status, 0, out)
        self.assertIn("needing none: 2 accessors, 2 conversions, 7 generated constants, "
                      "0 impls of sealed traits, 0 impls their traits document", out)


class NeedsAnExample(unittest.TestCase):
    """The self-test claim of the checker's docstring."""

    def fails_naming(self, fake, name):
        status, out = run(fake)
        self.assertEqual(status, 1, out)
        self.assertTrue(any(line.startswith(name) for line in missing(out)), out)
        self.assertEqual(len(missing(out)), 1, out)
        return missing(out)[0]

    def test_a_fn_without_example(self):
        f = baseline()
        f.drop_example(f.function("undocumented", docs=EXAMPLE))
        self.fails_naming(f, "dlpack_core::undocumented")

    def test_a_method_with_arguments(self):
        f = baseline()
        f.method(f.inherent["DataType"], "with_lanes", [SELF, ["lanes", U8]], {"generic": "Self"}, docs="One.")
        self.assertIn("takes arguments", self.fails_naming(f, "dlpack_core::DataType::with_lanes"))

    def test_a_fallible_method(self):
        f = baseline()
        result = {"resolved_path": {"path": "PyResult", "id": 99_999, "args": None}}
        f.method(f.inherent["DataType"], "check", [REF_SELF], result, docs="Whether it is valid.")
        self.assertIn("returns a Result", self.fails_naming(f, "dlpack_core::DataType::check"))

    def test_a_method_taking_mut_self(self):
        f = baseline()
        f.method(f.inherent["DataType"], "bytes_mut", [MUT_SELF], U8, docs="To write.")
        self.assertIn("&mut self", self.fails_naming(f, "dlpack_core::DataType::bytes_mut"))

    def test_a_method_consuming_a_value_that_is_not_copy(self):
        f = baseline()
        f.method(f.inherent["Device"], "into_raw", [SELF], U8, docs="Hands it over.")
        self.assertIn("consumes", self.fails_naming(f, "dlpack_core::Device::into_raw"))

    def test_a_method_whose_docs_take_two_paragraphs(self):
        f = baseline()
        f.method(f.inherent["DataType"], "itemsize", [REF_SELF], U8, docs="Bytes.\n\nBut sub-byte types…")
        self.assertIn("one paragraph", self.fails_naming(f, "dlpack_core::DataType::itemsize"))

    def test_a_generic_method(self):
        f = baseline()
        f.method(f.inherent["DataType"], "as_slice", [REF_SELF], U8, docs="The elements.",
                 generics=[{"name": "T", "kind": {"type": {"bounds": [], "default": None, "is_synthetic": False}}}])
        self.assertIn("generic", self.fails_naming(f, "dlpack_core::DataType::as_slice"))

    def test_a_method_with_a_lifetime_only_is_an_accessor(self):
        f = baseline()
        f.method(f.inherent["DataType"], "shape", [REF_SELF], U8, docs="The shape.",
                 generics=[{"name": "'a", "kind": {"lifetime": {"outlives": []}}}])
        status, out = run(f)
        self.assertEqual(status, 0, out)

    def test_an_unsafe_method(self):
        f = baseline()
        f.method(f.inherent["DataType"], "raw", [REF_SELF], U8, docs="Raw.", unsafe=True)
        self.assertIn("unsafe", self.fails_naming(f, "dlpack_core::DataType::raw"))

    def test_a_method_returning_an_iterator(self):
        f = baseline()
        f.method(f.inherent["DataType"], "iter", [REF_SELF], {"impl_trait": []}, docs="Each.")
        self.assertIn("impl Trait", self.fails_naming(f, "dlpack_core::DataType::iter"))

    def test_a_method_returning_nothing(self):
        f = baseline()
        f.method(f.inherent["DataType"], "touch", [REF_SELF], None, docs="Touches.")
        self.assertIn("returns nothing", self.fails_naming(f, "dlpack_core::DataType::touch"))

    def test_a_const_that_is_not_generated(self):
        f = baseline()
        f.assoc_const(f.inherent["DataType"], "BOGUS", docs="Not in the table.")
        self.fails_naming(f, "dlpack_core::DataType::BOGUS")

    def test_a_generated_name_of_the_wrong_kind(self):
        # The table makes `Device::cuda` a const fn; an associated constant `CUDA` of Device is
        # not generated and is not exempt.
        f = baseline()
        f.assoc_const(f.inherent["Device"], "CUDA", docs="`cuda`.")
        self.fails_naming(f, "dlpack_core::Device::CUDA")

    def test_a_display_impl(self):
        f = baseline()
        f.method(f.impl("Device", f.std["Display"]), "fmt", [REF_SELF], None, docs="Prints.")
        self.fails_naming(f, "impl Display<u8> for Device")

    def test_a_fromstr_impl(self):
        f = baseline()
        f.method(f.impl("Device", f.std["FromStr"]), "from_str", [["s", U8]], None, docs="Parses.")
        self.fails_naming(f, "impl FromStr<u8> for Device")

    def test_an_impl_of_our_own_trait(self):
        f = baseline()
        f.method(f.impl("Device", None, own=True), "own", [REF_SELF], U8, docs="Ours.")
        self.fails_naming(f, "impl OwnTrait for Device")

    def test_a_trait_item_its_trait_s_example_does_not_show(self):
        f = baseline()
        trait = f.trait("Requirement")
        f.index[str(trait)]["docs"] = "Flags.\n\n```\nassert!(Both::WRITE);\n```"
        f.trait_item(trait, "WRITE", "assoc_const", docs="Written.")
        f.trait_item(trait, "OWNED", "assoc_const", docs="Held.")
        f.trait_item(trait, "Out", "assoc_type", docs="Returned.")
        status, out = run(f)
        self.assertEqual(status, 1, out)
        self.assertEqual(missing(out), ["dlpack_core::Requirement::OWNED", "dlpack_core::Requirement::Out"], out)

    def test_an_impl_of_a_trait_whose_supertrait_is_public(self):
        # A public supertrait (OwnTrait) seals nothing: anyone may implement both.
        f = baseline()
        trait = f.trait("Marker", supertraits=[f.own_trait])
        f.impl("Device", trait, own=True)
        self.fails_naming(f, "impl Marker for Device")

    def test_an_impl_of_a_trait_that_links_some_implementors_only(self):
        # The docs link DataType, not Device: the list is not closed, so each impl needs one;
        # DataType's has it, Device's is missing.
        f = baseline()
        trait = f.trait("Input", links=["DataType"])
        f.impl("DataType", trait, own=True, docs=EXAMPLE)
        f.impl("Device", trait, own=True, docs="Hands the kernel a device.")
        self.fails_naming(f, "impl Input for Device")


class NeedsNone(unittest.TestCase):
    def test_an_accessor(self):
        f = baseline()
        f.method(f.inherent["Device"], "device_id", [REF_SELF], {"primitive": "i32"}, docs="The device id.")
        status, out = run(f)
        self.assertEqual(status, 0, out)
        self.assertIn("3 accessors", out)

    def test_a_from_impl(self):
        f = baseline()
        f.method(f.impl("Device", f.std["From"]), "from", [["v", U8]], {"generic": "Self"})
        status, out = run(f)
        self.assertEqual(status, 0, out)
        self.assertIn("3 conversions", out)

    def test_an_into_impl(self):
        f = baseline()
        f.method(f.impl("Device", f.std["Into"]), "into", [SELF], U8)
        status, out = run(f)
        self.assertEqual(status, 0, out)

    def test_a_generated_constant_and_constructor(self):
        status, out = run(baseline())
        self.assertEqual(status, 0, out)
        self.assertNotIn("F32", "".join(missing(out)))
        self.assertNotIn("cuda", "".join(missing(out)))

    def test_trait_items_its_example_shows(self):
        f = baseline()
        trait = f.trait("Input")
        f.index[str(trait)]["docs"] = ("Gives.\n\n```\nfn f<P: Input<u8, K, Output = usize>>() {}\n"
                                       "let _ = <Both as Requirement>::WRITE;\n```")
        f.trait_item(trait, "Output", "assoc_type", docs="Returned.")
        f.trait_item(trait, "WRITE", "assoc_const", docs="Written.")
        status, out = run(f)
        self.assertEqual(status, 0, out)

    def test_impls_of_a_sealed_trait(self):
        f = baseline()
        sealed = f.trait("Sealed", public=False)
        trait = f.trait("Requirement", supertraits=[sealed])
        f.impl("DataType", trait, own=True, docs="Flags.")
        f.impl("Device", trait, own=True)
        status, out = run(f)
        self.assertEqual(status, 0, out)
        self.assertIn("2 impls of sealed traits", out)

    def test_impls_of_a_trait_that_links_every_implementor(self):
        f = baseline()
        trait = f.trait("Input", links=["DataType", "Device"])
        f.impl("DataType", trait, own=True, docs="The kernel gets a dtype.")
        f.impl("Device", trait, own=True)
        # A derived impl is not one its docs must name.
        f.impl("DLDeviceType", trait, own=True, derived=True)
        status, out = run(f)
        self.assertEqual(status, 0, out)
        self.assertIn("2 impls their traits document", out)

    def test_an_impl_of_a_trait_outside_the_public_api(self):
        # A #[doc(hidden)] trait, or one in a private module: no page a user reads shows it.
        f = baseline()
        f.impl("Device", f.trait("Hidden", public=False), own=True)
        status, out = run(f)
        self.assertEqual(status, 0, out)

    def test_derived_and_other_std_impls(self):
        f = baseline()
        f.method(f.impl("Device", f.std["Clone"]), "clone", [REF_SELF], {"generic": "Self"})
        status, out = run(f)
        self.assertEqual(status, 0, out)


class Tables(unittest.TestCase):
    def test_a_row_whose_item_is_not_in_the_api_fails(self):
        tables = TABLES.replace('F32 = "float32", FLOAT, 32;',
                                'F32 = "float32", FLOAT, 32;\n            /// `float64`.\n'
                                '            F64 = "float64", FLOAT, 64;')
        status, out = run(baseline(), tables)
        self.assertEqual(status, 1, out)
        self.assertEqual(len(missing(out)), 1, out)
        self.assertIn("DataType::F64: the associated constant of for_each_named_data_type row 2", out)

    def test_an_unreadable_row_fails(self):
        tables = TABLES.replace('indexed cuda;', 'indexed(cuda);')
        status, out = run(baseline(), tables)
        self.assertEqual(status, 1, out)
        self.assertIn("unreadable row", out)
        self.assertIn("indexed(cuda)", out)

    def test_braces_in_comments_and_strings_are_not_the_body_s_end(self):
        tables = TABLES.replace("/// host memory", "/// host memory (`{` and `}}`)").replace(
            '"kDLCPU"', '"kDL}CPU"')
        status, out = run(baseline(), tables)
        self.assertEqual(status, 0, out)

    def test_a_missing_table_fails(self):
        tables = TABLES.replace("for_each_device_type", "for_each_device")
        status, out = run(baseline(), tables)
        self.assertEqual(status, 1, out)
        self.assertIn("for_each_device_type: found 0 times", out)

    def test_the_grammar_of_this_workspace(self):
        items = cde.generated_items(cde.GRAMMAR_SRC)
        self.assertIn(("DataType", "F32", "assoc_const"), items)
        self.assertIn(("DataType", "BCOMPLEX32", "assoc_const"), items)
        self.assertIn(("Device", "CPU", "assoc_const"), items)
        self.assertIn(("Device", "WEBGPU", "assoc_const"), items)
        self.assertIn(("Device", "cuda", "function"), items)
        self.assertNotIn(("Device", "CUDA", "assoc_const"), items)
        with open(os.path.join(cde.GRAMMAR_SRC, "tables.rs"), encoding="utf-8") as fh:
            text = fh.read()
        for macro, owner in (("for_each_named_data_type", "DataType"), ("for_each_device_type", "Device"),
                             ("for_each_code", "DLDataTypeCode"), ("for_each_device_type", "DLDeviceType")):
            rows = [line for line in cde.macro_body(text, macro).splitlines()
                    if line.strip().endswith(";") and not line.strip().startswith("//")]
            self.assertEqual(len(rows), sum(1 for key in items if key[0] == owner), macro)


if __name__ == "__main__":
    unittest.main()
