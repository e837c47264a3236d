"""Chinese test data for the stage tests: a small book in the spirit of the seed's 栖水镇 and a card.

The bundled card and lorebook (written by the workspace) are tested separately in
``test_stage_bundled.py``; these fixtures keep the pure tests independent of that content.
"""

from __future__ import annotations

from typing import Any

from peargarden.stage import StageCard

GREETING = "雨下到第三天，听雨轩的灯笼还亮着。青梧替你斟了一杯热茶：“客官要住几日？”"
QUESTION = "十年前从镇北渡口走的那位怀瑾公子，掌柜可还记得？"


def town_book() -> dict[str, Any]:
    """A standalone (SillyTavern object-form) book: one constant entry, five keyword entries."""
    return {
        "entries": {
            "0": {
                "uid": 0,
                "key": [],
                "comment": "栖水镇概况",
                "content": "栖水镇是江南水乡的小镇，一条河穿镇而过，春天多雨，镇上人家都认得彼此。",
                "constant": True,
                "order": 1,
            },
            "1": {
                "uid": 1,
                "key": ["听雨轩", "客栈"],
                "comment": "听雨轩",
                "content": "听雨轩是镇上最老的客栈，临河而建，掌柜青梧从不打听客人的来历，住店只问住几日。",
                "order": 10,
            },
            "2": {
                "uid": 2,
                "key": ["怀瑾", "怀瑾公子"],
                "comment": "怀瑾",
                "content": "怀瑾是十年前离开栖水镇的年轻公子，那年秋天他从镇北渡口上了船，此后音信全无。",
                "order": 20,
            },
            "3": {
                "uid": 3,
                "key": ["镇北渡口", "北渡"],
                "comment": "镇北渡口",
                "content": "镇北渡口在镇子北头的老柳树下，渡船一日两班，是出镇唯一的水路，摆渡的是哑巴老周。",
                "order": 30,
            },
            "4": {
                "uid": 4,
                "key": ["旧油纸伞", "油纸伞"],
                "comment": "旧油纸伞",
                "content": "柜台后挂着一把断了一根伞骨的旧油纸伞，有人提起时，她会先去擦那把伞，却从不解释。",
                "order": 40,
            },
            "5": {
                "uid": 5,
                "key": ["梨树", "老梨树"],
                "comment": "后院老梨树",
                "content": "听雨轩后院有一棵老梨树，春末开花，花落时满院都是白的，青梧常在树下煮茶。",
                "order": 50,
            },
        }
    }


def qingwu_card() -> StageCard:
    return StageCard(
        name="青梧",
        description="{{char}}是栖水镇听雨轩的年轻掌柜，二十六七岁，记得每一位客人。",
        personality="沉静，话少，观察入微。",
        scenario="暮春，雨下到第三天的夜里，{{user}}浑身湿透地推门进来。",
        first_mes=GREETING,
    )
