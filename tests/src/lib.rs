//! Integration tests live in `tests/tests/`; the trybuild cases in `tests/ui/`.
