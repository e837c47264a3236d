"""The world of the feature tests beside the chat: a seeded data folder whose models are the fake OpenAI
server, a fake of the media servers (speech, pictures, translation), and a chat of 青梧 with a reply."""

from __future__ import annotations

from dataclasses import dataclass

from peargarden.app.play.service import ChatOptions, ChatSession, PearApp
from peargarden.testing.fake_media import FakeMediaServer
from peargarden.testing.fake_openai import FakeOpenAIServer
from peargarden.workspace.home import Home


@dataclass
class World:
    home: Home
    model: FakeOpenAIServer
    media: FakeMediaServer

    def configure(self, extra: str = "") -> None:
        """config.toml: the fake model as the main model, plus *extra* (the feature's tables)."""
        self.home.config_file.write_text(
            '[model]\nprovider = "fake"\nmodel = "fake-model"\nthinking = "off"\n'
            f'[providers.fake]\nbase_url = "{self.model.base_url}"\napi_key = "sk-test"\n{extra}',
            encoding="utf-8",
        )

    def chat(self, *messages: tuple[str, str]) -> ChatSession:
        """A new chat of 青梧 (its greeting first) with *messages* (role, text) after it."""
        session = PearApp(self.home).new_chat("青梧", ChatOptions(mode="tavern"))
        for role, text in messages:
            session.insert_message({"role": role, "content": text, "name": "旅人" if role == "user" else "青梧"})
        return session
