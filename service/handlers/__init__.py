"""One module per RPC, each with ``handle(request, context)`` returning the response.

The servicer has already checked the request (malformed ones never reach a handler); a
handler parses it again with the matching ``service.convert.*_call`` function, which is cheap,
to get the domain objects.
"""
