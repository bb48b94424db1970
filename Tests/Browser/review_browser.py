#!/usr/bin/python3
"""Drives a `photoedit review` page in headless Chromium, as a person would.

Debian's python3-selenium, chromium and chromium-driver (`make test` installs them). Run by
Tests/PhotoEditCLITests/ReviewBrowserTests.swift, which checks what this prints.

    review_browser.py PAGE --downloads DIR --screenshot PNG
        [--click PHOTO:K] [--draw PHOTO:X0,Y0,X1,Y1] [--export] [--screenshot-at PHOTO]
    review_browser.py PAGE --open-only     # how long the page takes to open (make bench)
    review_browser.py PAGE --event --downloads DIR --screenshot PNG --size 1400,900
    review_browser.py PAGE --loupe PHOTO:K --screenshot PNG

--event drives a review of many photos as a person checking an event would: the grid measured,
keys to move between photos and faces, toggle a face, approve, flag and undo; a click that moves
3 px on a thumbnail's face, a drag that draws a box; whether leaving would ask; a reload and
what it kept; the export; "Undo all" declined, then accepted.

--loupe opens the loupe (`z`) on face K of PHOTO (selected, then `n` K+1 times) and reports
what it shows (the face's detail, its size, the zoom) and whether any detail was loaded before;
then draws a box in it around the face, moves the pointer over the preview away from every face,
then onto the face, and reports the loupe each time.

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
from selenium.webdriver.common.keys import Keys
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

# What the page shows: per photo, its faces and their states; counted in the DOM, where scripts
# and templates hold none.
STATE_JS = """
const out = {};
document.querySelectorAll('[data-photo]').forEach((sec) => {
  const faces = {};
  sec.querySelectorAll('[data-face]').forEach((f) => { faces[f.dataset.face] = f.dataset.state; });
  out[sec.dataset.photo] = {faces, hidden: sec.hidden, boxes: sec.querySelectorAll('.box').length,
                            review: sec.dataset.review};
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
    # Dialogs (beforeunload, confirm) are left open for the script to answer.
    options.set_capability("unhandledPromptBehavior", "ignore")
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
        "return Array.from(document.images).filter((i) => { const r = i.getBoundingClientRect();"
        " return i.getClientRects().length > 0 && r.top < innerHeight && r.bottom > 0; })"
        ".every((i) => i.complete && i.naturalWidth > 0)"))


def key(driver: webdriver.Chrome, k: str) -> dict:
    ActionChains(driver).send_keys({"Escape": Keys.ESCAPE}.get(k, k)).perform()
    return driver.execute_script(
        "return {key: arguments[0], current: photoeditReview.current(), face: photoeditReview.currentFace()}", k)


# The loupe's scale (its image's width over the preview's on the page) and where the current
# face's box is in it (from its middle, in pixels).
LOUPE_JS = """
const loupe = document.getElementById('loupe'), sec = document.querySelector('section.current');
const li = sec.querySelector('li.current');
const view = Array.from(sec.querySelectorAll('figure.view'))
  .find((v) => v.querySelector('.stage img').getClientRects().length > 0);
const shown = view.querySelector('.stage img').getBoundingClientRect();
const big = loupe.querySelector('img').getBoundingClientRect();
const l = loupe.getBoundingClientRect();
const face = loupe.querySelector('.box[data-box="' + li.dataset.face + '"]').getBoundingClientRect();
return {open: !loupe.hidden, zoom: big.width / shown.width, shownWidth: shown.width,
        face: li.dataset.box.split(' ').map(Number), faceBoxes: loupe.querySelectorAll('.box').length,
        faceFromMiddle: [face.left + face.width / 2 - (l.left + l.width / 2),
                         face.top + face.height / 2 - (l.top + l.height / 2)],
        src: loupe.querySelector('img').getAttribute('src')};
"""


# What the loupe shows on the current face: its detail image (the face's region cut from the
# full-size image) and the preview under it, where the face is, and the zoom.
LOUPE_DETAIL_JS = """
const loupe = document.getElementById('loupe'), detail = loupe.querySelector('img.loupe-detail');
const sec = document.querySelector('section.current'), li = sec.querySelector('li.current');
const view = Array.from(sec.querySelectorAll('figure.view'))
  .find((v) => v.querySelector('.stage img').getClientRects().length > 0);
const preview = view.querySelector('.stage img');
const box = view.querySelector('.stage .box[data-box="' + li.dataset.face + '"]');
const l = loupe.getBoundingClientRect(), d = detail.getBoundingClientRect();
const inner = [l.left + loupe.clientLeft, l.top + loupe.clientTop];
const face = loupe.querySelector('.box[data-box="' + li.dataset.face + '"]').getBoundingClientRect();
return {open: !loupe.hidden, shown: !detail.hidden, src: detail.getAttribute('src') || '',
        naturalSize: [detail.naturalWidth, detail.naturalHeight], zoom: Number(loupe.dataset.zoom),
        previewNaturalWidth: preview.naturalWidth, shownWidth: preview.getBoundingClientRect().width,
        rect: (box.dataset.detailRect || '').split(' ').map(Number),
        detailSize: (box.dataset.detailSize || '').split(' ').map(Number),
        detailInLoupe: [d.left - inner[0], d.top - inner[1], d.width, d.height],
        loupeSize: [loupe.clientWidth, loupe.clientHeight],
        face: li.dataset.box.split(' ').map(Number),
        faceFromMiddle: [face.left + face.width / 2 - (inner[0] + loupe.clientWidth / 2),
                         face.top + face.height / 2 - (inner[1] + loupe.clientHeight / 2)],
        caption: loupe.querySelector('.loupe-caption').textContent,
        previewSrc: loupe.querySelector('img').getAttribute('src'),
        detailImages: Array.from(document.images).filter((i) => (i.getAttribute('src') || '').includes('-face')).length};
"""

# Whether the loupe shows a detail, which, and its zoom.
LOUPE_STATE_JS = """
const loupe = document.getElementById('loupe'), detail = loupe.querySelector('img.loupe-detail');
return {shown: !detail.hidden, src: detail.getAttribute('src') || '', zoom: Number(loupe.dataset.zoom)};
"""


ASKS_JS = """
const e = new Event('beforeunload', {cancelable: true});
window.dispatchEvent(e);
return e.defaultPrevented;
"""


def reload(driver: webdriver.Chrome) -> None:
    """Reloads the page (WebDriver answers a "leave?" question itself: ASKS_JS checks it)."""
    driver.execute_script("window.reviewOld = true")
    driver.refresh()
    wait_for_new_page(driver)


def wait_for_new_page(driver: webdriver.Chrome) -> None:
    def fresh(d):
        try:
            return d.execute_script(
                "return !window.reviewOld && document.documentElement.dataset.ready === 'true'")
        except WebDriverException:
            return False
    WebDriverWait(driver, 60).until(fresh)


def export(driver: webdriver.Chrome, downloads: Path) -> str | None:
    """Clicks "Export corrections" and waits (20 s at most) for the download: its path, or None."""
    driver.find_element(By.ID, "export").click()
    target = downloads / "corrections.json"
    deadline = time.monotonic() + 20
    while not target.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    return str(target) if target.exists() else None


def thumbnail(driver: webdriver.Chrome, photo: str, what: str):
    sec = section(driver, photo)
    el = sec.find_element(By.CSS_SELECTOR, what)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", el)
    wait_for_images(driver)
    return el


def event(driver: webdriver.Chrome, args, result: dict) -> None:
    # The viewport itself at the size asked (the window's frame takes some of the window).
    inner = driver.execute_script("return [innerWidth, innerHeight]")
    outer = driver.get_window_size()
    driver.set_window_size(outer["width"] + args.width - inner[0], outer["height"] + args.height - inner[1])
    geometry = driver.execute_script(
        "return {grid: document.body.classList.contains('view-grid'),"
        " scrollHeight: document.documentElement.scrollHeight, innerHeight, innerWidth,"
        " images: document.querySelectorAll('.stage img').length,"
        " imagesLoaded: Array.from(document.querySelectorAll('.stage img'))"
        ".filter((i) => i.complete && i.naturalWidth > 0).length,"
        " columns: getComputedStyle(document.getElementById('photos')).gridTemplateColumns.split(' ').length}")
    # The whole grid scrolled through once, so that every card is laid out at its real size.
    driver.execute_script("window.scrollTo(0, document.documentElement.scrollHeight)")
    geometry["scrollHeightScrolled"] = driver.execute_script(
        "return document.documentElement.scrollHeight")
    driver.execute_script("window.scrollTo(0, 0)")
    result["grid"] = geometry
    order = driver.execute_script(STATE_JS)["order"]
    steps = [key(driver, k) for k in ("j", "j", "k", "n", "n", "p", "x", "a", "f", "u")]
    # A press on face 3 of the third photo's thumbnail that moves 3 px: a click, not a box.
    box = thumbnail(driver, order[2], 'figure[data-kind="render"] .box[data-box="3"]')
    ActionChains(driver).move_to_element(box).click_and_hold().move_by_offset(3, 2).release().perform()
    # A drag on the fourth photo's thumbnail: a box.
    img = thumbnail(driver, order[3], 'figure[data-kind="render"] .stage img')
    w, h = driver.execute_script(
        "const r = arguments[0].getBoundingClientRect(); return [r.width, r.height];", img)
    ActionChains(driver).move_to_element_with_offset(img, round(-0.4 * w), round(0.1 * h)).click_and_hold() \
        .move_by_offset(10, 8).move_by_offset(20, 20).release().perform()
    steps += [key(driver, k) for k in ("a", "k", "k", "a", "j", "n", "z")]
    # The loupe on the fifth photo's face 0: its scale, and a box drawn in it around the face.
    result["loupe"] = driver.execute_script(LOUPE_JS)
    result["loupeDrawn"] = draw_in_loupe(driver)
    steps.append(key(driver, "Escape"))
    result["loupeOpenAfterEscape"] = driver.execute_script("return !document.getElementById('loupe').hidden")
    result["steps"] = steps
    result["afterKeys"] = driver.execute_script(STATE_JS)
    if args.screenshot:
        driver.execute_script("window.scrollTo(0, 0)")
        wait_for_images(driver)
        driver.save_screenshot(str(args.screenshot))
    # What the page's images are (Chromium keeps no resource timing for file:// pages).
    result["resources"] = driver.execute_script(
        "return Array.from(document.images).map((i) => i.currentSrc || i.src).filter((u) => u)")
    # Leaving with work not exported asks first (the page cancels beforeunload).
    result["asksBeforeLeaving"] = driver.execute_script(ASKS_JS)
    reload(driver)
    result["afterReload"] = driver.execute_script(STATE_JS)
    result["saved"] = driver.find_element(By.ID, "saved").text
    result["corrections"] = export(driver, args.downloads)
    result["savedAfterExport"] = driver.find_element(By.ID, "saved").text
    result["asksAfterExport"] = driver.execute_script(ASKS_JS)
    # "Undo all" asks: declined, nothing changes; accepted, the page starts afresh.
    driver.find_element(By.ID, "reset").click()
    WebDriverWait(driver, 5).until(EC.alert_is_present())
    result["undoAllQuestion"] = driver.switch_to.alert.text
    driver.switch_to.alert.dismiss()
    result["afterUndoAllDeclined"] = driver.execute_script(STATE_JS)
    driver.execute_script("window.reviewOld = true")
    driver.find_element(By.ID, "reset").click()
    WebDriverWait(driver, 5).until(EC.alert_is_present())
    driver.switch_to.alert.accept()
    wait_for_new_page(driver)
    result["afterUndoAll"] = driver.execute_script(STATE_JS)
    result["storedAfterUndoAll"] = driver.execute_script(
        "return localStorage.getItem(photoeditReview.storageKey)")


def draw_in_loupe(driver: webdriver.Chrome) -> list:
    """Drags 60x72 loupe pixels centred on the loupe's middle; the box the current photo got."""
    loupe = driver.find_element(By.ID, "loupe")
    ActionChains(driver).move_to_element_with_offset(loupe, -30, -36).click_and_hold() \
        .move_by_offset(30, 36).move_by_offset(30, 36).release().perform()
    return driver.execute_script(
        "const items = document.querySelectorAll('section.current li[data-face]');"
        " return items[items.length - 1].dataset.box.split(' ').map(Number)")


def loupe_on(driver: webdriver.Chrome, args, result: dict) -> None:
    photo, k = args.loupe.rsplit(":", 1)
    result["detailImagesBefore"] = driver.execute_script(
        "return Array.from(document.images).filter((i) => (i.getAttribute('src') || '').includes('-face')).length")
    sec = section(driver, photo)
    driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", sec)
    wait_for_images(driver)
    ActionChains(driver).move_to_element(sec.find_element(By.CSS_SELECTOR, "h2")).click().perform()
    for _ in range(int(k) + 1):
        key(driver, "n")
    key(driver, "z")
    WebDriverWait(driver, 20).until(lambda d: d.execute_script(
        "const i = document.querySelector('#loupe img.loupe-detail');"
        " return !i.hidden && i.complete && i.naturalWidth > 0"))
    result["loupe"] = driver.execute_script(LOUPE_DETAIL_JS)
    if args.screenshot:
        driver.save_screenshot(str(args.screenshot))
    result["loupeDrawn"] = draw_in_loupe(driver)
    # The pointer over the render's preview: near its top left corner (no face there), then on
    # the face.
    img = sec.find_element(By.CSS_SELECTOR, 'figure[data-kind="render"] .stage img')
    w, h = driver.execute_script(
        "const r = arguments[0].getBoundingClientRect(); return [r.width, r.height];", img)
    ActionChains(driver).move_to_element_with_offset(img, round(-0.48 * w), round(-0.48 * h)).perform()
    result["pointerAway"] = driver.execute_script(LOUPE_STATE_JS)
    face = result["loupe"]["face"]
    fx, fy = face[0] + face[2] / 2, face[1] + face[3] / 2
    ActionChains(driver).move_to_element_with_offset(img, round((fx - 0.5) * w), round((fy - 0.5) * h)).perform()
    result["pointerOnFace"] = driver.execute_script(LOUPE_STATE_JS)


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
    parser.add_argument("--event", action="store_true")
    parser.add_argument("--loupe", help="PHOTO:K: the loupe on face K of PHOTO")
    parser.add_argument("--size", default="1280,900")
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.split(","))
    args.width, args.height = width, height

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
        if args.loupe or args.event:
            (loupe_on if args.loupe else event)(driver, args, result)
            result["console"] = [e["message"] for e in driver.get_log("browser")
                                 if e.get("level") in ("SEVERE", "ERROR")]
            print(json.dumps(result))
            return 0
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
            result["corrections"] = export(driver, args.downloads)
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
