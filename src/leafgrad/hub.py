"""``torch.hub``: downloading checkpoints and loading models published in a ``hubconf.py``.

Checkpoints come from a URL into ``get_dir()/checkpoints`` (the same cache directory torch
uses, ``$TORCH_HOME/hub``, so files torch downloaded are reused) and are read with
``leafgrad.load``, which reads torch's format. ``load``/``list``/``help`` import a repository's
``hubconf.py``: from a local directory (``source="local"``) or from GitHub, downloaded as a
zip archive once, extracted safely, and cached. Before downloading a repository its owner is
checked against the trusted list as in torch (``trust_repo``); the check GitHub offers against
forks (``skip_validation=False``) needs its API and is not made.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import warnings
from pathlib import Path

# urllib, zipfile, hashlib and the rest are imported where used: ``import leafgrad`` does not
# pay for the HTTP client (~0.1 s)

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load",
           "load_state_dict_from_url", "set_dir"]

HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
_TRUSTED_OWNERS = ("facebookresearch", "facebookincubator", "pytorch", "fairinternal")
_CHUNK = 128 * 1024
_hub_dir: str | None = None


# -- where things go -----------------------------------------------------------------------------
def _torch_home() -> str:
    default = os.path.join(os.getenv("XDG_CACHE_HOME", "~/.cache"), "torch")
    return os.path.expanduser(os.getenv("TORCH_HOME", default))


def get_dir() -> str:
    """The hub's cache directory: ``set_dir``'s, else ``$TORCH_HOME/hub`` (``$TORCH_HOME``
    defaulting to ``$XDG_CACHE_HOME/torch``, that to ``~/.cache/torch``)."""
    if os.getenv("TORCH_HUB"):
        warnings.warn("TORCH_HUB is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_torch_home(), "hub")


def set_dir(d) -> None:
    """Use ``d`` as the hub's cache directory."""
    global _hub_dir
    _hub_dir = os.path.expanduser(d)


# -- downloading ---------------------------------------------------------------------------------
def _progress_bar(total, enabled: bool):
    """tqdm's bar when the optional package is there and ``enabled``; else a silent stand-in."""
    if enabled:
        try:
            from tqdm import tqdm

            return tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024)
        except ImportError:
            pass

    class _Silent:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def update(self, count):
            pass

    return _Silent()


def urlopen(request, *args, **kwargs):
    """urllib's urlopen (the one place the hub opens URLs)."""
    from urllib.request import urlopen as _urlopen

    return _urlopen(request, *args, **kwargs)


def download_url_to_file(url: str, dst: str, hash_prefix: str | None = None,
                         progress: bool = True) -> None:
    """Download ``url`` to ``dst`` through a temporary file beside it (so a failed download
    leaves nothing at ``dst``); with ``hash_prefix``, the file's SHA-256 must start with it."""
    import errno
    import hashlib
    import shutil
    import tempfile
    import uuid
    from urllib.request import Request
    dst = os.path.expanduser(dst)
    for _ in range(tempfile.TMP_MAX):
        partial = f"{dst}.{uuid.uuid4().hex}.partial"
        try:
            handle = open(partial, "x+b")  # noqa: SIM115 - closed in finally
        except FileExistsError:
            continue
        break
    else:
        raise FileExistsError(errno.EEXIST, "No usable temporary file name found")
    try:
        with urlopen(Request(url, headers={"User-Agent": "torch.hub"})) as response:
            lengths = response.info().get_all("Content-Length")
            size = int(lengths[0]) if lengths else None
            digest = hashlib.sha256() if hash_prefix is not None else None
            with _progress_bar(size, progress) as bar:
                while chunk := response.read(_CHUNK):
                    handle.write(chunk)
                    if digest is not None:
                        digest.update(chunk)
                    bar.update(len(chunk))
        handle.close()
        if digest is not None:
            hexdigest = digest.hexdigest()
            if hexdigest[:len(hash_prefix)] != hash_prefix:
                raise RuntimeError(
                    f'invalid hash value (expected "{hash_prefix}", got "{hexdigest}")')
        shutil.move(partial, dst)
    finally:
        handle.close()
        if os.path.exists(partial):
            os.remove(partial)


def _extract(archive, target) -> None:
    """Extract every member under ``target``, refusing absolute paths and ``..`` (zip slip)."""
    target = Path(target).resolve(strict=False)
    for member in archive.infolist():
        name = os.path.normpath(member.filename)
        if name.startswith(("/", "\\")) or (len(name) >= 2 and name[1] == ":"
                                            and name[0].isalpha()):
            raise ValueError(f"Archive entry has absolute path: {member.filename}")
        if ".." in re.split(r"[/\\]", name):
            raise ValueError(f"Archive entry contains directory traversal: {member.filename}")
        if not (target / name).resolve(strict=False).is_relative_to(target):
            raise ValueError(f"Archive entry escapes target directory: {member.filename}")
        archive.extract(member, target)


def load_state_dict_from_url(url: str, model_dir: str | None = None, map_location=None,
                             progress: bool = True, check_hash: bool = False,
                             file_name: str | None = None, weights_only: bool = False):
    """The object saved at ``url`` (a checkpoint in torch's format), downloaded once into
    ``model_dir`` (default ``get_dir()/checkpoints``) and loaded with ``leafgrad.load``.
    ``check_hash``: the file name's ``-<hex>.`` part must prefix the file's SHA-256."""
    import zipfile
    from urllib.parse import urlparse

    from .serialization import load

    if os.getenv("TORCH_MODEL_ZOO"):
        warnings.warn("TORCH_MODEL_ZOO is deprecated, please use env TORCH_HOME instead",
                      stacklevel=2)
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name if file_name is not None else os.path.basename(urlparse(url).path)
    cached = os.path.join(model_dir, filename)
    if not os.path.exists(cached):
        sys.stdout.write(f'Downloading: "{url}" to {cached}\n')
        prefix = None
        if check_hash:
            match = HASH_REGEX.search(filename)
            prefix = match.group(1) if match else None
        download_url_to_file(url, cached, prefix, progress=progress)
    if zipfile.is_zipfile(cached):
        with zipfile.ZipFile(cached) as archive:
            members = archive.infolist()
            if len(members) == 1 and not members[0].is_dir():  # the format before torch 1.6:
                warnings.warn(  # one file zipped
                    "Falling back to the old format < 1.6. This support will be deprecated in "
                    "favor of default zipfile format introduced in 1.6. Please redo "
                    "torch.save() to save it in the new zipfile format.", FutureWarning,
                    stacklevel=2)
                _extract(archive, model_dir)
                cached = os.path.join(model_dir, members[0].filename)
    return load(cached, map_location=map_location, weights_only=weights_only)


# -- repositories with a hubconf.py ----------------------------------------------------------------
def _repository(github: str):
    """(owner, name, ref) of ``"owner/name[:ref]"``; without a ref, "main" if GitHub has that
    branch, else "master" (offline: whichever is cached)."""
    from urllib.error import HTTPError, URLError

    if ":" in github:
        info, ref = github.split(":")
    else:
        info, ref = github, None
    owner, name = info.split("/")
    if ref is None:
        try:
            with urlopen(f"https://github.com/{owner}/{name}/tree/main/"):
                ref = "main"
        except HTTPError as error:
            if error.code != 404:
                raise
            ref = "master"
        except URLError as error:
            for candidate in ("main", "master"):
                if os.path.exists(f"{get_dir()}/{owner}_{name}_{candidate}"):
                    ref = candidate
                    break
            else:
                raise RuntimeError("It looks like there is no internet connection and the repo "
                                   f"could not be found in the cache ({get_dir()})") from error
    return owner, name, ref


def _check_trusted(owner: str, name: str, owner_name_ref: str, trust_repo) -> None:
    """torch's trust rule: owners it trusts, repositories in ``trusted_list`` (or cached under
    the old layout); otherwise ask (``trust_repo="check"`` or False), and remember."""
    hub_dir = get_dir()
    listing = os.path.join(hub_dir, "trusted_list")
    Path(listing).touch()
    with open(listing) as file:
        trusted = tuple(line.strip() for line in file)
    owner_name = f"{owner}_{name}"
    is_trusted = (owner_name in trusted or owner_name_ref in next(os.walk(hub_dir))[1]
                  or owner in _TRUSTED_OWNERS)
    if trust_repo is False or (trust_repo == "check" and not is_trusted):
        answer = input(f"The repository {owner_name} does not belong to the list of trusted "
                       "repositories and as such cannot be downloaded. Do you trust this "
                       "repository and wish to add it to the trusted list of repositories "
                       "(y/N)?")
        if answer.lower() in ("y", "yes"):
            if is_trusted:
                print("The repository is already trusted.")
        elif answer.lower() in ("n", "no", ""):
            raise Exception("Untrusted repository.")  # noqa: TRY002 - torch's exception
        else:
            raise ValueError(f"Unrecognized response {answer}.")
    if not is_trusted:
        with open(listing, "a") as file:
            file.write(owner_name + "\n")


def _cached_repository(github: str, force_reload: bool, trust_repo, verbose: bool) -> str:
    """The local directory of a GitHub repository, downloaded and extracted if needed."""
    import shutil
    import zipfile

    hub_dir = get_dir()
    os.makedirs(hub_dir, exist_ok=True)
    owner, name, ref = _repository(github)
    flat_ref = ref.replace("/", "_")
    repo_dir = os.path.join(hub_dir, f"{owner}_{name}_{flat_ref}")
    _check_trusted(owner, name, f"{owner}_{name}_{flat_ref}", trust_repo)
    if not force_reload and os.path.exists(repo_dir):
        if verbose:
            sys.stderr.write(f"Using cache found in {repo_dir}\n")
        return repo_dir
    archive_path = os.path.join(hub_dir, flat_ref + ".zip")
    if os.path.exists(archive_path):
        os.remove(archive_path)
    url = f"https://github.com/{owner}/{name}/zipball/{ref}"
    sys.stdout.write(f'Downloading: "{url}" to {archive_path}\n')
    download_url_to_file(url, archive_path, progress=False)
    with zipfile.ZipFile(archive_path) as archive:
        top = archive.infolist()[0].filename
        extracted = os.path.join(hub_dir, top)
        shutil.rmtree(extracted, ignore_errors=True)
        _extract(archive, hub_dir)
    os.remove(archive_path)
    shutil.rmtree(repo_dir, ignore_errors=True)
    shutil.move(extracted, repo_dir)
    return repo_dir


@contextlib.contextmanager
def _on_path(directory: str):
    sys.path.insert(0, directory)
    try:
        yield
    finally:
        sys.path.remove(directory)


def _hubconf(directory: str):
    """The repository's ``hubconf.py``, imported afresh."""
    import importlib.util

    path = os.path.join(directory, "hubconf.py")
    with _on_path(directory):
        spec = importlib.util.spec_from_file_location("hubconf.py", path)
        if spec is None or spec.loader is None:
            raise AssertionError(f"failed to load spec from {path}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return module


def _entry(module, model):
    import importlib.util

    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    dependencies = getattr(module, "dependencies", None) if "dependencies" in dir(module) \
        else None
    if dependencies is not None:
        missing = [package for package in dependencies
                   if importlib.util.find_spec(package) is None]
        if missing:
            raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    function = getattr(module, model) if model in dir(module) else None
    if function is None or not callable(function):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return function


def list(github, force_reload: bool = False, skip_validation: bool = False,  # noqa: A001
         trust_repo="check", verbose: bool = True):
    """The public callables (entry points) of a GitHub repository's ``hubconf.py``."""
    module = _hubconf(_cached_repository(github, force_reload, trust_repo, verbose))
    return [name for name in dir(module)
            if callable(getattr(module, name)) and not name.startswith("_")]


def help(github, model, force_reload: bool = False, skip_validation: bool = False,  # noqa: A001
         trust_repo="check"):
    """The docstring of entry point ``model``."""
    module = _hubconf(_cached_repository(github, force_reload, trust_repo, True))
    return _entry(module, model).__doc__


def load(repo_or_dir, model, *args, source: str = "github", trust_repo="check",
         force_reload: bool = False, verbose: bool = True, skip_validation: bool = False,
         **kwargs):
    """Call entry point ``model`` of a repository's ``hubconf.py`` with ``args``/``kwargs``:
    ``source="github"`` (``"owner/name[:ref]"``) or ``"local"`` (a directory)."""
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        repo_or_dir = _cached_repository(repo_or_dir, force_reload, trust_repo, verbose)
    with _on_path(repo_or_dir):
        return _entry(_hubconf(repo_or_dir), model)(*args, **kwargs)

