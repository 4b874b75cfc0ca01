"""The one rule for which files the labelling app may read: files under the set's folder, named by a
relative path without `..`, that resolve (symlinks followed) inside the folder."""

from __future__ import annotations

from pathlib import Path, PurePosixPath


class OutsideSetError(ValueError):
    """A path that names something outside the set's folder (or is not a plain relative path)."""


def inside(root: Path, relative: str) -> Path:
    """The resolved path of `relative` under `root`; OutsideSetError for absolute paths, `..`,
    backslashes, NUL bytes or symlinks that lead out of `root`."""
    if not isinstance(relative, str) or not relative:
        raise OutsideSetError("expected a relative path")
    if "\x00" in relative or "\\" in relative:
        raise OutsideSetError(f"not a plain relative path: {relative!r}")
    pure = PurePosixPath(relative)
    if pure.is_absolute() or relative.startswith("/") or (len(relative) > 1 and relative[1] == ":"):
        raise OutsideSetError(f"absolute paths are refused: {relative!r}")
    if ".." in pure.parts:
        raise OutsideSetError(f"'..' is refused: {relative!r}")
    root = root.resolve()
    target = (root / pure).resolve()
    if target != root and root not in target.parents:
        raise OutsideSetError(f"{relative!r} leads outside the set's folder (a symlink?)")
    return target


def relative_inside(root: Path, path: str) -> str:
    """A media path of the set as a POSIX path relative to `root` (absolute paths inside `root` are
    accepted and made relative); OutsideSetError for anything outside."""
    p = Path(path)
    if p.is_absolute():
        root_r = root.resolve()
        resolved = p.resolve()
        if resolved != root_r and root_r not in resolved.parents:
            raise OutsideSetError(f"{path!r} is outside the set's folder {root}")
        path = resolved.relative_to(root_r).as_posix()
    inside(root, path)
    return PurePosixPath(path).as_posix()
