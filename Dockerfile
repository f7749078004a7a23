# The decision service as a container image (docs/deployment.md). Build from the repository:
#   docker build -t c45rules-serve .
# Models are mounted at /models (NAME.yaml is served as NAME); the audit store, the token and
# anything else are given as serve's options after the image name, e.g.
#   docker run -p 8080:8080 -v $PWD/models:/models:ro c45rules-serve --audit postgresql://...
FROM python:3.11-slim AS build
# the C extensions are compiled here, so the image that runs needs no compiler
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev && rm -rf /var/lib/apt/lists/*
COPY . /src
RUN pip wheel --no-cache-dir --wheel-dir /wheels '/src[service,postgres]'

FROM python:3.11-slim
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir --no-index --find-links /wheels 'c45rules[service,postgres]' && rm -rf /wheels \
    && useradd --system --uid 10001 --no-create-home c45rules
USER c45rules
EXPOSE 8080
# docker's own probe; an orchestrator probes /readyz (models served, audit store writable)
HEALTHCHECK --interval=10s --timeout=3s CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8080/healthz', timeout=2)"]
# SIGTERM (docker stop): requests in flight finish and the audit queue is committed within
# 10 s; give it 15 (docker stop -t 15, compose's stop_grace_period)
STOPSIGNAL SIGTERM
ENTRYPOINT ["c45rules", "serve", "/models", "--host", "0.0.0.0", "--port", "8080"]
CMD ["--workers", "2", "--log-format", "json"]
