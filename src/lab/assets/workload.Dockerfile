# The vLLM stand-in image: Ray (and whatever the workload's requirements.txt lists) installed
# offline into /opt/venv from wheels the lab downloaded on the host, plus the stand-in package.
# Built with `docker build --network none`; the lab assembles the context:
#   wheels/    every wheel of requirements.txt (cp311, manylinux x86_64)
#   pkg/       the stand-in package as a wheel, when it has a pyproject.toml or setup.py
#   workload/  the stand-in's source folder (requirements.txt at its top)
ARG BASE
# Bytecode: whatever the build's own imports left is dropped, then every module of /opt/venv is
# compiled once, here, as pip does in a stock image. Without it each container (a new one for every
# release) compiles Ray's modules again in every Python process it starts: the raylet's workers,
# the agents, vLLM's actors (about 1 CPU-second each on the lab's 2 cores).
FROM ${BASE} AS build
COPY wheels/ /tmp/wheels/
COPY pkg/ /tmp/pkg/
COPY workload/requirements.txt /tmp/requirements.txt
RUN python3 -m venv /opt/venv \
 && /opt/venv/bin/pip install --no-index --no-cache-dir --disable-pip-version-check --find-links /tmp/wheels -r /tmp/requirements.txt \
 && if ls /tmp/pkg/*.whl >/dev/null 2>&1; then \
      /opt/venv/bin/pip install --no-index --no-cache-dir --disable-pip-version-check --no-deps /tmp/pkg/*.whl; \
    else \
      echo /opt/vrd-lab/workload > "$(/opt/venv/bin/python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/vrd-lab-workload.pth"; \
    fi \
 && find /opt/venv -name __pycache__ -prune -exec rm -rf {} + \
 && { /opt/venv/bin/python -m compileall -q -j 0 /opt/venv >/dev/null || echo "compileall: some modules did not compile; they compile when imported"; }

FROM ${BASE}
COPY --from=build /opt/venv /opt/venv
COPY workload/ /opt/vrd-lab/workload/
ENV VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PYTHONUNBUFFERED=1
WORKDIR /opt/vrd-lab/workload
