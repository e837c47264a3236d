"""Default blacklist and no-ask prefixes for bash (user-editable in config.toml, ``[sandbox]``).

The blacklist guards against slips, not deliberate bypass: it is matched (case-insensitive) on the
whole command text.  The no-ask prefixes are the first word(s) of a simple command that is allowed
without asking when nothing else in the command needs a person's say.
"""

from __future__ import annotations

DEFAULT_BLACKLIST: tuple[str, ...] = (
    # rm -r / rm -rf of the root, the home folder or everything at the root
    r"\brm\s+(-[a-z]*\s+)*-[a-z]*r[a-z]*\s+(-[a-z]*\s+)*(--no-preserve-root\s+)?(/|/\*|~/?|\$home/?|\$\{home\}/?)(\s|$|;|&|\|)",
    r"\brm\s+(-[a-z]*\s+)*--recursive\b.*\s(/|/\*|~/?|\$home/?)(\s|$)",
    r"--no-preserve-root",
    r"\bmkfs(\.\w+)?\b",
    r"\bdd\b[^|;&]*\bof=/dev/",
    r":\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:",
    r"\b(shutdown|reboot|halt|poweroff)\b",
    r"\bchmod\s+(-[a-z]*\s+)*-[a-z]*r[a-z]*\s+(-[a-z]*\s+)*0?777\s+/(\s|$)",
    r"\bchown\s+(-[a-z]*\s+)*-[a-z]*r[a-z]*\s+\S+\s+/(\s|$)",
    r">\s*/dev/(sd|nvme|hd|vd|xvd|mmcblk)",
    r"\bgit\s+push\b.*(--force\b|\s-f\b|--force-with-lease\b)",
    r"\bformat\s+[a-z]:",
    r"\bdel\s+/s\s+/q\s+[a-z]:\\",
    r"\bremove-item\b.*-recurse\b.*\b[a-z]:\\",
)

# First word(s) of a command that may run without asking.  Multi-word prefixes match word by word.
DEFAULT_NO_ASK: tuple[str, ...] = (
    "cd",
    "ls",
    "pwd",
    "cat",
    "head",
    "tail",
    "wc",
    "grep",
    "rg",
    "find",
    "echo",
    "stat",
    "file",
    "tree",
    "git status",
    "git diff",
    "git log",
    "node --check",
    "which",
)

# Commands whose non-option arguments are not paths (so they are not checked against the zones).
NON_PATH_ARGUMENT_COMMANDS: frozenset[str] = frozenset({"echo", "which", "pwd"})

# find(1) actions that write, delete or run something: a find with one of them is never no-ask.
FIND_UNSAFE_ACTIONS: frozenset[str] = frozenset(
    {"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"}
)
