# The two commands the README documents. Each creates .venv on first use and installs what it
# needs (the stamps depend on pyproject.toml, so a changed dependency list is installed again).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: demo test bench

$(VENV)/.runtime: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	touch $@

$(VENV)/.examples: $(VENV)/.runtime
	$(PY) -m pip install --quiet -e ".[examples]"
	touch $@

$(VENV)/.test: $(VENV)/.runtime
	$(PY) -m pip install --quiet -e ".[test]"
	touch $@

# The seed tour (every example of the seed tutorials, explained), the seeds' graph as a page
# (values, gradients, the backward replay: build/seeds_graph.html), then a real model: a CNN
# trained on scikit-learn's handwritten digits with nn, optim.Adam and a DataLoader. The timed
# eager-vs-compiled section runs with one BLAS/OpenMP thread (a small workload: on a busy
# machine two spinning OpenMP threads made a 64-32-10 MLP step 50x slower, torch's too).
demo: $(VENV)/.examples
	$(PY) demo/seeds_tour.py
	@echo
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 $(PY) demo/dynamic_vs_static.py
	@echo
	$(PY) demo/seeds_graph.py
	@echo
	@echo "== Training a CNN on the handwritten digits (examples/digits_cnn.py)"
	$(PY) examples/digits_cnn.py

test: $(VENV)/.test
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 $(PY) -m pytest -n 2 tests

bench: $(VENV)/.test
	$(PY) benchmarks/bench_core.py
