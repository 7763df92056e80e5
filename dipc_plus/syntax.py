"""Parse .dip text into the surface tree (dipc_plus.surface), with plain-word errors.

The grammar (grammar.lark) is LALR(1) with lark's basic lexer, so every
keyword is always a keyword.  Newlines end statements; a small post-lexer
drops those that cannot (inside ( ) and [ ], or before a token that cannot
begin a statement), so long expressions may be wrapped.  Every syntax error
becomes a `UserError` at file:line:column saying what was found, what could
come there (in words, not token names) and how to fix it.
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, Transformer_NonRecursive, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken, VisitError

from . import surface as S
from .errors import UserError
from .ir import Pos

KEYWORDS = frozenset("""param type input output var function distribution over if then elif else end
    while do for to exit true false not and or eps rate exp Lap DLap Exp choose""".split())

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


@lru_cache(maxsize=1)
def _parser() -> Lark:
    grammar = (Path(__file__).with_name("grammar.lark")).read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", lexer="basic", propagate_positions=True,
                postlex=_Newlines(), maybe_placeholders=False, cache=True)


def parse_module(text: str, filename: str) -> S.Module:
    """Parse a whole .dip file; raise UserError on any syntax error."""
    parser = _parser()
    try:
        tree = parser.parse(text)
    except UnexpectedInput as err:
        raise _syntax_error(err, text, filename) from None
    try:
        items = _Build(filename).transform(tree)
    except VisitError as err:  # a UserError raised while building nodes
        if isinstance(err.orig_exc, (UserError, RecursionError)):
            raise err.orig_exc from None
        raise
    return S.Module(filename, text, items)


# --------------------------------------------------------------------------- tree -> surface


class _Many(tuple):
    """Several declarations from one line (``input a: real, b: real``)."""


class _Elif(tuple):
    pass


class _Else(tuple):
    pass


@v_args(meta=True)
class _Build(Transformer_NonRecursive):
    def __init__(self, filename: str):
        super().__init__(visit_tokens=False)
        self.file = filename

    def pos(self, meta) -> Pos:
        return Pos(self.file, getattr(meta, "line", 1), getattr(meta, "column", 1))

    def tpos(self, tok: Token) -> Pos:
        return Pos(self.file, tok.line, tok.column)

    # -- structure
    def start(self, meta, children):
        return children[0]

    def body(self, meta, children):
        items = []
        for child in children:
            if isinstance(child, _Many):
                items.extend(child)
            else:
                items.append(child)
        return tuple(items)

    # -- declarations
    def param_decl(self, meta, c):
        return S.ParamDecl(str(c[0]), c[1], self.tpos(c[0]))

    def type_decl(self, meta, c):
        return S.TypeDecl(str(c[0]), c[1], self.tpos(c[0]))

    def io_entry(self, meta, c):
        return (c[0], c[1])

    def input_decl(self, meta, c):
        return _Many(S.IODecl("input", str(tok), typ, self.tpos(tok)) for tok, typ in c)

    def output_decl(self, meta, c):
        return _Many(S.IODecl("output", str(tok), typ, self.tpos(tok)) for tok, typ in c)

    def var_decl(self, meta, c):
        return S.VarDecl(str(c[0]), c[1], c[2] if len(c) > 2 else None, self.tpos(c[0]))

    def local_decl(self, meta, c):
        return S.VarDecl(str(c[0]), c[1], None, self.tpos(c[0]))

    def fparams(self, meta, c):
        return tuple(c)

    def fparam(self, meta, c):
        return S.Param(str(c[0]), c[1], self.tpos(c[0]))

    def func_decl(self, meta, c):
        return S.FunctionDecl(str(c[0]), c[1], c[2], c[3], self.tpos(c[0]))

    def dist_decl(self, meta, c):
        return S.DistDecl(str(c[0]), c[1], c[2], c[3], self.tpos(c[0]))

    def outcomes(self, meta, c):
        return tuple(c)

    def outcome(self, meta, c):
        return (c[0], c[1])

    # -- types
    def array_type(self, meta, c):
        return S.ArrayType(c[0], c[1], self.pos(meta))

    def type_name(self, meta, c):
        return S.TypeName(str(c[0]), self.tpos(c[0]))

    def range_type(self, meta, c):
        return S.RangeType(c[0], c[1], self.pos(meta))

    def set_type(self, meta, c):
        return S.SetType(tuple(c), self.pos(meta))

    def dom_elem(self, meta, c):
        toks = [t for t in c if isinstance(t, Token)]
        if toks[0].type == "NAME":
            return (str(toks[0]), self.tpos(toks[0]))
        if len(toks) == 2:  # '-' NUMBER
            return (-int(toks[1]), self.tpos(toks[0]))
        return (int(toks[0]), self.tpos(toks[0]))

    # -- statements
    def assign(self, meta, c):
        return S.Assign(c[0], c[1], c[0].pos)

    def if_stmt(self, meta, c):
        branches = [(c[0], c[1])]
        other = None
        for part in c[2:]:
            if isinstance(part, _Elif):
                branches.append((part[0], part[1]))
            else:
                other = part[0]
        return S.If(tuple(branches), other, self.pos(meta))

    def elif_part(self, meta, c):
        return _Elif((c[0], c[1]))

    def else_part(self, meta, c):
        return _Else((c[0],))

    def while_stmt(self, meta, c):
        return S.While(c[0], c[1], self.pos(meta))

    def for_stmt(self, meta, c):
        return S.For(str(c[0]), c[1], c[2], c[3], self.tpos(c[0]))

    def exit_stmt(self, meta, c):
        return S.Exit(self.pos(meta))

    # -- expressions
    def cond_expr(self, meta, c):
        return S.CondExpr(c[0], c[1], c[2], self.pos(meta))

    def or_op(self, meta, c):
        return S.BinOp("or", c[0], c[1], self.pos(meta))

    def and_op(self, meta, c):
        return S.BinOp("and", c[0], c[1], self.pos(meta))

    def not_op(self, meta, c):
        return S.UnOp("not", c[0], self.pos(meta))

    def cmp_op(self, meta, c):
        return c[0]

    def compare(self, meta, c):
        tok = c[1]
        op = {"=": "==", "≤": "<=", "≥": ">=", "≠": "!="}.get(str(tok), str(tok))
        return S.CmpOp(op, c[0], c[2], self.tpos(tok))

    def add(self, meta, c):
        return S.BinOp("+", c[0], c[1], self.pos(meta))

    def sub(self, meta, c):
        return S.BinOp("-", c[0], c[1], self.pos(meta))

    def mul(self, meta, c):
        return S.BinOp("*", c[0], c[1], self.pos(meta))

    def div(self, meta, c):
        return S.BinOp("/", c[0], c[1], self.pos(meta))

    def neg(self, meta, c):
        return S.UnOp("-", c[0], self.pos(meta))

    def number(self, meta, c):
        return S.Num(int(c[0]), self.tpos(c[0]))

    def decimal(self, meta, c):
        return S.Num(Fraction(str(c[0])), self.tpos(c[0]))

    def true(self, meta, c):
        return S.BoolLit(True, self.pos(meta))

    def false(self, meta, c):
        return S.BoolLit(False, self.pos(meta))

    def eps(self, meta, c):
        return S.EpsLit(self.pos(meta))

    def rate(self, meta, c):
        return S.RateLit(self.pos(meta))

    def name(self, meta, c):
        return S.Name(str(c[0]), self.tpos(c[0]))

    def index(self, meta, c):
        return S.Index(str(c[0]), c[1], self.tpos(c[0]))

    def call(self, meta, c):
        return S.CallExpr(str(c[0]), c[1], self.tpos(c[0]))

    def sampler(self, meta, c):
        return c[0]

    def sample(self, meta, c):
        return S.SampleExpr(str(c[0]), c[1], self.tpos(c[0]))

    def exp_call(self, meta, c):
        return S.ExpCall(c[0], self.pos(meta))

    def args(self, meta, c):
        return tuple(c)


# --------------------------------------------------------------------------- syntax errors

_WORDS = {
    "NAME": "a name",
    "NUMBER": "a number",
    "DECIMAL": "a number",
    "_NL": "a new line",
    "SEMICOLON": "';'",
    "$END": "the end of the file",
    "_ASSIGN": "'<-'",
}
_EXPRESSION_START = {"NAME", "NUMBER", "LPAR", "MINUS"}
_STATEMENT_START = {"IF", "WHILE", "FOR", "EXIT", "NAME"}
_DECLARATION_START = {"PARAM", "TYPE", "INPUT", "OUTPUT", "VAR", "FUNCTION", "DISTRIBUTION"}


def _terminal_text(name: str) -> str | None:
    for term in _parser().terminals:
        if term.name == name and term.pattern.type == "str":
            return term.pattern.value
    return None


def _describe(name: str) -> str:
    if name in _WORDS:
        return _WORDS[name]
    text = _terminal_text(name)
    return f"'{text}'" if text is not None else name.lower()


_OPERATOR_TEXT = ("<", "<=", ">", ">=", "==", "=", "!=", "≤", "≥", "≠", "+", "-", "*", "/", "and", "or")


def _describe_expected(expected: set[str]) -> str:
    """What may come next, in words; long lists are summarised by category."""
    expected = set(expected)
    words: list[str] = []
    if _STATEMENT_START <= expected and _DECLARATION_START <= expected:
        words.append("a statement or declaration")
        expected -= _STATEMENT_START | _DECLARATION_START
    elif _STATEMENT_START <= expected:
        words.append("a statement")
        expected -= _STATEMENT_START
    if _EXPRESSION_START <= expected:
        words.append("an expression")
        expected = {e for e in expected if e not in _EXPRESSION_START | {"DECIMAL", "TRUE", "FALSE", "NOT", "EPS",
                                                                          "RATE", "EXP", "IF", "LAP", "DLAP",
                                                                          "CHOOSE", "LSQB"}
                    and _terminal_text(e) not in ("Exp", "ε")}
    operators = {e for e in expected if _terminal_text(e) in _OPERATOR_TEXT}
    if "_NL" in expected or "SEMICOLON" in expected:
        words.append("the end of the statement (a new line or ';')")
        expected -= {"_NL", "SEMICOLON", "$END", "LPAR", "LSQB"}
        if operators:
            words.append("an operator")
            expected -= operators
    elif len(operators) > 3:
        words.append("an operator")
        expected -= operators
    words.extend(sorted({_describe(e) for e in expected}))
    if not words:
        return "something else"
    if len(words) > 8:
        words = words[:7] + ["..."]
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " or " + words[-1]


def _describe_found(tok: Token) -> str:
    if tok.type == "$END":
        return "the end of the file"
    if tok.type == "_NL":
        return "the end of the line"
    if tok.type == "NAME":
        return f"the name '{tok}'"
    if tok.type in ("NUMBER", "DECIMAL"):
        return f"the number {tok}"
    return f"'{tok}'"


def _unclosed_block(text: str) -> tuple[str, int, int] | None:
    """The innermost 'if'/'while'/'for' not closed by 'end' (keyword, line, column)."""
    stack = []
    previous = None
    try:
        for tok in _parser().lex(text):
            if tok.type == "IF" and previous in (None, "_NL", "SEMICOLON", "THEN", "ELSE", "DO"):
                stack.append(tok)
            elif tok.type in ("WHILE", "FOR"):
                stack.append(tok)
            elif tok.type == "END" and stack:
                stack.pop()
            previous = tok.type
    except UnexpectedInput:
        return None
    if not stack:
        return None
    tok = stack[-1]
    return str(tok), tok.line, tok.column


def _end_position(text: str) -> tuple[int, int]:
    lines = text.split("\n")
    return len(lines), len(lines[-1]) + 1


def _syntax_error(err: UnexpectedInput, text: str, filename: str) -> UserError:
    if isinstance(err, UnexpectedCharacters):
        char = text[err.pos_in_stream] if err.pos_in_stream < len(text) else "?"
        return UserError(f"unexpected character '{char}'", file=filename, line=err.line, column=err.column,
                         hint=_character_hint(text, err.pos_in_stream))
    if isinstance(err, UnexpectedToken):
        tok = err.token
        try:  # the tokens the parser really accepts here (LALR lookaheads are too generous)
            expected = set(err.interactive_parser.accepts())
        except Exception:  # pragma: no cover - older lark
            expected = set(err.expected)
        line, column = err.line, err.column
        if tok.type == "$END":
            line, column = _end_position(text)
        message = f"expected {_describe_expected(expected)}, but found {_describe_found(tok)}"
        return UserError(message, file=filename, line=line, column=column,
                         hint=_token_hint(tok, expected, text))
    return UserError(f"syntax error: {err}", file=filename, line=getattr(err, "line", None),
                     column=getattr(err, "column", None), hint="see docs/language.md")


def _character_hint(text: str, index: int) -> str:
    two = text[index:index + 2]
    char = text[index:index + 1]
    if two == ":=":
        return "assign with '<-' (or '←')"
    if two in ("&&", "||") or char == "!":
        return "write the Boolean operators as words: 'and', 'or', 'not' ('!=' is 'not equal')"
    if char in ("'", '"'):
        return "there are no strings; a domain symbol is a plain name, e.g. top"
    if char == ".":
        return "write a range as 1..m and a rational as p/q or a decimal like 0.5"
    if char == "%":
        return "there is no '%'; use a user function if you need it"
    if char.isalpha():
        return "names use ASCII letters, digits and '_' (the only other letters are ε for eps and ← for <-)"
    return "remove it; see docs/language.md for the characters the language uses"


def _token_hint(tok: Token, expected: set[str], text: str) -> str:
    if tok.type == "EQUAL" and ("_ASSIGN" in expected or text[tok.start_pos - 1:tok.start_pos] == ":"):
        return "assign with '<-' (or '←'); '=' and '==' compare"
    if str(tok) in KEYWORDS and "NAME" in expected and tok.type != "NAME":
        return f"'{tok}' is a reserved word and cannot be used as a name; choose another name"
    if tok.type == "$END":
        block = _unclosed_block(text)
        if block and "END" in expected:
            word, line, column = block
            return f"the '{word}' at line {line}, column {column} is not closed: add 'end'"
        if "RPAR" in expected or "RSQB" in expected:
            return "a '(' or '[' is not closed"
        if "RBRACE" in expected:
            return "a '{' is not closed with '}'"
        return "the file ends in the middle of a statement; complete or remove it"
    if "THEN" in expected and tok.type != "THEN":
        return "a condition is followed by 'then': 'if b then ... end' (or 'elif b then')"
    if "DO" in expected and tok.type != "DO":
        return "loops are written 'while b do ... end' and 'for i = 1 to m do ... end'"
    if tok.type == "END":
        return "this 'end' closes no open block; remove it or check the 'if'/'while'/'for' above"
    if tok.type in ("ELSE", "ELIF"):
        return f"'{tok}' must follow the body of an 'if ... then'"
    if tok.type == "_NL" and _EXPRESSION_START <= expected:
        return ("the expression is incomplete; to continue on the next line, wrap it in parentheses "
                "or end the line with '\\'")
    if _terminal_text(tok.type) in ("<", "<=", ">", ">=", "==", "=", "!=") and "_NL" in expected:
        return "comparisons do not chain; write 'a < b and b < c'"
    if tok.type == "_ASSIGN":
        return ("'<-' assigns only at the start of a statement; to compare with a negative number "
                "put a space: 'x < -1'")
    if {"_NL", "SEMICOLON"} <= expected:
        return "put each statement on its own line, or separate them with ';'"
    if "RPAR" in expected:
        return "check the parentheses and the commas between arguments"
    if "COLON" in expected:
        return "declare with a type after ':', e.g. 'input q: real[m]' or 'var count: 0..c'"
    if "TO" in expected:
        return "write a bounded loop as 'for i = 1 to m do ... end'"
    return "see docs/language.md for the forms of statements, declarations and expressions"
