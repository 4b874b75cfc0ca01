// The tasks page: counts per task, and the rating mode (intricacy, creativity, novelty, 0-5).
"use strict";

const T = {name: "", dims: []};
const byId = (id) => document.getElementById(id);

function cell(text) {
  const td = document.createElement("td");
  td.textContent = text;
  return td;
}

function fmt(v) { return v === null || v === undefined ? "-" : Number(v).toFixed(1); }

function scoreSelect(task, dim, value) {
  const sel = document.createElement("select");
  sel.setAttribute("aria-label", `${dim} of ${task}`);
  sel.dataset.dim = dim;
  for (const v of ["", "0", "1", "2", "3", "4", "5"]) {
    const o = document.createElement("option");
    o.value = v;
    o.textContent = v === "" ? "-" : v;
    sel.append(o);
  }
  sel.value = value === null || value === undefined ? "" : String(Math.round(value));
  return sel;
}

function render(data) {
  T.dims = data.dimensions;
  byId("ratings-file").textContent = data.ratings_file;
  byId("task-rows").replaceChildren(...data.tasks.map((t) => {
    const tr = document.createElement("tr");
    tr.append(cell(t.task), cell(t.prompt), cell(t.total), cell(t.labelled), cell(`${t.unsure} / ${t.skipped}`),
              cell(t.people), cell(`${t.successes} / ${t.failures}`));
    return tr;
  }));
  byId("rating-rows").replaceChildren(...data.tasks.map((t) => {
    const tr = document.createElement("tr");
    const mean = t.rating ? T.dims.map((d) => fmt(t.rating[d])).join(" / ") + ` (${t.raters})` : "-";
    tr.append(cell(t.task), cell(mean));
    const selects = T.dims.map((d) => scoreSelect(t.task, d, t.my_rating ? t.my_rating[d] : null));
    for (const s of selects) {
      const td = document.createElement("td");
      td.append(s);
      tr.append(td);
    }
    const td = document.createElement("td");
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = `Save rating for ${t.task}`;
    b.addEventListener("click", () => save(t.task, selects));
    td.append(b);
    tr.append(td);
    return tr;
  }));
}

async function save(task, selects) {
  const body = {task_id: task, rater: T.name};
  for (const s of selects) {
    if (s.value === "") { showError(`give ${s.dataset.dim} of ${task} a score from 0 to 5`); return; }
    body[s.dataset.dim] = Number(s.value);
  }
  try {
    const res = await api("/api/ratings", body);
    showError("");
    render(res.tasks);
    toast(`rating of ${task} saved`);
  } catch (e) {
    showError(`not saved: ${e.message}`);
  }
}

async function load(name) {
  T.name = name;
  byId("labeller-name").textContent = name;
  try {
    render(await api(`/api/tasks?labeller=${encodeURIComponent(name)}`));
  } catch (e) {
    showError(e.message);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  byId("change-name").addEventListener("click", async () => load(await askName(true)));
  askName(false).then(load);
});
