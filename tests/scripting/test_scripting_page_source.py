"""``top`` in a card's code read as the frame's host (scripting/page_source.py): every identifier ``top``
and every window's ``.top`` renamed, a property named ``top`` of anything else left alone, the card's own
variables called ``top`` renamed alike (their scopes unchanged), code inside strings and comments and
scripts that are not code untouched."""

from __future__ import annotations

import pytest

from peargarden.scripting.page_source import TOP, rename_top, rename_top_in_html


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("const 酒馆 = window.top.SillyTavern;", f"const 酒馆 = {TOP}.SillyTavern;"),
        ("if (top !== window) x = top.$;", f"if ({TOP} !== window) x = {TOP}.$;"),
        ("window.parent.top.document; self.top; parent.top", f"{TOP}.document; {TOP}; {TOP}"),
        ("window?.top?.toastr", f"{TOP}?.toastr"),
        # a property of anything else, object keys, strings, comments: left alone
        ("el.style.top = rect.top + 'px'; const o = {top: 1}; // top", None),
        ("'top'; `top ${a}`", None),
        # the card's own variables named top: renamed alike, so they still shadow
        ("function 放(top) { return top + 1; }", f"function 放({TOP}) {{ return {TOP} + 1; }}"),
        ("const {top} = rect; const o = {top};", f"const {{top: {TOP}}} = rect; const o = {{top: {TOP}}};"),
        ("export const 顶 = top;", f"export const 顶 = {TOP};"),
        ("import { x } from 'https://cdn/x.js'; x(top)", f"import {{ x }} from 'https://cdn/x.js'; x({TOP})"),
        ("no mention at all", None),
    ],
)  # fmt: skip
def test_top_reads_the_frames_host(source: str, expected: str | None) -> None:
    assert rename_top(source) == (source if expected is None else expected)  # None: unchanged


def test_a_script_that_does_not_parse_is_renamed_where_it_does() -> None:
    assert rename_top("let a = (; top.x; function f(top) { return top }").count(TOP) >= 1


def test_in_a_document_only_the_scripts_change() -> None:
    html = (
        "<div style='top:0'>top</div><script type='module'>top.x</script>"
        "<script type='text/template'>top</script><script>var q = window.top</script>"
    )
    assert rename_top_in_html(html) == (
        f"<div style='top:0'>top</div><script type='module'>{TOP}.x</script>"
        f"<script type='text/template'>top</script><script>var q = {TOP}</script>"
    )
