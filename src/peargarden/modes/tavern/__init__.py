"""The tavern mode: SillyTavern's exact Chat Completion request for a card (one generation, no tools)."""
