"""Claim files (`theories/*.toml`): what is claimed about a program, in one TOML format.

One file names a program (and its parameters) and states claims about it: an
`[accuracy]` table (Barthe et al., POPL 2021, Definition 2) and/or a `[privacy]`
table.  The format is documented in docs/claims.md.  The file is read once, here;
the `[privacy]` table is handed on as raw data with the file's text to
`claims.privacy_reader`.  For the accuracy claim this module checks every field and
turns it into exact objects:

* the inputs to check (a grid or an explicit list), bound to the program;
* the deterministic function det (the noise-free program, or a table);
* the input distance d and output distance d' (`distances`);
* alpha (a number or "dd": the distance to disagreement of each input),
  gamma (numbers, or "alpha"), and beta, a formula turned into an exact
  ExpPoly/ExpFrac in eps once alpha, gamma and the parameters are fixed;
* the eps interval (`decide.Interval`).

`AccuracyChecker.obligations` (`accuracy.checker`) then lists, per input and gamma, the exact
statement to decide: P[P(u) in B(det(u), u, gamma)] >= 1 - beta for every eps in
the interval, whenever dd(u) > alpha.

Every mistake in a claim file is a `UserError` naming the file, the line of the
key, what is wrong and how to fix it.
"""
from __future__ import annotations

import copy
import math
import os
import re
import sys
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

from dipc_plus.claims import noise_free
from dipc_plus.claims.box import read_box
from dipc_plus.claims.accuracy_claim import AccuracyClaim, beta_closed_form
from dipc_plus.claims.array_items import item_column
from dipc_plus.claims.distances import (INF, INPUT_DISTANCES, OUTPUT_DISTANCES, LinfInput, NumericSparseInput,
                                        ZeroOneInput)
from dipc_plus.execution import limits
from dipc_plus.execution.files import read_user_file
from dipc_plus.claims.grid_points import GridPoints
from dipc_plus.claims.formula import Formula, Where, parse as parse_formula
from dipc_plus.claims.written_numbers import load_toml
from dipc_plus.errors import UserError
from dipc_plus.exact.convert import fmt_q
from dipc_plus.frontend.scope import did_you_mean
from dipc_plus.semantics import ir
from dipc_plus.semantics.evaluate import domain_values
from dipc_plus.semantics.inputs import bind_inputs, coerce, flat_elements, parse_scalar
from dipc_plus.semantics.values import distinct, freeze_env, freeze_value, show_env



@dataclass(frozen=True)
class Key:
    """One key of a claim table, declared once for `ClaimReader.table`: the TOML types its value may have
    (otherwise the error says `message`, with `hint`; `nonempty` refuses an empty value), its value when
    absent, and for a required key the hint that says how to write it."""
    types: type | tuple = object
    default: object = None
    required: str | None = None
    message: str = ""
    hint: str = ""
    nonempty: bool = False


ANY = Key()   # an optional key whose value its reader checks
TOP_KEYS = dict.fromkeys(("program", "accuracy", "privacy"), ANY)
PROGRAM_KEYS = {"path": ANY, "params": Key(dict, {}, message="params must be a table", hint="write params = { m = 3, c = 1 }"),
                "function": Key(str, message="function must be a string", hint='write function = "svt"')}
ACCURACY_KEYS = {   # the required ones in the order they are asked for
    "inputs": ANY, "det": Key(default="noise-free"), "table": ANY,
    "input_distance": Key(required='write input_distance = "linf" (or "zero-one", "numeric-sparse")'),
    "output_distance": Key(required='write output_distance = "zero-one" (or "linf", "noisy-max", "score")'),
    "alpha": Key(required='write alpha = "dd" (each input\'s distance to disagreement) or a number such as 0'),
    "gamma": Key(required="write gamma = 0 (or a number, a list of numbers, or \"alpha\")"),
    "beta": Key(str, required='write beta = "2*m*exp(-alpha*eps/8)" (a formula in eps, alpha, gamma and the '
                              'parameters)', message="beta must be a formula in a string",
                hint='write beta = "2*m*exp(-alpha*eps/8)"'),
    "eps": Key(str, "(0, inf)", message="eps must be an interval string", hint='write eps = "(0, inf)" or "[1/10, 5]"'),
    "dd_over": ANY, "threshold": Key(default="T"), "scores": ANY, "output": ANY, "note": ANY,
}
INPUT_KEYS = {"grid": Key(dict, message="grid must be a table", hint="grid = { q = [-1, 1] }"), "list": ANY,
              "box": ANY, "step": Key(default=1)}
# the distances a box claim can have: the corner reduction's (numeric-sparse with real outputs as in
# NumericSparse, accuracy.box checks its facets), and the argmax worst point's
BOX_DISTANCES = {("linf", "zero-one"), ("linf", "noisy-max"), ("numeric-sparse", "linf")}
# per input distance, (the key to change, what a box needs there) for a refused pair
BOX_DISTANCE_FIX = {"zero-one": ("input_distance", "linf"), "linf": ("output_distance", "zero-one\" or \"noisy-max"),
                    "numeric-sparse": ("output_distance", "linf")}
FINITE = (ir.DomT, ir.BoolT)   # the input types with a domain to list
MAX_POINTS = limits.LIMITS["grid_points"].default   # the default of --limit grid_points


# --------------------------------------------------------------------------- locating keys


class _Locator:
    """Finds the line (and the value's column) of a dotted key in the TOML text.

    tomllib gives no positions, so this scans the text: table headers, then
    `key = value` lines (dotted keys included).  Inline tables nested in a value
    are reported at the line of their key.  A key of an array of tables
    ([[privacy.scenarios]]) is found in the table `occurrence` (0-based) asks for.
    """

    _HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
    _KEY = re.compile(r"^\s*([A-Za-z0-9_\-\.\"' ]+?)\s*=\s*")

    def __init__(self, text: str):
        self.entries = []  # (full dotted key, line, value column, which table of its array)
        self.lines = text.splitlines()
        table, occurrence, seen = "", 0, {}
        for number, line in enumerate(self.lines, start=1):
            m = self._HEADER.match(line)
            if m and "=" not in line.split("#")[0]:
                table = _norm_key(m.group(1))
                occurrence = seen[table] = seen.get(table, -1) + 1
                self.entries.append((table, number, 1, occurrence))
                continue
            m = self._KEY.match(line)
            if m:
                key = _norm_key(m.group(1))
                full = f"{table}.{key}" if table else key
                self.entries.append((full, number, m.end() + 1, occurrence))

    def find(self, dotted: str, occurrence: int | None = None) -> tuple[int | None, int | None]:
        """The line and value column of the longest key that `dotted` is or lies under: its first
        entry, or with `occurrence` its entry in that table of an array of tables (a key the
        table leaves out: the table's header)."""
        ranked = [((occ == occurrence, len(key)), (line, col)) for key, line, col, occ in self.entries
                  if dotted == key or dotted.startswith(key + ".")]   # in the asked table first, then longest
        return max(ranked, key=lambda entry: entry[0], default=(None, (None, None)))[1]


def key_error(path: str | None, dotted: str, message: str, hint: str | None) -> UserError:
    """The error located at a dotted key of the claim file at `path`, for a refusal found after the
    claim was read (a limit checked when the decision starts); the file alone if it is gone."""
    line = column = None
    with suppress(OSError, UnicodeDecodeError, TypeError):
        if path:
            with open(path, encoding="utf-8") as fh:
                line, column = _Locator(fh.read()).find(dotted)
    return UserError(message, file=path, line=line, column=column, hint=hint)


def _norm_key(text: str) -> str:
    return ".".join(p.strip().strip('"').strip("'") for p in text.split("."))


@dataclass
class Claim:
    """A claim file: the program it is about and its claims."""
    file: str
    program_path: str
    params: dict
    program: ir.Program
    accuracy: AccuracyClaim | None
    privacy: dict | None  # the raw [privacy] table, read by `claims.privacy_reader`
    text: str = ""        # the file's text as read once (locations for the privacy reader)


# --------------------------------------------------------------------------- reading


class ClaimReader:
    def __init__(self, path: str, text: str):
        self.path = path
        self.loc = _Locator(text)
        self.occurrence: int | None = None   # which table of an array of tables its keys are found in

    def entry(self, k: int) -> "ClaimReader":
        """This reader locating keys in table k (0-based) of an array of tables, e.g. the k-th
        [[privacy.scenarios]]: a mistake there is reported at its own line, not the first table's."""
        view = copy.copy(self)
        view.occurrence = k
        return view

    def error(self, key: str, message: str, hint: str | None = None) -> UserError:
        line, col = self.loc.find(key, self.occurrence)
        return UserError(f"{key}: {message}", file=self.path, line=line, column=col, hint=hint)

    def item_error(self, key: str, name: str, index: int, message: str, hint: str | None = None) -> UserError:
        """The error at item `index` of the array `name = [...]` in the value of `key` (written inline,
        `key = { name = [...] }`, or as a table `[key]` with `name = [...]`); at the array when the
        item is on another line, else at `key`."""
        error = self.error(key, message, hint)
        line, col = self.loc.find(f"{key}.{name}", self.occurrence)
        if line is not None and col is not None:
            column = item_column(self.loc.lines[line - 1], col, name, index)
            if column is not None or line != error.line:   # a table's own `name = [` line is nearer than `[key]`
                error.line, error.column = line, column if column is not None else col
        return error

    def where(self, key: str) -> Where:
        """The location of a key's value, for errors inside a string."""
        line, col = self.loc.find(key, self.occurrence)
        return Where(self.path, line, None if col is None else col + 1, key)   # + 1: after the opening quote

    def bind(self, key: str, program: ir.Program, given: dict, label: str) -> dict:
        """A TOML table of input values bound as the program's inputs; a mistake is located at `key`
        and its message starts with `label` (which entry, row or pair)."""
        with self.located(key, f"{label}: "):
            return bind_inputs(program, {n: to_user_value(v) for n, v in given.items()})

    def value(self, key: str, written, typ: ir.Type, what: str, label: str = ""):
        """A value written in the file (`to_user_value`) as a value of `typ`; a mistake is located at
        `key`, its message after `label`."""
        with self.located(key, label):
            return coerce(to_user_value(written), typ, what)

    @contextmanager
    def located(self, key: str, label: str = ""):
        """A `UserError` of a lower layer (which knows no claim file) raised inside, located at `key` and
        its message after `label`."""
        try:
            yield
        except UserError as exc:
            raise self.error(key, label + exc.message, exc.hint) from None

    def table(self, raw: Mapping, where: str, keys: Mapping[str, Key]) -> dict:
        """The table `raw` checked against its declaration `keys`: no other key, every required one (in
        the declaration's order), each value of its declared types; an absent key is its default."""
        for name in raw:
            if name not in keys:
                hint = did_you_mean(name, keys) or f"allowed keys: {', '.join(keys)}"
                raise self.error(f"{where}.{name}" if where else name,
                                 f"unknown key '{name}'" + (f" in [{where}]" if where else ""), hint)
        for name, key in keys.items():
            if key.required is not None and name not in raw:
                raise self.error(where, f"[{where}] has no '{name}'", hint=key.required)
        return {name: self.typed(f"{where}.{name}", raw[name], key.types, key.message, key.hint,
                                 nonempty=key.nonempty) if name in raw else key.default for name, key in keys.items()}

    def number(self, key: str, value, *, nonnegative: bool = False) -> Fraction:
        too_many = limits.too_many_digits(value) if isinstance(value, str) else None
        if too_many:
            raise self.error(key, f"{limits.clip(value, 30)} has {too_many}", hint=limits.hint("digits"))
        q = parse_number(value)
        if q is None:
            raise self.error(key, f"'{as_written(value)}' is not a number",
                             hint='write an integer (3), a decimal (0.5) or a rational as a string ("1/2")')
        if nonnegative and q < 0:
            raise self.error(key, f"{q} is negative", hint="it must be >= 0")
        digits = max(len(str(abs(q.numerator))), len(str(q.denominator)))
        if digits > limits.get("digits"):
            raise self.error(key, f"{limits.clip(str(value), 30)} has {digits} digits in its numerator or "
                                  "denominator", hint=limits.hint("digits"))
        return q

    def choice(self, key: str, value, options) -> str:
        if value not in options:
            raise self.error(key, f"'{as_written(value)}' is not allowed",
                             naming_hint(str(value), options, "choose one of " + ", ".join(f'"{o}"' for o in options)))
        return value

    def unused(self, raw: Mapping, key: str, used: bool, message: str, hint: str = "remove it") -> None:
        """Refuse the dotted `key` (its last part a key of `raw`) when it is written but this claim does not
        read it: one check for every key that only some claims use."""
        if key.rsplit(".", 1)[-1] in raw and not used:
            raise self.error(key, message, hint)

    def typed(self, key: str, value, types, message: str, hint: str, *, nonempty: bool = False):
        """`value` when it has one of the TOML `types` (and, with `nonempty`, is not empty); otherwise the
        error at `key`: the one type check of every claim field."""
        if not isinstance(value, types) or (nonempty and not value):
            raise self.error(key, message, hint)
        return value

    def rows(self, key: str, rows, message: str, hint: str, at: str | None = None) -> list:
        """`rows` when it is a non-empty list of inline tables; otherwise the error at `at` (default `key`)."""
        if not isinstance(rows, list) or not rows or not all(isinstance(x, dict) for x in rows):
            raise self.error(at or key, message, hint)
        return rows

    def exact_keys(self, key: str, row: Mapping, names: tuple, label: str, hint: str) -> None:
        """A row of a list of tables has exactly the keys `names`."""
        if set(row) != set(names):
            raise self.error(key, f"{label} must have exactly " + " and ".join(f"'{n}'" for n in names), hint)

    def first_time(self, key: str, seen, u: Mapping, label: str):
        """The frozen input `u`, refused when `seen` (a set or dict of frozen inputs) already holds it."""
        frozen = freeze_env(u)
        if frozen in seen:
            raise self.error(key, f"{label} repeats the input {show_env(u)}", hint="give each input once")
        return frozen

    def named_once(self, key: str, program: ir.Program, name: str, given: dict, side: str = "input",
                   hint: str | None = None, label: str = "") -> list:
        """The flat inputs (or outputs, `side`) `name` stands for; an error at `key` (after `label`) when
        it names none, or names an element that an earlier name of the same table gave already (`q = [0,
        1]` and `"q[1]" = [5, 5]`: the later silently won); `given` maps each element to its name."""
        flat = program.inputs if side == "input" else program.outputs
        elems = flat_elements(program, name, flat)
        if elems is None:
            words = names_in_words(flat)
            raise self.error(key, f"{label}'{name}' is not an {side} of {program.name}",
                             hint or naming_hint(name, [*words.split(", "), *dict(flat)], f"its {side}s are: {words}"))
        for e in elems:
            if e in given:
                raise self.error(key, f"{label}'{e}' is given twice, by '{given[e]}' and by '{name}'",
                                 hint=f"give each {side} once: the whole array, or some of its elements")
            given[e] = name
        return elems


def as_written(value) -> str:
    """A TOML value as the file spells it, for messages: 'true', not Python's 'True'."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def naming_hint(name: str, candidates, rest: str) -> str:
    """'did you mean 'x'? ' (when a candidate is close) followed by `rest`."""
    close = did_you_mean(name, candidates)
    return f"{close} {rest}" if close else rest


def names_in_words(flat) -> str:
    """The distinct names (arrays once) of flat (name, type) pairs, sorted: 'h, q'."""
    return ", ".join(sorted({n.split("[")[0] for n, _ in flat}))


def note_of(table: Mapping) -> str:
    """A table's free-text `note` ('' when absent or not a string)."""
    note = table.get("note", "")
    return note if isinstance(note, str) else ""


def parse_number(value) -> Fraction | None:
    """A TOML number or a numeric string as a Fraction; None for anything else (a Boolean, nan, inf, a
    string of too many digits, which is never converted: `number` says why)."""
    if isinstance(value, float):
        return Fraction(repr(value)) if math.isfinite(value) else None
    if isinstance(value, int) and not isinstance(value, bool):
        return Fraction(value)
    if not isinstance(value, str) or limits.too_many_digits(value):
        return None
    try:
        return Fraction(value.strip())
    except (ValueError, ZeroDivisionError):
        return None


def to_user_value(value):
    """A TOML value as `inputs.bind_inputs` takes it (arrays as lists, numbers as Fractions)."""
    if isinstance(value, list):
        return [to_user_value(v) for v in value]
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return parse_number(value)
    if isinstance(value, str):
        return parse_scalar(value, "value")
    return value


def _function_name(r: "ClaimReader", prog: dict, program_path: str) -> str | None:
    """The `function` of [program]: required for a .py program, refused for a .dip one."""
    function = prog["function"]
    if program_path.endswith(".py") and function is None:
        raise r.error("program", "a Python program needs the name of its function",
                      hint='write function = "NAME" in [program]')
    if function is not None and not program_path.endswith(".py"):
        raise r.error("program.function", "function names a function of a .py program",
                      hint="leave function out for a .dip program")
    return function


def _read_program(r: "ClaimReader", program_path: str, function: str | None, params: dict):
    """The program's module, parsed once (lowered later, once, with the claim's parameters); a file
    that cannot be read at all (a kernel file, no permission, too large) is located at the claim's
    path line, a mistake inside the program in the program."""
    from dipc_plus.frontend.load import read_program_module
    try:
        return read_program_module(program_path, function, params)
    except UserError as err:
        if err.file != program_path or err.line is not None:
            raise
        raise r.error("program.path", err.message, hint=err.hint) from None


def load_claim(path: str, overrides: Mapping | None = None) -> Claim:
    """Read and check a claim file; `overrides` (e.g. from --set) replace parameters."""
    raw = read_user_file(path, "claim file", hint="check the path (claims live in theories/*.toml)")
    text = raw.decode("utf-8", errors="replace")
    data = load_toml(text, path)
    r = ClaimReader(path, text)
    r.table(data, "", TOP_KEYS)
    if "program" not in data or not isinstance(data["program"], dict):
        raise UserError("the claim file has no [program] table", file=path,
                        hint='start with\n  [program]\n  path = "../programs/laplace.dip"')
    prog = r.table(data["program"], "program", PROGRAM_KEYS)
    if not isinstance(prog["path"], str):
        raise r.error("program", "no program path", hint='write path = "../programs/NAME.dip" (relative to this file)')
    program_path = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(path)), prog["path"]))
    if not os.path.exists(program_path):
        raise r.error("program.path", f"the program '{limits.clip(prog['path'])}' does not exist (looked for "
                                      f"{limits.clip(program_path, 80)})",
                      hint="the path is relative to the claim file")
    if not os.path.isfile(program_path):
        raise r.error("program.path", f"the program '{limits.clip(prog['path'])}' is not a regular file",
                      hint="give the path of a .dip file, relative to the claim file")
    params = {name: r.number(f"program.params.{name}", value) for name, value in prog["params"].items()}
    params.update({name: Fraction(value) for name, value in (overrides or {}).items()})
    function = _function_name(r, prog, program_path)
    from dipc_plus.frontend.load import declared_params, lower_program
    module = _read_program(r, program_path, function, params)
    names = declared_params(module)
    unknown = next((n for n in params if n not in names), None)
    if unknown is not None:
        name = os.path.splitext(os.path.basename(program_path))[0]
        hint = naming_hint(unknown, names, f"its parameters are: {', '.join(names) or '(none)'}")
        if unknown in (overrides or {}):
            raise UserError(f"--set {unknown}: '{unknown}' is not a parameter of {name}", hint=hint)
        raise r.error(f"program.params.{unknown}", f"'{unknown}' is not a parameter of {name}", hint=hint)
    program = lower_program(module, params, function)
    accuracy = None
    if "accuracy" in data:
        r.typed("accuracy", data["accuracy"], dict, "accuracy must be a table", "write [accuracy] on its own line")
        accuracy = _read_accuracy(r, data["accuracy"], program, path)
    privacy = data.get("privacy")
    if accuracy is None and privacy is None:
        raise UserError("the claim file states no claim", file=path, hint="add an [accuracy] table")
    return Claim(path, program_path, params, program, accuracy, privacy, text)


# --------------------------------------------------------------------------- [accuracy]


def _read_accuracy(r: ClaimReader, raw: dict, program: ir.Program, path: str) -> AccuracyClaim:
    acc = r.table(raw, "accuracy", ACCURACY_KEYS)

    det = r.choice("accuracy.det", acc["det"], ("noise-free", "table"))
    r.unused(raw, "accuracy.table", det == "table", "a det table is given but det is not \"table\"",
             hint='write det = "table" to use it, or remove the table')
    table = _read_table(r, acc["table"], program) if det == "table" else None

    # inputs
    points, kind = _read_inputs(r, acc["inputs"], program, table)

    # distances
    d_name = r.choice("accuracy.input_distance", acc["input_distance"], INPUT_DISTANCES)
    if d_name == "numeric-sparse":
        d = NumericSparseInput(_threshold(r, acc, program), tuple(noise_free.real_inputs(program)))
    else:
        d = LinfInput() if d_name == "linf" else ZeroOneInput()
    r.unused(raw, "accuracy.threshold", d_name == "numeric-sparse",
             "threshold is only used by input_distance = \"numeric-sparse\"")
    od_name = r.choice("accuracy.output_distance", acc["output_distance"], tuple(OUTPUT_DISTANCES))
    r.unused(raw, "accuracy.scores", od_name == "noisy-max", "scores is only used by output_distance = \"noisy-max\"")

    if kind == "box" and (d_name, od_name) not in BOX_DISTANCES:   # what accuracy.box reads
        key, want = BOX_DISTANCE_FIX[d_name]
        raise r.error(f"accuracy.{key}", f"a box claim needs {key} = \"{want}\", not \"{acc[key]}\"",
                      hint="box claims are decided by the corner reduction (docs/claims.md, \"Box claims\"); "
                           "use a grid for this claim")

    with r.located("accuracy.output_distance"):
        od = OUTPUT_DISTANCES[od_name](program, acc["scores"], acc["output"])

    # alpha, gamma
    alpha = acc["alpha"]
    if alpha != "dd":
        if isinstance(alpha, str) and parse_number(alpha) is None:
            raise r.error("accuracy.alpha", f"'{alpha}' is not a number or \"dd\"",
                          hint='write alpha = "dd" (each input\'s distance to disagreement) or a number')
        alpha = r.number("accuracy.alpha", alpha, nonnegative=True)
    gamma = acc["gamma"]
    if gamma == "alpha":
        if alpha == "dd":
            raise r.error("accuracy.gamma", "gamma = \"alpha\" needs a numeric alpha",
                          hint="with alpha = \"dd\" gamma must be fixed (POPL 2021, Thm 15); give alpha a number, "
                               "as in the paper's Table 3 (alpha = 1, gamma = \"alpha\")")
        gammas = "alpha"
    elif gamma == []:
        raise r.error("accuracy.gamma", "the list of gammas is empty", hint="write gamma = [1, 2, 3] or gamma = 0")
    else:   # a gamma written twice is one obligation, as a listed input written twice is one input
        gammas = list(dict.fromkeys(r.number("accuracy.gamma", g, nonnegative=True)
                                    for g in (gamma if isinstance(gamma, list) else [gamma])))

    # beta
    beta = _read_beta(r, acc["beta"], program, alpha, gammas)

    # eps interval
    from dipc_plus.decision.decide import Interval
    with r.located("accuracy.eps"):
        eps = Interval.parse(acc["eps"])

    dd_over = r.choice("accuracy.dd_over", raw.get("dd_over", "grid" if det == "table" else "reals"),
                       ("reals", "grid"))
    if det == "table" and dd_over == "reals":
        raise r.error("accuracy.dd_over", "with a det table, dd can only be taken over the table's inputs",
                      hint='write dd_over = "grid" (or use det = "noise-free")')
    if kind == "box" and dd_over != "reals":
        raise r.error("accuracy.dd_over", "a box claim takes dd over the reals (a box has no grid of points)",
                      hint='remove dd_over (or write dd_over = "reals")')
    return AccuracyClaim(path, program, kind, points, det, table, d, od, alpha, gammas, beta, eps, dd_over,
                         note_of(raw))


def _threshold(r: ClaimReader, acc: dict, program: ir.Program) -> Fraction:
    value = acc["threshold"]
    if isinstance(value, str) and value in program.params:
        return Fraction(program.params[value])
    q = parse_number(value)
    if q is None:
        raise r.error("accuracy.threshold",
                      f"'{as_written(value)}' is neither a number nor a parameter of {program.name}",
                      hint="write threshold = \"T\" (a parameter) or a number such as 0")
    return q


def _read_beta(r: ClaimReader, text, program: ir.Program, alpha, gammas) -> Formula:
    where = r.where("accuracy.beta")
    names = ["alpha", "gamma"] + [p for p in program.params if p not in ("alpha", "gamma", "eps")]
    formula = parse_formula(text, names, where)
    if alpha == "dd":
        _check_decreasing_in_alpha(r, formula, program, gammas)
    for a in ([Fraction(1), INF] if alpha == "dd" else [alpha]):   # samples: no exact form fails now
        for g in ([a] if gammas == "alpha" else gammas):
            beta_closed_form(formula, program.params, a, g)
    return formula


def _check_decreasing_in_alpha(r: ClaimReader, formula: Formula, program: ir.Program, gammas) -> None:
    """alpha = "dd" checks each input once, at alpha = dd(u); that covers every smaller
    alpha only if beta does not increase with alpha (POPL 2021, Definition 9 (5)).
    d beta / d alpha <= 0 must be proven for alpha >= 0, eps > 0 (`Formula.slope`); otherwise refuse."""
    for g in gammas:
        sign, slope = formula.slope("alpha", {**program.params, "gamma": g})
        if sign == "nonpositive":
            continue
        why = "increases with alpha" if sign == "nonnegative" else "could not be shown not to increase with alpha"
        raise r.error("accuracy.beta", f"'{formula.text}' {why} (d/d alpha = {limits.clip(slope, 120)}), so checking each "
                      "input only at alpha = dd(u) would not cover the smaller alphas",
                      hint="give a numeric alpha (one claim per alpha), or a beta that decreases in alpha "
                           "such as c*exp(-alpha*eps/8)")


def _read_inputs(r: ClaimReader, spec, program: ir.Program, table) -> tuple[list, str]:
    """The accuracy claim's inputs and how they were given: a table's, an explicit list, or a grid."""
    if spec is None:
        if table is not None:
            return [dict(k_env) for k_env in table["__inputs__"]], "table"
        raise r.error("accuracy", "[accuracy] has no inputs",
                      hint="add\n  [accuracy.inputs]\n  grid = { q = [-1, 1] }   # every integer vector in [-1,1]^m")
    kind, given = read_input_table(r, spec, program, "accuracy.inputs", bound_product=False)
    if kind == "box":
        if table is not None:
            raise r.error("accuracy.inputs.box", "a box claim needs det = \"noise-free\" (a table lists points)",
                          hint="use det = \"noise-free\" or a grid")
        return read_box(r, given, program), "box"
    if kind == "list":
        return _check_table_covers(r, given, table), "list"
    return _grid_points(r, given, table), "grid"


def read_input_table(r: ClaimReader, spec, program: ir.Program, key: str, *, bound_product: bool):
    """The inputs table `key` of an accuracy or a privacy claim: ("box", the box's own table),
    ("list", the entries bound in order, an entry written twice kept once: a list is the set of inputs
    the verdict covers) or ("grid", {flat input: values} in the program's order).
    `bound_product` bounds a grid's real inputs together before any value is built (privacy claims
    factor finite inputs); otherwise each input is bounded alone and the product later."""
    r.typed(key, spec, dict, "inputs must be a table", f"write [{key}] with grid = {{...}} or list = [...]")
    table = r.table(spec, key, INPUT_KEYS)
    given = [k for k in ("grid", "list", "box") if k in spec]
    if len(given) != 1:
        raise r.error(key, "give exactly one of 'grid', 'list' and 'box'" +
                      (f" (this table has {' and '.join(given)})" if given else ""),
                      hint="grid = { q = [-1, 1] }, list = [ { q = [0, 1, -1] } ] or box = { q = [-1, 1] } "
                           "(every real input of the box); one claim per kind of inputs")
    r.unused(spec, f"{key}.step", "grid" in spec,
             "step only applies to a grid" + (" (a box has every real value)" if "box" in spec else ""))
    if "box" in spec:
        return "box", table["box"]
    if "list" in spec:
        rows = r.rows(f"{key}.list", table["list"], "list must be a non-empty array of inline tables",
                      "list = [ { q = [-1, 0, 1] }, { q = [1, 1, 1] } ]")
        return "list", distinct([r.bind(f"{key}.list", program, row, f"entry {k + 1}") for k, row in enumerate(rows)])
    step = r.number(f"{key}.step", table["step"])
    if step <= 0:
        raise r.error(f"{key}.step", "step must be positive", hint='step = "1/2"')
    if "step" in spec and not any(isinstance(v, list) for v in table["grid"].values()):   # grid: a table
        raise r.error(f"{key}.step", "step applies to no range of the grid (every input of it is given its "
                                     "values or \"all\"), so it would be ignored",
                      hint="remove it, or give an input a range [low, high]")
    return "grid", _grid_ranges(r, table["grid"], program, key, step, bound_product)


def step_hint(name: str, program: ir.Program, table: str) -> str | None:
    """The hint for a grid key `step` (which names no input): it was written inside `grid = {...}`
    instead of beside it in the inputs table.  None for other names (the usual hint then)."""
    if name != "step":
        return None
    first = names_in_words(program.inputs).split(", ")[0] or "q"
    return (f"step is a key of [{table}] beside grid, not inside it: write grid = {{ {first} "
            f"= [-1, 1] }} and, on the next line, step = \"1/2\"")


def _grid_ranges(r: ClaimReader, grid: dict, program: ir.Program, key: str, step: Fraction,
                 bound_product: bool) -> dict[str, list]:
    """Every input's values on the grid: the ones it names (each bounded before it is built), and
    the whole domain of a finite input it leaves out; a real input left out is an error."""
    types, at = dict(program.inputs), f"{key}.grid"
    ranges: dict[str, list] = {}
    given: dict = {}
    for name, value in grid.items():
        elems = r.named_once(at, program, name, given, hint=step_hint(name, program, key))
        counted = {e: grid_values(r, at, name, value, types[e], step) for e in elems}
        if bound_product:   # the real inputs together (finite ones range over their domains, which factor)
            check_grid_size(r, at, [len(v) for e, v in ranges.items() if not isinstance(types[e], FINITE)] +
                            [count for e, (count, _) in counted.items() if not isinstance(types[e], FINITE)])
        else:   # one input's values are built below: each is bounded now; the product lazily
            for count, _ in counted.values():
                check_grid_size(r, at, [count])
        ranges.update((e, build()) for e, (_, build) in counted.items())
    return with_finite_domains(program, ranges, lambda name: r.error(
        at, f"the grid gives no values for the real input '{name}'",
        hint=f"add {name.split('[')[0]} = [-1, 1] to the grid"))


def with_finite_domains(program: ir.Program, ranges: dict, refuse) -> dict:
    """`ranges` in the program's input order, each finite input it leaves out over its whole domain;
    `refuse(name)` is the error for a real input it leaves out (a real input has no domain to list)."""
    for name, typ in program.inputs:
        if name not in ranges:
            if not isinstance(typ, FINITE):
                raise refuse(name)
            ranges[name] = list(domain_values(typ))
    return {n: ranges[n] for n, _ in program.inputs}


def _grid_points(r: ClaimReader, ranges: dict, table):
    """The product of the ranges as input points, or an `OversizeGrid` past the grid_points limit."""
    points = GridPoints(ranges)   # each point made when read
    size, most = points.total, limits.get("grid_points")
    if size > sys.maxsize:   # not even countable by len(): no --input can make this claim's grid useful
        raise r.error("accuracy.inputs.grid", f"the grid has more than {sys.maxsize} points",
                      hint="use a smaller range, a larger step, or an explicit list")
    if size > most:  # refused when enumerated, so that `--input` can still check one of its points
        return OversizeGrid(size, r.error("accuracy.inputs.grid", f"the grid has {size} points, more than {most}",
                                          hint="use a smaller range, a larger step, an explicit list, or --input "
                                          "for one point; " + limits.hint("grid_points")))
    return _check_table_covers(r, points, table)


@dataclass(eq=False)   # compared and hashed by identity, as the plain class it was
class OversizeGrid:
    """The points of a grid past --limit grid_points: its size is known, but enumerating it raises the
    claim's error.  A run narrowed by `--input` never enumerates the grid (unless dd is taken
    over the grid), so the limit applies to what is checked, not to what the file spans."""
    size: int
    error: UserError

    def __len__(self) -> int:
        return self.size

    def __iter__(self):
        raise self.error

    def __getitem__(self, index):
        raise self.error


def check_grid_size(r: ClaimReader, key: str, counts) -> None:
    """Refuse a grid whose points (the product of `counts`) pass `grid_points`, before any value is
    built: `q = [0, 99999]` over three inputs is 10^15 points."""
    most = limits.get("grid_points")
    if math.prod(counts) > most:
        raise r.error(key, f"the grid has more than {most} points",
                      hint="use a smaller range, a larger step, or an explicit list; " + limits.hint("grid_points"))


def grid_values(r: ClaimReader, key: str, name: str, value, typ, step: Fraction):
    """(how many values one input takes on a claim's grid, a function that builds them): the value
    is read and its count known before any value is built, so that `check_grid_size` refuses a
    huge grid first (`key` names the TOML key for messages)."""
    if value == "all":
        if not isinstance(typ, FINITE):
            raise r.error(key, f"'{name}' is real: \"all\" only works for finite inputs", hint=f"{name} = [-1, 1]")
        values = list(domain_values(typ))
        return len(values), lambda: values
    if isinstance(value, dict):
        if set(value) != {"values"} or not isinstance(value["values"], list) or not value["values"]:
            raise r.error(key, f"{name}: write {{ values = [...] }} for an explicit list of values",
                          hint=f"{name} = {{ values = [0, \"1/2\", 1] }}")
        # a value written twice ("0" and 0 too) is one value of the grid; the count bounds the size check
        return len(value["values"]), lambda: distinct([r.value(key, v, typ, f"grid value of {name}")
                                                       for v in value["values"]], key=freeze_value)
    if not (isinstance(value, list) and len(value) == 2):
        raise r.error(key, f"{name}: a grid range is [low, high]",
                      hint=f"{name} = [-1, 1] (every value from -1 to 1 in steps of `step`), "
                           f"or {name} = {{ values = [...] }}")
    lo, hi = (r.number(key, v) for v in value)
    if hi < lo:
        raise r.error(key, f"{name}: the range [{lo}, {hi}] is empty", hint="write [low, high] with low <= high")
    for index, bound in enumerate((lo, hi)):
        if (bound / step).denominator != 1:
            raise _bound_off_step(r, key, name, index, value[index], (lo, hi), step, typ)
    count = int((hi - lo) // step) + 1

    def build() -> list:     # a finite input's range is bounded here, not by the product's check
        if count > limits.get("grid_points"):
            raise r.error(key, f"{name}: more than {limits.get('grid_points')} grid values",
                          hint="use a larger step; " + limits.hint("grid_points"))
        return [r.value(key, lo + k * step, typ, f"grid value of {name}") for k in range(count)]
    return count, build


def _bound_off_step(r: ClaimReader, key: str, name: str, index: int, written, bounds, step: Fraction,
                    typ) -> UserError:
    """The refusal of a range bound that is not a multiple of the step: the range would silently
    lose it ([0, 0.5] is the one point 0), so the user is told what a range is and how to list values
    (or, for an input with whole values only, which whole bounds to write)."""
    whole = step == 1
    low, high = math.ceil(bounds[0]), math.floor(bounds[1])
    if isinstance(typ, (*FINITE, ir.IntT)) and low <= high:
        hint = f"'{name}' takes whole values only: write {name} = [{low}, {high}]"
    else:
        values = ", ".join(fmt_q(b) if b.denominator == 1 else f'"{fmt_q(b)}"' for b in bounds)
        meaning = ("every whole number from low to high (add step = \"1/2\" beside grid for the multiples of 1/2)"
                   if whole else f"every multiple of {fmt_q(step)} from low to high")
        hint = f"a range [low, high] is {meaning}; for other values list them: {name} = {{ values = [{values}] }}"
    what = "a whole number" if whole else f"a multiple of the step {fmt_q(step)}"
    return r.item_error(key, name, index, f"{name}: the range bound {written} is not {what}", hint=hint)


def _check_table_covers(r: ClaimReader, points, table):
    if table is None:
        return points
    for u in points:
        if freeze_env(u) not in table:
            raise r.error("accuracy.inputs", f"the det table has no row for the input {show_env(u)}",
                          hint="add a row to [[accuracy.table]] or drop the input")
    return points


def _read_table(r: ClaimReader, rows, program: ir.Program) -> dict:
    key = "accuracy.table"
    r.rows(key, rows, "det = \"table\" needs [[accuracy.table]] rows",
           'add rows\n  [[accuracy.table]]\n  input = { q = [-1, 0, 1] }\n  output = { out = 3 }', at="accuracy.det")
    table: dict = {"__inputs__": []}
    for k, row in enumerate(rows):
        at = r.entry(k)   # a row's mistakes at its own [[accuracy.table]]
        at.exact_keys(key, row, ("input", "output"), f"row {k + 1}", "input = { q = [...] } and output = { out = ... }")
        u = at.bind(key, program, row["input"], f"row {k + 1} input")
        v = _bind_outputs(at, program, row["output"], k)
        table[at.first_time(key, table, u, f"row {k + 1}")] = v
        table["__inputs__"].append(tuple(u.items()))
    return table


def _bind_outputs(r: ClaimReader, program: ir.Program, given: dict, k: int) -> dict:
    types = dict(program.outputs)
    out: dict = {}
    named: dict = {}
    r.typed("accuracy.table", given, dict, f"row {k + 1}: output must be a table", "output = { out = 3 }")
    for name, value in given.items():
        elems = r.named_once("accuracy.table", program, name, named, "output", label=f"row {k + 1}: ")
        if name not in types and (not isinstance(value, list) or len(value) != len(elems)):
            raise r.error("accuracy.table", f"row {k + 1}: output '{name}' is an array of {len(elems)}",
                          hint=f"give a list of {len(elems)} values")
        for flat, v in ([(name, value)] if name in types else zip(elems, value)):
            out[flat] = r.value("accuracy.table", v, types[flat], f"output {flat}", f"row {k + 1}: ")
    missing = [n for n in types if n not in out]
    if missing:
        raise r.error("accuracy.table", f"row {k + 1}: no value for output(s) {', '.join(missing)}",
                      hint="give every output")
    return out
