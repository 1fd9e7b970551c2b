# ShowDesk: `make run` opens the app on the demo show, `make test` runs the whole suite.
# Both set everything up on a fresh Debian machine: system packages Qt needs, a local .venv.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test lint typecheck unit bench sim sysdeps sysdeps-window screenshots clean lock
.PHONY: package package-onefile package-test icons

LOCK   := packaging/requirements.lock

# The tested set, exactly: every package pinned with its hashes in $(LOCK) (`make lock` writes it
# from pyproject.toml), then ShowDesk itself without dependencies and with the lock's setuptools.
$(STAMP): pyproject.toml $(LOCK)
	@./packaging/system-deps.sh
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q --require-hashes -r $(LOCK)
	$(BIN)/python -m pip install -q --no-deps --no-build-isolation -e .
	@touch $(STAMP)

# Refresh the lock after adding or changing a dependency in pyproject.toml (then commit both):
# pip-tools runs in a throwaway virtual environment, never in .venv. The lock is for Python 3.11
# on Linux x86_64, the platform `make test` runs on (PySide6's pin depends on the version).
lock:
	rm -rf build/lock-env && $(PYTHON) -m venv build/lock-env
	build/lock-env/bin/python -m pip install -q pip-tools
	build/lock-env/bin/pip-compile -q --generate-hashes --allow-unsafe --strip-extras \
	  --extra dev --extra package -o $(LOCK) pyproject.toml
	rm -rf build/lock-env

# --window: the suite opens a real X11 window under Xvfb (tests/gui/launch/test_click_during_sync.py).
# --postgres: team mode's tests start a throwaway PostgreSQL server (tests/pg_server.py); only its
# binaries are installed, no system cluster is left running, and `make run` never installs it.
# --test: LibreOffice (headless, for the spreadsheet round trips), desktop-file-validate and
# appstreamcli — test tools `make run` never installs.
sysdeps:
	@./packaging/system-deps.sh --window --postgres --test

# A machine without a display gets a virtual one, so the window still opens (and can be grabbed).
sysdeps-window:
	@if [ -z "$$DISPLAY$$WAYLAND_DISPLAY" ]; then ./packaging/system-deps.sh --window; fi

# A display is not enough: Qt's X11 plugin needs its libraries (libxcb-icccm4…). They are
# checked on the plugin itself (ldd), installed when missing, and named when they cannot be.
run: $(STAMP) sysdeps-window
	@$(BIN)/python packaging/x11_libs.py --install
	@if [ -z "$$DISPLAY$$WAYLAND_DISPLAY" ]; then \
	  echo "No display: running under Xvfb."; xvfb-run -a -s "-screen 0 1600x1000x24" $(BIN)/showdesk --demo; \
	else $(BIN)/showdesk --demo; fi

lint: $(STAMP)
	$(BIN)/ruff check app tests
	$(BIN)/ruff format --check app tests

typecheck: $(STAMP)
	$(BIN)/mypy

# A bundle built earlier (make package) is tested too, so it is rebuilt first when the sources
# changed since: tests/bundle never judges a stale one.
unit: $(STAMP) sysdeps
	@if [ -e $(BUNDLE) ]; then $(MAKE) --no-print-directory package; fi
	@if [ -e $(ONEFILE) ]; then $(MAKE) --no-print-directory package-onefile; fi
	$(BIN)/python -m pytest -n 2 --dist loadfile --durations=15

test: lint typecheck unit
reliability: $(STAMP) sysdeps ; @$(BIN)/python -m tests.reliability.report --run --full  # tests/reliability/report.py

bench: $(STAMP) sysdeps
	@for f in tests/bench/bench_*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

sim: $(STAMP)
	$(BIN)/showdesk sim --size demo

# PNGs of the window (demo tables, outbox, a backoff, forms, the hierarchy) in ./screenshots,
# drawn by a real X11 window: under Xvfb when there is no display.
SHOTS := SHOWDESK_SCREENSHOTS=$(CURDIR)/screenshots QT_QPA_PLATFORM=xcb $(BIN)/python -m pytest \
           -q $(wildcard tests/gui/*/test_*screenshots*.py)
screenshots: $(STAMP) sysdeps-window
	@if [ -z "$$DISPLAY$$WAYLAND_DISPLAY" ]; then \
	  xvfb-run -a -s "-screen 0 1600x1000x24" env $(SHOTS); else env $(SHOTS); fi
	@ls screenshots

# ---- packaging (issue 7): packaging/README.md --------------------------------------------------
PACKAGE_STAMP  := $(VENV)/.package-installed
BUNDLE         := dist/showdesk/showdesk
ONEFILE        := dist/showdesk-onefile
PACKAGE_INPUTS := pyproject.toml $(shell find app resources packaging -type f \
                    -not -path '*/__pycache__/*' 2>/dev/null)
PYINSTALLER    := $(BIN)/pyinstaller --noconfirm --log-level WARN --distpath dist \
                    --workpath build/pyinstaller packaging/showdesk.spec

$(PACKAGE_STAMP): $(STAMP)  # PyInstaller is in the lock (the `package` extra) already
	@touch $@

# The one-folder bundle, rebuilt when the app, its resources or the spec change. The --window
# packages are installed first so that the X11 libraries Qt's xcb plugin loads are bundled too.
$(BUNDLE): $(PACKAGE_STAMP) $(PACKAGE_INPUTS)
	@./packaging/system-deps.sh --window
	$(PYINSTALLER)
	@touch $@

package: $(BUNDLE)
	@du -sh dist/showdesk

$(ONEFILE): $(PACKAGE_STAMP) $(PACKAGE_INPUTS)
	@./packaging/system-deps.sh --window
	SHOWDESK_ONEFILE=1 $(PYINSTALLER)
	@touch $@

package-onefile: $(ONEFILE)
	@du -sh $(ONEFILE)

# Runs the bundle's self-test offscreen (tests/bundle), then prints its size and start time.
package-test: $(BUNDLE) sysdeps
	$(BIN)/python -m pytest tests/bundle -q
	$(BIN)/python tests/bench/bench_package.py

# Re-render resources/icons/ from showdesk.svg (the results are committed).
icons: $(STAMP)
	$(BIN)/python packaging/make_icons.py

clean:
	rm -rf $(VENV) build dist *.egg-info
