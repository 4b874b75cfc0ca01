"""Combine the parts of a build split over machines (`mineclip data build --part I/N`) into the
folder's manifest.json, which every reader of a shard folder goes through.

Each part writes its shards (`<prefix>-pIIIIofNNNN-000000.tar`, ...) and, last, its manifest
(`manifest.part-IIII-of-NNNN.json`): a part is finished when its manifest exists. The merge checks
that all N parts are finished and were built from the same input with the same settings, that the
shards they list are on disk, and writes manifest.json with the counts, shard list and summary a
single build writes; its `urls` is one brace pattern over the parts' shards. Shards are not moved.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path

from mineclip.data.build import BuildSummary, Part
from mineclip.data.shards import MANIFEST, SHARD_DIGITS, read_manifest, shard_name, write_manifest

PART_MANIFEST = re.compile(r"manifest\.part-(\d+)-of-(\d+)\.json")
AGREED_FIELDS = ("format", "version", "prefix", "encoding", "settings", "inputs")  # the same in every part


class MergeError(ValueError):
    """The parts in a folder cannot be merged (missing, unfinished, or built differently)."""


def find_parts(folder: str | os.PathLike) -> dict[int, dict[int, Path]]:
    """The finished parts' manifests in a folder, by number of parts, then part index."""
    found: dict[int, dict[int, Path]] = {}
    for path in Path(folder).iterdir():
        match = PART_MANIFEST.fullmatch(path.name)
        if match:
            found.setdefault(int(match[2]), {})[int(match[1])] = path
    return found


def merge_parts(folder: str | os.PathLike) -> BuildSummary:
    """Check the N parts in `folder` and write its manifest.json; returns the combined summary."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"expected a folder of parts built with --part I/N, got {folder} (not a folder)")
    found = find_parts(folder)
    if not found:
        raise MergeError(f"{folder} holds no part manifests (manifest.part-IIII-of-NNNN.json); "
                         "build the parts with `mineclip data build ... --part I/N` first")
    if len(found) > 1:
        splits = ", ".join(f"N={n} ({len(parts)} parts)" for n, parts in sorted(found.items()))
        raise MergeError(f"{folder} holds parts of different splits: {splits}; "
                         "remove the manifests and shards of the stale split")
    count, paths = found.popitem()
    missing = [i for i in range(count) if i not in paths]
    if missing:
        raise MergeError(_missing_message(folder, count, missing))
    manifests = [read_manifest(paths[i]) for i in range(count)]
    for index, manifest in enumerate(manifests):
        _check_part(folder, Part(index, count), manifest)
    _check_agreement(manifests)
    merged = combine(manifests)
    write_manifest(folder, merged, MANIFEST)
    return BuildSummary.from_manifest(merged)


def combine(manifests: list[dict]) -> dict:
    """The manifest a single build of all parts' videos writes, from the parts' manifests in order."""
    first = manifests[0]
    count = len(manifests)
    shards = [shard for m in manifests for shard in m["shards"]]
    sources: Counter = Counter()
    skipped: Counter = Counter()
    dropped: Counter = Counter()
    for m in manifests:
        overlap = set(sources) & set(m["sources"])
        if overlap:
            raise MergeError(f"part {m['part']['index']}/{count} holds clips of videos another part holds too: "
                             f"{sorted(overlap)[:3]}")
        sources.update(m["sources"])
        skipped.update(m["summary"]["skipped"])
        dropped.update(m["summary"]["dropped"])
    summary = {"videos": sum(m["summary"]["videos"] for m in manifests),
               "videos_with_clips": sum(m["summary"]["videos_with_clips"] for m in manifests),
               "skipped": dict(sorted(skipped.items())), "dropped": dict(sorted(dropped.items()))}
    merged = {
        "format": first["format"],
        "version": first["version"],
        "prefix": first["prefix"],
        "encoding": first["encoding"],
        "total": sum(m["total"] for m in manifests),
        "shards": shards,
        "urls": parts_pattern(first["prefix"], [len(m["shards"]) for m in manifests]),
        "settings": first["settings"],
        "sources": dict(sorted(sources.items())),
        "summary": summary,
    }
    if "inputs" in first:
        merged["inputs"] = first["inputs"]
    merged["parts"] = count
    return merged


def parts_pattern(prefix: str, shard_counts: list[int]) -> str:
    """One brace pattern over the shards of parts 0..N-1 holding the given numbers of shards:
    'train-{p0000of0003-{000000..000001},p0002of0003-{000000..000000}}.tar'."""
    count = len(shard_counts)
    groups = [f"{Part(i, count).label}-{{{0:0{SHARD_DIGITS}d}..{n - 1:0{SHARD_DIGITS}d}}}"
              for i, n in enumerate(shard_counts) if n]
    if not groups:
        return ""
    if len(groups) == 1:  # a single alternative in braces is not expanded
        return f"{prefix}-{groups[0]}.tar"
    return f"{prefix}-{{{','.join(groups)}}}.tar"


def _check_part(folder: Path, part: Part, manifest: dict) -> None:
    """The manifest is the part its name says, lists the shards the part writes, and they are on disk."""
    name = part.manifest_name
    recorded = manifest.get("part")
    if recorded != {"index": part.index, "count": part.count}:
        raise MergeError(f"{folder / name} records part {recorded}, expected {{'index': {part.index}, 'count': {part.count}}}")
    leftovers = _unfinished_files(folder, part)
    if leftovers:
        raise MergeError(f"part {part} is finished, but unfinished files of it remain ({', '.join(leftovers[:3])}): "
                         "is a copy of it still running? If none is, remove them")
    for k, shard in enumerate(manifest["shards"]):
        expected = shard_name(part.shard_prefix(manifest["prefix"]), k)
        if shard["name"] != expected:
            raise MergeError(f"{name} lists shard {shard['name']!r} where part {part} writes {expected!r}")
        path = folder / shard["name"]
        if not path.is_file():
            raise MergeError(f"part {part} lists {shard['name']}, which is missing from {folder}: build part {part} again")
        if path.stat().st_size != shard["bytes"]:
            raise MergeError(f"part {part} lists {shard['name']} with {shard['bytes']} bytes, the file has "
                             f"{path.stat().st_size}: build part {part} again")


def _check_agreement(manifests: list[dict]) -> None:
    """Every part was built with the same settings from the same input."""
    first = manifests[0]
    count = len(manifests)
    for index, manifest in enumerate(manifests[1:], start=1):
        for field in AGREED_FIELDS:
            a, b = first.get(field), manifest.get(field)
            if a == b:
                continue
            if isinstance(a, dict) and isinstance(b, dict):
                keys = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
                diff = ", ".join(f"{k} ({_short(a.get(k))} vs {_short(b.get(k))})" for k in keys)
            else:
                diff = f"{_short(a)} vs {_short(b)}"
            raise MergeError(f"parts 0/{count} and {index}/{count} were built differently: {field} differs in {diff}; "
                             "build every part with the same input and flags")


def _missing_message(folder: Path, count: int, missing: list[int]) -> str:
    shown = ", ".join(map(str, missing[:20])) + (", ..." if len(missing) > 20 else "")
    lines = [f"{folder}: {len(missing)} of {count} parts are not finished (no manifest.part-IIII-of-{count:04d}.json): "
             f"{shown}. Build them with --part I/{count} (a part is finished when it has written its manifest)."]
    for index in missing:
        leftovers = _unfinished_files(folder, Part(index, count))
        if leftovers:
            lines.append(f"part {index}/{count} was stopped before the end; it left {', '.join(leftovers[:3])}")
    return "\n".join(lines)


def _unfinished_files(folder: Path, part: Part) -> list[str]:
    """Files a part writes under a temporary name until they are complete: left behind, it did not finish."""
    shards = folder.glob(f"*-{part.label}-{'[0-9]' * SHARD_DIGITS}.tar.part")
    return sorted(p.name for p in [*shards, folder / f"{part.manifest_name}.part"] if p.is_file())


def _short(value, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
