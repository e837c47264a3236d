"""Test helpers that ship with the package, so tests and benchmarks can share them."""
