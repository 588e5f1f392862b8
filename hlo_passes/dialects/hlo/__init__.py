"""HLO text: the line scanner and parser (``parser``), the printer (``printer``), the attribute
grammar (``attrs.lark``) and its codec (``attrs``), opcodes (``opcodes``), shapes (``shapes``),
XLA's structural checks (``checks``), shape inference (``infer``) and tuple-element operands
(``compact``).
"""
