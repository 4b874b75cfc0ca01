"""The chat page of the labelling app (`/chat`): talk to the assistant (`mineclip.assist`) in a fresh
crafter world of a chosen seed, see its replies, what it did (ground truth and the judge) and the
scene after each message.

Each chat is an `AssistSession`; the app's artifact (`mineclip label --model`) is the judge. Every
carried-out command is written as a labelled trajectory to `OUT.chat/trajectories.jsonl` beside the
labels (what `mineclip eval` reads, and what this app can label: `mineclip label OUT.chat/...`).
"""

from __future__ import annotations

import io
import threading
import uuid
from collections import OrderedDict
from pathlib import Path
from typing import Literal

from fastapi import FastAPI
from fastapi.responses import FileResponse, Response
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

from mineclip.sim.env import WORLD_SEEDS

from .storage import NotFoundError

STATIC = Path(__file__).resolve().parent / "static"
MAX_CHATS = 4  # chats kept open at once (the oldest is closed beyond)
MAX_TEXT = 100_000  # characters a request may carry (the assistant itself refuses messages over 300)


class NewChatRequest(BaseModel):
    """POST /api/chat: start a chat in a fresh world (no seed: the first 'play' world)."""

    model_config = ConfigDict(extra="forbid")
    world_seed: StrictInt | None = Field(default=None, ge=0, lt=WORLD_SEEDS.stop)
    view: Literal["top", "first_person"] = "top"  # mineclip.sim.view.VIEWS


class MessageRequest(BaseModel):
    """POST /api/chat/{chat}/messages: one message of the person."""

    model_config = ConfigDict(extra="forbid")
    text: StrictStr = Field(max_length=MAX_TEXT)


class ChatRoom:
    """The open chats of the app (at most `max_chats`), each with its own world and lock."""

    def __init__(self, model: str | None = None, record_dir: str | Path | None = None, max_chats: int = MAX_CHATS,
                 max_steps: int = 600):
        self.model, self.record_dir, self.max_chats, self.max_steps = model, record_dir, max_chats, max_steps
        self.chats: OrderedDict[str, tuple[object, threading.Lock]] = OrderedDict()
        self.lock = threading.Lock()
        self._judge = None

    def judge(self):
        """The judge of every chat (loaded once), or None without a model."""
        if self.model is None:
            return None
        with self.lock:
            if self._judge is None:
                from mineclip.assist.judge import CommandJudge

                self._judge = CommandJudge.load(self.model)
            return self._judge

    def new(self, world_seed: int | None, view: str = "top") -> dict:
        """Open a chat in a fresh world seen from `view`; its id, world seed, view and scene."""
        from mineclip.assist.chat import default_world_seed
        from mineclip.assist.session import AssistSession

        seed = default_world_seed() if world_seed is None else world_seed
        session = AssistSession(seed, self.judge(), record_dir=self.record_dir, max_steps=self.max_steps, view=view)
        chat = uuid.uuid4().hex[:12]
        with self.lock:
            self.chats[chat] = (session, threading.Lock())
            while len(self.chats) > self.max_chats:
                _, (old, old_lock) = self.chats.popitem(last=False)
                with old_lock:
                    old.close()
        return {"chat": chat, "world_seed": seed, "view": session.view(), "world_view": view,
                "judge": self.model is not None,
                "recording": f"{Path(self.record_dir).name}/trajectories.jsonl" if self.record_dir else None}

    def _get(self, chat: str):
        with self.lock:
            if chat not in self.chats:
                raise NotFoundError(f"no chat {chat!r} (closed, or the server restarted): start a new one")
            return self.chats[chat]

    def send(self, chat: str, text: str) -> dict:
        """The assistant's answer to one message (what `AssistSession.send` returns)."""
        session, lock = self._get(chat)
        with lock:
            return session.send(text)

    def scene_png(self, chat: str) -> bytes:
        """The chat's latest frame as PNG bytes."""
        from PIL import Image

        session, lock = self._get(chat)
        with lock:
            frame = session.ex.frames[-1]
        buf = io.BytesIO()
        Image.fromarray(frame).save(buf, format="PNG", compress_level=1)
        return buf.getvalue()


def chat_room_for(label_session) -> ChatRoom:
    """The chat room of a labelling session: its artifact judges; chats are recorded beside its labels."""
    judge = getattr(label_session, "judge", None)
    out = label_session.store.out
    return ChatRoom(model=judge.artifact if judge else None, record_dir=out.with_name(out.stem + ".chat"))


def add_chat_routes(app: FastAPI, room: ChatRoom) -> None:
    """Register the chat page and its API on the app."""

    @app.get("/chat", include_in_schema=False)
    def chat_page() -> FileResponse:
        return FileResponse(STATIC / "chat.html")

    @app.post("/api/chat")
    def new_chat(req: NewChatRequest) -> dict:
        return room.new(req.world_seed, req.view)

    @app.post("/api/chat/{chat}/messages")
    def post_message(chat: str, req: MessageRequest) -> dict:
        return room.send(chat, req.text)

    @app.get("/api/chat/{chat}/scene.png")
    def get_scene(chat: str) -> Response:
        return Response(room.scene_png(chat), media_type="image/png", headers={"Cache-Control": "no-store"})
