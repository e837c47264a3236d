"""How the small-model guards' sentence rules judge replies a panel already played: what they catch
of the reader's echoes, and what else they would cut (false positives, read by a person).

Reads the ``--json`` files of ``bench_embedded_quality.py`` (each reply with its turn) and, per
reply, applies:

* the reader's check (``embedded_checks.echoes_user``: the bench's own rule, not the guards');
* the echo guard's clauses (``providers._echo.echoes``, what the guard already cut before);
* the restated-sentence rule (``providers._restated.restates``, sentence by sentence);
* the name rule (``providers._self_names.wrong_name`` with the panel's cast: the card and its lore
  as the stage reads them, ``stage.cast.cast_names``, and the names the user gave in the turns so
  far).

It prints, per file and code, the replies, the reader's echoes, how many of them the restated rule
catches, the replies it flags that the reader passes, and the name rule's hits, then every flagged
sentence so a reader can judge it.  Nothing is played: the replies were made by the code that made
the file (a reply of the code *after* the rules rarely shows them: the guard already cut them).

    .venv/bin/python bench/bench_guard_agreement.py en.json zh1.json
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import embedded_checks as checks
from bench_embedded_quality import PANELS, Panel

from peargarden.modes.stage.materials import load_stage_materials
from peargarden.providers._echo import echoes
from peargarden.providers._restated import restates
from peargarden.providers._self_names import Names, names_for, wrong_name
from peargarden.providers._sentences import split_sentences
from peargarden.providers.base import Cast
from peargarden.stage.cast import cast_names
from peargarden.workspace.cards import open_card
from peargarden.workspace.home import Home


def panel_cast(panel: Panel) -> Cast:
    """The cast the stage hands the guards for *panel*'s card, in a fresh data folder."""
    with tempfile.TemporaryDirectory() as folder:
        home = Home(Path(folder))
        panel.seed(home)
        materials = load_stage_materials(home, open_card(home, panel.card))
        return Cast(*cast_names(materials.card, materials.stage, materials.corpus))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path, help="--json files of bench_embedded_quality.py")
    args = parser.parse_args()
    casts = {key: panel_cast(panel) for key, panel in PANELS.items()}
    rows: list[str] = []
    notes: list[str] = []
    for path in args.files:
        for run in json.loads(path.read_text(encoding="utf-8")):
            panel = PANELS[run["panel"]]
            code = run.get("code") or "after"
            count = {"replies": 0, "reader": 0, "clauses": 0, "caught": 0, "extra": 0, "names": 0}
            for index, reply in enumerate(run["replies"]):
                user = panel.turns[index]
                names: Names = names_for(casts[panel.key], panel.turns[: index + 1])
                reader = checks.echoes_user(user, reply)
                restated = [s.strip() for s in split_sentences(reply) if restates(user, s)]
                named = [(s.strip(), why) for s in split_sentences(reply) if (why := wrong_name(s, names))]
                count["replies"] += 1
                count["reader"] += reader
                count["clauses"] += echoes(user, reply)
                count["caught"] += bool(reader and restated)
                count["extra"] += bool(restated and not reader)
                count["names"] += bool(named)
                where = f"{path.name} {panel.key} seed {run.get('seed')} {code} turn {index + 1}"
                notes += [f"- {where}: restated{'' if reader else ' (reader: no echo)'}: {s}" for s in restated]
                notes += [f"- {where}: name ({why}): {s}" for s, why in named]
            cells = [path.name, panel.key, str(run.get("seed")), code, *map(str, count.values())]
            rows.append("| " + " | ".join(cells) + " |")
    head = "file | panel | seed | code | replies | reader's echoes | echo guard's clauses | restated: caught | "
    head += "restated, not the reader's | names"
    print("| " + head + " |")
    print("|" + "---|" * len(head.split(" | ")))
    print("\n".join(rows))
    print()
    print("\n".join(notes) or "(no sentence flagged)")


if __name__ == "__main__":
    main()
