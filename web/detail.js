// One photo: its picture, who made it and where it is from, what the camera said, its renditions and
// files, the 30-day chart of an Unsplash photo, and like / dismiss. A modal dialog: Escape closes it
// and the focus goes back where it was.
import { lineChart } from "/chart.js";
import { dates, numbers, t } from "/i18n.js";
import { bytes, element, imageAddress, outLink } from "/ui.js";

const SITES = { unsplash: "Unsplash", nasa: "NASA" };

export class PhotoDetail {
  constructor(connection, dialog) {
    this.connection = connection;
    this.dialog = dialog;
    this.body = dialog.querySelector(".detail-body");
    this.shown = null;
    this.asked = 0;
    dialog.querySelector(".close").addEventListener("click", () => dialog.close());
    dialog.addEventListener("close", () => {
      this.shown = null;
      this.afterClose?.();
    });
  }

  async open(id, afterClose) {
    this.afterClose = afterClose;
    this.shown = id;
    if (!this.dialog.open) this.dialog.showModal();
    await this.load();
  }

  /// The photo shown changed (here or on another device): drawn again.
  changed(id) {
    if (this.dialog.open && this.shown === id) this.load();
  }

  async load() {
    const asked = ++this.asked;
    const id = this.shown;
    let photo;
    try {
      photo = await this.connection.call("photos.show", { id });
    } catch (error) {
      if (asked === this.asked) this.body.replaceChildren(element("p", { class: "error", text: error.kind === "not_found" ? t("detail.missing") : error.message }));
      return;
    }
    if (asked !== this.asked) return;
    this.body.replaceChildren(...this.render(photo));
    if (photo.source === "unsplash") this.chart(photo.id, asked);
  }

  render(photo) {
    const title = photo.title ?? t("untitled");
    const picture = element("img", { src: imageAddress(photo.id, "screen"), alt: title, class: "detail-picture" });
    const heading = element("h2", { id: "detail-title", text: title });
    const credit = element("p", { class: "credit" });
    if (photo.author) {
      const by = t("detail.by", { author: photo.author });
      credit.append(photo.author_url ? outLink(photo.author_url, by) : by);
    }
    if (photo.page_url) credit.append(" · ", outLink(photo.page_url, photo.attribution ?? t("detail.source", { site: SITES[photo.source] ?? photo.source })));
    const liked = Boolean(photo.liked_at);
    const dismissed = Boolean(photo.dismissed_at);
    const like = element("button", { type: "button", class: "like", "aria-pressed": String(liked), text: t(liked ? "detail.unlike" : "detail.like") });
    like.addEventListener("click", () => this.act(liked ? "photos.unlike" : "photos.like", photo.id));
    const dismiss = element("button", { type: "button", class: "dismiss", text: t(dismissed ? "detail.restore" : "detail.dismiss") });
    dismiss.addEventListener("click", () => this.act("photos.dismiss", photo.id, dismissed ? { undo: true } : {}));
    const edit = element("a", { href: `#/edit/${encodeURIComponent(photo.id)}`, class: "edit", text: t("detail.edit") });
    const actions = element("p", { class: "actions" }, like, dismiss, edit);

    const facts = element("dl", { class: "facts" });
    const fact = (label, value) => {
      if (value === undefined || value === null || value === "") return;
      facts.append(element("dt", { text: t(label) }), element("dd", {}, value));
    };
    if (photo.width && photo.height) fact("detail.size", `${photo.width} × ${photo.height}`);
    if (photo.created_at) fact("detail.taken", dates.format(new Date(photo.created_at)));
    fact("detail.added", dates.format(new Date(photo.fetched_at)));
    if (photo.liked_at) fact("detail.liked", dates.format(new Date(photo.liked_at)));
    const exif = photo.exif ?? {};
    fact("detail.camera", [exif.make, exif.model].filter(Boolean).join(" "));
    fact("detail.exposure", [exif.exposure_time && `${exif.exposure_time} s`, exif.aperture && `f/${exif.aperture}`,
      exif.focal_length && `${exif.focal_length} mm`, exif.iso && `ISO ${exif.iso}`].filter(Boolean).join(" · "));
    const place = photo.location;
    if (place) {
      fact("detail.place", [place.name, place.latitude !== undefined && place.longitude !== undefined
        ? `${place.latitude.toFixed(4)}, ${place.longitude.toFixed(4)}` : null].filter(Boolean).join(" · "));
    }
    if (photo.tags?.length) fact("detail.tags", photo.tags.join(", "));

    const renditions = (photo.renditions ?? Object.entries(photo.urls ?? {}).map(([variant, url]) => ({ variant, url })));
    const renditionList = element("ul", { class: "renditions" }, ...renditions.map((rendition) => element("li", {},
      outLink(rendition.url, rendition.variant),
      [rendition.width && rendition.height ? ` ${rendition.width} × ${rendition.height}` : "", rendition.bytes ? ` · ${bytes(rendition.bytes)}` : ""].join(""))));
    const files = photo.files.length
      ? element("ul", { class: "files" }, ...photo.files.map((file) => element("li", { text: `${file.location} · ${file.variant} · ${bytes(file.bytes)}` })))
      : element("p", { text: t("detail.noFiles") });
    const more = element("details", {},
      element("summary", { text: `${t("detail.renditions")} · ${t("detail.files")}` }),
      element("h3", { text: t("detail.renditions") }), renditionList, element("h3", { text: t("detail.files") }), files);
    const chart = element("section", { class: "stats", "aria-live": "polite" });
    return [picture, element("div", { class: "detail-text" }, heading, credit, actions, facts, chart, more)];
  }

  async act(method, id, extra = {}) {
    try {
      await this.connection.call(method, { id, ...extra });
    } catch (error) {
      this.body.querySelector(".actions")?.append(element("span", { class: "error", role: "alert", text: ` ${error.message}` }));
    }
    await this.load();
  }

  async chart(id, asked) {
    let stats;
    const section = () => this.body.querySelector(".stats");
    try {
      stats = await this.connection.call("photos.stats", { id });
    } catch (error) {
      if (asked === this.asked) section()?.replaceChildren(element("p", { class: "quiet", text: t("detail.noStats", { reason: error.message }) }));
      return;
    }
    if (asked !== this.asked) return;
    const series = (name, key, className) => {
      const label = `${t(name)} — ${t("detail.total", { total: numbers.format(stats[key].total), change: numbers.format(stats[key].change) })}`;
      return [element("h4", { text: label }), lineChart(stats[key].values, label, className)];
    };
    section()?.replaceChildren(element("h3", { text: t("detail.chart") }), ...series("detail.views", "views", "views"),
      ...series("detail.downloads", "downloads", "downloads"));
  }
}
