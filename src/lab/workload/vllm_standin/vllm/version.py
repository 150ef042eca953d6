"""Version of the stand-in.

The public version is that of the vLLM release whose behaviour is emulated
(classic ``RayDistributedExecutor`` as the default Ray executor), with the
local label ``+standin`` so nobody mistakes it for the real thing.
"""

__version__ = "0.17.0+standin"
__version_tuple__ = (0, 17, 0, "standin")
