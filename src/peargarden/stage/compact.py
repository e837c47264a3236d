"""The stage request for a small model (under a few billion parameters, e.g. the embedded one).

A 0.5B model cannot follow the full stage prompt (tool rules, draft sheet, message conventions:
~2,300 characters before the card) and loses the character in it.  This profile sends:

* a short system prompt: who to play, the card's description, personality and scenario, the user's
  part, the constant lore, and five plain rules (Chinese, one in-character reply, never the
  user's part, never the user's words again, the character even when the user steps out of the
  story), held to :data:`SYSTEM_CHARS` characters — at most 800 tokens of Qwen2.5's tokenizer for
  青梧 with 栖水镇 (measured: docs/benchmarks/embedded-model.md).  The rules never name an AI: asked out of
  character what model it is, Qwen2.5-0.5B told 「不要说自己是AI」 said it was one on 9 seeds of 12,
  with that rule left out on 4, told to answer as the character even out of the story on 1
  (``git show fd224ce:docs/benchmarks.md``, *The sentence guard, the rule against claims*);
* the card's example dialogue as a few-shot pattern in the system prompt (``旅人：…`` / ``青梧：…``
  lines the model copies in tone and length; as separate turns they would merge with the greeting);
* lore the keyword scan hit (passive: nothing to look up), what the user's new words name first,
  then what the story so far names, as far as the budget goes — each entry as a few facts (its
  first sentence and the sentences the user's words touch), a person's entry with the pronoun
  stated, 【怀瑾（男）】 (:mod:`.lore_facts`) — in a system message of its own just before the user's
  new words, not in the system prompt.  The system prompt then stays the same from beat to beat
  (the constant lore is in it), and so does the story after it: llama.cpp reuses what it computed
  for them and reads only the last reply, the note and the new words.  With the hits in the system
  prompt, whatever the user named changed the prompt near its top, and 544 – 1,056 of its 920 –
  1,432 tokens were read again on most turns, most of a reply's CPU (issue 49, item 4);
* no tools, no injection of titles, no thinking.

The prompt is framed in Chinese, or in English for a card (or a ``language`` setting) in English:
on SillyTavern's Seraphina card Qwen2.5-0.5B, told in Chinese to write English, answered 4 of 8
English turns with the greeting's sentence again and 2 to the point; framed in English, at the same
length, 8 different replies, 6 to the point (``git show fd224ce:docs/benchmarks.md``, "English cards").

Pure functions: the caller (``modes/stage/request.py``) decides when the profile applies.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import msgspec

from .assemble import LoreCorpus, StageRequest, StageSettings, scan_texts
from .card import StageCard, apply_macros
from .lore.entries import LoreEntry
from .lore_facts import lore_facts, person_pronoun
from .messages import Role, Turn, merge_turns

__all__ = [
    "SYSTEM_CHARS",
    "compact_beat",
    "compact_prompt",
    "compact_system",
    "example_turns",
    "fallback_reply",
    "stop_words",
]

# Lore bodies longer than this are cut (a small model's context and attention are short).
_LORE_BODY_CHARS = 400
#: The system prompt's length in characters, lore hits included (constants and the card always go
#: in).  Chinese text runs about 0.78 tokens a character in Qwen2.5's tokenizer: ≈ 780 tokens.
SYSTEM_CHARS = 1000
# A hit cut shorter than this to fit the budget is left out instead.
_MIN_LORE_CHARS = 60
_DESCRIPTION_CHARS = 1200
_EXAMPLE_TURNS = 6
#: The card's example dialogue as turns of their own before the story (closed by a note), not lines
#: of the system prompt: a way to show the model a reply's length, measured on the quality bench
#: against holding the reply open (issue 49; docs/benchmarks/embedded-model.md).
EXAMPLES_AS_TURNS = False


def _cut(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[:limit].rstrip() + "…"


def example_turns(mes_example: str, char: str, user: str) -> list[Turn]:
    """The card's example dialogue as alternating turns (``<START>`` blocks, ``名字：`` lines).

    Lines are attributed by their speaker prefix (``{{user}}``/``{{char}}`` or the names, with a
    full-width or ASCII colon); a line without a prefix continues the previous turn.  At most the
    first few turns are kept, starting with the user's.
    """
    text = apply_macros(mes_example, char, user)
    turns: list[Turn] = []
    speakers: dict[str, Role] = {user: "user", char: "assistant"}
    pattern = re.compile(rf"^\s*({re.escape(user)}|{re.escape(char)})\s*[:：]\s*(.*)$")
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.upper().startswith("<START>"):
            continue
        found = pattern.match(line)
        if found:
            role = speakers[found.group(1)]
            turns.append(Turn(role, found.group(2).strip()))
        elif turns:
            turns[-1] = Turn(turns[-1].role, turns[-1].text + "\n" + line)
    while turns and turns[0].role != "user":
        turns.pop(0)
    merged = merge_turns(turns)[:_EXAMPLE_TURNS]
    if merged and merged[-1].role == "user":
        merged = merged[:-1]
    return merged


_ENGLISH = frozenset({"英语", "英文", "english", "en"})


class _Frame(msgspec.Struct, frozen=True):
    """The fixed words of the short prompt in one language."""

    intro: str  # {char}
    personality: str
    scenario: str
    user: str  # {user}
    persona: str  # {user} {persona}
    examples: str
    examples_end: str  # after the example turns, when they are turns (EXAMPLES_AS_TURNS)
    colon: str  # between a speaker's name and the words (example lines)
    rules: str  # {char} {user} {language}
    lore: str  # the constant lore, in the system prompt
    lore_now: str  # the lore this beat's scan hit, in a note before the user's words
    lore_title: str  # a lore entry without a title
    fallback: str  # {char}: what the character does when the model had nothing in character to say


_CHINESE = _Frame(
    intro="你是{char}。下面是{char}的设定。",
    personality="性格：",
    scenario="当前场景：",
    user="用户扮演{user}。",
    persona="用户扮演{user}：{persona}",
    examples="对话示例（只学语气和长短，不是已发生的剧情）：",
    examples_end="（以上是对话示例，只学语气和长短。下面才是正在发生的故事。）",
    colon="：",
    rules="规则：用{language}写。只以{char}的身份说话和行动，每次回应写两到四句：{char}说的话，加上一个小动作或神态。"
    "不要替{user}说话或行动，不要重复{user}说过的话。即使用户出戏，也以{char}的身份回答。",
    lore="世界设定：",
    lore_now="这一轮用得上的设定：",
    lore_title="设定",
    fallback="（{char}笑了笑，没有接这句话。）",
)
_ENGLISH_FRAME = _Frame(
    intro="You are {char}. This is {char}'s profile.",
    personality="Personality: ",
    scenario="Scenario: ",
    user="The user plays {user}.",
    persona="The user plays {user}: {persona}",
    examples="Example dialogue (copy only the tone and length; it has not happened):",
    examples_end="(Those were examples, for the tone and length only. The story starts here.)",
    colon=": ",
    rules="Rules: write in English. Speak and act only as {char}. Each reply is two to four sentences: what "
    "{char} says, and a small action or gesture. Never speak or act for {user}, never repeat what {user} said. "
    "Even when the user steps out of the story, answer as {char}.",
    lore="World lore:",
    lore_now="Lore for this turn:",
    lore_title="Lore",
    fallback="*{char} smiles and lets that pass.*",
)


def _frame(language: str) -> _Frame:
    return _ENGLISH_FRAME if language.strip().casefold() in _ENGLISH else _CHINESE


def compact_system(
    card: StageCard, settings: StageSettings, corpus: LoreCorpus, hits: Sequence[LoreEntry], asked: str = ""
) -> str:
    """The short system prompt and the lore note as one text (what the model reads of them)."""
    return "\n\n".join(part for part in compact_prompt(card, settings, corpus, hits, asked) if part)


def compact_prompt(
    card: StageCard, settings: StageSettings, corpus: LoreCorpus, hits: Sequence[LoreEntry], asked: str = ""
) -> tuple[str, str]:
    """(the short system prompt, the note of this beat's lore) — see the module docstring; *hits* in
    order of importance, each as the facts of it that *asked* (the user's new words) touches
    (:mod:`.lore_facts`).  The system prompt depends on the card and the settings only."""
    char, user = card.name, settings.user_name
    frame = _frame(settings.language)

    def macros(text: str) -> str:
        return apply_macros(text, char, user).strip()

    def lore_line(entry: LoreEntry, constant: bool = False) -> str:
        body = macros(entry.content)
        title = entry.title or frame.lore_title
        pronoun = person_pronoun(body, (entry.title, *entry.keys))
        # A constant entry is in the system prompt, which must not change with the user's words.
        facts = _cut(body if constant else lore_facts(body, asked), _LORE_BODY_CHARS)
        if frame is _CHINESE:
            return f"【{title}（{pronoun}）】{facts}" if pronoun else f"【{title}】{facts}"
        return f"[{title} ({pronoun})] {facts}" if pronoun else f"[{title}] {facts}"

    parts = [frame.intro.format(char=char), _cut(macros(card.description), _DESCRIPTION_CHARS)]
    if card.personality.strip():
        parts.append(frame.personality + macros(card.personality))
    if card.scenario.strip():
        parts.append(frame.scenario + macros(card.scenario))
    persona = macros(settings.user_persona)
    parts.append(frame.persona.format(user=user, persona=persona) if persona else frame.user.format(user=user))
    lore_at = len(parts)
    examples = [] if EXAMPLES_AS_TURNS else example_turns(card.mes_example, char, user)
    if examples:
        said = [f"{user if t.role == 'user' else char}{frame.colon}{t.text}" for t in examples]
        parts.append(frame.examples + "\n" + "\n".join(said))
    parts.append(frame.rules.format(char=char, user=user, language=settings.language or "中文"))
    constants = [lore_line(e, constant=True) for e in corpus.constants]
    if constants:
        parts.insert(lore_at, frame.lore + "\n" + "\n".join(constants))
    system = "\n\n".join(p for p in parts if p)
    lines: list[str] = []
    # What is left of the budget goes to the hits, in order; the last one that fits may be cut.
    room = SYSTEM_CHARS - len(system) - len(frame.lore_now) - 8
    for entry in hits:
        if entry in corpus.constants:
            continue
        line = lore_line(entry)
        if len(line) > room:
            if room < _MIN_LORE_CHARS:
                break
            line = line[: room - 1].rstrip() + "…"
        lines.append(line)
        room -= len(line) + 1
    return system, frame.lore_now + "\n" + "\n".join(lines) if lines else ""


def fallback_reply(card: StageCard, settings: StageSettings) -> str:
    """The line a small model's guards show when every try stepped out of the character (claimed to
    be a model) and nothing else was left: the character letting the words pass, in the prompt's
    language — better than 「I'm an AI model created by OpenAI.」 in 青梧's mouth."""
    return _frame(settings.language).fallback.format(char=card.name)


def stop_words(user: str) -> list[str]:
    """Where a small model's reply is over: a new line opened by the user's name (it starts writing
    the user's part), or a blank line.  One paragraph is the reply the profile asks for; measured on
    Qwen2.5-0.5B, a second paragraph was a question copied from the lore or from its own earlier
    replies ("你这边有几畦菜地吗？" after 5 of 12 replies), the loop the quality bench showed."""
    return [f"\n{user}：", f"\n{user}:", f"\n{user} :", "\n\n"]


def compact_beat(
    card: StageCard,
    settings: StageSettings,
    corpus: LoreCorpus,
    history: Sequence[Turn],
    user_text: str,
) -> StageRequest:
    """System prompt, the story so far, the note of the lore hit (as bodies) and the user's words."""
    depth, most = settings.scan_depth, settings.max_lore_hits
    hits = corpus.scan(scan_texts(history, user_text), depth=depth, max_hits=most)
    # What the user's new words name comes first: that is what the reply has to know.
    asked = corpus.scan(scan_texts([], user_text), depth=1, max_hits=most) if user_text.strip() else []
    hits = asked + [h for h in hits if h not in asked]
    system, note = compact_prompt(card, settings, corpus, hits, user_text)
    # The guards' last-resort line is no reply to learn from: fed back, the model wrote it again the
    # next turn (issue 49).  Its turn goes; the user's words around it join.
    fallback = fallback_reply(card, settings)
    turns = [turn for turn in history if not (turn.role == "assistant" and turn.text.strip() == fallback)]
    if user_text.strip():
        turns.append(Turn("user", user_text))
    messages = [{"role": t.role, "content": t.text} for t in merge_turns(turns)]
    if note and messages and messages[-1]["role"] == "user":
        messages.insert(len(messages) - 1, {"role": "system", "content": note})
    examples = example_turns(card.mes_example, card.name, settings.user_name) if EXAMPLES_AS_TURNS else []
    if examples:
        shown = [{"role": t.role, "content": t.text} for t in examples]
        messages = [*shown, {"role": "system", "content": _frame(settings.language).examples_end}, *messages]
    return StageRequest(system, messages, (), tuple(hits), note)
