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
MACRO_MADE = crate("mod v; mod d; mod u; pub trait Tr { fn go(&self); }", v="pub struct Dev;",
                   d="use crate::v::Dev;\nmacro_rules! m { () => { impl Dev { consts!(); } }; }\n"
                     "m!();\nimpl crate::Tr for Dev { fn go(&self) {} }",
                   u="use crate::{v::Dev, Tr};\nfn f(x: Dev) { let _ = Dev::CPU; }\n"
                     "fn g<D: Tr>(d: D) { d.go(); }")
CONTRIBUTING = ("````\n```text\nlayers of src/lib.rs\nb\n```\n````\n```text\nlayers of src/lib.rs"
                "\na\nb\n```\n```text\nlayers of src/gone.rs\n```\n```text\nlayers\n```")
CASES = [  # what, the crate, problems, {file: the files it uses (None: not read)}, lines out
    ("a clean crate: through a facade, a glob, make!(); re-exports are offers, not needs; a "
     "macro's body is its callers' code", CLEAN, 0, {"user.rs": {"deep.rs", "macros.rs"},
     "lib.rs": set(), "macros.rs": set(), "tests.rs": None}, ["user.rs: deep.rs"]),
    ("a use cycle", crate("mod a; mod b;", a="pub struct A; use crate::b::B;",
                          b="pub struct B;\nuse super::a::A;"), 1, {},
     ["CYCLE: a.rs <-> b.rs", "b.rs:2 uses a.rs (use super::a::A)",
      "circle: a.rs -> b.rs -> a.rs"]),
    ("a cycle through impls alone: T is in t.rs, its impls in a.rs and b.rs call each other",
     crate("mod t; mod a; mod b; mod c;", t="pub struct T; pub struct S;",
           a="use crate::t::T;\nimpl T { pub fn f() { T::g() } }",
           b="use crate::t::{T, S};\nimpl T { pub fn g() { S::new(); } }\n"
             "impl S { fn h(&self) { self.k(1); } }\nfn x(s: S) { s.k(2); }",
           c="use crate::t::S;\nimpl S { fn k(&self, n: u8) { crate::t::T::f(); } }"), 1,
     {"a.rs": {"t.rs", "b.rs"}, "b.rs": {"t.rs", "c.rs"}},
     ["a.rs:2 uses b.rs (impl: T::g, in impl T)", "b.rs:3 uses c.rs (impl: self.k(), in impl S)",
      "circle: a.rs -> b.rs -> c.rs -> a.rs"]),
    ("items a macro makes in an impl (Dev::CPU), a trait", MACRO_MADE, 0,
     {"u.rs": {"v.rs", "d.rs", "lib.rs"}}, []),
    ("a call through a bound uses the trait only",
     {**MACRO_MADE, "src/u.rs": "use crate::Tr;\nfn g<D: Tr>(d: D) { d.go(); }"}, 0,
     {"u.rs": {"lib.rs"}}, []),
    ("a layer map that lies", crate("//! ```text\n//! layers\n//! top\n//! bottom nope bottom\n"
                                    "//! ```\nmod top; mod bottom; mod left; pub mod inline {}",
                                    top="pub struct T;", bottom="fn f() { crate::top::T; }",
                                    left=""), 4, {},
     ["bottom.rs:1: layers of lib.rs: `bottom` uses `top` (crate::top::T, in top.rs), which is "
      "above it", "lib.rs:4: layers: `nope` is not a child module of lib.rs",
      "`bottom` is listed twice", "child module `left` is missing from the map"]),
    ("maps in CONTRIBUTING.md (one in a fence of four is an example), one that lies",
     {**crate("mod a; mod b;", a="", b="use crate::a;"), "CONTRIBUTING.md": CONTRIBUTING}, 3, {},
     ["CONTRIBUTING.md:8): `b` uses `a` (use crate::a, in a.rs), which is above it",
      "CONTRIBUTING.md:13: layers of src/gone.rs: no such file",
      "CONTRIBUTING.md:16: a layers block here names its file"]),
]


class Checker(unittest.TestCase):
    def test_crates(self):
        for what, files, problems, uses, lines in CASES:
            with self.subTest(what), tempfile.TemporaryDirectory() as root:
                for path, src in files.items():
                    os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
                    with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                        f.write(src)
                md = "CONTRIBUTING.md" in files and os.path.join(root, "CONTRIBUTING.md")
                out, src = io.StringIO(), os.path.join(root, "src")
                self.assertEqual(cc.check(src, True, out, md), problems, out.getvalue())
                graph = cc.Crate(src, md).deps()
                for file, used in uses.items():
                    self.assertEqual(set(graph[file]) if file in graph else None, used, file)
                for line in lines:
                    self.assertIn(line, out.getvalue())

    def test_tokenizer(self):
        texts = [t[0] for t in cc.tokenize("r#type 'a' 'b c'\\'' 1.5e3 x.0.f() /*/**/*/")[0]]
        self.assertEqual(texts, ["type", "'a'", "'b", "c", "'\\''", "1.5e3", "x", ".", "0",
                                 ".", "f", "(", ")"])
        for src in ('"open', "/* /* */", "'"):
            self.assertRaises(SyntaxError, cc.tokenize, src)

    def test_command_line(self):
        def cli(*args):
            return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)
        usage, nope = cli("--help"), cli("x", "--nope")
        self.assertEqual((usage.returncode, "usage:" in usage.stdout), (0, True))
        self.assertEqual((nope.returncode, cli().returncode), (2, 2))
        self.assertIn("unrecognized arguments: --nope", nope.stderr)
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(cc.main([os.path.join(HERE, "..", "..", "dlpack-grammar", "src")]), 0)


if __name__ == "__main__":
    unittest.main()
