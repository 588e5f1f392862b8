"""StableHLO (MLIR) text: the lexer (``lexer``), the parser (``parser``), the printer
(``printer``), the grammar of attribute values and types (``attrs.lark``) and its codec
(``attrs``), element types (``types``) and the ops of the dialects jaxlib defines
(``dialect_ops``).
"""
