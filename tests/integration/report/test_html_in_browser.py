"""The HTML report as a person sees it: a real run's page (and the same page rendered later from its JSON
report) opened offline in headless Chromium, counts read off the page, filters clicked, a screenshot taken."""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from toolproof.cli import main

ROOT = Path(__file__).resolve().parents[3]
FLAKY = ROOT / "tests" / "servers" / "flaky_server.py"
CRASHING = ROOT / "tests" / "servers" / "misbehaving_server.py"
CHROMIUM = Path("/usr/bin/chromium")
DRIVER = Path("/usr/bin/chromedriver")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,1600",
)

pytestmark = pytest.mark.skipif(
    not (CHROMIUM.exists() and DRIVER.exists()), reason="Debian chromium and chromium-driver: make setup"
)


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[webdriver.Chrome]:
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*FLAGS, f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(executable_path=str(DRIVER)))
    try:
        yield driver
    finally:
        driver.quit()


def case(name: str, tool: str, counter: Path, extra: str = "") -> str:
    return (
        textwrap.dedent(
            f"""\
        name: {name}
        server: {{command: {sys.executable}, args: [{FLAKY}, {counter}]}}
        setup:
          - tool: steady
        assert:
          tool: {tool}
          args: {{}}
          expect: {{not_error: true}}
        """
        )
        + extra
    )


@pytest.fixture
def run_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A real run of two trials per case over the flaky server (two cases pass, a flaky one and a broken one
    fail, one is skipped) and a server that crashes mid-call: its HTML page and its JSON report."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    suite = tmp_path / "suite"
    suite.mkdir()
    counter = tmp_path / "calls.txt"
    (suite / "a.yaml").write_text(case("steady answers ok", "steady", counter))
    (suite / "b.yaml").write_text(case("steady again", "steady", counter))
    (suite / "c.yaml").write_text(case("flip alternates", "flip", counter))
    (suite / "d.yaml").write_text(case("broken always fails", "broken", counter))
    (suite / "e.yaml").write_text(case("not today", "steady", counter, "skip: true\n"))
    crash = (
        f"name: crashes mid-call\nserver: {{command: {sys.executable}, args: [{CRASHING}, exit_mid_call]}}\n"
    )
    (suite / "f.yaml").write_text(crash + "assert: {tool: anything, args: {}, expect: {not_error: true}}\n")
    page, report = tmp_path / "report.html", tmp_path / "report.json"
    status = main(["run", str(suite), "--trials", "2", "--html", str(page), "--json", str(report), "-q"])
    assert status == 1
    return page, report


def visible(driver: webdriver.Chrome) -> list[str]:
    cases = driver.find_elements(By.CSS_SELECTOR, "details.case")
    return [item.find_element(By.CSS_SELECTOR, ".name").text for item in cases if item.is_displayed()]


def test_page_shows_the_counts_and_filters_by_status_and_text(
    browser: webdriver.Chrome, run_report: tuple[Path, Path], tmp_path: Path
) -> None:
    page, report = run_report
    text = page.read_text()
    assert (
        "http://" not in text.replace("http://www.w3.org", "") and "https://" not in text
    )  # nothing fetched
    browser.get(page.as_uri())
    counts = {
        key: browser.find_element(By.ID, f"count-{key}").text for key in ("TOTAL", "PASS", "FAIL", "SKIP")
    }
    assert counts == {"TOTAL": "6", "PASS": "2", "FAIL": "3", "SKIP": "1"}
    assert browser.find_element(By.ID, "count-FLAKY").text == "1"
    assert len(visible(browser)) == 6
    browser.find_element(By.ID, "filter-FAIL").click()
    assert sorted(visible(browser)) == ["broken always fails", "crashes mid-call", "flip alternates"]
    assert browser.find_element(By.ID, "shown-count").text == "3"
    crashed = browser.find_element(By.CSS_SELECTOR, "details.case[data-search*='crashes mid-call']")
    assert "panic: database is locked" in crashed.find_element(By.CSS_SELECTOR, "pre.stderr").text
    browser.find_element(By.ID, "filter-FLAKY").click()
    assert visible(browser) == ["flip alternates"]
    browser.find_element(By.ID, "filter-ALL").click()
    browser.find_element(By.ID, "filter-text").send_keys("steady")
    assert visible(browser) == ["steady answers ok", "steady again"]
    browser.find_element(By.ID, "filter-text").clear()
    browser.find_element(By.ID, "filter-text").send_keys("broken")
    assert visible(browser) == ["broken always fails"]
    failing = browser.find_element(By.CSS_SELECTOR, "details.case[data-status='FAIL']:not(.hidden)")
    steps = failing.find_elements(By.CSS_SELECTOR, "ol.steps > li")
    assert [step.find_element(By.CSS_SELECTOR, ".kind").text for step in steps] == ["setup", "request"]
    assert "broken on purpose" in steps[1].find_element(By.CSS_SELECTOR, "pre.response").text
    assert '"tool": "broken"' in steps[1].find_element(By.CSS_SELECTOR, "pre.request").text
    browser.refresh()
    shot = tmp_path / "report.png"
    assert browser.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000
    # the same page, rendered later from the saved JSON report
    again = tmp_path / "again.html"
    assert main(["report", str(report), "--html", str(again)]) == 0
    browser.get(again.as_uri())
    assert browser.find_element(By.ID, "count-FAIL").text == "3"
    assert browser.find_element(By.ID, "count-FLAKY").text == "1"
    assert json.loads(report.read_text())["format_version"] == 1


def test_agent_trajectory_shows_calls_in_order_with_the_checks_that_looked_at_them(
    browser: webdriver.Chrome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", "")
    page = tmp_path / "check.html"
    argv = ["check", "examples/agent", "--trace", "examples/agent/traces", "--skip-judge", "--by-case"]
    assert main([*argv, "--html", str(page), "-q"]) == 1
    browser.get(page.as_uri())
    browser.find_element(By.ID, "filter-text").send_keys("double charge [bad]")
    assert visible(browser) == ["refund for a double charge [bad]"]
    shown = next(
        item for item in browser.find_elements(By.CSS_SELECTOR, "details.case") if item.is_displayed()
    )
    calls = shown.find_elements(By.CSS_SELECTOR, "li.step.tool_call")
    heads = [call.find_element(By.CSS_SELECTOR, ".step-head").text for call in calls]
    assert [head.split(" · ")[0] for head in heads] == [
        "tool_call process_refund",
        "tool_call lookup_order",
        "tool_call process_refund",
    ]
    assert "turn 1" in heads[0] and "turn 2" in heads[1]
    first = [item.text for item in calls[0].find_elements(By.CSS_SELECTOR, ".checks li")]
    assert any(text.startswith("turn 1: process_refund not called: FAIL") for text in first)
    assert '"amount"' in calls[0].find_element(By.CSS_SELECTOR, "pre.request").text
    reply = shown.find_elements(By.CSS_SELECTOR, "li.step.reply")
    assert reply and all(step.is_displayed() for step in reply)
