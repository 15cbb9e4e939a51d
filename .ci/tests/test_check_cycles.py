#!/usr/bin/env python3
"""Tests of .ci/check-cycles.py on small crates written here: planted failures it must catch
(a `use` cycle, a cycle through impls alone, a layer map that lies) and a clean crate full of
what must not count. python3 .ci/tests/test_check_cycles.py"""
import contextlib
import importlib.util
import io
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "check-cycles.py")
_spec = importlib.util.spec_from_file_location("check_cycles", SCRIPT)
cc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cc)


def run(files, contributing=False):
    """(problems, output, {file: files it uses}) of the crate `files` ({path: source})."""
    with tempfile.TemporaryDirectory() as root:
        for path, src in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                f.write(src)
        md = os.path.join(root, "CONTRIBUTING.md") if contributing else False
        out = io.StringIO()
        problems = cc.check(os.path.join(root, "src"), True, out, md)
        graph = {f: set(g) for f, g in cc.Crate(os.path.join(root, "src"), md).deps().items()}
        return problems, out.getvalue(), graph


def crate(lib, **files):
    return {"src/lib.rs": lib, **{f"src/{k.replace('__', '/')}.rs": v for k, v in files.items()}}


CLEAN = crate(
    "//! ```text\n//! layers\n//! user\n//! macros\n//! facade\n//! deep tests\n//! ```\n"
    "pub mod deep; pub mod facade; mod user; mod macros; #[cfg(test)] mod tests;\n"
    "#[cfg(test)] mod inline { use crate::user::U; }\npub use facade::*;\n",
    deep="pub struct Thing; pub trait Shape { fn area(&self) -> u8; }\n"
         "impl Thing { pub fn make() -> Self { Thing } pub fn size(&self, a: u8) -> u8 { a } }",
    facade__mod="mod inner;\npub use inner::Imported;\n",
    facade__inner="pub use crate::deep::Thing as Imported;\n",
    macros="#[macro_export]\nmacro_rules! make { () => { $crate::deep::Thing::make() }; }\n",
    user="use crate::Imported;\nuse crate::deep::Shape;\n/* nested /* comment */ crate::user */\n"
         "pub struct U;\nimpl core::fmt::Display for U { fn fmt(&self, f: &mut F) -> R { "
         "let s = r#\"a \" crate::x\"#; let c = '\"'; let l: &'static str = \"\\\n\";"
         " Ok(()) } }\n"
         "fn f<D: Shape>(d: D, t: Imported) { d.area(); t.len(); crate::make!(); t.size(1); }\n",
    tests="use crate::user::U;\n")


class Checker(unittest.TestCase):
    def test_a_clean_crate_passes(self):
        problems, out, g = run(CLEAN)
        self.assertEqual(problems, 0, out)
        self.assertEqual(g["user.rs"], {"deep.rs", "macros.rs"})  # via facade, glob, make!()
        self.assertEqual(g["lib.rs"], set())  # re-exports are offers, not needs
        self.assertEqual(g["macros.rs"], set())  # its body is its callers' code
        self.assertNotIn("tests.rs", g)
        self.assertIn("user.rs: deep.rs", out)

    def test_a_use_cycle(self):
        problems, out, _ = run(crate("mod a; mod b;", a="pub struct A; use crate::b::B;",
                                     b="pub struct B;\nuse super::a::A;"))
        self.assertEqual(problems, 1)
        self.assertIn("CYCLE: a.rs <-> b.rs", out)
        self.assertIn("b.rs:2 uses a.rs (use super::a::A)", out)
        self.assertIn("circle: a.rs -> b.rs -> a.rs", out)

    def test_cycles_through_impls_alone(self):
        # T is in t.rs; its impls in a.rs and b.rs call into each other's files.
        files = crate("mod t; mod a; mod b; mod c;", t="pub struct T; pub struct S;",
                      a="use crate::t::T;\nimpl T { pub fn f() { T::g() } }",
                      b="use crate::t::{T, S};\nimpl T { pub fn g() { S::new(); } }\n"
                        "impl S { fn h(&self) { self.k(1); } }\nfn x(s: S) { s.k(2); }",
                      c="use crate::t::S;\nimpl S { fn k(&self, n: u8) { crate::t::T::f(); } }")
        problems, out, g = run(files)
        self.assertEqual(problems, 1, out)
        self.assertEqual(g["a.rs"], {"t.rs", "b.rs"})
        self.assertEqual(g["b.rs"], {"t.rs", "c.rs"})
        self.assertIn("a.rs:2 uses b.rs (impl: T::g, in impl T)", out)
        self.assertIn("b.rs:3 uses c.rs (impl: self.k(), in impl S)", out)
        self.assertIn("circle: a.rs -> b.rs -> c.rs -> a.rs", out)

    def test_macro_made_impl_items_and_what_gives_no_edge(self):
        files = crate("mod v; mod d; mod u; pub trait Tr { fn go(&self); }",
                      v="pub struct Dev;", d="use crate::v::Dev;\n"
                      "macro_rules! m { () => { impl Dev { consts!(); } }; }\nm!();\n"
                      "impl crate::Tr for Dev { fn go(&self) {} }",
                      u="use crate::{v::Dev, Tr};\nfn f(x: Dev) { let _ = Dev::CPU; }\n"
                        "fn g<D: Tr>(d: D) { d.go(); }")
        g = run(files)[2]
        self.assertEqual(g["u.rs"], {"v.rs", "d.rs", "lib.rs"})  # Dev::CPU, Tr
        files["src/u.rs"] = "use crate::Tr;\nfn g<D: Tr>(d: D) { d.go(); }"
        self.assertEqual(run(files)[2]["u.rs"], {"lib.rs"})  # a call through a bound

    def test_a_layer_map_that_lies(self):
        files = crate("//! ```text\n//! layers\n//! top\n//! bottom nope bottom\n//! ```\n"
                      "mod top; mod bottom; mod left; pub mod inline {}",
                      top="pub struct T;", bottom="fn f() { crate::top::T; }", left="")
        problems, out, _ = run(files)
        self.assertEqual(problems, 4, out)
        self.assertIn("bottom.rs:1: layers of lib.rs: `bottom` uses `top` (crate::top::T, in "
                      "top.rs), which is above it", out)
        self.assertIn("lib.rs:4: layers: `nope` is not a child module of lib.rs", out)
        self.assertIn("`bottom` is listed twice", out)
        self.assertIn("child module `left` is missing from the map", out)

    def test_maps_in_contributing_md(self):
        files = crate("mod a; mod b;", a="", b="use crate::a;")
        files["CONTRIBUTING.md"] = ("````\n```text\nlayers of src/lib.rs\nb\n```\n````\n"
                                    "```text\nlayers of src/lib.rs\nb\na\n```\n"
                                    "```text\nlayers of src/gone.rs\n```\n```text\nlayers\n```")
        problems, out, _ = run(files, contributing=True)
        self.assertEqual(problems, 2, out)
        self.assertIn("CONTRIBUTING.md:13: layers of src/gone.rs: no such file", out)
        self.assertIn("CONTRIBUTING.md:16: a layers block here names its file", out)
        files["CONTRIBUTING.md"] = "```text\nlayers of src/lib.rs\na\nb\n```\n"
        self.assertIn("`b` uses `a`", run(files, contributing=True)[1])

    def test_tokenizer(self):
        texts = [t[0] for t in cc.tokenize("r#type 'a' 'b c'\\'' 1.5e3 x.0.f() /*/**/*/")[0]]
        self.assertEqual(texts, ["type", "'a'", "'b", "c", "'\\''", "1.5e3", "x", ".", "0",
                                 ".", "f", "(", ")"])
        for src in ('"open', "/* /* */", "'"):
            self.assertRaises(SyntaxError, cc.tokenize, src)

    def test_command_line(self):
        def cli(*args):
            return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)
        self.assertEqual((cli("--help").returncode, "usage:" in cli("--help").stdout), (0, True))
        self.assertEqual(cli("--nope", "src").returncode, 2)
        self.assertIn("unrecognized arguments: --nope", cli("x", "--nope").stderr)
        self.assertEqual(cli().returncode, 2)
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(cc.main([os.path.join(HERE, "..", "..", "dlpack-grammar", "src")]), 0)


if __name__ == "__main__":
    unittest.main()
