"""Clients of other programs: an engine that is another process, behind banmen's
:class:`~banmen.engine.Engine` contract, on one line reader (:mod:`._lines`).

A leaf just above the engine contract, below the games: the NBoard client (Othello
programs) and the UGI client (any game's) know a game only through the boards they are
handed. The GTP client reads Go's vertices with Go's own board, so it sits beside the Go
engine, in :mod:`banmen.games.go.gtp_client`. The servers of the protocols (banmen's
engines behind GTP, NBoard, USI, UGI) are :mod:`banmen.protocols`.
"""
