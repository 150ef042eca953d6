#!/bin/bash
# install.sh: reassemble the bundle, check it, install vLLM and the wheels it lacks under /tmp/site.
set -e
h=.device-carry/h
cat /tmp/parts/part.0 /tmp/parts/part.1 /tmp/parts/part.2 /tmp/parts/part.3 /tmp/parts/part.4 /tmp/parts/part.5 > /tmp/wheels.tar
(cd /tmp && sha256sum -c "$OLDPWD/$h/wheels.tar.sha256")
mkdir -p /tmp/b && tar xf /tmp/wheels.tar -C /tmp/b && rm -f /tmp/wheels.tar
rm -rf /tmp/tiny-llama && cp -r /tmp/b/tiny-llama /tmp/tiny-llama
t=$(date +%s)
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site /tmp/b/wheels/*.whl 2>&1 | grep -v "^WARNING: Target directory" | tail -5
echo "pip install: $(( $(date +%s) - t )) s"
export PYTHONPATH=/tmp/site PATH=/tmp/site/bin:$PATH
ls /tmp/site/bin
python3 -c "import vllm, ray, torch; print('vllm', vllm.__version__, 'ray', ray.__version__, 'torch', torch.__version__, torch.cuda.get_device_name(0))"
