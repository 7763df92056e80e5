"""A seeded generator of malformed programs and claim files, for the reliability suite.

Why: a user file is untrusted, and every way it can be wrong must end in exit 2
with a located message, never a traceback, a hang or exit 1/3.  The cases are
mutations of the shipped programs/*.dip and theories/*.toml: truncations,
deleted / swapped / duplicated tokens and lines, hostile numbers (huge, deep,
zero), wrong TOML types and missing keys.  Same seed, same cases.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path

from conftest import ROOT

PROGRAMS = sorted((ROOT / "programs").glob("*.dip"))
THEORIES = sorted((ROOT / "theories").glob("*.toml"))

HOSTILE_NUMBERS = [
    "9" * 5000, "10**5000", "9**9**9", "(eps+1)**100000", "2**-100000", "1/0", "0/0", "1e999",
    "(" * 3000 + "1" + ")" * 3000, "-" * 3000 + "1", "+".join(["1"] * 3000), "0", "-1", "1e-400",
    "exp(10**9*eps)", "exp(eps/10**9)", "0.000000000000000000000000000000000000000000000000000000000000000001",
    "nan", "inf", "-0", "\"", "'", "[", "{", "\x00", "\u202e", "eps**eps", "exp(exp(eps))",
]
TOML_VALUES = ['"x"', "1", "-1", "0", "true", "[]", "[1, 2]", "{}", '{ a = 1 }', '"1/0"', '"0"', '[[1]]',
               "1.5", '""', '"' + "9" * 5000 + '"', "9" * 5000, '"eps"', '"(0, 0]"', '"[1, 0]"', '"(0, 1/0)"']
TOKEN = re.compile(r"[A-Za-z_][A-Za-z_0-9]*|\d+(?:\.\d+)?|\*\*|<=|>=|==|!=|:=|\.\.|\S")


@dataclass(frozen=True)
class Case:
    kind: str        # "program" or "claim"
    source: str      # the file it was mutated from
    mutation: str
    text: str


def _mutate_tokens(text: str, rng: random.Random) -> tuple[str, str]:
    spans = [m.span() for m in TOKEN.finditer(text)]
    if not spans:
        return text + "(", "append ("
    how = rng.choice(["delete", "swap", "duplicate", "hostile", "hostile", "replace"])
    i = rng.randrange(len(spans))
    a, b = spans[i]
    if how == "delete":
        return text[:a] + text[b:], f"delete token {text[a:b]!r}"
    if how == "duplicate":
        return text[:b] + " " + text[a:b] + text[b:], f"duplicate token {text[a:b]!r}"
    if how == "swap":
        j = rng.randrange(len(spans))
        c, d = spans[j]
        if c < a:
            a, b, c, d = c, d, a, b
        if b > c:
            return text, "swap (none)"
        return text[:a] + text[c:d] + text[b:c] + text[a:b] + text[d:], f"swap {text[a:b]!r} and {text[c:d]!r}"
    if how == "hostile":
        numbers = [s for s in spans if text[s[0]:s[1]][0].isdigit()] or spans
        a, b = rng.choice(numbers)
        value = rng.choice(HOSTILE_NUMBERS)
        return text[:a] + value + text[b:], f"number {text[a:b]!r} -> {value[:20]!r}"
    other = spans[rng.randrange(len(spans))]
    return text[:a] + text[other[0]:other[1]] + text[b:], f"replace {text[a:b]!r}"


def _mutate_lines(text: str, rng: random.Random) -> tuple[str, str]:
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    how = rng.choice(["drop", "duplicate", "move"])
    if how == "drop":
        return "\n".join(lines[:i] + lines[i + 1:]), f"drop line {i + 1}"
    if how == "duplicate":
        return "\n".join(lines[:i + 1] + lines[i:]), f"duplicate line {i + 1}"
    j = rng.randrange(len(lines))
    line = lines.pop(i)
    lines.insert(j, line)
    return "\n".join(lines), f"move line {i + 1} to {j + 1}"


def _mutate_toml_value(text: str, rng: random.Random) -> tuple[str, str]:
    keys = list(re.finditer(r"^(\s*[A-Za-z_][\w.]*\s*=\s*)(.*)$", text, re.M))
    if not keys:
        return text, "no key"
    m = rng.choice(keys)
    if rng.random() < 0.5 and m.group(2).startswith('"'):
        value = '"' + rng.choice(HOSTILE_NUMBERS).replace('"', "'").replace("\\", "") + '"'
    else:
        value = rng.choice(TOML_VALUES)
    return text[:m.start(2)] + value + text[m.end(2):], f"{m.group(1).strip()} {value[:20]}"


def _truncate(text: str, rng: random.Random) -> tuple[str, str]:
    k = rng.randrange(len(text))
    return text[:k], f"truncate at {k}"


def _deep(text: str, rng: random.Random) -> tuple[str, str]:
    k = rng.randrange(len(text))
    depth = rng.choice([300, 3000])
    opener = rng.choice(["(", "[", "{"])
    return text[:k] + opener * depth + text[k:], f"{depth} x {opener} at {k}"


def _fix_program_path(text: str, source: Path) -> str:
    """Claims name their program relative to themselves: point at the shipped program absolutely."""
    def repl(m):
        target = (source.parent / m.group(2)).resolve()
        return m.group(1) + str(target) + m.group(3)
    return re.sub(r'^(\s*path\s*=\s*")([^"]*)(")', repl, text, count=1, flags=re.M)


def cases(seed: int, n_programs: int, n_claims: int) -> list[Case]:
    rng = random.Random(seed)
    out = []
    program_mutations = [_mutate_tokens, _mutate_tokens, _mutate_lines, _truncate, _deep]
    claim_mutations = [_mutate_toml_value, _mutate_toml_value, _mutate_tokens, _mutate_lines, _truncate, _deep]
    for _ in range(n_programs):
        source = rng.choice(PROGRAMS)
        text, how = rng.choice(program_mutations)(source.read_text(), rng)
        out.append(Case("program", source.name, how, text))
    for _ in range(n_claims):
        source = rng.choice(THEORIES)
        text, how = rng.choice(claim_mutations)(_fix_program_path(source.read_text(), source), rng)
        out.append(Case("claim", source.name, how, text))
    return out


def program_of(claim_text: str) -> str | None:
    m = re.search(r'^\s*path\s*=\s*"([^"]*)"', claim_text, re.M)
    return m.group(1) if m else None
