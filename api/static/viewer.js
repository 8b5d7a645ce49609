// Tabletop's web viewer: lobby, game replay and live view, player profile.
// Generic: it knows API v1, never a game. The board comes rendered by the game's own
// render() from the view the API gives this viewer; event lines are the games' describe().
// The API key stays in sessionStorage and goes out only as an Authorization header.
"use strict";

const KEY = "tabletop-key";
const ENDINGS = new Set(["game_finished", "game_aborted"]);
// the service's own events change who sits where or the status: the header is read again
const LIFECYCLE = new Set(["seat_taken", "seat_left", "seat_forfeited", "timed_out",
  "rematch_offered", "rematch_accepted", "clock_credit", "undo_requested", "undo_accepted",
  "undo_declined", "reverted"]);

function key() { return sessionStorage.getItem(KEY) || ""; }

function headers(extra) {
  const h = Object.assign({ Accept: "application/json" }, extra || {});
  if (key()) h.Authorization = "Bearer " + key();
  return h;
}

async function api(path, extra) {
  const r = await fetch(path, { headers: headers(extra) });
  let body = null;
  try { body = await r.json(); } catch (e) { body = null; }
  if (!r.ok) {
    const err = new Error((body && (body.detail || body.title)) || ("HTTP " + r.status));
    err.status = r.status;
    err.body = body;
    throw err;
  }
  return body;
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

function main() { return document.getElementById("main"); }

function fail(where, error) {
  const box = el("p", { class: "error", role: "alert" }, where + ": " + error.message);
  main().append(box);
}

// ---- sign in ------------------------------------------------------------------------------

function setupSignin(onChange) {
  const form = document.getElementById("signin");
  const input = document.getElementById("key");
  const out = document.getElementById("signout");
  const who = document.getElementById("who");
  function show(text) {
    who.textContent = text;
    out.hidden = !key();
    input.hidden = !!key();
    form.querySelector("button[type=submit]").hidden = !!key();
  }
  show(key() ? "signed in" : "spectator");
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const value = input.value.trim();
    input.value = "";
    if (!value) return;
    sessionStorage.setItem(KEY, value);
    show("signed in");
    onChange();
  });
  out.addEventListener("click", () => {
    sessionStorage.removeItem(KEY);
    show("spectator");
    onChange();
  });
  return show;
}

// ---- lobby and profile ----------------------------------------------------------------------

function gamesTable(caption, games) {
  const table = el("table", { class: "games" }, el("caption", { text: caption }));
  table.append(el("thead", {}, el("tr", {},
    ...["Game", "Status", "Seats", "Version", "Last activity"].map((h) => el("th", { scope: "col", text: h })))));
  const body = el("tbody");
  if (!games.length) body.append(el("tr", {}, el("td", { colspan: 5, text: "none" })));
  for (const g of games) {
    const seats = el("td");
    g.seats.forEach((s, i) => {
      if (i) seats.append("; ");
      const label = "seat " + s.seat + ": ";
      if (s.player) seats.append(label, el("a", { href: "/players/" + encodeURIComponent(s.player), text: s.name || s.player }));
      else seats.append(label + (s.bot ? "bot " + s.bot : "open"));
      if (g.result) seats.append(" (rank " + g.result.ranks[s.seat] + ", " + g.result.scores[s.seat] + ")");
    });
    body.append(el("tr", {},
      el("td", {}, el("a", { href: "/games/" + g.id, text: g.game })),
      el("td", { text: g.status + (g.open_seats && g.open_seats.length ? " (" + g.open_seats.length + " open)" : "") }),
      seats,
      el("td", { text: g.version }),
      el("td", { text: g.last_activity })));
  }
  table.append(body);
  return table;
}

async function lobby() {
  const m = main();
  async function load() {
    m.replaceChildren(el("h1", { text: "Games" }));
    try {
      for (const [status, caption] of [["open", "Open games"], ["active", "Running games"], ["finished", "Recent finished games"]]) {
        const page = await api("/v1/games?status=" + status + "&limit=20");
        m.append(el("section", { class: "lobby", "aria-label": caption }, gamesTable(caption, page.games)));
      }
    } catch (e) { fail("lobby", e); }
  }
  setupSignin(load);
  await load();
}

async function profile() {
  const id = document.body.dataset.player;
  const m = main();
  setupSignin(() => {});
  try {
    const p = await api("/v1/players/" + encodeURIComponent(id));
    document.title = p.name + " - Tabletop";
    m.replaceChildren(el("h1", { text: p.name }), el("p", { text: "Player since " + p.created_at }));
    const t = el("table", { class: "records" }, el("caption", { text: "Games by type" }),
      el("thead", {}, el("tr", {}, ...["Game", "Played", "Finished", "Won"].map((h) => el("th", { scope: "col", text: h })))));
    const b = el("tbody");
    for (const r of p.games) b.append(el("tr", {}, ...[r.game, r.played, r.finished, r.wins].map((x) => el("td", { text: x }))));
    if (!p.games.length) b.append(el("tr", {}, el("td", { colspan: 4, text: "no games yet" })));
    t.append(b);
    m.append(t, gamesTable("Recent games", p.recent.map((r) => r.game)));
  } catch (e) { fail("player", e); }
}

// ---- the game viewer --------------------------------------------------------------------------

const G = {
  id: null, meta: null, events: [], version: 0, last: 0, seat: "", following: true,
  live: null, boardAsked: 0, pendingBoard: null,
};

function finished() { return G.meta && (G.meta.status === "finished" || G.meta.status === "aborted"); }

function perspectiveQuery() {
  return finished() && G.seat !== "" ? "&seat=" + encodeURIComponent(G.seat) : "";
}

function buildGameShell() {
  const m = main();
  m.replaceChildren();
  const title = el("h1", { id: "title", text: "Game" });
  const info = el("p", { id: "info", class: "info" });
  const persp = el("label", { for: "perspective" }, "Seen by ");
  const select = el("select", { id: "perspective" });
  const controls = el("div", { class: "controls", role: "group", "aria-label": "Step through the game" },
    el("button", { id: "first", type: "button", title: "First (Home)", "aria-label": "First version" }, "|<"),
    el("button", { id: "prev", type: "button", title: "Previous (Left arrow)", "aria-label": "Previous version" }, "<"),
    el("button", { id: "next", type: "button", title: "Next (Right arrow)", "aria-label": "Next version" }, ">"),
    el("button", { id: "last", type: "button", title: "Last (End)", "aria-label": "Last version" }, ">|"),
    el("label", { for: "slider", class: "visually-hidden" }, "Version"),
    el("input", { id: "slider", type: "range", min: 1, max: 1, value: 1 }),
    el("span", { class: "version-box" }, "version ", el("output", { id: "version", for: "slider", "aria-live": "polite" }, "0"), " of ", el("span", { id: "lastv" }, "0")),
    el("span", { id: "live", class: "live", role: "status" }));
  const board = el("div", { id: "board", class: "board-wrap" });
  const list = el("ol", { id: "events", class: "events" });
  const audit = el("section", { id: "audit", class: "audit", "aria-label": "Verify", hidden: true });
  m.append(title, info, el("p", { class: "perspective" }, persp, select), controls,
    el("div", { class: "layout" },
      el("section", { class: "board-col", "aria-label": "Board" }, board),
      el("section", { class: "events-col", "aria-label": "Events" }, el("h2", { text: "Events" }), list)),
    audit);
  document.getElementById("first").addEventListener("click", () => go(1));
  document.getElementById("prev").addEventListener("click", () => go(G.version - 1));
  document.getElementById("next").addEventListener("click", () => go(G.version + 1));
  document.getElementById("last").addEventListener("click", () => go(G.last));
  document.getElementById("slider").addEventListener("input", (ev) => go(Number(ev.target.value)));
  select.addEventListener("change", () => { G.seat = select.value; reload(); });
  list.addEventListener("click", (ev) => {
    const item = ev.target.closest("[data-version]");
    if (item) go(Number(item.dataset.version));
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.target.closest("input, select, textarea")) return;
    if (ev.key === "ArrowLeft") { go(G.version - 1); ev.preventDefault(); }
    else if (ev.key === "ArrowRight") { go(G.version + 1); ev.preventDefault(); }
    else if (ev.key === "Home") { go(1); ev.preventDefault(); }
    else if (ev.key === "End") { go(G.last); ev.preventDefault(); }
  });
}

function fillMeta() {
  const g = G.meta;
  document.title = g.game + " " + g.status + " - Tabletop";
  document.getElementById("title").textContent = g.game + " (" + g.status + ")";
  const info = document.getElementById("info");
  info.replaceChildren();
  g.seats.forEach((s, i) => {
    if (i) info.append("; ");
    const label = "seat " + s.seat + ": ";
    if (s.player) info.append(label, el("a", { href: "/players/" + encodeURIComponent(s.player), text: s.name || s.player }));
    else info.append(label + (s.bot ? "bot " + s.bot : "open"));
    if (g.result) info.append(" (rank " + g.result.ranks[s.seat] + ", score " + g.result.scores[s.seat] + ")");
  });
  if (g.your_seat !== null && g.your_seat !== undefined) info.append(" - you hold seat " + g.your_seat);
  const select = document.getElementById("perspective");
  select.replaceChildren();
  if (finished()) {
    select.append(el("option", { value: "", text: "spectator" }));
    g.seats.forEach((s) => select.append(el("option", { value: String(s.seat), text: "seat " + s.seat + (s.name ? " (" + s.name + ")" : "") })));
    select.disabled = false;
    select.value = G.seat;
  } else {
    const mine = g.your_seat !== null && g.your_seat !== undefined;
    select.append(el("option", { value: "", text: mine ? "your seat " + g.your_seat : "spectator (public view)" }));
    select.disabled = true;
    G.seat = "";
  }
}

function eventItem(e) {
  const who = typeof e.seat === "number" ? "seat " + e.seat : e.seat;
  return el("li", { "data-version": e.version },
    el("button", { type: "button", class: "event", "data-version": e.version, title: e.type + " by " + who + " at " + e.at },
      el("span", { class: "v", text: e.version }), " ", el("span", { class: "text", text: e.text || e.type })));
}

function addEvents(events) {
  const list = document.getElementById("events");
  for (const e of events) {
    if (e.version <= G.last && G.events.length) continue;
    G.events.push(e);
    list.append(eventItem(e));
    G.last = Math.max(G.last, e.version);
  }
  const slider = document.getElementById("slider");
  slider.max = String(Math.max(G.last, 1));
  document.getElementById("lastv").textContent = String(G.last);
}

async function loadEvents() {
  G.events = [];
  G.last = 0;
  document.getElementById("events").replaceChildren();
  let after = 0;
  for (;;) {
    const page = await api("/v1/games/" + G.id + "/events?after=" + after + "&limit=10000" + perspectiveQuery());
    addEvents(page.events);
    if (page.events.length < 10000) break;
    after = page.events[page.events.length - 1].version;
  }
}

function markCurrent() {
  const list = document.getElementById("events");
  const old = list.querySelector("li.current");
  if (old) { old.classList.remove("current"); old.querySelector("button").removeAttribute("aria-current"); }
  const item = list.querySelector('li[data-version="' + G.version + '"]');
  if (item) {
    item.classList.add("current");
    item.querySelector("button").setAttribute("aria-current", "step");
    const col = document.querySelector(".events-col"); // scroll the list only, not the page
    const r = item.getBoundingClientRect();
    const c = col.getBoundingClientRect();
    if (r.top < c.top) col.scrollTop -= c.top - r.top;
    else if (r.bottom > c.bottom) col.scrollTop += r.bottom - c.bottom;
  }
}

async function go(version) {
  if (!G.last) return;
  version = Math.max(1, Math.min(G.last, version));
  G.version = version;
  G.following = version === G.last;
  document.getElementById("slider").value = String(version);
  document.getElementById("version").textContent = String(version);
  document.getElementById("first").disabled = version <= 1;
  document.getElementById("prev").disabled = version <= 1;
  document.getElementById("next").disabled = version >= G.last;
  document.getElementById("last").disabled = version >= G.last;
  markCurrent();
  await showBoard(version);
}

async function showBoard(version) {
  const asked = ++G.boardAsked;
  try {
    const out = await api("/games/" + G.id + "/board?version=" + version + perspectiveQuery());
    if (asked !== G.boardAsked) return; // a later step was asked meanwhile
    const board = document.getElementById("board");
    board.innerHTML = out.board; // escaped by the game's renderer on the server
    board.dataset.version = String(out.version);
    board.setAttribute("aria-label", "Board at version " + out.version + " (" + out.status + ")");
    document.body.dataset.shownVersion = String(out.version);
  } catch (e) {
    if (asked === G.boardAsked) document.getElementById("board").replaceChildren(el("p", { class: "error", role: "alert" }, "board: " + e.message));
  }
}

function stopLive() {
  if (G.live) { G.live.abort(); G.live = null; }
  const live = document.getElementById("live");
  if (live) live.textContent = "";
}

async function follow() {
  // fetch-streaming NDJSON (carries the Authorization header, unlike EventSource)
  stopLive();
  if (finished()) return;
  const ctrl = new AbortController();
  G.live = ctrl;
  const status = document.getElementById("live");
  status.textContent = "live";
  document.body.dataset.live = "on";
  let retry = 500;
  while (G.live === ctrl) {
    try {
      const r = await fetch("/v1/games/" + G.id + "/events?follow=true&after=" + G.last,
        { headers: headers({ Accept: "application/x-ndjson" }), signal: ctrl.signal });
      if (!r.ok) throw new Error("HTTP " + r.status);
      const reader = r.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      let ended = false;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let nl;
        const fresh = [];
        while ((nl = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, nl).trim();
          buffer = buffer.slice(nl + 1);
          if (line) fresh.push(JSON.parse(line));
        }
        if (fresh.length) {
          const wasFollowing = G.following;
          addEvents(fresh);
          if (wasFollowing) go(G.last);
          else go(G.version); // keep the place; refresh the buttons
          if (fresh.some((e) => ENDINGS.has(e.type))) ended = true;
          else if (fresh.some((e) => LIFECYCLE.has(e.type))) {
            G.meta = await api("/v1/games/" + G.id);
            fillMeta();
          }
        }
        retry = 500;
      }
      if (ended || G.live !== ctrl) break;
      const meta = await api("/v1/games/" + G.id);
      if (meta.status === "finished" || meta.status === "aborted") { ended = true; break; }
    } catch (e) {
      if (G.live !== ctrl) return;
      status.textContent = "reconnecting";
      await new Promise((res) => setTimeout(res, retry));
      retry = Math.min(retry * 2, 8000);
      status.textContent = "live";
    }
  }
  if (G.live === ctrl) {
    G.live = null;
    status.textContent = "";
    document.body.dataset.live = "off";
    G.meta = await api("/v1/games/" + G.id);
    fillMeta();
    await loadEvents();
    await go(G.last);
    showAudit();
  }
}

const AUDIT_LABELS = [
  ["chain_intact", "Hash chain intact"],
  ["seed_matches_commitment", "Seed matches its commitment"],
  ["reexecuted", "Re-execution identical"],
];

async function showAudit(damaged) {
  const box = document.getElementById("audit");
  if (!finished() && !damaged) { box.hidden = true; return; }
  box.hidden = false;
  const file = "game-" + G.id + ".ndjson";
  box.replaceChildren(el("h2", { text: "Verify" }), el("p", { text: "Checking the log..." }));
  let report = null;
  try { report = await api("/v1/games/" + G.id + "/audit"); } catch (e) {
    box.replaceChildren(el("h2", { text: "Verify" }), el("p", { class: "error", text: "audit: " + e.message }));
    return;
  }
  const list = el("ul", { class: "checks" });
  for (const [k, label] of AUDIT_LABELS) {
    const v = report[k];
    const word = v === true ? "yes" : v === false ? "NO" : "not applicable";
    list.append(el("li", { class: v === false ? "bad" : "ok", "data-check": k }, (v === false ? "\u2717 " : "\u2713 ") + label + ": " + word));
  }
  if (report.first_broken_version !== null) list.append(el("li", { class: "bad" }, "\u2717 First broken version: " + report.first_broken_version));
  if (report.first_divergent_version !== null) list.append(el("li", { class: "bad" }, "\u2717 First divergent version: " + report.first_divergent_version));
  const verdict = el("p", { id: "verdict", class: report.verified ? "verdict ok" : "verdict bad", role: "status" },
    report.verified ? "Verified: " + report.events + " events check out." : "NOT verified" + (report.detail ? ": " + report.detail : "."));
  const download = el("a", { id: "export", href: "/v1/games/" + G.id + "/export", download: file }, "Download the export");
  const cmd = el("p", {}, "Check it yourself: ", el("code", { id: "verify-cmd", text: "tabletop verify " + file }));
  box.replaceChildren(el("h2", { text: "Verify" }), verdict, list, el("p", {}, download), cmd);
}

async function reload() {
  stopLive();
  document.body.dataset.ready = "no";
  try {
    G.meta = await api("/v1/games/" + G.id);
    fillMeta();
    await loadEvents();
    await go(G.last);
    document.body.dataset.ready = "yes";
    document.body.dataset.loads = String((Number(document.body.dataset.loads) || 0) + 1);
    if (finished()) showAudit(); else { document.getElementById("audit").hidden = true; follow(); }
  } catch (e) {
    document.body.dataset.ready = "failed";
    fail("game", e);
    // a stored record no longer reads: the game cannot be shown, but it can be audited
    if (e.body && e.body.code === "game_damaged") showAudit(true);
  }
}

async function gamePage() {
  G.id = document.body.dataset.game;
  buildGameShell();
  setupSignin(() => { G.seat = ""; reload(); });
  await reload();
}

document.addEventListener("DOMContentLoaded", () => {
  const page = document.body.dataset.page;
  if (page === "lobby") lobby();
  else if (page === "player") profile();
  else if (page === "game") gamePage();
});
