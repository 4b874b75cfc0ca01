"""A griffe extension for the API reference (mkdocs.yml): a package's re-exports become links.

A package such as `mineclip.reward` re-exports names defined in its modules (`RewardModel` from
`mineclip.reward.reward`). Each API page renders the package and its modules, so every such name
would be documented twice; instead the package's docstring ends with a line of links to where each
re-exported name is documented, and its module documents it once.
"""

from __future__ import annotations

import griffe


class PackageExports(griffe.Extension):
    """Replace a package's re-exports of its own modules' names by a line of links to them."""

    def on_package(self, *, pkg: griffe.Module, **kwargs) -> None:
        for module in _packages(pkg):
            exports = [m for m in module.members.values()
                       if m.is_alias and m.is_public and m.target_path.startswith(module.path + ".")]
            if not exports:
                continue
            for alias in exports:
                del module.members[alias.name]
            links = ", ".join(_link(a) for a in sorted(exports, key=lambda a: a.name.lower()))
            line = f"Exported here: {links}."
            if module.docstring is None:
                module.docstring = griffe.Docstring(line, parent=module)
            else:
                module.docstring.value = f"{module.docstring.value}\n\n{line}"


def _link(alias: griffe.Alias) -> str:
    """A link where the name is documented; an undocumented one (not rendered) as its full path."""
    if alias.target.has_docstrings:
        return f"[`{alias.name}`][{alias.target_path}]"
    return f"`{alias.name}` (`{alias.target_path}`)"


def _packages(module: griffe.Module):
    yield module
    for sub in module.modules.values():
        if not sub.is_alias and sub.is_package or sub.is_subpackage:
            yield from _packages(sub)
