#!/usr/bin/env python3
"""Type-checks the uses of dlpack_demo in this folder against the stubs of the installed
wheel (scripts/python-tests.sh builds it with `--generate-stubs`): `mypy --strict` finds no
error in ok.py, and in wrong.py exactly the errors its `# E: <code>` comments mark, line by
line. Run it in the venv that holds dlpack_demo, NumPy, PyTorch and mypy:

    python tests/python/typing/check.py
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ERROR = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): error: .*\[(?P<code>[a-z-]+)\]$")


def mypy(name):
    """The (line, code) of each error mypy --strict reports in the file."""
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", os.path.join(HERE, name)],
        capture_output=True, text=True, check=False,
    )
    print(run.stdout, end="")
    if run.returncode not in (0, 1) or run.stderr:
        sys.exit(f"mypy failed on {name} (exit {run.returncode}): {run.stderr}")
    return {(int(m["line"]), m["code"]) for m in map(ERROR.match, run.stdout.splitlines()) if m}


def expected(name):
    """The (line, code) pairs the file's `# E: code` comments mark."""
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return {
            (number, m.group(1))
            for number, line in enumerate(f, 1)
            if (m := re.search(r"# E: ([a-z-]+)$", line))
        }


def main():
    failures = []
    if found := mypy("ok.py"):
        failures.append(f"ok.py: errors in correct code: {sorted(found)}")
    want, found = expected("wrong.py"), mypy("wrong.py")
    if not want:
        failures.append("wrong.py marks no error: a check that cannot fail")
    if missed := want - found:
        failures.append(f"wrong.py: errors mypy did not report (line, code): {sorted(missed)}")
    if extra := found - want:
        failures.append(f"wrong.py: errors no comment marks (line, code): {sorted(extra)}")
    if failures:
        sys.exit("\n".join(failures))
    print(f"ok.py: no error; wrong.py: the {len(want)} marked errors, and no other")


if __name__ == "__main__":
    main()
