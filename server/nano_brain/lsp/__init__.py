"""The editor sidecar: a pygls language server over the workspace's Brain and code index."""

from .factory import build_server
from .options import InitializationOptions, parse_options
from .server import NanoBrainServer

__all__ = ["InitializationOptions", "NanoBrainServer", "build_server", "parse_options"]
