"""A bot's folder, read from its command line as its interpreter reads it, or refused.

The folder is what a sandboxed bot is shown of the working folder: a wrong one shows it
other students' files (issue 26: `java -cp students/carol Main` showed all of students/,
`python -W ignore students/alice/bot.py` the whole working folder).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.errors import BotStartError
from referee.processes.bot_command import BotCommand, bot_folder, parse_bot_command

CWD = Path("/w")


def folder(*argv: str) -> Path | None:
    return bot_folder(BotCommand(" ".join(argv), argv, stdio=False), CWD)


@pytest.mark.parametrize(("argv", "expected"), [
    # Python: options with a value, given apart or attached, and clustered flags.
    (("python", "-W", "ignore", "students/alice/bot.py"), "students/alice"),
    (("python", "-Wignore", "students/alice/bot.py"), "students/alice"),
    (("python3.12", "-X", "importtime", "-u", "a/b.py", "-x", "y"), "a"),
    (("python", "-uBW", "ignore", "a/b.py"), "a"),
    (("python", "-O", "-OO", "-I", "-B", "-E", "-s", "-S", "-q", "-b", "-bb", "-d", "-v",
      "-x", "a/b.py"), "a"),
    (("python", "--check-hash-based-pycs", "never", "a/b.py"), "a"),
    (("python", "--check-hash-based-pycs=never", "a/b.py"), "a"),
    (("python", "--", "a/b.py"), "a"),
    (("python", "bot.py"), "."),
    (("python", "-m", "bots.rage_random"), "."),
    (("python", "-um", "bots.rage_random"), "."),
    (("/usr/bin/pypy3", "x/y/z.py"), "x/y"),
    # Java: the class path's folder (default: the working folder), the jar's, the source's.
    (("java", "-cp", "students/carol", "Main"), "students/carol"),
    (("java", "-classpath", "students/carol", "pkg.Main"), "students/carol"),
    (("java", "--class-path", "students/carol", "Main"), "students/carol"),
    (("java", "--class-path=students/carol", "Main"), "students/carol"),
    (("java", "-Xmx512m", "-XX:MaxMetaspaceSize=128m", "-Dk=v", "-ea", "-cp", "c/bot.jar",
      "Main"), "c"),
    (("java", "-cp", "c/lib/*", "Main"), "c/lib"),
    (("java", "-cp", "c/a.jar:c/b.jar", "Main"), "c"),
    (("java", "-jar", "build/bot.jar", "--fast"), "build"),
    (("java", "-Xss4m", "-jar", "bot.jar"), "."),
    (("java", "Main"), "."),
    (("java", "--source", "21", "s/Bot.java"), "s"),
    (("java", "-cp", "s", "s/Bot.java"), "s"),
    # Node: the script's folder, and that of a file a --require-like option loads.
    (("node", "a/b.js"), "a"),
    (("node", "--max-old-space-size=256", "--no-warnings", "a/b.js"), "a"),
    (("node", "--max-old-space-size", "256", "a/b.js"), "a"),
    (("node", "-r", "./a/setup.js", "a/b.js"), "a"),
    (("node", "--require", "ts-node/register", "a/b.ts"), "a"),
    (("node", "--import=./a/x.mjs", "a/b.mjs"), "a"),
    (("node", "--experimental-vm-modules", "--inspect=9229", "a/b.js"), "a"),
    # Other interpreters: their first argument.
    (("ruby", "r/bot.rb"), "r"),
    (("bash", "s/run.sh", "-x"), "s"),
    # The program itself.
    (("./students/alice/bot", "--fast"), "students/alice"),
])
def test_the_folder_is_the_one_the_interpreter_reads(argv: tuple[str, ...],
                                                    expected: str) -> None:
    assert folder(*argv) == (CWD / expected).resolve()


@pytest.mark.parametrize("argv", [
    ("python", "-c", "print(1)", "a/b.py"),
    ("python", "-uc", "print(1)"),
    ("python", "-"),
    ("python",),
    ("java", "-version"),
    ("node", "-e", "1", "a/b.js"),
    ("sh", "-c", "exec python a/b.py"),
    ("ruby", "-e", "puts 1"),
    ("mybot", "--fast"),
])
def test_inline_code_and_a_program_on_path_have_no_folder(argv: tuple[str, ...]) -> None:
    assert folder(*argv) is None


@pytest.mark.parametrize(("argv", "why"), [
    (("python", "--frobnicate", "a/b.py"), "not one we know"),
    (("python", "-Z", "a/b.py"), "not one we know"),
    (("java", "-cp", "students/carol:students/dave", "Main"), "several folders"),
    (("java", "-cp", ".:c/bot.jar", "Main"), "several folders"),
    (("java", "-cp", "a", "b/Bot.java"), "several folders"),
    (("java", "--frobnicate", "x", "Main"), "not one we know"),
    (("java", "-p", "mods", "-m", "bot/Main"), "modules"),
    (("java", "@args.txt"), "argument files"),
    (("java", "-cp"), "lacks its value"),
    (("node", "--frobnicate", "x", "a/b.js"), "not one we know"),
    (("node", "-r", "./x/setup.js", "a/b.js"), "several folders"),
    (("node", "--require"), "lacks its value"),
    (("bash", "-e", "s/run.sh"), "options are not read here"),
    (("perl", "-w", "p/bot.pl"), "options are not read here"),
])
def test_an_ambiguous_command_is_refused_naming_how_to_declare(argv: tuple[str, ...],
                                                               why: str) -> None:
    with pytest.raises(BotStartError, match=why) as caught:
        folder(*argv)
    message = str(caught.value)
    assert "--bot-dir NAME=DIR" in message and 'dir = "DIR"' in message
    assert "\n" not in message


def test_a_declared_folder_wins_over_the_command_line(tmp_path: Path) -> None:
    cmd = parse_bot_command("stdio:java -cp a:b Main", folder=tmp_path)
    assert cmd.stdio and bot_folder(cmd, CWD) == tmp_path.resolve()


def test_parse_refuses_an_ambiguous_command_before_any_game() -> None:
    with pytest.raises(BotStartError, match="--bot-dir"):
        parse_bot_command("stdio:java -cp a:b Main")


def test_a_nul_in_a_command_is_refused() -> None:
    with pytest.raises(BotStartError, match="NUL"):
        parse_bot_command("python a\0b.py")


def test_a_declared_folder_must_be_a_folder(tmp_path: Path) -> None:
    with pytest.raises(BotStartError, match="is not a folder"):
        parse_bot_command("java Main", folder=tmp_path / "nothing")


_PROGRAMS = st.sampled_from(["python", "python3.11", "pypy", "java", "node", "ruby", "sh",
                             "bash", "php", "./bot", "/x/y/bot", "mybot"])
_WORDS = st.one_of(
    st.sampled_from(["-W", "-X", "-c", "-m", "-u", "-uW", "-cp", "-jar", "--", "-", "-r",
                     "--require", "--import=./x/y.js", "-e", "--class-path=a:b", "-p",
                     "a/b.py", "Main", "x.jar", "lib/*", "a:b", "=", "@f", "-Dk=v",
                     "--inspect", "-Xmx1g", ".", "..", "/", "", "a\0b",
                     "/" * 300 + "a" * 300]),
    st.text(max_size=12))


@settings(max_examples=400, deadline=None)
@given(_PROGRAMS, st.lists(_WORDS, max_size=8))
def test_any_argv_gives_a_folder_or_one_bot_start_error(program: str,
                                                         args: list[str]) -> None:
    try:
        found = folder(program, *args)
    except BotStartError as error:
        assert "\n" not in str(error) and "--bot-dir" in str(error)
    else:
        assert found is None or found.is_absolute()
