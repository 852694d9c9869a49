"""leafgrad.save/load beyond the default zip path: torch's legacy (non-zip) format both ways,
map_location in every form torch accepts, files saved on a GPU, mmap's checks, and the
errors for corrupted, truncated and foreign files (torch's exception type and first line)."""

from __future__ import annotations

import io
import pickle
import zipfile

import numpy as np
import pytest

import leafgrad

from ._torch import require_torch
from .test_serialization import _describe, _objects

torch = require_torch()


def _first_line(error) -> str:
    return (str(error).splitlines() or [""])[0]


def _same_error(data: bytes, **kwargs):
    """Load ``data`` with both libraries; both must fail with the same type and first line."""
    with pytest.raises(Exception) as theirs:
        torch.load(io.BytesIO(data), **kwargs)
    with pytest.raises(Exception) as ours:
        leafgrad.load(io.BytesIO(data), **kwargs)
    assert type(ours.value) is type(theirs.value)
    if _first_line(theirs.value) and not _first_line(theirs.value).startswith("Weights only"):
        assert _first_line(ours.value) == _first_line(theirs.value)


def _legacy(lib, obj) -> bytes:
    buffer = io.BytesIO()
    lib.save(obj, buffer, _use_new_zipfile_serialization=False)
    return buffer.getvalue()


def test_legacy_format_both_ways(tmp_path):
    loaded = leafgrad.load(io.BytesIO(_legacy(torch, _objects(torch))))
    assert _describe(loaded) == _describe(_objects(leafgrad))
    assert isinstance(loaded["param"], leafgrad.nn.Parameter)
    assert np.shares_memory(loaded["view"].numpy(), loaded["base"].numpy())
    loaded["base"][1, 0] = 100.0
    assert loaded["view"][0, 0].item() == 100.0

    ours = _legacy(leafgrad, _objects(leafgrad))
    theirs = torch.load(io.BytesIO(ours), weights_only=True)
    assert _describe(theirs) == _describe(_objects(torch))
    assert theirs["view"].untyped_storage().data_ptr() == theirs["base"].untyped_storage().data_ptr()
    assert _describe(leafgrad.load(io.BytesIO(ours))) == _describe(_objects(leafgrad))
    # through a path, too
    path = tmp_path / "legacy.ckpt"
    leafgrad.save(_objects(leafgrad), path, _use_new_zipfile_serialization=False)
    assert _describe(torch.load(path, weights_only=True)) == _describe(_objects(torch))


@pytest.mark.parametrize("cut", [1, 3, 8, 9, 12, 40, 200])
def test_truncated_legacy_files(cut):
    data = _legacy(torch, {"x": torch.arange(6.0).reshape(2, 3), "p": torch.ones(2)})
    _same_error(data[: len(data) - cut])


@pytest.mark.parametrize("data", [b"", b"\x80\x02K\x05.", pickle.dumps(5, protocol=2) + b"junk",
                                  pickle.dumps([1, 2], protocol=2)])
def test_non_checkpoints(data):
    _same_error(data)


def test_foreign_bytes_refused_without_running_anything():
    # torch's own unpickler fails here with an internal KeyError; leafgrad says what it is
    with pytest.raises(pickle.UnpicklingError):
        leafgrad.load(io.BytesIO(b"hello world"))


def test_zip_that_is_not_a_checkpoint(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("notes/readme.txt", "hello")
    with pytest.raises(RuntimeError) as ours:
        leafgrad.load(io.BytesIO(buffer.getvalue()))
    with pytest.raises(RuntimeError) as theirs:
        torch.load(io.BytesIO(buffer.getvalue()))
    assert _first_line(ours.value).startswith('Expected hasRecord("version") to be true')
    assert _first_line(theirs.value).startswith('Expected hasRecord("version") to be true')


def _map_locations(lib):
    return ["cpu", {}, lib.device("cpu"), {"cpu": "cpu"}, {"cuda:0": "cpu"},
            lambda storage, location: storage, lambda storage, location: None]


@pytest.mark.parametrize("legacy", [False, True])
@pytest.mark.parametrize("index", range(7))
def test_map_location_forms(legacy, index):
    obj = {"x": torch.arange(6.0).reshape(2, 3)}
    obj["v"] = obj["x"][:, 1]
    buffer = io.BytesIO()
    torch.save(obj, buffer, _use_new_zipfile_serialization=not legacy)
    expected = torch.load(io.BytesIO(buffer.getvalue()), map_location=_map_locations(torch)[index])
    loaded = leafgrad.load(io.BytesIO(buffer.getvalue()),
                           map_location=_map_locations(leafgrad)[index])
    assert _describe(loaded) == _describe(expected)
    assert np.shares_memory(loaded["x"].numpy(), loaded["v"].numpy())


def test_callable_map_location_sees_each_storage_once():
    buffer = io.BytesIO()
    x = torch.arange(4.0)
    torch.save({"x": x, "y": x[2:], "z": torch.ones(1)}, buffer)
    seen = []
    leafgrad.load(io.BytesIO(buffer.getvalue()),
                  map_location=lambda storage, location: seen.append(location))
    assert seen == ["cpu", "cpu"]


@pytest.mark.parametrize("map_location", [5, "cuda", "cuda:0", "meta2", "cpu:0", {"cpu": "cuda:1"}])
def test_bad_map_locations(map_location):
    buffer = io.BytesIO()
    torch.save({"x": torch.ones(2)}, buffer)
    _same_error(buffer.getvalue(), map_location=map_location)


def _on_gpu(data: bytes) -> bytes:
    """A zip checkpoint as a GPU machine writes it: storage locations "cuda:0"."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for name in source.namelist():
            record = source.read(name)
            if name.endswith("data.pkl"):
                assert b"X\x03\x00\x00\x00cpu" in record
                record = record.replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
            target.writestr(name, record)
    return out.getvalue()


def test_gpu_checkpoints_load_on_the_cpu():
    buffer = io.BytesIO()
    obj = {"w": torch.arange(6.0).reshape(2, 3), "b": torch.ones(3, dtype=torch.int64)}
    torch.save(obj, buffer)
    data = _on_gpu(buffer.getvalue())
    expected = torch.load(io.BytesIO(data), map_location="cpu")
    assert _describe(leafgrad.load(io.BytesIO(data))) == _describe(expected)
    assert _describe(leafgrad.load(io.BytesIO(data), map_location={"cuda:0": "cpu"})) == (
        _describe(expected))
    _same_error(data, map_location="cuda")


def test_mmap_checks(tmp_path):
    path = tmp_path / "m.pt"
    torch.save({"x": torch.arange(3.0)}, path)
    assert _describe(leafgrad.load(path, mmap=True)) == _describe(torch.load(path, mmap=True))
    _same_error(path.read_bytes(), mmap=True)
    legacy = tmp_path / "legacy.pt"
    torch.save({"x": torch.arange(3.0)}, legacy, _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError) as theirs:
        torch.load(legacy, mmap=True)
    with pytest.raises(RuntimeError) as ours:
        leafgrad.load(legacy, mmap=True)
    assert _first_line(ours.value) == _first_line(theirs.value)


def test_legacy_malicious_file_runs_nothing(tmp_path):
    from .test_serialization import _Evil

    marker = tmp_path / "pwned"
    path = tmp_path / "evil.pt"
    torch.save({"w": torch.ones(1), "payload": _Evil(marker)}, path,
               _use_new_zipfile_serialization=False)
    with pytest.raises(pickle.UnpicklingError) as error:
        leafgrad.load(path)
    assert "system" in str(error.value)
    assert not marker.exists()


def test_archive_layout_matches_torch(tmp_path):
    """Same records in the same order, stored, each one's data at a multiple of 64 bytes,
    under the archive name torch uses (the file's stem, "archive" for file objects)."""
    import struct

    def layout(lib, target):
        lib.save({"a": lib.ones(3), "b": lib.ones(2, dtype=lib.int64)}, target)
        data = target.getvalue() if isinstance(target, io.BytesIO) else target.read_bytes()
        archive = zipfile.ZipFile(io.BytesIO(data))
        out = []
        for info in archive.infolist():
            name_len, extra_len = struct.unpack("<HH", data[info.header_offset + 26:
                                                           info.header_offset + 30])
            start = info.header_offset + 30 + name_len + extra_len
            out.append((info.filename, info.compress_type, start % 64))
        return out

    assert layout(leafgrad, io.BytesIO()) == layout(torch, io.BytesIO())
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert layout(leafgrad, tmp_path / "a" / "net.pth") == layout(torch, tmp_path / "b" / "net.pth")


def test_save_and_load_path_errors(tmp_path):
    missing = tmp_path / "nowhere" / "x.pt"
    for lib in (torch, leafgrad):
        with pytest.raises(RuntimeError) as error:
            lib.save(lib.ones(1), missing)
        assert str(error.value) == f"Parent directory {missing.parent} does not exist."
        with pytest.raises(FileNotFoundError):
            lib.load(tmp_path / "absent.pt")
    assert not missing.parent.exists()


def test_explicit_pickle_module_with_weights_only():
    buffer = io.BytesIO()
    torch.save(torch.ones(1), buffer)
    for lib in (torch, leafgrad):
        with pytest.raises(RuntimeError) as error:
            lib.load(io.BytesIO(buffer.getvalue()), weights_only=True, pickle_module=pickle)
        assert str(error.value).startswith(
            "Can not safely load weights when explicit pickle_module is specified")
    # without weights_only, leafgrad stays safe (torch would unpickle anything)
    assert leafgrad.load(io.BytesIO(buffer.getvalue()), pickle_module=pickle).tolist() == [1.0]


class _Pipe(io.RawIOBase):
    """A write-only stream that cannot seek or tell (a socket, a pipe)."""

    def __init__(self):
        self.data = bytearray()

    def writable(self):
        return True

    def write(self, chunk):
        self.data += chunk
        return len(chunk)


def test_file_objects_mid_file_and_unseekable():
    def obj(lib):
        return {"a": lib.arange(5.0), "b": lib.ones(2, 2, dtype=lib.int32)}

    for lib in (leafgrad, torch):
        buffer = io.BytesIO(b"header")
        buffer.seek(6)
        lib.save(obj(lib), buffer)
        for reader in (leafgrad, torch):
            buffer.seek(6)
            assert _describe(reader.load(buffer)) == _describe(obj(reader))
    pipe = _Pipe()
    leafgrad.save(obj(leafgrad), pipe)
    for reader in (leafgrad, torch):
        assert _describe(reader.load(io.BytesIO(bytes(pipe.data)))) == _describe(obj(reader))


def test_mmap_loads_views_of_the_file(tmp_path):
    def obj(lib):
        x = lib.arange(12.0).reshape(3, 4)
        return {"x": x, "v": x[1:, ::2], "i": lib.arange(5), "e": lib.zeros(0, 2),
                "p": lib.nn.Parameter(lib.ones(2))}

    for writer in (leafgrad, torch):
        path = tmp_path / f"{writer.__name__}.pt"
        writer.save(obj(writer), path)
        before = path.read_bytes()
        loaded = leafgrad.load(path, mmap=True)
        assert _describe(loaded) == _describe(torch.load(path, mmap=True))
        assert _describe(loaded) == _describe(obj(leafgrad))
        assert np.shares_memory(loaded["x"].numpy(), loaded["v"].numpy())
        owner = loaded["x"].numpy()
        while isinstance(owner, np.ndarray) or type(owner).__name__ == "DummyArray":
            owner = owner.base
        assert type(owner.obj).__name__ == "mmap"  # a view of the mapped file, not a copy
        loaded["x"].add_(1)  # copy-on-write: the file is unchanged
        assert loaded["v"][0, 0].item() == 5.0
        assert path.read_bytes() == before
