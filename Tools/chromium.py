"""Headless Chromium for the browser checks (Tools/report-browser-check.py, Tools/dashboard-browser-check.py):
Debian's chromium and chromium-driver driven through selenium, the console's messages kept, nothing downloaded
(the driver is Debian's, named explicitly, so selenium's manager fetches nothing)."""

import shutil

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service


def browser(dark=False, size="1100,900"):
    options = Options()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--window-size={size}", "--no-first-run", "--disable-extensions"]:
        options.add_argument(argument)
    if dark:
        options.add_argument("--force-dark-mode")
        options.add_argument("--blink-settings=preferredColorScheme=0")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    return webdriver.Chrome(service=Service(executable_path=driver_path), options=options)


def console_errors(driver):
    """The browser console's errors since the last call."""
    return [entry for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]


def take_screenshot_argument(arguments):
    """Removes `--screenshot FILE` from `arguments` and returns FILE (None when absent)."""
    if "--screenshot" not in arguments:
        return None
    index = arguments.index("--screenshot")
    screenshot = arguments[index + 1]
    del arguments[index:index + 2]
    return screenshot
