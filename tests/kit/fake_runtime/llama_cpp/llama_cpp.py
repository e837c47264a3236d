"""The fake runtime's low-level module: llama.cpp's default model parameters, as ``Llama`` reads them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ModelParams:
    use_extra_bufts: bool = True


def llama_model_default_params() -> ModelParams:
    return ModelParams()
