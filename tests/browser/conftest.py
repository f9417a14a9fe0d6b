"""Browser fixtures: Debian's Chromium through Playwright, a page per test, and a signed-in page."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

# Playwright's sync API runs an event loop in the test thread; Django's ORM calls from the test
# itself are still synchronous, so allow them.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


# One Playwright per test process: a second sync_playwright() while the first runs is refused, and
# xdist may interleave tests of several modules in one process.
@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    executable = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium")
    if not executable:
        pytest.fail("the browser tests need Chromium: apt-get install chromium (or set CHROMIUM_PATH)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


# Reports every Content-Security-Policy violation to the test, whichever page of the context it happens on.
REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", function (e) {
  window.reportCspViolation([e.effectiveDirective, e.blockedURI, e.sourceFile + ":" + e.lineNumber,
                             e.sample].join(" "));
});
"""


class BrowserProblems:
    """What a page reported that a user would never want: CSP violations, console errors, script errors."""

    def __init__(self) -> None:
        self.csp_violations: list[str] = []
        self.console_errors: list[str] = []

    def watch(self, context, page) -> None:
        context.expose_function("reportCspViolation", lambda text: self.csp_violations.append(text))
        context.add_init_script(REPORT_VIOLATIONS)
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.console_errors.append(f"uncaught: {error}"))

    def _console(self, message) -> None:
        if message.type == "error":
            self.console_errors.append(f"{message.text} ({message.location.get('url', '')})")
        if "Refused to" in message.text:  # Chromium's own words for a blocked script, style or frame
            self.csp_violations.append(message.text)


@pytest.fixture
def browser_problems():
    return BrowserProblems()


@pytest.fixture
def page(browser, browser_problems):
    """A page whose context fails the test at the end if anything broke the Content-Security-Policy."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    page = context.new_page()
    browser_problems.watch(context, page)
    page.set_default_timeout(10_000)
    yield page
    context.close()
    assert browser_problems.csp_violations == [], "the page broke the Content-Security-Policy"


@pytest.fixture
def screenshot():
    """Save a full-page screenshot to test-artifacts/NAME.png."""

    def save(page, name: str) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return save


@pytest.fixture
def signed_in_page(page, live_server, transactional_db):
    """A page signed in through the login form as a new user with the given role (default admin)."""
    from tests.conftest import PASSWORD, make_user

    def sign_in(role: str = "admin", username: str | None = None):
        user = make_user(username or f"browser-{role}", role)
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("input[name=username]", user.username)
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit], input[type=submit]")
        page.wait_for_load_state()
        return page

    return sign_in
