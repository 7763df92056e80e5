"""The Python front end: a function of the documented subset (docs/python.md) -> the same checked
program a .dip file gives.  `load.read_python_module` is the entry; the text is never run."""
