"""Sanity checks for the demo corpus in ``sample_docs/``.

Checks that every document parses in its format, that every document has
metadata (front matter or sidecar) with the required keys and valid values,
and prints an inventory (per knowledge base and format, series/revisions).

Usage:  python tools/verify_sample_docs.py        (exit code 1 on any problem)
"""

from __future__ import annotations

import csv
import json
import re
import sys
from collections import Counter, defaultdict
from datetime import date
from html.parser import HTMLParser
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "sample_docs"
KBS = ("manuals", "regulations", "faq")
FORMATS = {".pdf": "pdf", ".docx": "docx", ".html": "html", ".md": "md", ".txt": "txt", ".csv": "csv"}
REQUIRED = ("title", "source", "authority", "doc_type")
DOC_TYPES = {"manual", "service_bulletin", "fault_isolation", "reliability_report", "regulation",
             "airworthiness_directive", "advisory_circular", "faq", "shop_note", "forum_post"}
MINIMUM = {"pdf": 5, "docx": 5, "html": 5, "md": 6, "txt": 5, "csv": 4}


class _Text(HTMLParser):
    """Visible text of an HTML page, without script/style/nav/header/footer/aside."""

    SKIP = {"script", "style", "nav", "header", "footer", "aside", "head"}

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.parts: list[str] = []
        self.tags: Counter = Counter()

    def handle_starttag(self, tag, attrs):
        self.tags[tag] += 1
        if tag in self.SKIP:
            self.depth += 1

    def handle_endtag(self, tag):
        if tag in self.SKIP and self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if not self.depth:
            self.parts.append(data)


def front_matter(text: str) -> tuple[dict, str]:
    if not text.startswith("---\n"):
        raise ValueError("no YAML front matter at the top")
    end = text.index("\n---\n", 4)
    return yaml.safe_load(text[4:end]), text[end + 5 :]


def sidecar(path: Path) -> dict:
    yml, jsn = path.with_suffix(".meta.yaml"), path.with_suffix(".meta.json")
    if yml.exists() and jsn.exists():
        raise ValueError("both .meta.yaml and .meta.json present")
    if yml.exists():
        return yaml.safe_load(yml.read_text(encoding="utf-8"))
    if jsn.exists():
        return json.loads(jsn.read_text(encoding="utf-8"))
    raise ValueError("no sidecar metadata file")


def content(path: Path, fmt: str) -> tuple[dict, str, str]:
    """Return (metadata, text, detail) for one document; raise on problems."""
    if fmt in ("md", "txt"):
        meta, body = front_matter(path.read_text(encoding="utf-8"))
        return meta, body, ""
    meta = sidecar(path)
    if fmt == "pdf":
        from pypdf import PdfReader

        pages = [p.extract_text() or "" for p in PdfReader(str(path)).pages]
        if not 2 <= len(pages) <= 4:
            raise ValueError(f"{len(pages)} pages (expected 2-4)")
        if any(len(p.split()) < 20 for p in pages):
            raise ValueError("a page has (almost) no extractable text")
        return meta, "\n".join(pages), f"{len(pages)} pages"
    if fmt == "docx":
        from docx import Document

        doc = Document(str(path))
        styles = Counter(p.style.name for p in doc.paragraphs)
        if not styles["Heading 1"] or not doc.tables:
            raise ValueError("needs Heading 1 paragraphs and at least one table")
        text = "\n".join(p.text for p in doc.paragraphs)
        text += "\n" + "\n".join(c.text for t in doc.tables for r in t.rows for c in r.cells)
        return meta, text, f"H1={styles['Heading 1']} H2={styles['Heading 2']} tables={len(doc.tables)}"
    if fmt == "html":
        parser = _Text()
        parser.feed(path.read_text(encoding="utf-8"))
        if not (parser.tags["script"] and parser.tags["style"]):
            raise ValueError("needs a <script> and a <style> block")
        return meta, " ".join(parser.parts), ""
    if fmt == "csv":
        with path.open(newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh))
        header, records = rows[0], rows[1:]
        if not records or any(len(r) != len(header) for r in records):
            raise ValueError("ragged CSV or no records")
        return meta, "\n".join(",".join(r) for r in rows), f"{len(records)} records x {len(header)} cols"
    raise ValueError(fmt)


def check_meta(meta: dict) -> list[str]:
    problems = [f"missing key {k!r}" for k in REQUIRED if k not in meta]
    if "authority" in meta and not (isinstance(meta["authority"], int) and 1 <= meta["authority"] <= 5):
        problems.append(f"authority {meta['authority']!r} not an int 1-5")
    if meta.get("doc_type") not in DOC_TYPES:
        problems.append(f"doc_type {meta.get('doc_type')!r} not allowed")
    if "update_date" in meta:
        value = meta["update_date"]
        if isinstance(value, str):
            try:
                value = date.fromisoformat(value)
            except ValueError:
                problems.append(f"update_date {value!r} not YYYY-MM-DD")
        if not isinstance(value, date):
            problems.append("update_date is not a date")
    return problems


def main() -> int:
    problems: list[str] = []
    per_kb: dict[str, Counter] = defaultdict(Counter)
    series: dict[str, list] = defaultdict(list)
    undated: list[str] = []
    rows = []
    for kb in KBS:
        for path in sorted((CORPUS / kb).iterdir()):
            if path.name.endswith((".meta.yaml", ".meta.json")):
                if not any(path.with_name(path.name.split(".meta.")[0] + ext).exists() for ext in FORMATS):
                    problems.append(f"{path.relative_to(CORPUS)}: orphan sidecar")
                continue
            fmt = FORMATS.get(path.suffix)
            if fmt is None:
                problems.append(f"{path.relative_to(CORPUS)}: unexpected file")
                continue
            try:
                meta, text, detail = content(path, fmt)
            except Exception as exc:  # noqa: BLE001 - report and continue
                problems.append(f"{path.relative_to(CORPUS)}: {exc}")
                continue
            problems += [f"{path.relative_to(CORPUS)}: {p}" for p in check_meta(meta)]
            words = len(re.findall(r"\w+", text))
            per_kb[kb][fmt] += 1
            if "update_date" not in meta:
                undated.append(f"{kb}/{path.name}")
            if meta.get("series"):
                series[meta["series"]].append((str(meta.get("update_date", "-")), meta.get("revision", "-"),
                                               f"{kb}/{path.name}"))
            rows.append((kb, path.name, fmt, str(meta.get("update_date", "-")), meta.get("authority"),
                         meta.get("doc_type"), meta.get("series", "-"), meta.get("revision", "-"), words, detail))

    for row in rows:
        print("{:<12} {:<52} {:<5} {:<10} a={} {:<24} {} | {} | {} words {}".format(*row))
    print()
    totals = Counter()
    for kb in KBS:
        totals.update(per_kb[kb])
        print(f"{kb:<12} {sum(per_kb[kb].values()):>3} docs  {dict(sorted(per_kb[kb].items()))}")
    print(f"{'total':<12} {sum(totals.values()):>3} docs  {dict(sorted(totals.items()))}")
    print(f"undated: {undated}")
    print("series with several revisions:")
    for name, items in sorted(series.items()):
        if len(items) > 1:
            print(f"  {name}: " + "; ".join(f"{r} ({d}) {f}" for d, r, f in sorted(items)))

    for fmt, minimum in MINIMUM.items():
        if totals[fmt] < minimum:
            problems.append(f"only {totals[fmt]} {fmt} documents (need {minimum})")
    if sum(totals.values()) < 36:
        problems.append("fewer than 36 documents")
    if len(undated) != 2:
        problems.append(f"expected exactly 2 undated documents, found {len(undated)}")
    questions = [q for q in (CORPUS / "questions.txt").read_text(encoding="utf-8").splitlines()
                 if q.strip() and not q.startswith("#")]
    if len(questions) < 24:
        problems.append(f"only {len(questions)} questions")
    if questions[0] != "Compare the fuel efficiency of A320 and B737, focusing on data from 2023 reports.":
        problems.append("first question is not the required one")
    print(f"questions: {len(questions)}")

    if problems:
        print("\nPROBLEMS:")
        for p in problems:
            print("  -", p)
        return 1
    print("\nall checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
