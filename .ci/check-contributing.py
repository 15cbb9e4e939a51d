#!/usr/bin/env python3
"""Fails when CONTRIBUTING.md says something about CI that .ci/run, .ci/msrv or the test folders
contradict. What it holds CONTRIBUTING.md to:

1. Steps. Every step header of .ci/run, in the order .ci/run prints them, is the first code
   span of one item of the list under CONTRIBUTING.md's "## What CI runs", and that list has
   no other item. A step header is the quoted text of a `step "…"` line outside a function
   body, or the header argument of a `finish_beside <name> "…"` line (which prints it as a
   step, with " (ran beside the steps above)" added); both are taken as written in .ci/run,
   shell variables unexpanded (`Python $newest: …`). A header .ci/run gained is reported with
   the item it goes after, so that it can be pasted in.
2. Minimum Rust. The toolchains that `.ci/msrv toolchains` prints (read from .ci/msrv, not
   run: each `toolchain "$var"` line of its `toolchains` branch, `var` assigned a number in
   .ci/msrv or, for the `sed … Cargo.toml` one, Cargo.toml's `rust-version`; a version with
   one dot gets `.0`, as .ci/msrv's `toolchain` does) appear in the row of the table whose
   first cell is "minimum Rust": each `<feature>_floor`'s toolchain as "<toolchain> for
   `<feature>`", the others bare; and the row names no other x.y.z version. The
   `rustup toolchain uninstall` line of the fresh-machine rehearsal lists exactly those
   toolchains.
3. ui tests. The folders under tests/ui/ are exactly the folders the "derive ui tests" row
   names: the alternatives of its `tests/ui/<a\\|b>/` pattern and each literal `tests/ui/x/`.
4. Miri. Each feature of .ci/run's `miri_features=` is named (as `feature`) in the "Miri" row.

    python3 .ci/check-contributing.py [--root DIR]

Its tests, with a planted disagreement of each kind: python3 .ci/tests/test_check_contributing.py
"""
import argparse
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
CI_SECTION = "What CI runs"
QUOTED = r'"((?:[^"\\]|\\.)*)"'


def read(root, path):
    with open(os.path.join(root, path), encoding="utf-8") as f:
        return f.read()


def step_headers(run_text):
    """The step headers of .ci/run, in order (rule 1)."""
    headers, in_function = [], False
    for line in run_text.splitlines():
        stripped = line.strip()
        if in_function:
            in_function = stripped != "}"
            continue
        # A function whose body spans lines: `name() { # comment`.
        if re.match(r"^[A-Za-z_][\w-]*\(\)\s*\{\s*(#.*)?$", stripped):
            in_function = True
            continue
        m = re.match(r"^step " + QUOTED + r"\s*(#.*)?$", stripped)
        if m is None:
            m = re.match(r"^finish_beside \S+ " + QUOTED + r"\s*(#.*)?$", stripped)
        if m:
            headers.append(m.group(1).replace('\\"', '"'))
    return headers


def section(markdown, title):
    """The text under the `## title` heading, to the next heading of level 2 or 1; None if the
    heading is not there."""
    lines, out, inside = markdown.splitlines(), [], False
    fence = False
    for line in lines:
        if line.startswith("```"):
            fence = not fence
        if not fence and re.match(r"^#{1,2} ", line):
            if inside:
                break
            inside = line.strip("# ").strip() == title
            continue
        if inside:
            out.append(line)
    return "\n".join(out) if inside or out else None


def listed_headers(markdown):
    """The first code span of each list item of the "What CI runs" section, in order."""
    text = section(markdown, CI_SECTION)
    if text is None:
        return None
    items = []
    for line in text.splitlines():
        # `header`, or ``header`` for one that holds a backtick.
        m = re.match(r"^(?:\d+\.|[-*]) +(`+)(.+?)\1(?!`)", line)
        if m:
            items.append(m.group(2).strip() if len(m.group(1)) > 1 else m.group(2))
    return items


def check_steps(run_text, markdown):
    problems = []
    headers = step_headers(run_text)
    listed = listed_headers(markdown)
    if not headers:
        return ["no step header found in .ci/run (rule 1 of .ci/check-contributing.py)"]
    if listed is None:
        return [f'CONTRIBUTING.md has no "## {CI_SECTION}" section listing the {len(headers)} '
                "step headers of .ci/run"]
    for i, header in enumerate(headers):
        if header not in listed:
            where = f"after `{headers[i - 1]}`" if i else "first"
            span = f"`` {header} ``" if "`" in header else f"`{header}`"
            problems.append(f'CONTRIBUTING.md, "{CI_SECTION}": missing step {i + 1} of .ci/run, '
                            f"{where}:\n    1. {span}")
    for item in listed:
        if item not in headers:
            problems.append(f'CONTRIBUTING.md, "{CI_SECTION}": `{item}` is no step header of '
                            ".ci/run (renamed or removed there?)")
    common_run = [h for h in headers if h in listed]
    common_doc = [h for h in listed if h in headers]
    if common_run != common_doc:
        order = "\n".join(f"    {i + 1}. `{h}`" for i, h in enumerate(headers))
        problems.append(f'CONTRIBUTING.md, "{CI_SECTION}": the steps are not in the order of '
                        f".ci/run, which is:\n{order}")
    return problems


def toolchain(version):
    """.ci/msrv's `toolchain`: 1.85 -> 1.85.0, 1.85.1 stays."""
    return version if version.count(".") >= 2 else f"{version}.0"


def msrv_toolchains(msrv_text, cargo_toml):
    """[(variable, toolchain)] in the order `.ci/msrv toolchains` prints them (rule 2)."""
    values = {}
    for line in msrv_text.splitlines():
        m = re.match(r"^(\w+)=([0-9]+(?:\.[0-9]+)*)\s*(#.*)?$", line)
        if m:
            values[m.group(1)] = m.group(2)
            continue
        m = re.match(r"^(\w+)=\$\(sed .*rust-version.*Cargo\.toml\)\s*$", line)
        if m:
            rv = re.search(r'^rust-version = "([0-9.]+)"', cargo_toml, re.M)
            if rv is None:
                raise ValueError("Cargo.toml has no rust-version")
            values[m.group(1)] = rv.group(1)
    branch = re.search(r"\$\{1:-\} == toolchains \]\]; then\n(.*?)\n\s*exit 0", msrv_text, re.S)
    if branch is None:
        raise ValueError(".ci/msrv has no `toolchains` branch ending in `exit 0`")
    out = []
    for var in re.findall(r'^\s*toolchain "\$(\w+)"\s*$', branch.group(1), re.M):
        if var not in values:
            raise ValueError(f".ci/msrv prints the toolchain of ${var}, whose value is not a number here")
        out.append((var, toolchain(values[var])))
    if not out:
        raise ValueError(".ci/msrv's `toolchains` branch prints no `toolchain \"$var\"`")
    return out


def table_row(markdown, first_cell):
    for line in markdown.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells and cells[0] == first_cell:
            return line
    return None


def check_toolchains(msrv_text, cargo_toml, markdown):
    try:
        toolchains = msrv_toolchains(msrv_text, cargo_toml)
    except ValueError as e:
        return [str(e)]
    problems = []
    row = table_row(markdown, "minimum Rust")
    if row is None:
        return ['CONTRIBUTING.md has no table row "minimum Rust"']
    for var, version in toolchains:
        feature = var[: -len("_floor")] if var.endswith("_floor") else None
        wanted = f"{version} for `{feature}`" if feature else version
        if wanted not in row:
            problems.append(f'CONTRIBUTING.md, row "minimum Rust": lacks "{wanted}" '
                            f"(.ci/msrv toolchains: ${var})")
    known = {v for _, v in toolchains}
    for version in re.findall(r"\b\d+\.\d+\.\d+\b", row):
        if version not in known:
            problems.append(f'CONTRIBUTING.md, row "minimum Rust": {version} is none of the '
                            f"toolchains of .ci/msrv ({', '.join(sorted(known))})")
    uninstall = re.search(r"^rustup toolchain uninstall ([^#\n]*)", markdown, re.M)
    if uninstall is None:
        problems.append("CONTRIBUTING.md: no `rustup toolchain uninstall` line in the rehearsal")
    elif set(uninstall.group(1).split()) != known:
        problems.append(f"CONTRIBUTING.md: `rustup toolchain uninstall {uninstall.group(1).strip()}` "
                        f"should list the toolchains of .ci/msrv: {' '.join(v for _, v in toolchains)}")
    return problems


def check_ui(root, markdown):
    folders = {d for d in os.listdir(os.path.join(root, "tests", "ui"))
               if os.path.isdir(os.path.join(root, "tests", "ui", d))}
    row = table_row(markdown, "derive ui tests")
    if row is None:
        return ['CONTRIBUTING.md has no table row "derive ui tests"']
    named = set()
    for alternatives in re.findall(r"tests/ui/<([^>]+)>/", row):
        named.update(a.strip() for a in alternatives.replace("\\|", "|").split("|"))
    named.update(re.findall(r"tests/ui/(\w+)/", row))
    problems = []
    for d in sorted(folders - named):
        problems.append(f'CONTRIBUTING.md, row "derive ui tests": does not name tests/ui/{d}/')
    for d in sorted(named - folders):
        problems.append(f'CONTRIBUTING.md, row "derive ui tests": names tests/ui/{d}/, '
                        "which is not a folder")
    return problems


def check_miri(run_text, markdown):
    m = re.search(r"^miri_features=(\S+)", run_text, re.M)
    if m is None:
        return []
    row = table_row(markdown, "Miri")
    if row is None:
        return ['CONTRIBUTING.md has no table row "Miri"']
    return [f'CONTRIBUTING.md, row "Miri": does not name `{f}` (.ci/run miri_features)'
            for f in m.group(1).split(",") if f"`{f}`" not in row]


def check(root=ROOT):
    run_text = read(root, ".ci/run")
    markdown = read(root, "CONTRIBUTING.md")
    return (check_steps(run_text, markdown)
            + check_toolchains(read(root, ".ci/msrv"), read(root, "Cargo.toml"), markdown)
            + check_ui(root, markdown)
            + check_miri(run_text, markdown))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=ROOT, help="the repository (default: this one)")
    args = parser.parse_args(argv)
    problems = check(args.root)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} disagreement(s) between CONTRIBUTING.md and CI", file=sys.stderr)
        return 1
    print("CONTRIBUTING.md agrees with .ci/run, .ci/msrv and tests/ui/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
