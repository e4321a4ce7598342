"""What a task runner runs (aidlc/bolt/recipes.py): the command lines of the targets a command names, as make, just
and task would run them, read from the recipe file alone; hostile recipe files are read in bounded time and space."""

from __future__ import annotations

import json
import tracemalloc

from aidlc.bolt import check_runs, recipes


def read(runner: str, data: bytes, files: dict[str, bytes] | None = None) -> recipes.Recipes:
    """The recipes of a recipe file at the project's top, with the `files` it may include."""
    return recipes.read_recipes(runner, recipes.RUNNERS[runner][0], data, (files or {}).get)


def test_a_makefiles_variables_are_expanded_as_make_reads_them() -> None:
    makefile = (b"TOOL = mypy\nCHECK ?= $(TOOL)\nCHECK ?= pyright  # set already: kept\nCHECK += --strict\n"
                b"override OUT := build\n\nall: lint\n\t$(MAKE) docs\n\nlint:\n\t@$(CHECK) src $(UNSET)\n")
    book = read("make", makefile)
    # what a target and its prerequisites run, whichever make runs first
    assert sorted(recipes.commands("make", book, ("all",))) == ["$(MAKE) docs", "mypy --strict src $(UNSET)"]
    assert recipes.commands("make", book, ("lint",), ("CHECK=ruff check",)) == ["ruff check src $(UNSET)"]
    assert sorted(recipes.commands("make", book, ())) == ["$(MAKE) docs", "mypy --strict src $(UNSET)"]  # 1st rule


def test_a_makefile_whose_variables_double_at_each_use_is_read_in_bounded_space() -> None:
    """V1 uses V0 a hundred times, V2 uses V1 a hundred times, ...: expanded whole, `$(V9)` would be 10**18
    characters. The line stops growing past its bound and the tool before it is still found."""
    makefile = b"V0 = x\n" + b"".join(b"V%d = " % n + b"$(V%d)" % (n - 1) * 100 + b"\n" for n in range(1, 10))
    makefile += b"lint:\n\truff check $(V9)\n"
    tracemalloc.start()
    [line] = recipes.commands("make", read("make", makefile), ("lint",))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert line.startswith("ruff check ") and len(line) <= 100_000 and peak < 50_000_000


def test_a_taskfiles_tasks_are_followed_through_their_deps_and_calls() -> None:
    taskfile = (b"version: '3'\ntasks:\n  default: [go test ./...]\n  lint:\n    deps: [vet]\n    cmds:\n"
                b"      - task: fmt\n      - golangci-lint run\n  vet: go vet ./...\n  fmt:\n    cmd: gofmt -l .\n"
                b"  again:\n    deps: [again]\n")
    book = read("task", taskfile)
    assert sorted(recipes.commands("task", book, ("lint",))) == ["go vet ./...", "gofmt -l .", "golangci-lint run"]
    assert recipes.commands("task", book, ()) == ["go test ./..."]
    assert recipes.commands("task", book, ("again",)) == []  # a task that depends on itself: read once
    # not YAML aidlc reads: nothing followed
    assert recipes.commands("task", read("task", b"a: *unknown\n"), ("lint",)) == []


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
    assert len(recipes.commands("make", read("make", crowd), ("t0",))) == 20_000
    lines = recipes.commands("make", read("make", wide), ("lint",))
    assert len(lines) == 200_000 and sum(map(len, lines)) < 2_000_000 and lines[-1] == "$(A)"
    [line] = recipes.commands("make", read("make", appended), ("lint",))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert line.startswith("ruff --select F --select F") and line.count("--select") == 7_000
    assert peak < 200_000_000


def test_a_makefile_reads_the_files_it_includes_in_their_place() -> None:
    """`include mk/lint.mk` reads that file where the line stands (its first rule may be make's first), found from
    where make runs; `-include`d files not there are kept as named (a bolt adding one changes what runs); wildcards
    are kept as patterns; names outside the project, cycles and a variable make cannot expand are not followed."""
    makefile = (b"MK = mk\ninclude $(MK)/lint.mk  # the linters\n-include local.mk\nsinclude $(wildcard mk/*.mk)\n"
                b"include /etc/passwd ../up.mk $(NOWHERE)/x.mk\n\ntest:\n\tpytest -q\n")
    files = {"mk/lint.mk": b"lint: types\n\truff check src\ninclude mk/types.mk\n",
             "mk/types.mk": b"types:\n\tmypy src\ninclude mk/lint.mk\ninclude Makefile\n"}
    book = read("make", makefile, files)
    assert book.included == ["mk/lint.mk", "mk/types.mk", "local.mk"] and book.patterns == ["mk/*.mk"]
    assert recipes.commands("make", book, ()) == ["ruff check src", "mypy src"]  # the included file's rule is first
    assert recipes.commands("make", book, ("test",)) == ["pytest -q"]
    web = recipes.read_recipes("make", "web/Makefile", b"include rules.mk\n", {"web/rules.mk": b"a:\n\techo\n"}.get,
                               "web")
    assert web.included == ["web/rules.mk"] and recipes.commands("make", web, ()) == ["echo"]
    assert recipes.matches("mk/lint.mk", "mk/*.mk") and not recipes.matches("mk/sub/lint.mk", "mk/*.mk")


def test_a_justfile_reads_its_imports_from_its_own_folder() -> None:
    justfile = b"import 'just/lint.just'\nimport? \"just/local.just\"\n\ntest:\n    pytest -q\n"
    book = recipes.read_recipes("just", "ci/justfile", justfile, {"ci/just/lint.just": b"lint:\n    ruff check\n"}.get)
    assert book.included == ["ci/just/lint.just", "ci/just/local.just"]
    assert recipes.commands("just", book, ("lint",)) == ["ruff check"]


def test_a_taskfile_reads_the_tasks_of_the_taskfiles_it_includes_by_their_namespace() -> None:
    """`includes: {go: ./go}` reads go/Taskfile.yml's tasks as `go:NAME`, their own calls in that namespace (a name
    starting with a colon is the root's); `flatten: true` keeps their names; a path holding a template is not
    followed."""
    taskfile = (b"version: '3'\nincludes:\n  go: ./go\n  docs:\n    taskfile: ./docs/Tasks.yml\n    flatten: true\n"
                b"  tmpl: ./{{.OS}}/Taskfile.yml\ntasks:\n  lint:\n    deps: [go:lint]\n  fmt: gofmt -l .\n")
    files = {"go/Taskfile.yml": b"version: '3'\ntasks:\n  lint:\n    deps: [vet]\n    cmds: [golangci-lint run, "
                                b"{task: ':fmt'}]\n  vet: go vet ./...\n",
             "docs/Tasks.yml": b"version: '3'\ntasks:\n  build: mkdocs build --strict\n"}
    book = read("task", taskfile, files)
    assert book.included[0] == "go/Taskfile.yml" and "docs/Tasks.yml" in book.included
    assert sorted(recipes.commands("task", book, ("lint",))) == ["go vet ./...", "gofmt -l .", "golangci-lint run"]
    assert recipes.commands("task", book, ("build",)) == ["mkdocs build --strict"]


def test_includes_are_followed_within_bounds() -> None:
    """A chain of includes 50 deep is followed ten deep; a file including a thousand others reads at most 200."""
    chain = {f"mk/{n}.mk": b"include mk/%d.mk\nt%d:\n\techo %d\n" % (n + 1, n, n) for n in range(50)}
    book = read("make", b"include mk/0.mk\n", chain)
    assert len(book.included) == 10 and recipes.commands("make", book, ("t9",)) == ["echo 9"]
    crowd = b"include " + b" ".join(b"f%d.mk" % n for n in range(1000)) + b"\n"
    asked: list[str] = []
    book = recipes.read_recipes("make", "Makefile", crowd, lambda path: asked.append(path) or b"x:\n\techo\n")
    assert len(book.included) == len(asked) == 200


def test_what_a_command_runs_is_followed_through_a_bounded_number_of_files() -> None:
    """A Makefile whose recipe runs 5,000 scripts, each read from history by two git processes: the walkthrough read
    every one (minutes). At most 100 tools are followed for all the checks together."""
    from aidlc.bolt import check_runs

    makefile = b"lint:\n" + b"".join(b"\t./ci/s%d.sh\n" % n for n in range(5_000))
    asked: list[str] = []

    def read(path: str) -> bytes | None:
        asked.append(path)
        return makefile if path == "Makefile" else b"ruff check\n"

    runs = check_runs.tools_of([{"name": "lint", "run": "make lint"}, {"name": "again", "run": "make lint"}], read)
    assert len(asked) <= 110 and any(tool.name == "ruff" for tool in runs)


def test_the_files_a_recipe_includes_are_read_to_a_bounded_size() -> None:
    """A Makefile including 200 files of 4 MB (the most history gives) spliced 800 MB; includes stop at 10 MB."""
    big = b"# " + b"x" * 4_000_000 + b"\n"
    makefile = b"include " + b" ".join(b"f%d.mk" % n for n in range(200)) + b"\nlint:\n\truff check\n"
    book = recipes.read_recipes("make", "Makefile", makefile, lambda path: big)
    assert len(book.text) < 15_000_000 and recipes.commands("make", book, ("lint",)) == ["ruff check"]


def test_a_workspace_is_looked_for_in_a_bounded_number_of_folders() -> None:
    """A root package.json listing 10,000 workspace folders: each tried was a read from history."""
    from aidlc.bolt import check_runs

    root = json.dumps({"workspaces": [f"group{n}/*" for n in range(10_000)]}).encode()
    asked: list[str] = []

    def read(path: str) -> bytes | None:
        asked.append(path)
        return root if path == "package.json" else None

    check_runs.tools_of([{"name": "lint", "run": "npm run lint -w web"}], read)
    assert len(asked) <= 60


def test_yaml_merge_keys_are_merged_as_task_and_pre_commit_merge_them() -> None:
    """A Taskfile's `lint: {<<: *go}` runs the commands of the task anchored `go`; aidlc's YAML keeps `<<` as a key.
    The mapping's own members win, then the first mapping merged; a merge of what is no mapping adds nothing."""
    data = (b"tasks:\n  go: &go {cmds: [golangci-lint run], deps: [fmt]}\n  vet: &vet {cmds: [go vet], desc: vet}\n"
            b"  lint:\n    <<: *go\n  both:\n    <<: [*vet, *go]\n    deps: [tidy]\n  odd:\n    <<: [1, *go]\n"
            b"  nested:\n    steps: [{<<: *vet}]\n")
    tasks = recipes.yaml_mapping(data)["tasks"]
    assert tasks["lint"] == {"cmds": ["golangci-lint run"], "deps": ["fmt"]}
    assert tasks["both"] == {"deps": ["tidy"], "cmds": ["go vet"], "desc": "vet"}
    assert tasks["odd"] == {"cmds": ["golangci-lint run"], "deps": ["fmt"]}
    assert tasks["nested"] == {"steps": [{"cmds": ["go vet"], "desc": "vet"}]}
    def deep(n: int) -> bytes:
        return b"a: " + b"{<<: " * n + b"{cmds: [x]}" + b"}" * n + b"\n"

    assert recipes.yaml_mapping(deep(50)) == {"a": {"cmds": ["x"]}}
    assert recipes.yaml_mapping(deep(5000)) == {}  # deeper than a reader follows: nothing, and no crash


def test_a_makefile_shell_call_is_read_as_the_command_it_runs() -> None:
    """`RUFF := $(shell which ruff)`, then `$(RUFF) check src`: the recipe ran `ruff)` as a word, no tool; a bolt's
    `[tool.ruff]` change passed unseen."""
    makefile = (b"RUFF := $(shell which ruff)\nGOLANGCI ?= ${shell go env GOPATH}/bin/golangci-lint\n"
                b"lint:\n\t$(RUFF) check src\n\t$(GOLANGCI) run\n\t@echo $(shell date) $(shell)\n")
    runs = check_runs.tools_of([{"name": "lint", "run": "make lint"}], {"Makefile": makefile}.get)
    assert [tool.name for tool in runs] == ["make", "ruff", "golangci-lint"]
