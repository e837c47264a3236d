"""Translation (SillyTavern's translate extension): a message into the user's language through the side
model, LibreTranslate, DeepL or DeepLX — each against a fake that checks the request ST would send —
kept beside the original; an input sent translated keeps the user's words; `pear translate`."""

from __future__ import annotations

import json
import os

import pytest
from extras_world import World

from kit.cli import pear_in_process
from peargarden.app.extras.translation import (
    keep_input,
    model_language,
    translate_message,
    translate_text,
    translations,
)
from peargarden.errors import BadInput, ProviderError
from peargarden.extras.languages import deepl_code, language_code, libre_code
from peargarden.extras.translation import side_answer
from peargarden.testing.fake_openai import text_reply

REPLY = "“客官，楼上还有一间空房。”她擦了擦柜台。"


def test_language_codes_read_what_users_write() -> None:
    written = ("zh", "zh-CN", "中文", "简体中文", "English", "en-us", "日本語", "繁體中文")
    assert [language_code(v) for v in written] == ["zh", "zh", "zh", "zh", "en", "en", "ja", "zh-TW"]
    assert (libre_code("zh-TW"), deepl_code("zh-TW")) == ("zt", "ZH-HANT")
    assert (deepl_code("en"), deepl_code("ja")) == ("EN-US", "JA")
    with pytest.raises(BadInput, match=r"^不认识的语言：'克林贡语'"):
        language_code("克林贡语")


def test_the_side_models_answer_is_cleaned_of_what_it_added() -> None:
    assert side_answer("译文：Guest, there is a room upstairs.", "客官") == "Guest, there is a room upstairs."
    assert side_answer("```\nA room.\n```", "一间房") == "A room."
    assert side_answer("“A room.”", "一间房") == "A room."
    assert side_answer("“A room.”", "“一间房”") == "“A room.”"  # the original was quoted: kept


def test_libretranslate_gets_what_sillytavern_sends_and_the_translation_is_kept(world: World) -> None:
    world.configure(f'[translate]\nbackend = "libre"\nbase_url = "{world.media.url}"\nlanguage = "en"\n')
    world.home.root.joinpath("keys").mkdir()
    world.home.root.joinpath("keys", "extra-translate.key").write_text("media-key", encoding="utf-8")
    world.media.phrases[(REPLY, "en")] = '"Guest, there is a room upstairs." She wiped the counter.'
    session = world.chat(("user", "掌柜，还有空房吗？"), ("assistant", REPLY))
    found = translate_message(world.home, session, 2)
    assert found.text == '"Guest, there is a room upstairs." She wiped the counter.' and found.source_lang == "zh"
    (sent,) = world.media.to("/translate")
    assert sent.body == {"q": REPLY, "source": "auto", "target": "en", "format": "text", "api_key": "media-key"}
    # Kept beside the chat, the message itself unchanged; asked again, the server is not.
    assert session.messages()[2].content == REPLY
    kept = translations(session)[session.chat.tree.messages()[2].id]
    assert kept["text"] == found.text and kept["lang"] == "en" and kept["kind"] == "reply"
    assert translate_message(world.home, session, 2).text == found.text and len(world.media.to("/translate")) == 1
    # Edited since: the old translation is not shown for the new text.
    session.edit(2, "“没有了。”")
    assert session.chat.tree.messages()[2].id not in translations(session)


def test_deepl_takes_a_form_with_its_own_key_header(world: World) -> None:
    world.configure(f'[translate]\nbackend = "deepl"\nbase_url = "{world.media.url}"\napi_key_env = "PEAR_DEEPL"\n')
    os.environ["PEAR_DEEPL"] = "media-key"
    try:
        session = world.chat(("assistant", REPLY))
        found = translate_message(world.home, session, 1, "zh-TW")
    finally:
        del os.environ["PEAR_DEEPL"]
    (sent,) = world.media.to("/v2/translate")
    assert sent.headers["authorization"] == "DeepL-Auth-Key media-key"
    assert sent.headers["content-type"].startswith("application/x-www-form-urlencoded")
    assert sent.body == {"text": REPLY, "target_lang": "ZH-HANT"}
    assert found.text == f"«zh-TW» {REPLY}" and found.source_lang == "zh"


def test_deeplx_and_a_refusal_in_one_line(world: World) -> None:
    world.configure(f'[translate]\nbackend = "deeplx"\nbase_url = "{world.media.url}/deeplx"\n')
    session = world.chat(("assistant", REPLY))
    assert translate_message(world.home, session, 1, "en").text == f"«en» {REPLY}"
    assert world.media.to("/deeplx")[0].body == {"text": REPLY, "source_lang": "auto", "target_lang": "EN-US"}
    world.media.fail("/deeplx", 429, {"code": 429, "message": "Too many requests"})
    with pytest.raises(ProviderError, match=r"翻译（DeepLX）：.*/deeplx 回答 429：Too many requests"):
        translate_message(world.home, session, 1, "ja")


def test_the_side_model_translates_in_one_request(world: World) -> None:
    world.configure('[translate]\nbackend = "side"\nlanguage = "en"\n')
    world.model.script([text_reply("Translation: Guest, a room upstairs.")])
    session = world.chat(("assistant", REPLY))
    found = translate_message(world.home, session, 1)
    assert (found.text, found.source_lang) == ("Guest, a room upstairs.", "zh")
    (request,) = world.model.chat_requests
    system, user = request.body["messages"]
    assert "English" in system["content"] and user == {"role": "user", "content": REPLY}


def test_an_input_sent_translated_keeps_the_users_words(world: World) -> None:
    world.configure(f'[translate]\nbackend = "libre"\nbase_url = "{world.media.url}"\nauto = "inputs"\n')
    world.media.api_key = ""
    session = world.chat()
    assert model_language(world.home, session) == "zh"  # 青梧 is written in Chinese
    world.media.phrases[("Is there a room?", "zh")] = "还有房间吗？"
    sent = translate_text(world.home, session, "Is there a room?", model_language(world.home, session))
    session.insert_message({"role": "user", "content": sent.text, "name": "旅人"})
    keep_input(world.home, session, 1, "Is there a room?")
    kept = translations(session)[session.chat.tree.messages()[1].id]
    assert session.messages()[1].content == "还有房间吗？"  # what the model reads
    assert (kept["text"], kept["kind"], kept["source_lang"]) == ("Is there a room?", "input", "zh")


def test_off_until_configured_and_bad_numbers_say_so(world: World) -> None:
    session = world.chat(("assistant", REPLY))
    with pytest.raises(BadInput, match="翻译没有开启"):
        translate_message(world.home, session, 1, "en")
    world.configure('[translate]\nbackend = "side"\n')
    with pytest.raises(BadInput, match="没有第 9 条消息"):
        translate_message(world.home, session, 9, "en")
    world.configure('[translate]\nbackend = "yandex"\n')
    with pytest.raises(BadInput, match=r"\[translate\] backend 只能是"):
        translate_message(world.home, session, 1, "en")


def test_pear_translate_prints_the_json_contract(world: World) -> None:
    world.configure(f'[translate]\nbackend = "libre"\nbase_url = "{world.media.url}"\n')
    world.media.api_key = ""
    session = world.chat(("assistant", REPLY))
    args = ("translate", "--chat", session.chat_id, "--message", "1")
    done = pear_in_process(world.home.root, *args, "--to", "en", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"text": f"«en» {REPLY}", "source_lang": "zh"}
    plain = pear_in_process(world.home.root, *args, "--to", "ja")
    assert plain.stdout == f"«ja» {REPLY}\n"
    bad = pear_in_process(world.home.root, *args, "--to", "xx")
    assert bad.returncode == 2 and bad.stderr.startswith("pear: 不认识的语言：'xx'") and "Traceback" not in bad.stderr
    world.configure()
    off = pear_in_process(world.home.root, *args, "--to", "en")
    assert off.returncode == 2 and "翻译没有开启" in off.stderr
