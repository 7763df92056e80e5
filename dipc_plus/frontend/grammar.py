"""The .dip grammar (grammar.lark) loaded as an LALR(1) parser, with its newline post-lexer;
the noise names come from the registry (exact/noises/), not from grammar.lark.

One place builds the parser, so the parser (syntax) and the error explainer
(syntax_errors) both read it without importing each other.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from lark import Lark

from dipc_plus.exact import noises

_OPENING = {"LPAR": "(", "LSQB": "[", "LBRACE": "{"}
_CLOSING = {"RPAR", "RSQB", "RBRACE"}
# Tokens that can begin a statement or declaration: a newline before any other
# token continues the line (``else if ...`` in a function body, ``or ...``).
_ITEM_START = {"NAME", "IF", "WHILE", "FOR", "EXIT", "PARAM", "TYPE", "INPUT", "OUTPUT", "VAR",
               "FUNCTION", "DISTRIBUTION"}


class _Newlines:
    """Post-lexer deciding which newlines end a statement.

    Inside ( ) and [ ] a newline never does.  Inside { } (a distribution's
    outcomes, a set of symbols) every newline is kept: it separates outcomes.
    Elsewhere a newline is kept only before a token that can begin a statement
    or declaration; before anything else (else, then, and, an operator...) the
    line continues.  Runs of newlines become one.
    """
    always_accept = ("_NL",)

    def process(self, stream):
        brackets: list[str] = []
        held = None
        for tok in stream:
            if tok.type == "_NL":
                if brackets and brackets[-1] != "{":
                    continue
                if held is None:
                    held = tok
                continue
            if held is not None:
                if brackets or tok.type in _ITEM_START:
                    yield held
                held = None
            if tok.type in _OPENING:
                brackets.append(_OPENING[tok.type])
            elif tok.type in _CLOSING and brackets:
                brackets.pop()
            yield tok
        if held is not None:
            yield held


_SAMPLERS = '!sampler: "Exp"'


def parser() -> Lark:
    """The parser for the noises registered now (a noise registered later gets a new one)."""
    return _parser_for(noises.surface_names())


@lru_cache(maxsize=4)
def _parser_for(noise_names: tuple[str, ...]) -> Lark:
    grammar = (Path(__file__).with_name("grammar.lark")).read_text(encoding="utf-8")
    if grammar.count(_SAMPLERS) != 1:
        raise AssertionError(f"grammar.lark must have one line starting {_SAMPLERS}")
    names = "".join(f'"{name}" | ' for name in noise_names)
    grammar = grammar.replace(_SAMPLERS, f'!sampler: {names}"Exp"')
    return Lark(grammar, parser="lalr", lexer="basic", propagate_positions=True,
                postlex=_Newlines(), maybe_placeholders=False, cache=True)
