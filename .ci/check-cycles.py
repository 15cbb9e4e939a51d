#!/usr/bin/env python3
"""Fails when files of a crate use each other in a circle, or when code breaks a layer map.

A file uses another when its code names an item defined there:
- in a `use` (braces, renames, globs) or a path in code (`crate::ffi::DLTensor`,
  `tables::CODES` after `use crate::tables;`), followed through imports, re-exports and
  `pub use` globs to the defining file. A `pub use` is an offer, not a need, unless the
  file's own code names it. Paths in attributes are not read.
- through an impl: `T::f`, `path::T::f` and `Self::f` (in an impl of `T`) use the file whose
  impl of `T` defines `f`: inherent impls first, then impls of the crate's own traits, never
  impls of other crates' traits (`{device}` in a format string is no use of `Display`'s
  impl). An inherent impl some of whose items a macro makes (`constants!();`, read in local
  `macro_rules!` bodies too) defines any `T::NAME` no other impl of the struct `T` defines,
  when one file alone has such impls.
- a method call: `self.f(..)` in an impl of `T` as `Self::f`; `x.f(..)` on any other
  receiver, the one file whose impls define a method `f` taking as many arguments, when the
  calling file names that impl's type (or, for a blanket impl, its trait), no other trait of
  the crate declares `f`, and `f` is no method of std's (STD_METHODS) nor a fn of an impl of
  another crate's trait. So a call through a bound `D: Driver` stays a use of the trait.
- `$crate::..` paths in a `#[macro_export]` macro's body are uses of the files invoking it.

Not seen (it would rather miss a use than invent one): method calls whose receiver's type the
file never names, or whose name std or two files' impls use, or with a turbofish;
`<T as Trait>::f`, `T::f` through a type parameter or a foreign type, `Foo::<u8>::f`; impls in
fn bodies or made by exported macros; items made by derives; type aliases as self types.
Test code (`#[cfg(test)]` items, and modules with their files) does not count, nor do files
no `mod` declares. `mod x;` is followed as rustc does (`x.rs`, `x/mod.rs`, `#[path]`).

Layer maps: a module file may order its children in a fenced `text` block of its inner docs
whose first line starts with `layers`, or in CONTRIBUTING.md (the nearest above the sources),
first line `layers of <path from the repository root>`. Each child declared by `mod x;` is
listed once; a file under one child may use a file under another only if that one's line is
below its own. Exit status: 0 clean, 1 problems found, 2 bad usage.
"""
import argparse
import bisect
import os
import re
import sys

TOKEN = re.compile(r"""(?P<space>\s+)|(?P<doc>//![^\n]*)|(?P<comment>//[^\n]*)|(?P<block>/\*)
 |(?P<str>[bc]?r(?P<h>\#*)".*?"(?P=h)|[bc]?"(?:\\.|[^"\\])*")
 |(?P<char>b?'(?:\\(?:u\{[0-9a-fA-F_]*\}|x..|.)|[^\\'\n])')|(?P<life>'(?:r\#)?[A-Za-z_]\w*)
 |(?P<ident>(?:r\#)?[A-Za-z_]\w*)|(?P<num>\d\w*(?:\.\d\w*)?)|(?P<punct>::|->|=>|.)""",
                   re.S | re.X)
STD_METHODS = set("""abs add all and_then any as_bytes as_deref as_mut as_mut_ptr as_ptr as_ref
as_slice as_str borrow borrow_mut bytes capacity cast chain chars checked_add checked_mul clear
checked_sub clone cloned cmp collect contains copied count default deref deref_mut drain drop
ends_with entry enumerate eq err expect extend fill filter filter_map find find_map finish first
flat_map flatten flush fmt fold for_each from from_str get get_mut get_or_init hash insert into
into_inner into_iter into_raw is_empty is_err is_none is_null is_ok is_some is_some_and iter
iter_mut join keys kind last len lines load lock map map_err map_or map_or_else max min name ne
new next nth offset ok ok_or ok_or_else or_else parse partial_cmp path peek pop position pow
product push push_str read remove replace reserve resize retain rev saturating_add saturating_mul
saturating_sub send set size_hint skip sort sort_by source split split_at starts_with step_by
store strip_prefix sub sum swap take then then_some to_owned to_string to_vec trim truncate
try_from try_into type_id unwrap unwrap_or unwrap_or_default unwrap_or_else values
with_capacity wrapping_add write write_fmt write_str zip""".split())
QUALS = {"pub", "crate", "super", "self", "in", "(", ")", "unsafe", "async", "extern", "default"}


def tokenize(src):
    """([(text, kind, line)], [(line, inner doc text)]): literals whole, comments dropped."""
    breaks, toks, docs = [m.start() for m in re.finditer("\n", src)], [], []
    i = 2 if src.startswith("#!") and not src.startswith("#![") else 0
    while i < len(src):
        m = TOKEN.match(src, i)
        kind, text, line = m.lastgroup, m.group(), bisect.bisect(breaks, i) + 1
        if kind == "block":  # block comments nest
            depth, i = 1, i + 2
            while depth and i < len(src):
                step = src[i:i + 2] if src[i:i + 2] in ("/*", "*/") else src[i]
                depth, i = depth + (step == "/*") - (step == "*/"), i + len(step)
            if depth:
                raise SyntaxError(f"line {line}: unterminated block comment")
            continue
        if kind == "punct" and text in "\"'":
            raise SyntaxError(f"line {line}: unterminated literal")
        if kind == "doc":
            docs.append((line, text[3:]))
        elif kind not in ("space", "comment"):
            toks.append((text[2:] if kind == "ident" and text[:2] == "r#" else text, kind, line))
        i = m.end()
    return toks, docs


def close_of(toks, i, opens="([{", closes=")]}"):
    """The index of the bracket closing the one at `i`."""
    depth = 0
    for j in range(i, len(toks)):
        depth += (toks[j][0] in opens) - (toks[j][0] in closes)
        if depth == 0:
            return j
    raise SyntaxError(f"line {toks[i][2]}: unbalanced {toks[i][0]}")


def attrs_at(toks, i):
    """(index after the outer attributes at `i`, whether one is a cfg of test code only)."""
    test = False
    while i + 1 < len(toks) and toks[i][0] == "#" and toks[i + 1][0] == "[":
        j = close_of(toks, i + 1)
        a = [t[0] for t in toks[i + 2:j]]
        test = test or a == ["cfg", "(", "test", ")"] or (
            a[:4] == ["cfg", "(", "all", "("] and "test" in a and "not" not in a)
        i = j + 1
    return i, test


def item_end(toks, i, end, nested=False):
    """The index after the item at `i`: its `;`, its first `{}` group's close, or (`nested`:
    a field, an arm) the `,` or bracket ending it."""
    words = [t[0] for t in toks[i:i + 8] if t[0] not in QUALS]
    semi = words[:1] in (["static"], ["type"], ["use"], ["let"]) or (
        words[:1] == ["const"] and words[1:2] not in (["fn"], ["unsafe"], ["extern"]))
    depth = 0
    for j in range(i, end):
        text = toks[j][0]
        if text in "([{":
            depth += 1
        elif text in ")]}":
            if depth == 0:
                return j
            depth -= 1
            if depth == 0 and text == "}" and not semi:
                return j + 1
        elif depth == 0 and (text == ";" or text == "," and nested):
            return j + 1
    return end


def count_args(toks, i, angles=""):
    """How many elements the bracket group at `i` holds (`<>` nest too with angles="<")."""
    count, depth, empty = 0, 0, True
    for text, _, _ in toks[i + 1:close_of(toks, i)]:
        depth += (text in "([{" + angles) - (text in ")]}" + (angles and ">"))
        count, empty = (count + 1, True) if text == "," and depth == 0 else (count, False)
    return count + (not empty)


class Impl:
    """An impl block (or a trait's body): its trait and self type as written, its items."""

    def __init__(self, module, toks, i):
        j, depth, split = i + 1, 0, None  # the header: up to `{` or `where` outside brackets
        j = close_of(toks, j, "<", ">") + 1 if toks[j][0] == "<" else j
        start = j
        while toks[j][0] not in ("{", ";") and not (depth == 0 and toks[j][0] == "where"):
            depth += (toks[j][0] in "<([") - (toks[j][0] in ">)]")
            if depth == 0 and toks[j][0] == "for" and toks[j + 1][0] != "<" and split is None:
                split = j
            j += 1
        while toks[j][0] not in ("{", ";"):
            j += 1
        self.module, self.file, self.line, self.open = module, module.file, toks[i][2], j
        self.close = close_of(toks, j) if toks[j][0] == "{" else j
        self.trait = (type_path(toks, start, split) or []) if split else None
        self.self_ty = type_path(toks, split + 1 if split else start, j)
        self.items, self.arity, self.opaque, k = {}, {}, False, j + 1
        while k < self.close:  # name -> "method" (takes self), "fn", "const" or "type"
            k, test = attrs_at(toks, k)
            end, w = max(item_end(toks, k, self.close), k + 1), k
            while w + 1 < end and (toks[w][0] in QUALS or toks[w][1] == "str" or (
                    toks[w][0] == "const" and toks[w + 1][0] in ("fn", "unsafe", "extern"))):
                w += 1
            if k < self.close and (toks[w][0] not in ("fn", "const", "type")
                                   or toks[w + 1][1] != "ident"):
                self.opaque |= not test  # items a macro makes: `constants!();`, `fn $name`
            elif k < self.close and not test:
                kind, p = toks[w][0], w + 2
                if kind == "fn":
                    p = close_of(toks, p, "<", ">") + 1 if toks[p][0] == "<" else p
                    q = p + 1
                    while toks[q][0] in ("&", "mut") or toks[q][1] == "life":
                        q += 1
                    kind = "method" if toks[q][0] == "self" else "fn"
                    self.arity[toks[w + 1][0]] = count_args(toks, p, "<") - (kind == "method")
                self.items[toks[w + 1][0]] = kind
            k = end
        self.kind = self.type_key = self.trait_key = None  # set by Crate.impl_index

    def title(self):
        ty = "::".join(self.self_ty or ["?"])
        return f"impl {'::'.join(self.trait) + ' for ' if self.trait else ''}{ty}"


def type_path(toks, i, end):
    """The path a type starts with (`&'a mut dyn a::B<T>` -> ['a', 'B']), or None."""
    while i < end and (toks[i][0] in ("&", "mut", "dyn") or toks[i][1] == "life"):
        i += 1
    segs = chain(toks, i, end)[0] if i < end and toks[i][1] == "ident" else []
    return segs if segs and segs[0] not in ("fn", "impl") else None


def chain(toks, i, end):
    """The path `a::b::c` starting at `i`, and the index after it."""
    segs, j = [toks[i][0]], i + 1
    while j + 1 < end and toks[j][0] == "::" and toks[j + 1][1] == "ident":
        segs, j = segs + [toks[j + 1][0]], j + 2
    return segs, j


def use_leaves(toks, prefix=()):
    """`a::{b, c as d, self, e::*}` -> [(['a','b'],'b'), (['a','c'],'d'), (['a'],'a'),
    (['a','e'],None)]; `::x` (another crate) gives nothing."""
    segs = list(prefix)
    for i, (text, kind, _) in enumerate(toks):
        if text == "{":
            out, k, close = [], i + 1, close_of(toks, i)
            while k < close:
                j, depth = k, 0
                while j < close and (depth or toks[j][0] != ","):
                    depth, j = depth + (toks[j][0] == "{") - (toks[j][0] == "}"), j + 1
                out, k = out + use_leaves(toks[k:j], segs), j + 1
            return out
        if text == "*":
            return [(segs, None)]
        if text == "::" and not segs:
            return []
        if text == "as":
            return [(segs, toks[i + 1][0])]
        if kind == "ident":
            segs += [] if text == "self" else [text]
    return [(segs, segs[-1])] if segs else []


class Module:
    def __init__(self, path, file, inline=False):
        self.path, self.file, self.inline = path, file, inline
        self.children, self.test_children, self.defs, self.kinds = {}, {}, set(), {}
        self.binds, self.globs, self.uses = {}, [], []  # uses: (segs, binding, line, pub)
        self.paths, self.calls, self.macro_calls = [], [], []  # paths: (segs, line, impl)
        self.impls, self.traits, self.idents = [], {}, set()


class Crate:
    def __init__(self, root, contributing=None):
        self.root, self.errors, self.modules, self.files, self.docs = root, [], {}, {}, {}
        self.macros, self.macro_bodies, self.memo, self.index = {}, {}, {}, None
        self.contributing = find_contributing(root) if contributing is None else contributing
        lib = [n for n in ("lib.rs", "main.rs") if os.path.isfile(os.path.join(root, n))]
        if not lib:
            raise SystemExit(f"{root}: no lib.rs or main.rs")
        self.load((), lib[0])

    def load(self, path, file, parent=None):
        with open(os.path.join(self.root, file), encoding="utf-8") as f:
            try:
                toks, self.docs[file] = tokenize(f.read())
                module = self.files[file] = self.modules[path] = Module(path, file)
                if parent is not None:
                    parent.children[path[-1]] = module
                self.walk(module, toks, 0, len(toks), ())
            except SyntaxError as e:
                raise SystemExit(f"{os.path.join(self.root, file)}: {e}")

    def mod_file(self, file, dirs, name, path_attr):
        """The file of `mod name;` written in `file` inside inline modules `dirs`."""
        here, stem = os.path.dirname(file), os.path.basename(file)[:-3]
        base = here if stem in ("lib", "main", "mod") else os.path.join(here, stem)
        if path_attr:
            return os.path.normpath(os.path.join(base if dirs else here, *dirs, path_attr))
        found = [os.path.normpath(c) for c in (os.path.join(base, *dirs, name + ".rs"),
                                                os.path.join(base, *dirs, name, "mod.rs"))
                 if os.path.isfile(os.path.join(self.root, c))]
        return found[0] if found else None

    def walk(self, module, toks, i, end, dirs):
        """Reads the items of toks[i:end] into `module`, and every use, path and call."""
        path_attr, export, prev, depth, impl = None, False, None, 0, None
        while i < end:
            text, kind, line = toks[i]
            nxt = toks[i + 1] if i + 1 < end else ("", "", 0)
            impl = impl if impl and i < impl.close else None
            if text == "#" and nxt[0] == "!":
                i = close_of(toks, i + 2) + 1  # an inner attribute
                continue
            if text == "#" and nxt[0] == "[":
                after, test = attrs_at(toks, i)
                a = [t[0] for t in toks[i + 2:after]]
                path_attr = a[2][1:-1] if a[:2] == ["path", "="] else path_attr
                export = export or a[:1] == ["macro_export"]
                if test:  # test code: left out, but a test module is a child for the maps
                    words = [t[0] for t in toks[after:after + 6] if t[0] not in QUALS]
                    i = item_end(toks, after, end, depth > 0)
                    if words[:1] == ["mod"] and len(words) > 2:
                        module.test_children[words[1]] = words[2] == "{"
                    prev = None
                else:
                    i = after
                continue
            if text == "use" and nxt[0] != "<":
                j = next(j for j in range(i, end) if toks[j][0] == ";")
                public = depth == 0 and toks[i - 1][0] in ("pub", ")")
                tree = [t for k, t in enumerate(toks[i + 1:j], i + 1)
                        if not (t[0] == "$" and toks[k + 1][0] == "crate")]
                for segs, binding in use_leaves(tree):
                    module.uses.append((segs, binding, line, public))
                    if binding is None:
                        module.globs.append(segs)
                    elif binding != "_":
                        module.binds.setdefault(binding, segs)
                i, prev = j + 1, None
                continue
            if depth == 0 and text == "mod" and nxt[1] == "ident":
                path = module.path + (nxt[0],)
                if toks[i + 2][0] == ";":
                    child = self.mod_file(module.file, dirs, nxt[0], path_attr)
                    if child is None:
                        self.errors.append(f"{module.file}:{line}: `mod {nxt[0]};` has no file")
                    elif child not in self.files:
                        self.load(path, child, module)
                    i = i + 3
                else:
                    close = close_of(toks, i + 2)
                    inner = module.children[nxt[0]] = self.modules[path] = Module(
                        path, module.file, inline=True)
                    self.walk(inner, toks, i + 3, close, dirs + (nxt[0],))
                    i = close + 1
                path_attr, prev = None, None
                continue
            if depth == 0 and text in ("fn", "struct", "enum", "union", "trait", "type", "const",
                                       "static") and nxt[1] == "ident" and nxt[0] != "fn":
                module.defs.add(nxt[0])
                module.kinds.setdefault(nxt[0], text)
            if depth == 0 and text == "trait" and nxt[1] == "ident":
                module.traits[nxt[0]] = {n for n, k in Impl(module, toks, i).items.items()
                                         if k == "method"}
            if depth == 0 and text == "impl" and (prev is None or prev[0] in (";", "}", "]")):
                impl = Impl(module, toks, i)
                module.impls.append(impl)
            if depth == 0 and text == "macro_rules" and nxt[0] == "!":
                module.defs.add(toks[i + 2][0])
                close = close_of(toks, i + 3)
                if export:  # its body is code of the files that invoke it
                    self.macros.setdefault(toks[i + 2][0], module.file)
                    bodies = [chain(toks, k + 1, close)[0][1:] for k in range(i + 4, close)
                              if toks[k][0] == "$" and toks[k + 1][0] == "crate"]
                    self.macro_bodies[toks[i + 2][0]] = [b for b in bodies if b]
                    i, prev, export = close + 1, None, False
                    continue
                module.impls += [Impl(module, toks, k) for k in range(i + 4, close)
                                 if toks[k][0] == "impl" and toks[k - 1][0] in ("{", "}", ";")]
            if kind == "ident" and prev is not None and prev[0] == ".":
                if nxt[0] == "(" and toks[i - 2][0] != ".":
                    on_self = toks[i - 2][0] == "self" and toks[i - 3][0] not in (".", "::")
                    module.calls.append((text, line, count_args(toks, i + 1),
                                         impl if on_self else None))
            elif kind == "ident" and (prev is None or prev[0] != "::") and not (
                    prev is not None and prev[0] == "$" and text != "crate"):
                module.idents.add(text)
                segs, j = chain(toks, i, end)
                if len(segs) > 1:
                    module.paths.append((segs, line, impl))
                if j + 1 < end and toks[j][0] == "!" and toks[j + 1][0] != "=":
                    module.macro_calls.append((segs, line))
            depth += (text in "([{") - (text in ")]}")
            if depth == 0 and text in (";", "}"):
                path_attr, export = None, False
            prev, i = toks[i], i + 1

    # ---- names: a path as written -> segments from the crate root -> the defining file ----

    def absolute(self, module, segs, seen=frozenset()):
        """A path written in `module` from the crate root; None for another crate's item."""
        head, rest = segs[0], list(segs[1:])
        if head in ("crate", "self", "super"):
            base = () if head == "crate" else module.path[:-1] if head == "super" else module.path
            while rest[:1] == ["super"]:
                base, rest = base[:-1], rest[1:]
            return list(base) + rest
        if head in module.children or head in module.defs:
            return list(module.path) + [head] + rest
        key = (module.path, head)
        if head not in module.binds or key in seen:
            return None
        if key not in self.memo:
            target = self.absolute(module, module.binds[head], seen | {key})
            if seen:  # cut short by a circle of imports: not the answer to remember
                return None if target is None else target + rest
            self.memo[key] = target
        return None if self.memo[key] is None else self.memo[key] + rest

    def glob_targets(self, module):
        targets = (self.absolute(module, segs) for segs in module.globs)
        return [self.modules[tuple(t)] for t in targets
                if t is not None and tuple(t) in self.modules]

    def offers(self, module, name, seen=frozenset()):
        """Whether `module::name` is a name (defined, imported or glob-imported there)."""
        return name in module.defs or name in module.children or name in module.binds or (
            not module.path and name in self.macros) or (module.path not in seen and any(
                self.offers(g, name, seen | {module.path}) for g in self.glob_targets(module)))

    def find(self, path, seen=frozenset()):
        """(file defining what `path` names, its key (module path, name) or None, how many
        segments follow the item: 1 for `Device::cuda`)."""
        cut = max(c for c in range(len(path) + 1) if tuple(path[:c]) in self.modules)
        module, rest = self.modules[tuple(path[:cut])], path[cut:]
        if not rest or (module.path, rest[0]) in seen:
            return module.file, None, 0
        name, seen = rest[0], seen | {(module.path, rest[0])}
        if name in module.binds:
            target = self.absolute(module, [name])
            return (None, None, 0) if target is None else self.find(target + rest[1:], seen)
        if name in module.defs:
            return module.file, (module.path, name), len(rest) - 1
        if not module.path and name in self.macros:
            return self.macros[name], None, 0
        for glob in self.glob_targets(module):
            if self.offers(glob, name):
                return self.find(list(glob.path) + rest, seen)
        return module.file, None, 0

    def key(self, module, segs):
        """The key of the item that a path written in `module` names, else None."""
        target = self.absolute(module, segs)
        found = self.find(target) if target is not None else (None, None, 1)
        return found[1] if found[2] == 0 else None

    # ---- impls ----

    def impl_index(self):
        """{type key: [Impl]}, {method: [Impl]} (inherent and crate-trait impls), the fns of
        impls of other crates' traits, {method: keys of the crate's traits declaring it}."""
        if self.index is None:
            by_type, by_method, foreign, declared = {}, {}, set(), {}
            for module in self.modules.values():
                for trait, methods in module.traits.items():
                    for name in methods:
                        declared.setdefault(name, set()).add((module.path, trait))
                for impl in module.impls:
                    impl.type_key = impl.self_ty and self.key(module, impl.self_ty)
                    impl.trait_key = impl.trait and self.key(module, impl.trait)
                    impl.kind = "inherent" if impl.trait is None else \
                        "local" if impl.trait_key else "foreign"
                    by_type.setdefault(impl.type_key, []).append(impl)
                    if impl.kind == "foreign":
                        foreign.update(n for n, k in impl.items.items() if k != "type")
                    for name in (n for n, k in impl.items.items() if k == "method"):
                        if impl.kind != "foreign":
                            by_method.setdefault(name, []).append(impl)
            self.index = by_type, by_method, foreign, declared
        return self.index

    def impl_uses(self, module):
        """(file, line, what) for each use of an item of an impl block by `module`."""
        by_type, by_method, foreign, declared = self.impl_index()

        def of_type(key, name, macro_made=True):
            impls = by_type.get(key, []) if key else []
            found = [i for i in impls if name in i.items]
            if found:
                return [i for i in found if i.kind == "inherent"] or [
                    i for i in found if i.kind == "local"]
            opaque = [i for i in impls if i.opaque and i.kind == "inherent"]
            if macro_made and len({i.file for i in opaque}) == 1 and name not in (
                    STD_METHODS | foreign | set(declared)) and self.modules[key[0]].kinds.get(
                    key[1]) in ("struct", "union"):
                return opaque
            return []

        paths = [(impl and impl.type_key, segs[1]) if segs[0] == "Self" else
                 (self.key(module, segs[:-1]), segs[-1]) for segs, _, impl in module.paths]
        paths = [(key, name, line, "::".join(segs))
                 for (key, name), (segs, line, _) in zip(paths, module.paths)]
        for segs, line in module.macro_calls:
            if self.invokes_exported(module, segs):
                paths += [(self.find(body[:-1])[1], body[-1], line, f"{segs[-1]}!")
                          for body in self.macro_bodies.get(segs[-1], []) if len(body) > 1]
        for key, name, line, what in paths:
            yield from ((i.file, line, f"{what}, in {i.title()}") for i in of_type(key, name))
        named = self.named_keys(module)
        for name, line, args, impl in module.calls:
            own = of_type(impl.type_key, name, False) if impl else []
            impls = by_method.get(name, [])
            if own:
                yield from ((i.file, line, f"self.{name}(), in {i.title()}") for i in own)
            elif (name not in STD_METHODS and name not in foreign
                  and len({i.file for i in impls}) == 1
                  and all(i.arity[name] == args for i in impls)
                  and not declared.get(name, set()) - {i.trait_key for i in impls}):
                yield from [(i.file, line, f".{name}(), in {i.title()}") for i in impls
                            if (i.type_key or i.trait_key) in named][:1]

    def named_keys(self, module):
        """The keys of the crate's items that `module` defines, imports or names in code."""
        keys = {(module.path, n) for n in module.defs}
        keys |= {self.key(module, segs) for segs, binding, _, _ in module.uses if binding}
        keys |= {self.find(t)[1] for t in (self.absolute(module, s) for s, _, _ in module.paths)
                 if t is not None}
        for glob in self.glob_targets(module):
            keys |= {self.find(list(glob.path) + [n])[1] for n in module.idents - set(module.binds)
                     if self.offers(glob, n)}
        return keys

    def invokes_exported(self, module, segs):
        """Whether `segs!` in `module` invokes one of the crate's #[macro_export] macros."""
        target = self.absolute(module, segs) if len(segs) > 1 else None
        return segs[-1] in self.macros and (len(segs) == 1 or (
            target is not None and self.find(target)[0] == self.macros[segs[-1]]))

    def deps(self):
        """{file: {file it uses: (line, what) of the first use}}."""
        graph = {f: {} for f in self.files}
        for module in self.modules.values():
            out = graph[module.file]

            def add(target, line, what):
                if target in self.files and target != module.file:
                    out.setdefault(target, (line, what))

            for segs, binding, line, public in module.uses:
                target = self.absolute(module, segs)
                if target is None or (public and binding not in module.idents):
                    continue  # another crate's, or a re-export: an offer, not a need
                written = "use " + "::".join(segs) + ("::*" if binding is None else "")
                glob = self.modules.get(tuple(target)) if binding is None else None
                names = [n for n in sorted(module.idents) if self.offers(glob, n)] if glob else []
                for n in names:
                    add(self.find(target + [n])[0], line, f"{written} ({n})")
                if not names:
                    add(self.find(target)[0], line, written)
            for segs, line, _ in module.paths:
                target = self.absolute(module, segs)
                if target is not None:
                    add(self.find(target)[0], line, "::".join(segs))
            for segs, line in module.macro_calls:
                if self.invokes_exported(module, segs):
                    add(self.macros[segs[-1]], line, f"{segs[-1]}!")
                    for body in self.macro_bodies.get(segs[-1], []):
                        add(self.find(body)[0], line, f"{segs[-1]}! ($crate::{'::'.join(body)})")
            for target, line, what in self.impl_uses(module):
                add(target, line, "impl: " + what)
        return graph

    def layer_maps(self):
        """([(file, [(where, names of a line)], where the map is)], errors in the maps)."""
        maps, errors, blocks = {}, [], []
        for file, docs in sorted(self.docs.items()):
            blocks += [(file, f"{file}:{n}", rows, "layers") for n, rows in fenced(docs)]
        if self.contributing:
            md, base = os.path.relpath(self.contributing), os.path.dirname(self.contributing)
            with open(self.contributing, encoding="utf-8") as f:
                lines = list(enumerate(f.read().split("\n"), 1))
            for n, rows in fenced(lines):
                words = rows[0][1] + [""] * 2
                file = os.path.relpath(os.path.join(base, words[2]), self.root)
                if words[1] != "of" or not words[2]:
                    errors.append(f"{md}:{n}: a layers block here names its file: "
                                  "`layers of <path from the repository root>`")
                elif file in self.files or not file.startswith("..") or not os.path.isfile(
                        os.path.join(self.root, file)):  # else another crate's map
                    blocks.append((file, f"{md}:{n}", rows, f"layers of {words[2]}"))
        for file, at, rows, label in blocks:
            if file not in self.files:
                errors.append(f"{at}: {label}: " + ("not a module file of the crate (no `mod` "
                              "names it, or it is test code)" if os.path.isfile(os.path.join(
                                  self.root, file)) else "no such file"))
            elif file in maps:
                errors.append(f"{at}: {label}: {file} has a map already ({maps[file][1]}); "
                              "keep one")
            else:
                maps[file] = (rows[1:], at, label)
        return maps, errors

    def check_layers(self, graph):
        maps, errors = self.layer_maps()
        for file, (rows, at, label) in sorted(maps.items()):
            module, level = self.files[file], {}
            declared = {n for n, c in module.children.items() if not c.inline} | {
                n for n, inline in module.test_children.items() if not inline}
            for row, (n, names) in enumerate(rows):
                for name in names:
                    if name in level or name not in declared:
                        errors.append(f"{at.split(':')[0]}:{n}: {label}: `{name}` is " + (
                            "listed twice" if name in level else f"not a child module of "
                            f"{file} declared by `mod {name};` (its children: "
                            f"{', '.join(sorted(declared)) or 'none'})"))
                    level.setdefault(name, row)
            errors += [f"{at}: {label}: child module `{n}` is missing from the map"
                       for n in sorted(declared - set(level))]
            d, source = len(module.path), "" if label == "layers" else f" (its map: {at})"
            under = {f: m.path[d] for f, m in self.files.items()
                     if m.path[:d] == module.path and len(m.path) > d and m.path[d] in level}
            for a, b in ((a, b) for a in sorted(under) for b in sorted(graph[a])):
                if b in under and under[a] != under[b] and level[under[b]] <= level[under[a]]:
                    errors.append(
                        f"{a}:{graph[a][b][0]}: layers of {file}{source}: `{under[a]}` uses "
                        f"`{under[b]}` ({graph[a][b][1]}, in {b}), which is " + (
                            "on the same line as" if level[under[b]] == level[under[a]]
                            else "above") + " it; a module uses only modules on lines below "
                        "its own")
        return errors


def fenced(lines):
    """The fenced `text` blocks in [(line, text)] whose first line starts with `layers`,
    outside other fences: [(line, [(line, words), ...])]."""
    out, k = [], 0
    while k < len(lines):
        m = re.match(r"\s{0,3}(`{3,}|~{3,})\s*(\S*)", lines[k][1])
        if m:
            fence = re.compile(r"\s{0,3}%s{%d,}\s*" % (re.escape(m[1][0]), len(m[1])))
            j = next((j for j in range(k + 1, len(lines)) if fence.fullmatch(lines[j][1])),
                     len(lines))
            rows = [(n, t.split()) for n, t in lines[k + 1:j] if t.split()]
            if m[2] == "text" and rows and rows[0][1][0] == "layers":
                out.append((rows[0][0], rows))
            k = j
        k += 1
    return out


def find_contributing(root):
    """The CONTRIBUTING.md nearest above `root`, or None."""
    folder = os.path.abspath(root)
    while not os.path.isfile(os.path.join(folder, "CONTRIBUTING.md")):
        if os.path.dirname(folder) == folder:
            return None
        folder = os.path.dirname(folder)
    return os.path.join(folder, "CONTRIBUTING.md")


def reach(graph, start):
    """{file reached from `start`: the file before it on a shortest way there}."""
    back, queue = {}, [start]
    for v in queue:
        for w in sorted(graph[v]):
            if w not in back:
                back[w] = v
                queue.append(w)
    return back


def check(root, show_graph=False, out=sys.stdout, contributing=None):
    """Checks one crate and prints what it finds; returns the number of problems."""
    crate = Crate(root, contributing)
    graph = crate.deps()
    for f in sorted(graph) if show_graph else ():
        print(f"{f}: " + ", ".join(f"{g} [{w}, line {n}]" if w.startswith("impl:") else g
                                   for g, (n, w) in sorted(graph[f].items())), file=out)
    for e in crate.errors:
        print(f"ERROR: {e}", file=out)
    backs = {f: reach(graph, f) for f in graph}
    cycles = sorted({tuple(sorted({f} | {g for g in backs[f] if f in backs[g]}))
                     for f in graph if f in backs[f]})
    for comp in cycles:
        print("CYCLE: " + " <-> ".join(comp), file=out)
        for f in comp:  # the shortest circle through each file: what to cut
            circle = [f]
            while backs[f][circle[-1]] != f:
                circle.append(backs[f][circle[-1]])
            print("  circle: " + " -> ".join([f] + circle[:0:-1] + [f]), file=out)
        for f, g in ((f, g) for f in comp for g in sorted(graph[f]) if g in comp):
            print(f"    {f}:{graph[f][g][0]} uses {g} ({graph[f][g][1]})", file=out)
    layer_errors = crate.check_layers(graph)
    for e in layer_errors:
        print(f"LAYERS: {e}", file=out)
    print(f"{root}: {len(graph)} files, {len(cycles)} import cycle(s), {len(layer_errors)} "
          f"layer error(s) in {len(crate.layer_maps()[0])} layer map(s)", file=out)
    return len(crate.errors) + len(cycles) + len(layer_errors)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0], epilog="The rules: this file's docstring.")
    parser.add_argument("crates", nargs="+", metavar="SRC", help="a crate's source folder, "
                        "e.g. dlpack-core/src dlpack-derive/src dlpack-grammar/src")
    parser.add_argument("--graph", action="store_true", help="print every file's uses too")
    args = parser.parse_args(argv)
    return 1 if sum([check(root, args.graph) for root in args.crates]) else 0


if __name__ == "__main__":
    sys.exit(main())
