// Search, as the NASA browser and PhotoBox had it: Unsplash or NASA with the options `search` takes,
// the last ten searches, Unsplash's topics and random photos. An answer from this machine (offline,
// or while the source is asked again) says so, and is replaced when the fresh one comes. A like that
// looks like a photo already liked is refused with the twin shown beside it, and can be made anyway.
import { dates, numbers, t } from "/i18n.js";
import { button, element, refusal, thumbnail } from "/ui.js";

const PER_PAGE = 30;

export class Search {
  constructor(connection, section, open) {
    this.connection = connection;
    this.section = section;
    this.open = open;
    this.form = section.querySelector("form");
    this.results = section.querySelector(".results");
    this.said = section.querySelector(".search-said");
    this.more = section.querySelector(".more");
    this.current = null;
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.run({ kind: "search", params: this.formParams() });
    });
    this.form.elements.source.addEventListener("change", () => this.sourceChanged());
    section.querySelector(".random").addEventListener("click", () => this.run({ kind: "random", params: this.randomParams() }));
    this.more.addEventListener("click", () => this.run({ ...this.current, page: (this.current.page ?? 1) + 1 }, true));
    this.sourceChanged();
  }

  async start() {
    await Promise.all([this.history(), this.topics()]);
    this.form.elements.query.focus();
  }

  sourceChanged() {
    const nasa = this.form.elements.source.value === "nasa";
    for (const field of this.section.querySelectorAll(".unsplash-only")) field.hidden = nasa;
    for (const field of this.section.querySelectorAll(".nasa-only")) field.hidden = !nasa;
  }

  formParams() {
    const form = new FormData(this.form);
    const params = { query: form.get("query").trim(), source: form.get("source") };
    const names = params.source === "nasa" ? ["year_from", "year_to"] : ["color", "orientation", "order"];
    for (const name of names) {
      const value = form.get(name);
      if (value) params[name] = name.startsWith("year") ? Number(value) : value;
    }
    return params;
  }

  randomParams() {
    const query = this.form.elements.query.value.trim();
    return query ? { query } : {};
  }

  /// Runs a search, a topic's photos or random photos; `append` adds a page to what is shown.
  async run(what, append = false) {
    this.current = what;
    const page = what.page ?? 1;
    let answer;
    this.said.textContent = "…";
    try {
      if (what.kind === "search") answer = await this.connection.call("photos.search", { ...what.params, page, per_page: PER_PAGE });
      else if (what.kind === "topic") answer = await this.connection.call("topics.photos", { slug: what.slug, page, per_page: PER_PAGE });
      else answer = await this.connection.call("photos.random", { ...what.params, count: PER_PAGE });
    } catch (error) {
      this.said.replaceChildren(refusal(error));
      return;
    }
    if (this.current !== what) return;
    this.show(answer, append);
  }

  show(answer, append = false) {
    const what = this.current;
    const items = answer.photos.map((photo) => this.result(photo));
    if (append) this.results.append(...items);
    else this.results.replaceChildren(...items);
    const shown = this.results.children.length;
    const total = answer.total ?? shown;
    const words = [t(total === 1 ? "count.one" : "count.other", { n: numbers.format(total) })];
    if (answer.stale) {
      words.push(t("search.stale", { when: dates.format(new Date(answer.fetched_at)) }));
      if (answer.refreshing) words.push(t("search.refreshing"));
      else if (answer.stale_reason) words.push(answer.stale_reason);
    }
    this.said.textContent = words.join(" · ");
    this.said.classList.toggle("stale", Boolean(answer.stale));
    this.more.hidden = what.kind === "random" || shown >= total || answer.photos.length < PER_PAGE;
    if (what.kind === "search" && !append) this.history();
  }

  /// The source answered again for a search answered from this machine first: its fresh page, when
  /// it is the one shown.
  refreshed(data) {
    const shown = this.current;
    if (shown?.kind !== "search" || !data.result || !this.said.classList.contains("stale")) return;
    const asked = data.request;
    const same = ["query", "source", "color", "orientation", "order", "year_from", "year_to"]
      .every((name) => (asked[name] ?? "") === (shown.params[name] ?? "") || (name === "source" && !asked.source && shown.params.source === "unsplash"));
    if (same && (asked.page ?? 1) === (shown.page ?? 1)) this.show(data.result);
  }

  result(photo) {
    const item = thumbnail(photo, this.open);
    const liked = Boolean(photo.liked_at);
    const like = button(liked ? "♥" : "♡", (event) => {
      event.stopPropagation();
      this.like(photo, item, false);
    }, { class: "heart", "aria-pressed": String(liked), "aria-label": t(liked ? "detail.unlike" : "detail.like") });
    item.append(like);
    return item;
  }

  async like(photo, item, anyway) {
    const heart = item.querySelector(".heart");
    const liked = heart.getAttribute("aria-pressed") === "true";
    item.querySelector(".twin")?.remove();
    try {
      if (liked) await this.connection.call("photos.unlike", { id: photo.id });
      else await this.connection.call("photos.like", { id: photo.id, ...(anyway ? { allow_duplicate: true } : {}) });
    } catch (error) {
      const twin = error.text?.duplicate?.twin;
      if (!twin) {
        item.append(element("div", { class: "twin" }, refusal(error)));
        return;
      }
      const anywayButton = button(t("search.likeAnyway"), (event) => {
        event.stopPropagation();
        this.like(photo, item, true);
      });
      item.append(element("div", { class: "twin", role: "alert" },
        element("p", { text: t("search.duplicate") }), thumbnail({ id: twin }, this.open), anywayButton));
      return;
    }
    heart.setAttribute("aria-pressed", String(!liked));
    heart.textContent = liked ? "♡" : "♥";
    heart.setAttribute("aria-label", t(liked ? "detail.like" : "detail.unlike"));
  }

  async history() {
    const list = this.section.querySelector(".history ul");
    try {
      const { searches } = await this.connection.call("search.history");
      list.replaceChildren(...searches.slice(0, 10).map((search) => element("li", {}, button(
        `${search.request.query} · ${search.request.source === "nasa" ? "NASA" : "Unsplash"} (${numbers.format(search.total ?? 0)})`,
        () => {
          this.fill(search.request);
          this.run({ kind: "search", params: this.formParams() });
        }))));
    } catch (error) {
      list.replaceChildren(element("li", {}, refusal(error)));
    }
  }

  fill(request) {
    this.form.reset();
    for (const [name, value] of Object.entries(request)) {
      if (this.form.elements[name]) this.form.elements[name].value = value;
    }
    this.sourceChanged();
  }

  async topics() {
    const list = this.section.querySelector(".topics ul");
    try {
      const { topics } = await this.connection.call("topics.list");
      list.replaceChildren(...topics.map((topic) => element("li", {}, button(topic.title, () => this.run({ kind: "topic", slug: topic.slug })))));
    } catch (error) {
      list.replaceChildren(element("li", {}, refusal(error)));
    }
  }
}
