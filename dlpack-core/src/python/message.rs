//! The names that messages reaching Python give to objects and classes: `module.QualName`
//! (never a Rust path), and `repr()`, each with a placeholder when Python refuses, so that
//! making a message never raises.

use pyo3::prelude::*;
use pyo3::types::PyType;

/// `module.QualName` of an object's class, for messages (`builtins.` left out).
pub(crate) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    class_name(&obj.get_type())
}

/// `module.QualName` of a class (`builtins.` left out).
pub(crate) fn class_name(class: &Bound<'_, PyType>) -> String {
    class
        .fully_qualified_name()
        .map_or_else(|_| "<unknown type>".to_owned(), |name| name.to_string())
}

/// `repr(obj)`, or a placeholder when `__repr__` raises.
pub(crate) fn repr(obj: &Bound<'_, PyAny>) -> String {
    obj.repr()
        .map_or_else(|_| "<unrepresentable>".to_owned(), |r| r.to_string())
}

/// The article before `phrase`, by the sound of its first word: `an` before a vowel sound
/// (`an int32`, `an object`), `a` before a consonant sound (`a float32`, `a uint8`, `a
/// numpy.ndarray`, `a list`).
pub(crate) fn a_or_an(phrase: &str) -> &'static str {
    let word = phrase.trim_start().to_ascii_lowercase();
    let vowel = match word.as_bytes().first() {
        Some(b'a' | b'e' | b'i' | b'o') => true,
        // `uint8`, `unicode`, `user`: a "you" sound; `undefined`, `unsigned` a vowel.
        Some(b'u') => !["uint", "uni", "us", "ut", "ur"]
            .iter()
            .any(|prefix| word.starts_with(prefix)),
        _ => false,
    };
    if vowel { "an" } else { "a" }
}

#[cfg(test)]
mod tests {
    use super::a_or_an;

    #[test]
    fn the_article_follows_the_sound_of_the_next_word() {
        for word in [
            "int8",
            "int64",
            "object",
            "array_api_strict.Array",
            "undefined",
            "e",
        ] {
            assert_eq!(a_or_an(word), "an", "{word}");
        }
        for word in [
            "uint8",
            "uint64",
            "float32",
            "bfloat16",
            "bool",
            "complex64",
            "list",
            "numpy.ndarray",
            "writable int8 tensor",
            "tensor",
        ] {
            assert_eq!(a_or_an(word), "a", "{word}");
        }
    }
}
