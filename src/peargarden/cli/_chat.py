"""``pear chat``'s work: play a card in the terminal (interactive, or one beat with ``--once``).

Typer-free: :mod:`.chat_cmd` declares the command for typer and calls :func:`chat`, and
:mod:`._light` calls it directly when the command line is a plain one (no typer in the process).
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from peargarden.app import (
    AgentEvent,
    ApprovalPrompt,
    Beat,
    ChatOptions,
    ChatSession,
    ChoiceEvent,
    DoneEvent,
    ErrorEvent,
    PageItem,
    PearApp,
    ProseEvent,
    SpeakerEvent,
    TextDeltaEvent,
    TextRetractEvent,
    ThinkingDeltaEvent,
    ToolEndEvent,
    ToolStartEvent,
    WarningEvent,
)
from peargarden.app.cards import pending_question, set_allowance  # not at import: light --help
from peargarden.app.library import init_home
from peargarden.app.play import MODE_NAMES, Answer, scripts_needing_page, thinking_level
from peargarden.app.settings import Connection, flag_timeouts
from peargarden.errors import BadInput, PearError, ProviderError
from peargarden.formats import dumps_json

from ._echo import echo
from ._state import state
from ._vault import vault_snapshots
from ._wrap import StreamWrap

if TYPE_CHECKING:
    from peargarden.app import AnyChat
    from peargarden.app.play import CardFolder

HELP = f"""命令：
  /regen            重新生成最后一条回复（旧的留作另一条）
  /swipe [-]        下一条 / 上一条回复（超过最后一条就生成新的）
  /continue         接着最后一条回复往下写（写在这条回复里，同 SillyTavern）
  /undo [N]         撤销修改：最后一条（或第 N 条）回到上次编辑或续写之前的文字
  /impersonate      让模型替你写下一句（回车发送，输入文字改写，/cancel 放弃）
  /edit N [文字]    改第 N 条消息，就地修改（从 0 数起；/show 看编号；/undo N 撤销）
  /delete N         删掉第 N 条消息（旧版本仍在 /tree 里）
  /branch N         回到第 N 条消息，从那里另起分支
  /hide N[-M]       不再把第 N（到 M）条消息发给模型（仍留在对话里；同 SillyTavern 的 /hide）
  /unhide N[-M]     把隐藏的消息重新发给模型
  /tree             显示整棵对话树
  /goto ID          跳到树上的某个条目（ID 见 /tree），从那里继续
  /show             显示当前分支的消息和编号
  /mode [{"|".join(MODE_NAMES)}]  查看或切换对话方式（work：工作模式，写卡维护，不进入故事）
  /trigger 名字     群聊里让这位成员马上接话（静音的也行）
  /quit             退出
  其他 / 开头的行    作为 SillyTavern 的斜杠命令（STscript）运行，例如 /setvar key=好感 5 | /echo 好
Ctrl-C 停止正在生成的回复（已写出的部分会保留）。"""


def _options(
    mode: str | None,
    thinking: str | None,
    persona: str | None,
    base_url: str | None,
    model: str | None,
    api_key_env: str | None,
    local_model: str | None = None,
    timeouts: dict[str, float | None] | None = None,
) -> ChatOptions:
    if mode is not None and mode not in MODE_NAMES:
        raise BadInput(f"--mode 只能是 {'、'.join(MODE_NAMES)} 之一，收到 {mode!r}")
    if thinking is not None:
        thinking_level(thinking)
    if local_model and base_url:
        raise BadInput("--local-model 和 --base-url 只能选一个（a local GGUF or an endpoint）")
    limits = flag_timeouts(timeouts or {})
    connection: Connection | None = None
    if base_url or model or api_key_env or local_model or limits:
        connection = Connection(base_url or "", model or "", api_key_env or "", local_model or "", limits)
    return ChatOptions(mode=mode, thinking=thinking, persona=persona, connection=connection)


def _open(card: str | None, chat_id: str | None, options: ChatOptions, group: str | None = None) -> AnyChat:
    home = state.home
    if not home.exists():
        init_home(home)  # a fresh machine: the bundled card and files, as `pear init` would
    service = PearApp(home)
    if group is not None:
        if card is not None:
            raise BadInput("--card 和 --group 只能选一个（a card or a group）")
        # On demand: a group chat's service, its modes and SillyTavern's group cast (a card's chat never loads them).
        from peargarden.app.play import new_group_chat, open_group_chat

        group_chat = (
            open_group_chat(service, group, chat_id, options) if chat_id else new_group_chat(service, group, options)
        )
        for member in group_chat.roster():
            _ask_card_regex(home, member.card)
        return group_chat
    _ask_card_regex(home, service.card(card).folder)  # before the session builds its request builders
    return service.open_chat(card, chat_id, options) if chat_id else service.new_chat(card, options)


# -- rendering -------------------------------------------------------------------------------------


def _terminal_wrap() -> StreamWrap | None:
    """Word wrap at the terminal's width (``COLUMNS`` wins), or ``None`` when stdout is no terminal:
    what goes to a file or a pipe is the reply as the model wrote it."""
    if not sys.stdout.isatty():
        return None
    return StreamWrap(shutil.get_terminal_size().columns - 1)


# Why a small model's guard took text back (a ``text_retract`` event's ``reason``).
_RETRACT_REASONS = {
    "echo": "复述了你的话",
    "claim": "跳出了角色",
    "repeat": "重复了前面说过的话",
    "user": "替你说话了",
    "name": "把自己说成了别人",
}


class _Printer:
    """Streams events to the terminal: reply on stdout, everything else on stderr."""

    def __init__(self, show_thinking: bool = True, wrap: StreamWrap | None = None) -> None:
        self.show_thinking = show_thinking
        # On a terminal, lines break between words (English would otherwise split mid-word).
        self.wrap = wrap
        self.in_thinking = False
        self.line_open = False
        # The options of the last choice card (the ask tool): a bare number answers with that option.
        self.choices: list[str] = []

    def _end_thinking(self) -> None:
        if self.in_thinking:
            sys.stderr.write("\x1b[0m\n")
            sys.stderr.flush()
            self.in_thinking = False

    def _newline(self) -> None:
        if self.wrap is not None:
            sys.stdout.write(self.wrap.flush())
        if self.line_open:
            sys.stdout.write("\n")
            sys.stdout.flush()
            self.line_open = False
        if self.wrap is not None:
            self.wrap.reset()

    def echo(self, text: str) -> None:
        """A whole reply at once (the greeting, a swipe kept, sealed prose), wrapped like a streamed one."""
        if self.wrap is not None:
            text = self.wrap.feed(text) + self.wrap.flush()
            self.wrap.reset()
        echo(text)

    def event(self, event: AgentEvent) -> None:
        match event:
            case ThinkingDeltaEvent(text=text):
                self._thinking(text)
            case SpeakerEvent(name=name):  # a group chat: whose reply follows
                self._end_thinking()
                self._newline()
                echo(f"【{name}】")
            case TextDeltaEvent(text=text):
                self._end_thinking()
                sys.stdout.write(self.wrap.feed(text) if self.wrap is not None else text)
                sys.stdout.flush()
                self.line_open = True
            case _:
                self._end_thinking()
                self._newline()
                self._line(event)

    def _thinking(self, text: str) -> None:
        if self.show_thinking:
            if not self.in_thinking:
                sys.stderr.write("\x1b[2m（思考）")
                self.in_thinking = True
            sys.stderr.write(text)
            sys.stderr.flush()

    def _line(self, event: AgentEvent) -> None:
        """An event that starts on a line of its own: the tools' timeline and notices on stderr; the
        reply the user reads (sealed prose, a choice card) on stdout like streamed text."""
        match event:
            case ToolStartEvent(name=name, args=args):
                shown = _json(args) if args is not None else "（参数无法解析）"
                echo(f"  ⚙ {name} {shown}", err=True)
            case ToolEndEvent(text=text, is_error=is_error):
                first = (text.strip().splitlines() or [""])[0][:80]
                echo(f"    {'✗' if is_error else '↳'} {first}", err=True)
            case TextRetractEvent(text=taken, reason=reason):
                # What was printed stays on the screen: the line says it is withdrawn and why, and
                # the reply goes on below it (as a swipe shows another version).
                why = _RETRACT_REASONS.get(reason, "没有通过检查")
                echo(f"  ↺ 收回「{' '.join(taken.split())}」（{why}），改写：", err=True)
            case ProseEvent(text=text):
                self.echo(text.strip())
            case ChoiceEvent(question=question, options=options, free_text=free_text):
                self.choices = list(options)
                echo(f"【岔口】{question}")
                for number, option in enumerate(self.choices, start=1):
                    echo(f"  {number}. {option}")
                if free_text:
                    echo("  （输入编号，或直接写你自己的选择）")
            case WarningEvent(message=message):
                echo(f"⚠ {message}", err=True)
            case ErrorEvent(message=message, hint=hint):
                echo(f"pear: {message}{f'：{hint}' if hint else ''}", err=True)
            case DoneEvent(stop_reason="aborted"):
                echo("（已停止，已写出的部分保留）", err=True)
            case _:
                pass

    def answer(self, line: str) -> str:
        """A bare option number after a choice card stands for that option's text."""
        if self.choices and line.isdigit() and 1 <= int(line) <= len(self.choices):
            line = self.choices[int(line) - 1]
        self.choices = []
        return line


def _ask_approval(prompt: ApprovalPrompt, interactive: bool) -> None:
    request = prompt.request
    if not interactive:
        prompt.reply("deny", "非交互模式，无法询问")
        return
    args = _json(request.args)
    echo(f"\n需要你的同意：{request.tool_name} {args}", err=True)
    if request.reason:
        echo(f"  原因：{request.reason}", err=True)
    echo(
        "  [1] 允许这一次  [2] 本会话都允许  [3] 这张卡永久允许  [4] 拒绝  （也可以直接打字回复，算拒绝）",
        err=True,
    )
    try:
        answer = input("> ").strip()
    except (EOFError, KeyboardInterrupt):
        prompt.dismiss()
        return
    choices: dict[str, Answer] = {"1": "once", "2": "session", "3": "card", "4": "deny"}
    if answer in choices:
        prompt.reply(choices[answer])
    elif not answer:
        prompt.dismiss()
    else:
        prompt.reply("deny", answer)


class _StillWaiting:
    """Says on stderr, every *every* seconds without news from the beat, how long it has waited —
    and on what: the model's endpoint only while a request is out (one was sent since the last news,
    or the reply was streaming); before the first request, between a tool and the next request and
    after the reply, the time is this machine's (the card's scripts, variables, lore, tools), and
    naming the endpoint then would blame it for the card's time."""

    def __init__(self, endpoint: str, every: float) -> None:
        self.endpoint = endpoint
        self.every = every
        self.started = self.last_news = self.last_said = time.monotonic()
        self.beat: Beat | None = None
        self.requests = 0  # requests the beat had sent at the last news
        self.streaming = False  # the last news was a piece of the reply

    def restart(self, beat: Beat | None = None) -> None:
        self.started = self.last_news = self.last_said = time.monotonic()
        self.beat, self.requests, self.streaming = beat, 0, False

    def news(self, item: object = None) -> None:
        self.last_news = self.last_said = time.monotonic()
        self.requests = self._sent()
        self.streaming = getattr(item, "type", "") in ("text_delta", "thinking_delta")

    def _sent(self) -> int:
        return len(self.beat.record.requests) if self.beat is not None else 0

    def on_model(self) -> bool:
        """Whether the time since the last news is the model's."""
        return self.beat is None or self.streaming or self._sent() > self.requests

    def tick(self) -> None:
        now = time.monotonic()
        if self.every <= 0 or now - max(self.last_news, self.last_said) < self.every:
            return
        self.last_said = now
        waited = f"已等 {now - self.started:.0f} 秒；Ctrl-C 停止"
        if self.on_model():
            echo(f"（仍在等待 {self.endpoint} 的回复：{waited}）", err=True)
        else:
            echo(f"（还在本机处理：角色卡的脚本、变量、世界书或工具，没有在等模型；{waited}）", err=True)


# What a command plays: called once, it starts the beat (``ChatSession.play``).
BeatStart = Callable[[], Beat]


def _started(action: str, start: BeatStart) -> Beat:
    """The beat *start* makes; one that cannot start (the chat is busy…) ends as a failed beat, shown
    like any other (``error``, then ``done``)."""
    try:
        return start()
    except PearError as error:
        return Beat.failed(action, error)


def _run(
    beat: Beat,
    on_event: Callable[[AgentEvent], None],
    interactive: bool,
    waiting: _StillWaiting | None = None,
) -> tuple[str, str, int]:
    """Drive one beat; returns (stop reason, reply text, exit code for an error).  Ctrl-C stops the
    beat, keeping its text.

    While the beat runs, SIGINT only stops it (no KeyboardInterrupt in the middle of printing); the
    beat then ends by itself with ``done`` (aborted) and its partial text saved.
    """
    tick = None
    if waiting is not None:
        waiting.restart(beat)
        tick = waiting.tick
    with _ctrl_c_stops(beat):
        while (item := beat.next_item(tick)) is not None:
            if waiting is not None:
                waiting.news(item)
            if isinstance(item, ApprovalPrompt):
                with _ctrl_c_default():
                    _ask_approval(item, interactive)
                continue
            if isinstance(item, PageItem):  # a page's only (card scripts hearing the beat): none here
                continue
            on_event(item)
    result = beat.result
    if result is None:  # pragma: no cover - next_item returns None only once the beat is over
        return "error", "", ProviderError.exit_code
    code = result.error.exit_code if result.error is not None else ProviderError.exit_code
    stop_reason = result.stop_reason if result.generated else "stop"
    return stop_reason, result.text, code


@contextlib.contextmanager
def _ctrl_c_stops(beat: Beat) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, lambda _signum, _frame: beat.stop())
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def _ctrl_c_default() -> Iterator[None]:
    """Ctrl-C at a question (an approval) interrupts the question, as usual."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


# -- the command -----------------------------------------------------------------------------------


def chat(
    card: str | None,
    mode: str | None,
    base_url: str | None,
    model: str | None,
    api_key_env: str | None,
    local_model: str | None,
    thinking: str | None,
    persona: str | None,
    chat_id: str | None,
    group: str | None,
    once: str | None,
    as_json: bool,
    connect_timeout: float | None,
    first_byte_timeout: float | None,
    idle_timeout: float | None,
    total_timeout: float | None,
    still_waiting: float,
) -> None:
    """Open the chat (or a group's), then one beat (*once*) or the interactive loop."""
    if as_json and once is None:
        raise BadInput("--json 只能和 --once 一起用")
    if once is not None and not once.strip():  # refused before a new chat is made for it
        raise BadInput("--once 的消息是空的（empty message）")
    limits = {"connect": connect_timeout, "first_byte": first_byte_timeout, "idle": idle_timeout}
    limits["total"] = total_timeout
    options = _options(mode, thinking, persona, base_url, model, api_key_env, local_model, limits)
    session = _open(card, chat_id, options, group)
    if isinstance(session, ChatSession):
        _page_scripts(session.card, "此卡")
    else:  # a group chat: each member's own, as its page runs them (app/play/group_page_scripts.py)
        for member in session.scene.members.values():
            _page_scripts(member.card, f"群聊成员「{member.name}」")
    waiting = _StillWaiting(_endpoint(session), still_waiting)
    with vault_snapshots(state.home):
        if once is not None:
            _once(session, once, as_json, waiting)
            return
        _interactive(session, waiting)


def _json(value: Any) -> str:
    """JSON for the terminal (lone surrogates escaped); formats is imported only when needed."""

    return dumps_json(value)


def _ask_card_regex(home: Any, card: str) -> None:
    """First play of a card with regex scripts of its own: ask once (on a terminal) and remember."""

    pending = pending_question(home, card)
    if pending is None:
        return
    folder, question = pending
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        echo(
            f"提示：卡「{folder}」自带的正则脚本尚未允许，暂不运行；允许用 pear tavern set regex on --card {folder}",
            err=True,
        )
        return
    import typer  # click's prompt (its [y/N], asking again): on a terminal only, where the beat waits anyway

    set_allowance(home, folder, typer.confirm(question, default=False))
    echo(f"（可随时用 pear tavern set regex on|off --card {folder} 更改）", err=True)


def _page_scripts(folder: CardFolder, whose: str) -> None:
    """Once per chat opened: the card's scripts that only the chat page runs, named (never silently);
    *whose*: how the line names the card (this chat's, or a group chat's member)."""
    names = scripts_needing_page(folder)
    if names:
        shown = "、".join(names[:5]) + ("…" if len(names) > 5 else "")
        echo(f"{whose}的 {len(names)} 个脚本需要网页：pear serve（{shown}）", err=True)


def _endpoint(session: AnyChat) -> str:
    """How the "still waiting" line names the model: its endpoint's address, or the embedded model."""
    return session.endpoint or "内置模型"


def _status(session: AnyChat) -> None:
    """The card's variables after a beat, one compact line on stderr (only for a chat that has them)."""
    line = session.status_line()
    if line:
        echo(line, err=True)


def _once(session: AnyChat, text: str, as_json: bool, waiting: _StillWaiting | None = None) -> None:
    beat = _started("send", lambda: session.play("send", text))
    if as_json:

        def emit(event: AgentEvent) -> None:
            sys.stdout.write(_json(event.to_json()) + "\n")
            sys.stdout.flush()

        reason, _, code = _run(beat, emit, interactive=False, waiting=waiting)
        if (event := session.variables_event()) is not None:  # after done: the variables the beat left
            sys.stdout.write(_json(event) + "\n")
    else:
        printer = _Printer(show_thinking=False, wrap=_terminal_wrap())
        reason, reply, code = _run(beat, printer.event, interactive=False, waiting=waiting)
        if printer.wrap is not None:  # a last word still held (the beat ended without a closing event)
            sys.stdout.write(printer.wrap.flush())
        if reply and not reply.endswith("\n"):
            sys.stdout.write("\n")
        _status(session)
    # sys.exit rather than typer.Exit: the root runs click with standalone_mode=False, which turns
    # an Exit into a return value that would be lost.
    if reason == "error":
        sys.exit(code)
    if reason == "aborted":
        sys.exit(130)


def _interactive(session: AnyChat, waiting: _StillWaiting | None = None) -> None:
    printer = _Printer(wrap=_terminal_wrap())
    echo(
        f"梨园 · {_title(session)} · 对话 {session.chat_id} · {session.mode} · 思考 {session.thinking}",
        err=True,
    )
    echo("输入 /help 查看命令。", err=True)
    messages = session.messages()
    if messages:
        last = messages[-1]
        printer.echo(("" if last.role == "assistant" else "你：") + last.content)

    def play(action: str, start: BeatStart) -> Beat:
        before = session.mode
        beat = _started(action, start)
        _run(beat, printer.event, interactive=True, waiting=waiting)
        printer._newline()
        _status(session)
        if session.mode != before:  # the model switched into (or out of) work mode itself
            echo(f"（对话方式：{before} → {session.mode}）", err=True)
        return beat

    while True:
        try:
            line = input("\n你：").strip()
        except (EOFError, KeyboardInterrupt):
            echo("", err=True)
            return
        if not line:
            continue
        if not line.startswith("/"):
            play("send", _sender(session, printer.answer(line)))
            continue
        command, _, rest = line.partition(" ")
        rest = rest.strip()
        try:
            if command in ("/quit", "/exit", "/q"):
                return
            if not _slash(session, command, rest, play, printer.echo):
                _stscript(session, line)
        except PearError as error:
            echo(f"pear: {error}", err=True)


def _stscript(session: AnyChat, line: str) -> None:
    """Any other ``/`` line runs as SillyTavern's slash commands (STscript) on the chat."""
    if not isinstance(session, ChatSession):
        echo(f"未知命令 {line.split()[0]}；/help 查看命令（群聊里还不能运行 STscript）。", err=True)
        return
    from peargarden.app.play import run_chat_script

    outcome = run_chat_script(session, line)
    for toast in outcome.toasts:
        head = f"[{toast['type']}]" + (f" {toast['title']}" if toast["title"] else "")
        echo(f"{head} {toast['message']}", err=True)
    pipe = (outcome.result or {}).get("pipe")
    if isinstance(pipe, str) and pipe:
        echo(pipe)
    if outcome.input_text:
        echo(f"（输入框：{outcome.input_text}）", err=True)


def _title(session: AnyChat) -> str:
    """The card's folder, or a group chat's name and members."""
    roster = getattr(session, "roster", None)
    if roster is None:
        return session.card.folder
    return f"群聊 {session.char_name}（{'、'.join(m.name for m in roster())}）"


def _sender(session: AnyChat, text: str) -> BeatStart:
    return lambda: session.play("send", text)


def _index(rest: str) -> tuple[int, str]:
    head, _, tail = rest.partition(" ")
    try:
        return int(head), tail.strip()
    except ValueError:
        raise BadInput("需要消息编号 N（从 0 数起；/show 查看编号）") from None


def _range(rest: str) -> tuple[int, int]:
    """``N`` or ``N-M`` (message numbers, as /show lists them)."""
    head, _, tail = rest.strip().partition("-")
    try:
        first = int(head)
        return first, int(tail) if tail.strip() else first
    except ValueError:
        raise BadInput("需要消息编号 N 或范围 N-M（从 0 数起；/show 查看编号）") from None


def _slash(
    session: AnyChat,
    command: str,
    rest: str,
    play: Callable[[str, BeatStart], Beat],
    show: Callable[[str], None] = echo,
) -> bool:
    if command == "/help":
        echo(HELP, err=True)
    elif command == "/regen":
        play("regenerate", lambda: session.play("regenerate"))
        _swipe_counter(session)
    elif command == "/swipe":
        step = -1 if rest in ("-", "-1", "prev", "左") else 1
        beat = play("swipe", lambda: session.play("swipe", step=step))
        if not beat.record.generated:
            show(session.messages()[-1].content)
        _swipe_counter(session)
    elif command == "/continue":
        play("continue", lambda: session.play("continue"))
    elif command == "/undo":
        index = _index(rest)[0] if rest else len(session.messages()) - 1
        session.undo(index)
        echo(f"第 {index} 条回到了上次修改之前：{_preview(session.messages()[index].content, 200)}", err=True)
    elif command == "/impersonate":
        result = play("impersonate", lambda: session.play("impersonate")).result
        draft = result.text.strip() if result is not None else ""
        if not draft:
            return True
        echo("（回车发送这段，输入文字改用你的话，/cancel 放弃）", err=True)
        try:
            reply = input("你：").strip()
        except (EOFError, KeyboardInterrupt):
            return True
        if reply == "/cancel":
            return True
        play("send", _sender(session, reply or draft))
    elif command == "/edit":
        index, text = _index(rest)
        if not text:
            echo(f"原文：{session.messages()[index].content}", err=True)
            text = input("新的内容：").strip()
            if not text:
                return True
        session.edit(index, text)
        echo(f"已改第 {index} 条（/undo {index} 可撤销）。", err=True)
    elif command == "/delete":
        index, _ = _index(rest)
        session.delete(index)
        echo(f"已删第 {index} 条（旧版本仍在 /tree 里）。", err=True)
    elif command in ("/hide", "/unhide"):
        first, last = _range(rest)
        hidden = command == "/hide"
        changed = session.hide(first, last, hidden=hidden)
        which = f"第 {first} 条" if first == last else f"第 {first}–{last} 条"
        done = "已隐藏，不再发给模型" if hidden else "已取消隐藏，重新发给模型"
        echo(f"{which}{done}。" if changed else f"{which}没有要改的。", err=True)
    elif command == "/branch":
        index, _ = _index(rest)
        session.branch(index)
        echo(f"已回到第 {index} 条，下一句从这里另起分支。", err=True)
    elif command == "/tree":
        _print_tree(session)
    elif command == "/goto":
        session.goto(rest)
        echo(f"已跳到 {rest}。", err=True)
    elif command == "/show":
        for number, message in enumerate(session.messages()):
            mark = "（已隐藏）" if message.hidden else ""
            echo(f"[{number}] {mark}{_who(message.role)}{_preview(message.content, 200)}")
    elif command == "/trigger":  # a group chat: that member answers now, muted or not
        if not hasattr(session, "roster"):
            raise BadInput("/trigger 只用于群聊（pear chat --group NAME）")
        play("send", lambda: session.play("send", f"/trigger {rest}"))
    elif command == "/mode":
        if rest:
            session.set_mode(rest)
        echo(f"对话方式：{session.mode}", err=True)
    else:
        return False
    return True


def _swipe_counter(session: AnyChat) -> None:
    position, count = session.swipe_position()
    if count:
        echo(f"〈{position}/{count}〉", err=True)


def _who(role: str) -> str:
    return {"user": "你：", "assistant": "", "tool": "  ↳ "}.get(role, f"{role}：")


def _preview(text: str, width: int = 40) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _print_tree(session: AnyChat) -> None:
    leaf = session.leaf
    for row in session.tree_rows():
        entry = row.entry
        mark = "●" if entry.id == leaf else ("•" if row.on_path else "○")
        kin = f" ({row.sibling_index + 1}/{row.sibling_count})" if row.sibling_count > 1 else ""
        if entry.type == "message":
            body = _who(entry.role) + _preview(str(entry.message.get("content") or ""))
            calls = entry.message.get("tool_calls")
            if calls and not entry.message.get("content"):
                body = "调用 " + "、".join(str(c.get("name")) for c in calls)
        else:
            body = f"[{entry.type}] {entry.body.get('customType', '')}"
        echo(f"{'  ' * row.depth}{mark} {entry.id}{kin} {body}")
