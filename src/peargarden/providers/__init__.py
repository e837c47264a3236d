"""Model backends behind one interface (:mod:`.base`): a request in, a stream of events out.

* :mod:`.openai_compat` — any OpenAI-compatible endpoint (:mod:`._http`: the POST, the server-sent
  events, over the standard library's HTTP in :mod:`.wire`); what differs between servers (thinking
  parameters, reasoning pass-back) is in :mod:`.profiles`.
* :mod:`.embedded` — a GGUF through ``llama-cpp-python`` in a worker process (:mod:`.worker_client`,
  :mod:`.llama_worker`), with the configuration the self-test chose for this machine
  (:mod:`.runtime_check`; its limits and the worker's grow with the machine's load, :mod:`._machine_load`);
  Qwen2.5-Coder-0.5B-Instruct by default.  A small model's guards:
  :mod:`._echo` (the user's words handed back), :mod:`._copy_block` (runs of the prompt),
  :mod:`._sentence_guard` with :mod:`._sentences`, :mod:`._model_claims`, :mod:`._self_names`,
  :mod:`._restated` and :mod:`._repeats` (claims to be a model, someone else's name taken, the user's
  line restated, sentences said before: cut sentence by sentence).  :mod:`.runtime_build` builds
  its runtime (llama-cpp-python by pip, native or portable, progress and cancel); :mod:`.model_fetch`
  fetches and verifies its model.
* :mod:`._cancel` — the watcher that wakes a read blocked on a silent server (a cancel, a timeout).
* :mod:`.scripted` — replays scripted turns, for tests.
* :mod:`.registry` — builds a provider from connection values.
* :mod:`.media_http` — the media back ends' HTTP (one request, its whole answer, one line when it
  fails); :mod:`.translators` — LibreTranslate, DeepL, DeepLX; :mod:`.speech` — OpenAI-compatible
  ``/v1/audio/speech``, GPT-SoVITS; :mod:`.pictures` — ``/v1/images/generations``, Stable Diffusion
  WebUI, ComfyUI.

Only the interface types are re-exported here: the backends import packages a light command does not
need (``llama_cpp``, the HTTP stack) and are imported where they are used.
"""

from .base import (
    THINKING_LEVELS,
    ChatRequest,
    Done,
    Message,
    Provider,
    StreamEvent,
    TextDelta,
    TextRetract,
    ThinkingDelta,
    ThinkingLevel,
    ToolCall,
    ToolSpec,
    Usage,
    stream_text,
    take_back,
)

__all__ = [
    "THINKING_LEVELS",
    "ChatRequest",
    "Done",
    "Message",
    "Provider",
    "StreamEvent",
    "TextDelta",
    "TextRetract",
    "ThinkingDelta",
    "ThinkingLevel",
    "ToolCall",
    "ToolSpec",
    "Usage",
    "stream_text",
    "take_back",
]
