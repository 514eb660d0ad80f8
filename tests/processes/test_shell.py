"""The built-in shell: what `kubectl exec` and containers' commands run, with the exit codes and messages
of dash and GNU coreutils."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from fakeapi.processes.effects import Buffer, BufferedInput
from fakeapi.processes.files import ContainerFiles, Tree
from fakeapi.processes.runner import Runner
from fakeapi.processes.shell import Shell, Streams, System

NOW = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)


def files() -> ContainerFiles:
    root = Tree.of({"etc/hostname": (b"web\n", 0o644), "etc/app.conf": (b"mode=fast\nlevel=3\n", 0o644),
                    "tmp/keep": (b"", 0o644)}, 0.0, writable=True)
    return ContainerFiles(root, [])


def run(*argv: str, stdin: bytes = b"", env: dict[str, str] | None = None,
        fs: ContainerFiles | None = None) -> tuple[int, str, str]:
    """Run a command to its end (sleeps pass at once) and return (exit code, stdout, stderr)."""
    code, out, err = run_bytes(*argv, stdin=stdin, env=env, fs=fs)
    return code, out.decode(), err.decode()


def run_bytes(*argv: str, stdin: bytes = b"", env: dict[str, str] | None = None,
              fs: ContainerFiles | None = None) -> tuple[int, bytes, bytes]:
    system = System(fs or files(), "web", lambda: NOW)
    shell = Shell.start(system, {"PATH": "/bin", "HOME": "/root", **(env or {})})
    out, err = Buffer(), Buffer()
    codes: list[int] = []

    def later(seconds: float, step: Any) -> Any:
        step()
        return lambda: None

    Runner(shell.execute(list(argv), Streams(BufferedInput(Buffer(stdin)), out, err)), later, codes.append).start()
    assert codes, "the command did not finish"
    return codes[0], out.getvalue(), err.getvalue()


def sh(script: str, **options: Any) -> tuple[int, str, str]:
    return run("sh", "-c", script, **options)


@pytest.mark.parametrize(("script", "expected"), [
    ("echo hello world", "hello world\n"),
    ("echo -n no newline", "no newline"),
    ("echo 'single $HOME' \"double $HOME\"", "single $HOME double /root\n"),
    ("printf '%s=%d\\n' a 1 b 2", "a=1\nb=2\n"),
    ("x=1; y=$((x + 2 * 3)); echo $y", "7\n"),
    ("echo ${UNSET:-fallback} ${#HOME}", "fallback 5\n"),
    ("for i in 1 2 3; do echo n$i; done | wc -l", "3\n"),
    ("i=0; while [ $i -lt 3 ]; do i=$((i+1)); done; echo $i", "3\n"),
    ("if test -f /etc/hostname; then echo file; else echo none; fi", "file\n"),
    ("case web-1 in web-*) echo matched;; *) echo other;; esac", "matched\n"),
    ("echo $(echo nested $(hostname))", "nested web\n"),
    ("cat /etc/*.conf | grep level", "level=3\n"),
    ("true && echo yes || echo no; false && echo yes || echo no", "yes\nno\n"),
    ("set -- a 'b c'; for x in \"$@\"; do echo \"[$x]\"; done", "[a]\n[b c]\n"),
    ("echo one > /tmp/f; echo two >> /tmp/f; cat /tmp/f", "one\ntwo\n"),
    ("echo oops 2>/dev/null >&2; echo out", "out\n"),
    ("{ echo a; echo b; } | tail -n 1", "b\n"),
    ("(exit 3); echo $?", "3\n"),
    ("seq 3 | head -n 2", "1\n2\n"),
])
def test_scripts_print_what_sh_prints(script: str, expected: str) -> None:
    assert sh(script) == (0, expected, "")


def test_exit_codes_and_errors_are_the_shells() -> None:
    assert sh("exit 3") == (3, "", "")
    assert sh("false") == (1, "", "")
    assert sh("nosuch arg") == (127, "", "sh: nosuch: command not found\n")
    assert run("nosuch") == (127, "", "nosuch: command not found\n")
    assert sh("if then") == (2, "", 'sh: 1: Syntax error: "then" unexpected\n')
    assert sh("echo 'open") == (2, "", "sh: 1: Syntax error: Unterminated quoted string\n")
    assert sh("echo $((1/0)); echo after") == (2, "", "sh: 1: arithmetic expression: division by zero\n")
    assert sh("set -e; false; echo not reached") == (1, "", "")
    assert sh("set -e; if false; then :; fi; echo reached") == (0, "reached\n", "")


def test_files_are_read_listed_and_written() -> None:
    fs = files()
    assert run("cat", "/etc/hostname", fs=fs) == (0, "web\n", "")
    assert run("cat", "/nope", fs=fs) == (1, "", "cat: /nope: No such file or directory\n")
    assert run("ls", "/etc", fs=fs) == (0, "app.conf\nhostname\n", "")
    assert run("ls", "/nope", fs=fs) == (2, "", "ls: cannot access '/nope': No such file or directory\n")
    assert run("mkdir", "-p", "/data/a/b", fs=fs)[0] == 0
    assert sh("echo x > /data/a/b/c && ls -R /data", fs=fs) == (0, "/data:\na\n\n/data/a:\nb\n\n/data/a/b:\nc\n", "")
    assert run("rm", "/data/a", fs=fs) == (1, "", "rm: cannot remove '/data/a': Is a directory\n")
    assert run("rm", "-r", "/data", fs=fs)[0] == 0 and not fs.exists("/data")
    assert run("test", "-d", "/tmp", fs=fs)[0] == 0 and run("test", "-d", "/tmp/keep", fs=fs)[0] == 1


def test_stdin_is_read_by_cat_read_and_an_interactive_sh() -> None:
    assert run("cat", stdin=b"piped\n") == (0, "piped\n", "")
    assert sh("read a b; echo \"[$b][$a]\"", stdin=b"one two three\nrest\n") == (0, "[two three][one]\n", "")
    assert run("sh", stdin=b"echo from stdin\nx=5\necho $((x * 2))\nexit 4\necho never\n") == (
        4, "from stdin\n10\n", "")


def test_env_date_and_the_rest_of_the_programs() -> None:
    assert run("env", env={"MODE": "fast"}) == (0, "PATH=/bin\nHOME=/root\nMODE=fast\n", "")
    assert run("printenv", "MODE", env={"MODE": "fast"}) == (0, "fast\n", "")
    assert run("env", "A=1", "sh", "-c", "echo $A") == (0, "1\n", "")
    assert run("date") == (0, "Wed Jan  2 03:04:05 UTC 2030\n", "")
    assert run("date", "+%s") == (0, f"{int(NOW.timestamp())}\n", "")
    assert run("hostname") == (0, "web\n", "")
    assert run("id") == (0, "uid=0(root) gid=0(root) groups=0(root)\n", "")
    assert run("sleep", "2") == (0, "", "")
    assert run("sleep", "soon") == (1, "", "sleep: invalid time interval 'soon'\n")
    assert run("/bin/sh", "-c", "echo by path") == (0, "by path\n", "")


def test_sleep_waits_on_the_clock_it_is_given() -> None:
    waited: list[float] = []
    system = System(files(), "web", lambda: NOW)
    out = Buffer()
    codes: list[int] = []

    def later(seconds: float, step: Any) -> Any:
        waited.append(seconds)
        step()
        return lambda: None

    program = Shell.start(system, {}).execute(["sh", "-c", "sleep 1m; sleep 0.5; echo done"],
                                              Streams(BufferedInput(Buffer()), out, Buffer()))
    Runner(program, later, codes.append).start()
    assert (waited, codes, out.getvalue()) == ([60.0, 0.5], [0], b"done\n")
