"""CLI commands for documents: ingest, kb list / delete-doc / set-title / drop, search, bootstrap."""

from __future__ import annotations

import argparse
import sys
from contextlib import nullcontext
from pathlib import Path

from engine.cli.common import emit, settings_from, table
from engine.cli.progress import TerminalProgress
from engine.documents.names import one_line
from engine.embeddings import export_pending
from engine.ingest import ON_CONFLICT, Ingestor, walk_paths
from engine.store import MODES, KnowledgeBaseStore, make_filters

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample_docs"


def register(sub, parent: argparse.ArgumentParser) -> None:
    p = sub.add_parser("ingest", parents=[parent], help="add files or folders to a knowledge base")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--kb", required=True, help="knowledge base name (created when missing)")
    p.add_argument("--title", help="title for every file in this run")
    p.add_argument("--update-date", help="ISO date for every file in this run")
    p.add_argument("--authority", type=int, help="authority 1-5 for every file in this run")
    p.add_argument("--doc-type", help="document type for every file in this run")
    p.add_argument("--series", help="document series (revisions of one document share it) for every file in this run")
    p.add_argument("--revision", help="revision label (e.g. 'Rev 12') for every file in this run")
    p.add_argument("--follow-links", action="store_true",
                   help="follow symbolic links that stay inside the folder given (links out of it are never "
                        "followed; without this flag no link is)")
    p.add_argument("--on-conflict", choices=ON_CONFLICT, default="replace",
                   help="a file whose name the base already holds: replace that document (default), keep-both "
                        "(store this one beside it as NAME (2)), or skip it")
    p.add_argument("--engine", choices=("local", "ray"), default="local",
                   help="local: read and embed in this process (default); ray: as Ray Data stages, on the cluster at "
                        "RAY_ADDRESS or a Ray instance started here (needs ray[data] installed)")
    p.set_defaults(handler=cmd_ingest)

    kb = sub.add_parser("kb", help="list knowledge bases, delete documents, drop a base")
    kb_sub = kb.add_subparsers(dest="kb_command", required=True, metavar="ACTION")
    p = kb_sub.add_parser("list", parents=[parent], help="knowledge bases and their documents")
    p.add_argument("--kb", help="only this knowledge base")
    p.set_defaults(handler=cmd_kb_list)
    p = kb_sub.add_parser("stats", parents=[parent], help="documents per base, per update year and per authority")
    p.set_defaults(handler=cmd_kb_stats)
    p = kb_sub.add_parser("delete-doc", parents=[parent], help="remove a document and all its chunks")
    p.add_argument("doc_id", metavar="DOC_ID")
    p.add_argument("--kb", required=True)
    p.set_defaults(handler=cmd_delete_doc)
    p = kb_sub.add_parser("set-title", parents=[parent], help="give a document the title you choose")
    p.add_argument("doc_id", metavar="DOC_ID")
    p.add_argument("title", metavar="TITLE")
    p.add_argument("--kb", required=True)
    p.set_defaults(handler=cmd_set_title)
    p = kb_sub.add_parser("graph", parents=[parent],
                          help="make a base's entity graph (the names its passages mention) again from its chunks")
    p.add_argument("name", metavar="NAME")
    p.set_defaults(handler=cmd_graph)
    p = kb_sub.add_parser("drop", parents=[parent], help="delete a whole knowledge base")
    p.add_argument("name", metavar="NAME")
    p.add_argument("--yes", action="store_true", help="confirm the drop")
    p.set_defaults(handler=cmd_drop)

    p = sub.add_parser("search", parents=[parent], help="search a knowledge base")
    p.add_argument("text", metavar="TEXT")
    p.add_argument("--kb", action="append", help="knowledge base (repeat for several; default: all)")
    p.add_argument("--mode", choices=MODES, default="hybrid")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--since", help="only documents updated on or after YYYY-MM-DD")
    p.add_argument("--until", help="only documents updated on or before YYYY-MM-DD")
    p.add_argument("--doc-type", help="only this document type")
    p.add_argument("--min-authority", type=int, help="only sources with at least this authority (1-5)")
    p.set_defaults(handler=cmd_search)

    p = sub.add_parser("bootstrap", parents=[parent], help="index sample_docs/ when the store is empty")
    p.add_argument("--sample-dir", default=str(SAMPLE_DIR))
    p.add_argument("--model-only", action="store_true",
                   help="only prepare the embedding model (export it once per machine); index nothing")
    p.set_defaults(handler=cmd_bootstrap)


def _store(args) -> KnowledgeBaseStore:
    return KnowledgeBaseStore(settings_from(args))


def _shown(rows: list[dict], columns: list[str]) -> list[dict]:
    """Rows whose text cells are one line with control characters escaped: a file name or title holding terminal
    escapes, NULs or newlines prints as text and cannot restyle or break the table."""
    return [{**row, **{c: one_line(row[c]) for c in columns if isinstance(row.get(c), str)}} for row in rows]


def _file_count(paths: list[str], follow_links: bool = False) -> int:
    found, skipped = walk_paths(paths, follow_links)
    return len(found) + len(skipped)


def _detail(f: dict) -> str:
    return f["reason"] or " ".join([f"{f['chunks']} chunks.", *([f["note"]] if f.get("note") else []),
                                    *f.get("warnings", ())])


def _render_ingest(payload: dict) -> str:
    rows = [dict(f, detail=_detail(f)) for f in payload["files"]]
    columns = ["status", "name", "doc_id", "detail"]
    summary = ", ".join(f"{v} {k}" for k, v in payload["summary"].items())
    pending = payload.get("index_pending")
    note = (f"\nindexes: not up to date ({pending}); the documents are stored and searchable, and the next ingest or "
            "keyword search finishes the index work." if pending else "")
    return table(_shown(rows, columns), columns, {"detail": 90}) + f"\n\n{payload['knowledge_base']}: {summary}{note}"


def cmd_ingest(args) -> int:
    caller = {k: v for k, v in {"title": args.title, "update_date": args.update_date, "authority": args.authority,
                                "doc_type": args.doc_type, "series": args.series,
                                "revision": args.revision}.items() if v is not None}
    store = _store(args)
    runtime, reader = nullcontext(), None
    if args.engine == "ray":
        from engine.ray_ingest import RayReader, ray_runtime  # Ray is imported only for this engine

        runtime, reader = ray_runtime(), RayReader(store)
    with runtime, TerminalProgress(args.kb, _file_count(args.paths, args.follow_links)) as bar:
        report = Ingestor(store, reader=reader).ingest_paths(args.paths, args.kb, caller, progress=bar.file,
                                                              on_step=bar.step, follow_links=args.follow_links,
                                                              on_conflict=args.on_conflict)
    emit(args, report.to_dict(), _render_ingest)
    finish_sentences(store)
    return 0


def finish_sentences(store) -> None:
    """Before the process ends: the sentence vectors an ingest left to the background (engine/store/sentence_fill.py)
    are embedded, or the asks over these documents would each embed them."""
    filler = store.sentence_filler
    left = filler.pending()
    if left:
        print(f"Embedding the sentences of {left} document(s) for the answer reader (the documents are already "
              "searchable)...", file=sys.stderr, flush=True)
    filler.wait()
    for failure in filler.failed:
        print(f"warning: sentence vectors not stored for {failure}; asks will embed them", file=sys.stderr)


def cmd_kb_list(args) -> int:
    store = _store(args)
    names = [args.kb] if args.kb else store.knowledge_base_names()
    infos = {i.name: i for i in store.list_knowledge_bases()}
    bases = []
    for name in names:
        docs = store.list_documents(name)
        info = infos[name].to_dict() if name in infos else {"name": name}
        bases.append({**info, "documents": [d.to_dict() for d in docs]})

    def render(payload: dict) -> str:
        if not payload["knowledge_bases"]:
            return "No knowledge bases yet. Add documents with: python -m engine ingest PATH --kb NAME"
        out = []
        for kb in payload["knowledge_bases"]:
            out.append(f"== {kb['name']}: {len(kb['documents'])} documents, {kb.get('chunks', 0)} chunks")
            columns = ["doc_id", "title", "file_name", "update_date", "chunks"]
            out.append(table(_shown(kb["documents"], columns), columns, {"title": 50}))
        return "\n\n".join(out)

    emit(args, {"knowledge_bases": bases}, render)
    return 0


def cmd_kb_stats(args) -> int:
    from engine.store.stats import corpus_stats

    stats = corpus_stats(_store(args)).to_dict()
    emit(args, stats, lambda p: "\n\n".join(
        table(rows, list(rows[0])) for rows in (p["per_base"], p["by_year"], p["by_authority"]) if rows
    ) or "No knowledge bases yet.")
    return 0


def cmd_delete_doc(args) -> int:
    removed = _store(args).delete_document(args.doc_id, args.kb)
    payload = {"ok": True, "doc_id": args.doc_id, "knowledge_base": args.kb, "chunks_deleted": removed}
    emit(args, payload, lambda p: f"Deleted {p['doc_id']} from {p['knowledge_base']} ({p['chunks_deleted']} chunks).")
    return 0


def cmd_set_title(args) -> int:
    info = _store(args).set_title(args.doc_id, args.kb, args.title)
    payload = {"ok": True, "doc_id": info.doc_id, "knowledge_base": args.kb, "title": info.title,
               "chunks": info.chunks}
    emit(args, payload, lambda p: f"{p['doc_id']} in {p['knowledge_base']} is now titled {p['title']!r} "
                                  f"({p['chunks']} chunks).")
    return 0


def cmd_graph(args) -> int:
    store = _store(args)
    rows = store.rebuild_mentions(args.name)
    pairs = store.synonym_pairs(args.name)
    payload = {"ok": True, "knowledge_base": args.name, "mention_rows": rows, "synonym_pairs": pairs,
               "synonyms_built": store.settings.graph_synonyms, "chunks": store.count_chunks(args.name)}
    emit(args, payload, lambda p: f"The entity graph of {p['knowledge_base']} holds {p['mention_rows']} mentions "
                                  f"of its {p['chunks']} chunks" + (
                                      f" and {p['synonym_pairs']} synonym pairs." if p["synonyms_built"] else
                                      " (no synonym edges: set WORKBENCH_GRAPH_SYNONYMS=1 to build them)."))
    return 0


def cmd_drop(args) -> int:
    from engine.errors import KnowledgeBaseError

    if not args.yes:
        raise KnowledgeBaseError(f"Dropping {args.name!r} deletes all its documents; repeat with --yes to confirm.")
    _store(args).drop_knowledge_base(args.name)
    emit(args, {"ok": True, "dropped": args.name}, lambda p: f"Dropped knowledge base {p['dropped']}.")
    return 0


def cmd_search(args) -> int:
    filters = make_filters(doc_type=args.doc_type, since=args.since, until=args.until, min_authority=args.min_authority)
    hits = _store(args).search(args.text, args.kb, mode=args.mode, k=args.k, filters=filters)
    payload = {"query": args.text, "mode": args.mode, "k": args.k, "filters": filters.model_dump(mode="json"),
               "results": [h.to_dict() for h in hits]}

    def render(p: dict) -> str:
        if not p["results"]:
            return "No results."
        rows = [dict(r, score=f"{r['score']:.4f}") for r in p["results"]]
        columns = ["score", "knowledge_base", "title", "update_date", "page", "text"]
        return table(_shown(rows, columns), columns, {"title": 36, "text": 70})

    emit(args, payload, render)
    return 0


def cmd_bootstrap(args) -> int:
    store = _store(args)
    sample = Path(args.sample_dir)
    if export_pending(store.settings):  # the app would otherwise pause on its first question
        print(f"Preparing the embedding model ({store.settings.embedding_backend}: a one-time export into "
              f"{store.settings.embedding_cache_folder}, about 10-20 s)...", file=sys.stderr, flush=True)
        store.embedder  # noqa: B018 - loads the model, exporting it once
    from engine.offline import span_model

    if span_model.export_pending():  # the offline reader's span model, likewise exported once
        print(f"Preparing the answer reader's span model (a one-time export into "
              f"{store.settings.embedding_cache_folder}, about 10 s)...", file=sys.stderr, flush=True)
    span_model.packaged()
    if getattr(args, "model_only", False):
        emit(args, {"model": str(store.settings.embedding_cache_folder)},
             lambda p: f"Embedding model ready ({store.settings.embedding_backend}) in {p['model']}.")
        return 0
    payload = {"indexed": False, "knowledge_bases": store.knowledge_base_names(), "reports": []}
    if not store.knowledge_base_names():
        ingestor = Ingestor(store)
        for folder in sorted(p for p in sample.iterdir() if p.is_dir()):
            with TerminalProgress(folder.name, _file_count([folder])) as bar:
                report = ingestor.ingest_paths([folder], folder.name, progress=bar.file, on_step=bar.step)
            payload["reports"].append(report.to_dict())
        payload["indexed"] = True
        payload["knowledge_bases"] = store.knowledge_base_names()
        finish_sentences(store)

    def render(p: dict) -> str:
        if not p["indexed"]:
            return f"Store already has knowledge bases: {', '.join(p['knowledge_bases'])}."
        return "\n".join(f"Indexed {r['knowledge_base']}: {r['summary']}" for r in p["reports"])

    emit(args, payload, render)
    return 0
