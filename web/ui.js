// The page's one set of small DOM helpers.
import { numbers, t } from "/i18n.js";

/// An element with attributes (`text` sets its text) and children.
export function element(name, attributes = {}, ...children) {
  const made = document.createElement(name);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") made.textContent = value;
    else made.setAttribute(key, value === true ? "" : value);
  }
  made.append(...children);
  return made;
}

/// A button that runs `action` when pressed.
export function button(text, action, attributes = {}) {
  const made = element("button", { type: "button", text, ...attributes });
  made.addEventListener("click", action);
  return made;
}

/// A link out of the gallery: a new tab, no opener, no referrer.
export function outLink(href, text) {
  return element("a", { href, text, target: "_blank", rel: "noopener noreferrer" });
}

export function bytes(count) {
  if (count === undefined || count === null) return "";
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = count;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${numbers.format(Math.round(value * 10) / 10)} ${units[unit]}`;
}

/// Where the gallery serves a photo's picture: `thumb`, `screen`, `original`, or `edit/<edit id>` for an
/// edit's rendering.
export function imageAddress(photoId, what) {
  return `/images/${encodeURIComponent(photoId)}/${what}`;
}

/// A photo's thumbnail as the grid and the search show it; Enter or a click opens it.
export function thumbnail(photo, open) {
  const item = element("li", { "data-id": photo.id, tabindex: 0, title: [photo.title, photo.author].filter(Boolean).join(" — ") });
  item.append(element("img", { src: imageAddress(photo.id, "thumb"), alt: photo.title ?? t("untitled"), decoding: "async" }));
  if (photo.color) item.style.backgroundColor = photo.color;
  item.addEventListener("click", () => open(photo.id));
  item.addEventListener("keydown", (event) => {
    if (event.key === "Enter") open(photo.id);
  });
  return item;
}

/// A refusal as the person reads it: the daemon's sentence.
export function refusal(error) {
  return element("p", { class: "error", role: "alert", text: error.message });
}
