"""Generated gRPC code for the carrossel API (see proto/)."""
