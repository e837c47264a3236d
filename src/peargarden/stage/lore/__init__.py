"""The stage's lore: entries, keyword scan, `lorebook_search`, title index, write gate, supplement-book edits (pure)."""
