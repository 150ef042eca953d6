# Thin layer over vrd-lab/node-base (debootstrap + packages): the lab's own files.
# Built with `docker build --network none`; the context is src/lab/assets.
ARG BASE
FROM ${BASE}
COPY node-init.sh /usr/local/sbin/vrd-lab-init
COPY runc-lab /usr/local/sbin/runc-lab
COPY nvidia-smi /usr/bin/nvidia-smi
COPY gpu-memory /var/lib/vrd-lab-gpu/memory
COPY vrd-lab-memory /usr/local/sbin/vrd-lab-memory
COPY nvidia-container-runtime-hook /usr/bin/nvidia-container-runtime-hook
COPY earlyoom /usr/local/sbin/earlyoom
COPY sshd_config /etc/ssh/sshd_config.d/vrd-lab.conf
RUN chmod 0755 /usr/local/sbin/vrd-lab-init /usr/local/sbin/vrd-lab-memory /usr/local/sbin/runc-lab /usr/bin/nvidia-smi /usr/bin/nvidia-container-runtime-hook /usr/local/sbin/earlyoom \
 && mkdir -p /run/sshd
STOPSIGNAL SIGTERM
CMD ["/usr/local/sbin/vrd-lab-init"]
