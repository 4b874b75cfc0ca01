"""The one check of a settings object's counts: each named field at least 1.

Zero or fewer of a count (clips, worlds, steps, environments, episodes) was, before each settings
class checked it, a run that made or measured nothing and said so late (NaN, "wrote 0 clips", a
failure inside each worker) or not at all."""

from __future__ import annotations


def require_counts(settings, *names: str, owner: str = "") -> None:
    """Raise ValueError naming the first of `names` (fields of `settings`) below 1; `owner` prefixes
    the name (e.g. "PPO's ")."""
    for name in names:
        value = getattr(settings, name)
        if value < 1:
            raise ValueError(f"{owner}{name} must be at least 1, got {value}")
