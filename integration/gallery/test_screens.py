"""The gallery's screens in a real browser, with the keyboard alone where a person would use it:
the library's filters and its virtualised grid, a photo's detail with its 30-day chart, triage with
← / → and undo, and the page in Brazilian Portuguese."""
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

import pytest

from conftest import gallery_address, refusals


# Every word devstack's Unsplash gives its photos, in two searches of at most 200 characters.
VOCABULARY = ("mountain lake forest city night sky ocean beach desert snow flower cat dog street bridge sunset sunrise "
              "river waterfall architecture portrait coffee book car train autumn winter spring summer rain fog",
              "star moon aurora canyon island harbor tower garden meadow valley glacier volcano cliff market festival "
              "lantern skyline window door staircase library bicycle boat")


def stored(daemon, pages=1):
    """Photos put into the daemon's store through searches of devstack's Unsplash; their ids in the
    order found, each once."""
    ids = []
    for query in VOCABULARY:
        for page in range(1, pages + 1):
            found = daemon.call("photos.search", {"query": query, "per_page": 30, "page": page})["photos"]
            ids += [photo["id"] for photo in found if photo["id"] not in ids]
    return ids


def text(browser, element_id):
    return browser.find_element(By.ID, element_id).text


def attribute(browser, selector, name):
    """An attribute read in one step: the detail is drawn again after each change, and an element
    found in one step and read in the next may be gone by then."""
    return browser.execute_script("return document.querySelector(arguments[0])?.getAttribute(arguments[1])", selector, name)


def grid_ids(browser):
    return [item.get_attribute("data-id") for item in browser.find_elements(By.CSS_SELECTOR, "#grid li[data-id]")]


def open_gallery(browser, daemon):
    browser.get(gallery_address(daemon))
    WebDriverWait(browser, 30).until(lambda b: "·" in text(b, "status"))


def test_filters_a_virtualised_grid_and_a_photos_detail_with_its_chart(daemons, browser):
    daemon = daemons()
    daemon.signup()
    ids = stored(daemon, pages=2)
    assert len(ids) >= 50, ids
    liked = ids[:3]
    for photo_id in liked:
        daemon.call("photos.like", {"id": photo_id})
    total = daemon.call("photos.list", {"limit": 1})["total"]

    browser.set_window_size(700, 600)
    open_gallery(browser, daemon)
    WebDriverWait(browser, 30).until(lambda b: text(b, "count") == "3 photos")
    assert sorted(grid_ids(browser)) == sorted(liked)

    Select(browser.find_element(By.NAME, "view")).select_by_value("all")
    WebDriverWait(browser, 30).until(lambda b: text(b, "count") == f"{total} photos")
    shown = browser.find_elements(By.CSS_SELECTOR, "#grid li")
    assert 0 < len(shown) < total, f"{len(shown)} elements for {total} photos: the grid draws what is in view, not all"

    # The keyboard alone: into the grid, to its end and back, then a photo opened with Enter.
    grid = browser.find_element(By.ID, "grid")
    grid.send_keys(Keys.END)
    WebDriverWait(browser, 30).until(lambda b: b.find_elements(By.ID, f"photo-{total - 1}"))
    assert not browser.find_elements(By.ID, "photo-0"), "the first row left the window and its elements went"
    grid.send_keys(Keys.HOME)
    WebDriverWait(browser, 30).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#photo-0[data-id]"))
    grid.send_keys(Keys.ARROW_RIGHT)
    second = browser.find_element(By.ID, "photo-1").get_attribute("data-id")
    assert grid.get_attribute("aria-activedescendant") == "photo-1"
    grid.send_keys(Keys.ENTER)
    dialog = browser.find_element(By.ID, "detail")
    WebDriverWait(browser, 30).until(lambda b: dialog.is_displayed() and dialog.find_elements(By.CSS_SELECTOR, "h2"))
    detail = daemon.call("photos.show", {"id": second})
    assert dialog.find_element(By.CSS_SELECTOR, "h2").text == (detail.get("title") or "Untitled")
    assert detail["author"] in dialog.find_element(By.CSS_SELECTOR, ".credit").text
    # The 30-day chart: the daemon's numbers, a point for each day.
    stats = daemon.call("photos.stats", {"id": second})
    WebDriverWait(browser, 30).until(lambda b: len(dialog.find_elements(By.CSS_SELECTOR, "svg.views circle")) == len(stats["views"]["values"]))
    assert len(stats["views"]["values"]) == 30
    assert f"{stats['downloads']['total']:,}" in dialog.find_element(By.CSS_SELECTOR, ".stats").text

    # Liked from the dialog: the grid's My Collection has it, and the server will.
    dialog.find_element(By.CSS_SELECTOR, "button.like").click()
    WebDriverWait(browser, 30).until(lambda b: attribute(b, "#detail button.like", "aria-pressed") == "true")
    assert daemon.call("photos.show", {"id": second}).get("liked_at")
    dialog.send_keys(Keys.ESCAPE)
    WebDriverWait(browser, 30).until(lambda b: not dialog.is_displayed())
    assert browser.switch_to.active_element == grid, "the focus goes back to the grid"
    Select(browser.find_element(By.NAME, "view")).select_by_value("liked")
    WebDriverWait(browser, 30).until(lambda b: text(b, "count") == "4 photos")

    # Words and colour, as photos list takes them.
    expected = daemon.call("photos.list", {"text": detail["author"].split()[0], "limit": 1})["total"]
    Select(browser.find_element(By.NAME, "view")).select_by_value("all")
    browser.find_element(By.NAME, "text").send_keys(detail["author"].split()[0])
    noun = "photo" if expected == 1 else "photos"
    WebDriverWait(browser, 30).until(lambda b: text(b, "count") == f"{expected} {noun}")
    assert refusals(browser) == []


def test_triage_with_the_arrow_keys_and_undo(daemons, browser):
    daemon = daemons()
    daemon.signup()
    ids = stored(daemon)
    open_gallery(browser, daemon)
    browser.find_element(By.ID, "nav-triage").click()
    card = browser.find_element(By.CSS_SELECTOR, "#triage .card")
    WebDriverWait(browser, 30).until(lambda b: card.get_attribute("data-id"))
    first = card.get_attribute("data-id")
    assert first in ids
    assert browser.switch_to.active_element == card, "the card has the focus: the arrows work at once"

    card.send_keys(Keys.ARROW_RIGHT)
    WebDriverWait(browser, 30).until(lambda b: card.get_attribute("data-id") != first)
    assert daemon.call("photos.show", {"id": first}).get("liked_at")
    second = card.get_attribute("data-id")
    card.send_keys(Keys.ARROW_LEFT)
    WebDriverWait(browser, 30).until(lambda b: card.get_attribute("data-id") != second)
    assert daemon.call("photos.show", {"id": second}).get("dismissed_at")

    card.send_keys(Keys.BACKSPACE)
    WebDriverWait(browser, 30).until(lambda b: card.get_attribute("data-id") == second)
    assert not daemon.call("photos.show", {"id": second}).get("dismissed_at")
    card.send_keys(Keys.BACKSPACE)
    WebDriverWait(browser, 30).until(lambda b: card.get_attribute("data-id") == first)
    assert not daemon.call("photos.show", {"id": first}).get("liked_at")
    assert "back" in browser.find_element(By.CSS_SELECTOR, "#triage .said").text
    assert refusals(browser) == []


def test_triage_by_dragging_the_card_aside(daemons, browser):
    """A drag of a quarter of the card's width or more decides (right: favourite, left: dismiss); a
    shorter one springs back and decides nothing."""
    from selenium.webdriver.common.action_chains import ActionChains
    daemon = daemons()
    daemon.signup()
    stored(daemon)
    open_gallery(browser, daemon)
    browser.find_element(By.ID, "nav-triage").click()
    card = browser.find_element(By.CSS_SELECTOR, "#triage .card")
    WebDriverWait(browser, 30).until(lambda b: card.get_attribute("data-id"))
    width = card.size["width"]

    def drag(fraction):
        ActionChains(browser).click_and_hold(card).move_by_offset(int(width * fraction / 2), 0) \
            .move_by_offset(int(width * fraction / 2), 0).release().perform()

    first = card.get_attribute("data-id")
    drag(0.1)
    # Nothing decided: the same photo, neither liked nor dismissed, the card back in place.
    WebDriverWait(browser, 30).until(lambda b: card.value_of_css_property("transform") in ("none", ""))
    assert card.get_attribute("data-id") == first
    shown = daemon.call("photos.show", {"id": first})
    assert not shown.get("liked_at") and not shown.get("dismissed_at")

    drag(0.5)
    WebDriverWait(browser, 30).until(lambda b: card.get_attribute("data-id") != first)
    assert daemon.call("photos.show", {"id": first}).get("liked_at")
    second = card.get_attribute("data-id")
    drag(-0.5)
    WebDriverWait(browser, 30).until(lambda b: card.get_attribute("data-id") != second)
    assert daemon.call("photos.show", {"id": second}).get("dismissed_at")
    assert refusals(browser) == []


@pytest.mark.parametrize("browser", ["pt-BR"], indirect=True)
def test_the_page_speaks_the_browsers_portuguese(daemons, browser):
    daemon = daemons()
    total = len(stored(daemon))
    open_gallery(browser, daemon)
    assert browser.find_element(By.ID, "nav-library").text == "Biblioteca"
    assert "desconectado" in text(browser, "status")
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "pt-BR"
    Select(browser.find_element(By.NAME, "view")).select_by_value("all")
    WebDriverWait(browser, 30).until(lambda b: text(b, "count") == f"{total} fotos")
    # The daemon's refusal in Portuguese too (its data.text, rendered by the page), not its English.
    browser.find_element(By.ID, "nav-account").click()
    # The screen's forms are made once its first answers come: waited for, not looked for at once.
    WebDriverWait(browser, 30).until(lambda b: any(form.is_displayed() for form in b.find_elements(By.CSS_SELECTOR, "#account form.sign-in")))
    sign_in = browser.find_element(By.CSS_SELECTOR, "#account form.sign-in")
    sign_in.find_element(By.NAME, "email").send_keys("nobody-here@example.com")
    sign_in.find_element(By.NAME, "password").send_keys("not the password", Keys.ENTER)
    # Under the sign-in form's own button, where a narrow window's reader is looking.
    WebDriverWait(browser, 30).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#account form.sign-in .account-said .error"))
    assert browser.find_element(By.CSS_SELECTOR, "#account form.sign-in .account-said .error").text == "e-mail ou senha incorretos"
    # The daemon's reasons on the status screen too: the live channel is down, signed out (its text).
    browser.find_element(By.ID, "nav-status").click()
    WebDriverWait(browser, 30).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#status-screen .status-body dl"))
    WebDriverWait(browser, 30).until(lambda b: "Mudanças ao vivo" in b.find_element(By.CSS_SELECTOR, "#status-screen .status-body").text)
    body = browser.find_element(By.CSS_SELECTOR, "#status-screen .status-body").text
    assert "fora do ar — sem conta ou sem rede" in body, body


def test_an_empty_library_fills_as_photos_are_liked(daemons, browser):
    """The grid opened on nothing follows the first like."""
    daemon = daemons()  # a guest's: no push after the like, whose events would refresh the grid again
    first = stored(daemon)[0]
    open_gallery(browser, daemon)
    WebDriverWait(browser, 30).until(lambda b: text(b, "count") == "No photos here yet.")
    # It says where photos to like are, each a link to its screen.
    start = browser.find_element(By.ID, "library-start")
    assert start.is_displayed() and "Nothing in your collection yet" in start.text
    assert [link.get_attribute("href").split("#")[1] for link in start.find_elements(By.TAG_NAME, "a")] == ["/search", "/triage", "/status"]
    daemon.call("photos.like", {"id": first})
    WebDriverWait(browser, 30).until(lambda b: grid_ids(b) == [first])
    assert text(browser, "count") == "1 photo"
    assert not start.is_displayed()
    # Nothing it asked was refused: it asked for no page before the first.
    assert refusals(browser) == []
