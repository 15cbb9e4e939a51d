#!/usr/bin/env python3
"""Tests of .ci/check-cycles.py against the fixture crates in fixtures/ (each folder is a
crate's source folder; its lib.rs says what it plants).

    python3 .ci/tests/test_check_cycles.py
"""
import contextlib
import importlib.util
import io
import os
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")
REPO = os.path.dirname(os.path.dirname(HERE))

_spec = importlib.util.spec_from_file_location(
    "check_cycles", os.path.join(HERE, "..", "check-cycles.py"))
cc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cc)


def crate(name):
    return cc.Crate(os.path.join(FIXTURES, name))


def graph(name):
    """file -> set of files it uses."""
    return {f: set(uses) for f, uses in crate(name).deps().items()}


def run(name, show_graph=False, contributing=None):
    """(exit status of the command line, its output)."""
    out = io.StringIO()
    problems = cc.check(os.path.join(FIXTURES, name), show_graph, out, contributing)
    return (1 if problems else 0), out.getvalue()


def texts(src):
    return [t.text for t in cc.tokenize(src)[0]]


class Tokenizer(unittest.TestCase):
    def test_nested_block_comments_are_one_comment(self):
        self.assertEqual(texts("a /* b /* c */ d */ e"), ["a", "e"])

    def test_char_literals_and_lifetimes(self):
        src = "fn f<'a>(x: &'a u8) { let c = '\"'; 'l: loop { break 'l; } '\\''; }"
        tokens = cc.tokenize(src)[0]
        kinds = {t.text: t.kind for t in tokens}
        self.assertEqual(kinds["'a"], "lifetime")
        self.assertEqual(kinds["'l"], "lifetime")
        self.assertEqual(kinds["'\"'"], "literal")
        self.assertEqual(kinds["'\\''"], "literal")

    def test_strings(self):
        self.assertEqual(texts('"a \\\n b" x'), ['"a \\\n b"', "x"])
        self.assertEqual(texts('r#"a "b" c"# x'), ['r#"a "b" c"#', "x"])
        self.assertEqual(texts('r"C:\\" x'), ['r"C:\\"', "x"])
        self.assertEqual(texts("b'\"' br\"\\\" x"), ["b'\"'", 'br"\\"', "x"])
        self.assertEqual(texts('"\\"//" x'), ['"\\"//"', "x"])

    def test_raw_identifiers_are_identifiers(self):
        self.assertEqual(texts("r#match r#type"), ["match", "type"])

    def test_numbers(self):
        self.assertEqual(texts("0..n"), ["0", ".", ".", "n"])
        self.assertEqual(texts("1.5e-3 + 2u8"), ["1.5e-3", "+", "2u8"])
        self.assertEqual(texts("x.0.max(1.)"), ["x", ".", "0", ".", "max", "(", "1.", ")"])
        self.assertEqual(texts("0x1E-3"), ["0x1E", "-", "3"])
        self.assertEqual(texts("1usize-crate::x"), ["1usize", "-", "crate", "::", "x"])

    def test_line_numbers_count_lines_inside_literals(self):
        tokens = cc.tokenize('"a\nb" /* c\nd */ r"e\nf"\nx')[0]
        self.assertEqual([(t.text[:1], t.line) for t in tokens], [('"', 1), ("r", 3), ("x", 5)])

    def test_inner_docs(self):
        docs = cc.tokenize("//! one\n/// outer\n/*! two\nthree */\n// plain\nfn f() {}")[1]
        self.assertEqual(docs, [(1, " one"), (3, " two"), (4, "three ")])

    def test_an_unclosed_literal_is_an_error_not_a_guess(self):
        with self.assertRaises(cc.LexError):
            cc.tokenize('"never closed')
        with self.assertRaises(cc.LexError):
            cc.tokenize("/* /* */")


class UseTrees(unittest.TestCase):
    def test_leaves(self):
        tokens = cc.tokenize("a::{b, c::{d, e as f}, self, g::*, h as _}")[0]
        self.assertEqual(
            cc.expand_use(tokens),
            [(["a", "b"], "b"), (["a", "c", "d"], "d"), (["a", "c", "e"], "f"), (["a"], "a"),
             (["a", "g"], None), (["a", "h"], "_")],
        )

    def test_other_crates_are_dropped(self):
        self.assertEqual(cc.expand_use(cc.tokenize("::std::fmt")[0]), [])


class Items(unittest.TestCase):
    def test_a_const_fn_ends_at_its_body_a_const_at_its_semicolon(self):
        for src in ("pub const fn f() -> u8 { 0 } fn g() {}",
                    "pub(crate) const unsafe fn f() {} fn g() {}",
                    "const X: T = T { a: 1 }; fn g() {}"):
            with self.subTest(src=src):
                tokens = cc.tokenize(src)[0]
                self.assertEqual(tokens[cc.item_end(tokens, 0, len(tokens), False)].text, "fn")


class Cycles(unittest.TestCase):
    def test_planted_two_file_cycle(self):
        status, out = run("planted_cycle")
        self.assertEqual(status, 1)
        self.assertEqual(cc.cycles(graph("planted_cycle")), [["a.rs", "b.rs"]])
        self.assertIn("CYCLE: a.rs <-> b.rs", out)
        self.assertIn("b.rs:1 uses a.rs (use crate::a::A)", out)

    def test_grammar_cycle_behind_a_continued_string(self):
        self.assertEqual(
            cc.cycles(graph("grammar_cycle")), [["aliases.rs", "data_type.rs", "suggest.rs"]]
        )
        self.assertIn("data_type.rs", graph("grammar_cycle")["aliases.rs"])

    def test_circles_name_what_to_cut(self):
        g = {"a": {"b"}, "b": {"a", "c"}, "c": {"a"}, "d": set()}
        self.assertEqual(cc.cycles(g), [["a", "b", "c"]])
        self.assertEqual(cc.circles(g, ["a", "b", "c"]), [["a", "b"], ["a", "b", "c"]])
        self.assertIn("circle: aliases.rs -> data_type.rs -> suggest.rs -> aliases.rs",
                      run("grammar_cycle")[1])

    def test_each_lexer_trap(self):
        g = graph("lexer_traps")
        traps = sorted(f for f in g if f not in ("lib.rs", "target.rs", "phantom.rs"))
        self.assertEqual(len(traps), 12)
        for trap in traps:
            with self.subTest(trap=trap):
                self.assertEqual(g[trap], {"target.rs"})

    def test_reexport_chains_lead_to_the_defining_file(self):
        g = graph("reexports")
        self.assertEqual(g["user.rs"], {"deep.rs"})  # crate::Thing -> facade -> inner -> deep
        self.assertEqual(g["facade/inner.rs"], {"deep.rs"})  # super::Imported, a private import
        self.assertEqual(g["facade/mod.rs"], {"deep.rs"})
        self.assertEqual(g["macro_user.rs"], {"deep.rs"})  # a #[macro_export] macro
        self.assertEqual(g["lib.rs"], set())  # re-exports are offers, not needs
        self.assertEqual(cc.cycles(g), [["deep.rs", "user.rs"]])

    def test_exported_macro_bodies_are_uses_of_their_callers(self):
        g = graph("exported_macro")
        self.assertEqual(g["a.rs"], set())
        self.assertEqual(g["b.rs"], {"a.rs"})
        self.assertEqual(g["c.rs"], {"a.rs", "b.rs"})  # crate::make_b!()
        self.assertEqual(g["d.rs"], {"a.rs", "b.rs"})  # make_b!()
        self.assertEqual(run("exported_macro")[0], 0)

    def test_path_attributes_and_test_modules(self):
        status, out = run("path_attr")
        self.assertEqual(status, 1)
        self.assertEqual(cc.cycles(graph("path_attr")), [["b.rs", "renamed/other.rs"]])
        self.assertIn("note: orphan.rs is not a module of the crate", out)
        self.assertNotIn("tests.rs", out)
        self.assertNotIn("helpers.rs", out)

    def test_a_clean_crate_passes(self):
        status, out = run("clean")
        self.assertEqual(status, 0, out)
        self.assertIn("0 import cycle(s), 0 layer error(s) in 2 layer map(s)", out)
        self.assertNotIn("tests.rs", graph("clean"))

    def test_command_line(self):
        clean, planted = (os.path.join(FIXTURES, name) for name in ("clean", "planted_cycle"))
        with contextlib.redirect_stdout(io.StringIO()) as out:
            self.assertEqual(cc.main(["check-cycles.py", clean]), 0)
            self.assertEqual(cc.main(["check-cycles.py", clean, planted]), 1)
        self.assertIn("planted_cycle: 3 files, 1 import cycle(s)", out.getvalue())


class Layers(unittest.TestCase):
    def test_planted_upward_and_sideways_uses(self):
        status, out = run("layers_uses")
        self.assertEqual(status, 1)
        errors = [line for line in out.splitlines() if line.startswith("LAYERS:")]
        self.assertEqual(len(errors), 3, out)
        self.assertIn("bottom.rs:3: layers of lib.rs: `bottom` uses `top` (crate::top::T, in "
                      "top.rs), which is above it", out)
        self.assertIn("middle.rs:1: layers of lib.rs: `middle` uses `side`", out)
        self.assertIn("on the same line as it", out)
        self.assertIn("stage/low.rs:1: layers of stage/mod.rs: `low` uses `high`", out)

    def test_names_in_the_map(self):
        status, out = run("layers_names")
        self.assertEqual(status, 1)
        errors = [line for line in out.splitlines() if line.startswith("LAYERS:")]
        self.assertEqual(len(errors), 5, out)
        self.assertIn("`nope` is not a child module of lib.rs (its children: a, b, c, tests)", out)
        self.assertIn("`a` is listed twice", out)
        self.assertIn("`inline_mod` is written inline in lib.rs", out)
        self.assertIn("`inline_tests` is written inline in lib.rs", out)
        self.assertNotIn("`tests`", out)
        self.assertIn("child module `c` is missing from the map", out)

    def test_maps_are_read_from_inner_docs(self):
        maps = {f: [names for _, names in rows] for f, rows, _ in crate("clean").layer_maps()}
        self.assertEqual(maps, {
            "lib.rs": [["tests"], ["__private"], ["pipeline"], ["names", "error"], ["tables"]],
            "pipeline/mod.rs": [["stage_two"], ["stage_one"]],
        })

    def test_a_broken_block_is_reported(self):
        # Problems with a map itself used to be collected and never printed.
        with tempfile.TemporaryDirectory() as root:
            with open(os.path.join(root, "lib.rs"), "w", encoding="utf-8") as f:
                f.write("//! ```text\n//! layers\n//! a\n\nmod a;\n")
            open(os.path.join(root, "a.rs"), "w").close()
            out = io.StringIO()
            self.assertEqual(cc.check(root, out=out, contributing=False), 1)
            self.assertIn("LAYERS: lib.rs:1: the layers block is not closed", out.getvalue())


class ImplEdges(unittest.TestCase):
    """A file uses the file whose impl block defines an item it calls or names."""

    def test_cycle_through_an_associated_fn(self):
        status, out = run("impl_assoc_cycle")
        self.assertEqual(status, 1)
        g = graph("impl_assoc_cycle")
        self.assertEqual(g["a.rs"], {"b.rs", "c.rs"})  # T::f and crate::c::T::g, in b.rs
        self.assertEqual(cc.cycles(g), [["a.rs", "b.rs"]])
        self.assertIn("a.rs:6 uses b.rs (T::f, in impl T)", out)

    def test_cycle_through_a_method_call(self):
        status, out = run("impl_method_cycle")
        self.assertEqual(status, 1)
        g = graph("impl_method_cycle")
        self.assertEqual(cc.cycles(g), [["a.rs", "b.rs"]])
        self.assertIn("a.rs:6 uses b.rs (.describe(), in impl T)", out)
        self.assertEqual(g["d.rs"], {"b.rs", "c.rs"})  # self.describe() in d.rs's impl T
        self.assertEqual(g["e.rs"], set())  # an exported macro's body: its invokers' uses
        self.assertEqual(g["f.rs"], {"c.rs", "d.rs", "e.rs"})  # twice! -> $crate::c::T::twice

    def test_an_impl_of_a_trait_of_the_crate_counts(self):
        self.assertEqual(cc.cycles(graph("impl_local_trait")), [["a.rs", "b.rs"]])
        self.assertIn("a.rs:6 uses b.rs (T::NAME, in impl Named for T)",
                      run("impl_local_trait")[1])

    def test_the_device_error_circle(self):
        status, out = run("device_error")
        self.assertEqual(status, 1)
        g = graph("device_error")
        self.assertEqual(cc.cycles(g), [["device.rs", "error/cuda.rs", "error/mod.rs"]])
        self.assertIn("circle: device.rs -> error/mod.rs -> error/cuda.rs -> device.rs", out)
        self.assertIn("error/cuda.rs:11 uses device.rs (.is_host_side(), in impl Device)", out)

    def test_items_a_macro_makes_in_an_impl_block(self):
        # `Device::CPU` is made by `constants!` inside device.rs's `impl Device`.
        g = graph("device_error")
        self.assertEqual(g["host.rs"], {"device.rs", "ffi/value.rs"})

    def test_uses_that_give_no_edge(self):
        status, out = run("impl_negatives")
        self.assertEqual(status, 0, out)
        g = graph("impl_negatives")
        self.assertEqual(g["user.rs"], {"types.rs"})  # Display, view x2, ident.span(), len
        self.assertEqual(g["generic.rs"], {"driver.rs"})  # D: Driver is not Cuda's impl
        self.assertEqual(g["s.rs"], set())  # Self::g is its own
        self.assertEqual(g["other.rs"], {"s.rs"})  # S::f

    def test_impl_blocks_are_read(self):
        module = crate("impl_negatives").files["s.rs"]
        (impl,) = module.impls
        self.assertEqual((impl.self_segs, impl.trait_segs), (["S"], None))
        self.assertEqual(impl.items, {"f": "fn", "g": "fn"})
        tokens = cc.tokenize(
            "impl<'a, T: Fn(u8) -> u8, const N: usize> crate::tr::Tr<T> for &'a mut x::Y<N> "
            "where T: Copy { #[cfg(test)] fn probe() {} pub(crate) const fn f(&self, a: u8, "
            "b: Vec<(u8, u8)>) {} const C: u8 = 1; type Out = u8; make!(); }")[0]
        generics, trait_segs, self_segs, body = cc.parse_impl_header(tokens, 0, len(tokens))
        self.assertEqual((generics, trait_segs, self_segs), ({"T", "N"}, ["crate", "tr", "Tr"],
                                                             ["x", "Y"]))
        items, arity, opaque = cc.impl_items(tokens, body, len(tokens) - 1)
        self.assertEqual(items, {"f": "method", "C": "const", "Out": "type"})
        self.assertEqual((arity, opaque), ({"f": 2}, True))

    def test_the_graph_shows_impl_edges(self):
        out = run("impl_assoc_cycle", show_graph=True)[1]
        self.assertIn("a.rs: b.rs [impl: T::f, in impl T, line 6], c.rs", out)


class ContributingMaps(unittest.TestCase):
    """Layer maps of module files kept in CONTRIBUTING.md, off the modules' docs pages."""

    def test_the_nearest_contributing_md_above_the_sources(self):
        root = os.path.join(FIXTURES, "contributing_layers", "src")
        self.assertEqual(cc.find_contributing(root),
                         os.path.join(FIXTURES, "contributing_layers", "CONTRIBUTING.md"))
        self.assertEqual(cc.find_contributing(os.path.join(REPO, "dlpack-core", "src")),
                         os.path.join(REPO, "CONTRIBUTING.md"))

    def test_a_map_there_is_checked_like_one_in_docs(self):
        status, out = run(os.path.join("contributing_layers", "src"))
        self.assertEqual(status, 1)
        self.assertRegex(out, r"bottom\.rs:3: layers of lib\.rs \(its map: \S*CONTRIBUTING\.md:7\)"
                              r": `bottom` uses `top` \(crate::top::Top, in top\.rs\), which is "
                              "above it")
        self.assertIn("2 layer map(s) (lib.rs in ", out)

    def test_bad_maps_there(self):
        out = run(os.path.join("contributing_layers", "src"))[1]
        errors = [line for line in out.splitlines() if line.startswith("LAYERS:")]
        self.assertEqual(len(errors), 5, out)
        self.assertIn("CONTRIBUTING.md:15: layers of src/stage/mod.rs: stage/mod.rs has a map "
                      "already (stage/mod.rs:1); keep one", out)
        self.assertIn("CONTRIBUTING.md:23: layers of src/gone/mod.rs: no such file", out)
        self.assertIn("CONTRIBUTING.md:31: layers of src/notes.rs: not a module file", out)
        self.assertIn("CONTRIBUTING.md:37: a layers block here names its file", out)
        self.assertNotIn(":45", out)  # the example inside a ```` fence

    def test_an_explicit_contributing_md(self):
        traps = os.path.join(FIXTURES, "lexer_traps")
        c = cc.Crate(traps)
        children = sorted(set(c.files["lib.rs"].children) - {"phantom", "target"})
        with tempfile.TemporaryDirectory() as folder:
            md = os.path.join(folder, "CONTRIBUTING.md")
            path = os.path.relpath(os.path.join(traps, "lib.rs"), folder)
            for rows, problems in ((children + ["\nphantom target"], 0),
                                   (["phantom target\n"] + children, 12)):
                with open(md, "w", encoding="utf-8") as f:
                    f.write(f"```text\nlayers of {path}\n{' '.join(rows)}\n```\n")
                out = io.StringIO()
                with self.subTest(problems=problems):
                    self.assertEqual(cc.check(traps, out=out, contributing=md), problems,
                                     out.getvalue())
                    self.assertIn("1 layer map(s) (lib.rs in ", out.getvalue())

    def test_none_read_when_told(self):
        c = cc.Crate(os.path.join(FIXTURES, "contributing_layers", "src"), contributing=False)
        self.assertEqual([f for f, _, _ in c.layer_maps()], ["stage/mod.rs"])


if __name__ == "__main__":
    unittest.main()
