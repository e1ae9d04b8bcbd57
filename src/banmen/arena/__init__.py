"""AI-vs-AI experiments: paired games in parallel, stored in SQLite, with statistics.

``schedule`` (who plays whom on which deal), ``play`` (one game, a batch of games),
``runner`` (the run: worker processes, resume), ``cluster`` (the same on Dask),
``store`` (SQLite), ``trust`` (whose run it is: signatures, what a resume starts),
``report`` (tables, Elo, SPRT, exports), ``plots`` (matplotlib).
"""
