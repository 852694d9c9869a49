"""The graph page in a real browser: Debian's headless Chromium driven by selenium.

Skipped with a message when the browser, its driver or selenium is missing; under CI=1 that is
a failure (CI installs them: see .ci/run). The seeds' page test keeps a screenshot in
build/test-artifacts/ (the README's picture is one).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import tempfile

import pytest

import leafgrad as torch
from leafgrad.viz import _visible, draw

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARTIFACTS = os.path.join(REPO, "build", "test-artifacts")
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run")


def _missing() -> list[str]:
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not os.path.exists(path)]
    if importlib.util.find_spec("selenium") is None:
        missing.append("the selenium package (pip install -e '.[test]')")
    return missing


@pytest.fixture(scope="module")
def browser():
    missing = _missing()
    if missing:
        message = ("browser tests need Debian's chromium and chromium-driver (apt-get install "
                   "chromium chromium-driver) and selenium; missing: " + ", ".join(missing))
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="leafgrad-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.add_argument("--window-size=1280,800")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def _open(driver, path: str) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get("file://" + os.path.abspath(path))
    WebDriverWait(driver, 20).until(
        lambda d: d.execute_script("return document.body.getAttribute('data-ready')") == "1")


def _no_errors(driver) -> None:
    severe = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    assert not severe, severe
    # nothing was fetched: the page is one file
    resources = driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)")
    assert resources == []


def _details(driver) -> str:
    return driver.find_element("id", "lg-details").text


def _seeds_page(path: str) -> str:
    sys.path.insert(0, os.path.join(REPO, "demo"))
    try:
        import seeds_graph
    finally:
        sys.path.pop(0)
    return seeds_graph.write_page(path)


def test_seeds_page_shows_w_grad_and_replays_backward(browser, tmp_path):
    page = _seeds_page(str(tmp_path / "seeds.html"))
    _open(browser, page)
    _no_errors(browser)
    # The page opens after backward: clicking w shows its gradient.
    browser.find_element("css selector", 'g.lg-node[data-name="w"]').click()
    assert "grad: tensor([5.])" in _details(browser)

    # Back to before backward: nothing has reached w yet.
    browser.find_element("id", "lg-first").click()
    assert "grad: None" in _details(browser)
    steps = browser.execute_script("return window.leafgrad.steps()")
    assert steps >= 6  # three nodes, a free, two accumulations
    next_button = browser.find_element("id", "lg-next")
    for _ in range(steps):
        next_button.click()
    assert browser.find_element("id", "lg-step").text == f"step {steps} / {steps}"
    browser.find_element("css selector", 'g.lg-node[data-name="w"]').click()
    assert "grad: tensor([5.])" in _details(browser)
    # the two paths' gradients are written on the edges they travelled
    labels = [e.text for e in browser.find_elements("css selector", "text.lg-edge-label")]
    assert "[2.]" in labels and "[3.]" in labels
    os.makedirs(ARTIFACTS, exist_ok=True)
    browser.save_screenshot(os.path.join(ARTIFACTS, "viz_seeds.png"))
    _no_errors(browser)


def test_page_layout_matches_python_layout(browser, tmp_path):
    # The page lays the graph out again in JavaScript (page.js ports _layout.py): the two must
    # agree, collapsed and with every group open.
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    h = model(torch.randn(5, 3))
    for _ in range(16):
        h = h * 0.5 + 0.1
    loss = h.pow(2).mean()
    loss.backward()
    view = draw(loss, params=dict(model.named_parameters()))
    page = view.save(str(tmp_path / "mlp.html"))
    _open(browser, page)
    _no_errors(browser)
    model_dict = view.to_dict()
    for expand_all in (False, True):
        if expand_all:
            browser.find_element("id", "lg-expand").click()
            expanded = {group["id"] for group in model_dict["groups"]}
        else:
            expanded = None
        python = _visible.visible(model_dict, expanded)["layout"]
        page_layout = browser.execute_script("return window.leafgrad.visibleLayout()")
        assert set(page_layout["nodes"]) == set(python["nodes"])
        for key, box in python["nodes"].items():
            other = page_layout["nodes"][key]
            for field in ("x", "y", "w", "h"):
                assert abs(box[field] - other[field]) < 1e-6, (key, field, box, other)
        flat = [c for route in python["edges"] for point in route for c in point]
        page_flat = [c for route in page_layout["edges"] for point in route for c in point]
        assert [len(r) for r in python["edges"]] == [len(r) for r in page_layout["edges"]]
        assert flat == pytest.approx(page_flat, abs=1e-6)


def test_search_opens_a_repeated_run_and_shows_the_formula(browser, tmp_path):
    x = torch.tensor([0.5], requires_grad=True)
    y = x
    for _ in range(40):
        y = (y * 1.5).sin()
    y.backward()
    view = draw(y)
    assert any(group["kind"] == "repeat" for group in view.groups)
    _open(browser, view.save(str(tmp_path / "chain.html")))
    assert not browser.find_elements("css selector", 'g.lg-node[data-name="SinBackward0"]')
    search = browser.find_element("id", "lg-search")
    search.send_keys("SinBackward0")
    search.send_keys("\n")
    assert browser.find_elements("css selector", 'g.lg-node[data-name="SinBackward0"]')
    assert "grad_self = grad * conj(self.cos())" in _details(browser)
    # collapsing the run again through its box label
    browser.find_element("id", "lg-fit").click()
    browser.find_element("css selector", ".lg-box-label").click()
    assert not browser.find_elements("css selector", 'g.lg-node[data-name="SinBackward0"]')
    _no_errors(browser)


def test_zoom_buttons_and_wheel_change_the_view(browser, tmp_path):
    w = torch.tensor([1.0], requires_grad=True)
    view = draw((w * 2).sum())
    _open(browser, view.save(str(tmp_path / "small.html")))
    before = browser.execute_script(
        "return document.getElementById('lg-viewport').getAttribute('transform')")
    browser.find_element("id", "lg-zoom-in").click()
    after = browser.execute_script(
        "return document.getElementById('lg-viewport').getAttribute('transform')")
    assert before != after
    browser.find_element("id", "lg-fit").click()
    assert browser.execute_script(
        "return document.getElementById('lg-viewport').getAttribute('transform')") == before
