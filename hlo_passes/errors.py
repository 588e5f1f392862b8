"""Errors raised by hlo_passes.

Every message points at a place in the input (``path:line:col``), in the style
compilers and linters use, so that editors and CI annotate the right line.
"""
from __future__ import annotations


def _printable(line: str) -> str:
    """``line`` as a terminal can show it: a byte no decoder could read (the lone surrogate
    ``surrogateescape`` makes of it, as stdin in a POSIX locale does) as ``\\xNN``, another lone
    surrogate as ``\\uXXXX``; printing either would raise UnicodeEncodeError or show Python's
    internals."""
    if not any("\ud800" <= c <= "\udfff" for c in line):
        return line
    return "".join(
        (f"\\x{ord(c) - 0xDC00:02x}" if "\udc80" <= c <= "\udcff" else f"\\u{ord(c):04x}")
        if "\ud800" <= c <= "\udfff" else c for c in line)


class ParseError(ValueError):
    """Text that is not a valid HLO or StableHLO module.

    ``str(err)`` is ``path:line:col: error: reason`` followed by the offending
    line and a caret under the column.
    """

    def __init__(
        self,
        reason: str,
        *,
        path: str | None = None,
        line: int = 0,
        column: int = 0,
        source_line: str | None = None,
    ) -> None:
        self.reason = reason
        self.path = path
        self.line = line
        self.column = column
        self.source_line = source_line
        super().__init__(self._format())

    def _format(self) -> str:
        where = f"{self.path or '<string>'}:{self.line}:{self.column}"
        text = f"{where}: error: {self.reason}"
        if self.source_line is not None:
            line = self.source_line[:300]
            shown = _printable(line)
            # The caret under the same character, after whatever the escapes widened before it.
            caret_col = len(_printable(line[:max(self.column, 1) - 1])) + 1
            caret_col = min(caret_col, len(shown) + 1)
            text += f"\n  {shown}\n  {' ' * (caret_col - 1)}^"
        return text

    @classmethod
    def at(cls, reason: str, text: str, pos: int, path: str | None = None) -> "ParseError":
        """The error at character offset ``pos`` of ``text`` (line, column and the line itself)."""
        pos = max(0, min(pos, len(text)))
        start = text.rfind("\n", 0, pos) + 1
        end = text.find("\n", pos)
        if end < 0:
            end = len(text)
        return cls(reason, path=path, line=text.count("\n", 0, pos) + 1, column=pos - start + 1,
                   source_line=text[start:end].rstrip("\r"))

    def with_path(self, path: str) -> "ParseError":
        """The same error attributed to ``path`` (parsers see text, callers know files)."""
        return ParseError(
            self.reason,
            path=path,
            line=self.line,
            column=self.column,
            source_line=self.source_line,
        )

    def __reduce__(self):
        # Keep the error picklable for process pools (hlo-lint lints in parallel).
        return (_rebuild_parse_error, (self.reason, self.path, self.line, self.column, self.source_line))


def _rebuild_parse_error(reason, path, line, column, source_line) -> ParseError:
    return ParseError(reason, path=path, line=line, column=column, source_line=source_line)


class VerificationError(ValueError):
    """A module whose graph breaks a structural or shape rule (see ``Module.verify``)."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


class InvariantError(RuntimeError):
    """A pass left the module failing the verifier: a bug of the pass, not of its input.

    Raised by ``run_passes(..., check_invariants=True)`` (the test suite turns the check
    on for every run through ``HLO_PASSES_CHECK_INVARIANTS=1``), as XLA's pipelines run
    their invariant checker after each pass; ``problems`` are the verifier's new findings.
    """

    def __init__(self, pass_name: str, problems: list[str]) -> None:
        self.pass_name = pass_name
        self.problems = list(problems)
        shown = "\n  ".join(self.problems[:10]) + ("\n  ..." if len(self.problems) > 10 else "")
        super().__init__(f"pass {pass_name} left the module failing the verifier:\n  {shown}")


class VerificationWarning(UserWarning):
    """``parse(..., validate=True)`` found shape problems XLA's parser lets through.

    The module is returned anyway (``Module.shape_problems`` lists them);
    ``warnings.simplefilter("error", VerificationWarning)`` makes them fatal.
    """


class KernelBuildError(RuntimeError):
    """A native kernel (``hlo_passes.kernels``) could not be built or loaded.

    The message names what is missing (compiler, XLA FFI headers, a writable
    cache directory) or carries the compiler's own error output.
    """


class AgreementTimeoutError(RuntimeError):
    """Processes of a multi-process job did not answer while agreeing on what to compile.

    ``hlo_passes.jit`` raises it in every process that waited (``silent`` lists
    the process ids that did not post their fingerprint in time); no process
    falls back alone, since that would make the compiled programs differ.
    """

    def __init__(self, message: str, *, silent: tuple[int, ...] = ()) -> None:
        self.silent = tuple(silent)
        super().__init__(message)
