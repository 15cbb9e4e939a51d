//! The README shows each bridge's module example (which runs as a doctest) line for line,
//! without the hidden lines, so that the README stays true.
#![allow(dead_code, unreachable_pub)]

/// Fails unless the README has a `rust,ignore` block equal to the first example of the module
/// whose source is `module` (`include_str!` of it), without its `# ` lines.
pub fn assert_readme_shows_module_example(readme: &str, module: &str) {
    let example: Vec<&str> = module
        .lines()
        .map_while(|line| line.strip_prefix("//!"))
        .map(|line| line.strip_prefix(' ').unwrap_or(line))
        .skip_while(|line| *line != "```")
        .skip(1)
        .take_while(|line| *line != "```")
        .filter(|line| !line.starts_with("# "))
        .collect();
    let block = format!("```rust,ignore\n{}\n```\n", example.join("\n"));
    assert!(
        readme.contains(&block),
        "the README has no block equal to the module's example:\n{block}"
    );
}
