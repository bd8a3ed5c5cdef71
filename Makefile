# carrossel: `make run` serves on 127.0.0.1:$(PORT), `make test` runs the whole suite.
# Both create .venv, install the project with its dev tools and generate the gRPC code first.

PYTHON ?= python3
PORT ?= 50051
HOST ?= 127.0.0.1

VENV := .venv
BIN := $(VENV)/bin
INSTALL_STAMP := $(VENV)/.install-stamp
PROTOS := $(sort $(wildcard proto/carrossel/v1/*.proto))
GEN_STAMP := carrossel/v1/.generated
PROTOC := $(BIN)/python -m grpc_tools.protoc -Iproto \
	--plugin=protoc-gen-mypy=$(BIN)/protoc-gen-mypy \
	--plugin=protoc-gen-mypy_grpc=$(BIN)/protoc-gen-mypy_grpc \
	--python_out=. --grpc_python_out=. --mypy_out=. --mypy_grpc_out=.

.PHONY: run test lint proto install clean bench bench-load

run: $(GEN_STAMP)
	exec $(BIN)/carrossel serve --host $(HOST) --port $(PORT)

test: $(GEN_STAMP)
	$(BIN)/python -m pytest -q

lint: $(GEN_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy --strict --explicit-package-bases solver service bench tests
	$(BIN)/buf lint

install: $(INSTALL_STAMP)

# The cost curve: SolveMove call latency against table size (bench/curve.py; ARGS="...").
bench: $(GEN_STAMP)
	$(BIN)/python -m bench.curve $(ARGS)

# A closed-loop load run against a server it starts (bench/load.py; options: ARGS="...").
bench-load: $(GEN_STAMP)
	$(BIN)/python -m bench.load $(ARGS)

# Regenerate the gRPC code from proto/ (never edit carrossel/v1/*_pb2* by hand).
proto: $(INSTALL_STAMP)
	rm -f carrossel/v1/*_pb2.py carrossel/v1/*_pb2.pyi carrossel/v1/*_pb2_grpc.py carrossel/v1/*_pb2_grpc.pyi
	$(PROTOC) $(PROTOS)
	touch $(GEN_STAMP)

$(GEN_STAMP): $(PROTOS) $(INSTALL_STAMP)
	$(MAKE) --no-print-directory proto

# Re-install whenever pyproject.toml changes.
$(INSTALL_STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "carrossel needs Python 3.11 or newer")'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(INSTALL_STAMP)

clean:
	rm -rf $(VENV) $(GEN_STAMP) carrossel/v1/*_pb2* build *.egg-info .pytest_cache .mypy_cache .ruff_cache
