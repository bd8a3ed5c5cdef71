# carrossel: the gRPC referee and solver, as a small non-root image (docs/deploy.md).
#
#   docker build -t carrossel .
#   docker run --rm -p 50051:50051 carrossel
#
# Stage 1 builds the standard gRPC health probe (for `docker run` health checks and clusters
# whose probes cannot speak gRPC); `go install` checks the module against the Go checksum
# database.
FROM golang:1.25-bookworm AS probe
ARG GRPC_HEALTH_PROBE_VERSION=v0.4.63
ENV CGO_ENABLED=0
RUN go install "github.com/grpc-ecosystem/grpc-health-probe@${GRPC_HEALTH_PROBE_VERSION}"

# Stage 2 generates the gRPC code from proto/ and installs the project into a virtualenv.
FROM python:3.11-slim-bookworm AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml README.md ./
COPY proto ./proto
COPY carrossel ./carrossel
COPY solver ./solver
COPY service ./service
# grpcio-tools only generates the code: it lives in a virtualenv the image leaves behind.
RUN python -m venv /opt/tools \
    && /opt/tools/bin/pip install "grpcio-tools==1.81.1" \
    && /opt/tools/bin/python -m grpc_tools.protoc -Iproto --python_out=. --grpc_python_out=. \
        proto/carrossel/v1/common.proto proto/carrossel/v1/fishing.proto \
        proto/carrossel/v1/rulesets.proto proto/carrossel/v1/rummy.proto \
    && python -m venv /opt/carrossel \
    && /opt/carrossel/bin/pip install /src

# Stage 3: the runtime, with no compiler, no build tools and no root.
FROM python:3.11-slim-bookworm
LABEL org.opencontainers.image.title="carrossel" \
      org.opencontainers.image.description="gRPC referee and solver for rummy-family card games" \
      org.opencontainers.image.licenses="MIT"
RUN groupadd --system --gid 10001 carrossel \
    && useradd --system --uid 10001 --gid carrossel --no-create-home --shell /usr/sbin/nologin carrossel
COPY --from=build /opt/carrossel /opt/carrossel
COPY --from=probe /go/bin/grpc-health-probe /usr/local/bin/grpc_health_probe
ENV PATH="/opt/carrossel/bin:${PATH}" \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    GRPC_VERBOSITY=ERROR
USER 10001:10001
EXPOSE 50051 9090
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD ["grpc_health_probe", "-addr=127.0.0.1:50051", "-connect-timeout=2s", "-rpc-timeout=2s"]
# Listen on every interface of the container; metrics on 9090 (scraped inside the cluster).
ENTRYPOINT ["carrossel", "serve"]
# One worker process: without a CPU quota (docker run --cpus N) a container sees every core
# of its host; with a quota, `--workers` may be dropped (its default follows the quota).
CMD ["--host", "0.0.0.0", "--port", "50051", "--metrics-host", "0.0.0.0", "--metrics-port", "9090", "--workers", "1"]
