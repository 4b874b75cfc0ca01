// The labelling page: play a trajectory frame by frame on a canvas, take a decision by button or
// key, and move on to the next trajectory without a label. Every decision is POSTed at once; the
// server keeps it (append-only) before answering.
"use strict";

const SPEEDS = [0.5, 1, 2, 4];
const CLIENT = (window.crypto && crypto.randomUUID) ? crypto.randomUUID()
  : Math.random().toString(36).slice(2) + Date.now().toString(36);
const S = {name: "", items: [], pos: 0, item: null, frames: [], k: 0, playing: false, timer: null,
           speed: 1, token: 0, session: null};
const $ = (id) => document.getElementById(id);

function decisionText(d) {
  return d ? d.charAt(0).toUpperCase() + d.slice(1) : "none yet";
}

// -- player ---------------------------------------------------------------------------------------
function draw(k) {
  if (!S.frames.length) return;
  S.k = Math.max(0, Math.min(k, S.frames.length - 1));
  const c = $("screen"), ctx = c.getContext("2d");
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(S.frames[S.k], 0, 0, c.width, c.height);
  $("scrub").value = S.k;
  $("frame-counter").textContent = `frame ${S.k + 1} / ${S.frames.length}`;
}

function tick() {
  if (!S.playing) return;
  let next = S.k + 1;
  if (next >= S.frames.length) {
    if ($("loop").checked) next = 0; else { setPlaying(false); return; }
  }
  draw(next);
  schedule();
}

function schedule() {
  clearTimeout(S.timer);
  const fps = (S.item && S.item.fps) || 8;
  S.timer = setTimeout(tick, 1000 / (fps * S.speed));
}

function setPlaying(on) {
  S.playing = on && S.frames.length > 1;
  $("play").textContent = S.playing ? "Pause" : "Play";
  if (S.playing) {
    if (S.k >= S.frames.length - 1 && !$("loop").checked) draw(0);
    schedule();
  } else clearTimeout(S.timer);
}

function step(delta) { setPlaying(false); draw(S.k + delta); }

function setSpeed(v) {
  S.speed = v;
  $("speed").value = String(v);
}

function loadImage(url) {
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => resolve(img);
    img.onerror = () => reject(new Error(`cannot load ${url}`));
    img.src = url;
  });
}

// -- items ----------------------------------------------------------------------------------------
async function show(pos) {
  if (!S.items.length) return;
  S.pos = (pos + S.items.length) % S.items.length;
  const entry = S.items[S.pos], token = ++S.token;
  setPlaying(false);
  S.frames = [];
  showError("");
  $("position").textContent = `${S.pos + 1} of ${S.items.length}`;
  $("traj-id").textContent = entry.id;
  $("task").textContent = entry.task;
  $("prompt").textContent = entry.prompt;
  renderDecision(entry.decision, null);
  history.replaceState(null, "", `#${encodeURIComponent(entry.id)}`);
  try {
    const item = await api(`/api/items/${entry.index}?labeller=${encodeURIComponent(S.name)}`);
    if (token !== S.token) return;
    S.item = item;
    renderDecision(item.decision, item.history);
    const original = $("original");
    original.hidden = !/\.(mp4|webm|mkv|mov|gif|avi|m4v)$/i.test(item.media);
    original.href = "/files/" + item.media.split("/").map(encodeURIComponent).join("/");
    const c = $("screen");
    c.width = item.width * Math.max(1, Math.floor(512 / item.width));
    c.height = item.height * Math.max(1, Math.floor(512 / item.width));
    const urls = Array.from({length: item.frames}, (_, k) => `/api/items/${entry.index}/frames/${k}.png`);
    const frames = await Promise.all(urls.map(loadImage));
    if (token !== S.token) return;
    S.frames = frames;
    $("scrub").max = frames.length - 1;
    draw(0);
    setPlaying(true);
    document.body.dataset.ready = entry.id;  // for tests and screenshots: this item is on screen
  } catch (e) {
    if (token === S.token) showError(e.message);
  }
}

function renderDecision(decision, hist) {
  $("current-decision").textContent = decisionText(decision);
  $("current-decision").className = decision ? `tag ${decision}` : "";
  for (const b of document.querySelectorAll("button.decision")) {
    b.setAttribute("aria-pressed", String(b.dataset.decision === decision));
  }
  const n = hist ? hist.length : 0;
  $("changed").textContent = n > 1 ? `(${n} decisions given; the latest counts)` : "";
}

function nextOpen(from) {
  for (let i = 1; i <= S.items.length; i++) {
    const j = (from + i) % S.items.length;
    if (!S.items[j].decision) return j;
  }
  return -1;
}

async function decide(decision) {
  const entry = S.items[S.pos];
  if (!entry || !S.name) return;
  try {
    const res = await api("/api/labels", {id: entry.id, decision, labeller: S.name, client: CLIENT});
    entry.decision = decision;
    renderProgress(res.progress);
    toast(`${decisionText(decision)}: ${entry.id}`);
    const next = nextOpen(S.pos);
    if (next < 0) {
      renderDecision(decision, null);
      finished();
    } else show(next);
  } catch (e) {
    showError(`not saved: ${e.message}`);
  }
}

function finished() {
  const open = S.items.filter((it) => it.decision === "skip" || it.decision === "unsure").length;
  const done = $("done");
  done.hidden = false;
  done.textContent = `Every trajectory has a decision from you.` +
    (open ? ` ${open} are marked unsure or skipped: go back to them with the arrows.` : "");
}

// -- progress and estimate ------------------------------------------------------------------------
function renderProgress(p) {
  $("progress-total").textContent =
    `labelled ${p.labelled} of ${p.total} by you (${p.unsure} unsure, ${p.skipped} skipped); ` +
    `${p.people} labelled by anyone`;
  $("progress-bar").style.width = `${p.total ? (100 * p.labelled) / p.total : 0}%`;
  const body = $("progress-tasks");
  body.replaceChildren(...p.tasks.map((t) => {
    const tr = document.createElement("tr");
    for (const text of [t.task, `${t.labelled} / ${t.total}`, `${t.people} / ${t.total}`]) {
      const td = document.createElement("td");
      td.textContent = text;
      tr.append(td);
    }
    return tr;
  }));
  $("done").hidden = p.labelled + p.unsure + p.skipped < p.total;
  const e = p.estimate;
  $("estimate-text").textContent = e
    ? `Judge's mean F1 against people: ${pct(e.estimate)} (${Math.round(100 * e.level)}% interval ` +
      `${pct(e.low)}-${pct(e.high)}), from ${e.labelled} of ${e.total} trajectories labelled by people.`
    : "Start `mineclip label` with --model ARTIFACT to see the judge's F1 against your labels.";
}

// -- wiring ---------------------------------------------------------------------------------------
function onKey(ev) {
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const tag = (ev.target && ev.target.tagName) || "";
  const typing = ["INPUT", "SELECT", "TEXTAREA"].includes(tag) && !["checkbox", "range"].includes(ev.target.type);
  if (typing) return;
  if ($("name-dialog").open) return;
  const k = ev.key;
  const decisions = {s: "success", 1: "success", f: "failure", 2: "failure", u: "unsure", 3: "unsure",
                     k: "skip", 4: "skip"};
  const lower = k.length === 1 ? k.toLowerCase() : k;
  if (decisions[lower]) decide(decisions[lower]);
  else if (k === " ") setPlaying(!S.playing);
  else if (k === "ArrowLeft") step(-1);
  else if (k === "ArrowRight") step(1);
  else if (k === "[") setSpeed(SPEEDS[Math.max(0, SPEEDS.indexOf(S.speed) - 1)]);
  else if (k === "]") setSpeed(SPEEDS[Math.min(SPEEDS.length - 1, SPEEDS.indexOf(S.speed) + 1)]);
  else if (lower === "l") $("loop").checked = !$("loop").checked;
  else if (lower === "p") show(S.pos - 1);
  else if (lower === "n") show(S.pos + 1);
  else if (lower === "o") { const j = nextOpen(S.pos); if (j >= 0) show(j); }
  else return;
  ev.preventDefault();
}

async function start(name) {
  S.name = name;
  $("labeller-name").textContent = name;
  const s = await api(`/api/session?labeller=${encodeURIComponent(name)}`);
  S.session = s;
  S.items = s.items;
  if (s.problems.length) {
    const box = $("problems");
    box.hidden = false;
    box.textContent = `${s.problems.length} line(s) of the set were skipped: ${s.problems.slice(0, 5).join("; ")}` +
      (s.problems.length > 5 ? "; ..." : "");
  }
  $("order-text").textContent = {
    judge: "Order: the trajectories the judge is least sure about come first.",
    set: "Order: as in the set.",
    random: "Order: shuffled (an even sample of the set).",
  }[s.order] || "";
  renderProgress(s.progress);
  const wanted = decodeURIComponent(location.hash.slice(1));
  let pos = S.items.findIndex((it) => it.id === wanted);
  if (pos < 0) pos = S.items.findIndex((it) => !it.decision);
  if (pos < 0) { pos = 0; finished(); }
  show(pos);
}

document.addEventListener("DOMContentLoaded", () => {
  $("play").addEventListener("click", () => setPlaying(!S.playing));
  $("frame-back").addEventListener("click", () => step(-1));
  $("frame-fwd").addEventListener("click", () => step(1));
  $("speed").addEventListener("change", (ev) => setSpeed(Number(ev.target.value)));
  $("scrub").addEventListener("input", (ev) => { setPlaying(false); draw(Number(ev.target.value)); });
  for (const b of document.querySelectorAll("button.decision")) {
    b.addEventListener("click", () => decide(b.dataset.decision));
  }
  $("prev-item").addEventListener("click", () => show(S.pos - 1));
  $("next-item").addEventListener("click", () => show(S.pos + 1));
  $("next-open").addEventListener("click", () => { const j = nextOpen(S.pos); if (j >= 0) show(j); });
  $("change-name").addEventListener("click", async () => start(await askName(true)));
  document.addEventListener("keydown", onKey);
  askName(false).then(start).catch((e) => showError(e.message));
});
