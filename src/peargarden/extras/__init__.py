"""What SillyTavern users switch on beside the chat, the pure parts: no clock, file or network.

- :mod:`.media_types` — what a file of bytes is (PNG, JPEG …; MP3, WAV …) by its first bytes.
- :mod:`.languages` — language codes as the user writes them (``zh``, ``中文``, ``zh-TW``) and as
  each translation back end spells them.
- :mod:`.translation` — a message translated: the side model's request and the cleaning of its
  answer, LibreTranslate's and DeepL's (and DeepLX's) request bodies and answers.
- :mod:`.expressions` — SillyTavern's expression labels, the side model's one short request and its
  answer read back (fuzzy), the keyword fallback (Chinese and English), sprite files to labels.
- :mod:`.speech` — the part of a message a voice speaks (SillyTavern's options: only quotes, not
  inside asterisks, no code), the bodies of OpenAI's ``/v1/audio/speech`` and GPT-SoVITS's ``/tts``.
- :mod:`.pictures` — a picture's prompt: the side model's instruction per kind (last reply,
  character, scene, free), the bodies for ``/v1/images/generations``, ``/sdapi/v1/txt2img`` and a
  ComfyUI workflow with the prompt placed, the picture read out of each answer.
- :mod:`.themes` — a SillyTavern theme (and the light or dark palette) as the page's CSS, and user
  CSS made harmless (nothing it says can load a URL or close the style element).
"""
