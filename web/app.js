// The gallery's page: one WebSocket to /rpc that speaks splashd's control protocol (JSON-RPC 2.0),
// the same methods and events as splashctl. No other API, nothing fetched from another host.
import { Connection } from "/rpc.js";

const statusLine = document.getElementById("status");
const grid = document.getElementById("grid");
const count = document.getElementById("count");

const connection = new Connection(`ws://${location.host}/rpc`);
connection.onEnded = (why) => {
  statusLine.textContent = why;
  statusLine.className = "ended";
};

async function showLibrary() {
  const page = await connection.call("photos.list", { liked: true, sort: "-liked", limit: 200 });
  count.textContent = `${page.total} photos`;
  grid.replaceChildren(...page.photos.map((photo) => {
    const item = document.createElement("li");
    const picture = document.createElement("img");
    picture.src = `/images/${encodeURIComponent(photo.id)}/thumb`;
    picture.alt = photo.title ?? photo.id;
    picture.loading = "lazy";
    item.dataset.id = photo.id;
    item.append(picture);
    return item;
  }));
}

connection.onEvent = (event) => {
  if (["photo.changed", "library.changed"].includes(event.type)) showLibrary();
};

try {
  await connection.open();
  const status = await connection.call("daemon.status");
  statusLine.textContent = `${status.account.state.replaceAll("_", " ")} · ${status.connectivity.state}`;
  await connection.call("events.subscribe", { types: ["photo.changed", "library.changed"] });
  await showLibrary();
} catch (error) {
  statusLine.textContent = error.message;
  statusLine.className = "ended";
}
