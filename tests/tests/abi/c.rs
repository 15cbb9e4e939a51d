//! The C side of the ABI test: finding the headers and the compiler, running C, reading headers.

use std::collections::{BTreeMap, BTreeSet};
use std::env;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::Fact;

/// Whether a missing header or compiler fails the test rather than skipping it.
pub(crate) fn required() -> bool {
    env::var("DLPACK_ABI_REQUIRED").is_ok_and(|v| v == "1")
}

/// Says loudly that a check could not run; fails under `DLPACK_ABI_REQUIRED=1`.
///
/// The message goes straight to the process's stderr: `eprintln!` output of a passing test is
/// captured by the test harness and never shown, which would make the skip silent.
pub(crate) fn skip(what: &str, reason: &str) {
    let line = format!("SKIPPED: {what}: {reason}");
    if required() {
        panic!("{line} (DLPACK_ABI_REQUIRED=1 makes this a failure)");
    }
    let banner = "=".repeat(78);
    let _ = writeln!(
        io::stderr().lock(),
        "\n{banner}\n{line}\n(set DLPACK_ABI_REQUIRED=1 to make this a failure)\n{banner}\n"
    );
}

/// The DLPack 1.3 header: `$DLPACK_H`, or the one inside the `tvm_ffi` Python package.
pub(crate) fn header_1_3() -> Result<PathBuf, String> {
    if let Some(path) = env::var_os("DLPACK_H") {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!("DLPACK_H={} is not a file", path.display()))
        };
    }
    let python = env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let out = Command::new(&python)
        .args([
            "-c",
            "import tvm_ffi, os; print(os.path.dirname(tvm_ffi.__file__))",
        ])
        .output()
        .map_err(|e| format!("DLPACK_H is not set and `{python}` cannot be run: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "DLPACK_H is not set and `{python}` cannot import tvm_ffi (pip install apache-tvm-ffi): {}",
            String::from_utf8_lossy(&out.stderr)
                .trim()
                .lines()
                .last()
                .unwrap_or("")
        ));
    }
    let dir = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let path = Path::new(&dir).join("include/dlpack/dlpack.h");
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "tvm_ffi is installed at {dir} but has no include/dlpack/dlpack.h"
        ))
    }
}

/// The DLPack 0.7 header of `dlpack-sys` 0.1: `$DLPACK_SYS_H`, or cargo's registry.
pub(crate) fn header_0_7() -> Result<PathBuf, String> {
    if let Some(path) = env::var_os("DLPACK_SYS_H") {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!("DLPACK_SYS_H={} is not a file", path.display()))
        };
    }
    let cargo_home = env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| env::var_os("HOME").map(|home| Path::new(&home).join(".cargo")))
        .ok_or("DLPACK_SYS_H is not set and neither CARGO_HOME nor HOME is")?;
    let registry = cargo_home.join("registry/src");
    let mut found = Vec::new();
    for index in fs::read_dir(&registry).into_iter().flatten().flatten() {
        for krate in fs::read_dir(index.path()).into_iter().flatten().flatten() {
            let name = krate.file_name().to_string_lossy().into_owned();
            if let Some(version) = name.strip_prefix("dlpack-sys-0.1.") {
                let header = krate.path().join("csrc/dlpack/include/dlpack/dlpack.h");
                if let (Ok(patch), true) = (version.parse::<u32>(), header.is_file()) {
                    found.push((patch, header));
                }
            }
        }
    }
    found.sort();
    found.pop().map(|(_, path)| path).ok_or_else(|| {
        format!(
            "DLPACK_SYS_H is not set and no dlpack-sys-0.1.* with its header is in {} (run `cargo fetch`)",
            registry.display()
        )
    })
}

/// Compiles a program printing `expr value` for each expression against `header`, runs it and
/// returns the values by expression. `Err` means the compiler could not be run at all.
pub(crate) fn evaluate_in_c(
    label: &str,
    header: &Path,
    exprs: &[String],
) -> Result<BTreeMap<String, i64>, String> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("abi-{label}"));
    fs::create_dir_all(&dir).unwrap();
    let mut program = String::from(
        "#include <stddef.h>\n#include <stdio.h>\n#include <dlpack.h>\n\nint main(void) {\n",
    );
    for expr in exprs {
        program += &format!("  printf(\"%s %lld\\n\", \"{expr}\", (long long)({expr}));\n");
    }
    program += "  return 0;\n}\n";
    let source = dir.join("abi.c");
    let exe = dir.join("abi");
    fs::write(&source, &program).unwrap();

    let cc = env::var("CC").unwrap_or_else(|_| "cc".into());
    let include = header.parent().unwrap();
    let out = Command::new(&cc)
        .args(["-std=c11", "-Wall", "-Werror", "-I"])
        .arg(include)
        .arg("-o")
        .arg(&exe)
        .arg(&source)
        .output()
        .map_err(|e| format!("the C compiler `{cc}` cannot be run (set CC): {e}"))?;
    assert!(
        out.status.success(),
        "{cc} failed on {} against {}:\n{}",
        source.display(),
        header.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(&exe).output().unwrap();
    assert!(out.status.success(), "{} failed", exe.display());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let mut values = BTreeMap::new();
    for line in stdout.lines() {
        let (expr, value) = line.rsplit_once(' ').unwrap();
        values.insert(expr.to_owned(), value.parse().unwrap());
    }
    assert_eq!(
        values.len(),
        exprs.len(),
        "the C program printed:\n{stdout}"
    );
    Ok(values)
}

/// The identifiers of a C header outside comments.
pub(crate) fn identifiers(header: &str) -> BTreeSet<String> {
    let mut code = String::with_capacity(header.len());
    let mut rest = header;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("/*") {
            rest = after.split_once("*/").map_or("", |(_, tail)| tail);
            code.push(' ');
        } else if let Some(after) = rest.strip_prefix("//") {
            rest = after.split_once('\n').map_or("", |(_, tail)| tail);
            code.push('\n');
        } else {
            let c = rest.chars().next().unwrap();
            code.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
        .map(str::to_owned)
        .collect()
}

/// Compares C's values with Rust's; panics listing every mismatch.
pub(crate) fn compare(label: &str, header: &Path, facts: &[Fact], c: &BTreeMap<String, i64>) {
    let mismatches: Vec<String> = facts
        .iter()
        .filter(|f| c[&f.c_expr] != f.rust)
        .map(|f| {
            format!(
                "  {}: C says {}, Rust says {}",
                f.c_expr, c[&f.c_expr], f.rust
            )
        })
        .collect();
    assert!(
        mismatches.is_empty(),
        "{label}: Rust disagrees with {}:\n{}",
        header.display(),
        mismatches.join("\n")
    );
    eprintln!(
        "{label}: {} facts agree with {}",
        facts.len(),
        header.display()
    );
}

#[test]
fn identifiers_skip_comments() {
    let ids = identifiers("int a; /* kDLGone */ int b; // kDLAlsoGone\nint kDLKept;");
    assert!(ids.contains("kDLKept") && ids.contains("b"));
    assert!(!ids.contains("kDLGone") && !ids.contains("kDLAlsoGone"));
}

/// Asserts that a header declares exactly the names Rust lists, showing the difference.
pub(crate) fn assert_same_names(
    what: &str,
    header: &Path,
    in_header: &BTreeSet<&str>,
    in_rust: &BTreeSet<&str>,
) {
    let missing: Vec<_> = in_header.difference(in_rust).collect();
    let extra: Vec<_> = in_rust.difference(in_header).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{what}: {} declares {missing:?}, which the Rust table lacks, and lacks {extra:?}, which the Rust table lists",
        header.display()
    );
}
