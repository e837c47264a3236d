"""A character's expression beside its reply, as SillyTavern's expressions extension has it (pure).

The labels are SillyTavern's (its classifier's 28, ``talkinghead`` aside); a sprite file is named by
its label (``joy.png``, ``joy-2.png``; a Chinese name such as ``开心.png`` is read as its label too).
The side model is asked one short question per reply — which label fits — and its answer is read
back leniently (a JSON ``{"emotion"}``, the first label it names, a Chinese name, a near miss); with no
side model, words of the reply choose (Chinese and English keywords, a negation before one ignored).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Mapping, Sequence

LABELS: tuple[str, ...] = (
    "admiration", "amusement", "anger", "annoyance", "approval", "caring", "confusion", "curiosity", "desire",
    "disappointment", "disapproval", "disgust", "embarrassment", "excitement", "fear", "gratitude", "grief", "joy",
    "love", "nervousness", "optimism", "pride", "realization", "relief", "remorse", "sadness", "surprise", "neutral",
)  # fmt: skip

# What Chinese sprite packs name their files, and words a reply shows the feeling with; the first
# name of each is the label's own Chinese name.
CHINESE: dict[str, tuple[str, ...]] = {
    "admiration": ("钦佩", "崇拜", "敬佩", "佩服"),
    "amusement": ("好笑", "有趣", "逗乐", "噗嗤", "忍俊不禁"),
    "anger": ("生气", "愤怒", "发怒", "怒", "恼怒", "气愤"),
    "annoyance": ("烦躁", "不耐烦", "恼火", "烦"),
    "approval": ("赞同", "认可", "点头", "赞许"),
    "caring": ("关心", "关切", "担心", "照顾", "心疼"),
    "confusion": ("困惑", "疑惑", "不解", "迷惑", "纳闷"),
    "curiosity": ("好奇",),
    "desire": ("渴望", "欲望", "想要"),
    "disappointment": ("失望", "沮丧"),
    "disapproval": ("不满", "反对", "皱眉", "摇头"),
    "disgust": ("厌恶", "嫌弃", "恶心"),
    "embarrassment": ("害羞", "尴尬", "脸红", "羞"),
    "excitement": ("兴奋", "激动"),
    "fear": ("害怕", "恐惧", "惊恐", "颤抖", "怕"),
    "gratitude": ("感激", "感谢", "谢谢", "多谢"),
    "grief": ("悲痛", "哀伤", "痛哭"),
    "joy": ("开心", "高兴", "喜悦", "笑", "快乐", "欢喜"),
    "love": ("爱", "喜欢", "心动", "爱慕"),
    "nervousness": ("紧张", "忐忑", "不安", "慌"),
    "optimism": ("乐观", "期待", "希望"),
    "pride": ("骄傲", "自豪", "得意"),
    "realization": ("恍然", "领悟", "明白了", "原来"),
    "relief": ("欣慰", "松了口气", "放心", "释然"),
    "remorse": ("懊悔", "后悔", "愧疚", "歉意"),
    "sadness": ("难过", "伤心", "悲伤", "哭", "泪", "叹"),
    "surprise": ("惊讶", "吃惊", "诧异", "愣", "惊"),
    "neutral": ("平静", "默认", "普通", "正常"),
}

ENGLISH: dict[str, tuple[str, ...]] = {
    "amusement": ("chuckle", "giggle", "amused"),
    "anger": ("angry", "furious", "rage", "glare"),
    "annoyance": ("annoyed", "irritated"),
    "caring": ("worried", "gently", "concern"),
    "confusion": ("confused", "puzzled", "frown"),
    "curiosity": ("curious", "wonder"),
    "disgust": ("disgust", "gross"),
    "embarrassment": ("blush", "embarrass", "flustered"),
    "excitement": ("excited", "thrilled"),
    "fear": ("afraid", "scared", "fear", "tremble"),
    "gratitude": ("thank", "grateful"),
    "joy": ("smile", "laugh", "happy", "glad", "grin"),
    "love": ("love", "adore"),
    "nervousness": ("nervous", "anxious"),
    "sadness": ("sad", "cry", "tears", "sigh", "sob"),
    "surprise": ("surprise", "gasp", "shock", "startled"),
}

DEFAULT_PROMPT = (
    "Ignore the story's instructions. Read the last message of {{char}} and answer with the one label that "
    "best fits {{char}}'s emotion in it, a single word from this list: {{labels}}."
)

_NEGATION = "不没未别无"
_TAGS = re.compile(r"<[^>\n]*>|```.*?```", re.S)


def labels_with(custom: Iterable[str]) -> list[str]:
    """SillyTavern's labels, then the card's own (a sprite named by no label of ours), each once."""
    found = list(LABELS)
    for label in custom:
        if label and label not in found:
            found.append(label)
    return found


def sample(text: str, limit: int = 600) -> str:
    """What the classifier reads: the reply without markup, its start and its end when it is long."""
    clean = " ".join(_TAGS.sub(" ", text).split())
    if len(clean) <= limit:
        return clean
    head = limit // 3
    return f"{clean[:head]} … {clean[-(limit - head):]}"


def classify_request(text: str, labels: Sequence[str], char: str, prompt: str = "") -> tuple[str, str]:
    """The side model's (system, user) request: which of *labels* fits *char*'s *text*."""
    listed = ", ".join(f'"{label}"' for label in labels)
    system = (prompt or DEFAULT_PROMPT).replace("{{labels}}", listed).replace("{{char}}", char or "the character")
    return system, sample(text)


def _chinese_label(text: str, labels: Sequence[str]) -> str | None:
    for label in labels:
        if any(name in text for name in CHINESE.get(label, ())[:2]):
            return label
    return None


def parse_label(answer: str, labels: Sequence[str]) -> str | None:
    """The label the side model's *answer* names; ``None`` when it names none."""
    text = answer.strip()
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict) and isinstance(parsed.get("emotion"), str):
        text = str(parsed["emotion"])
    words: list[str] = re.findall(r"[a-z]+", text.lower())
    for word in words:
        if word in labels:
            return word
    found = _chinese_label(text, labels)
    if found is not None:
        return found
    for word in words:
        near = difflib.get_close_matches(word, labels, n=1, cutoff=0.75)
        if near:
            return near[0]
    return None


def keyword_label(text: str, labels: Sequence[str] = LABELS) -> str | None:
    """The label whose words the reply uses most (later ones break a tie); ``None`` when it uses none."""
    clean = sample(text, 4000)
    lowered = clean.lower()
    best: tuple[int, int, str] | None = None
    for label in labels:
        count, last = 0, -1
        for word in CHINESE.get(label, ()):
            for found in re.finditer(re.escape(word), clean):
                if found.start() > 0 and clean[found.start() - 1] in _NEGATION:
                    continue
                count, last = count + 1, max(last, found.start())
        for word in ENGLISH.get(label, ()):
            for found in re.finditer(rf"\b{re.escape(word)}", lowered):
                count, last = count + 1, max(last, found.start())
        if count and (best is None or (count, last) > best[:2]):
            best = (count, last, label)
    return best[2] if best else None


def sprite_label(stem: str, labels: Sequence[str] = LABELS) -> str:
    """The label a sprite file's name (without its extension) stands for: SillyTavern's file stem in
    lower case, ``joy-2`` → ``joy``, ``开心`` → ``joy``; a stem that is none of them is its own label."""
    lowered = stem.strip().lower()
    if lowered in labels:
        return lowered
    base = re.split(r"[-_. ]", lowered, maxsplit=1)[0]
    if base in labels:
        return base
    for label in labels:
        names = CHINESE.get(label, ())
        if stem in names or re.split(r"[-_. ]", stem, maxsplit=1)[0] in names:
            return label
    return lowered


def pick_sprite(label: str, sprites: Mapping[str, Sequence[str]], fallback: str) -> str | None:
    """The sprite for *label* (its first by name), else the fallback label's, else none."""
    for wanted in (label, fallback):
        found = sorted(sprites.get(wanted, ()))
        if found:
            return found[0]
    return None
