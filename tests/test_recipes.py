"""What a task runner runs (aidlc/bolt/recipes.py): the command lines of the targets a command names, as make, just
and task would run them, read from the recipe file alone; hostile recipe files are read in bounded time and space."""

from __future__ import annotations

import tracemalloc

from aidlc.bolt import recipes


def test_a_makefiles_variables_are_expanded_as_make_reads_them() -> None:
    makefile = (b"TOOL = mypy\nCHECK ?= $(TOOL)\nCHECK ?= pyright  # set already: kept\nCHECK += --strict\n"
                b"override OUT := build\n\nall: lint\n\t$(MAKE) docs\n\nlint:\n\t@$(CHECK) src $(UNSET)\n")
    # what a target and its prerequisites run, whichever make runs first
    assert sorted(recipes.commands("make", makefile, ("all",))) == ["$(MAKE) docs", "mypy --strict src $(UNSET)"]
    assert recipes.commands("make", makefile, ("lint",), ("CHECK=ruff check",)) == ["ruff check src $(UNSET)"]
    assert sorted(recipes.commands("make", makefile, ())) == ["$(MAKE) docs", "mypy --strict src $(UNSET)"]  # 1st rule


def test_a_makefile_whose_variables_double_at_each_use_is_read_in_bounded_space() -> None:
    """V1 uses V0 a hundred times, V2 uses V1 a hundred times, ...: expanded whole, `$(V9)` would be 10**18
    characters. The line stops growing past its bound and the tool before it is still found."""
    makefile = b"V0 = x\n" + b"".join(b"V%d = " % n + b"$(V%d)" % (n - 1) * 100 + b"\n" for n in range(1, 10))
    makefile += b"lint:\n\truff check $(V9)\n"
    tracemalloc.start()
    [line] = recipes.commands("make", makefile, ("lint",))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert line.startswith("ruff check ") and len(line) <= 100_000 and peak < 50_000_000


def test_a_taskfiles_tasks_are_followed_through_their_deps_and_calls() -> None:
    taskfile = (b"version: '3'\ntasks:\n  default: [go test ./...]\n  lint:\n    deps: [vet]\n    cmds:\n"
                b"      - task: fmt\n      - golangci-lint run\n  vet: go vet ./...\n  fmt:\n    cmd: gofmt -l .\n"
                b"  again:\n    deps: [again]\n")
    assert sorted(recipes.commands("task", taskfile, ("lint",))) == ["go vet ./...", "gofmt -l .", "golangci-lint run"]
    assert recipes.commands("task", taskfile, ()) == ["go test ./..."]
    assert recipes.commands("task", taskfile, ("again",)) == []  # a task that depends on itself: read once
    assert recipes.commands("task", b"a: *unknown\n", ("lint",)) == []  # not YAML aidlc reads: nothing followed


def test_hostile_makefiles_are_read_in_space_their_size_bounds() -> None:
    """A rule naming 20,000 targets and prerequisites, with 20,000 recipe lines (each line was kept once per target,
    and each prerequisite list added once per target reached: 4 * 10**8 entries); 200,000 lines each using a
    100,000-character variable (each line under the bound, together 2 * 10**10 characters); a variable appended to
    7,000 times (read in one join, not copied whole at each append)."""
    names = " ".join(f"t{n}" for n in range(20_000)).encode()
    crowd = names + b": " + names + b"\n" + b"\techo line\n" * 20_000
    wide = b"A = " + b"x" * 99_000 + b"\nlint:\n" + b"\t$(A)\n" * 200_000
    appended = b"LINT = ruff\n" + b"LINT += --select F\n" * 7_000 + b"lint:\n\t$(LINT)\n"
    tracemalloc.start()
    assert len(recipes.commands("make", crowd, ("t0",))) == 20_000
    lines = recipes.commands("make", wide, ("lint",))
    assert len(lines) == 200_000 and sum(map(len, lines)) < 2_000_000 and lines[-1] == "$(A)"
    [line] = recipes.commands("make", appended, ("lint",))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert line.startswith("ruff --select F --select F") and line.count("--select") == 7_000
    assert peak < 200_000_000
