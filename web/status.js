// What splashd is doing: each service's reachability, the live channel, what the desktop says of this
// machine, the pause (pause and resume), the outbox with retry and drop, the cache's tiers, the watched
// folders (add, watch, unwatch), a Google Photos pick, and the progress of downloads and imports as the
// events tell it.
import { dates, moments, numbers, t } from "/i18n.js";
import { inPageLanguage } from "/rpc.js";
import { button, bytes, element, outLink, refusal } from "/ui.js";

export class Status {
  constructor(connection, section) {
    this.connection = connection;
    this.section = section;
    this.body = section.querySelector(".status-body");
    this.progress = section.querySelector(".progress");
  }

  async start() {
    await this.draw();
  }

  async draw() {
    const [status, queue, cache, watching, google] = await Promise.all([
      this.connection.call("daemon.status"),
      this.connection.call("queue.list"),
      this.connection.call("cache.status"),
      this.connection.call("library.watching"),
      this.connection.call("google.status").catch(() => null),
    ]);
    const said = element("div", { class: "status-said", role: "status" });
    const act = (method, params) => async () => {
      try {
        await this.connection.call(method, params);
      } catch (error) {
        said.replaceChildren(refusal(error));
      }
      await this.draw();
    };
    const rows = (pairs) => element("dl", { class: "facts" }, ...pairs.flatMap(([label, value]) => [element("dt", { text: label }), element("dd", { text: value })]));
    const services = element("section", { "aria-labelledby": "services-title" },
      element("h3", { id: "services-title", text: t("status.services") }),
      rows([
        [t("status.network"), `${t(`connectivity.${status.connectivity.state}`)}${status.connectivity.reason ? ` — ${inPageLanguage(status.connectivity.text, status.connectivity.reason)}` : ""}`],
        [t("status.live"), t(`live.${status.live.state}`) + (status.live.reason ? ` — ${inPageLanguage(status.live.text, status.live.reason)}` : "")],
        [t("status.account"), t(`account.${status.account.state}`) + (status.account.email ? ` (${status.account.email})` : "")],
        [t("status.machine"), machine(status.desktop)],
        ...(status.bandwidth ? [[t("status.bandwidth"), bandwidth(status.bandwidth)]] : []),
        [t("status.library"), t("status.libraryCounts", { photos: numbers.format(status.library.photos), liked: numbers.format(status.library.liked), edited: numbers.format(status.library.edited) })],
        [t("status.version"), `splashd ${status.version} · pid ${status.pid} · ${t("status.since", { when: dates.format(new Date(status.started_at)) })}`],
      ]));
    const pause = status.pause ?? { paused: false, downloads_only: false };
    const lengths = element("select", { name: "for" },
      ...[["3600", "status.pauseHour"], ["28800", "status.pauseEightHours"], ["", "status.pauseUntilResumed"]]
        .map(([value, key]) => element("option", { value, text: t(key) })));
    const pauseForm = element("form", { class: "pause" },
      element("label", {}, element("span", { text: t("status.pauseFor") }), lengths),
      element("label", {}, element("input", { type: "checkbox", name: "downloads_only" }), ` ${t("status.pauseDownloadsOnly")}`),
      element("button", { type: "submit", text: t("status.pause") }));
    pauseForm.addEventListener("submit", (event) => {
      event.preventDefault();
      const form = new FormData(pauseForm);
      const params = {};
      if (form.get("for")) params.for_seconds = Number(form.get("for"));
      if (form.get("downloads_only") === "on") params.downloads_only = true;
      act("sync.pause", params)();
    });
    const sync = element("section", { "aria-labelledby": "sync-title" },
      element("h3", { id: "sync-title", text: t("status.sync") }),
      element("p", { class: pause.paused ? "paused" : "quiet", text: pauseText(pause) }),
      pause.paused ? button(t("status.resume"), act("sync.resume", {})) : pauseForm);
    const outbox = element("section", { "aria-labelledby": "outbox-title" },
      element("h3", { id: "outbox-title", text: t("status.outbox", { pending: status.outbox.pending, rejected: status.outbox.rejected }) }),
      queue.ops.length === 0 ? element("p", { class: "quiet", text: t("status.outboxEmpty") }) : element("ul", { class: "ops" },
        ...queue.ops.map((op) => element("li", { "data-op": op.op_id },
          element("span", { text: `${op.op} ${op.entity_id ?? ""} · ${op.state}${op.last_error ? ` — ${op.last_error}` : ""}` }), " ",
          button(t("status.retry"), act("queue.retry", { op_id: op.op_id })), " ",
          button(t("status.drop"), act("queue.drop", { op_id: op.op_id }))))));
    const tiers = element("section", { "aria-labelledby": "cache-title" },
      element("h3", { id: "cache-title", text: t("status.cache") }),
      rows([
        [t("status.libraryFiles"), `${numbers.format(cache.library_files)} · ${bytes(cache.library_bytes)}`],
        [t("status.cacheFiles"), `${numbers.format(cache.cache_files)} · ${bytes(cache.cache_bytes)} / ${bytes(cache.max_bytes)}`],
        [t("status.memory"), cache.pictures ? `${numbers.format(cache.pictures.memory_entries)} · ${bytes(cache.pictures.memory_bytes)} / ${bytes(cache.pictures.memory_max_bytes)}` : "—"],
        [t("status.downloads"), t("status.downloadCounts", { downloading: cache.downloading, waiting: cache.waiting })],
      ]));
    const addFolder = element("form", { class: "add-folder" },
      element("label", {}, element("span", { text: t("status.folderPath") }), element("input", { name: "path", required: true, placeholder: "/home/…/Pictures" })),
      element("label", {}, element("input", { type: "checkbox", name: "recursive", checked: true }), ` ${t("status.recursive")}`),
      element("label", {}, element("input", { type: "checkbox", name: "watch", checked: true }), ` ${t("status.watch")}`),
      element("button", { type: "submit", text: t("status.import") }));
    addFolder.addEventListener("submit", (event) => {
      event.preventDefault();
      const form = new FormData(addFolder);
      act("library.import", { path: form.get("path"), recursive: form.get("recursive") === "on", watch: form.get("watch") === "on" })();
    });
    const folders = element("section", { "aria-labelledby": "folders-title" },
      element("h3", { id: "folders-title", text: t("status.folders") }),
      element("ul", { class: "folders" }, ...watching.folders.map((folder) => element("li", { "data-path": folder.path },
        element("span", { text: `${folder.path}${folder.recursive ? " (+)" : ""}` }), " ",
        button(t("status.unwatch"), act("library.unwatch", { path: folder.path }))))),
      addFolder);
    const googlePhotos = element("section", { "aria-labelledby": "google-title" }, element("h3", { id: "google-title", text: "Google Photos" }));
    if (!google?.configured) googlePhotos.append(element("p", { class: "quiet", text: t("status.googleOff") }));
    else if (!google.connected) googlePhotos.append(element("p", { class: "quiet", text: t("status.googleConnect") }));
    else {
      googlePhotos.append(button(t("status.googlePick"), async () => {
        try {
          const pick = await this.connection.call("google.pick");
          googlePhotos.append(element("p", {}, outLink(pick.picker_uri, t("status.googleOpen"))));
        } catch (error) {
          said.replaceChildren(refusal(error));
        }
      }));
    }
    this.body.replaceChildren(services, sync, outbox, tiers, folders, googlePhotos, said);
  }

  /// Events: progress lines as they come, the rest drawn again.
  changed(event) {
    if (this.section.hidden) return;
    if (event.type === "images.changed") {
      const data = event.data;
      this.progress.textContent = t("status.imageProgress", { photo: data.photo, change: data.change, downloading: data.downloading, waiting: data.waiting });
    } else if (event.type === "import.progress") {
      this.progress.textContent = t("status.importProgress", { done: event.data.done, total: event.data.total, root: event.data.root });
    }
    this.scheduleDraw();
  }

  /// Downloads and imports send events many times a second: the screen is drawn again at most five
  /// times a second.
  scheduleDraw() {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.draw().catch(() => {});
    }, 200);
  }
}

/// What the desktop says of this machine, each with what waits for it (as `splashctl status` says it).
function machine(desktop) {
  if (!desktop) return "—";
  if (!desktop.bus) return t("machine.unknown");
  const held = (said, waits) => (waits ? `${said} — ${waits}` : said);
  const parts = [];
  if (desktop.metered !== undefined) {
    const waits = desktop.sync_held ? t("machine.syncWaits") : desktop.transfers_held ? t("machine.transfersWait") : null;
    parts.push(desktop.metered ? held(t("machine.metered"), waits) : t("machine.unmetered"));
  }
  if (desktop.on_battery !== undefined) {
    parts.push(desktop.on_battery ? held(t("machine.onBattery"), desktop.background_held === "on_battery" ? t("machine.backgroundWaits") : null) : t("machine.onMains"));
  }
  if (desktop.power_saver) parts.push(held(t("machine.powerSaver"), desktop.background_held === "power_saver" ? t("machine.backgroundWaits") : null));
  return parts.length ? parts.join(" · ") : t("machine.silent");
}

/// The rate limits in force, each direction's.
function bandwidth(limits) {
  const download = limits.max_download_rate ? t("bandwidth.downloadsAtMost", { rate: `${bytes(limits.max_download_rate)}/s` }) : t("bandwidth.downloadsUnlimited");
  const upload = limits.max_upload_rate ? t("bandwidth.uploadsAtMost", { rate: `${bytes(limits.max_upload_rate)}/s` }) : t("bandwidth.uploadsUnlimited");
  return `${download} · ${upload}`;
}

/// The pause in words: until when, and what waits.
export function pauseText(pause) {
  if (!pause.paused) return t("pause.running");
  const until = pause.until ? moments.format(new Date(pause.until)) : null;
  if (pause.downloads_only) return until ? t("pause.downloadsUntil", { until }) : t("pause.downloadsUntilResumed");
  return until ? t("pause.syncUntil", { until }) : t("pause.syncUntilResumed");
}
