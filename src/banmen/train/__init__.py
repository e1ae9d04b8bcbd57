"""Learn an evaluation: self-play, labels, a fit, and an arena gate (``banmen train``).

An iteration of a training run (:mod:`.loop`):

1. **self-play** (:mod:`.selfplay`): games of the current weights against themselves from
   the arena's seeded deals, a move in ten (``--random``) played at random for variety,
   on local worker processes or a Dask cluster; every position is stored with its label
   (:mod:`.store`, in the arena's SQLite file, one row a game);
2. **labels**: a position within the game's exact reach (``--exact`` plies of the end)
   is labelled by the game's exact solver — the truth; any other by the game's outcome
   from that position, averaged with the value a search with the current weights gives
   it (the search alone knows nothing while the weights are zero: the first iteration
   from zero labels by outcome alone). The outcome keeps the labels honest, the search
   makes them less noisy: TD-leaf's compromise;
3. **a fit** (:mod:`.fit`): a linear model (n-tuples, Othello's patterns) by sparse
   damped least squares (scipy's ``lsqr``), streamed from disk, one game in ten held out;
4. **a gate**: an arena run of the new weights against the previous ones and a fixed
   baseline (paired games, SPRT); the new weights are kept only if the SPRT accepts them.

What an evaluator gives to be trainable is a :class:`~.trainers.Trainer`
(``EvaluatorKind.trainer``): how to start its weights, read and write them, and the
feature indices of a position.
"""
