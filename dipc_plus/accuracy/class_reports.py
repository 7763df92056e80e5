"""An input's summarized report made from its class's: what every input of a class prints, less
the input itself, is made once, and each further input of the class costs its input's text.

Why: on a grid, the inputs that share their det region, their dd key and the support keys of
the outputs in their ball (`accuracy.classes.InputClasses.report_key`) have reports that differ
only in the input (Sparse c = 1 on [-1,1]^12: 531,441 inputs, a few dozen classes).  Building
each one's `InputReport`s, their JSON dicts and their text again was most of the check's time.
A class whose reports refute is never shared (a counterexample names its input), nor one whose
text does not start with its input as expected (then every input is reported in full).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Mapping

from dipc_plus.accuracy.report import ENV_STYLE, REFUTED, InputSummary, group_env, json_value
from dipc_plus.exact.memo import remember
from dipc_plus.execution.json_spool import RawJSON
from dipc_plus.semantics import ir
from dipc_plus.semantics.values import show_value

_MAX_VALUES = 4096   # value texts remembered (then forgotten all at once)


class InputTexts:
    """One program's inputs as the reports print them, JSON (`report.env_json`) and text
    (`report.env_text`), built from each value's text made once."""

    def __init__(self, program: ir.Program):
        self.program = program
        self._layouts: dict = {}   # the input names in order -> [((JSON key, key), array?, flat names)]
        self._values: dict = {}    # id(value) -> (value, its JSON text, its shown text)

    def _layout(self, u: Mapping) -> list:
        names = tuple(u)
        found = self._layouts.get(names)
        if found is None:   # report.group_env's grouping, of the names themselves
            found = self._layouts[names] = [
                ((json.dumps(k), k), isinstance(flat, list), tuple(flat) if isinstance(flat, list) else (flat,))
                for k, flat in group_env(self.program, {name: name for name in names}).items()]
        return found

    def _value(self, v) -> tuple:
        found = self._values.get(id(v))
        if found is None or found[0] is not v:   # the value itself is kept, so its id is not reused
            found = remember(self._values, _MAX_VALUES, id(v), (v, json.dumps(json_value(v)), show_value(v)))
        return found

    def _parts(self, u: Mapping, style: int, assign: str, sep: str) -> list:
        """Each input name's 'key<assign>text' (an array's texts joined by `sep`) in `style` (0 JSON,
        1 shown); a value found by its id is that value (_values keeps it alive, so its id is not reused)."""
        values, parts, which = self._values, [], style + 1
        for keys, array, names in self._layout(u):
            try:
                texts = [values[id(v)][which] for v in map(u.__getitem__, names)]
            except KeyError:
                texts = [self._value(u[n])[which] for n in names]
            parts.append(f"{keys[style]}{assign}[{sep.join(texts)}]" if array else f"{keys[style]}{assign}{texts[0]}")
        return parts

    def json(self, u: Mapping) -> str:
        """json.dumps(env_json(program, u))."""
        return "{" + ", ".join(self._parts(u, 0, ": ", ", ")) + "}"

    def shown(self, u: Mapping) -> str:
        """env_text(program, u): 'q=[-1,0,1]'."""
        return ", ".join(self._parts(u, 1, "=", ",")) or ENV_STYLE["empty"]


@dataclass
class ReportClass:
    """What a summarized run keeps of every input of one class, less the input: made from one
    input's summary (`of`), then `summary(u)` for any input of the class."""
    how: str
    pieces: list           # json: each report's text between its input and its seconds;
    #                        text: (input first?, the rest of the line) per kept line
    made: InputSummary     # the summary it was made from: its marks, verdict and dd are the class's
    texts: InputTexts

    @staticmethod
    def of(u: Mapping, made: InputSummary, how: str, texts: InputTexts) -> "ReportClass | None":
        """The class of input u, `made` its summary in style `how` (a key of `report.SUMMARIES`), or None
        where it cannot be shared."""
        if not made.marks or made.verdict == REFUTED:
            return None
        pieces: list = []
        if how == "json":
            for out in made.kept:
                if list(out)[0] != "input" or list(out)[-1] != "seconds":
                    return None
                pieces.append(json.dumps({k: v for k, v in out.items() if k not in ("input", "seconds")})[1:-1])
        elif how in ("text", "text-verbose"):
            shown = texts.shown(u)
            lead = _lead(how, shown)
            for line in made.kept:
                if line.startswith(lead):
                    pieces.append((True, line[len(lead):]))
                elif shown not in line:
                    pieces.append((False, line))
                else:
                    return None
        return ReportClass(how, pieces, made, texts)

    def summary(self, u: Mapping, seconds: float) -> InputSummary:
        """Input u's summary (u of this class); `seconds` what its reports print as their time."""
        if self.how == "json":
            head = '{"input": ' + self.texts.json(u) + ", "
            tail = ', "seconds": ' + repr(round(seconds, 4)) + "}"
            kept = [RawJSON(head + piece + tail) for piece in self.pieces]
        elif self.how == "nothing":
            kept = []
        else:
            lead = _lead(self.how, self.texts.shown(u))
            kept = [lead + rest if first else rest for first, rest in self.pieces]
        made = self.made
        return InputSummary(kept, made.marks, None, made.verdict, None, made.dd)


def _lead(how: str, shown: str) -> str:
    """How a report line of style `how` starts with the input it is about."""
    return f"{shown:<28}" if how == "text" else f"input {shown}"
