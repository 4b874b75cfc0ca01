// The chat page: start a chat in a fresh world, send messages, show the replies, what was done and the scene.
"use strict";

const C = {chat: null, busy: false};
const byId = (id) => document.getElementById(id);

function say(who, text, cls) {
  const li = document.createElement("li");
  li.className = `${who} ${cls || ""}`.trim();
  li.textContent = text;
  byId("log").append(li);
  li.scrollIntoView({block: "nearest"});
  return li;
}

function showScene(view, turn) {
  byId("view").textContent = view || "";
  const img = byId("scene");
  img.removeAttribute("data-loaded");
  img.onload = () => img.setAttribute("data-loaded", String(turn));
  img.src = `/api/chat/${C.chat}/scene.png?turn=${turn}`;
}

function describeTasks(tasks) {
  if (!tasks || !tasks.length) return "-";
  const names = [];
  const walk = (t) => { names.push(`${t.label} (${t.status})`); (t.subtasks || []).forEach(walk); };
  tasks.forEach(walk);
  return names.join("; ");
}

function showOutcome(out) {
  byId("parsed").textContent = out.action_dict ? JSON.stringify(out.action_dict) : "(refused before parsing)";
  byId("task-list").textContent = describeTasks(out.tasks);
  byId("steps").textContent = String(out.steps);
  const gt = out.ground_truth || {};
  byId("truth").textContent = gt.success === null || gt.success === undefined ? (gt.why || "-")
    : `${gt.success ? "success" : "failure"}: ${gt.why}`;
  // the judge is reported as a score beside the ground truth, never as a verdict (docs/assist.md, Checking)
  const j = out.judge || {};
  byId("judge").textContent = j.score === null || j.score === undefined ? (j.skipped || "-")
    : `score ${Number(j.score).toPrecision(3)} (threshold ${Number(j.threshold).toPrecision(3)}; a score, not a verdict)`;
  showStack(out.stack);
}

function showStack(stack) {
  // what waits, newest first: questions to answer, commands running or interrupted
  const list = byId("stack");
  list.replaceChildren();
  (stack || []).forEach((e) => {
    const li = document.createElement("li");
    li.className = e.kind;
    li.textContent = e.kind === "question" ? `question about '${e.text}': ${e.question}`
      : `command '${e.text}' (${e.status})`;
    list.append(li);
  });
  if (!list.children.length) {
    const li = document.createElement("li");
    li.textContent = "empty";
    list.append(li);
  }
}

function setBusy(busy) {
  C.busy = busy;
  byId("send").disabled = busy || !C.chat;
  byId("message").disabled = busy || !C.chat;
  byId("new-world").disabled = busy;
  document.body.setAttribute("data-busy", busy ? "1" : "0");
}

async function newWorld(ev) {
  ev.preventDefault();
  if (C.busy) return;
  const raw = byId("world-seed").value.trim();
  setBusy(true);
  showError("");
  try {
    const d = await api("/api/chat", {world_seed: raw === "" ? null : Number(raw), view: byId("view-kind").value});
    C.chat = d.chat;
    C.turn = 0;
    byId("log").replaceChildren();
    byId("world-info").textContent = `world ${d.world_seed}, ${d.world_view.replace("_", " ")} view, empty inventory; `
      + `judge ${d.judge ? "on" : "off"}`
      + (d.recording ? `; recorded to ${d.recording}` : "");
    byId("world-seed").value = String(d.world_seed);
    say("bot", `A fresh world (seed ${d.world_seed}). What should I do?`);
    showScene(d.view, 0);
    showStack([]);
    document.body.setAttribute("data-chat", d.chat);
  } catch (e) {
    showError(`Could not start a chat: ${e.message}`);
  } finally {
    setBusy(false);
    byId("message").focus();
  }
}

async function send(ev) {
  ev.preventDefault();
  if (C.busy || !C.chat) return;
  const input = byId("message");
  const text = input.value;
  say("you", text === "" ? "(empty message)" : text);
  input.value = "";
  const waiting = say("bot", "working...", "pending");
  setBusy(true);
  showError("");
  try {
    const out = await api(`/api/chat/${C.chat}/messages`, {text: text});
    waiting.remove();
    const done = out.tasks && out.tasks.length && !out.pending;
    say("bot", out.reply, done ? (out.success ? "ok" : "failed") : (out.clarification ? "question" : ""));
    showOutcome(out);
    C.turn = out.turn;
    showScene(out.view, out.turn);
    document.body.setAttribute("data-turn", String(out.turn));
  } catch (e) {
    waiting.remove();
    showError(`The message was not answered: ${e.message}`);
  } finally {
    setBusy(false);
    input.focus();
  }
}

document.addEventListener("DOMContentLoaded", () => {
  byId("world-form").addEventListener("submit", newWorld);
  byId("message-form").addEventListener("submit", send);
  document.body.setAttribute("data-ready", "1");
});
