// The gallery's page: one WebSocket to /rpc that speaks splashd's control protocol (JSON-RPC 2.0),
// the same methods and events as splashctl. No other API, nothing fetched from another host.
// Screens by the address's fragment: #/library (the default), #/photo/<id>, #/search, #/triage,
// #/edit/<id>, #/account, #/status.
import { Account } from "/account.js";
import { PhotoDetail } from "/detail.js";
import { Editor } from "/editor.js";
import { t, translate } from "/i18n.js";
import { LibraryGrid } from "/library.js";
import { Connection } from "/rpc.js";
import { Search } from "/search.js";
import { pauseText, Status } from "/status.js";
import { Triage } from "/triage.js";

const statusLine = document.getElementById("status");
const filters = document.getElementById("filters");
const EVENTS = [
  "photo.changed", "library.changed", "account.changed", "connectivity.changed", "live.changed", "outbox.changed",
  "images.changed", "import.progress", "profile.updated", "users.changed", "search.refreshed", "desktop.changed",
  "pause.changed", "daemon.reloaded",
];
const COLORS = ["black_and_white", "black", "white", "yellow", "orange", "red", "purple", "magenta", "green", "teal", "blue"];
/// Screen → its section's id.
const SECTIONS = { library: "library", search: "search", triage: "triage", edit: "edit", account: "account", status: "status-screen" };

for (const select of document.querySelectorAll("select.colors")) {
  for (const bucket of COLORS) {
    const option = document.createElement("option");
    option.value = bucket;
    option.dataset.i18n = `color.${bucket}`;
    select.append(option);
  }
}
translate();

// The header stays at the top (sticky); what sticks below it (the editor's before/after in a narrow
// window) needs its height, which changes as the navigation wraps.
const header = document.querySelector("header");
new ResizeObserver(() => document.documentElement.style.setProperty("--header-height", `${header.offsetHeight}px`)).observe(header);

function say(text, ended = false) {
  statusLine.textContent = text;
  statusLine.className = ended ? "ended" : "";
}

function describe(status) {
  const paused = status.pause?.paused ? ` · ${pauseText(status.pause)}` : "";
  return `${t(`account.${status.account.state}`)} · ${t(`connectivity.${status.connectivity.state}`)}${paused}`;
}

/// The filter form as `photos.list` parameters.
function filterParams() {
  const form = new FormData(filters);
  const params = {};
  const view = form.get("view");
  if (view === "liked") params.liked = true;
  if (view === "edited") params.edited = true;
  if (view === "dismissed") params.dismissed = true;
  for (const name of ["source", "color", "sort"]) if (form.get(name)) params[name] = form.get(name);
  const text = form.get("text").trim();
  if (text) params.text = text;
  return params;
}

/// The connection of the moment: the screens are made once and call through it, so a reconnection
/// (a new connection) leaves them, their listeners and their place as they were.
const rpc = {
  connection: null,
  call(method, params, options) {
    return this.connection.call(method, params, options);
  },
};

class Screens {
  constructor() {
    const open = (id, afterClose) => this.openPhoto(id, afterClose);
    this.grid = new LibraryGrid(
      rpc, document.getElementById("grid"), document.getElementById("count"), document.getElementById("library-start"), open);
    this.detail = new PhotoDetail(rpc, document.getElementById("detail"));
    this.search = new Search(rpc, document.getElementById("search"), open);
    this.triage = new Triage(rpc, document.getElementById("triage"));
    this.editor = new Editor(rpc, document.getElementById("edit"));
    this.account = new Account(rpc, document.getElementById("account"));
    this.status = new Status(rpc, document.getElementById("status-screen"));
    this.pending = null;
  }

  openPhoto(id, afterClose) {
    this.detail.open(id, afterClose).catch(() => {});
  }

  /// The screen the address names.
  async route() {
    const [, named, id] = location.hash.split("/");
    const screen = named in SECTIONS ? named : "library";
    if (this.detail.dialog.open && named !== "photo") this.detail.dialog.close();
    for (const [name, section] of Object.entries(SECTIONS)) document.getElementById(section).hidden = name !== screen;
    for (const link of document.querySelectorAll("nav a")) link.toggleAttribute("aria-current", link.id === `nav-${screen}`);
    if (screen === "search") await this.search.start();
    else if (screen === "triage") await this.triage.start();
    else if (screen === "edit" && id) await this.editor.start(decodeURIComponent(id));
    else if (screen === "account") await this.account.start();
    else if (screen === "status") await this.status.start();
    else if (named === "photo" && id) {
      this.openPhoto(decodeURIComponent(id), () => {
        if (location.hash.startsWith("#/photo/")) history.replaceState(null, "", "#/library");
      });
    }
  }

  changed(event) {
    if (event.type === "photo.changed") {
      this.detail.changed(event.data.id);
      this.editor.changed(event.data.id);
    }
    if (event.type === "search.refreshed") this.search.refreshed(event.data);
    this.account.changed(event);
    this.status.changed(event);
    if (event.type !== "photo.changed" && event.type !== "library.changed") return;
    // Events come in bursts (a sync applies many changes): one refresh per frame at most.
    if (this.pending) return;
    this.pending = requestAnimationFrame(() => {
      this.pending = null;
      this.grid.refresh().catch(() => {});
      if (!document.getElementById("triage").hidden) this.triage.fill().then(() => this.triage.draw()).catch(() => {});
    });
  }
}

const screens = new Screens();

// Connects, and connects again when splashd goes away (a restart, a stop): the session is the
// daemon's and outlives it, so the page comes back as it was. Only an ended session (4001) stops it.
async function connect(retryIn = 1000) {
  const connection = new Connection(`ws://${location.host}/rpc`);
  connection.onEvent = (event) => {
    if (["account.changed", "connectivity.changed", "pause.changed"].includes(event.type)) {
      connection.call("daemon.status").then((status) => say(describe(status))).catch(() => {});
    }
    screens.changed(event);
  };
  connection.onEnded = (sessionEnded) => {
    if (sessionEnded) {
      say(t("status.ended"), true);
      return;
    }
    say(t("status.notAnswering"), true);
    setTimeout(() => reconnect(Math.min(retryIn * 2, 30000)), retryIn);
  };
  try {
    await connection.open();
    const status = await connection.call("daemon.status");
    say(describe(status));
    await connection.call("events.subscribe", { types: EVENTS });
    const first = rpc.connection === null;
    rpc.connection = connection;
    if (first) {
      await screens.grid.show(filterParams());
      await screens.route();
    } else {
      screens.changed({ type: "library.changed" });
    }
  } catch (error) {
    if (connection.isOpen()) say(error.message, true);
  }
}

// splashd back, but this browser's key refused (its secret was replaced while it was away): say so
// rather than trying for ever.
async function reconnect(retryIn) {
  try {
    const answer = await fetch("/", { cache: "no-store" });
    if (answer.status === 401) {
      say(t("status.ended"), true);
      return;
    }
  } catch {
    // Not answering yet: the WebSocket's own attempt below says so and tries again.
  }
  connect(retryIn);
}

filters.addEventListener("submit", (event) => event.preventDefault());
filters.addEventListener("change", () => rpc.connection && screens.grid.show(filterParams()));
let typing = null;
filters.elements.text.addEventListener("input", () => {
  clearTimeout(typing);
  typing = setTimeout(() => rpc.connection && screens.grid.show(filterParams()), 250);
});
addEventListener("hashchange", () => rpc.connection && screens.route());

connect();
