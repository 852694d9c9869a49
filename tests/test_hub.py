"""``torch.hub`` and ``torch.utils.model_zoo``: checkpoints from URLs (file:// URLs here: no
network), hash checks, the pre-1.6 zipped format, local and GitHub ``hubconf.py`` repositories
(GitHub served from a zip built by the test), compared with torch."""

from __future__ import annotations

import hashlib
import io
import os
import warnings
import zipfile

import numpy as np
import pytest

import leafgrad

from ._torch import require_torch

torch = require_torch()
import torch.utils.model_zoo  # noqa: E402 - not imported by torch itself

HUBCONF = '''"""A tiny hub repository."""
dependencies = {dependencies}
LIMIT = 3


def tiny(scale=1, offset=0):
    """Twice the scale, plus an offset."""
    return scale * 2 + offset


def _private():
    return None
'''


@pytest.fixture
def hub_dirs(tmp_path):
    previous = (torch.hub.get_dir(), leafgrad.hub.get_dir())
    dirs = {}
    for lib in (torch, leafgrad):
        dirs[lib] = str(tmp_path / f"hub_{lib.__name__}")
        lib.hub.set_dir(dirs[lib])
    yield dirs
    torch.hub.set_dir(previous[0])
    leafgrad.hub.set_dir(previous[1])


def _state():
    generator = np.random.default_rng(0)
    return {"weight": torch.tensor(generator.standard_normal((3, 4)), dtype=torch.float32),
            "bias": torch.arange(3, dtype=torch.float64), "steps": 7}


def _plain(value):
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if hasattr(value, "numpy"):
        return (str(value.dtype).split(".")[-1], value.numpy().tolist())
    return value


def _outcome(call):
    try:
        return "value", _plain(call())
    except Exception as error:  # noqa: BLE001 - the type and first line are compared
        return type(error).__name__, str(error).splitlines()[0].replace(
            os.sep + "hub_leafgrad", os.sep + "hub_torch")


def test_get_and_set_dir(monkeypatch, tmp_path):
    for variables in ({}, {"TORCH_HOME": str(tmp_path / "home")},
                      {"XDG_CACHE_HOME": str(tmp_path / "xdg")}):
        for name in ("TORCH_HOME", "XDG_CACHE_HOME"):
            monkeypatch.delenv(name, raising=False)
        for name, value in variables.items():
            monkeypatch.setenv(name, value)
        monkeypatch.setattr(torch.hub, "_hub_dir", None)
        monkeypatch.setattr(leafgrad.hub, "_hub_dir", None)
        assert leafgrad.hub.get_dir() == torch.hub.get_dir()
    for lib in (torch, leafgrad):
        lib.hub.set_dir("~/somewhere")
    assert leafgrad.hub.get_dir() == torch.hub.get_dir()


def test_checkpoints_from_urls(hub_dirs, tmp_path):
    source = tmp_path / "weights.pt"
    torch.save(_state(), source)
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    hashed = tmp_path / f"weights-{digest[:10]}.pt"
    hashed.write_bytes(source.read_bytes())
    wrong = tmp_path / "weights-0123abcd.pt"
    wrong.write_bytes(source.read_bytes())
    legacy = tmp_path / "legacy.zip"
    with zipfile.ZipFile(legacy, "w") as archive:
        archive.write(source, "inner.pt")
    calls = [
        lambda lib: lib.hub.load_state_dict_from_url(source.as_uri(), progress=False),
        lambda lib: lib.hub.load_state_dict_from_url(source.as_uri(), progress=False),  # cached
        lambda lib: lib.hub.load_state_dict_from_url(hashed.as_uri(), check_hash=True,
                                                     progress=False, weights_only=True),
        lambda lib: lib.hub.load_state_dict_from_url(wrong.as_uri(), check_hash=True,
                                                     progress=False),
        lambda lib: lib.hub.load_state_dict_from_url(source.as_uri(), file_name="other.pt",
                                                     progress=False, map_location="cpu"),
        lambda lib: lib.utils.model_zoo.load_url(source.as_uri(), progress=False),
        lambda lib: lib.hub.load_state_dict_from_url((tmp_path / "missing.pt").as_uri()),
    ]
    for call in calls:
        results = []
        for lib in (torch, leafgrad):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                results.append(_outcome(lambda lib=lib: call(lib)))
        assert results[0] == results[1]
    for lib in (torch, leafgrad):  # a failed hash check leaves nothing behind
        assert sorted(os.listdir(os.path.join(hub_dirs[lib], "checkpoints"))) == sorted(
            ["weights.pt", hashed.name, "other.pt"])
    seen = []
    for lib in (torch, leafgrad):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = lib.hub.load_state_dict_from_url(legacy.as_uri(), progress=False)
        seen.append((_plain(value), [(w.category.__name__, str(w.message)) for w in caught
                                     if "old format" in str(w.message)]))
    assert seen[0] == seen[1]


def test_download_url_to_file(tmp_path):
    payload = bytes(range(256)) * 1000
    source = tmp_path / "blob.bin"
    source.write_bytes(payload)
    good = hashlib.sha256(payload).hexdigest()[:6]
    for lib in (torch, leafgrad):
        target = tmp_path / f"{lib.__name__}.bin"
        lib.hub.download_url_to_file(source.as_uri(), str(target), hash_prefix=good,
                                     progress=False)
        assert target.read_bytes() == payload
    outcomes = [_outcome(lambda lib=lib: lib.hub.download_url_to_file(
        source.as_uri(), str(tmp_path / "bad.bin"), hash_prefix="ffff", progress=False))
        for lib in (torch, leafgrad)]
    assert outcomes[0] == outcomes[1] and outcomes[0][0] == "RuntimeError"
    assert not (tmp_path / "bad.bin").exists()
    assert not [name for name in os.listdir(tmp_path) if name.endswith(".partial")]


def _local_repo(tmp_path, dependencies):
    repo = tmp_path / f"repo_{abs(hash(dependencies))}"
    repo.mkdir(exist_ok=True)
    (repo / "hubconf.py").write_text(HUBCONF.format(dependencies=dependencies))
    return repo


@pytest.mark.parametrize("dependencies", ["['numpy']", "None", "['numpy', 'no_such_pkg_x']"])
def test_load_local(tmp_path, dependencies):
    repo = str(_local_repo(tmp_path, dependencies))
    calls = [
        lambda lib: lib.hub.load(repo, "tiny", source="local"),
        lambda lib: lib.hub.load(repo, "tiny", 5, offset=1, source="local"),
        lambda lib: lib.hub.load(repo, "tiny", source="LOCAL"),
        lambda lib: lib.hub.load(repo, "LIMIT", source="local"),
        lambda lib: lib.hub.load(repo, "nothing", source="local"),
        lambda lib: lib.hub.load(repo, 3, source="local"),
        lambda lib: lib.hub.load(repo, "tiny", source="ftp"),
    ]
    for call in calls:
        assert _outcome(lambda: call(leafgrad)) == _outcome(lambda: call(torch))


class _FakeGitHub:
    """urlopen for github.com: 'main' exists, the zipball is built from HUBCONF."""

    def __init__(self, real):
        self.real = real
        self.downloads = 0

    def __call__(self, request, *args, **kwargs):
        url = request.full_url if hasattr(request, "full_url") else request
        if url.startswith("https://github.com/") and "/tree/main/" in url:
            return io.BytesIO(b"ok")
        if url.startswith("https://github.com/") and "/zipball/" in url:
            self.downloads += 1
            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, "w") as archive:  # GitHub's layout: the folder first
                archive.writestr("someone-tinyhub-abc123/", "")
                archive.writestr("someone-tinyhub-abc123/hubconf.py",
                                 HUBCONF.format(dependencies="['numpy']"))
                archive.writestr("someone-tinyhub-abc123/README", "tiny")
            return _Response(buffer.getvalue())
        return self.real(request, *args, **kwargs)


class _Headers:
    def __init__(self, size):
        self.size = size

    def get_all(self, name):
        return [str(self.size)] if name == "Content-Length" else None

    def getheaders(self, name):
        return self.get_all(name)


class _Response(io.BytesIO):
    def info(self):
        return _Headers(len(self.getvalue()))


def test_github_repositories(hub_dirs, monkeypatch, capsys):
    seen = []
    for lib in (torch, leafgrad):
        fake = _FakeGitHub(lib.hub.urlopen)
        monkeypatch.setattr(lib.hub, "urlopen", fake)
        kwargs = {"skip_validation": True, "trust_repo": True}
        record = [lib.hub.list("someone/tinyhub", **kwargs),
                  lib.hub.help("someone/tinyhub", "tiny", **kwargs),
                  lib.hub.load("someone/tinyhub", "tiny", 4, **kwargs),
                  lib.hub.load("someone/tinyhub:main", "tiny", scale=2, **kwargs),
                  fake.downloads,
                  lib.hub.load("someone/tinyhub", "tiny", force_reload=True, **kwargs),
                  fake.downloads,
                  sorted(os.listdir(hub_dirs[lib])),
                  open(os.path.join(hub_dirs[lib], "trusted_list")).read()]
        monkeypatch.setattr("builtins.input", lambda prompt: "no")
        record.append(_outcome(lambda lib=lib: lib.hub.load(
            "stranger/otherhub", "tiny", trust_repo="check", skip_validation=True)))
        monkeypatch.setattr("builtins.input", lambda prompt: "maybe")
        record.append(_outcome(lambda lib=lib: lib.hub.load(
            "stranger/otherhub", "tiny", trust_repo=False, skip_validation=True)))
        seen.append(record)
    assert seen[0] == seen[1]
    assert seen[0][4] == 1 and seen[0][6] == 2
