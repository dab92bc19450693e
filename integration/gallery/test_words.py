"""The page's words: both languages have every string, and every string the page names exists (a
missing one shows its key to the person); and the daemon's sentences in Portuguese as splashctl says them."""
import json
import os
import re

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import refusals
from test_screens import open_gallery, stored

WEB = os.path.join(os.path.dirname(__file__), "..", "..", "web")
PAIR = re.compile(r'"([A-Za-z0-9_.\-]+)":\s*"((?:[^"\\]|\\.)*)"')


def catalogue():
    """{language: {key: text}} from web/i18n.js's table: each language's block holds "key": "text" pairs."""
    source = open(os.path.join(WEB, "i18n.js")).read()
    table = source[source.index("const strings = {"):source.index("\n};")]
    english, portuguese = table.split('"pt-BR": {')
    return {"en": dict(PAIR.findall(english)), "pt-BR": dict(PAIR.findall(portuguese))}


def named_keys():
    keys = set()
    for name in os.listdir(WEB):
        text = open(os.path.join(WEB, name)).read()
        if name.endswith(".html"):
            keys.update(re.findall(r'data-i18n(?:-label|-placeholder)?="([^"]+)"', text))
        elif name.endswith(".js"):
            keys.update(re.findall(r'\b(?:t|tElements)\("([a-zA-Z0-9_.\-]+)"', text))
    return keys


def test_both_languages_have_the_same_strings():
    strings = catalogue()
    assert set(strings) == {"en", "pt-BR"}
    assert sorted(set(strings["en"]) ^ set(strings["pt-BR"])) == []
    assert all(value.strip() for table in strings.values() for value in table.values())


def test_every_string_the_page_names_exists():
    strings = catalogue()
    missing = sorted(key for key in named_keys() if key not in strings["en"])
    assert missing == []


def test_the_daemons_sentences_in_portuguese_are_splashctls(daemons, browser):
    """web/daemon-text.js renders every DaemonText example and branch as CLIText does: the pairs in
    daemon-text-pt-BR.json, which a Swift test keeps equal to the Swift catalogue's sentences."""
    pairs = json.load(open(os.path.join(os.path.dirname(__file__), "daemon-text-pt-BR.json")))
    assert len(pairs) > 150
    open_gallery(browser, daemons())
    rendered = browser.execute_async_script("""
        const [texts, done] = arguments;
        import("/daemon-text.js").then((module) => done(texts.map((text) => module.portuguese(text))), (error) => done(String(error)));""",
        [pair["text"] for pair in pairs])
    differ = [(pair["text"], pair["portuguese"], got) for pair, got in zip(pairs, rendered) if got != pair["portuguese"]]
    assert differ == []
    unknown = browser.execute_async_script("""
        const done = arguments[arguments.length - 1];
        import("/daemon-text.js").then((module) => done([module.portuguese({ a_newer_daemons_sentence: {} }),
                                                          module.portuguese({ not_signed_in_because: { why: { newer: {} } } })]));""")
    assert unknown == [None, None], "a sentence not known here gives null: the page shows the English"
    assert refusals(browser) == []


@pytest.mark.parametrize("browser", ["pt-BR"], indirect=True)
def test_the_editor_describes_the_filters_in_splashctls_portuguese(daemons, browser):
    """web/filter-text.js holds the words of filter-text-pt-BR.json, which a Swift test keeps equal to
    CLIText's FilterText; the editor shows them beside each filter and on each slider."""
    table = json.load(open(os.path.join(os.path.dirname(__file__), "filter-text-pt-BR.json")))
    daemon = daemons()
    photo = stored(daemon)[0]
    open_gallery(browser, daemon)
    page = browser.execute_async_script("""
        const done = arguments[arguments.length - 1];
        import("/filter-text.js").then((module) => done(module.portuguese), (error) => done(String(error)));""")
    assert page == table
    browser.get(browser.current_url.split("#")[0] + f"#/edit/{photo}")
    WebDriverWait(browser, 60).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#edit fieldset[data-filter='vignette']"))
    vignette = browser.find_element(By.CSS_SELECTOR, "#edit fieldset[data-filter='vignette']")
    assert vignette.find_element(By.CSS_SELECTOR, "p").text == table["vignette"]["summary"]
    radius = vignette.find_element(By.CSS_SELECTOR, "input[name='vignette.radius']").find_element(By.XPATH, "..")
    assert radius.get_attribute("title") == table["vignette"]["parameters"]["radius"]
    assert refusals(browser) == []
