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

The files are read with a tokenizer of Rust's lexical grammar (nested block comments, raw and
byte strings, strings continued with `\\` at a line end, char literals against lifetimes, raw
identifiers), not with regular expressions over the text: a pattern that misreads one string
swallows the code after it, and the cycle in that code goes unseen.

A module file whose inner docs (`//!`) hold a fenced `text` block whose first line starts with
`layers` is also held to that map (the format is in CONTRIBUTING.md): each following line
names child modules declared in the file (`mod x;`, `#[cfg(test)]` ones included), every one
exactly once (modules written inline belong to the file and are not listed), and a file under
one child may use a file under another only if the other's line is below its own, never one on
its own line.

Exit status 1 when any cycle or layer error is found, 0 otherwise.
"""
import os
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
        self.paths = []  # (segments, line) written in code
        self.idents = set()  # identifiers in code (outside `use` declarations)
        self.uses = []  # (segments as written, line, pub, binding or None for a glob)
        self.test_children = {}  # `#[cfg(test)] mod x`: name -> written inline or not
        self.macro_calls = []  # (segments, line) of invocations of #[macro_export] macros


class Crate:
    def __init__(self, root):
        self.root = root
        self.errors = []
        self.modules = {}  # path tuple -> Module
        self.files = {}  # file -> its Module (the file's own, not inline ones)
        self.docs = {}  # file -> inner doc lines
        self.macros = {}  # #[macro_export] name -> file
        # #[macro_export] name -> the `$crate` paths of its body: uses of the files that
        # invoke it, not of the file that defines it (the body expands where it is invoked)
        self.macro_bodies = {}
        self.self_aliases = {"crate"}  # `crate`, and names given by `extern crate self as x;`
        self._memo = {}
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
        while i < end:
            t = tokens[i]
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
                if t.text == "macro_rules" and nxt is not None and nxt.text == "!" and i + 3 < end:
                    name = tokens[i + 2].text
                    module.defs.add(name)
                    if any(a and a[0].text == "macro_export" for a in attrs):
                        self.macros.setdefault(name, file)
                        close = matching(tokens, i + 3)
                        self.macro_bodies.setdefault(name, _crate_paths(tokens, i + 4, close))
                        i = close + 1
                        prev = None
                        continue
            if t.kind == "punct":
                if t.text in OPEN:
                    depth += 1
                elif t.text in CLOSE:
                    depth -= 1
                if depth == 0 and t.text in (";", "}"):
                    attrs = []
            self._scan_code(module, tokens, i, prev, end)
            prev = t
            i += 1

    def _scan_code(self, module, tokens, k, prev, end):
        """Records the identifier at `k` (after `prev`) and the path that starts there."""
        t = tokens[k]
        if t.kind != "ident" or (prev is not None and prev.text == "."):
            return  # not a name, or a field or method
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

    def resolve(self, path, seen=frozenset()):
        """The file defining the item at `path` (segments from the crate root)."""
        for cut in range(len(path), -1, -1):
            module = self.modules.get(tuple(path[:cut]))
            if module is not None:
                break
        rest = path[cut:]
        if not rest:
            return module.file
        name = rest[0]
        key = (module.path, name)
        if key in seen:
            return module.file
        if name in module.bindings:
            target = self.binding_target(module, name)
            if target is None:
                return None  # another crate's item, imported or re-exported here
            return self.resolve(target + rest[1:], seen | {key})
        if name in module.defs:
            return module.file
        if not module.path and name in self.macros:
            return self.macros[name]
        for segs, _, _ in module.globs:
            target = self.absolute(module, segs)
            if target is not None and tuple(target) in self.modules:
                if self.offers(self.modules[tuple(target)], name):
                    return self.resolve(target + rest, seen | {key})
        return module.file

    def deps(self):
        """file -> {file it uses: (line, what) of its first use}."""
        graph = {f: {} for f in self.files}
        for module in self.modules.values():
            out = graph[module.file]

            def add(target, line, what):
                if target is not None and target != module.file and target in self.files:
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
                if name not in self.macros:
                    continue  # another crate's macro, or a local macro_rules!
                if len(segs) > 1:  # `crate::name!`: the crate's macro only if it resolves to it
                    target = self.absolute(module, segs)
                    if target is None or self.resolve(target) != self.macros[name]:
                        continue
                add(self.macros[name], line, f"{name}!")
                for body, _ in self.macro_bodies.get(name, ()):
                    add(self.resolve(body), line, f"{name}! ({'::'.join(['$crate'] + body)})")
        return graph

    def layer_maps(self):
        """(file, [[names of a line], ...], line of the block) for each file with a map; bad
        blocks are reported in self.errors."""
        maps = []
        for file, docs in sorted(self.docs.items()):
            blocks, k = [], 0
            while k < len(docs):
                line, text = docs[k]
                if text.strip() == "```text" and k + 1 < len(docs):
                    first = docs[k + 1][1].split()
                    if first and first[0] == "layers":
                        rows, j = [], k + 2
                        while j < len(docs) and docs[j][1].strip() != "```":
                            rows.append((docs[j][0], docs[j][1].split()))
                            j += 1
                        if j == len(docs):
                            self.errors.append(f"{file}:{line}: the layers block is not closed")
                        blocks.append((line, [r for r in rows if r[1]]))
                        k = j
                k += 1
            if len(blocks) > 1:
                self.errors.append(f"{file}:{blocks[1][0]}: a second layers block (one per file)")
            if blocks:
                maps.append((file, blocks[0][1], blocks[0][0]))
        return maps

    def check_layers(self, graph):
        errors = []
        for file, rows, at in self.layer_maps():
            module = self.files[file]
            # A test module with a file is a child like any other, though its uses are not
            # checked (test code is not in the graph); one written inline belongs to the file.
            declared = {n for n, c in module.children.items() if not c.inline}
            declared |= {n for n, inline in module.test_children.items() if not inline}
            inline = {n for n, c in module.children.items() if c.inline}
            inline |= {n for n, inline in module.test_children.items() if inline}
            level = {}
            for row, (line, names) in enumerate(rows):
                for name in names:
                    if name in level:
                        errors.append(f"{file}:{line}: layers: `{name}` is listed twice")
                    elif name in inline:
                        errors.append(
                            f"{file}:{line}: layers: `{name}` is written inline in {file}, "
                            "so it belongs to the file: leave it out")
                    elif name not in declared:
                        known = ", ".join(sorted(declared)) or "none"
                        errors.append(
                            f"{file}:{line}: layers: `{name}` is not a child module of {file} "
                            f"(its children: {known})")
                    else:
                        level[name] = (row, line)
            for name in sorted(declared - set(level)):
                errors.append(f"{file}:{at}: layers: child module `{name}` is missing from the map")
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
                    errors.append(
                        f"{a}:{line}: layers of {file}: `{ca}` uses `{cb}` ({what}, in {b}), "
                        f"which is {how} it; a module may use only modules on lines below its own")
        return errors



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


def check(root, show_graph=False, out=None):
    """Checks one crate; returns the number of problems found."""
    out = out or sys.stdout
    crate = Crate(root)
    graph = crate.deps()
    if show_graph:
        for f in sorted(graph):
            print(f"{f}: {', '.join(sorted(graph[f]))}", file=out)
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
    maps = [f for f, _, _ in crate.layer_maps()]
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
