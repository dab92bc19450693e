// The editor, as SplashEdit had it: every filter of `filters.list` with its parameters as sliders,
// a preview the daemon renders as they move, the original beside it, save (queued for the server
// like any change) and the photo's edits with their removal.
//
// One preview is in flight at a time: the connection answers its requests in order, so a render
// asked for behind another would only wait. A newer slider position cancels the render in flight
// ($/cancelRequest: the daemon stops libvips) and replaces the one waiting to be sent; an answer
// older than the newest position asked for is never shown.
import { filterSummary, parameterSummary } from "/filter-text.js";
import { dates, t } from "/i18n.js";
import { button, element, imageAddress, refusal } from "/ui.js";

const PREVIEW_SIZE = 768;

export class Editor {
  constructor(connection, section) {
    this.connection = connection;
    this.section = section;
    this.controls = section.querySelector(".filters");
    this.original = section.querySelector(".original");
    this.preview = section.querySelector(".preview");
    this.said = section.querySelector(".editor-said");
    this.editList = section.querySelector(".edits");
    this.catalogue = null;
    this.photoId = null;
    this.asked = 0;
    this.shown = 0;
    this.inFlight = null;
    this.waiting = false;
    section.querySelector(".save").addEventListener("click", () => this.save());
    section.querySelector(".reset").addEventListener("click", () => this.reset());
  }

  async start(photoId) {
    this.photoId = photoId;
    if (!this.catalogue) this.catalogue = (await this.connection.call("filters.list")).filters;
    this.drawControls();
    const photo = await this.connection.call("photos.show", { id: photoId }).catch(() => null);
    this.section.querySelector("h2").textContent = `${t("editor.title")}: ${photo?.title ?? t("untitled")}`;
    this.original.src = imageAddress(photoId, "screen");
    this.preview.removeAttribute("src");
    this.said.textContent = "";
    await this.listEdits();
    this.render();
    this.controls.querySelector("input")?.focus();
  }

  drawControls() {
    this.controls.replaceChildren(...this.catalogue.map((filter) => {
      const use = element("input", { type: "checkbox", name: `use-${filter.name}` });
      use.addEventListener("change", () => this.render());
      const sliders = filter.parameters.map((parameter) => {
        const step = parameter.maximum - parameter.minimum > 10 ? 1 : 0.01;
        const slider = element("input", {
          type: "range", name: `${filter.name}.${parameter.name}`, min: parameter.minimum, max: parameter.maximum, step,
          value: parameter.default, "data-filter": filter.name,
        });
        const value = element("output", { text: String(parameter.default) });
        slider.addEventListener("input", () => {
          value.textContent = slider.value;
          use.checked = true;
          this.render();
        });
        return element("label", { title: parameterSummary(filter, parameter) }, element("span", { text: parameter.name }), slider, value);
      });
      return element("fieldset", { "data-filter": filter.name },
        element("legend", {}, element("label", {}, use, ` ${filter.name}`)), element("p", { class: "quiet", text: filterSummary(filter) }), ...sliders);
    }));
  }

  /// The chosen filters, in the catalogue's order, with the sliders' values.
  steps() {
    return this.catalogue
      .filter((filter) => this.controls.querySelector(`[name="use-${filter.name}"]`).checked)
      .map((filter) => ({
        filter: filter.name,
        params: filter.parameters.map((parameter) => Number(this.controls.querySelector(`[name="${filter.name}.${parameter.name}"]`).value)),
      }));
  }

  reset() {
    this.drawControls();
    this.render();
  }

  /// Asks for a preview of the sliders as they are now, or, with one in flight, for one after it.
  render() {
    if (this.inFlight) {
      this.waiting = true;
      this.inFlight.abort();
      return;
    }
    const steps = this.steps();
    const asked = ++this.asked;
    if (steps.length === 0) {
      this.preview.src = this.original.src;
      this.shown = asked;
      this.section.dataset.previewed = asked;
      return;
    }
    this.inFlight = new AbortController();
    this.connection.call("edits.preview", { id: this.photoId, filters: steps, size: PREVIEW_SIZE }, { signal: this.inFlight.signal })
      .then((answer) => {
        if (asked < this.asked || this.waiting) return;
        this.preview.src = `data:image/jpeg;base64,${answer.jpeg}`;
        this.shown = asked;
        this.section.dataset.previewed = asked;
        this.said.textContent = "";
      })
      .catch((error) => {
        if (error.kind !== "cancelled") this.said.replaceChildren(refusal(error));
      })
      .finally(() => {
        this.inFlight = null;
        if (this.waiting) {
          this.waiting = false;
          this.render();
        }
      });
  }

  async save() {
    const steps = this.steps();
    if (steps.length === 0) return;
    try {
      await this.connection.call("edits.create", { id: this.photoId, filters: steps });
      this.said.textContent = t("editor.saved");
    } catch (error) {
      this.said.replaceChildren(refusal(error));
    }
    await this.listEdits();
  }

  async listEdits() {
    const { edits } = await this.connection.call("edits.list", { id: this.photoId });
    this.editList.replaceChildren(...edits.map((edit) => element("li", { "data-edit": edit.edit_id },
      element("img", { src: imageAddress(edit.photo_id, `edit/${edit.edit_id}`), alt: "", loading: "lazy" }),
      element("span", { text: `${edit.filters.map((step) => step.filter).join(" + ")} · ${dates.format(new Date(edit.created_at))} · ${t(`editState.${edit.state}`)}` }),
      button(t("editor.remove"), () => this.remove(edit.edit_id)))));
    if (edits.length === 0) this.editList.append(element("li", { class: "quiet", text: t("editor.none") }));
  }

  async remove(editId) {
    try {
      await this.connection.call("edits.delete", { edit_id: editId });
    } catch (error) {
      this.said.replaceChildren(refusal(error));
    }
    await this.listEdits();
  }

  /// An edit of this photo changed elsewhere (a sync, another device): the list again.
  changed(photoId) {
    if (photoId === this.photoId && !this.section.hidden) this.listEdits().catch(() => {});
  }
}
