#!/usr/bin/env python3
"""Tests of .ci/check-contributing.py: this repository's CONTRIBUTING.md agrees with CI, and a
copy of it (.ci/run, .ci/msrv, Cargo.toml, CONTRIBUTING.md and the folders of tests/ui/) with
one disagreement planted fails naming exactly that disagreement.

    python3 .ci/tests/test_check_contributing.py
"""
import importlib.util
import os
import re
import shutil
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")

_spec = importlib.util.spec_from_file_location(
    "check_contributing", os.path.join(HERE, "..", "check-contributing.py"))
cc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cc)

FILES = [".ci/run", ".ci/msrv", "Cargo.toml", "CONTRIBUTING.md"]


class Copy:
    """A temporary copy of the files the check reads, to plant a disagreement in."""

    def __enter__(self):
        self.root = tempfile.mkdtemp()
        for path in FILES:
            os.makedirs(os.path.dirname(os.path.join(self.root, path)), exist_ok=True)
            shutil.copy(os.path.join(REPO, path), os.path.join(self.root, path))
        for d in os.listdir(os.path.join(REPO, "tests", "ui")):
            if os.path.isdir(os.path.join(REPO, "tests", "ui", d)):
                os.makedirs(os.path.join(self.root, "tests", "ui", d))
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.root)

    def replace(self, path, old, new):
        full = os.path.join(self.root, path)
        with open(full, encoding="utf-8") as f:
            text = f.read()
        if old not in text:
            raise AssertionError(f"{old!r} is not in {path}: update this test")
        with open(full, "w", encoding="utf-8") as f:
            f.write(text.replace(old, new, 1))

    def problems(self):
        return cc.check(self.root)


class ThisRepository(unittest.TestCase):
    def test_agrees(self):
        self.assertEqual(cc.check(REPO), [])

    def test_reads_every_step_and_toolchain(self):
        with open(os.path.join(REPO, ".ci/run"), encoding="utf-8") as f:
            run = f.read()
        headers = cc.step_headers(run)
        self.assertIn("the README's test command", headers)
        # The step inside finish_beside's body is not a header; its callers' headers are.
        self.assertNotIn("$2 (ran beside the steps above)", headers)
        self.assertIn("minimum Rust of each feature set (.ci/msrv)", headers)
        self.assertEqual(len(headers), run.count('\nstep "') + run.count("\nfinish_beside "))
        with open(os.path.join(REPO, ".ci/msrv"), encoding="utf-8") as f:
            msrv = f.read()
        with open(os.path.join(REPO, "Cargo.toml"), encoding="utf-8") as f:
            toolchains = cc.msrv_toolchains(msrv, f.read())
        self.assertEqual([var for var, _ in toolchains],
                         ["floor", "cuda_floor", "candle_floor", "burn_floor"])


# The header of step 3, the formatting step.
FMT = ("cargo fmt --check, the workspace and the workspaces of their own "
       "(fuzz, tests/burn, the Python extensions, the bench-only NumPy peer)")


class Planted(unittest.TestCase):
    def test_a_new_step_of_ci_run(self):
        with Copy() as c:
            c.replace(".ci/run", 'step "the README\'s test command"\ncargo test --workspace\n',
                      'step "the README\'s test command"\ncargo test --workspace\n\n'
                      'step "a new step (its tests)"\ntrue\n')
            problems = c.problems()
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("missing step 3 of .ci/run, after `the README's test command`", problems[0])
        self.assertIn("1. `a new step (its tests)`", problems[0])

    def test_the_printed_item_pasted_in_agrees(self):
        header = "CI scripts: `.ci/tests`, then CONTRIBUTING.md against CI"
        with Copy() as c:
            c.replace(".ci/run", 'step "clippy, all targets and features"',
                      f'step "{header}"\ntrue\n\nstep "clippy, all targets and features"')
            problems = c.problems()
            self.assertEqual(len(problems), 1, problems)
            item = problems[0].split("\n")[1].strip()
            self.assertEqual(item, f"1. `` {header} ``")
            # The clippy item, whatever its number in the list (the steps before it change).
            with open(os.path.join(c.root, "CONTRIBUTING.md"), encoding="utf-8") as f:
                clippy = re.search(r"^\d+\. `clippy", f.read(), re.M).group(0)
            c.replace("CONTRIBUTING.md", clippy, f"{item}: what it does.\n{clippy}")
            self.assertEqual(c.problems(), [])

    def test_a_new_step_run_beside(self):
        with Copy() as c:
            c.replace(".ci/run", 'step "done in',
                      'finish_beside extra "an extra job"\n\nstep "done in')
            problems = c.problems()
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("`an extra job`", problems[0])

    def test_a_step_renamed_in_ci_run(self):
        with Copy() as c:
            c.replace(".ci/run", 'step "clippy, all targets and features"',
                      'step "clippy, all targets, all features"')
            problems = c.problems()
        self.assertEqual(len(problems), 2, problems)
        self.assertIn("`clippy, all targets, all features`", problems[0])
        self.assertIn("`clippy, all targets and features` is no step header of .ci/run", problems[1])

    def test_steps_out_of_order(self):
        with Copy() as c:
            c.replace("CONTRIBUTING.md", "2. `the README's test command`", f"2. `{FMT}`: x\n3. `swap`")
            c.replace("CONTRIBUTING.md", f"3. `{FMT}`", "3. `the README's test command`")
            c.replace("CONTRIBUTING.md", "3. `swap`", "")
            problems = c.problems()
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("not in the order of .ci/run", problems[0])

    def test_no_ci_section(self):
        with Copy() as c:
            c.replace("CONTRIBUTING.md", "## What CI runs", "## What CI does")
            problems = c.problems()
        self.assertEqual(len(problems), 1, problems)
        self.assertIn('no "## What CI runs" section', problems[0])

    def test_a_floor_raised_in_ci_msrv(self):
        with Copy() as c:
            c.replace(".ci/msrv", "candle_floor=1.94", "candle_floor=1.95")
            problems = c.problems()
        self.assertTrue(any('lacks "1.95.0 for `candle`"' in p for p in problems), problems)
        self.assertTrue(any("1.94.0 is none of the toolchains" in p for p in problems), problems)
        self.assertTrue(any("rustup toolchain uninstall" in p for p in problems), problems)

    def test_the_workspace_floor_raised_in_cargo_toml(self):
        with Copy() as c:
            c.replace("Cargo.toml", 'rust-version = "1.85"', 'rust-version = "1.86"')
            problems = c.problems()
        self.assertTrue(any('lacks "1.86.0"' in p and "$floor" in p for p in problems), problems)

    def test_a_floor_given_to_the_wrong_feature(self):
        # The wording this check was written against: 1.88.0 "for `cuda` and `candle`".
        with Copy() as c:
            c.replace("CONTRIBUTING.md", "1.88.0 for `cuda`, 1.94.0 for `candle`",
                      "1.88.0 for `cuda` and `candle`")
            problems = c.problems()
        self.assertEqual(len(problems), 1, problems)
        self.assertIn('lacks "1.94.0 for `candle`"', problems[0])

    def test_a_ui_folder_not_named(self):
        with Copy() as c:
            os.makedirs(os.path.join(c.root, "tests", "ui", "tensor"))
            problems = c.problems()
        self.assertEqual(problems, ['CONTRIBUTING.md, row "derive ui tests": does not name tests/ui/tensor/'])

    def test_a_ui_category_without_a_folder(self):
        with Copy() as c:
            os.rmdir(os.path.join(c.root, "tests", "ui", "remote"))
            problems = c.problems()
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("names tests/ui/remote/, which is not a folder", problems[0])

    def test_a_miri_feature_not_named(self):
        with Copy() as c:
            c.replace(".ci/run", "miri_features=ndarray,", "miri_features=ndarray,derive,")
            problems = c.problems()
        self.assertEqual(problems, ['CONTRIBUTING.md, row "Miri": does not name `derive` (.ci/run miri_features)'])


if __name__ == "__main__":
    unittest.main()
