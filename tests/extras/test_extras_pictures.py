"""Pictures (SillyTavern's image generation extension): the prompt written by the side model from the
chat (its instruction editable) or given; an OpenAI-compatible /v1/images/generations, Stable Diffusion
WebUI's /sdapi/v1/txt2img and a ComfyUI workflow each against a fake checking SillyTavern's request;
the picture kept with the chat (vault-covered) as SillyTavern's picture message; `pear imagine`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from extras_world import World

from kit.cli import pear_in_process
from peargarden.app.extras.pictures import imagine, save_workflow
from peargarden.errors import BadInput, ProviderError
from peargarden.extras.pictures import clean_prompt, comfy_workflow, openai_body
from peargarden.formats import read_chat_jsonl
from peargarden.testing.fake_media import tiny_png
from peargarden.testing.fake_openai import text_reply
from peargarden.workspace.vault import Vault

REPLY = "雨夜里，青梧撑着旧油纸伞站在听雨轩门口，灯笼在她身后摇晃。"
WORKFLOW = {
    "3": {"class_type": "KSampler", "inputs": {"seed": "%seed%", "steps": "%steps%", "cfg": "%scale%",
                                               "sampler_name": "%sampler%", "model": ["4", 0]}},
    "4": {"class_type": "CheckpointLoaderSimple", "inputs": {"ckpt_name": "%model%"}},
    "6": {"class_type": "CLIPTextEncode", "inputs": {"text": "%prompt%", "clip": ["4", 1]}},
    "7": {"class_type": "CLIPTextEncode", "inputs": {"text": "%negative_prompt%", "clip": ["4", 1]}},
    "5": {"class_type": "EmptyLatentImage", "inputs": {"width": "%width%", "height": "%height%", "batch_size": 1}},
    "9": {"class_type": "SaveImage", "inputs": {"filename_prefix": "pear", "images": ["8", 0]}},
}  # fmt: skip


def test_prompts_and_workflows_are_placed_as_sillytavern_places_them() -> None:
    assert clean_prompt("```\nPrompt: 1girl, rain,\nlantern\n```") == "1girl, rain, lantern"
    assert openai_body("x" * 5000, "dall-e-3", 512, 768) == {
        "prompt": "x" * 4000, "model": "dall-e-3", "size": "1024x1792", "n": 1, "response_format": "b64_json"}
    assert openai_body("雨夜", "dall-e-2", 512, 512)["size"] == "512x512"
    assert openai_body("雨夜", "gpt-image-1", 768, 512)["size"] == "768x512"
    placed = comfy_workflow(json.dumps(WORKFLOW), {"prompt": '雨夜，"旧伞"', "seed": 42, "width": 512}, "wf.json")
    assert placed["6"]["inputs"]["text"] == '雨夜，"旧伞"' and placed["3"]["inputs"]["seed"] == 42
    assert placed["5"]["inputs"]["width"] == 512
    with pytest.raises(BadInput, match="没有 \"%prompt%\""):
        comfy_workflow('{"1": {"class_type": "X", "inputs": {}}}', {}, "wf.json")
    with pytest.raises(BadInput, match="Save \\(API Format\\)"):
        comfy_workflow('{"nodes": [], "links": [], "x": "%prompt%"}', {"prompt": "a"}, "wf.json")


def test_openai_pictures_from_the_side_models_prompt_kept_as_sillytaverns_picture_message(world: World) -> None:
    world.configure(f'[pictures]\nbackend = "openai"\nbase_url = "{world.media.url}/v1"\nmodel = "dall-e-3"\n'
                    'prefix = "masterpiece"\napi_key_env = "PEAR_IMG"\n'
                    '[pictures.instructions]\nlast = "为{{char}}的最后一条消息写英文标签。"\n')  # fmt: skip
    world.model.script([text_reply("```\nPrompt: 1girl, oil-paper umbrella, rainy night, lantern\n```")])
    session = world.chat(("user", "掌柜在门口做什么？"), ("assistant", REPLY))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PEAR_IMG", "media-key")
        made = imagine(world.home, session)
    (side,) = world.model.chat_requests
    system, user = side.body["messages"]
    assert system["content"] == "为青梧的最后一条消息写英文标签。" and user["content"] == REPLY
    (sent,) = world.media.to("/v1/images/generations")
    assert sent.headers["authorization"] == "Bearer media-key"
    prompt = "masterpiece, 1girl, oil-paper umbrella, rainy night, lantern"
    assert sent.body == {"prompt": prompt, "model": "dall-e-3", "size": "1024x1792", "n": 1,
                         "response_format": "b64_json"}  # fmt: skip
    # Kept with the chat, as a hidden character message carrying SillyTavern's extra.
    assert made.file.parent == session.chat.path.parent / "images" and made.file.read_bytes() == tiny_png()
    assert made.index == 3 and made.prompt == prompt
    message = session.chat.tree.messages()[3].message
    assert message["tags"] == ["hidden"] and message["name"] == "青梧"
    image = f"images/{made.file.name}"
    assert message["extra"] == {"image": image, "title": prompt, "generationType": 4, "negative": "",
                                "inline_image": False, "image_swipes": [image]}  # fmt: skip
    # Exported: a line of its own after the reply (the reply's text kept), as ST writes it.
    lines = read_chat_jsonl(session.export_sillytavern(), "out.jsonl").messages
    reply, picture = lines[-2].raw, lines[-1].raw
    assert reply["mes"] == REPLY and "image" not in reply.get("extra", {})
    assert picture["is_system"] is True and picture["is_user"] is False and picture["name"] == "青梧"
    assert {k: picture["extra"][k] for k in ("image", "title", "inline_image", "image_swipes")} == {
        "image": image, "title": prompt, "inline_image": False, "image_swipes": [image]}  # fmt: skip
    # In the vault's snapshots with the chat.
    snapshot = Vault(world.home).snapshot("test")
    assert snapshot is not None
    kept = Vault(world.home).manifest(snapshot.id).files
    assert any(path.endswith(image) for path in kept)


def test_stable_diffusion_webui_gets_txt2img_with_a_free_prompt(world: World) -> None:
    world.configure(f'[pictures]\nbackend = "sdwebui"\nbase_url = "{world.media.url}"\nnegative = "lowres"\n'
                    'width = 640\nheight = 960\nsteps = 28\ncfg_scale = 6.5\nsampler = "DPM++ 2M"\n')  # fmt: skip
    session = world.chat(("assistant", REPLY))
    made = imagine(world.home, session, prompt="油纸伞，雨夜，灯笼")
    assert world.model.chat_requests == []  # a free prompt goes as it is
    (sent,) = world.media.to("/sdapi/v1/txt2img")
    assert sent.body == {"prompt": "油纸伞，雨夜，灯笼", "negative_prompt": "lowres", "sampler_name": "DPM++ 2M",
                         "steps": 28, "cfg_scale": 6.5, "width": 640, "height": 960, "restore_faces": False,
                         "enable_hr": False, "save_images": True, "send_images": True}  # fmt: skip
    assert made.kind == "free" and session.chat.tree.messages()[2].message["extra"]["generationType"] == 6


def test_a_comfyui_workflow_with_the_prompt_placed_is_queued_polled_and_viewed(world: World) -> None:
    saved = save_workflow(world.home, "雨夜.json", json.dumps(WORKFLOW))
    assert saved == "library/comfyui/雨夜.json"
    world.configure(
        f'[pictures]\nbackend = "comfyui"\nbase_url = "{world.media.url}"\nworkflow = "{saved}"\nseed = 7\n'
        'model = "anything-v5.safetensors"\nnegative = "lowres"\n'
    )
    world.media.comfy_pending_polls = 2
    session = world.chat(("assistant", REPLY))
    made = imagine(world.home, session, prompt="雨夜，\"旧伞\"")
    (queued,) = world.media.to("/prompt")
    graph = queued.body["prompt"]
    assert graph["6"]["inputs"]["text"] == '雨夜，"旧伞"' and graph["7"]["inputs"]["text"] == "lowres"
    assert graph["3"]["inputs"]["seed"] == 7 and graph["4"]["inputs"]["ckpt_name"] == "anything-v5.safetensors"
    assert graph["5"]["inputs"] == {"width": 512, "height": 768, "batch_size": 1}
    assert len(world.media.to("/history/fake-1")) == 3  # twice not done yet, then done
    (view,) = world.media.to("/view")
    assert view.path == "/view?filename=fake-1_00001_.png&subfolder=pear&type=output"
    assert made.file.read_bytes() == tiny_png()


def test_what_goes_wrong_is_one_line_and_nothing_is_written(world: World) -> None:
    session = world.chat(("assistant", REPLY))
    with pytest.raises(BadInput, match="生图没有开启"):
        imagine(world.home, session)
    world.configure(f'[pictures]\nbackend = "comfyui"\nbase_url = "{world.media.url}"\n')
    with pytest.raises(BadInput, match="需要 workflow"):
        imagine(world.home, session, prompt="雨")
    world.configure(f'[pictures]\nbackend = "openai"\nbase_url = "{world.media.url}"\n')
    world.media.fail("/v1/images/generations", 400, {"error": {"message": "Your request was rejected"}})
    with pytest.raises(ProviderError, match=r"生图（OpenAI 兼容）：.* 回答 400：Your request was rejected"):
        imagine(world.home, session, prompt="雨")
    world.media.fail("/v1/images/generations", 200, {"created": 0, "data": []})
    with pytest.raises(ProviderError, match="回答里没有图片"):
        imagine(world.home, session, prompt="雨")
    assert len(session.chat.tree.messages()) == 2
    assert not (session.chat.path.parent / "images").exists()


def test_pear_imagine_keeps_the_picture_and_writes_the_file(world: World, tmp_path: Path) -> None:
    world.configure(f'[pictures]\nbackend = "sdwebui"\nbase_url = "{world.media.url}"\n')
    session = world.chat(("assistant", REPLY))
    out = tmp_path / "雨夜.png"
    done = pear_in_process(world.home.root, "imagine", "--chat", session.chat_id, "--prompt", "雨夜", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == tiny_png() and "第 2 条消息" in done.stderr
    # With nothing configured, --base-url names an OpenAI-compatible server.
    world.configure()
    world.media.api_key = ""
    via = pear_in_process(world.home.root, "imagine", "--chat", session.chat_id, "--prompt", "雨", "--out", str(out),
                          "--base-url", f"{world.media.url}/v1", "--model", "gpt-image-1")  # fmt: skip
    assert via.returncode == 0, via.stderr
    assert world.media.to("/v1/images/generations")[-1].body["model"] == "gpt-image-1"
    failed = pear_in_process(world.home.root, "imagine", "--chat", session.chat_id, "--prompt", "雨", "--out",
                             str(tmp_path / "x.png"), "--base-url", f"{world.media.url}/nowhere")  # fmt: skip
    assert failed.returncode == 4 and failed.stderr.count("\n") == 1 and "回答 404" in failed.stderr
    assert not (tmp_path / "x.png").exists()
