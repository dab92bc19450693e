// Triage, as NicePhotoApp's cards: one photo at a time from those neither liked nor dismissed,
// newest first; → (or a drag to the right) favourites it, ← (or a drag to the left) dismisses it,
// Backspace undoes the last. The daemon's answer moves the card on; a refusal (a near-duplicate of a
// photo already liked) says why and names the twin, and the card stays.
import { numbers, t } from "/i18n.js";
import { imageAddress } from "/ui.js";

const BATCH = 50;
const DRAG_DECIDES = 0.25;

export class Triage {
  constructor(connection, section) {
    this.connection = connection;
    this.section = section;
    this.card = section.querySelector(".card");
    this.picture = section.querySelector(".card img");
    this.caption = section.querySelector(".card figcaption");
    this.said = section.querySelector(".said");
    this.left = section.querySelector(".left");
    this.empty = section.querySelector(".empty");
    this.queue = [];
    this.total = 0;
    this.done = [];
    this.busy = false;
    section.querySelector(".favourite").addEventListener("click", () => this.decide("like"));
    section.querySelector(".dismiss").addEventListener("click", () => this.decide("dismiss"));
    section.querySelector(".undo").addEventListener("click", () => this.undo());
    section.addEventListener("keydown", (event) => this.key(event));
    this.dragging();
  }

  async start() {
    await this.fill();
    this.draw();
    this.card.focus();
  }

  /// Photos to sort, the current one first; asked again after a change made elsewhere.
  async fill() {
    const answer = await this.connection.call("photos.list", { liked: false, sort: "-fetched", limit: BATCH });
    this.total = answer.total;
    const current = this.queue[0]?.id;
    this.queue = answer.photos;
    const at = this.queue.findIndex((photo) => photo.id === current);
    if (at > 0) this.queue.unshift(...this.queue.splice(at, 1));
  }

  draw() {
    const photo = this.queue[0];
    this.card.hidden = !photo;
    this.empty.hidden = Boolean(photo);
    this.left.textContent = t("triage.left", { n: numbers.format(this.total) });
    this.section.querySelector(".undo").disabled = this.done.length === 0;
    if (!photo) return;
    this.card.dataset.id = photo.id;
    this.picture.src = imageAddress(photo.id, "screen");
    this.picture.alt = photo.title ?? t("untitled");
    this.caption.textContent = [photo.title ?? t("untitled"), photo.author].filter(Boolean).join(" — ");
    this.card.style.transform = "";
  }

  key(event) {
    if (event.target.closest("button") && event.key === " ") return;
    const actions = { ArrowRight: () => this.decide("like"), ArrowLeft: () => this.decide("dismiss"), Backspace: () => this.undo() };
    const action = actions[event.key] ?? (event.key === "z" && (event.ctrlKey || event.metaKey) ? actions.Backspace : null);
    if (!action) return;
    event.preventDefault();
    action();
  }

  async decide(how) {
    const photo = this.queue[0];
    if (!photo || this.busy) return;
    this.busy = true;
    const title = photo.title ?? t("untitled");
    try {
      if (how === "like") await this.connection.call("photos.like", { id: photo.id });
      else await this.connection.call("photos.dismiss", { id: photo.id });
      this.done.push({ photo, how });
      this.queue.shift();
      this.total = Math.max(0, this.total - 1);
      this.say(t(how === "like" ? "triage.liked" : "triage.dismissed", { title }));
      if (this.queue.length < 5) await this.fill();
    } catch (error) {
      const twin = error.text?.duplicate?.twin;
      this.say(twin ? t("triage.duplicate", { twin }) : error.message, true);
    } finally {
      this.busy = false;
      this.draw();
    }
  }

  async undo() {
    const last = this.done.pop();
    if (!last || this.busy) return;
    this.busy = true;
    try {
      if (last.how === "like") await this.connection.call("photos.unlike", { id: last.photo.id });
      else await this.connection.call("photos.dismiss", { id: last.photo.id, undo: true });
      this.queue.unshift(last.photo);
      this.total++;
      this.say(t("triage.undone", { title: last.photo.title ?? t("untitled") }));
    } catch (error) {
      this.done.push(last);
      this.say(error.message, true);
    } finally {
      this.busy = false;
      this.draw();
    }
  }

  say(text, refused = false) {
    this.said.textContent = text;
    this.said.classList.toggle("error", refused);
  }

  /// A card dragged a quarter of its width aside decides; less, it springs back.
  dragging() {
    let start = null;
    this.card.addEventListener("pointerdown", (event) => {
      start = event.clientX;
      this.card.setPointerCapture(event.pointerId);
    });
    this.card.addEventListener("pointermove", (event) => {
      if (start === null) return;
      const moved = event.clientX - start;
      this.card.style.transform = `translateX(${moved}px) rotate(${moved / 40}deg)`;
    });
    const end = (event) => {
      if (start === null) return;
      const moved = event.clientX - start;
      start = null;
      this.card.style.transform = "";
      if (Math.abs(moved) > this.card.clientWidth * DRAG_DECIDES) this.decide(moved > 0 ? "like" : "dismiss");
    };
    this.card.addEventListener("pointerup", end);
    this.card.addEventListener("pointercancel", () => {
      start = null;
      this.card.style.transform = "";
    });
  }
}
