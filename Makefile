# One-command set-up and test for handmade-agent. Everything lives in .venv; nothing is installed globally.
#   make demo   - create .venv, install the package with every extra, fetch + verify the local model, run the demo
#   make test   - the same set-up if needed, then every test (model tests too) and every notebook under nbval (strict),
#                 in tiers that stop at the first failing one; timings in reports/
#   make unit   - the fast tests only, in the client install (no llama.cpp, no model; about a minute)
#   make notebooks - re-execute the notebooks commit-ready, replaying recorded model calls (new calls run the model)
#   make study  - self-study: the set-up, then JupyterLab on the exercises edition (student/: solutions stubbed)
#   make lab    - open JupyterLab on the notebooks (every solution filled in: for instructors)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# a student's install for a room server: no compiler, no llama-cpp-python, no model file
CLIENT := .venv-client
# A portable CPU build of llama.cpp: -march=native would pick up AMX/AVX-512 paths that some
# sandboxed CPUs advertise but do not allow, which crashes at the first token.
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF
LLAMA_PIN := llama-cpp-python==0.3.36
# pip's own wheel cache is keyed by the sdist, not by CMAKE_ARGS, so a wheel built elsewhere with
# -march=native would be reused silently (it segfaulted in CI). Ours is keyed by the flags.
LLAMA_WHEELS := $(HOME)/.cache/handmade-agent/wheels/$(shell echo "$(LLAMA_PIN) $(LLAMA_CMAKE_ARGS)" | sha256sum | cut -c1-16)
NBVAL  := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg --nbval-cell-timeout=900
# what `make test` (and so CI) reruns on a server: the cheapest notebook with `local-only` cells. The loop through
# the server is tests/test_served_agent.py (03's two-tool chain; 03 itself cost ~150 s of a CI near its budget).
# All six (01-06) took 10 min of a 48-min CI with the 1.5B; `make served-notebooks` still runs all six.
SERVED_IN_TEST := notebooks/01_tools.ipynb

.PHONY: setup setup-client demo test unit notebooks served-notebooks small-model-run study lab student-edition wheelhouse clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# the CPU wheel of torch first, so no later requirement pulls a multi-GB CUDA build
	$(BIN)/python -m pip install --quiet torch==2.13.0
	ls $(LLAMA_WHEELS)/llama_cpp_python-*.whl >/dev/null 2>&1 || CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=2 \
		$(BIN)/python -m pip wheel --quiet --no-cache-dir --no-deps --no-binary llama-cpp-python -w $(LLAMA_WHEELS) "$(LLAMA_PIN)"
	$(BIN)/python -m pip install --quiet $(LLAMA_WHEELS)/llama_cpp_python-*.whl
	$(BIN)/python -m pip install --quiet -e ".[all]"
	$(BIN)/handmade-agent fetch-model
	touch $(STAMP)

setup: $(STAMP)

# A student with only a URL (HANDMADE_AGENT_BASE_URL): no compiler, no llama-cpp-python, no model file.
setup-client:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e ".[client]"

$(CLIENT)/.installed: pyproject.toml
	$(PYTHON) -m venv $(CLIENT)
	$(CLIENT)/bin/python -m pip install --quiet --upgrade pip
	$(CLIENT)/bin/python -m pip install --quiet torch==2.13.0
	$(CLIENT)/bin/python -m pip install --quiet -e ".[client]"
	touch $@

# the agent notebooks again, as a classroom runs them: the client install above against `handmade-agent serve`
served-notebooks: setup $(CLIENT)/.installed
	$(BIN)/python tests/served_notebooks.py $(CLIENT)/bin/python

# For a classroom without internet: every wheel (the compiled llama-cpp-python for this platform included)
# and the model file in wheelhouse/; students install with the two lines in docs/instructor.md.
wheelhouse: $(STAMP)
	mkdir -p wheelhouse
	$(BIN)/python -m pip download --quiet --dest wheelhouse torch==2.13.0 ".[local,rag,widgets,dev]"
	rm -f wheelhouse/llama_cpp_python-*.tar.gz wheelhouse/handmade_agent-*
	cp $(LLAMA_WHEELS)/llama_cpp_python-*.whl wheelhouse/
	$(BIN)/python -m pip wheel --quiet --no-deps --wheel-dir wheelhouse .
	cp "$$($(BIN)/handmade-agent fetch-model | tail -1)" wheelhouse/
	ls wheelhouse | wc -l

demo: setup
	$(BIN)/handmade-agent demo

# In tiers, cheapest first, each its own pytest run: make stops at the first that fails, so a stale notebook
# fingerprint (a fast test) fails CI in about two minutes, not after the 50 minutes of a whole run. Each tier
# prints its wall time and leaves its output, with every test's duration, in reports/durations-<tier>.txt.
# The two -m expressions are complements: together they select every test in tests/.
# The notebooks tier replays recorded model calls (notebooks/recordings/); the real model is proven by the model
# tier (its tests, and tests/test_recording_audit.py: recorded calls drawn afresh, asked again), by the cells that
# measure the engine (live_calls), by the served tier, and by one cheap notebook run whole on the live model,
# a different one each day of the year.
LIVE_ROTATION := 01_tools 02_react_parser 04_observer 05_memory
LIVE_NB := notebooks/$(word $(shell expr $$(date +%j | sed "s/^0*//") % 4 + 1),$(LIVE_ROTATION)).ipynb
PYTEST := $(BIN)/python -m pytest -p no:cacheprovider --durations=0
TIER   := bash tests/ci_tier.sh
test: setup $(CLIENT)/.installed
	$(TIER) fast $(PYTEST) -x -m "not model and not browser" tests
	$(TIER) model $(PYTEST) -m "model or browser" tests
	$(TIER) notebooks $(PYTEST) notebooks $(NBVAL)
	$(TIER) live env HANDMADE_AGENT_RECORDING=off $(PYTEST) $(LIVE_NB) $(NBVAL)
	$(TIER) served $(BIN)/python tests/served_notebooks.py $(CLIENT)/bin/python $(SERVED_IN_TEST)
	$(TIER) small $(MAKE) --no-print-directory small-model-run

# Run All on a model that is not the course's: the 0.5B, live. Only errors fail (--nbval-lax): claims about the model
# print the course's run against this one (teaching.check_model), claims about code still assert.
SMALL_NB := notebooks/04_observer.ipynb
small-model-run: setup
	$(BIN)/python -m pip install --quiet -e ".[model-mirror]"
	$(BIN)/handmade-agent fetch-model --model 0.5b
	HANDMADE_AGENT_LOCAL_MODEL=0.5b HANDMADE_AGENT_RECORDING=off $(PYTEST) $(SMALL_NB) --nbval-lax --nbval-current-env \
		--nbval-cell-timeout=900

# the client install: no compiler, no llama-cpp-python, no model file, so a fast test that loads the model fails here
unit: $(CLIENT)/.installed
	$(CLIENT)/bin/python -m pytest -p no:cacheprovider -m "not model and not browser" tests

# Re-execute every notebook (or NB=notebooks/03_agent_loop.ipynb) and save it commit-ready. Model calls are replayed
# from notebooks/recordings/ and only new ones run the model (HANDMADE_AGENT_RECORDING=off runs every call live).
NB ?= $(sort $(wildcard notebooks/[0-9]*.ipynb))
notebooks: setup
	$(BIN)/python tests/execute_notebook.py $(NB)

# self-study: the exercises edition (solutions stubbed, outputs and the checkers kept) in student/, opened in JupyterLab
study: setup student-edition
	$(BIN)/jupyter lab student/

lab: setup
	$(BIN)/jupyter lab notebooks/

# no set-up needed: the student edition is plain JSON work (any python3, nothing installed)
student-edition:
	PYTHONPATH=. $(PYTHON) -m handmade_agent.teaching student notebooks/*.ipynb
	PYTHONPATH=. $(PYTHON) -m handmade_agent.teaching student/zh notebooks/zh/*.ipynb

clean:
	rm -rf $(VENV) $(CLIENT) student
