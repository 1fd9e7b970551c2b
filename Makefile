# ShowDesk: `make run` opens the app on the demo show, `make test` runs the whole suite.
# Both set everything up on a fresh Debian machine: system packages Qt needs, a local .venv.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test lint typecheck unit bench sim sysdeps sysdeps-window clean

$(STAMP): pyproject.toml
	@./packaging/system-deps.sh
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	@touch $(STAMP)

sysdeps:
	@./packaging/system-deps.sh

# A machine without a display gets a virtual one, so the window still opens (and can be grabbed).
sysdeps-window:
	@if [ -z "$$DISPLAY$$WAYLAND_DISPLAY" ]; then ./packaging/system-deps.sh --window; fi

run: $(STAMP) sysdeps-window
	@if [ -z "$$DISPLAY$$WAYLAND_DISPLAY" ]; then \
	  echo "No display: running under Xvfb."; xvfb-run -a -s "-screen 0 1600x1000x24" $(BIN)/showdesk --demo; \
	else $(BIN)/showdesk --demo; fi

lint: $(STAMP)
	$(BIN)/ruff check app tests
	$(BIN)/ruff format --check app tests

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP) sysdeps
	$(BIN)/python -m pytest

test: lint typecheck unit

bench: $(STAMP) sysdeps
	@for f in tests/bench/bench_*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

sim: $(STAMP)
	$(BIN)/showdesk sim --size demo

clean:
	rm -rf $(VENV) build dist *.egg-info
