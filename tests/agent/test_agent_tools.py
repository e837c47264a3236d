from __future__ import annotations

import pytest

from peargarden.agent.tools import FunctionTool, ToolContext, ToolRegistry, ToolResult
from peargarden.errors import BadInput


def _echo(args: dict[str, object], ctx: ToolContext) -> str:
    return f"回声：{args['词']}"


def test_registry_keeps_order_and_builds_specs() -> None:
    schema = {"type": "object", "properties": {"词": {"type": "string"}}, "required": ["词"]}
    registry = ToolRegistry(
        [FunctionTool("echo", "回声", schema, _echo), FunctionTool("b", "乙", schema, _echo)]
    )
    assert registry.names() == ["echo", "b"]
    assert registry.specs()[0].to_openai()["function"]["parameters"] == schema
    tool = registry.get("echo")
    assert tool is not None
    assert tool.run({"词": "听雨轩"}, ToolContext()) == ToolResult("回声：听雨轩")


def test_registry_refuses_duplicates_and_bad_access() -> None:
    registry = ToolRegistry([FunctionTool("echo", "", {}, _echo)])
    with pytest.raises(BadInput):
        registry.register(FunctionTool("echo", "", {}, _echo))
    with pytest.raises(BadInput):
        registry.register(FunctionTool("x", "", {}, _echo, access="root"))  # type: ignore[arg-type]


def test_context_filters_custom_entries_by_type() -> None:
    ctx = ToolContext(custom_entries=[{"customType": "a", "data": 1}, {"customType": "b", "data": 2}])
    assert ctx.customs("b") == [2]
