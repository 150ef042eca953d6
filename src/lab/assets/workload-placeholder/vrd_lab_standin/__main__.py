"""`python -m vrd_lab_standin`: says it is the placeholder and exits."""

import ray

print(f"vrd-lab workload placeholder (ray {ray.__version__}); the real stand-in lives in src/lab/workload/")
