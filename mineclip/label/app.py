"""The labelling web app (FastAPI): three pages (label, tasks, and chat from `chat.py`), their own
scripts and styles, a JSON API over `LabelSession`, frames as PNG, and the set's media files, nothing
else from its folder.

Every page asset comes from `mineclip/label/static/`; the Content-Security-Policy allows nothing
else. `RequestGuard` refuses, before any route runs: a request addressed to another host name when
the app listens on a loopback address (DNS rebinding); a state-changing request (POST) that is not
`application/json`, or comes from another site (its Origin or Sec-Fetch-Site says so); and a body
over `MAX_BODY` bytes. Deliberate refusals are 4xx; anything else that goes wrong is a 500 that says
it is an internal error. Nothing the API returns holds an absolute path.
"""

from __future__ import annotations

import ipaddress
import json
import socket
from pathlib import Path, PurePosixPath

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, StrictFloat, StrictInt, StrictStr

from mineclip.evaluate.trajectories import MediaError

from .chat import add_chat_routes, chat_room_for
from .files import OutsideSetError, inside
from .session import LabelSession
from .storage import LabelError, NotFoundError

STATIC = Path(__file__).resolve().parent / "static"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
MAX_BODY = 1 << 20  # bytes a request body may hold (the longest, a chat message, is at most ~600 KB as JSON)
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
FRAME_SUFFIXES = (".png", ".jpg", ".jpeg")
HEADERS = {"Content-Security-Policy": "default-src 'self'; img-src 'self' blob: data:; object-src 'none'; "
                                      "frame-ancestors 'none'; base-uri 'none'",
           "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}


def allowed_hosts(bound: str) -> tuple[str, ...] | None:
    """The host names the app answers when listening on `bound` (the address the socket has): only
    loopback names for a loopback address, whatever name was asked for; None (any) otherwise."""
    try:
        address = ipaddress.ip_address(bound.strip("[]").split("%")[0])
    except ValueError:  # a name: bind() listens on what it resolves to; serve() passes the address
        return LOOPBACK_NAMES if bound == "localhost" else None
    return tuple(dict.fromkeys((*LOOPBACK_NAMES, str(address)))) if address.is_loopback else None


def host_name(header: str) -> str:
    """The name of a Host header, without its port: 'localhost:8765' -> 'localhost', '[::1]:80' -> '::1'."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class RequestGuard:
    """ASGI middleware: the refusals of the module docstring, each a JSON {"detail"} that says why."""

    def __init__(self, app, hosts: tuple[str, ...] | None, max_body: int = MAX_BODY):
        self.app, self.hosts, self.max_body = app, hosts, max_body

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        if self.hosts is not None and host_name(host) not in self.hosts:
            return await _refuse(send, 400, f"refused: this server answers requests addressed to "
                                            f"{', '.join(self.hosts)} only, not {host_name(host)!r}")
        if scope["method"] not in SAFE_METHODS:
            why = _foreign(headers, host)
            if why:
                return await _refuse(send, 403, f"refused: {why}")
            media = headers.get("content-type", "").split(";")[0].strip().lower()
            if media != "application/json":
                return await _refuse(send, 415, f"refused: expected Content-Type application/json, got "
                                                f"{media or 'none'}")
            body = await _read_body(receive, self.max_body)
            if body is None:
                return await _refuse(send, 413, f"refused: a request body may hold at most {self.max_body} bytes")
            receive = _replay(body)
        return await self.app(scope, receive, send)


def _foreign(headers: dict[str, str], host: str) -> str | None:
    """Why a state-changing request comes from another site (None: from this app's own pages, or from
    a client that is not a browser)."""
    site = headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return f"a request from another site (Sec-Fetch-Site: {site})"
    origin = headers.get("origin")
    if origin is not None and origin.lower() not in (f"http://{host}".lower(), f"https://{host}".lower()):
        return f"a request from another origin ({origin})"
    return None


async def _read_body(receive, limit: int) -> bytes | None:
    """The whole request body, or None as soon as it passes `limit` bytes."""
    chunks, size, more = [], 0, True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        more = message.get("more_body", False)
    return b"".join(chunks)


def _replay(body: bytes):
    sent = False

    async def receive():
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


async def _refuse(send, status: int, detail: str) -> None:
    payload = json.dumps({"detail": detail}).encode("utf-8")
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
    headers += [(k.lower().encode(), v.encode()) for k, v in HEADERS.items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})


class Redactor:
    """Text the API returns, with the set's, the labels' and the home folder written relative
    ('<set>/videos/a.mp4', '<labels>/...', '~/...'): no absolute path of this machine leaves it."""

    def __init__(self, session: LabelSession):
        names: dict[str, str] = {}  # path -> name; the set's name where the labels sit in its folder
        for path, name in ((session.set.root, "<set>"), (session.store.out.parent, "<labels>"), (Path.home(), "~")):
            for p in (str(path), str(Path(path).resolve())):
                names.setdefault(p, name)
        self.roots = sorted(names.items(), key=lambda r: -len(r[0]))  # the longest (innermost) first

    def __call__(self, text: str) -> str:
        for root, name in self.roots:
            if root not in ("/", ""):
                text = text.replace(root, name)
        return text


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


def create_app(session: LabelSession, bound: str = "127.0.0.1", max_body: int = MAX_BODY) -> FastAPI:
    """The app over a session, for a server listening on the address `bound` (see `allowed_hosts`)."""
    app = FastAPI(title="mineclip label", docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(RequestGuard, hosts=allowed_hosts(bound), max_body=max_body)
    redact = Redactor(session)
    media = media_of(session)

    @app.middleware("http")
    async def security_headers(request: Request, call_next):
        response = await call_next(request)
        response.headers.update(HEADERS)
        return response

    @app.exception_handler(LabelError)  # a label, name, rating or task refused: the request changed nothing
    async def bad_request(request: Request, exc: LabelError):
        return JSONResponse({"detail": redact(str(exc))}, status_code=400)

    @app.exception_handler(NotFoundError)
    async def not_found(request: Request, exc: NotFoundError):
        return JSONResponse({"detail": redact(str(exc.args[0] if exc.args else exc))}, status_code=404)

    @app.exception_handler(Exception)  # a fault of the server, not of the request: said as such
    async def internal_error(request: Request, exc: Exception):  # the server's log gets the traceback
        return JSONResponse({"detail": f"internal error of the labelling server ({type(exc).__name__}: "
                                       f"{redact(str(exc))}); its log has the details"}, status_code=500)

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
        items = s.items_for(labeller)
        for it in items:
            it["error"] = redact(it["error"]) if it["error"] else None
        return {"set": s.set.source.name, "labels": s.store.out.name, "history": s.store.history.name,
                "total": len(s.set.items), "order": s.order_name,
                "judge": Path(s.judge.artifact).name if s.judge else None,
                "problems": [redact(str(p)) for p in s.set.problems], "items": items,
                "progress": s.progress(labeller)}

    @app.get("/api/items/{index}")
    def get_item(index: int, labeller: str | None = None) -> dict:
        try:
            return session.item(index, labeller)
        except MediaError as e:  # an unreadable video, or one over the caps: say why
            raise HTTPException(422, f"cannot show item {index}: {redact(str(e))}") from e

    @app.get("/api/items/{index}/frames/{k}.png")
    def get_frame(index: int, k: int) -> Response:
        try:
            png = session.frame_png(index, k)
        except MediaError as e:
            raise HTTPException(422, f"cannot decode item {index}: {redact(str(e))}") from e
        return Response(png, media_type="image/png", headers={"Cache-Control": "private, max-age=600"})

    @app.get("/files/{path:path}")
    def get_file(path: str) -> FileResponse:
        try:
            target = inside(session.set.root, path)
        except OutsideSetError as e:
            raise HTTPException(403, f"refused: {redact(str(e))}") from e
        if not media.serves(path) or not target.is_file():
            raise HTTPException(404, f"not a media file of the set: {path}")
        return FileResponse(target)

    @app.post("/api/labels")
    def post_label(req: LabelRequest) -> dict:
        return session.label(req.id, req.decision, req.labeller, req.client)

    @app.get("/api/progress")
    def get_progress(labeller: str | None = None) -> dict:
        return session.progress(labeller)

    def tasks(labeller: str | None) -> dict:
        out = session.tasks(labeller)
        return {**out, "ratings_file": redact(out["ratings_file"])}

    @app.get("/api/tasks")
    def get_tasks(labeller: str | None = None) -> dict:
        return tasks(labeller)

    @app.post("/api/ratings")
    def post_rating(req: RatingRequest) -> dict:
        scores = {"intricacy": req.intricacy, "creativity": req.creativity, "novelty": req.novelty}
        return {"saved": session.rate(req.task_id, req.rater, scores), "tasks": tasks(req.rater)}

    add_chat_routes(app, chat_room_for(session))  # /chat: talk to the assistant (mineclip.assist)
    return app


class SetMedia:
    """The files `/files` serves: the videos the set lists, and the images in the frame folders it lists."""

    def __init__(self, videos: set[str], frame_folders: set[str]):
        self.videos, self.frame_folders = videos, frame_folders

    def serves(self, path: str) -> bool:
        pure = PurePosixPath(path)
        return pure.as_posix() in self.videos or (
            pure.suffix.lower() in FRAME_SUFFIXES and pure.parent.as_posix() in self.frame_folders)


def media_of(session: LabelSession) -> SetMedia:
    root = session.set.root
    folders = {it.media for it in session.set.items if (root / it.media).is_dir()}
    return SetMedia({it.media for it in session.set.items} - folders, folders)


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
