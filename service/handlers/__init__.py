"""One module per RPC, each with a ``handle`` function returning the response.

The rummy handlers take ``(call, request, context)``: the servicer has already parsed the
request with the matching ``service.convert.*_call`` function (malformed ones never reach a
handler), and ``call`` holds its domain objects. ScoreRound's take ``(request, context)``.
"""
