"""One-off: draw the avatar of the bundled card 青梧 and write the card PNG.

Run from the repository root:  .venv/bin/python scripts/make_default_card.py

The result, ``src/peargarden/data/cards/青梧.png``, is committed; this script is kept so the
card can be rebuilt after its text changes.  Drawing is deterministic (fixed seed), so a rerun
without changes gives the same image.  The card chunks are written by ``peargarden.formats``.
"""

from __future__ import annotations

import io
import math
import random
import sys
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "src" / "peargarden" / "data" / "cards" / "青梧.png"

WIDTH, HEIGHT = 400, 600
# Drawn at twice the size, then scaled down: cheap anti-aliasing.
SCALE = 2


def _lerp(a: tuple[int, int, int], b: tuple[int, int, int], t: float) -> tuple[int, int, int]:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


def draw_avatar() -> Image.Image:
    w, h = WIDTH * SCALE, HEIGHT * SCALE
    rng = random.Random(1987)
    x: float
    y: float

    # Night sky: deep indigo above, misty slate near the water.
    img = Image.new("RGB", (w, h))
    px = ImageDraw.Draw(img)
    top, bottom = (22, 28, 46), (58, 72, 86)
    for y in range(h):
        px.line([(0, y), (w, y)], fill=_lerp(top, bottom, y / h))

    # Warm lamplight from the inn's open door, blurred into a glow.
    glow = Image.new("L", (w, h), 0)
    gd = ImageDraw.Draw(glow)
    cx, cy = int(w * 0.62), int(h * 0.50)
    for r in range(int(w * 0.42), 0, -6):
        gd.ellipse([cx - r, cy - r, cx + r, cy + r], fill=int(150 * (1 - r / (w * 0.42)) ** 1.6))
    glow = glow.filter(ImageFilter.GaussianBlur(30 * SCALE))
    img = Image.composite(Image.new("RGB", (w, h), (236, 176, 98)), img, glow)
    px = ImageDraw.Draw(img)

    # Eaves of the inn across the top, corners turned up.
    eave = (14, 16, 24)
    points: list[tuple[float, float]] = [(0, 0), (w, 0), (w, h * 0.10)]
    for i in range(41):
        t = i / 40
        x = w - t * w
        lift = 0.06 * h * (abs(t - 0.5) * 2) ** 4
        points.append((x, h * 0.16 - lift))
    points.append((0, h * 0.10))
    px.polygon(points, fill=eave)
    for i in range(18):  # roof tile ends
        x = (i + 0.5) * w / 18
        t = x / w
        y = h * 0.16 - 0.06 * h * (abs(t - 0.5) * 2) ** 4
        px.ellipse([x - 9 * SCALE, y - 6 * SCALE, x + 9 * SCALE, y + 6 * SCALE], fill=(28, 30, 40))

    # A paper lantern hanging from the eave.
    lx, ly = int(w * 0.80), int(h * 0.27)
    px.line([(lx, h * 0.15), (lx, ly - 34 * SCALE)], fill=(30, 26, 22), width=2 * SCALE)
    lantern_glow = Image.new("L", (w, h), 0)
    ImageDraw.Draw(lantern_glow).ellipse(
        [lx - 70 * SCALE, ly - 70 * SCALE, lx + 70 * SCALE, ly + 70 * SCALE], fill=120
    )
    lantern_glow = lantern_glow.filter(ImageFilter.GaussianBlur(22 * SCALE))
    img = Image.composite(Image.new("RGB", (w, h), (255, 190, 110)), img, lantern_glow)
    px = ImageDraw.Draw(img)
    px.ellipse([lx - 24 * SCALE, ly - 32 * SCALE, lx + 24 * SCALE, ly + 32 * SCALE], fill=(214, 92, 58))
    for k in (-14, 0, 14):
        px.arc(
            [
                lx - abs(24 - abs(k)) * SCALE - 8,
                ly - 32 * SCALE,
                lx + abs(24 - abs(k)) * SCALE + 8,
                ly + 32 * SCALE,
            ],
            90,
            270,
            fill=(170, 64, 42),
            width=SCALE,
        )
    px.rectangle([lx - 12 * SCALE, ly - 36 * SCALE, lx + 12 * SCALE, ly - 30 * SCALE], fill=(40, 30, 24))
    px.rectangle([lx - 12 * SCALE, ly + 30 * SCALE, lx + 12 * SCALE, ly + 36 * SCALE], fill=(40, 30, 24))
    px.line([(lx, ly + 36 * SCALE), (lx, ly + 56 * SCALE)], fill=(150, 50, 40), width=2 * SCALE)

    # The keeper in silhouette, three-quarter back, hair in a low knot with a hairpin.
    ink = (18, 20, 30)
    fx, fy = int(w * 0.40), int(h * 0.52)
    head_r = 46 * SCALE
    px.ellipse([fx - head_r, fy - head_r, fx + head_r, fy + head_r * 1.12], fill=ink)
    px.ellipse([fx - 64 * SCALE, fy + 8 * SCALE, fx - 16 * SCALE, fy + 52 * SCALE], fill=ink)  # low knot
    px.line(
        [(fx - 78 * SCALE, fy + 18 * SCALE), (fx - 6 * SCALE, fy + 40 * SCALE)],
        fill=(120, 150, 120),
        width=3 * SCALE,
    )
    px.ellipse(
        [fx - 84 * SCALE, fy + 13 * SCALE, fx - 72 * SCALE, fy + 25 * SCALE], fill=(140, 176, 140)
    )  # jade bead
    neck_top = fy + head_r
    px.polygon(
        [
            (fx - 18 * SCALE, neck_top - 10 * SCALE),
            (fx + 20 * SCALE, neck_top - 10 * SCALE),
            (fx + 26 * SCALE, neck_top + 40 * SCALE),
            (fx - 24 * SCALE, neck_top + 40 * SCALE),
        ],
        fill=ink,
    )
    # Shoulders and a crossed collar, the robe a dark celadon.
    robe = (34, 58, 56)
    shoulders = [
        (fx - 150 * SCALE, h),
        (fx - 120 * SCALE, neck_top + 80 * SCALE),
        (fx - 40 * SCALE, neck_top + 34 * SCALE),
        (fx + 44 * SCALE, neck_top + 34 * SCALE),
        (fx + 128 * SCALE, neck_top + 84 * SCALE),
        (fx + 160 * SCALE, h),
    ]
    px.polygon(shoulders, fill=robe)
    px.line(
        [(fx - 40 * SCALE, neck_top + 34 * SCALE), (fx + 30 * SCALE, neck_top + 150 * SCALE)],
        fill=(200, 206, 196),
        width=5 * SCALE,
    )
    px.line(
        [(fx + 44 * SCALE, neck_top + 34 * SCALE), (fx + 8 * SCALE, neck_top + 110 * SCALE)],
        fill=(200, 206, 196),
        width=5 * SCALE,
    )

    # Rain, slanting a little, lighter where the lamplight catches it.
    rain = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    rd = ImageDraw.Draw(rain)
    for _ in range(380):
        x = rng.uniform(-60, w)
        y = rng.uniform(h * 0.12, h)
        length = rng.uniform(18, 46) * SCALE
        lit = max(0.0, 1 - math.hypot(x - cx, y - cy) / (w * 0.6))
        alpha = int(rng.uniform(40, 90) + 90 * lit)
        rd.line([(x, y), (x + length * 0.18, y + length)], fill=(210, 220, 232, alpha), width=SCALE)
    img = Image.alpha_composite(img.convert("RGBA"), rain).convert("RGB")

    # A narrow band of river at the bottom with lamplight broken on it.
    px = ImageDraw.Draw(img)
    for _ in range(60):
        y = rng.uniform(h * 0.90, h)
        x = rng.uniform(w * 0.3, w * 0.95)
        px.line([(x, y), (x + rng.uniform(20, 60) * SCALE, y)], fill=(200, 150, 90), width=SCALE)

    # A small red seal in the corner.
    sx, sy, s = 26 * SCALE, h - 62 * SCALE, 36 * SCALE
    px.rectangle([sx, sy, sx + s, sy + s], fill=(168, 40, 36))
    px.rectangle(
        [sx + 5 * SCALE, sy + 5 * SCALE, sx + s - 5 * SCALE, sy + s - 5 * SCALE],
        outline=(236, 220, 200),
        width=2 * SCALE,
    )
    px.line(
        [(sx + s / 2, sy + 9 * SCALE), (sx + s / 2, sy + s - 9 * SCALE)],
        fill=(236, 220, 200),
        width=2 * SCALE,
    )
    px.line(
        [(sx + 10 * SCALE, sy + s / 2), (sx + s - 10 * SCALE, sy + s / 2)],
        fill=(236, 220, 200),
        width=2 * SCALE,
    )

    return img.resize((WIDTH, HEIGHT), Image.Resampling.LANCZOS)


def avatar_png() -> bytes:
    buffer = io.BytesIO()
    draw_avatar().save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


DESCRIPTION = """\
青梧，二十六岁，栖水镇客栈「听雨轩」的年轻掌柜。父母早逝，她十六岁起独自撑起这间临河的老客栈，至今已有十年。

她生得清瘦，常穿一身洗得发白的青布衫，袖口挽起，发髻低低绾着，插一支素银簪子。说话声音不高，却句句让人听得清楚。

听雨轩是一座两层木楼，前堂临街，后院有一口老井，二楼的客房推窗便是河。柜台后的墙上挂着一把断了一根伞骨的旧油纸伞，伞面的桃花已经褪了色。客人问起，她只笑一笑，把话岔开——从没有人听她讲过那把伞的来历。

她记得每一位住过的客人：谁爱喝浓茶，谁夜里咳嗽，谁临走还欠着半钱房钱。镇上的旧事她知道得不少，只是不轻易说。"""

PERSONALITY = (
    "温和、沉静，眼尖心细，话少而准。待客周到却不殷勤，不追问别人的来历，也不轻易交出自己的。"
    "遇事先沉住气，偶尔露出一点不饶人的机锋。一个人的时候会对着窗外发呆，一听雨就是很久。"
)

SCENARIO = (
    "暮春，栖水镇的雨已经下了三天。夜深了，听雨轩前堂只剩一盏灯，{{user}}带着一身雨水推门进来。"
    "{{user}}从哪里来、为什么来，青梧还不知道。"
)

FIRST_MES = """\
檐下的雨声密了又疏，疏了又密，这已经是第三天了。

前堂只剩柜台上一盏油灯还亮着。青梧正低头对着账簿拨算盘，门板忽然被推开，一阵潮湿的夜风卷着雨丝扑进来，灯焰晃了两晃。

她抬起眼，看见门口站着一个浑身湿透的人。

“进来吧，门口风大。”她放下算盘，从柜台后绕出来，顺手取了一条干布巾递过去，“这么大的雨还赶夜路，想必是走得急。”

她没有问客人从哪里来，只提起炉上温着的铜壶，斟了一碗热姜茶，推到离火盆最近的那张桌上。

“这里是听雨轩，这个时辰，栖水镇上就只剩我这儿还亮着灯。”她回到柜台后，翻开簿子，蘸了蘸墨，“楼上东头那间临河，被褥今早才烘过。该怎么称呼您？我好记在簿子上。”"""

MES_EXAMPLE = """\
<START>
{{user}}：掌柜的，这雨什么时候能停？
{{char}}：青梧把窗推开一条缝，侧耳听了一会儿，又轻轻合上。“檐角的水还是成串地落，今夜是停不了的。”她往你的碗里续了些热茶，“栖水镇的雨向来如此，来了就要住上几日——和客人一样。”"""

CREATOR_NOTES = (
    "梨园（Pear Garden）随附的默认角色卡，原创。建议挂载世界书「栖水镇」一起使用。"
    "开场是暮春的雨夜，{{user}}初到听雨轩。"
)


def card_data() -> dict[str, object]:
    return {
        "name": "青梧",
        "description": DESCRIPTION,
        "personality": PERSONALITY,
        "scenario": SCENARIO,
        "first_mes": FIRST_MES,
        "mes_example": MES_EXAMPLE,
        "creator_notes": CREATOR_NOTES,
        "system_prompt": "",
        "post_history_instructions": "",
        "alternate_greetings": [],
        "tags": ["原创", "古风", "梨园"],
        "creator": "Pear Garden",
        "character_version": "1.0",
        "extensions": {},
        "group_only_greetings": [],
        "assets": [{"type": "icon", "uri": "ccdefault:", "name": "main", "ext": "png"}],
        "creation_date": 1795910400,
        "modification_date": 1795910400,
    }


def main() -> None:
    from peargarden.formats import Card, card_to_png

    card = Card.new("青梧", **{k: v for k, v in card_data().items() if k != "name"})
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(card_to_png(card, avatar_png()))
    print(f"wrote {OUT.relative_to(REPO)}")


if __name__ == "__main__":
    if "--preview" in sys.argv:
        draw_avatar().save(sys.argv[-1])
    else:
        main()
