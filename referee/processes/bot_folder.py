"""The folder a bot's files are in, read from its command line: what its sandbox shows it.

A sandboxed bot sees its own folder and nothing else of the working folder, so a wrong
guess shows it other people's files (`java -cp students/carol Main` read as the folder of
`-cp`'s argument showed all of students/). So the command is read the way its interpreter
reads it: Python's, Java's and Node's options are known, with the ones that take a value.
Where that cannot settle the folder (an option we do not know, which may or may not take
a value; class path entries in several folders; an argument file), the command is refused
with FolderUnknown, and the organiser declares the folder (`--bot-dir`, or `dir =` in a
tournament file). Never a guess.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path


class FolderUnknown(Exception):
    """The command line does not settle the bot's folder; the message says why."""


# Commands whose arguments, not the program itself, name the bot's files.
PYTHON = re.compile(r"(python|pypy)[0-9.]*")
JAVA = re.compile(r"java")
NODE = re.compile(r"node(js)?")
OTHER = re.compile(r"ruby|perl|php|bash|sh|dash|zsh|lua|julia|Rscript|dotnet")


def is_interpreter(program: str) -> bool:
    name = Path(program).name
    return any(p.fullmatch(name) for p in (PYTHON, JAVA, NODE, OTHER))


def derived_folder(argv: Sequence[str], cwd: Path) -> Path | None:
    """The one folder the command's own files are in (resolved against `cwd`), or None
    where it has none (inline code, a program found on PATH); FolderUnknown where the
    command line does not tell."""
    if any("\0" in arg for arg in argv):  # no path holds one (nor can a real argv)
        raise FolderUnknown("it holds a NUL character")
    program, args = argv[0], list(argv[1:])
    name = Path(program).name
    if PYTHON.fullmatch(name):
        wanted = list(_python(args))
    elif JAVA.fullmatch(name):
        wanted = list(_java(args))
    elif NODE.fullmatch(name):
        wanted = list(_node(args))
    elif OTHER.fullmatch(name):
        wanted = list(_other(name, args))
    else:
        wanted = [str(Path(program).parent)] if os.sep in program else []
    folders = sorted({(cwd / folder).resolve() for folder in wanted})
    if len(folders) > 1:
        raise FolderUnknown("its files are in several folders ("
                            + ", ".join(str(f) for f in folders) + ")")
    return folders[0] if folders else None


def _script_folder(path: str) -> str:
    """A script's folder; a folder itself for a folder run as a script (`python pkg/`
    runs pkg/__main__.py, `node pkg` its index.js)."""
    return path if os.path.isdir(path) else os.path.dirname(path) or "."


# Python's options (python3 --help): flags, and those that take a value.
_PY_FLAGS = frozenset("bBdEhiIOPqRsSuvVx?")
_PY_VALUED = frozenset("WX")
_PY_LONG_FLAGS = frozenset({"--help", "--help-env", "--help-xoptions", "--help-all",
                            "--version"})
_PY_LONG_VALUED = frozenset({"--check-hash-based-pycs"})


def _python(args: list[str]) -> Iterator[str]:
    """`python [options] (SCRIPT | -m MODULE | -c CODE | -) ...`; options may be
    clustered (`-uB`), a value attached (`-Wignore`) or next (`-W ignore`)."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            if i + 1 < len(args):
                yield _script_folder(args[i + 1])
            return
        if arg == "-" or not arg.startswith("-"):
            if arg != "-":  # `-` reads the program from stdin: no file of its own
                yield _script_folder(arg)
            return
        if arg.startswith("--"):
            key = arg.split("=", 1)[0]
            if key in _PY_LONG_VALUED and "=" not in arg:
                i += 1
            elif key not in _PY_LONG_FLAGS | _PY_LONG_VALUED:
                raise FolderUnknown(f"python's option {arg!r} is not one we know")
            i += 1
            continue
        for at, letter in enumerate(arg[1:], start=1):
            if letter == "c":
                return  # inline code: nothing of its own
            if letter == "m":
                yield "."  # a module is found from the working folder (sys.path[0])
                return
            if letter in _PY_VALUED:
                i += 1 if at + 1 < len(arg) else 2  # -Wignore, or -W ignore
                break
            if letter not in _PY_FLAGS:
                raise FolderUnknown(f"python's option {arg!r} is not one we know")
        else:
            i += 1


# Java's launcher (java --help, java -X): options that take the next argument, and the
# prefixes of those that are one argument (-Dkey=value, -Xmx512m, -XX:..., -ea:pkg...).
_JAVA_CLASS_PATH = frozenset({"-cp", "-classpath", "--class-path"})
_JAVA_VALUED = frozenset({"--add-modules", "--add-opens", "--add-exports", "--add-reads",
                          "--enable-native-access", "--source", "--limit-modules"})
_JAVA_MODULES = frozenset({"-p", "--module-path", "--upgrade-module-path", "-m",
                           "--module"})
_JAVA_ONE_WORD = re.compile(
    r"-(D|X|XX:|agentlib:|agentpath:|verbose|ea|da|esa|dsa|enableassertions|"
    r"disableassertions|enablesystemassertions|disablesystemassertions).*"
    r"|-(server|client|version|showversion|d32|d64)|--(show-version|version|enable-preview"
    r"|disable-@files)|--[a-z-]+=.*")


def _java(args: list[str]) -> Iterator[str]:
    """`java [options] (MAINCLASS | SOURCE.java | -jar JAR) ...`: the class path's folder
    (default: the working folder), or the jar's, or the source file's."""
    class_path: str | None = None
    i = 0
    while i < len(args):
        arg, key = args[i], args[i].split("=", 1)[0]
        if arg == "-jar":
            if i + 1 < len(args):
                yield _file_folder(args[i + 1])
            return
        if key in _JAVA_CLASS_PATH:
            class_path = _value(args, i, "java")
            i += 1 if "=" in arg else 2
        elif key.startswith("-javaagent:"):
            yield _file_folder(arg.split(":", 1)[1].split("=", 1)[0])
            i += 1
        elif key in _JAVA_MODULES or arg.startswith("@"):
            raise FolderUnknown(f"java's {arg!r} (modules and argument files) is not "
                                "read here")
        elif key in _JAVA_VALUED:
            i += 1 if "=" in arg else 2
        elif _JAVA_ONE_WORD.fullmatch(arg):
            i += 1
        elif arg.startswith("-"):
            raise FolderUnknown(f"java's option {arg!r} is not one we know")
        else:
            if arg.endswith(".java"):  # source-file mode: the file is the program
                yield _file_folder(arg)
                if class_path is not None:
                    yield from _class_path_folders(class_path)
            else:  # a main class, on the class path (default: the working folder)
                yield from _class_path_folders(class_path if class_path is not None else ".")
            return


def _class_path_folders(class_path: str) -> Iterator[str]:
    """Each entry's folder: a folder entry itself, `DIR/*` DIR, a jar or zip its folder."""
    for entry in class_path.split(os.pathsep):
        entry = entry or "."
        if entry == "*" or entry.endswith(os.sep + "*"):
            yield entry[:-1] or "."
        elif entry.lower().endswith((".jar", ".zip")) or os.path.isfile(entry):
            yield _file_folder(entry)
        else:
            yield entry


def _file_folder(path: str) -> str:
    return os.path.dirname(path) or "."


# Node's options (node --help) that take the next argument when not given as --opt=value;
# those that load a file of the bot's: its folder must be shown too.
_NODE_LOADS = frozenset({"-r", "--require", "--import", "--loader", "--experimental-loader",
                         "--env-file"})
_NODE_INLINE = frozenset({"-e", "--eval", "-p", "--print"})
_NODE_VALUED = frozenset({"-C", "--conditions", "--title", "--input-type",
                          "--redirect-warnings", "--icu-data-dir", "--openssl-config",
                          "--disable-warning", "--unhandled-rejections",
                          "--dns-result-order", "--stack-trace-limit",
                          "--max-old-space-size", "--max-semi-space-size", "--stack-size",
                          "--diagnostic-dir", "--report-dir", "--cpu-prof-dir",
                          "--heap-prof-dir", "--heapsnapshot-signal", "--secure-heap",
                          "--secure-heap-min", "--watch-path", "--experimental-policy",
                          "--experimental-default-type"})
_NODE_FLAGS = re.compile(
    r"--(inspect|inspect-brk|inspect-wait|no-warnings|no-deprecation|trace-warnings|"
    r"trace-deprecation|throw-deprecation|pending-deprecation|trace-uncaught|"
    r"enable-source-maps|expose-gc|abort-on-uncaught-exception|preserve-symlinks|"
    r"preserve-symlinks-main|no-addons|frozen-intrinsics|jitless|interactive|check|"
    r"harmony[a-z-]*|no-[a-z-]+|experimental-[a-z-]+|use-strict|zero-fill-buffers)"
    r"|-[ic]")


def _node(args: list[str]) -> Iterator[str]:
    """`node [options] (SCRIPT | -e CODE | -) ...`: the script's folder, and that of each
    file a `--require ./x.js`-like option loads."""
    i = 0
    while i < len(args):
        arg = args[i]
        key = arg.split("=", 1)[0] if arg.startswith("--") else arg
        if arg == "--":
            if i + 1 < len(args):
                yield _script_folder(args[i + 1])
            return
        if arg == "-" or not arg.startswith("-"):
            if arg != "-":
                yield _script_folder(arg)
            return
        if key in _NODE_LOADS:
            value = _value(args, i, "node")
            if value.startswith(("./", "../", "/")) or key == "--env-file":
                yield _file_folder(value)
        elif key in _NODE_INLINE:
            _value(args, i, "node")
            return  # inline code; the arguments after it are its own
        elif key in _NODE_VALUED:
            _value(args, i, "node")
        elif not _NODE_FLAGS.fullmatch(key):
            raise FolderUnknown(f"node's option {arg!r} is not one we know")
        takes_next = key in _NODE_LOADS or key in _NODE_VALUED
        i += 2 if takes_next and "=" not in arg else 1


def _value(args: list[str], i: int, program: str) -> str:
    """The value of the option at args[i]: after its '=', or the next argument."""
    arg = args[i]
    if arg.startswith("--") and "=" in arg:
        return arg.split("=", 1)[1]
    if i + 1 >= len(args):
        raise FolderUnknown(f"{program}'s option {arg!r} lacks its value")
    return args[i + 1]


# The option that runs inline code, by interpreter: no file of the bot's then.
_INLINE = {"bash": "-c", "sh": "-c", "dash": "-c", "zsh": "-c", "php": "-r"}


def _other(name: str, args: list[str]) -> Iterator[str]:
    """Other interpreters: the first argument is the script, or the option for inline
    code (`sh -c CODE`, `ruby -e CODE`); any other option first is refused, since we
    cannot tell whether it takes a value."""
    if not args or args[0] == _INLINE.get(name, "-e"):
        return
    if args[0].startswith("-"):
        raise FolderUnknown(f"{name}'s options are not read here ({args[0]!r})")
    yield _script_folder(args[0])
