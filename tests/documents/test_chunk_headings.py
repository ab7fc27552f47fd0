"""A Markdown chunk starts with the headings above it that it does not hold itself."""

from __future__ import annotations

import pytest

from engine.documents.chunking import chunk_sections
from engine.documents.headings import HeadingMap
from engine.documents.parsers import parse_markdown

pytestmark = pytest.mark.unit

RELEASES = """# Release notes

## [2.1.0] - 2025-06-01

## Added

- Streaming reads for large tables.

## Changed

- The default page size is now 500 rows instead of 100.

## [2.0.0] - 2025-01-15

### Removed

- The legacy XML exporter.
"""


def test_an_empty_same_level_heading_groups_the_headings_after_it():
    headings = HeadingMap(RELEASES)
    assert headings.at(RELEASES.index("The default page size")) == ("## [2.1.0] - 2025-06-01", "## Changed")
    assert headings.at(RELEASES.index("The legacy XML")) == ("## [2.0.0] - 2025-01-15", "### Removed")
    assert headings.at(0) == ()


def test_ordinary_nesting_follows_the_levels():
    text = "## Brakes\n\nIntro.\n\n### Wear\n\nPins.\n\n## Tyres\n\nPressure."
    headings = HeadingMap(text)
    assert headings.at(text.index("Pins")) == ("## Brakes", "### Wear")
    assert headings.at(text.index("Pressure")) == ("## Tyres",)


def test_a_chunk_cut_inside_a_release_names_its_version():
    parsed = parse_markdown(RELEASES.encode(), None)
    chunks = chunk_sections(parsed.sections, size=80, overlap=0)
    holding = next(c for c in chunks if "page size" in c.text)
    assert "[2.1.0] - 2025-06-01" in holding.text
    assert holding.text.count("## Changed") == 1  # a heading the chunk holds is not repeated

