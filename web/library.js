// The library as a grid virtualised to any size: the list's total sets the grid's height, and only
// the rows in and near the window exist as elements, filled from pages of `photos.list` asked for
// as they come into view. A change (a like here or on another device) asks again for the pages in
// view only; what is on screen stays until their answers come, so nothing flickers.
import { t, tElements, numbers } from "/i18n.js";
import { element, imageAddress } from "/ui.js";

const PAGE = 240;
const MIN_CELL = 160;
const GAP = 8;
const SPARE_ROWS = 3;
/// Pages asked for at once while scrolling. The connection answers in order: pages asked for on the
/// way past a region would hold up everything after them (a like's refresh waited 55 s behind the
/// pages of a grid scrolled end to end), so only pages still in view when a slot frees are asked for.
const IN_FLIGHT = 2;

export class LibraryGrid {
  constructor(connection, list, count, start, open) {
    this.connection = connection;
    this.list = list;
    this.count = count;
    this.start = start;
    this.open = open;
    this.filter = {};
    this.total = 0;
    this.pages = new Map();
    this.asked = new Map();
    this.generation = 0;
    this.items = new Map();
    this.active = 0;
    this.columns = 1;
    this.cell = MIN_CELL;
    this.drawing = false;
    this.wanted = [];
    this.loading = 0;

    this.onScroll = () => this.schedule();
    addEventListener("scroll", this.onScroll, { passive: true });
    this.resizing = new ResizeObserver(() => this.schedule());
    this.resizing.observe(list);
    list.addEventListener("keydown", (event) => this.key(event));
    list.addEventListener("click", (event) => {
      const item = event.target.closest("li[data-index]");
      if (!item) return;
      this.active = Number(item.dataset.index);
      this.draw();
      this.openActive();
    });
    list.tabIndex = 0;
    list.setAttribute("role", "listbox");
  }

  /// A new filter: the grid starts again from its first photo.
  async show(filter) {
    this.filter = filter;
    this.active = 0;
    this.pages.clear();
    this.asked.clear();
    this.generation++;
    for (const item of this.items.values()) item.remove();
    this.items.clear();
    await this.page(0, this.generation);
    scrollTo(0, 0);
    this.draw();
    // For the benchmark (and anyone's devtools): the first grid, once the frame with it is drawn.
    if (this.total > 0 && performance.getEntriesByName("splashd-first-grid").length === 0) {
      requestAnimationFrame(() => setTimeout(() => performance.mark("splashd-first-grid")));
    }
  }

  /// Something changed in the store: the pages in view are asked for again.
  async refresh() {
    this.generation++;
    const filter = this.filter;
    // The pages in view, and the first for the total (an empty grid has none in view: the total
    // it had may be the one that changed).
    const wanted = new Set([0, ...this.pagesIn(...this.visibleRange())]);
    this.asked.clear();
    const answers = await Promise.all([...wanted].map((page) => this.fetch(page)));
    // A newer refresh may be on its way (a like, then its picture arriving), but this answer holds
    // the change that asked for it: it is shown unless the filter changed since (`show` sets a new
    // one). Answers come in order, so a newer refresh's never comes before it.
    if (filter !== this.filter) return;
    this.total = answers[0].total;
    this.pages.clear();
    for (const { page, photos } of answers) this.pages.set(page, photos);
    this.draw();
  }

  async page(page, generation) {
    if (this.pages.has(page) || this.asked.has(page)) return;
    const { photos, total } = await this.fetch(page);
    if (generation !== this.generation) return;
    this.total = total;
    this.pages.set(page, photos);
  }

  fetch(page) {
    const asking = this.connection
      .call("photos.list", { ...this.filter, limit: PAGE, offset: page * PAGE })
      .then((answer) => ({ page, photos: answer.photos, total: answer.total }))
      .finally(() => this.asked.delete(page));
    this.asked.set(page, asking);
    return asking;
  }

  /// Asks for the pages in view that are neither here nor asked for, at most IN_FLIGHT at a time.
  pump() {
    const generation = this.generation;
    for (const page of this.wanted) {
      if (this.loading >= IN_FLIGHT) return;
      if (this.pages.has(page) || this.asked.has(page)) continue;
      this.loading++;
      // A page refused or cut off is asked for again at the next draw, not at once.
      this.page(page, generation)
        .then(() => {
          this.loading--;
          this.schedule();
        }, () => this.loading--);
    }
  }

  /// The pages that hold the photos from `first` to `last` (none when `last` is before `first`).
  pagesIn(first, last) {
    const pages = [];
    for (let page = Math.floor(first / PAGE); page * PAGE <= last; page++) pages.push(page);
    return pages;
  }

  photoAt(index) {
    return this.pages.get(Math.floor(index / PAGE))?.[index % PAGE];
  }

  schedule() {
    if (this.drawing) return;
    this.drawing = true;
    requestAnimationFrame(() => {
      this.drawing = false;
      this.draw();
    });
  }

  layout() {
    const width = this.list.clientWidth;
    this.columns = Math.max(1, Math.floor((width + GAP) / (MIN_CELL + GAP)));
    this.cell = (width - GAP * (this.columns - 1)) / this.columns;
    const rows = Math.ceil(this.total / this.columns);
    this.list.style.height = `${Math.max(0, rows * (this.cell + GAP) - GAP)}px`;
  }

  /// An empty collection (no filter narrowing it) says where photos to like are.
  drawStart() {
    const { liked, source, color, text } = this.filter;
    this.start.hidden = !(this.total === 0 && liked && !source && !color && !text);
    if (this.start.hidden || this.start.hasChildNodes()) return;
    const screen = (name) => element("a", { href: `#/${name}`, text: t(`nav.${name}`) });
    this.start.append(...tElements("library.start", { search: screen("search"), triage: screen("triage"), status: screen("status") }));
  }

  /// The first and last index in or near the window.
  visibleRange() {
    const row = this.cell + GAP;
    const top = this.list.getBoundingClientRect().top;
    const firstRow = Math.max(0, Math.floor(-top / row) - SPARE_ROWS);
    const lastRow = Math.max(0, Math.ceil((innerHeight - top) / row) + SPARE_ROWS);
    return [firstRow * this.columns, Math.min(this.total, (lastRow + 1) * this.columns) - 1];
  }

  draw() {
    this.layout();
    this.count.textContent =
      this.total === 0 ? t("count.none") : this.total === 1 ? t("count.one") : t("count.other", { n: numbers.format(this.total) });
    this.drawStart();
    const [first, last] = this.visibleRange();
    this.wanted = this.pagesIn(first, last);
    this.pump();
    for (const [index, item] of this.items) {
      if (index < first || index > last) {
        item.remove();
        this.items.delete(index);
      }
    }
    for (let index = first; index <= last; index++) this.place(index);
  }

  place(index) {
    let item = this.items.get(index);
    if (!item) {
      item = document.createElement("li");
      item.dataset.index = index;
      item.id = `photo-${index}`;
      item.setAttribute("role", "option");
      this.items.set(index, item);
      this.list.append(item);
    }
    const column = index % this.columns;
    const row = Math.floor(index / this.columns);
    item.style.width = item.style.height = `${this.cell}px`;
    item.style.transform = `translate(${column * (this.cell + GAP)}px, ${row * (this.cell + GAP)}px)`;
    const active = index === this.active;
    item.classList.toggle("active", active);
    item.setAttribute("aria-selected", String(active));
    if (active) this.list.setAttribute("aria-activedescendant", item.id);
    const photo = this.photoAt(index);
    if (!photo) return;
    if (item.dataset.id === photo.id) return;
    item.dataset.id = photo.id;
    const picture = document.createElement("img");
    picture.src = imageAddress(photo.id, "thumb");
    picture.alt = photo.title ?? t("untitled");
    picture.decoding = "async";
    if (photo.color) item.style.backgroundColor = photo.color;
    item.replaceChildren(picture);
    item.title = [photo.title, photo.author].filter(Boolean).join(" — ");
  }

  key(event) {
    const moves = {
      ArrowRight: 1, ArrowLeft: -1, ArrowDown: this.columns, ArrowUp: -this.columns,
      PageDown: this.columns * 4, PageUp: -this.columns * 4,
    };
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      return this.openActive();
    }
    let next;
    if (event.key in moves) next = this.active + moves[event.key];
    else if (event.key === "Home") next = 0;
    else if (event.key === "End") next = this.total - 1;
    else return;
    event.preventDefault();
    this.active = Math.max(0, Math.min(this.total - 1, next));
    this.reveal();
  }

  /// Scrolls the active photo into view and draws. The focus stays on the list, which names the
  /// active photo (aria-activedescendant): the active photo may be one no element exists for yet.
  reveal() {
    const row = Math.floor(this.active / this.columns) * (this.cell + GAP);
    const top = this.list.getBoundingClientRect().top + scrollY + row;
    if (top < scrollY) scrollTo(0, top - GAP);
    else if (top + this.cell > scrollY + innerHeight) scrollTo(0, top + this.cell - innerHeight + GAP);
    this.draw();
  }

  openActive() {
    const photo = this.photoAt(this.active);
    if (photo) this.open(photo.id, () => this.list.focus());
  }
}
