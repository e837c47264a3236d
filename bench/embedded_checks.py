"""What a reader of an embedded model's reply checks, as the quality bench counts it (issue 49).

These are the bench's own tests, written apart from the guards in ``peargarden.providers`` and not
importing them: a guard that passes its own test proves nothing (before issue 49 the bench counted
echoes with the echo guard's function and found 0 of 36, where a person found 5 of 12).  Each is a
plain rule a reader can apply to the transcript the report keeps:

* **shape**: the characters a reader sees (no spaces), English words, sentences, and whether the
  reply has dialogue (words in quote marks, or a reply with no marks at all) and an action (words in
  ``*…*``, ``（…）``, or outside the quote marks when there are quote marks) — the prompt asks for
  「对白加少量动作」, 2–4 sentences;
* **echo**: a sentence of the reply hands the user's line back — pronouns made neutral (I / you, 我 /
  你: the model speaking from the other side is still the user's line), English words stemmed — when
  it is one of the user's sentences again (3 units or more: "Where... where am I?"), or 75 % or more
  of it (4 units or more) is a subsequence of the user's line with 3 content units in it, or it
  shares a run of 8 Chinese characters / 5 English words with 3 content units in it;
* **speaks as the user**: a line labelled with the user's name (``旅人：``, ``Rowan:``), the
  character calling itself by the user's name (「我叫陆行舟」, "I'm Rowan"), an action narrated for the
  user (``*You wake slowly…*``, 「（你点点头）」), or a sentence that says again most of one of the
  user's earlier lines (its first person is the user's).
"""

from __future__ import annotations

import re

__all__ = [
    "dialogue_and_action",
    "echoes_user",
    "sentences",
    "speaks_as_user",
    "visible_chars",
    "words",
]

_EN_WORD = re.compile(r"[A-Za-z][A-Za-z']*|\d+")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_SENTENCE_END = re.compile(r"[。！？!?…\n]+[”’」』）)\"'*]*|\.+(?=\s|[\"'”’*)]|$)[\"'”’*)]*")
_PERSON = "P"
_EN_PERSONS = frozenset(re.findall(r"\w+", "i me my mine myself you your yours yourself"))
_EN_STOP = frozenset(
    re.findall(
        r"\w+",
        "a an the is am are was were be been to of and or in on at it its this that these those here there "
        "do does did so as for with by from not no yes oh ah",
    )
)
_ZH_PERSONS = frozenset("你我您")
_ZH_STOP = frozenset("的了是在吗呢吧啊呀么嘛也都就还又这那个有和与他她它们一不")


def visible_chars(reply: str) -> int:
    """The characters a reader sees: everything but spaces and line breaks."""
    return sum(1 for char in reply if not char.isspace())


def words(reply: str) -> int:
    return len(_EN_WORD.findall(reply))


def split_sentences(text: str) -> list[str]:
    out: list[str] = []
    start = 0
    for found in _SENTENCE_END.finditer(text):
        out.append(text[start : found.end()])
        start = found.end()
    out.append(text[start:])
    return [piece for piece in out if piece.strip()]


def sentences(reply: str) -> int:
    """Sentences with a word in them (a lone "……" is none)."""
    return sum(1 for piece in split_sentences(reply) if _units(piece))


def _stem(word: str) -> str:
    word = word.lower().strip("'")
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _units(text: str) -> list[str]:
    """Chinese characters and English words (stemmed), first and second person made one unit."""
    out: list[str] = []
    for found in re.finditer(r"[\u3400-\u9fff\uf900-\ufaff]|[A-Za-z][A-Za-z']*|\d+", text):
        piece = found.group()
        if _CJK.match(piece):
            out.append(_PERSON if piece in _ZH_PERSONS else piece)
        else:
            word = piece.lower()
            out.append(_PERSON if word in _EN_PERSONS or word.startswith(("i'", "you'")) else _stem(word))
    return out


def _content(units: list[str]) -> int:
    return sum(1 for unit in units if unit != _PERSON and unit not in _EN_STOP and unit not in _ZH_STOP)


def _lcs(a: list[str], b: list[str]) -> list[str]:
    """The longest common subsequence of *a* and *b* (short texts)."""
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            table[i + 1][j + 1] = table[i][j] + 1 if x == y else max(table[i][j + 1], table[i + 1][j])
    out: list[str] = []
    i, j = len(a), len(b)
    while i and j:
        if a[i - 1] == b[j - 1]:
            out.append(a[i - 1])
            i, j = i - 1, j - 1
        elif table[i - 1][j] >= table[i][j - 1]:
            i -= 1
        else:
            j -= 1
    return out[::-1]


def _longest_run(a: list[str], b: list[str]) -> list[str]:
    best: list[str] = []
    previous = [0] * (len(b) + 1)
    for i, x in enumerate(a):
        current = [0] * (len(b) + 1)
        for j, y in enumerate(b):
            if x == y:
                current[j + 1] = previous[j] + 1
                if current[j + 1] > len(best):
                    best = a[i + 1 - current[j + 1] : i + 1]
        previous = current
    return best


def echoes_user(user_line: str, reply: str) -> bool:
    """Whether a sentence of *reply* hands *user_line* back (see the module's docstring)."""
    line = _units(user_line)
    theirs = [tuple(_units(piece)) for piece in split_sentences(user_line)]
    chinese = bool(_CJK.search(user_line))
    for piece in split_sentences(reply):
        mine = _units(piece)
        if len(mine) >= 3 and tuple(mine) in theirs:
            return True
        if len(mine) >= 4:
            common = _lcs(mine, line)
            if len(common) * 4 >= len(mine) * 3 and _content(common) >= 3:
                return True
        run = _longest_run(mine, line)
        if len(run) >= (8 if chinese else 5) and _content(run) >= 3:
            return True
    return False


_ACTION = re.compile(r"\*[^*]+\*|（[^）]*）|\([^)]*\)")
_QUOTED = re.compile(r"“[^”]*”|「[^」]*」|\"[^\"]*\"")


def dialogue_and_action(reply: str) -> tuple[bool, bool]:
    """(has dialogue, has an action or a description)."""
    actions = [m.group() for m in _ACTION.finditer(reply)]
    rest = _ACTION.sub(" ", reply)
    quoted = [m.group() for m in _QUOTED.finditer(rest)]
    if quoted:
        narration = _QUOTED.sub(" ", rest)
        actions.append(narration)
        dialogue = any(len(_units(q)) >= 2 for q in quoted)
    else:
        dialogue = len(_units(rest)) >= 2
    return dialogue, any(len(_units(action)) >= 2 for action in actions)


def speaks_as_user(reply: str, user_names: list[str], earlier_user_lines: list[str]) -> bool:
    """Whether *reply* writes the user's part (see the module's docstring)."""
    names = "|".join(re.escape(name) for name in user_names if name)
    if names:
        if re.search(rf"(?:^|\n)\s*[*（(「“\"]*\s*(?:{names})\s*[:：]", reply):
            return True
        if re.search(rf"我(?:叫|是|名叫)\s*(?:{names})|\b(?:I am|I'm|my name is|call me)\s+(?:{names})\b", reply,
                     re.IGNORECASE):  # fmt: skip
            return True
    for action in _ACTION.finditer(reply):
        inner = action.group()[1:-1].strip()
        if re.match(r"(?:you|your)\b", inner, re.IGNORECASE) or inner.startswith("你"):
            return True
    for piece in split_sentences(reply):
        mine = _units(piece)
        if len(mine) < 5:
            continue
        for line in earlier_user_lines:
            common = _lcs(mine, _units(line))
            if len(common) * 5 >= len(mine) * 4 and _content(common) >= 4:
                return True
    return False
