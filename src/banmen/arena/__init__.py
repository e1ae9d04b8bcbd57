"""AI-vs-AI experiments: paired games in parallel, stored in SQLite, with statistics.

``schedule`` (who plays whom on which deal), ``runner`` (worker processes, resume),
``store`` (SQLite), ``report`` (tables, Elo, SPRT, exports), ``plots`` (matplotlib).
"""
