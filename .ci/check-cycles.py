#!/usr/bin/env python3
"""Fails when files of a crate use each other in a circle, or when code breaks a layer map.

A file uses another when its code names an item defined there (test code, `#[cfg(test)]`
items and modules with their files, does not count):
- a `use` or a path in code, followed through imports, re-exports and globs to the defining
  file; a `pub use` is an offer, not a need, unless the file's own code names it.
- `T::f`, `path::T::f`, `Self::f`: the file whose impl of `T` defines `f`, inherent impls
  first, then impls of the crate's traits, never of other crates' traits; if none does, the
  one file with inherent impls of the struct `T` whose items a macro makes (`consts!();`).
- `self.f(..)` in an impl as `Self::f`; `x.f(..)`: the one file whose impls define a method
  `f` of as many arguments, if the caller names that impl's type (or a blanket impl's trait),
  no other trait of the crate declares `f`, and `f` is neither std's (STD_METHODS) nor a fn
  of an impl of another crate's trait (a call through a bound `D: Driver` uses the trait).
- `$crate::..` paths in a `#[macro_export]` macro's body: uses of the files invoking it.
Not seen (it would rather miss a use than invent one): paths in attributes; method calls
whose receiver's type the file never names, or with a turbofish; `<T as Trait>::f`, `T::f`
through a type parameter or a foreign type, `Foo::<u8>::f`; impls in fn bodies or made by
exported macros; items made by derives; type aliases as self types. `mod x;` is followed as
rustc does (`x.rs`, `x/mod.rs`, `#[path]`); files no `mod` declares do not count.

Layer maps: a fenced `text` block whose first line starts with `layers`, in a module file's
inner docs or (first line `layers of <path from the repository root>`) in the CONTRIBUTING.md
nearest above the sources, lists once each child the module declares by `mod x;`. A file
under one child may use a file under another only if that one's line is below its own.
Exit status: 0 clean, 1 problems found, 2 bad usage.
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
NONE = ("", "", 0)  # no token
QUALS = {"pub", "crate", "super", "self", "in", "(", ")", "unsafe", "async", "extern", "default"}


def tokenize(src):
    """([(text, kind, line)], [(line, inner doc text)]): literals whole, comments dropped."""
    breaks, toks, docs = [m.start() for m in re.finditer("\n", src)], [], []
    i = 2 if src.startswith("#!") and not src.startswith("#![") else 0
    while i < len(src):
        m = TOKEN.match(src, i)
        kind, text, line = m.lastgroup, m.group(), bisect.bisect(breaks, i) + 1
        if kind == "block":  # block comments nest
            depth = 0
            for b in re.compile(r"/\*|\*/").finditer(src, i):
                depth += 1 if b[0] == "/*" else -1
                if depth == 0:
                    break
            if depth:
                raise SyntaxError(f"line {line}: unterminated block comment")
            i = b.end()
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
        if text in ")]}" and depth == 0:
            return j
        depth += (text in "([{") - (text in ")]}")
        if depth == 0 and (text == "}" and not semi or text == ";" or text == "," and nested):
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

    def __init__(self, file, toks, i):
        start = close_of(toks, i + 1, "<", ">") + 1 if toks[i + 1][0] == "<" else i + 1
        j = next(j for j in range(start, len(toks)) if toks[j][0] in ("{", ";"))
        self.file, depth, split = file, 0, None  # a `for` outside brackets splits the header
        for k in range(start, j):
            depth += (toks[k][0] in "<([") - (toks[k][0] in ">)]")
            word = toks[k][0] if depth == 0 else None
            if word == "where" or word == "for" and toks[k + 1][0] != "<":
                split = k if word == "for" else None
                break
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
        self.title = "impl " + ("::".join(self.trait) + " for " if self.trait else "") + \
            "::".join(self.self_ty or ["?"])


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
    """A module's names (defs: name -> kind) and what its code writes: uses (segs, binding,
    line, pub), paths (segs, line, impl around them), calls, macro calls, impls, traits."""

    def __init__(self, path, file):
        self.path, self.file, self.children, self.layered = path, file, {}, set()
        self.defs, self.binds, self.uses, self.paths, self.calls = {}, {}, [], [], []
        self.macro_calls, self.impls, self.traits, self.idents = [], [], {}, set()


class Crate:
    def __init__(self, root, contributing=None):
        self.root, self.errors, self.modules, self.files, self.docs = root, [], {}, {}, {}
        self.macros, self.macro_bodies = {}, {}
        up = os.path.abspath(root)  # by default the CONTRIBUTING.md nearest above the sources
        while os.path.dirname(up) != up and not os.path.isfile(f"{up}/CONTRIBUTING.md"):
            up = os.path.dirname(up)
        found = os.path.join(up, "CONTRIBUTING.md")
        self.contributing = contributing if contributing is not None else (
            found if os.path.isfile(found) else None)
        lib = [n for n in ("lib.rs", "main.rs") if os.path.isfile(os.path.join(root, n))]
        if not lib:
            raise SystemExit(f"{root}: no lib.rs or main.rs")
        self.load((), lib[0])
        self.index = self.impl_index()

    def load(self, path, file, parent=None):
        with open(os.path.join(self.root, file), encoding="utf-8") as f:
            try:
                toks, self.docs[file] = tokenize(f.read())
                module = self.files[file] = self.modules[path] = Module(path, file)
                if parent is not None:
                    parent.children[path[-1]] = module
                    parent.layered.add(path[-1])
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
        path_attr, export, prev, depth, impl = None, False, NONE, 0, None
        while i < end:
            (text, kind, line), nxt = toks[i], toks[i + 1] if i + 1 < end else NONE
            impl = impl if impl and i < impl.close else None
            if text == "#" and nxt[0] == "!":  # an inner attribute
                i = close_of(toks, i + 2) + 1
                continue
            if text == "#" and nxt[0] == "[":
                after, test = attrs_at(toks, i)
                a = [t[0] for t in toks[i + 2:after]]
                path_attr = a[2][1:-1] if a[:2] == ["path", "="] else path_attr
                export = export or a[:1] == ["macro_export"]
                i, prev = (item_end(toks, after, end, depth > 0), NONE) if test else (after, prev)
                words = [t[0] for t in toks[after:after + 6] if t[0] not in QUALS]
                if test and words[:1] == ["mod"] and len(words) > 2 and words[2] != "{":
                    module.layered.add(words[1])  # test code, but a child for the maps
                continue
            if text == "use" and nxt[0] != "<":
                j = next(j for j in range(i, end) if toks[j][0] == ";")
                public = depth == 0 and toks[i - 1][0] in ("pub", ")")
                tree = [t for k, t in enumerate(toks[i + 1:j], i + 1)
                        if not (t[0] == "$" and toks[k + 1][0] == "crate")]
                for segs, binding in use_leaves(tree):
                    module.uses.append((segs, binding, line, public))
                    if binding not in (None, "_"):
                        module.binds.setdefault(binding, segs)
                i, prev = j + 1, NONE
                continue
            if depth == 0 and text == "mod" and nxt[1] == "ident":
                path = module.path + (nxt[0],)
                if toks[i + 2][0] == ";":
                    child, i = self.mod_file(module.file, dirs, nxt[0], path_attr), i + 3
                    if child is None:
                        self.errors.append(f"{module.file}:{line}: `mod {nxt[0]};` has no file")
                    elif child not in self.files:
                        self.load(path, child, module)
                else:
                    close = close_of(toks, i + 2)
                    inner = module.children[nxt[0]] = self.modules[path] = Module(path, module.file)
                    self.walk(inner, toks, i + 3, close, dirs + (nxt[0],))
                    i = close + 1
                path_attr, prev = None, NONE
                continue
            if depth == 0 and text in ("fn", "struct", "enum", "union", "trait", "type", "const",
                                       "static") and nxt[1] == "ident" and nxt[0] != "fn":
                module.defs.setdefault(nxt[0], text)
                if text == "trait":
                    items = Impl(module.file, toks, i).items.items()
                    module.traits[nxt[0]] = {n for n, k in items if k == "method"}
            if depth == 0 and text == "impl" and prev[0] in ("", ";", "}", "]"):
                impl = Impl(module.file, toks, i)
                module.impls.append(impl)
            if depth == 0 and text == "macro_rules" and nxt[0] == "!":
                name, close = toks[i + 2][0], close_of(toks, i + 3)
                module.defs.setdefault(name, "macro")
                if export:  # its body is code of the files that invoke it
                    self.macros.setdefault(name, module.file)
                    bodies = [chain(toks, k + 1, close)[0][1:] for k in range(i + 4, close)
                              if toks[k][0] == "$" and toks[k + 1][0] == "crate"]
                    self.macro_bodies[name] = [b for b in bodies if b]
                    i, prev, export = close + 1, NONE, False
                    continue
                module.impls += [Impl(module.file, toks, k) for k in range(i + 4, close)
                                 if toks[k][0] == "impl" and toks[k - 1][0] in ("{", "}", ";")]
            if kind == "ident" and prev[0] == ".":
                if nxt[0] == "(" and toks[i - 2][0] != ".":
                    on_self = toks[i - 2][0] == "self" and toks[i - 3][0] not in (".", "::")
                    module.calls.append((text, line, count_args(toks, i + 1),
                                         impl if on_self else None))
            elif kind == "ident" and prev[0] != "::" and (prev[0] != "$" or text == "crate"):
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
        if head not in module.binds or head in seen:
            return None  # another crate's (or a circle of imports)
        target = self.absolute(module, module.binds[head], seen | {head})
        return None if target is None else target + rest

    def glob_targets(self, module):
        found = [self.absolute(module, segs) for segs, b, _, _ in module.uses if b is None]
        return [self.modules[tuple(t)] for t in found
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
        glob = next((g for g in self.glob_targets(module) if self.offers(g, name)), None)
        return self.find(list(glob.path) + rest, seen) if glob else (module.file, None, 0)

    def item(self, path):
        """The key of the item that a path from the crate root names exactly, else None."""
        found = self.find(path) if path is not None else (None, None, 1)
        return found[1] if found[2] == 0 else None

    # ---- uses: of names, then of the items of impls ----

    def impl_index(self):
        """{type key: [Impl]}, {method: [Impl]} (inherent and crate-trait impls), the fns of
        impls of other crates' traits, {method: keys of the crate's traits declaring it}."""
        by_type, by_method, foreign, declared = {}, {}, set(), {}
        for module in self.modules.values():
            for trait, methods in module.traits.items():
                for name in methods:
                    declared.setdefault(name, set()).add((module.path, trait))
            for impl in module.impls:
                impl.type_key = impl.self_ty and self.item(self.absolute(module, impl.self_ty))
                impl.trait_key = impl.trait and self.item(self.absolute(module, impl.trait))
                impl.kind = "inherent" if impl.trait is None else \
                    "local" if impl.trait_key else "foreign"
                by_type.setdefault(impl.type_key, []).append(impl)
                if impl.kind == "foreign":
                    foreign.update(n for n, k in impl.items.items() if k != "type")
                else:
                    for name in (n for n, k in impl.items.items() if k == "method"):
                        by_method.setdefault(name, []).append(impl)
        return by_type, by_method, foreign, declared

    def of_type(self, key, name, macro_made=True):
        """The impls of the type `key` that `key::name` reaches."""
        by_type, _, foreign, declared = self.index
        impls = by_type.get(key, []) if key else []
        found = [i for i in impls if name in i.items]
        if found:
            return [i for i in found if i.kind == "inherent"] or [
                i for i in found if i.kind == "local"]
        opaque = [i for i in impls if i.opaque and i.kind == "inherent"]
        if macro_made and len({i.file for i in opaque}) == 1 and name not in (
                STD_METHODS | foreign | set(declared)) and self.modules[key[0]].defs.get(
                key[1]) in ("struct", "union"):
            return opaque
        return []

    def uses_of(self, module):
        """(file, line, what) for each use by `module`: of names first, then through impls."""
        out, named = [], []  # named: (segs, path from the root, line, what, impl around it)
        keys = {(module.path, n) for n in module.defs}  # of the items it defines or names
        for segs, binding, line, public in module.uses:
            target = self.absolute(module, segs)
            keys |= {self.item(target)} if binding else set()
            if target is None or (public and binding not in module.idents):
                continue  # another crate's, or a re-export: an offer, not a need
            written = "use " + "::".join(segs) + ("::*" if binding is None else "")
            glob = self.modules.get(tuple(target)) if binding is None else None
            names = [n for n in sorted(module.idents) if self.offers(glob, n)] if glob else []
            out += [(self.find(target + [n])[0], line, f"{written} ({n})") for n in names]
            out += [] if names else [(self.find(target)[0], line, written)]
        for segs, line, impl in module.paths:
            target = self.absolute(module, segs)
            named.append((segs, target, line, "::".join(segs), impl))
            if target is not None:
                file, key, _ = self.find(target)
                out.append((file, line, "::".join(segs)))
                keys.add(key)
        for segs, line in module.macro_calls:  # of an exported macro: its body's paths too
            target = self.absolute(module, segs) if len(segs) > 1 else None
            if segs[-1] in self.macros and (len(segs) == 1 or (
                    target is not None and self.find(target)[0] == self.macros[segs[-1]])):
                out.append((self.macros[segs[-1]], line, f"{segs[-1]}!"))
                for body in self.macro_bodies[segs[-1]]:
                    out.append((self.find(body)[0], line,
                                f"{segs[-1]}! ($crate::{'::'.join(body)})"))
                    named.append((body, body, line, f"{segs[-1]}!", None))
        for segs, target, line, what, impl in named:
            key = impl and impl.type_key if segs[0] == "Self" else self.item(
                target and target[:-1])
            name = segs[1] if segs[0] == "Self" else segs[-1]
            out += [(i.file, line, f"impl: {what}, in {i.title}")
                    for i in self.of_type(key, name)]
        for glob in self.glob_targets(module):
            keys |= {self.find(list(glob.path) + [n])[1] for n in module.idents - set(module.binds)
                     if self.offers(glob, n)}
        _, by_method, foreign, declared = self.index
        for name, line, args, impl in module.calls:
            own = self.of_type(impl.type_key, name, False) if impl else []
            impls = by_method.get(name, [])
            if own:
                out += [(i.file, line, f"impl: self.{name}(), in {i.title}") for i in own]
            elif (name not in STD_METHODS and name not in foreign
                  and len({i.file for i in impls}) == 1
                  and all(i.arity[name] == args for i in impls)
                  and not declared.get(name, set()) - {i.trait_key for i in impls}):
                out += [(i.file, line, f"impl: .{name}(), in {i.title}") for i in impls
                        if (i.type_key or i.trait_key) in keys][:1]
        return out

    def deps(self):
        """{file: {file it uses: (line, what) of the first use}}."""
        graph = {f: {} for f in self.files}
        for module in self.modules.values():
            for target, line, what in self.uses_of(module):
                if target in self.files and target != module.file:
                    graph[module.file].setdefault(target, (line, what))
        return graph

    def check_layers(self, graph):
        """(errors in the layer maps and in uses against them, how many maps there are)."""
        errors, maps = [], {}
        blocks = [(f, f"{f}:{n}", rows, "layers") for f, docs in sorted(self.docs.items())
                  for n, rows in fenced(docs)]
        if self.contributing:
            md, base = os.path.relpath(self.contributing), os.path.dirname(self.contributing)
            with open(self.contributing, encoding="utf-8") as f:
                lines = list(enumerate(f.read().split("\n"), 1))
            for n, rows in fenced(lines):
                words = rows[0][1] + ["", ""]
                file = os.path.relpath(os.path.join(base, words[2]), self.root)
                if words[1] != "of" or not words[2]:
                    errors.append(f"{md}:{n}: a layers block here names its file: "
                                  "`layers of <path from the repository root>`")
                elif file in self.files or not file.startswith("..") or not os.path.isfile(
                        os.path.join(self.root, file)):  # else another crate's map
                    blocks.append((file, f"{md}:{n}", rows, f"layers of {words[2]}"))
        for file, at, rows, label in blocks:
            if file in self.files and file not in maps:
                maps[file] = (rows[1:], at, label)
                continue
            errors.append(f"{at}: {label}: " + (
                f"{file} has a map already ({maps[file][1]}); keep one" if file in maps else
                "not a module file of the crate (no `mod` names it, or it is test code)"
                if os.path.isfile(os.path.join(self.root, file)) else "no such file"))
        for file, (rows, at, label) in sorted(maps.items()):
            module, level = self.files[file], {}
            for row, (n, names) in enumerate(rows):
                for name in names:
                    if name in level or name not in module.layered:
                        errors.append(f"{at.split(':')[0]}:{n}: {label}: `{name}` is " + (
                            "listed twice" if name in level else f"not a child module of "
                            f"{file} declared by `mod {name};` (its children: "
                            f"{', '.join(sorted(module.layered)) or 'none'})"))
                    level.setdefault(name, row)
            errors += [f"{at}: {label}: child module `{n}` is missing from the map"
                       for n in sorted(module.layered - set(level))]
            d, source = len(module.path), "" if label == "layers" else f" (its map: {at})"
            under = {f: m.path[d] for f, m in self.files.items()
                     if m.path[:d] == module.path and len(m.path) > d and m.path[d] in level}
            for a, b in ((a, b) for a in sorted(under) for b in sorted(graph[a]) if b in under):
                (n, what), x, y = graph[a][b], under[a], under[b]
                if x != y and level[y] <= level[x]:
                    where = "on the same line as" if level[y] == level[x] else "above"
                    errors.append(f"{a}:{n}: layers of {file}{source}: `{x}` uses `{y}` ({what}, "
                                  f"in {b}), which is {where} it; a module uses only modules on "
                                  "lines below its own")
        return errors, len(maps)


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


def reach(graph, start):
    """{file reached from `start`: the file before it on a shortest way there}."""
    back, queue = {}, [start]
    for v in queue:
        for w in sorted(graph[v]):
            if w not in back:
                back[w] = v
                queue.append(w)
    return back


def check(root, show_graph=False, out=None, contributing=None):
    """Checks one crate and prints what it finds; returns the number of problems."""
    crate = Crate(root, contributing)
    graph = crate.deps()
    backs = {f: reach(graph, f) for f in graph}
    cycles = sorted({tuple(sorted({f} | {g for g in backs[f] if f in backs[g]}))
                     for f in graph if f in backs[f]})
    layer_errors, maps = crate.check_layers(graph)
    lines = [f"{f}: " + ", ".join(f"{g} [{w}, line {n}]" if w.startswith("impl:") else g
                                  for g, (n, w) in sorted(graph[f].items()))
             for f in (sorted(graph) if show_graph else ())]
    lines += [f"ERROR: {e}" for e in crate.errors]
    for comp in cycles:
        lines.append("CYCLE: " + " <-> ".join(comp))
        for f in comp:  # the shortest circle through each file: what to cut
            circle = [f]
            while backs[f][circle[-1]] != f:
                circle.append(backs[f][circle[-1]])
            lines.append("  circle: " + " -> ".join([f] + circle[:0:-1] + [f]))
        lines += [f"    {f}:{graph[f][g][0]} uses {g} ({graph[f][g][1]})"
                  for f in comp for g in sorted(graph[f]) if g in comp]
    lines += [f"LAYERS: {e}" for e in layer_errors]
    print("\n".join(lines + [f"{root}: {len(graph)} files, {len(cycles)} import cycle(s), "
                             f"{len(layer_errors)} layer error(s) in {maps} layer map(s)"]),
          file=out)
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
