"""Whole sentences only: find every catalog message whose placeholder is filled with text
that itself came from the catalogs.

    python -m tools.sentences            # list each case (file:line, the placeholder, why)

A sentence translated in pieces cannot agree with itself: "fue {reason}" with {reason}
translated on its own gives "fue detenida" for a game (feminine) or "fue terminó". So every
text a player reads is one catalog message, and what fills its placeholders is a name, a
number, a mention or an emoji, never another translated text. A catalog message with no
letters outside its placeholders ("{line}\\n{board}") is a layout, not a sentence, and may
hold whole translated sentences.

How it finds them: a static taint analysis of the player-facing source (every file
``tools.i18n`` gives an area). A value is *translated* when it comes from ``_``,
``ngettext`` or ``pgettext``, directly or through a local variable, a string operation
(``.format``, ``join``, ``+``, an f-string, slicing), a function of the project that returns
one, an argument that a caller fills with one, or a field of a class of the project that is
built with one. A *sentence* is a ``.format`` call on a translated value; each of its
arguments that is translated is a case. Being static, it sees every code path, played or
not, and errs towards finding too much: ``NAMES`` lists the translated texts that are
names (a game's title, a command's, a die's) or numbers with their unit ("3 min"), which
may fill a sentence like any name or number.

tests/foundation/test_whole_sentences.py runs it over the bot (no case may be found) and
over planted cases (each must be).
"""

from __future__ import annotations

import ast
import string
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from tools.i18n import area_of, source_files

TRANSLATING = frozenset({"_", "ngettext", "pgettext"})
# String methods whose result is made of the receiver's text (and of their arguments').
STRING_METHODS = frozenset(
    {
        "format",
        "join",
        "strip",
        "lstrip",
        "rstrip",
        "upper",
        "lower",
        "capitalize",
        "title",
        "replace",
        "ljust",
        "rjust",
        "center",
        "removeprefix",
        "removesuffix",
        "splitlines",
        "split",
    }
)
# Built-ins and library calls that pass their argument's text through.
PASS_THROUGH = frozenset(
    {"str", "list", "tuple", "sorted", "reversed", "shorten", "list_of", "clip", "escape"}
)

# Translated texts that are names, not parts of a sentence: a name fills a placeholder as a
# player's name does. Each function here returns one: a game's title, a command's or an
# option's name (as the player's command picker lists it), a die's or a game piece's name
# as the rules cards write it (a noun on its own, capitalised, never inflected), or a
# number with its unit ("3 min", "73/80 (91.3%)", "d20").
NAMES = frozenset(
    {
        # A game's title ("Weighted Dice").
        "title_of",
        "shown_title",
        "game_title",
        # A command or an option, as the command picker lists it.
        "command_word",
        "option_word",
        "command_text",
        "command_mention",
        "slash",
        "new_command",
        # Diceman's dice ("Sword", "⚔️ Sword + 🛡️ Shield").
        "die_name",
        "die_label",
        "dice_pair",
        "full_name",
        # Dimension Duel's pieces: a side or a particle (Tau, Kaon), a ray, a shield, a
        # region, a function, the functions a player has left ("Disruptor, Deflector").
        "role_name",
        "device_name",
        "charges_left",
        "ray_name",
        "shield_name",
        "region_name",
        "function_name",
        # A season by its number and the name its server gave it ("Season 2 · Spring Cup").
        "season_label",
        "season_text",
        # Discord's permissions, as its own settings name them ("Send Messages").
        "missing_permissions",
        "permission_names",
        # A player with no display name ("Player 3"); names joined ("Ann, Bo and Cy").
        "player_name",
        "names_list",
        # Numbers with their unit ("d20", "3 min", "73/80 (91.3%)", "2 dice (3, 4 = 7)").
        "die",
        "_die",
        "dice_word",
        "rolled_text",
        "describe_seconds",
        "chance",
        "score_text",
        "score_pair",
        "streak_text",
        "number",
        "percent",
    }
)
# Tables of such names, translated where shown: ``_(DIE_NAMES[key])``, a setting's name
# (``FIELD_LABELS``, written in bold as /dicebot settings lists it); constants: a game's
# title, ``_(TITLE)``; attributes: a language by its own name, ``_(language.native_name)``.
NAME_TABLES = frozenset({"DIE_NAMES", "DICEMAN_NAMES", "FIELD_LABELS"})
NAME_CONSTANTS = frozenset({"TITLE"})
NAME_ATTRIBUTES = frozenset({"native_name"})
# The contexts a command's or an option's name is translated in.
NAME_CONTEXTS = frozenset({"command name", "option name", "COMMAND_NAME", "OPTION_NAME"})

TRANSLATED = "translated"


@dataclass
class Case:
    """A translated text filling a placeholder of a translated sentence."""

    path: str
    line: int
    placeholder: str
    value: str
    via: str = ""

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}"
        via = f" (through {self.via})" if self.via else ""
        return f"{where}: {{{self.placeholder}}} is filled with translated text {self.value}{via}"


@dataclass
class Function:
    """One function or method: its parameters, and what its returns are made of."""

    module: str
    qualname: str
    node: ast.FunctionDef | ast.AsyncFunctionDef
    path: str
    params: list[str]
    returns: set[str] = field(default_factory=set)
    # Parameters that fill a placeholder of a sentence inside this function.
    slotted: dict[str, tuple[int, str]] = field(default_factory=dict)


@dataclass
class Module:
    name: str
    path: str
    tree: ast.Module
    # Local name -> (module, name) it was imported from; or a module alias -> module.
    imported: dict[str, tuple[str, str]] = field(default_factory=dict)
    modules: dict[str, str] = field(default_factory=dict)


def _letters_outside_placeholders(template: str) -> bool:
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError:
        return True
    return any(any(char.isalpha() for char in literal) for literal, *_ in parts)


class Analysis:
    def __init__(self, sources: Iterable[tuple[str, str]]) -> None:
        self.modules: dict[str, Module] = {}
        self.functions: dict[tuple[str, str], Function] = {}
        self.by_name: dict[str, list[Function]] = {}
        # Field names of the project's classes that are built with translated text.
        self.fields: set[str] = set()
        for relative, text in sources:
            name = relative.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
            module = Module(name, relative, ast.parse(text, relative))
            self.modules[name] = module
            self._index(module)

    # -- indexing ----------------------------------------------------------------------

    def _index(self, module: Module) -> None:
        for node in ast.walk(module.tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                base = node.module
                if node.level:
                    parts = module.name.split(".")
                    keep = (
                        len(parts) - node.level + (1 if module.path.endswith("__init__.py") else 0)
                    )
                    base = ".".join([*parts[:keep], node.module])
                for alias in node.names:
                    local = alias.asname or alias.name
                    module.imported[local] = (base, alias.name)
                    module.modules[local] = f"{base}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    module.modules[alias.asname or alias.name.split(".")[0]] = (
                        alias.name if alias.asname else alias.name.split(".")[0]
                    )

        def visit(body: list[ast.stmt], prefix: str) -> None:
            for statement in body:
                if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                    qualname = prefix + statement.name
                    arguments = statement.args
                    params = [
                        a.arg
                        for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
                    ]
                    function = Function(module.name, qualname, statement, module.path, params)
                    self.functions[(module.name, qualname)] = function
                    self.by_name.setdefault(statement.name, []).append(function)
                    visit(statement.body, qualname + ".")
                elif isinstance(statement, ast.ClassDef):
                    visit(statement.body, prefix + statement.name + ".")

        visit(module.tree.body, "")

    # -- resolving calls ---------------------------------------------------------------

    def callees(self, module: Module, scope: str, call: ast.Call) -> list[Function]:
        func = call.func
        if isinstance(func, ast.Name):
            # A nested function, then the module's own, then an import.
            parts = scope.split(".") if scope else []
            for depth in range(len(parts), -1, -1):
                key = (module.name, ".".join([*parts[:depth], func.id]))
                if key in self.functions:
                    return [self.functions[key]]
            if func.id in module.imported:
                source, name = module.imported[func.id]
                found = self.functions.get((source, name))
                return [found] if found else []
            return []
        if isinstance(func, ast.Attribute):
            if isinstance(func.value, ast.Name) and func.value.id in module.modules:
                target = module.modules[func.value.id]
                found = self.functions.get((target, func.attr))
                if found:
                    return [found]
                if target in self.modules:
                    return []
            if func.attr.startswith("__"):
                return []
            # A method: every method of that name in the project (games plug in theirs).
            return [f for f in self.by_name.get(func.attr, []) if "." in f.qualname]
        return []

    # -- what a value is made of ---------------------------------------------------------

    def labels(
        self,
        module: Module,
        function: Function | None,
        env: dict[str, set[str]],
        node: ast.AST | None,
    ) -> set[str]:
        """What ``node``'s value may be made of: TRANSLATED, or ``param:<name>``."""
        if node is None:
            return set()
        scope = function.qualname if function else ""
        if isinstance(node, ast.Name):
            return set(env.get(node.id, ()))
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in TRANSLATING:
                return set() if _is_name_lookup(node) else {TRANSLATED}
            if isinstance(func, ast.Name) and func.id in NAMES:
                return set()
            if isinstance(func, ast.Attribute) and func.attr in NAMES:
                return set()
            if isinstance(func, ast.Attribute) and func.attr in STRING_METHODS:
                found = self.labels(module, function, env, func.value)
                for argument in [*node.args, *(k.value for k in node.keywords)]:
                    found |= self.labels(module, function, env, argument)
                return found
            if isinstance(func, ast.Name) and func.id in PASS_THROUGH:
                found = set()
                for argument in node.args:
                    found |= self.labels(module, function, env, argument)
                return found
            found = set()
            for callee in self.callees(module, scope, node):
                found |= {TRANSLATED} & callee.returns
                for parameter in callee.returns - {TRANSLATED}:
                    argument = _argument_for(callee, node, parameter.removeprefix("param:"))
                    found |= self.labels(module, function, env, argument)
            return found
        if isinstance(node, ast.IfExp):
            return self.labels(module, function, env, node.body) | self.labels(
                module, function, env, node.orelse
            )
        if isinstance(node, ast.BoolOp):
            return set().union(*(self.labels(module, function, env, v) for v in node.values))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mod):
            return self.labels(module, function, env, node.left) | self.labels(
                module, function, env, node.right
            )
        if isinstance(node, ast.JoinedStr):
            found = set()
            for index, value in enumerate(node.values):
                if isinstance(value, ast.FormattedValue) and not _quoted(node.values, index):
                    found |= self.labels(module, function, env, value.value)
            return found
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            return set().union(set(), *(self.labels(module, function, env, e) for e in node.elts))
        if isinstance(node, ast.ListComp | ast.GeneratorExp | ast.SetComp):
            inner = dict(env)
            for generator in node.generators:
                self._bind(
                    generator.target, self.labels(module, function, inner, generator.iter), inner
                )
            return self.labels(module, function, inner, node.elt)
        if isinstance(node, ast.Subscript):
            return self.labels(module, function, env, node.value)
        if isinstance(node, ast.Starred | ast.Await):
            return self.labels(module, function, env, node.value)
        if isinstance(node, ast.Attribute):
            return {TRANSLATED} if node.attr in self.fields else set()
        return set()

    def _bind(self, target: ast.AST, found: set[str], env: dict[str, set[str]]) -> bool:
        changed = False
        for name in ast.walk(target):
            if isinstance(name, ast.Name):
                before = env.setdefault(name.id, set())
                if not found <= before:
                    before |= found
                    changed = True
        return changed

    # -- one function ----------------------------------------------------------------------

    def environment(
        self, module: Module, function: Function | None, body: list[ast.stmt]
    ) -> dict[str, set[str]]:
        """Each local's labels, flow-insensitively, to a fixpoint."""
        env: dict[str, set[str]] = {}
        if function is not None:
            for parameter in function.params:
                env[parameter] = {f"param:{parameter}"}
        nodes = [n for statement in body for n in _own_nodes(statement)]
        changed = True
        while changed:
            changed = False
            for node in nodes:
                if isinstance(node, ast.Assign):
                    found = self.labels(module, function, env, node.value)
                    for target in node.targets:
                        changed |= self._bind(target, found, env)
                elif isinstance(node, ast.AnnAssign | ast.AugAssign) and node.value is not None:
                    found = self.labels(module, function, env, node.value)
                    changed |= self._bind(node.target, found, env)
                elif isinstance(node, ast.For | ast.comprehension):
                    found = self.labels(module, function, env, node.iter)
                    changed |= self._bind(node.target, found, env)
                elif isinstance(node, ast.NamedExpr):
                    changed |= self._bind(
                        node.target, self.labels(module, function, env, node.value), env
                    )
                elif (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr in {"append", "extend", "insert", "add"}
                    and isinstance(node.func.value, ast.Name)
                ):
                    found = set()
                    for argument in node.args:
                        found |= self.labels(module, function, env, argument)
                    changed |= self._bind(node.func.value, found, env)
        return env

    def summarize(self) -> None:
        """Each function's returns and slotted parameters, and the classes' translated
        fields, to a fixpoint over the whole project."""
        changed = True
        while changed:
            changed = False
            for function in self.functions.values():
                module = self.modules[function.module]
                env = self.environment(module, function, function.node.body)
                returns: set[str] = set()
                for node in _own_nodes_of(function.node):
                    if isinstance(node, ast.Return | ast.Yield) and node.value is not None:
                        returns |= self.labels(module, function, env, node.value)
                if function.node.name in NAMES:
                    returns.discard(TRANSLATED)
                if not returns <= function.returns:
                    function.returns |= returns
                    changed = True
            for module in self.modules.values():
                for scope, env, node in self._calls(module):
                    changed |= self._note_fields(module, scope, env, node)

    def _note_fields(
        self, module: Module, scope: Function | None, env: dict[str, set[str]], node: ast.Call
    ) -> bool:
        """A project class built with a translated keyword: that field holds translated text."""
        func = node.func
        name = func.id if isinstance(func, ast.Name) else None
        if name is None or not name[:1].isupper():
            return False
        changed = False
        for keyword in node.keywords:
            if (
                keyword.arg
                and keyword.arg not in self.fields
                and TRANSLATED in self.labels(module, scope, env, keyword.value)
                and self._is_project_class(module, name)
            ):
                self.fields.add(keyword.arg)
                changed = True
        return changed

    def _is_project_class(self, module: Module, name: str) -> bool:
        if name in module.imported:
            source, _ = module.imported[name]
            return source.split(".")[0] in {"bot", "cogs", "game_core"}
        return any(isinstance(n, ast.ClassDef) and n.name == name for n in module.tree.body)

    def _calls(
        self, module: Module
    ) -> Iterator[tuple[Function | None, dict[str, set[str]], ast.Call]]:
        for function in self.functions.values():
            if function.module != module.name:
                continue
            env = self.environment(module, function, function.node.body)
            for node in _own_nodes_of(function.node):
                if isinstance(node, ast.Call):
                    yield function, env, node
        top = [
            s
            for s in module.tree.body
            if not isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        ]
        env = self.environment(module, None, top)
        for statement in top:
            for node in _own_nodes(statement):
                if isinstance(node, ast.Call):
                    yield None, env, node

    # -- the cases -------------------------------------------------------------------------

    def find(self) -> list[Case]:
        self.summarize()
        # Parameters slotted into a sentence, to a fixpoint (a parameter passed on to
        # another function that slots it is slotted too).
        changed = True
        while changed:
            changed = False
            for module in self.modules.values():
                for scope, env, node in self._calls(module):
                    if scope is None:
                        continue
                    for parameter, where in self._slotted_here(module, scope, env, node):
                        if parameter not in scope.slotted:
                            scope.slotted[parameter] = where
                            changed = True
        cases: list[Case] = []
        for module in self.modules.values():
            for scope, env, node in self._calls(module):
                cases.extend(self._cases_here(module, scope, env, node))
        unique = {(c.path, c.line, c.placeholder): c for c in cases}
        return sorted(unique.values(), key=lambda c: (c.path, c.line, c.placeholder))

    def _fillings(self, node: ast.Call) -> Iterator[tuple[str, ast.AST]]:
        for index, argument in enumerate(node.args):
            yield str(index), argument
        for keyword in node.keywords:
            if keyword.arg is None and isinstance(keyword.value, ast.Dict):
                for key, value in zip(keyword.value.keys, keyword.value.values, strict=True):
                    label = key.value if isinstance(key, ast.Constant) else "**"
                    yield str(label), value
            else:
                yield keyword.arg or "**", keyword.value

    def _is_sentence(
        self, module: Module, scope: Function | None, env: dict[str, set[str]], node: ast.Call
    ) -> bool:
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr == "format"):
            return False
        receiver = func.value
        if TRANSLATED not in self.labels(module, scope, env, receiver):
            return False
        literal = _literal_template(receiver)
        return literal is None or _letters_outside_placeholders(literal)

    def _slotted_here(
        self, module: Module, scope: Function, env: dict[str, set[str]], node: ast.Call
    ) -> Iterator[tuple[str, tuple[int, str]]]:
        if self._is_sentence(module, scope, env, node):
            for placeholder, value in self._fillings(node):
                for label in self.labels(module, scope, env, value):
                    if label.startswith("param:"):
                        yield label.removeprefix("param:"), (node.lineno, placeholder)
        for callee in self.callees(module, scope.qualname, node):
            for parameter, where in callee.slotted.items():
                argument = _argument_for(callee, node, parameter)
                for label in self.labels(module, scope, env, argument):
                    if label.startswith("param:"):
                        yield label.removeprefix("param:"), where

    def _cases_here(
        self, module: Module, scope: Function | None, env: dict[str, set[str]], node: ast.Call
    ) -> Iterator[Case]:
        if self._is_sentence(module, scope, env, node):
            for placeholder, value in self._fillings(node):
                if TRANSLATED in self.labels(module, scope, env, value):
                    yield Case(module.path, node.lineno, placeholder, ast.unparse(value))
        for callee in self.callees(module, scope.qualname if scope else "", node):
            for parameter, (line, placeholder) in callee.slotted.items():
                argument = _argument_for(callee, node, parameter)
                if argument is not None and TRANSLATED in self.labels(module, scope, env, argument):
                    yield Case(
                        module.path,
                        node.lineno,
                        placeholder,
                        ast.unparse(argument),
                        via=f"{callee.qualname}'s {parameter}, slotted at {callee.path}:{line}",
                    )


def _literal_template(node: ast.AST) -> str | None:
    """The English of a sentence written right there (``_("...")``), else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        arguments = node.args
        if node.func.id == "pgettext":
            arguments = arguments[1:]
        if node.func.id in TRANSLATING and arguments and isinstance(arguments[0], ast.Constant):
            value = arguments[0].value
            return value if isinstance(value, str) else None
    return None


def _is_name_lookup(call: ast.Call) -> bool:
    """``_(DIE_NAMES[key])`` or ``pgettext("command name", name)``: a name, translated."""
    func = call.func
    assert isinstance(func, ast.Name)
    if func.id == "pgettext" and call.args:
        context = call.args[0]
        if isinstance(context, ast.Constant) and context.value in NAME_CONTEXTS:
            return True
        return isinstance(context, ast.Name) and context.id in NAME_CONTEXTS
    if func.id == "_" and call.args and isinstance(call.args[0], ast.Subscript):
        table = call.args[0].value
        return isinstance(table, ast.Name) and table.id in NAME_TABLES
    if func.id == "_" and call.args and isinstance(call.args[0], ast.Name):
        return call.args[0].id in NAME_CONSTANTS
    if func.id == "_" and call.args and isinstance(call.args[0], ast.Attribute):
        return call.args[0].attr in NAME_ATTRIBUTES
    return False


def _quoted(values: list[ast.expr], index: int) -> bool:
    """An f-string's part written between backticks (`{label}`): a control or a command
    quoted by its name, as the player sees it written on the screen."""
    before = values[index - 1] if index > 0 else None
    after = values[index + 1] if index + 1 < len(values) else None
    return (
        isinstance(before, ast.Constant)
        and str(before.value).endswith("`")
        and isinstance(after, ast.Constant)
        and str(after.value).startswith("`")
    )


def _argument_for(callee: Function, call: ast.Call, parameter: str) -> ast.AST | None:
    for keyword in call.keywords:
        if keyword.arg == parameter:
            return keyword.value
    params = callee.params
    # A method called on an object: the call's first argument is the second parameter.
    offset = 1 if params[:1] in (["self"], ["cls"]) else 0
    if parameter in params:
        index = params.index(parameter) - offset
        if 0 <= index < len(call.args) and not any(
            isinstance(a, ast.Starred) for a in call.args[: index + 1]
        ):
            return call.args[index]
    return None


def _own_nodes(statement: ast.AST) -> Iterator[ast.AST]:
    """Every node of ``statement`` that is not inside a nested function or class."""
    stack = [statement]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(
                child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda
            ):
                stack.append(child)


def _own_nodes_of(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.AST]:
    for statement in function.body:
        yield from _own_nodes(statement)


def player_facing_sources() -> Iterator[tuple[str, str]]:
    """(relative path, text) of every source file whose texts players read (the files
    ``tools.i18n`` gives a catalog area)."""
    for relative, path in source_files():
        if area_of(relative) is not None:
            yield relative, path.read_text(encoding="utf-8")


def find_cases(sources: Iterable[tuple[str, str]] | None = None) -> list[Case]:
    """Every translated text filling a placeholder of a translated sentence."""
    return Analysis(player_facing_sources() if sources is None else sources).find()


def main(argv: list[str] | None = None) -> int:
    cases = find_cases()
    for case in cases:
        print(case)
    print(f"{len(cases)} case(s)", file=sys.stderr)
    return 1 if cases else 0


if __name__ == "__main__":
    raise SystemExit(main())
