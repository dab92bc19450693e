// The account, as UserBoard and NicePhotoApp had it: sign up, sign in with e-mail or with Google or
// GitHub (the daemon's PKCE flow: the provider's page opens in a new tab and returns to the daemon),
// use without an account and the choice to bring what was done that way into an account, the
// profile with a rename that waits for the server's verdict, and the user count and recent sign-ups,
// kept live.
import { dates, numbers, t } from "/i18n.js";
import { button, element, refusal } from "/ui.js";

export class Account {
  constructor(connection, section) {
    this.connection = connection;
    this.section = section;
    this.body = section.querySelector(".account-body");
  }

  async start() {
    await this.draw();
    this.section.querySelector("input, button")?.focus();
  }

  async draw() {
    const status = await this.connection.call("daemon.status");
    if (status.account.state === "signed_out") await this.drawSignedOut();
    else await this.drawSignedIn();
  }

  async drawSignedOut() {
    this.verdict = null;
    const guest = await this.connection.call("guest.status").catch(() => ({ likes: 0, edits: 0 }));
    const kept = guest.likes + guest.edits > 0;
    const adopt = () => element("label", { class: "adopt" },
      element("input", { type: "checkbox", name: "adopt_guest", checked: kept }), ` ${t("account.adopt", { likes: guest.likes, edits: guest.edits })}`);
    const signIn = element("form", { class: "sign-in", "aria-labelledby": "sign-in-title" },
      element("h3", { id: "sign-in-title", text: t("account.signIn") }),
      field("email", t("account.email"), { type: "email", autocomplete: "username", required: true }),
      field("password", t("account.password"), { type: "password", autocomplete: "current-password", required: true }),
      kept ? adopt() : "",
      element("button", { type: "submit", text: t("account.signIn") }));
    const signUp = element("form", { class: "sign-up", "aria-labelledby": "sign-up-title" },
      element("h3", { id: "sign-up-title", text: t("account.signUp") }),
      field("email", t("account.email"), { type: "email", autocomplete: "username", required: true }),
      field("password", t("account.password"), { type: "password", autocomplete: "new-password", required: true, minlength: 6, maxlength: 72 }),
      field("username", t("account.username"), { required: true, pattern: "[a-z0-9_]{3,32}", autocomplete: "nickname" }),
      kept ? adopt() : "",
      element("button", { type: "submit", text: t("account.signUp") }));
    // A form's refusal shows under its own button: below both forms it was out of sight on a narrow
    // window, where the forms are stacked.
    const said = element("div", { class: "account-said", role: "status" });  // the providers'
    for (const form of [signIn, signUp]) form.append(element("div", { class: "account-said", role: "status" }));
    const submit = (method) => async (event) => {
      event.preventDefault();
      const formSaid = event.target.querySelector(".account-said");
      const form = new FormData(event.target);
      const params = Object.fromEntries([...form.entries()].filter(([name]) => name !== "adopt_guest"));
      if (kept) params.adopt_guest = form.get("adopt_guest") === "on";
      try {
        await this.connection.call(method, params);
        await this.draw();
      } catch (error) {
        formSaid.replaceChildren(refusal(error));
      }
    };
    signIn.addEventListener("submit", submit("auth.login"));
    signUp.addEventListener("submit", submit("auth.signup"));
    const providers = element("p", { class: "providers" },
      ...["google", "github"].map((provider) => button(t(`account.with.${provider}`), () => this.provider(provider, said, kept))));
    this.body.replaceChildren(
      element("p", { text: kept ? t("account.guestKept", { likes: guest.likes, edits: guest.edits }) : t("account.guest") }),
      element("div", { class: "account-forms" }, signIn, signUp), providers, said);
  }

  async provider(provider, said, kept) {
    try {
      const flow = await this.connection.call("auth.provider_login", { provider });
      window.open(flow.url, "_blank", "noopener,noreferrer");
      said.textContent = t("account.waitingForProvider");
      await this.connection.call("auth.provider_finish", { flow: flow.flow, wait_seconds: 120, ...(kept ? { adopt_guest: true } : {}) });
      await this.draw();
    } catch (error) {
      said.replaceChildren(refusal(error));
    }
  }

  async drawSignedIn() {
    const [{ profile, stale }, guest] = await Promise.all([
      this.connection.call("profile.get"),
      this.connection.call("guest.status").catch(() => ({ likes: 0, edits: 0 })),
    ]);
    const verdict = element("p", { class: "verdict", role: "status", "aria-live": "polite" });
    const rename = element("form", { class: "rename" },
      field("username", t("account.username"), { required: true, pattern: "[a-z0-9_]{3,32}", value: profile.username ?? "" }),
      element("button", { type: "submit", text: t("account.rename") }), verdict);
    rename.addEventListener("submit", (event) => {
      event.preventDefault();
      this.rename(new FormData(rename).get("username"));
    });
    const facts = element("dl", { class: "facts" },
      element("dt", { text: t("account.email") }), element("dd", { text: profile.email }),
      element("dt", { text: t("account.memberSince") }), element("dd", { text: profile.created_at ? dates.format(new Date(profile.created_at)) : "" }),
      element("dt", { text: t("account.profileState") }), element("dd", { text: t(`account.sync.${profile.sync}`) + (stale ? ` (${t("account.stale")})` : "") }));
    const adoptGuest = guest.likes + guest.edits > 0
      ? element("p", {}, t("account.guestKept", { likes: guest.likes, edits: guest.edits }), " ",
        button(t("account.adoptNow"), async () => {
          await this.connection.call("guest.adopt");
          await this.draw();
        }))
      : "";
    const signOut = button(t("account.signOut"), () => this.connection.call("auth.logout").catch(() => {}), { class: "sign-out" });
    this.body.replaceChildren(
      element("h3", { class: "username", text: profile.username ?? t("account.noUsername") }), facts, rename, adoptGuest,
      element("section", { class: "users", "aria-labelledby": "users-title" }, element("h3", { id: "users-title", text: t("account.users") }),
        element("p", { class: "user-count" }), element("ol", { class: "recent" })),
      element("p", {}, signOut, " ", element("span", { class: "quiet", text: t("account.signOutEndsGallery") })));
    if (this.verdict) this.show(this.verdict);
    await this.users();
  }

  /// The server's verdict, as `profile set-username --wait` gives it: sent, then what became of it.
  /// Kept apart from the screen, which the profile's own events draw again meanwhile.
  async rename(username) {
    this.show({ text: "…" });
    try {
      const { op_id: opId } = await this.connection.call("profile.set_username", { username });
      if (!opId) return this.show({ text: t("account.unchanged", { username }) });
      await this.connection.call("sync.now", { wait: true, timeout_seconds: 30 });
      const op = (await this.connection.call("queue.list")).ops.find((queued) => queued.op_id === opId);
      if (!op) this.show({ text: t("account.updated", { username }), ok: true });
      else if (op.state === "rejected") this.show({ text: t("account.refused", { reason: op.last_error ?? "?" }), refused: true });
      else this.show({ text: t("account.queued") });
    } catch (error) {
      this.show({ text: error.message, refused: true });
    }
  }

  show(verdict) {
    this.verdict = verdict;
    const place = this.body.querySelector(".verdict");
    if (!place) return;
    place.textContent = verdict.text;
    place.classList.toggle("ok", Boolean(verdict.ok));
    place.classList.toggle("error", Boolean(verdict.refused));
  }

  async users() {
    const count = this.body.querySelector(".user-count");
    const recent = this.body.querySelector(".recent");
    if (!count) return;
    try {
      const [total, latest] = await Promise.all([this.connection.call("users.count"), this.connection.call("users.recent", { limit: 10 })]);
      count.textContent = t("account.userCount", { n: numbers.format(total.count) });
      recent.replaceChildren(...latest.users.map((user) => element("li", { text: `${user.username ?? "—"} · ${dates.format(new Date(user.created_at))}` })));
    } catch (error) {
      count.replaceChildren(refusal(error));
    }
  }

  /// An event about the account or its users.
  changed(event) {
    if (this.section.hidden) return;
    if (event.type === "users.changed") this.users().catch(() => {});
    if (event.type === "account.changed" || event.type === "profile.updated") this.draw().catch(() => {});
  }
}

function field(name, label, attributes = {}) {
  return element("label", {}, element("span", { text: label }), element("input", { name, ...attributes }));
}
