"""The two text forms hlo_passes reads and writes, one package each (``hlo``, ``stablehlo``), and
what both share: ``split`` (top-level splitting of bracketed text), ``ints`` (integers from text).

A dialect package holds its parser (text -> ``ir.Module``), its printer (``ir.Module`` -> text)
and their parts; ``text`` picks one by the dialect.  A printer imports its dialect's codecs, never
its parser.
"""
