"""Syntax errors in plain words: what was found, what could come there, how to fix it.

Lark reports token names (RPAR, _NL, __ANON_3); users should read "')'", "the
end of the line", "an expression".  The accepted-token set comes from lark's
interactive parser (exact), then it is summarised by category.
"""
from __future__ import annotations

from lark import Token
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from dipc_plus.errors import UserError
from dipc_plus.exact import noises
from dipc_plus.frontend.grammar import parser

KEYWORDS = frozenset("""param type input output var function distribution over if then elif else end
    while do for to exit true false not and or eps rate exp Exp choose""".split()) | frozenset(noises.surface_names())


def is_reserved(word: str) -> bool:
    """A keyword, or the name of a noise (also one registered after this module was imported)."""
    return word in KEYWORDS or noises.by_surface(word) is not None


_WORDS = {
    "NAME": "a name",
    "NUMBER": "a number",
    "DECIMAL": "a number",
    "_NL": "a new line",
    "SEMICOLON": "';'",
    "$END": "the end of the file",
    "_ASSIGN": "'<-'",
}
_FOUND = {"$END": "the end of the file", "_NL": "the end of the line", "NAME": "the name '{}'",
          "NUMBER": "the number {}", "DECIMAL": "the number {}"}
_EXPRESSION_START = {"NAME", "NUMBER", "LPAR", "MINUS"}
_STATEMENT_START = {"IF", "WHILE", "FOR", "EXIT", "NAME"}
_DECLARATION_START = {"PARAM", "TYPE", "INPUT", "OUTPUT", "VAR", "FUNCTION", "DISTRIBUTION"}


def _terminal_text(name: str) -> str | None:
    for term in parser().terminals:
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
    for starts, word in ((_STATEMENT_START | _DECLARATION_START, "a statement or declaration"),
                         (_STATEMENT_START, "a statement")):
        if starts <= expected:
            words.append(word)
            expected -= starts
            break
    if _EXPRESSION_START <= expected:
        words.append("an expression")
        expected = {e for e in expected if e not in _EXPRESSION_START | {"DECIMAL", "TRUE", "FALSE", "NOT", "EPS",
                                                                          "RATE", "EXP", "IF", "LAP", "DLAP",
                                                                          "CHOOSE", "LSQB"}
                    and _terminal_text(e) not in ("Exp", "ε", *noises.surface_names())}   # every noise starts one
    operators = {e for e in expected if _terminal_text(e) in _OPERATOR_TEXT}
    ends = "_NL" in expected or "SEMICOLON" in expected
    if ends:
        words.append("the end of the statement (a new line or ';')")
        expected -= {"_NL", "SEMICOLON", "$END", "LPAR", "LSQB"}
    if operators and (ends or len(operators) > 3):    # after an expression, or many operators: summarised
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
    if tok.type in _FOUND:
        return _FOUND[tok.type].format(tok)
    return f"'{tok}'"


def _unclosed_block(text: str) -> tuple[str, int, int] | None:
    """The innermost 'if'/'while'/'for' not closed by 'end' (keyword, line, column)."""
    stack = []
    previous = None
    try:
        for tok in parser().lex(text):
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


def syntax_error(err: UnexpectedInput, text: str, filename: str) -> UserError:
    """The UserError for a lark parse error in `text`."""
    if isinstance(err, UnexpectedCharacters):
        char = text[err.pos_in_stream] if err.pos_in_stream < len(text) else "?"
        return UserError(f"unexpected character '{char}'", file=filename, line=err.line, column=err.column,
                         hint=_character_hint(text, err.pos_in_stream))
    if isinstance(err, UnexpectedToken):
        tok = err.token
        expected = set(err.interactive_parser.accepts())   # what the parser really accepts (lookaheads are too generous)
        message = f"expected {_describe_expected(expected)}, but found {_describe_found(tok)}"
        hint = _token_hint(tok, expected, text)
        if tok.type == "$END":     # placed after the last character
            return UserError.at_offset(text, len(text), message, file=filename, hint=hint)
        return UserError(message, file=filename, line=err.line, column=err.column, hint=hint)
    return UserError(f"syntax error: {err}", file=filename, line=getattr(err, "line", None),
                     column=getattr(err, "column", None), hint="see docs/language.md")


# The usual slips at an unexpected character (what the text starts with there) and their fixes.
_CHARACTER_HINTS = (
    ((":=",), "assign with '<-' (or '←')"),
    (("&&", "||", "!"), "write the Boolean operators as words: 'and', 'or', 'not' ('!=' is 'not equal')"),
    (("'", '"'), "there are no strings; a domain symbol is a plain name, e.g. top"),
    ((".",), "write a range as 1..m and a rational as p/q or a decimal like 0.5"),
    (("%",), "there is no '%'; use a user function if you need it"),
)


def _character_hint(text: str, index: int) -> str:
    for starts, hint in _CHARACTER_HINTS:
        if text.startswith(starts, index):
            return hint
    if text[index:index + 1].isalpha():
        return "names use ASCII letters, digits and '_' (the only other letters are ε for eps and ← for <-)"
    return "remove it; see docs/language.md for the characters the language uses"


def _token_hint(tok: Token, expected: set[str], text: str) -> str:
    if tok.type == "EQUAL" and ("_ASSIGN" in expected or text[tok.start_pos - 1:tok.start_pos] == ":"):
        return "assign with '<-' (or '←'); '=' and '==' compare"
    if is_reserved(str(tok)) and "NAME" in expected and tok.type != "NAME":
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
