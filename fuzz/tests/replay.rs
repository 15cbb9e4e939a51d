//! Replays the checked-in corpus through the targets' bodies: what `.ci/run` runs where the
//! nightly toolchain or cargo-fuzz is missing, and a quick check that every seed still passes.

use std::fs;
use std::path::Path;

fn replay(target: &str, run: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(target);
    let mut inputs = 0;
    for entry in fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a directory entry").path();
        let data = fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        eprintln!("{target}: {}", path.display());
        run(&data);
        inputs += 1;
    }
    assert!(inputs > 0, "no seeds in {}", dir.display());
}

#[test]
fn import_corpus() {
    replay("import", dlpack_fuzz::import);
}

#[test]
fn names_corpus() {
    replay("names", dlpack_fuzz::names);
}
