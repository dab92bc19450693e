// The gallery's page: one WebSocket to /rpc that speaks splashd's control protocol (JSON-RPC 2.0),
// the same methods and events as splashctl. No other API, nothing fetched from another host.
import { Connection } from "/rpc.js";

const statusLine = document.getElementById("status");
const grid = document.getElementById("grid");
const count = document.getElementById("count");

function say(text, ended = false) {
  statusLine.textContent = text;
  statusLine.className = ended ? "ended" : "";
}

async function showLibrary(connection) {
  const page = await connection.call("photos.list", { liked: true, sort: "-liked", limit: 200 });
  count.textContent = `${page.total} ${page.total === 1 ? "photo" : "photos"}`;
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

// Connects, and connects again when splashd goes away (a restart, a stop): the session is the
// daemon's and outlives it, so the page comes back as it was. Only an ended session (4001) stops it.
async function connect(retryIn = 1000) {
  const connection = new Connection(`ws://${location.host}/rpc`);
  connection.onEvent = (event) => {
    if (["photo.changed", "library.changed"].includes(event.type)) showLibrary(connection).catch(() => {});
  };
  connection.onEnded = (sessionEnded) => {
    if (sessionEnded) {
      say("This browser's session has ended: run splashctl open to come back.", true);
      return;
    }
    say("splashd is not answering; trying again…", true);
    setTimeout(() => reconnect(Math.min(retryIn * 2, 30000)), retryIn);
  };
  try {
    await connection.open();
    const status = await connection.call("daemon.status");
    say(`${status.account.state.replaceAll("_", " ")} · ${status.connectivity.state}`);
    await connection.call("events.subscribe", { types: ["photo.changed", "library.changed"] });
    await showLibrary(connection);
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
      say("This browser's session has ended: run splashctl open to come back.", true);
      return;
    }
  } catch {
    // Not answering yet: the WebSocket's own attempt below says so and tries again.
  }
  connect(retryIn);
}

connect();
