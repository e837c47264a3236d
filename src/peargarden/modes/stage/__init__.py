"""The stage mode: materials from disk, the per-beat request, the stage's tools, story memory, the declared preset."""
