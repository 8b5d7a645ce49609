# Every target creates the virtual environment first (uv, pinned, from uv.lock).
UV_VERSION := 0.13.9
UV := .uv/bin/uv
VENV := .venv
PY := $(VENV)/bin/python
SYNCED := $(VENV)/.synced-$(shell cat uv.lock pyproject.toml 2>/dev/null | cksum | cut -d' ' -f1)

.PHONY: run test browser haproxy lint openapi openapi-check bench profile soak clean

$(UV):
	python3 -m venv .uv
	.uv/bin/pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)

$(SYNCED): pyproject.toml uv.lock | $(UV)
	$(UV) sync --frozen --quiet
	rm -f $(VENV)/.synced-*
	touch $@

# `serve` stops at once, saying so, if its port is taken; `exec`: stopping make stops the server.
run: $(SYNCED)  ## serve the API (SQLite in ./tabletop.sqlite unless DATABASE_URL is set)
	exec $(VENV)/bin/tabletop serve --host $${HOST:-127.0.0.1} --port $${PORT:-8000}

test: $(SYNCED) browser haproxy lint  ## lint, then the whole suite, against the real Postgres (browser tests included)
	$(PY) -m pytest -n 2 --dist loadgroup -q

# Debian's chromium for the viewer's browser tests (Playwright drives it from /usr/bin; it
# never downloads a browser). Where it cannot be installed the browser tests say so and skip.
browser:
	@command -v chromium >/dev/null 2>&1 || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || echo "chromium could not be installed: the browser tests will be skipped"

# Debian's haproxy for the tests of the documented proxy configuration and of failover.
haproxy:
	@command -v haproxy >/dev/null 2>&1 || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy >/dev/null) || echo "haproxy could not be installed: the proxy tests will be skipped"

lint: $(SYNCED)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

openapi: $(SYNCED)  ## write what is generated: the document, clients' types, game pages
	$(PY) -m api.openapi
	cd clients/typescript && npm ci --no-audit --no-fund --silent && npm run -s generate

openapi-check: $(SYNCED)
	$(PY) -m api.openapi --check

bench: $(SYNCED)  ## figures side by side from one run (Postgres at TABLETOP_TEST_DATABASE_URL)
	BENCH_ENGINE_BASE=$${BENCH_ENGINE_BASE:-201d854} BENCH_API_BASE=$${BENCH_API_BASE-bfe7f39} $(PY) -m tests.bench

profile: $(SYNCED)  ## where a loaded server's time goes (py-spy samples it under the bench's load)
	$(PY) -m tests.profile_api $${GAME:-puerto-rico} $${GAMES:-64}

soak: $(SYNCED) haproxy  ## the thousands of games the issues ask for
	TABLETOP_GAMES=$${GAMES:-2000} $(PY) -m pytest -n 2 -q tests -k "propert"
	TABLETOP_FAULT_SCALE=$${FAULT_SCALE:-10} $(PY) -m pytest -q tests/faults
	@tail -n 2 test-artifacts/failover.txt 2>/dev/null || true  # the failover's figures (root only)

clean:
	rm -rf .venv .uv .pytest_cache .mypy_cache .ruff_cache test-artifacts
