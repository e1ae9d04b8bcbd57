"""AI-vs-AI experiments: paired games in parallel, stored in SQLite, with statistics.

``schedule`` (who plays whom on which deal), ``play`` (one game, a batch of games),
``runner`` (the run: worker processes, resume), ``cluster`` (the same on Dask),
``store`` (SQLite), ``report`` (tables, Elo, SPRT, exports), ``plots`` (matplotlib).
"""
