"""python -m leafgrad.viz script.py [-o graph.html]: runs the script, writes the last backward."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(tmp_path, code: str, *args: str) -> subprocess.CompletedProcess:
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(code))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(REPO, "src") + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "leafgrad.viz", str(script), *args],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)


TRAINING = """
    import sys
    import leafgrad as torch
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def train(steps):
        for _ in range(steps):
            x = torch.randn(4, 2)
            loss = model(x).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        print("args", sys.argv[1:])

    train(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
"""


def test_writes_the_last_backward_with_its_trace_and_scopes(tmp_path):
    done = _run(tmp_path, TRAINING, "-o", "out.json", "--", "3")
    assert done.returncode == 0, done.stderr
    assert "args ['3']" in done.stdout and "wrote out.json" in done.stdout
    with open(tmp_path / "out.json", encoding="utf-8") as handle:
        data = json.load(handle)
    assert data["trace"]["events"][0]["node"] == "MeanBackward0"
    assert {n.get("name") for n in data["nodes"]} >= {"loss", "0.weight", "2.bias"}
    labels = {g["label"] for g in data["groups"]}
    assert {"Sequential", "0 (Linear)", "1 (ReLU)", "2 (Linear)"} <= labels


def test_default_output_is_graph_html(tmp_path):
    done = _run(tmp_path, TRAINING)
    assert done.returncode == 0, done.stderr
    with open(tmp_path / "graph.html", encoding="utf-8") as handle:
        assert 'id="lg-data"' in handle.read()


def test_script_without_backward(tmp_path):
    done = _run(tmp_path, "import leafgrad\nprint(leafgrad.ones(2) * 2)\n")
    assert done.returncode == 1
    assert "ran no backward; nothing to draw" in done.stderr


def test_failing_script_still_draws_what_ran(tmp_path):
    code = """
        import leafgrad as torch
        x = torch.tensor([1.0], requires_grad=True)
        (x * 2).sum().backward()
        raise ValueError("the script's own bug")
    """
    done = _run(tmp_path, code)
    assert done.returncode == 1
    assert "ValueError: the script's own bug" in done.stderr
    assert os.path.exists(tmp_path / "graph.html")


def test_missing_script(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(REPO, "src")
    done = subprocess.run([sys.executable, "-m", "leafgrad.viz", "nope.py"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "no such script" in done.stderr


def test_demo_writes_the_seeds_page(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(REPO, "src")
    target = tmp_path / "seeds.html"
    done = subprocess.run([sys.executable, os.path.join(REPO, "demo", "seeds_graph.py"), "-o",
                           str(target)], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert str(target) in done.stdout
    text = target.read_text(encoding="utf-8")
    data = json.loads(text.split('id="lg-data">', 1)[1].split("</script>", 1)[0])
    w = [n for n in data["model"]["nodes"] if n.get("name") == "w"][0]
    assert w["grad"]["repr"] == "tensor([5.])"
    assert len(data["trace"]["events"]) == 6
