# tpfemu: `make demo` runs the demo, `make test` runs lint (ruff, mypy) and the whole suite.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
NATIVE := $(wildcard native/src/*.c native/include/tpf/*.h native/python/*.c native/python/*.h native/runtime/*.c native/runtime/*.h native/include/*.h) native/build_ffi.py setup.py

.PHONY: all venv native demo test lint bench clean

all: test

# The virtual environment with the project installed in editable mode (this compiles the C core).
$(VENV)/.installed: pyproject.toml setup.py
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "tpfemu needs Python 3.11 or newer (found: $$($(PYTHON) --version))"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev,pipeline]'
	@touch $@

venv: $(VENV)/.installed

# Rebuild the compiled modules in place when their C sources change.
$(VENV)/.native: $(VENV)/.installed $(NATIVE)
	$(PY) setup.py -q build_ext --inplace
	@touch $@

native: $(VENV)/.native

demo: native
	$(VENV)/bin/tpfemu demo

lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(VENV)/bin/mypy --strict -p ecb

# Two pytest-xdist workers: the Spark tests on one (one JVM, tests/conftest.py), the
# tests that mostly wait on sockets, processes and disks on the other.
test: native lint
	$(PY) -m pytest -n 2 --dist loadgroup

bench: native
	$(PY) -m pytest bench --benchmark-columns=min,median,mean,rounds -p no:randomly

clean:
	rm -rf $(VENV) build *.egg-info tpfemu/_native.* tpfemu/_fastpath.* tpfemu/_cprog.* tpfemu/_exchange.* native/tests/bin native/bench/bin
