"""The Chinese edition's code cells are the English edition's (tests/test_editions.py checks it), so the
English nbval run covers them; running them twice would double the notebooks' CI time for nothing."""
collect_ignore_glob = ["*.ipynb"]
