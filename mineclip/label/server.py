"""Start a labelling session: read the set, open the label store, score the set with the judge when
an artifact is given, and serve the app with uvicorn until interrupted."""

from __future__ import annotations

import sys
from pathlib import Path

from .active import judge_view
from .app import allowed_hosts, bind, create_app, url_of
from .items import read_set
from .session import LabelSession, LabelSettings
from .storage import LabelStore


def open_session(s: LabelSettings) -> LabelSession:
    """The session `serve` serves: set, store (resumed from its history), judge's view, ratings file."""
    label_set = read_set(s.set, s.prompt)
    for p in label_set.problems:
        print(f"skipped {p}", file=sys.stderr)
    if not label_set.items:
        raise ValueError(f"nothing to label in {s.set} ({len(label_set.problems)} line(s) skipped)")
    store = LabelStore(s.labels, label_set)
    judge = None
    if s.model:
        cache = store.out.with_name(store.out.stem + ".scores.json")
        judge = judge_view(label_set, s.model, s.negatives, s.mode, cache, s.progress)
    return LabelSession(label_set, store, judge, s.ratings, s.order)


def serve(s: LabelSettings) -> int:
    """Serve the labelling app for `s` (prints the URL first); returns when interrupted."""
    import uvicorn

    session = open_session(s)
    host = s.host or "127.0.0.1"
    sock = bind(host, s.port)
    url = url_of(sock)
    people = len({e["labeller"] for e in session.store.entries()})
    people = f"{people} {'person' if people == 1 else 'people'}"
    print(f"labelling {len(session.set.items)} trajectories of {session.set.source}"
          f" ({len(session.set.problems)} skipped); labels: {session.store.out}"
          f" (history: {session.store.history.name}, {len(session.store.entries())} decisions by {people})")
    if session.order_name == "judge":
        print(f"order: the judge's least sure first ({Path(session.judge.artifact).name})")
    else:
        print(f"order: {'as in the set' if session.order_name == 'set' else 'shuffled'}")
    bound = sock.getsockname()[0]  # what the socket listens on, whatever name --host gave
    if allowed_hosts(bound) is None:
        print(f"listening on {host} (--host): anyone who can reach this address can see the set and add labels")
    print(f"open {url} in a browser (Ctrl-C stops)", flush=True)
    server = uvicorn.Server(uvicorn.Config(create_app(session, bound=bound), log_level="warning"))
    server.run(sockets=[sock])
    return 0
