"""The web gallery in a real browser: what a person sees after `splashctl open`, and what a tab
opened without it gets."""
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import free_port, gallery_address


def search(daemon, count):
    """Photos put into the daemon's store through a search of devstack's Unsplash; their ids."""
    found = daemon.call("photos.search", {"query": "lake", "per_page": 30})["photos"]
    assert len(found) >= count, found
    return [photo["id"] for photo in found[:count]]


def grid_ids(browser):
    return [item.get_attribute("data-id") for item in browser.find_elements(By.CSS_SELECTOR, "#grid li")]


def test_a_like_made_on_another_device_appears_in_the_grid_without_a_reload(daemons, browser):
    desk, laptop = daemons(), daemons()
    email = desk.signup()
    laptop.login(email)
    first, second = search(desk, 2)
    laptop.call("photos.search", {"query": "lake", "per_page": 30})  # the laptop's store knows them too
    desk.call("photos.like", {"id": first})
    desk.wait_drained(desk.rpc())

    browser.get(gallery_address(laptop))
    assert "?token=" not in browser.current_url, "the token leaves the address bar"
    WebDriverWait(browser, 60).until(lambda b: first in grid_ids(b))
    # The grid's picture is the photo's, through /images/<id>/thumb.
    loaded = "const img = document.querySelector(`#grid li[data-id='${arguments[0]}'] img`); return !!img && img.complete && img.naturalWidth > 0"
    WebDriverWait(browser, 30).until(lambda b: b.execute_script(loaded, first))

    start = time.monotonic()
    desk.call("photos.like", {"id": second})
    WebDriverWait(browser, 60).until(lambda b: second in grid_ids(b))
    assert browser.current_url.endswith("/"), "no reload, no new address"
    print(f"a like on the desk in the laptop's gallery after {time.monotonic() - start:.2f} s")


def test_a_tab_left_open_across_a_restart_comes_back_by_itself(daemons, browser):
    """The session is the daemon's secret's, kept on disk: a restart of splashd on its port leaves
    the tab to reconnect, subscribe again and follow the library as before."""
    port = free_port()
    desk, laptop = daemons(), daemons(web_port=port)
    email = desk.signup()
    laptop.login(email)
    first, second = search(desk, 2)
    laptop.call("photos.search", {"query": "lake", "per_page": 30})
    browser.get(gallery_address(laptop))
    WebDriverWait(browser, 30).until(lambda b: "signed in" in b.find_element(By.ID, "status").text)

    laptop.stop()
    WebDriverWait(browser, 30).until(lambda b: "not answering" in b.find_element(By.ID, "status").text)
    laptop.start()
    WebDriverWait(browser, 60).until(lambda b: "signed in" in b.find_element(By.ID, "status").text)
    desk.call("photos.like", {"id": first})
    WebDriverWait(browser, 60).until(lambda b: first in grid_ids(b))


def test_a_tab_without_the_key_is_told_how_to_open_the_gallery(daemons, browser):
    daemon = daemons()
    address = gallery_address(daemon)
    origin = address.split("/?token=")[0]
    browser.get(origin + "/")
    assert "splashctl open" in browser.find_element(By.TAG_NAME, "body").text
    browser.get(address)
    WebDriverWait(browser, 30).until(lambda b: "signed out" in b.find_element(By.ID, "status").text)
    browser.get(address)  # the same address again, in a browser let in already: the gallery
    WebDriverWait(browser, 30).until(lambda b: "signed out" in b.find_element(By.ID, "status").text)
    browser.delete_all_cookies()
    browser.get(address)  # in a browser without the session: the address is used
    assert "used already or has expired" in browser.find_element(By.TAG_NAME, "body").text
