"""Interactive ipywidgets panels. ipywidgets and matplotlib are imported only inside this package.

Each panel also renders a static HTML form, so a committed notebook shows something on GitHub.
"""
