"""The editor sidecar: a pygls language server over the workspace's Brain and code index."""

from .options import InitializationOptions, parse_options
from .server import NanoBrainServer, build_server

__all__ = ["InitializationOptions", "NanoBrainServer", "build_server", "parse_options"]
