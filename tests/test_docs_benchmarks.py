"""The benchmark docs stay a map: the index (``docs/benchmarks.md``) fits in 12,000 characters, one row
per measure, and everything it and the topic pages (``docs/benchmarks/``) point at exists — pages,
files, the bench scripts whose commands they give; every topic page is in the index and opens with
where it stands."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INDEX = ROOT / "docs" / "benchmarks.md"
PAGES = sorted((ROOT / "docs" / "benchmarks").glob("*.md"))

# [text](target): the target up to a closing parenthesis, a space (a title) or an anchor.
_LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)\s]*)?(?:\s[^)]*)?\)")
_BENCH_SCRIPT = re.compile(r"\b(bench_[a-z0-9_]+\.py|tree_cpu\.py|pytest_test_cpu\.py)\b")


def _local_links(page: Path) -> list[str]:
    targets = _LINK.findall(page.read_text(encoding="utf-8"))
    return [t for t in targets if not re.match(r"[a-z][a-z0-9+.-]*:", t)]  # http:, mailto: … are not files


def test_the_index_fits_in_12000_characters() -> None:
    assert len(INDEX.read_text(encoding="utf-8")) <= 12_000


@pytest.mark.parametrize("page", [INDEX, *PAGES], ids=lambda page: page.name)
def test_every_link_points_at_a_file_that_exists(page: Path) -> None:
    links = _local_links(page)
    assert [link for link in links if not (page.parent / link).exists()] == []


@pytest.mark.parametrize("page", [INDEX, *PAGES], ids=lambda page: page.name)
def test_every_bench_script_named_exists(page: Path) -> None:
    named = set(_BENCH_SCRIPT.findall(page.read_text(encoding="utf-8")))
    assert sorted(name for name in named if not (ROOT / "bench" / name).is_file()) == []


def test_every_topic_page_is_in_the_index_and_opens_with_where_it_stands() -> None:
    linked = {(INDEX.parent / link).resolve() for link in _local_links(INDEX)}
    assert PAGES and [page.name for page in PAGES if page.resolve() not in linked] == []
    for page in PAGES:
        paragraphs = page.read_text(encoding="utf-8").split("\n\n")
        assert paragraphs[0].startswith("# ") and paragraphs[1].startswith("**Where it stands"), page.name
