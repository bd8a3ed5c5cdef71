"""The referee's page in a real browser: headless Chromium (Debian's) driven by Playwright
through one dispute and one hint, as a referee would (docs/referee-page.md).

Chromium is installed with apt-get when it is missing and the tests run as root (as CI
does); otherwise, or when that fails, the tests are skipped with the reason. The screenshot
goes to the test's temporary folder, and to docs/referee-page.png when
``CARROSSEL_UPDATE_SCREENSHOT=1`` is set.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.web.front import WebFront, start_front

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOT = Path(__file__).resolve().parent.parent / "docs" / "referee-page.png"
INSTALL_TIMEOUT_S = 900

# The flags that work in this project's sandboxes: no sandbox (root), no GPU, and nothing
# that reaches the network by itself.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _install_chromium() -> str | None:
    """Install Debian's chromium; returns why it could not be, or None once it is there."""
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return "Chromium is not at /usr/bin/chromium; install it with `apt-get install chromium`"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "chromium"]):
        try:
            done = subprocess.run(
                command, env=env, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"`{' '.join(command)}` failed: {exc}"
        if done.returncode != 0:
            return f"`{' '.join(command)}` failed: {done.stderr.strip()[-300:]}"
    return None if CHROMIUM.exists() else "apt-get installed chromium but not /usr/bin/chromium"


@pytest.fixture(scope="session")
def chromium() -> Path:
    """Debian's Chromium, installed first when missing and possible."""
    if not CHROMIUM.exists() and (reason := _install_chromium()) is not None:
        pytest.skip(f"no headless browser: {reason}")
    return CHROMIUM


@pytest.fixture(scope="module")
def page_url(server_port: int) -> Iterator[str]:
    front: WebFront = start_front("127.0.0.1", 0, server_port)
    yield f"http://127.0.0.1:{front.port}/"
    front.stop()


@pytest.fixture(scope="session")
def sync_api() -> Any:
    """Playwright's API, looked for before Chromium is installed for it."""
    return pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install -e '.[dev]')"
    )


@pytest.fixture(scope="module")
def page(sync_api: Any, chromium: Path, page_url: str) -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(chromium), args=CHROMIUM_ARGS)
        tab = browser.new_page(viewport={"width": 1400, "height": 1000})
        errors: list[str] = []
        tab.on("pageerror", lambda error: errors.append(str(error)))
        # A refused call's 400 is logged by Chromium as a failed resource: expected, not a bug.
        tab.on(
            "console",
            lambda m: (
                errors.append(m.text)
                if m.type == "error" and "status of 400" not in m.text
                else None
            ),
        )
        tab.set_default_timeout(20_000)
        tab.goto(page_url)
        tab.wait_for_selector("body[data-ready=true]")  # the rulesets came from ListRulesets
        yield tab
        browser.close()
        assert errors == [], "the page logged errors"


def test_the_ruleset_list_comes_from_the_server(page: Any) -> None:
    options = page.locator("#ruleset option")
    assert options.count() == 10
    assert page.locator("#ruleset").input_value() == "carrossel"
    # Fishing rulesets have no ValidateMove here: listed, but not selectable.
    assert page.locator("#ruleset option[value=carosello]").is_disabled()
    assert page.locator("#version").inner_text().startswith("carrossel ")
    # The buttons follow served_rpcs (carioca: ValidateMove, SolveMove and ScoreRound, no
    # knock), and its deal number and discard show only for it.
    assert not page.is_visible("#deal-number") and page.is_enabled("#judge")
    page.select_option("#ruleset", "carioca")
    assert page.is_visible("#deal-number") and page.is_visible("#discard")
    assert page.is_enabled("#judge") and page.is_enabled("#hint")
    assert "Served here: ValidateMove, SolveMove, ScoreRound" in page.inner_text("#ruleset-info")
    page.select_option("#ruleset", "carrossel")
    assert page.is_enabled("#judge") and not page.is_visible("#deal-number")


def test_a_disputed_rearrangement_gets_its_verdict(page: Any) -> None:
    # Pasted: the table before, the hand, most of the table after ...
    page.fill("#before", "7H 8S JK=9\nQS QD QC")
    page.fill("#hand", "5C 9D KS")
    page.fill("#after", "5C JK 7H 8S\nQS")
    # ... and clicked: the queen of diamonds from the card palette joins the second meld.
    page.click("#palette .card[data-code=QD]")
    assert page.input_value("#after") == "5C JK 7H 8S\nQS QD"
    page.click("#judge")
    banner = page.wait_for_selector("#verdict-banner")
    assert banner.inner_text() == "Illegal move: 3 violations"
    codes = page.locator(".violation").evaluate_all("items => items.map(i => i.dataset.code)")
    assert sorted(codes) == [
        "VIOLATION_CODE_INVALID_MELD",
        "VIOLATION_CODE_TABLE_CARD_REMOVED",
        "VIOLATION_CODE_WILD_VALUE_CHANGED",
    ]
    messages = page.locator(".violation .message").all_inner_texts()
    assert any("JK stood for 9" in message for message in messages)
    # Cards are drawn as cards: the queen of diamonds red with its suit symbol.
    queen = page.locator("#board-after .card[data-code=QD]")
    assert queen.inner_text().replace("\n", "") == "Q♦"
    assert "red" in queen.get_attribute("class")
    assert "red" not in page.locator("#board-after .card[data-code=QS]").get_attribute("class")
    # Both melds after changed; the violations name both; the queens before were broken up.
    after = page.locator("#board-after .meld")
    assert [after.nth(i).get_attribute("class") for i in range(after.count())] == [
        "meld changed violated",
        "meld changed violated",
    ]
    before = page.locator("#board-before .meld")
    assert [before.nth(i).get_attribute("class") for i in range(before.count())] == [
        "meld gone",
        "meld gone",
    ]
    # Suggest is on by default, and this dispute has no nearest legal move: no legal play
    # lays the 5 without the 9 (issue #53), and the page says so with the service's note.
    assert page.is_checked("#suggest")
    assert page.locator("#nearest-table").count() == 0
    assert page.inner_text("#suggestion-note") == (
        "None. No legal play lays any of the proposal's hand cards (5C)."
    )


def test_the_best_move_button_shows_the_hint(page: Any) -> None:
    # The same position: the hint lays the 5 and the 9 around the joker.
    page.click("#hint")
    summary = page.wait_for_selector("#hint-summary")
    assert summary.inner_text().startswith("Plays 2 card(s), leaves 10 points in hand")
    melds = page.locator("#hint-board .meld")
    cards = [
        melds.nth(i).locator(".card").evaluate_all("cs => cs.map(c => c.dataset.code)")
        for i in range(melds.count())
    ]
    assert ["5C", "JK=6", "7H", "8S", "9D"] in cards
    assert ["QS", "QD", "QC"] in cards
    changed = page.locator("#hint-board .meld.changed .card").evaluate_all(
        "cs => cs.map(c => c.dataset.code)"
    )
    assert changed == ["5C", "JK=6", "7H", "8S", "9D"]  # only the run changed


def codes_of(meld: Any) -> list[str]:
    """The card codes of one drawn meld, in the order drawn."""
    codes: list[str] = meld.locator(".card").evaluate_all("cs => cs.map(c => c.dataset.code)")
    return codes


def test_an_illegal_move_shows_the_nearest_legal_table(page: Any, tmp_path: Path) -> None:
    # R5's seed: 5-Jk(6)-7-8 and a group of 9s. The 5 needs the joker as a 6, and only a 9
    # in its place releases it, so no legal play lays all four cards; the nearest lays the
    # three 9s as proposed (the proposal's meld 1 kept) and leaves the run as it was.
    page.select_option("#ruleset", "carrossel")
    page.fill("#to-hand", "")
    page.fill("#before", "7H 8S JK=9")
    page.fill("#hand", "5C 9D 9C 9H")
    page.fill("#after", "5C JK=6 7H 8S\n9D 9C 9H")
    page.click("#judge")
    page.wait_for_selector("#nearest-table")
    assert page.inner_text("#verdict-banner").startswith("Illegal move")
    assert "3 of the proposal's 4 hand cards" in page.inner_text("#suggestion-note")
    melds = page.locator("#nearest-table > li.meld")
    tables = sorted(sorted(codes_of(melds.nth(i))) for i in range(melds.count()))
    assert tables == [["7H", "8S", "JK=9"], ["9C", "9D", "9H"]]
    # The kept meld is marked as the CLI marks it, with "*", and in words.
    kept = page.locator("#nearest-table > li.meld.kept")
    assert kept.count() == 1
    assert sorted(codes_of(kept)) == ["9C", "9D", "9H"]
    assert kept.get_attribute("data-kept") == "1"
    assert kept.locator(".kept-mark").inner_text() == "*"
    assert "kept: your meld 1" in kept.inner_text()
    facts = suggestion_facts(page)
    assert facts["Same cards as proposed"] == "no"
    assert facts["Proved nearest"] == "yes"
    assert sorted(facts["Cards played"].split()) == ["9C", "9D", "9H"]
    # The screenshot of the docs: this dispute, its nearest legal move, and the best move.
    page.click("#hint")
    page.wait_for_selector("#hint-summary")
    shot = tmp_path / "referee-page.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if os.environ.get("CARROSSEL_UPDATE_SCREENSHOT") == "1":
        shutil.copyfile(shot, SCREENSHOT)
    # The suggestion, put in the form and judged, is legal.
    page.click("#use-suggestion")
    page.click("#judge")
    page.wait_for_selector("#verdict-banner.legal")
    assert page.locator("#suggestion").count() == 0  # a legal move carries none


def suggestion_facts(page: Any) -> dict[str, str]:
    """The suggestion's terms and values, as text (a card reads as its code)."""
    return dict(
        page.locator("#suggestion dl").evaluate(
            """dl => [...dl.querySelectorAll("dt")].map(dt => [dt.textContent,
                 [...dt.nextElementSibling.childNodes].map(n =>
                   n.dataset ? n.dataset.code : n.textContent).join(" ")])"""
        )
    )


def test_carioca_s_nearest_legal_turn_keeps_the_contract_and_the_discard(page: Any) -> None:
    # Carioca's seed (C4): deal 2 opens with a trio and a 4-card sequence, exactly 7 cards;
    # the 8 of spades as a third meld is an extra card. The nearest turn keeps the trio and
    # the sequence as proposed (melds 0 and 1) and the discard.
    page.select_option("#ruleset", "carioca")
    page.fill("#deal-number", "2")
    page.set_checked("#has-opened", False)
    page.fill("#before", "")
    page.fill("#hand", "8C 8D 8H 4S 5S 6S 7S 8S KD 2C 3C 9H")
    page.fill("#after", "8C 8D 8H\n4S 5S 6S 7S\n8S")
    page.fill("#discard", "KD")
    page.click("#judge")
    page.wait_for_selector("#nearest-table")
    melds = page.locator("#nearest-table > li.meld")
    assert [codes_of(melds.nth(i)) for i in range(melds.count())] == [
        ["8C", "8D", "8H"],
        ["4S", "5S", "6S", "7S"],
    ]
    kept = page.locator("#nearest-table > li.meld.kept")
    assert kept.evaluate_all("ms => ms.map(m => m.dataset.kept)") == ["0", "1"]
    facts = suggestion_facts(page)
    assert facts["Discard"] == "KD"
    assert facts["Same cards as proposed"] == "no"
    # Unchecked, the page does not ask: the verdict alone.
    page.set_checked("#suggest", False)
    page.click("#judge")
    # The new verdict replaces the old one, its suggestion with it, and brings none.
    page.wait_for_selector("#suggestion", state="detached")
    assert page.inner_text("#verdict-banner").startswith("Illegal move")
    page.set_checked("#suggest", True)
    page.select_option("#ruleset", "carrossel")


def test_a_refused_request_shows_every_bad_field(page: Any) -> None:
    page.fill("#hand", "5X 9D 1H")
    page.click("#judge")
    page.wait_for_selector(".banner.error")
    assert page.locator("#verdict .banner").inner_text() == (
        "The service refused the request (invalid_argument)"
    )
    fields = page.locator(".field-problems code").all_inner_texts()
    assert fields == ["position.hand[0]", "position.hand[2]"]
    assert "'5X'" in page.locator(".field-problems li").first.inner_text()


def test_without_root_chromium_is_not_installed_and_the_reason_says_how(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ran: list[object] = []
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: ran.append(a))
    assert _install_chromium() == (
        "Chromium is not at /usr/bin/chromium; install it with `apt-get install chromium`"
    )
    assert ran == []


def test_a_failed_apt_get_is_the_skip_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")
    failed = subprocess.CompletedProcess([], 100, "", "E: Unable to locate package chromium")
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: failed)
    reason = _install_chromium()
    assert reason == "`apt-get update -qq` failed: E: Unable to locate package chromium"
