"""The gallery's search, editor, account and status screens in a real browser against devstack."""
import os
import time
import uuid
from datetime import datetime

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

from splashtest.devstack import PASSWORD

from conftest import gallery_address, refusals
from test_screens import attribute, open_gallery, stored


def visible(browser, selector):
    return [element for element in browser.find_elements(By.CSS_SELECTOR, selector) if element.is_displayed()]


def search_form(browser, daemon):
    """The gallery opened on its search screen: the form, its query field focused."""
    open_gallery(browser, daemon)
    browser.find_element(By.ID, "nav-search").click()
    form = browser.find_element(By.CSS_SELECTOR, "#search form")
    WebDriverWait(browser, 30).until(lambda b: browser.switch_to.active_element == form.find_element(By.NAME, "query"))
    return form


def like_result(browser, daemon, photo_id):
    """Likes a search result by its heart; the heart says so and the daemon's store has the like."""
    heart = f"#search .results > li[data-id='{photo_id}'] .heart"
    browser.find_element(By.CSS_SELECTOR, heart).click()
    WebDriverWait(browser, 30).until(lambda b: attribute(b, heart, "aria-pressed") == "true")
    assert daemon.call("photos.show", {"id": photo_id}).get("liked_at")


def test_search_with_its_options_history_topics_and_a_like(daemons, browser):
    daemon = daemons()
    daemon.signup()
    form = search_form(browser, daemon)
    # NASA's options in place of Unsplash's.
    Select(form.find_element(By.NAME, "source")).select_by_value("nasa")
    assert form.find_element(By.NAME, "year_from").is_displayed() and not form.find_element(By.NAME, "orientation").is_displayed()
    Select(form.find_element(By.NAME, "source")).select_by_value("unsplash")
    assert not form.find_element(By.NAME, "year_from").is_displayed()

    Select(form.find_element(By.NAME, "orientation")).select_by_value("landscape")
    form.find_element(By.NAME, "query").send_keys("lake forest", Keys.ENTER)
    expected = daemon.call("photos.search", {"query": "lake forest", "orientation": "landscape", "per_page": 30})
    WebDriverWait(browser, 30).until(lambda b: len(b.find_elements(By.CSS_SELECTOR, "#search .results > li")) == len(expected["photos"]))
    shown = [item.get_attribute("data-id") for item in browser.find_elements(By.CSS_SELECTOR, "#search .results > li")]
    assert shown == [photo["id"] for photo in expected["photos"]]
    # The history has it, first.
    WebDriverWait(browser, 30).until(lambda b: "lake forest" in b.find_element(By.CSS_SELECTOR, "#search .history li").text)

    # Asked again: answered from this machine at once, and marked so.
    form.find_element(By.NAME, "query").send_keys(Keys.ENTER)
    WebDriverWait(browser, 30).until(lambda b: "from this machine" in b.find_element(By.CSS_SELECTOR, "#search .search-said").text)

    first = shown[0]
    like_result(browser, daemon, first)

    # A topic's photos.
    topic = browser.find_element(By.CSS_SELECTOR, "#search .topics button")
    slug_photos = None
    title = topic.text
    topic.click()
    topics = daemon.call("topics.list")["topics"]
    slug = next(item["slug"] for item in topics if item["title"] == title)
    slug_photos = [photo["id"] for photo in daemon.call("topics.photos", {"slug": slug, "per_page": 30})["photos"]]
    WebDriverWait(browser, 30).until(
        lambda b: [item.get_attribute("data-id") for item in b.find_elements(By.CSS_SELECTOR, "#search .results > li")] == slug_photos)
    assert refusals(browser) == []


def test_a_nasa_search_with_its_years_and_a_like(daemons, browser):
    """NASA's Image and Video Library through the same form: its year range instead of Unsplash's
    options, the results the daemon gives for them, a like from them."""
    daemon = daemons()
    daemon.signup()
    form = search_form(browser, daemon)
    Select(form.find_element(By.NAME, "source")).select_by_value("nasa")
    form.find_element(By.NAME, "year_from").send_keys("2000")
    form.find_element(By.NAME, "year_to").send_keys("2015")
    form.find_element(By.NAME, "query").send_keys("mars", Keys.ENTER)
    expected = daemon.call("photos.search", {"query": "mars", "source": "nasa", "year_from": 2000, "year_to": 2015, "per_page": 30})
    assert expected["photos"], "devstack's NASA has photos of mars in those years"
    wanted = [photo["id"] for photo in expected["photos"]]
    WebDriverWait(browser, 30).until(
        lambda b: [item.get_attribute("data-id") for item in b.find_elements(By.CSS_SELECTOR, "#search .results > li")] == wanted)
    assert all(pid.startswith("nasa:") for pid in wanted)
    WebDriverWait(browser, 30).until(lambda b: "mars · NASA" in b.find_element(By.CSS_SELECTOR, "#search .history li").text)

    first = wanted[0]
    like_result(browser, daemon, first)
    assert refusals(browser) == []


def test_a_near_duplicate_is_refused_with_its_twin_and_can_be_liked_anyway(daemons, browser):
    """A search result that looks like a photo already liked: its like is refused, the twin is shown
    beside it, and "like anyway" likes it."""
    import sqlite3
    import time
    daemon = daemons()
    daemon.signup()
    found = [photo["id"] for photo in daemon.call("photos.search", {"query": "lake", "per_page": 30})["photos"]]
    liked, lookalike = found[0], found[1]
    daemon.call("photos.like", {"id": liked})

    def phash(photo_id):
        with sqlite3.connect(daemon.db_path, timeout=30) as db:
            return db.execute("SELECT phash FROM photos WHERE id = ?", (photo_id,)).fetchone()[0]
    # The liked photo's file arrives and is hashed (DuplicateScanner, at once for a library arrival).
    deadline = time.monotonic() + 60
    while phash(liked) is None:
        assert time.monotonic() < deadline, f"{liked} was never hashed"
        time.sleep(0.2)

    form = search_form(browser, daemon)
    form.find_element(By.NAME, "query").send_keys("lake", Keys.ENTER)
    item = f"#search .results > li[data-id='{lookalike}']"
    WebDriverWait(browser, 30).until(lambda b: b.find_elements(By.CSS_SELECTOR, item))
    # The second result's picture, as if it were the first's re-encoded: the same perceptual hash, as
    # the scanner would have taken it (devstack's Unsplash has no two photos alike). Only a library
    # arrival is hashed, so a search result's hash stays as written.
    with sqlite3.connect(daemon.db_path, timeout=30) as db:
        db.execute("UPDATE photos SET phash = ? WHERE id = ?", (phash(liked), lookalike))

    browser.find_element(By.CSS_SELECTOR, f"{item} .heart").click()
    WebDriverWait(browser, 30).until(lambda b: b.find_elements(By.CSS_SELECTOR, f"{item} .twin li[data-id='{liked}']"))
    assert attribute(browser, f"{item} .heart", "aria-pressed") != "true"
    assert not daemon.call("photos.show", {"id": lookalike}).get("liked_at")
    assert [error["data"]["kind"] for error in refusals(browser)] == ["duplicate"]

    browser.find_element(By.CSS_SELECTOR, f"{item} .twin button").click()
    WebDriverWait(browser, 30).until(lambda b: attribute(b, f"{item} .heart", "aria-pressed") == "true")
    assert not browser.find_elements(By.CSS_SELECTOR, f"{item} .twin")
    assert daemon.call("photos.show", {"id": lookalike}).get("liked_at")
    assert refusals(browser) == []


def test_editor_preview_follows_the_slider_and_the_saved_edit_reaches_the_server(daemons, devstack, browser):
    daemon = daemons()
    email = daemon.signup()
    photo = stored(daemon)[0]
    daemon.call("photos.like", {"id": photo})
    open_gallery(browser, daemon)
    browser.get(browser.current_url.split("#")[0] + f"#/edit/{photo}")
    section = browser.find_element(By.ID, "edit")
    WebDriverWait(browser, 60).until(lambda b: section.is_displayed() and b.find_elements(By.CSS_SELECTOR, "#edit fieldset"))
    WebDriverWait(browser, 60).until(lambda b: (attribute(b, "#edit .preview", "src") or "").startswith("http"))

    filters = daemon.call("filters.list")["filters"]
    name = filters[0]["name"]
    slider = browser.find_element(By.CSS_SELECTOR, f"#edit fieldset[data-filter='{name}'] input[type=range]")
    slider.send_keys(Keys.ARROW_LEFT)
    WebDriverWait(browser, 60).until(lambda b: (attribute(b, "#edit .preview", "src") or "").startswith("data:image/jpeg"))
    first_preview = attribute(browser, "#edit .preview", "src")
    for _ in range(30):
        slider.send_keys(Keys.ARROW_LEFT)
    WebDriverWait(browser, 60).until(lambda b: attribute(b, "#edit .preview", "src") not in (first_preview, None))
    # The last position's preview ends up shown, whatever was in flight while the key was held.
    settled = browser.find_element(By.CSS_SELECTOR, "#edit").get_attribute("data-previewed")
    WebDriverWait(browser, 60).until(lambda b: b.execute_script(
        "const p = document.querySelector('#edit .preview'); return p.complete && p.naturalWidth > 0"))
    assert int(settled) >= 2

    browser.find_element(By.CSS_SELECTOR, "#edit .save").click()
    WebDriverWait(browser, 60).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#edit .edits li[data-edit]"))
    edit_id = browser.find_element(By.CSS_SELECTOR, "#edit .edits li[data-edit]").get_attribute("data-edit")
    WebDriverWait(browser, 60).until(lambda b: b.execute_script(
        "const i = document.querySelector('#edit .edits li[data-edit] img'); return !!i && i.complete && i.naturalWidth > 0"))
    daemon.wait_drained(daemon.rpc())
    rows = devstack.service_get(f"edits?select=id,photo_id,pipeline&id=eq.{edit_id}")
    assert len(rows) == 1 and rows[0]["photo_id"] == photo, rows
    assert rows[0]["pipeline"][0]["filter"] == name, rows

    browser.find_element(By.CSS_SELECTOR, f"#edit .edits li[data-edit='{edit_id}'] button").click()
    WebDriverWait(browser, 60).until(lambda b: not b.find_elements(By.CSS_SELECTOR, f"#edit .edits li[data-edit='{edit_id}']"))
    # A preview still rendering when the key was pressed again was cancelled: expected, and not shown.
    assert [error for error in refusals(browser) if error["data"]["kind"] != "cancelled"] == []
    assert not browser.find_elements(By.CSS_SELECTOR, "#edit .editor-said .error")


def test_a_newer_slider_position_cancels_the_preview_still_rendering(daemons, browser, tmp_path):
    """A 6000 x 4000 PNG (no shrink-on-load: its preview decodes every pixel, hundreds of ms) and two
    key presses in one WebDriver call, milliseconds apart: the second position's render replaces the
    first's, which the page cancels and the daemon stops, answering `cancelled`; the page shows the
    second position's preview and no error."""
    from PIL import Image
    import json
    daemon = daemons()
    folder = tmp_path / "Large"
    folder.mkdir()
    Image.linear_gradient("L").resize((6000, 4000)).convert("RGB").save(folder / "large.png", compress_level=1)
    photo = daemon.call("library.import", {"path": str(folder)})["imported"][0]["id"]
    open_gallery(browser, daemon)
    browser.get(browser.current_url.split("#")[0] + f"#/edit/{photo}")
    WebDriverWait(browser, 60).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#edit fieldset input[type=range]"))
    refusals(browser)  # what came before
    name = daemon.call("filters.list")["filters"][0]["name"]
    slider = browser.find_element(By.CSS_SELECTOR, f"#edit fieldset[data-filter='{name}'] input[type=range]")
    before = int(browser.find_element(By.CSS_SELECTOR, "#edit").get_attribute("data-previewed"))
    slider.send_keys(Keys.ARROW_LEFT, Keys.ARROW_LEFT)
    WebDriverWait(browser, 60).until(lambda b: (attribute(b, "#edit .preview", "src") or "").startswith("data:image/jpeg"))

    sent, received = [], []
    for entry in browser.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] in ("Network.webSocketFrameSent", "Network.webSocketFrameReceived"):
            frame = json.loads(message["params"]["response"]["payloadData"])
            (sent if message["method"].endswith("Sent") else received).append(frame)
    previews = [frame["id"] for frame in sent if frame.get("method") == "edits.preview"]
    cancels = [frame["params"]["id"] for frame in sent if frame.get("method") == "$/cancelRequest"]
    assert len(previews) == 2 and cancels == previews[:1], (previews, cancels)
    answers = {frame["id"]: frame for frame in received if frame.get("id") in previews}
    assert answers[previews[0]]["error"]["data"]["kind"] == "cancelled", answers[previews[0]]
    assert "result" in answers[previews[1]], answers[previews[1]]
    assert int(browser.find_element(By.CSS_SELECTOR, "#edit").get_attribute("data-previewed")) == before + 2, "the second position's"
    assert not browser.find_elements(By.CSS_SELECTOR, "#edit .editor-said .error")


def test_account_sign_up_rename_with_the_servers_verdict_and_live_sign_ups(daemons, devstack, browser):
    daemon = daemons()
    taken = "taken" + uuid.uuid4().hex[:8]
    devstack.signup(f"other-{uuid.uuid4().hex[:8]}@example.com", username=taken)
    open_gallery(browser, daemon)
    browser.find_element(By.ID, "nav-account").click()
    WebDriverWait(browser, 30).until(lambda b: visible(b, "#account form.sign-up"))
    sign_up = browser.find_element(By.CSS_SELECTOR, "#account form.sign-up")
    email = f"gallery-{uuid.uuid4().hex[:8]}@example.com"
    mine = "mine" + uuid.uuid4().hex[:8]
    sign_up.find_element(By.NAME, "email").send_keys(email)
    sign_up.find_element(By.NAME, "password").send_keys("secret12")
    sign_up.find_element(By.NAME, "username").send_keys(mine, Keys.ENTER)
    WebDriverWait(browser, 60).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#account .username"))
    assert browser.find_element(By.CSS_SELECTOR, "#account .username").text == mine
    WebDriverWait(browser, 30).until(lambda b: "signed in" in b.find_element(By.ID, "status").text)

    rename = browser.find_element(By.CSS_SELECTOR, "#account form.rename")
    field = rename.find_element(By.NAME, "username")
    field.clear()
    field.send_keys(taken, Keys.ENTER)
    WebDriverWait(browser, 60).until(lambda b: "Refused" in b.find_element(By.CSS_SELECTOR, "#account .verdict").text)
    assert "already taken" in browser.find_element(By.CSS_SELECTOR, "#account .verdict").text
    fresh = "fresh" + uuid.uuid4().hex[:8]
    rename = browser.find_element(By.CSS_SELECTOR, "#account form.rename")
    field = rename.find_element(By.NAME, "username")
    field.clear()
    field.send_keys(fresh, Keys.ENTER)
    WebDriverWait(browser, 60).until(lambda b: "Updated!" in b.find_element(By.CSS_SELECTOR, "#account .verdict").text)
    assert devstack.service_get(f"profiles?select=username&email=eq.{email}")[0]["username"] == fresh

    # Someone signs up elsewhere: the recent sign-ups follow without a reload.
    newcomer = "new" + uuid.uuid4().hex[:8]
    devstack.signup(f"newcomer-{uuid.uuid4().hex[:8]}@example.com", username=newcomer)
    WebDriverWait(browser, 60).until(lambda b: newcomer in b.find_element(By.CSS_SELECTOR, "#account .recent").text)
    assert "users have signed up" in browser.find_element(By.CSS_SELECTOR, "#account .user-count").text


def test_a_provider_sign_in_begun_in_the_gallery_leads_back_to_it(daemons, browser):
    """Sign in with GitHub from the account screen: the provider's tab ends on the daemon's page, which
    links back to the gallery (let in already: its cookie goes with a link from the same host), and
    the gallery's own tab is signed in."""
    daemon = daemons()
    open_gallery(browser, daemon)
    gallery_tab = browser.current_window_handle
    origin = browser.current_url.split("#")[0].rstrip("/")
    browser.find_element(By.ID, "nav-account").click()
    WebDriverWait(browser, 30).until(lambda b: visible(b, "#account .providers button"))
    browser.find_element(By.XPATH, "//section[@id='account']//button[text()='Sign in with GitHub']").click()
    WebDriverWait(browser, 30).until(lambda b: len(b.window_handles) == 2)
    browser.switch_to.window(next(handle for handle in browser.window_handles if handle != gallery_tab))
    WebDriverWait(browser, 30).until(lambda b: b.find_elements(By.LINK_TEXT, "Back to the gallery"))
    assert "finishes in the gallery" in browser.find_element(By.TAG_NAME, "body").text
    back = browser.find_element(By.LINK_TEXT, "Back to the gallery")
    assert back.get_attribute("href") == origin + "/#/account"

    browser.switch_to.window(gallery_tab)
    WebDriverWait(browser, 60).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#account .username"))
    assert daemon.call("auth.whoami")["account"]["email"] == "github-user@devstack.test"

    browser.switch_to.window(next(handle for handle in browser.window_handles if handle != gallery_tab))
    back.click()
    WebDriverWait(browser, 30).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#account .username"))
    assert browser.current_url == origin + "/#/account"
    assert refusals(browser) == []


def test_status_shows_the_services_and_watches_a_folder(daemons, browser, tmp_path):
    # No system bus, whatever this machine has: what the page says of the desktop is then known.
    daemon = daemons(env={"DBUS_SYSTEM_BUS_ADDRESS": f"unix:path={tmp_path}/no-bus"},
                     config='[network]\nmax_upload_rate = "500 KB/s"\n')
    folder = tmp_path / "Camera"
    folder.mkdir()
    open_gallery(browser, daemon)
    browser.find_element(By.ID, "nav-status").click()
    WebDriverWait(browser, 30).until(lambda b: visible(b, "#status-screen .status-body dl"))
    text = browser.find_element(By.CSS_SELECTOR, "#status-screen .status-body").text
    assert "Network" in text and "Live changes" in text and "Nothing waiting to be sent." in text
    assert "This machine\nunknown (no system bus)" in text and "sync running (not paused)" in text, text
    assert "Bandwidth\ndownloads unlimited · uploads at most 500 KB/s" in text, text

    add = browser.find_element(By.CSS_SELECTOR, "#status-screen form.add-folder")
    add.find_element(By.NAME, "path").send_keys(str(folder), Keys.ENTER)
    WebDriverWait(browser, 60).until(lambda b: b.find_elements(By.CSS_SELECTOR, f"#status-screen .folders li[data-path='{folder}']"))
    assert [entry["path"] for entry in daemon.call("library.watching")["folders"]] == [str(folder)]
    browser.find_element(By.CSS_SELECTOR, f"#status-screen .folders li[data-path='{folder}'] button").click()
    WebDriverWait(browser, 60).until(lambda b: not b.find_elements(By.CSS_SELECTOR, "#status-screen .folders li"))
    assert daemon.call("library.watching")["folders"] == []
    assert refusals(browser) == []


def test_status_pauses_and_resumes_and_hears_a_pause_made_elsewhere(daemons, browser):
    daemon = daemons()
    open_gallery(browser, daemon)
    browser.find_element(By.ID, "nav-status").click()
    WebDriverWait(browser, 30).until(lambda b: visible(b, "#status-screen form.pause"))
    screen_says = lambda words: lambda b: words in b.find_element(By.CSS_SELECTOR, "#status-screen").text  # noqa: E731
    header_says = lambda words: lambda b: words in b.find_element(By.ID, "status").text  # noqa: E731

    pause = browser.find_element(By.CSS_SELECTOR, "#status-screen form.pause")
    Select(pause.find_element(By.NAME, "for")).select_by_value("3600")
    pause.find_element(By.NAME, "downloads_only").click()
    asked = time.time()
    pause.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    WebDriverWait(browser, 30).until(screen_says("downloads paused until"))
    WebDriverWait(browser, 30).until(header_says("downloads paused until"))
    paused = daemon.call("daemon.status")["pause"]
    assert paused["paused"] and paused["downloads_only"], paused
    left = datetime.fromisoformat(paused["until"].replace("Z", "+00:00")).timestamp() - asked
    assert 3590 <= left <= 3610, f"an hour asked, {left:.0f} s given"

    next(b for b in browser.find_elements(By.CSS_SELECTOR, "#status-screen button") if b.text == "Resume").click()
    WebDriverWait(browser, 30).until(screen_says("sync running (not paused)"))
    assert daemon.call("daemon.status")["pause"]["paused"] is False
    WebDriverWait(browser, 30).until(lambda b: "paused" not in b.find_element(By.ID, "status").text)

    # A pause made with splashctl reaches the open page by its event.
    daemon.call("sync.pause", {})
    WebDriverWait(browser, 30).until(screen_says("sync paused until resumed"))
    WebDriverWait(browser, 30).until(header_says("sync paused until resumed"))
    daemon.call("sync.resume", {})
    WebDriverWait(browser, 30).until(screen_says("sync running (not paused)"))
    assert refusals(browser) == []


def test_sign_in_bringing_the_guests_likes_into_the_account(daemons, devstack, browser):
    daemon = daemons()
    email = f"guest-{uuid.uuid4().hex[:8]}@example.com"
    name = "guest" + uuid.uuid4().hex[:8]
    devstack.signup(email, username=name)
    photo = stored(daemon)[0]
    daemon.call("photos.like", {"id": photo})  # signed out: the guest's like
    open_gallery(browser, daemon)
    browser.find_element(By.ID, "nav-account").click()
    WebDriverWait(browser, 30).until(lambda b: visible(b, "#account form.sign-in"))
    assert "Made here without an account: likes 1, edits 0." in browser.find_element(By.CSS_SELECTOR, "#account").text
    sign_in = browser.find_element(By.CSS_SELECTOR, "#account form.sign-in")
    assert sign_in.find_element(By.NAME, "adopt_guest").is_selected(), "bringing them in is offered, and chosen"
    sign_in.find_element(By.NAME, "email").send_keys(email)
    sign_in.find_element(By.NAME, "password").send_keys(PASSWORD, Keys.ENTER)
    WebDriverWait(browser, 60).until(lambda b: visible(b, "#account .username"))
    assert browser.find_element(By.CSS_SELECTOR, "#account .username").text == name
    daemon.wait_drained(daemon.rpc())
    likes, _ = devstack.server_likes(email)
    assert likes == {photo: True}
    assert refusals(browser) == []


def test_a_narrow_editor_keeps_the_preview_in_sight_while_a_slider_far_down_moves(daemons, browser):
    """At 380 px the editor stacks: the before/after first, held under the header while the filters
    scroll, so the last filter's slider and the preview it changes are on screen together."""
    daemon = daemons()
    photo = stored(daemon)[0]
    browser.set_window_size(380, 760)
    open_gallery(browser, daemon)
    browser.get(browser.current_url.split("#")[0] + f"#/edit/{photo}")
    WebDriverWait(browser, 60).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#edit fieldset[data-filter='pixellate']"))
    slider = browser.find_element(By.CSS_SELECTOR, "#edit input[name='pixellate.scale']")
    browser.execute_script("arguments[0].scrollIntoView({block: 'end'})", slider)
    slider.send_keys(Keys.ARROW_RIGHT)
    WebDriverWait(browser, 60).until(lambda b: (attribute(b, "#edit .preview", "src") or "").startswith("data:image/jpeg"))
    WebDriverWait(browser, 60).until(lambda b: b.execute_script(
        "const p = document.querySelector('#edit .preview'); return p.complete && p.naturalWidth > 0"))
    seen = browser.execute_script("""
        const visible = (element) => {
          const box = element.getBoundingClientRect();
          const x = box.left + box.width / 2, y = box.top + box.height / 2;
          return box.height > 0 && box.top >= 0 && box.bottom <= innerHeight && document.elementFromPoint(x, y) === element;
        };
        return { preview: visible(document.querySelector('#edit .preview')),
                 slider: visible(document.querySelector("#edit input[name='pixellate.scale']")),
                 scrolled: scrollY };""")
    assert seen["scrolled"] > 0, seen
    assert seen["preview"] and seen["slider"], seen
    assert refusals(browser) == []
