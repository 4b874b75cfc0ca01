// Shared by the labelling and tasks pages: the labeller's name (asked once, kept in this browser)
// and calls to the app's JSON API.
"use strict";

const NAME_KEY = "mineclip-label-name";
const NAME_PATTERN = /^[\p{L}\p{N}_][\p{L}\p{N}_ .@'-]{0,63}$/u;  // as the server's

function storedName() {
  try { return localStorage.getItem(NAME_KEY) || ""; } catch (e) { return ""; }
}

function storeName(name) {
  try { localStorage.setItem(NAME_KEY, name); } catch (e) { /* private mode: kept for this page only */ }
}

// Ask for the name in the page's dialog; resolves with it. `force`: ask even if one is stored.
function askName(force) {
  const known = storedName();
  if (known && !force) return Promise.resolve(known);
  const dialog = document.getElementById("name-dialog");
  const input = document.getElementById("name-input");
  input.value = known;
  return new Promise((resolve) => {
    const form = document.getElementById("name-form");
    form.onsubmit = (ev) => {
      ev.preventDefault();
      const name = input.value.trim();
      const problem = document.getElementById("name-error");
      if (!NAME_PATTERN.test(name)) {
        problem.textContent = "Use 1-64 letters, digits, spaces or . @ ' - (starting with a letter or digit).";
        problem.hidden = false;
        return;
      }
      problem.hidden = true;
      storeName(name);
      dialog.close();
      resolve(name);
    };
    dialog.showModal();
    input.focus();
  });
}

async function api(path, body) {
  const opts = body === undefined ? {} : {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body),
  };
  const res = await fetch(path, opts);
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) {
    let detail = data && data.detail !== undefined ? data.detail : res.statusText;
    if (Array.isArray(detail)) detail = detail.map((d) => d.msg || JSON.stringify(d)).join("; ");
    throw new Error(`${res.status}: ${detail}`);
  }
  return data;
}

function showError(message) {
  const box = document.getElementById("error");
  if (!box) return;
  box.textContent = message || "";
  box.hidden = !message;
}

function toast(message) {
  const t = document.getElementById("toast");
  if (!t) return;
  t.textContent = message;
  t.classList.add("shown");
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => t.classList.remove("shown"), 1600);
}

function pct(v) { return v === null || v === undefined ? "-" : (100 * v).toFixed(1); }
