#!/usr/bin/python3
"""Drives a `photoedit review` page in headless Chromium, as a person would.

Debian's python3-selenium, chromium and chromium-driver (`make test` installs them). Run by
Tests/PhotoEditCLITests/ReviewBrowserTests.swift, which checks what this prints.

    review_browser.py PAGE --downloads DIR --screenshot PNG
        [--click PHOTO:K] [--draw PHOTO:X0,Y0,X1,Y1] [--export] [--screenshot-at PHOTO]
    review_browser.py PAGE --open-only     # how long the page takes to open (make bench)

--click clicks face K's box on PHOTO's render; --draw drags on PHOTO's original preview from
(X0, Y0) to (X1, Y1), fractions of the preview; --export clicks "Export corrections" and waits
for the download. Prints one JSON object on standard output: what the page showed before and
after, the downloaded file, the resources the page loaded, and the browser's console errors.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

# What the page shows: per photo, its faces and their states; counted in the DOM, where scripts
# and templates hold none.
STATE_JS = """
const out = {};
document.querySelectorAll('[data-photo]').forEach((sec) => {
  const faces = {};
  sec.querySelectorAll('[data-face]').forEach((f) => { faces[f.dataset.face] = f.dataset.state; });
  out[sec.dataset.photo] = {faces, hidden: sec.hidden, boxes: sec.querySelectorAll('.box').length};
});
return {photos: out, photoElements: document.querySelectorAll('[data-photo]').length,
        faceElements: document.querySelectorAll('[data-face]').length,
        order: Array.from(document.querySelectorAll('[data-photo]')).map((s) => s.dataset.photo),
        commands: document.getElementById('commands').textContent,
        notice: document.getElementById('notice').textContent};
"""


def browser(downloads: Path | None, width: int, height: int) -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--hide-scrollbars", f"--window-size={width},{height}", "--force-device-scale-factor=1"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    if downloads:
        options.add_experimental_option("prefs", {
            "download.default_directory": str(downloads), "download.prompt_for_download": False})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    if downloads:
        driver.execute_cdp_cmd("Page.setDownloadBehavior",
                               {"behavior": "allow", "downloadPath": str(downloads)})
    return driver


def open_page(driver: webdriver.Chrome, page: Path) -> float:
    start = time.monotonic()
    driver.get(page.resolve().as_uri())
    WebDriverWait(driver, 60).until(
        lambda d: d.execute_script("return document.documentElement.dataset.ready === 'true'"))
    return time.monotonic() - start


def section(driver: webdriver.Chrome, photo: str):
    for sec in driver.find_elements(By.CSS_SELECTOR, "section[data-photo]"):
        if sec.get_attribute("data-photo") == photo:
            return sec
    raise SystemExit(f"review_browser: no photo {photo!r} on the page")


def wait_for_images(driver: webdriver.Chrome) -> None:
    WebDriverWait(driver, 30).until(lambda d: d.execute_script(
        "return Array.from(document.images).filter((i) => i.getBoundingClientRect().top < innerHeight)"
        ".every((i) => i.complete && i.naturalWidth > 0)"))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("page", type=Path)
    parser.add_argument("--downloads", type=Path)
    parser.add_argument("--screenshot", type=Path)
    parser.add_argument("--click", action="append", default=[])
    parser.add_argument("--draw", action="append", default=[])
    parser.add_argument("--export", action="store_true")
    parser.add_argument("--screenshot-at", help="scroll this photo to the top for the screenshot")
    parser.add_argument("--open-only", action="store_true")
    parser.add_argument("--size", default="1280,900")
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.split(","))

    driver = browser(args.downloads, width, height)
    try:
        seconds = open_page(driver, args.page)
        result: dict = {"openSeconds": seconds}
        if args.open_only:
            result["photoElements"] = driver.execute_script(
                "return document.querySelectorAll('[data-photo]').length")
            print(json.dumps(result))
            return 0
        result["before"] = driver.execute_script(STATE_JS)
        for click in args.click:
            photo, k = click.rsplit(":", 1)
            sec = section(driver, photo)
            box = sec.find_element(By.CSS_SELECTOR, f'figure[data-kind="render"] .box[data-box="{k}"]')
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", box)
            box.click()
        for draw in args.draw:
            photo, corners = draw.rsplit(":", 1)
            x0, y0, x1, y1 = (float(v) for v in corners.split(","))
            sec = section(driver, photo)
            img = sec.find_element(By.CSS_SELECTOR, 'figure:not([data-kind="render"]) .stage img')
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", img)
            wait_for_images(driver)
            rect = driver.execute_script(
                "const r = arguments[0].getBoundingClientRect(); return [r.width, r.height];", img)
            # Offsets from the element's centre (Selenium 4 actions).
            def offset(fx: float, fy: float) -> tuple[int, int]:
                return round((fx - 0.5) * rect[0]), round((fy - 0.5) * rect[1])
            sx, sy = offset(x0, y0)
            ex, ey = offset(x1, y1)
            ActionChains(driver).move_to_element_with_offset(img, sx, sy).click_and_hold() \
                .move_by_offset((ex - sx) // 2, (ey - sy) // 2).move_by_offset(ex - sx - (ex - sx) // 2,
                                                                               ey - sy - (ey - sy) // 2) \
                .release().perform()
        result["after"] = driver.execute_script(STATE_JS)
        if args.export:
            driver.find_element(By.ID, "export").click()
            target = args.downloads / "corrections.json"
            deadline = time.monotonic() + 20
            while not target.exists() and time.monotonic() < deadline:
                time.sleep(0.1)
            result["corrections"] = str(target) if target.exists() else None
        if args.screenshot:
            if args.screenshot_at:
                driver.execute_script("arguments[0].scrollIntoView({block: 'start'})",
                                      section(driver, args.screenshot_at))
            else:
                driver.execute_script("window.scrollTo(0, 0)")
            wait_for_images(driver)
            driver.save_screenshot(str(args.screenshot))
        result["resources"] = driver.execute_script(
            "return performance.getEntriesByType('resource').map((e) => e.name)")
        result["console"] = [e["message"] for e in driver.get_log("browser")
                             if e.get("level") in ("SEVERE", "ERROR")]
        print(json.dumps(result))
        return 0
    finally:
        driver.quit()


if __name__ == "__main__":
    sys.exit(main())
