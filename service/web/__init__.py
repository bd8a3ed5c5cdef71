"""The referee's page and the Connect JSON API in front of the gRPC server (``--http-port``)."""
