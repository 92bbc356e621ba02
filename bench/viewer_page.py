#!/usr/bin/env python3
"""`referee view`'s page: its size and how long Debian's Chromium takes to open it.

    .venv/bin/python bench/viewer_page.py LOG [LOG ...]

For each log: the organiser's page and seat 0's, their size, and the time from
navigation to the page drawn at its first step (median of 5 loads, headless, one tab
each), and to its last step by the End key.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright


def main(logs: list[str]) -> None:
    folder = Path(tempfile.mkdtemp(prefix="viewer-bench-"))
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path="/usr/bin/chromium")
        for log in logs:
            for seat in (None, 0):
                page = folder / f"{Path(log).name}.{seat}.html"
                args = ["view", log, "-o", str(page)] + ([] if seat is None else ["--seat", "0"])
                subprocess.run([sys.executable, "-m", "referee", *args], check=True,
                               capture_output=True)
                opens, ends = [], []
                for _ in range(5):
                    tab = browser.new_page()
                    start = time.perf_counter()
                    tab.goto(page.as_uri())
                    tab.wait_for_selector("body[data-ready='1']")
                    opens.append(time.perf_counter() - start)
                    start = time.perf_counter()
                    tab.keyboard.press("End")
                    tab.wait_for_function("document.querySelector('#next').disabled")
                    ends.append(time.perf_counter() - start)
                    tab.close()
                steps = page.read_text().count('"m":')
                print(f"{Path(log).name} {'organiser' if seat is None else 'seat 0'}: "
                      f"{page.stat().st_size / 1024:.0f} KB, {steps} steps, opens in "
                      f"{statistics.median(opens) * 1000:.0f} ms, last step in "
                      f"{statistics.median(ends) * 1000:.0f} ms")
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1:])
