"""The labelling web app (FastAPI): three pages (label, tasks, and chat from `chat.py`), their own
scripts and styles, a JSON API over `LabelSession`, frames as PNG, and the set's files, nothing from
outside its folder.

Every page asset comes from `mineclip/label/static/`; the Content-Security-Policy allows nothing
else. Bound to 127.0.0.1, the app also refuses requests for another host name (DNS rebinding).
"""

from __future__ import annotations

import socket
from pathlib import Path

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, StrictFloat, StrictInt, StrictStr
from starlette.middleware.trustedhost import TrustedHostMiddleware

from .chat import add_chat_routes, chat_room_for
from .files import OutsideSetError, inside
from .session import LabelSession

STATIC = Path(__file__).resolve().parent / "static"
LOCAL_HOSTS = ["127.0.0.1", "localhost"]
HEADERS = {"Content-Security-Policy": "default-src 'self'; img-src 'self' blob: data:; object-src 'none'; "
                                      "frame-ancestors 'none'; base-uri 'none'",
           "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}


class LabelRequest(BaseModel):
    """POST /api/labels: one decision on one trajectory."""

    model_config = ConfigDict(extra="forbid")
    id: StrictStr
    decision: StrictStr
    labeller: StrictStr
    client: StrictStr = ""


class RatingRequest(BaseModel):
    """POST /api/ratings: one person's difficulty scores (0-5) for one task."""

    model_config = ConfigDict(extra="forbid")
    task_id: StrictStr
    rater: StrictStr
    intricacy: StrictInt | StrictFloat
    creativity: StrictInt | StrictFloat
    novelty: StrictInt | StrictFloat


def create_app(session: LabelSession, local: bool = True) -> FastAPI:
    """The app over a session; `local`: accept only requests addressed to 127.0.0.1 / localhost."""
    app = FastAPI(title="mineclip label", docs_url=None, redoc_url=None, openapi_url=None)
    if local:
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=LOCAL_HOSTS)

    @app.middleware("http")
    async def security_headers(request: Request, call_next):
        response = await call_next(request)
        response.headers.update(HEADERS)
        return response

    @app.exception_handler(ValueError)  # LabelError, bad rating scores: the request changed nothing
    async def bad_request(request: Request, exc: ValueError):
        return JSONResponse({"detail": str(exc)}, status_code=400)

    @app.exception_handler(KeyError)
    async def not_found(request: Request, exc: KeyError):
        return JSONResponse({"detail": str(exc.args[0] if exc.args else exc)}, status_code=404)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    def label_page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/tasks", include_in_schema=False)
    def tasks_page() -> FileResponse:
        return FileResponse(STATIC / "tasks.html")

    @app.get("/api/session")
    def get_session(labeller: str | None = None) -> dict:
        s = session
        return {"set": str(s.set.source), "labels": str(s.store.out), "history": str(s.store.history),
                "total": len(s.set.items), "order": s.order_name,
                "judge": s.judge.artifact if s.judge else None,
                "problems": [str(p) for p in s.set.problems], "items": s.items_for(labeller),
                "progress": s.progress(labeller)}

    @app.get("/api/items/{index}")
    def get_item(index: int, labeller: str | None = None) -> dict:
        try:
            return session.item(index, labeller)
        except KeyError:
            raise
        except ValueError as e:  # an unreadable video: say why
            raise HTTPException(422, f"cannot show item {index}: {e}") from e

    @app.get("/api/items/{index}/frames/{k}.png")
    def get_frame(index: int, k: int) -> Response:
        try:
            png = session.frame_png(index, k)
        except KeyError:
            raise
        except ValueError as e:
            raise HTTPException(422, f"cannot decode item {index}: {e}") from e
        return Response(png, media_type="image/png", headers={"Cache-Control": "private, max-age=600"})

    @app.get("/files/{path:path}")
    def get_file(path: str) -> FileResponse:
        try:
            target = inside(session.set.root, path)
        except OutsideSetError as e:
            raise HTTPException(403, f"refused: {e}") from e
        if not target.is_file():
            raise HTTPException(404, f"no such file in the set: {path}")
        return FileResponse(target)

    @app.post("/api/labels")
    def post_label(req: LabelRequest) -> dict:
        return session.label(req.id, req.decision, req.labeller, req.client)

    @app.get("/api/progress")
    def get_progress(labeller: str | None = None) -> dict:
        return session.progress(labeller)

    @app.get("/api/tasks")
    def get_tasks(labeller: str | None = None) -> dict:
        return session.tasks(labeller)

    @app.post("/api/ratings")
    def post_rating(req: RatingRequest) -> dict:
        scores = {"intricacy": req.intricacy, "creativity": req.creativity, "novelty": req.novelty}
        return {"saved": session.rate(req.task_id, req.rater, scores), "tasks": session.tasks(req.rater)}

    add_chat_routes(app, chat_room_for(session))  # /chat: talk to the assistant (mineclip.assist)
    return app


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port (port 0: any free port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        raise OSError(f"cannot listen on {host}:{port}: {e.strerror or e} (try another --port)") from e
    sock.listen(64)
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"
