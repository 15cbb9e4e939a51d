#!/usr/bin/env python3
"""Fails when files of a crate import each other in a cycle.

    python3 .ci/check-cycles.py dlpack-core/src [--graph]

A file depends on another when it names an item defined there: in a `use` declaration
(`use crate::tensor::TensorError;`, `use super::owner::Owner;`, braces included) or in a path
written in code (`crate::ffi::DLTensor`). Paths are followed through re-exports: a
`pub use child::Item` in a `mod.rs` sends readers of `crate::module::Item` to the child's file,
so a facade never hides a cycle between the files behind it, and a facade's own re-exports are
not dependencies of it. Test code is left out (files named `tests.rs` or under a `tests/`
folder, and `#[cfg(test)]` modules written inline), as are comments.

Cycles a crate keeps on purpose are listed in ALLOWED below, each with the reason; the crate
docs say the same. Anything else fails.
"""
import os
import re
import sys

# Each entry: a set of files (relative to the source folder) that may form a cycle, and why.
ALLOWED = {}

USE = re.compile(r"^\s*(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", re.S | re.M)
PATH = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")


def strip(text):
    """The code of a file without comments, string literals and inline #[cfg(test)] modules."""
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    out, i = [], 0
    for m in re.finditer(r"#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{", text):
        if m.start() < i:
            continue
        out.append(text[i:m.start()])
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        i = j
    out.append(text[i:])
    return "".join(out)


def expand(tree):
    """`a::{b, c::{d, e as f}, self}` -> [['a', 'b'], ['a', 'c', 'd'], ['a', 'c', 'e'], ['a']]."""
    tokens = re.findall(r"::|[{},*]|\w+", tree)

    def parse(i):
        prefix = []
        while i < len(tokens):
            t = tokens[i]
            if t == "{":
                paths, i = [], i + 1
                while tokens[i] != "}":
                    sub, i = parse(i)
                    paths.extend(sub)
                    if tokens[i] == ",":
                        i += 1
                return [prefix + p for p in paths], i + 1
            if t in (",", "}"):
                break
            if t == "as":  # `name as alias`: the alias is ours, the path is what is named
                i += 2
                continue
            if t != "::":
                prefix.append(t)
            i += 1
        if prefix and prefix[-1] in ("self", "*"):
            prefix = prefix[:-1]
        return [prefix], i

    return parse(0)[0]


class Crate:
    def __init__(self, root):
        self.root = root
        self.files = {}  # module path tuple -> file
        for dirpath, _, names in os.walk(root):
            for n in names:
                if not n.endswith(".rs"):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, n), root)
                parts = rel[:-3].split(os.sep)
                if parts[-1] in ("mod", "lib", "main"):
                    parts = parts[:-1]
                self.files[tuple(parts)] = rel
        self.code = {f: strip(open(os.path.join(root, f)).read()) for f in self.files.values()}
        self.module_of = {f: m for m, f in self.files.items()}
        self.reexports = {f: self._reexports(f) for f in self.files.values()}

    def is_test(self, f):
        parts = f.split(os.sep)
        return "tests" in parts[:-1] or parts[-1] == "tests.rs"

    def _absolute(self, f, path):
        """A use path as a module path from the crate root, or None for another crate."""
        mod = list(self.module_of[f])
        head, rest = path[0], path[1:]
        if head == "crate":
            return rest
        if head == "self":
            return mod + rest
        if head == "super":
            base = mod[:-1]
            while rest and rest[0] == "super":
                base, rest = base[:-1], rest[1:]
            return base + rest
        # a child module named without `self::` (2018 paths inside the crate)
        if tuple(mod + [head]) in self.files:
            return mod + path
        return None

    def _reexports(self, f):
        out = {}
        for m in USE.finditer(self.code[f]):
            if not m.group(1):
                continue
            for p in expand(m.group(2)):
                if not p:
                    continue
                a = self._absolute(f, p)
                if a:
                    out.setdefault(p[-1], a)
        return out

    def resolve(self, path, seen=()):
        """The file defining the item at module path `path`."""
        for cut in range(len(path), -1, -1):
            mod = tuple(path[:cut])
            if mod in self.files:
                f = self.files[mod]
                rest = path[cut:]
                if rest and rest[0] in self.reexports[f] and (f, rest[0]) not in seen:
                    return self.resolve(self.reexports[f][rest[0]] + rest[1:], seen + ((f, rest[0]),))
                return f
        return None

    def deps(self, f):
        out = set()
        code = self.code[f]
        spans = []
        for m in USE.finditer(code):
            spans.append((m.start(), m.end()))
            if m.group(1):  # a re-export is the facade's offer, not its need
                continue
            for p in expand(m.group(2)):
                if p:
                    a = self._absolute(f, p)
                    if a is not None:
                        out.add(self.resolve(a))
        for m in PATH.finditer(code):
            if any(s <= m.start() < e for s, e in spans):
                continue
            p = [m.group(1)] + m.group(2).split("::")[1:]
            a = self._absolute(f, p)
            if a is not None:
                out.add(self.resolve(a))
        out.discard(None)
        out.discard(f)
        return {d for d in out if not self.is_test(d)}


def cycles(graph):
    """Strongly connected components with more than one file (Tarjan)."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
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

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main(argv):
    root = argv[1] if len(argv) > 1 else "dlpack-core/src"
    crate = Crate(root)
    graph = {f: crate.deps(f) for f in crate.files.values() if not crate.is_test(f)}
    if "--graph" in argv:
        for f in sorted(graph):
            print(f"{f}: {', '.join(sorted(graph[f]))}")
    found = cycles(graph)
    bad = [c for c in found if frozenset(c) not in {frozenset(k) for k in ALLOWED}]
    for c in found:
        why = ALLOWED.get(frozenset(c))
        print(("allowed: " if why else "CYCLE: ") + " <-> ".join(c) + (f" ({why})" if why else ""))
        if not why:
            for f in c:
                print(f"    {f} uses {', '.join(sorted(d for d in graph[f] if d in c))}")
    print(f"{len(graph)} files, {len(bad)} import cycle(s) not allowed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
