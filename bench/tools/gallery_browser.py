"""The browser's side of scenario 14, run with devstack's virtual environment (Selenium): headless
Chromium opens the gallery and reports, as JSON on stdout,
  first   the first grid's paint after navigation (ms; the page's `splashd-first-grid` mark, set in
          the frame after the grid is drawn), for a cold load (the one-time address, its redirect
          included) and then warm reloads of `/`;
  scroll  the whole grid scrolled top to bottom in 300 jumps, a frame each: long tasks (over 50 ms)
          seen by a PerformanceObserver, their longest, and the time it took;
  watch   waits for a photo id given on stdin to appear in the grid, and prints Date.now() then."""
import json
import sys

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

url, reps = sys.argv[1], int(sys.argv[2])
options = Options()
options.binary_location = "/usr/bin/chromium"
for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,900"):
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
FIRST = "return performance.getEntriesByName('splashd-first-grid').map(e => e.startTime)[0] ?? null"
try:
    driver.set_script_timeout(600)
    out = {"first": []}
    driver.get(url)
    WebDriverWait(driver, 60, poll_frequency=0.01).until(lambda d: d.execute_script(FIRST) is not None)
    out["first_cold"] = driver.execute_script(FIRST)
    origin = url.split("/?token=")[0] + "/"
    for _ in range(reps):
        driver.get(origin)
        WebDriverWait(driver, 60, poll_frequency=0.01).until(lambda d: d.execute_script(FIRST) is not None)
        out["first"].append(driver.execute_script(FIRST))
    out["total"] = driver.execute_script("return document.getElementById('count').textContent")
    out["scroll"] = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const long = [];
        new PerformanceObserver((list) => long.push(...list.getEntries().map(e => e.duration))).observe({ type: "longtask" });
        const bottom = document.documentElement.scrollHeight - innerHeight;
        const steps = 300;
        let step = 0;
        const started = performance.now();
        const jump = () => {
          scrollTo(0, Math.round(bottom * step / steps));
          step += 1;
          if (step <= steps) requestAnimationFrame(jump);
          else setTimeout(() => done({ long, seconds: (performance.now() - started) / 1000, height: bottom,
                                        elements: document.querySelectorAll('#grid li').length }), 500);
        };
        requestAnimationFrame(jump);""")
    driver.execute_script("scrollTo(0, 0)")
    print(json.dumps(out), flush=True)
    # Then photo ids, one per line: the moment each is on screen.
    for line in sys.stdin:
        wanted = line.strip()
        if not wanted:
            continue
        at = driver.execute_async_script("""
            const [id, done] = arguments;
            const seen = () => document.querySelector(`#grid li[data-id="${CSS.escape(id)}"] img`);
            if (seen()) return done(Date.now());
            const watcher = new MutationObserver(() => { if (seen()) { watcher.disconnect(); done(Date.now()); } });
            watcher.observe(document.getElementById('grid'), { subtree: true, childList: true, attributes: true });""", wanted)
        print(json.dumps({"id": wanted, "at_ms": at}), flush=True)
finally:
    driver.quit()
