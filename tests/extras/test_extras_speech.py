"""Voices (SillyTavern's TTS extension): what is spoken of a message (SillyTavern's options), an
OpenAI-compatible /v1/audio/speech and GPT-SoVITS's /tts each against a fake that checks the request,
a voice per character, the audio kept per message; `pear tts`."""

from __future__ import annotations

from pathlib import Path

import pytest
from extras_world import World

from kit.cli import pear_in_process
from peargarden.app.extras.speech import line_of, speak
from peargarden.errors import BadInput, ProviderError
from peargarden.extras.speech import clipped, sovits_reference, spoken_text
from peargarden.testing.fake_media import FAKE_MP3, tiny_wav

REPLY = "*她放下账本，抬眼看你。*“客官，楼上还有一间。”\n```\n房号 3\n```\n「天字号的。」"


def test_what_is_spoken_follows_sillytaverns_options() -> None:
    assert spoken_text(REPLY) == "她放下账本，抬眼看你。“客官，楼上还有一间。” 「天字号的。」"
    assert spoken_text(REPLY, skip_asterisks=True) == "“客官，楼上还有一间。” 「天字号的。」"
    assert spoken_text(REPLY, quotes_only=True) == '"客官，楼上还有一间。" 「天字号的。」'
    assert spoken_text("没有引号的话。", quotes_only=True) == "没有引号的话。"  # none: the whole text, as ST
    assert spoken_text("看 <b>这里</b> `code`", skip_code=False) == "看 这里 `code`"
    long = "一句话。" * 1200
    assert len(clipped(long)) <= 4096 and clipped(long).endswith("。")


def test_a_gpt_sovits_voice_is_its_reference_audio_and_its_words() -> None:
    assert sovits_reference("参考音频/青梧[平静]我是青梧.wav") == ("参考音频/青梧[平静]我是青梧.wav", "青梧我是青梧")
    assert sovits_reference("ref/a.wav|客官里边请。") == ("ref/a.wav", "客官里边请。")


def test_openai_speech_gets_what_sillytaverns_provider_sends(world: World) -> None:
    world.configure(
        f'[tts]\nbackend = "openai"\nbase_url = "{world.media.url}/v1"\napi_key_env = "PEAR_TTS_KEY"\n'
        'model = "tts-1-hd"\nvoice = "alloy"\nspeed = 1.25\nskip_asterisks = true\n[tts.voices]\n"青梧" = "nova"\n'
    )
    session = world.chat(("user", "还有房吗？"), ("assistant", REPLY))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PEAR_TTS_KEY", "media-key")
        audio = speak(world.home, session, 2)
        again = speak(world.home, session, 2)
    assert (audio.data, audio.kind, audio.cached) == (FAKE_MP3, "mp3", False)
    assert again.cached and again.data == FAKE_MP3
    (sent,) = world.media.to("/v1/audio/speech")
    assert sent.headers["authorization"] == "Bearer media-key"
    assert sent.body == {"model": "tts-1-hd", "input": "“客官，楼上还有一间。” 「天字号的。」", "voice": "nova",
                         "response_format": "mp3", "speed": 1.25}  # fmt: skip
    assert line_of(world.home, session, 1).voice == "alloy"  # the user's message: no voice of its own


def test_gpt_sovits_gets_its_api_v2_request(world: World) -> None:
    world.configure(f'[tts]\nbackend = "gpt-sovits"\nbase_url = "{world.media.url}"\ntext_lang = "zh"\n'
                    '[tts.voices]\n"青梧" = "参考音频/青梧[平静]客官里边请.wav"\n')  # fmt: skip
    session = world.chat(("assistant", "“客官，里边请。”"))
    audio = speak(world.home, session, 1)
    assert (audio.data, audio.kind) == (tiny_wav(), "wav")
    (sent,) = world.media.to("/tts")
    assert sent.body == {
        "text": "“客官，里边请。”", "text_lang": "zh", "ref_audio_path": "参考音频/青梧[平静]客官里边请.wav",
        "prompt_text": "青梧客官里边请", "prompt_lang": "zh", "text_split_method": "cut5", "batch_size": 1,
        "media_type": "wav", "streaming_mode": False, "speed_factor": 1.0,
    }  # fmt: skip


def test_what_goes_wrong_is_one_line(world: World) -> None:
    session = world.chat(("assistant", "*她笑了。*"))
    with pytest.raises(BadInput, match="语音没有开启"):
        speak(world.home, session, 1)
    world.configure('[tts]\nbackend = "browser"\n')
    with pytest.raises(BadInput, match="浏览器自己的语音"):
        speak(world.home, session, 1)
    world.configure(f'[tts]\nbackend = "gpt-sovits"\nbase_url = "{world.media.url}"\nskip_asterisks = true\n')
    with pytest.raises(BadInput, match="第 1 条没有要念的文字"):
        speak(world.home, session, 1)
    session = world.chat(("assistant", "“好。”"))
    world.media.fail("/tts", 400, {"message": "ref_audio_path is not exists"})
    with pytest.raises(ProviderError, match=r"语音（GPT-SoVITS）：.*/tts 回答 400：ref_audio_path is not exists"):
        speak(world.home, session, 1)
    world.media.fail("/tts", 200, {"detail": "busy"})  # 200 with JSON: not audio
    with pytest.raises(ProviderError, match="的回答不是音频"):
        speak(world.home, session, 1)


def test_pear_tts_writes_the_audio(world: World, tmp_path: Path) -> None:
    world.home.root.joinpath("keys").mkdir()
    world.home.root.joinpath("keys", "extra-tts.key").write_text("media-key\n", encoding="utf-8")
    session = world.chat(("assistant", "“客官慢走。”"))
    out = tmp_path / "青梧.mp3"
    args = ("tts", "--chat", session.chat_id, "--message", "1", "--out", str(out))
    done = pear_in_process(world.home.root, *args, "--base-url", f"{world.media.url}/v1", "--model", "tts-1",
                           "--voice", "shimmer")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == FAKE_MP3 and "mp3" in done.stderr
    assert world.media.to("/v1/audio/speech")[-1].body["voice"] == "shimmer"
    off = pear_in_process(world.home.root, *args)
    assert off.returncode == 2 and "语音没有开启" in off.stderr and "Traceback" not in off.stderr
