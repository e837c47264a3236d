"""Test helpers that ship with the package, so tests and benchmarks can share them: :mod:`.fake_openai`
(an OpenAI-compatible chat server), :mod:`.fake_media` (the speech, picture and translation servers)."""
