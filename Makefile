# The two commands the README documents. Each creates .venv on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: demo test bench

$(VENV)/.runtime:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	touch $@

$(VENV)/.test: $(VENV)/.runtime
	$(PY) -m pip install --quiet -e ".[test]"
	touch $@

demo: $(VENV)/.runtime
	$(PY) demo/seeds_tour.py

test: $(VENV)/.test
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 $(PY) -m pytest -n 2 tests

bench: $(VENV)/.test
	$(PY) benchmarks/bench_core.py
