"""梨园 Pear Garden: agentic role-play with LLMs, compatible with SillyTavern content."""

__version__ = "0.1.0"
