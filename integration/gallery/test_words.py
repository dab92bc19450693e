"""The page's words: both languages have every string, and every string the page names exists.
(A missing one shows its key to the person.)"""
import os
import re

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
