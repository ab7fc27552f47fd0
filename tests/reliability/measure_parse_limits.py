"""Time and peak memory of reading each hostile file, at full size, one fresh process per file.

    .venv/bin/python -m tests.reliability.measure_parse_limits            # the ingest path (worker + limits)
    .venv/bin/python -m tests.reliability.measure_parse_limits --inline   # parse + chunk in one process, no worker
    .venv/bin/python -m tests.reliability.measure_parse_limits --worker   # the reading step alone: worker's own peak

Each case runs in a child process under a wall-time cap (--cap-s) and an address-space cap (--cap-gb), so a case
that would run away is stopped and reported as such. "process s" includes starting Python and importing the
engine; "ingest s" is the ingest call alone. Peak memory is the largest resident set of the child and of any
worker it started (ru_maxrss).
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.reliability import hostile_files as h

ROOT = Path(__file__).resolve().parents[2]
GIB = 1024 ** 3

CASES: list[tuple[str, str, callable]] = [
    ("docx-inflate-1g", "bomb.docx", lambda: {"bomb.docx": h.docx_inflating(GIB)}),
    ("docx-part-1g", "part.docx", lambda: {"part.docx": h.docx_big_part(GIB)}),
    ("pdf-flate-400m", "zeros.pdf", lambda: {"zeros.pdf": h.pdf_flate_zeros(400 * h.MB)}),
    ("pdf-text-70m", "ops.pdf", lambda: {"ops.pdf": h.pdf_text_operators(70 * h.MB)}),
    ("csv-1m-rows", "rows.csv", lambda: {"rows.csv": h.csv_rows(1_000_000)}),
    ("csv-10m-field", "field.csv", lambda: {"field.csv": h.csv_big_field(10 * h.MB)}),
    ("md-50m-line", "line.md", lambda: {"line.md": h.markdown_long_line(50_000_000)}),
    ("txt-16m-no-spaces", "nospace.txt", lambda: {"nospace.txt": h.text_no_spaces(16 * h.MB)}),
    ("yaml-bomb-front-matter", "bomb.md", lambda: {"bomb.md": h.markdown_with_front_matter(h.yaml_bomb())}),
    ("yaml-bomb-sidecar", "note.txt", lambda: {"note.txt": b"Check the wear pin.",
                                               "note.txt.meta.yaml": h.yaml_bomb().encode()}),
    ("json-nested-100k", "deep.txt", lambda: {"deep.txt": b"Check the wear pin.",
                                              "deep.txt.meta.json": h.json_nested(100_000).encode()}),
    ("bad-date-front-matter", "date.md",
     lambda: {"date.md": h.markdown_with_front_matter("update_date: 2024-02-30\n")}),
    ("bad-date-sidecar", "date.txt", lambda: {"date.txt": b"Check the wear pin.",
                                              "date.txt.meta.yaml": b"update_date: 2024-02-30\n"}),
    ("csv-wide-100k-columns", "wide.csv", lambda: {"wide.csv": h.csv_wide(100_000)}),
    ("pdf-5000-tiny-pages", "tiny.pdf", lambda: {"tiny.pdf": h.pdf_pages(5_000)}),
]

INLINE = """
import sys
from pathlib import Path
from engine.documents.chunking import chunk_sections
from engine.documents.metadata import read_sidecar, resolve_metadata
from engine.documents.parsers import parse_bytes
path = Path(sys.argv[1])
sidecar = read_sidecar(path)
parsed = parse_bytes(path.name, path.read_bytes())
meta = resolve_metadata(path.name, parsed, "kb", sidecar=sidecar)
print("accepted:", len(chunk_sections(parsed.sections, 800, 120)), "chunks")
"""

INGEST = """
import resource, sys, time
from pathlib import Path
from engine.config import load_settings
from engine.ingest import Ingestor
from engine.store import KnowledgeBaseStore
path = Path(sys.argv[1])
store = KnowledgeBaseStore(load_settings(data_dir=Path(sys.argv[2])))
started = time.perf_counter()
for result in Ingestor(store).ingest_paths([path], "kb").files:
    print(result.status + ":", result.reason or f"{result.chunks} chunks")
print(f"ingest seconds: {time.perf_counter() - started:.2f}")
"""


def _limit(cap_bytes: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (cap_bytes, cap_bytes))


def run_case(folder: Path, target: str, code: str, cap_s: float, cap_bytes: int) -> tuple[float, str, float, str]:
    """(process seconds, ingest seconds, peak MB, outcome) of one child reading ``folder/target``; call it in a
    fresh interpreter, so that RUSAGE_CHILDREN's peak is this case's alone (the largest of the child and the
    worker the child ran)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-c", code, str(folder / target), str(folder / "data")], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: _limit(cap_bytes), start_new_session=True)
    try:
        out, err = proc.communicate(timeout=cap_s)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return time.monotonic() - started, "-", _children_peak_mb(), f"still running after {cap_s:.0f} s: stopped"
    seconds = time.monotonic() - started
    lines = [line for line in out.strip().splitlines() if line.strip()]
    ingest = next((line.split(": ")[1] for line in lines if line.startswith("ingest seconds")), "-")
    lines = [line for line in lines if not line.startswith("ingest seconds")]
    outcome = lines[0] if lines else f"exit code {proc.returncode}"
    if proc.returncode and err.strip():
        outcome = "crash: " + err.strip().splitlines()[-1]
    return seconds, ingest, _children_peak_mb(), outcome[:200]


def _children_peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def measure_worker(only: str | None) -> None:
    """Each case's reading step as an ingest runs it: its sidecar here, its document in a fresh ParseWorker."""
    from engine.documents.metadata import read_sidecar
    from engine.documents.sandbox import ParseWorker
    from engine.errors import DocumentError

    print("| case | read s | worker peak MB | outcome |\n|---|---|---|---|", flush=True)
    for case, target, build in CASES:
        if only and only not in case:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            for name, data in build().items():
                (Path(tmp) / name).write_bytes(data)
            path = Path(tmp) / target
            started = time.perf_counter()
            with ParseWorker() as worker:
                try:
                    read_sidecar(path)
                    parsed = worker.parse(target, path.read_bytes())
                    outcome = f"parsed: {len(parsed.text):,} characters"
                except DocumentError as exc:
                    outcome = "rejected: " + str(exc)[:120]
            peak = f"{worker.peak_mb:.0f}" if worker.peak_mb else "(not started)"
            print(f"| {case} | {time.perf_counter() - started:.2f} | {peak} | {outcome} |", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inline", action="store_true", help="parse and chunk in the child itself, no worker")
    parser.add_argument("--worker", action="store_true", help="the reading step alone, in this process's worker")
    parser.add_argument("--cap-s", type=float, default=60.0)
    parser.add_argument("--cap-gb", type=float, default=3.0)
    parser.add_argument("--only", help="run only cases whose id contains this text")
    parser.add_argument("--one", nargs=3, metavar=("FOLDER", "FILE", "MODE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    cap_bytes = int(args.cap_gb * GIB)
    if args.worker:
        measure_worker(args.only)
        return 0
    if args.one:  # one case, in this fresh interpreter
        folder, target, mode = args.one
        seconds, ingest, peak, outcome = run_case(Path(folder), target, INLINE if mode == "inline" else INGEST,
                                                  args.cap_s, cap_bytes)
        print(f"{seconds:.2f}\t{ingest}\t{peak:.0f}\t{outcome}")
        return 0
    print("| case | process s | ingest s | peak MB | outcome |\n|---|---|---|---|---|", flush=True)
    for case, target, build in CASES:
        if args.only and args.only not in case:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            for name, data in build().items():
                (Path(tmp) / name).write_bytes(data)
            result = subprocess.run(
                [sys.executable, "-m", "tests.reliability.measure_parse_limits", "--one", tmp, target,
                 "inline" if args.inline else "ingest", "--cap-s", str(args.cap_s), "--cap-gb", str(args.cap_gb)],
                cwd=ROOT, capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
            seconds, ingest, peak, outcome = (result.stdout.strip().split("\t", 3) + ["", "", "", ""])[:4]
            if result.returncode:
                outcome = "measurement failed: " + (result.stderr.strip().splitlines() or ["?"])[-1]
            print(f"| {case} | {seconds} | {ingest} | {peak} | {outcome.replace('|', '/')} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
