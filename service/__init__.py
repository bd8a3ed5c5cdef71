"""carrossel's gRPC layer: servicers, protobuf conversion, errors, the server and the CLI.

Only this package imports grpc and the generated code in ``carrossel.v1``; ``solver`` never does.
"""
