"""The stage's macros: the same pipeline as tavern assembly, over everything the stage sends.

SillyTavern cards use far more than ``{{char}}``/``{{user}}``: legacy ``<user>``/``<bot>``,
``{{random::…}}``, ``{{getvar::…}}``/``{{setvar::…}}``, ``{{description}}``, comments, time.  The stage
runs every card field, lore entry title and body, prompt file and declared preset block through one
:data:`Macros` function built here, and that function calls the one shared entry point,
:func:`peargarden.text.macro_dispatch.expand`, with the engine tavern assembly would use (the legacy
1.12 pipeline, or 1.18's new engine).

Pure: the random source, the clock and the variables are passed in by the caller (the I/O edge).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from peargarden.text.macro_dispatch import Engine, expand
from peargarden.text.macros import CardMacroFields, MacroEnv, Variables

from .card import StageCard, apply_macros

__all__ = ["Macros", "plain_macros", "stage_macros"]

#: Text in, text with its macros replaced out.
Macros = Callable[[str], str]


def plain_macros(char: str, user: str) -> Macros:
    """Only ``{{char}}``/``{{user}}`` (tests and callers that build no environment)."""
    return lambda text: apply_macros(text, char, user)


def stage_macros(
    card: StageCard,
    *,
    user_name: str,
    user_persona: str = "",
    variables: Variables | None = None,
    random: Callable[[], float] | None = None,
    clock: Callable[[], datetime] | None = None,
    engine: Engine = "legacy",
) -> Macros:
    """The macro function of one beat: ST's pipeline with this card, user, variables, random, clock.

    Card-field macros (``{{description}}`` …) get the fields already substituted once, as in tavern
    assembly, so a field that names another one is expanded too.
    """
    base = MacroEnv(user=user_name, char=card.name, card=None, variables=variables or Variables())
    if random is not None:
        base.random = random
    if clock is not None:
        base.clock = clock

    def once(text: str) -> str:
        return expand(text.strip(), base, engine=engine) if text.strip() else ""

    fields = CardMacroFields(
        char_prompt=once(card.system_prompt),
        char_jailbreak=once(card.post_history_instructions),
        description=once(card.description),
        personality=once(card.personality),
        scenario=once(card.scenario),
        persona=once(user_persona),
        mes_examples=once(card.mes_example),
    )
    env = MacroEnv(
        user=user_name,
        char=card.name,
        card=fields,
        variables=base.variables,
        random=base.random,
        clock=base.clock,
        sysprompt="",
        example_separator="",
        chat_start="",
    )

    def run(text: str) -> str:
        # ``{{original}}`` means nothing on the stage (no preset prompt to splice in).
        return expand(text, env, original="", engine=engine) if text else text

    return run
