"""Edits that delete or weaken tests, found between two commits of a real git repository."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import pytest

from aidlc.bolt.check_runs import named_by_verify
from aidlc.bolt.tautology import is_tautology
from aidlc.bolt.weakening import is_test_file, weakened_tests
from aidlc.errors import UsageError
from aidlc.model.checks import TestCounts

SAMPLE_TEST = textwrap.dedent("""\
    from shop.cart import total


    def test_empty():
        assert total([]) == 0


    def test_two_items():
        items = [1, 2]
        assert total(items) == 3
        assert items == [1, 2]
""")


class Repo:
    """A git repository in a temporary folder; `commit` writes files (None deletes) and returns the sha."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True)
        self.git("init", "-q")

    def git(self, *args: str) -> str:
        return subprocess.run(["git", "-C", str(self.root), "-c", "user.name=Ada", "-c", "user.email=ada@x.org",
                               *args], check=True, capture_output=True, text=True).stdout.strip()

    def commit(self, files: dict[str, str | None]) -> str:
        for rel, text in files.items():
            path = self.root / rel
            if text is None:
                path.unlink()
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", "step")
        return self.git("rev-parse", "HEAD")

    def flags(self, base: str, head: str, before: TestCounts | None = None,
              after: TestCounts | None = None) -> list[str]:
        return weakened_tests(self.root, base, head, before, after)


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path / "repo")


@pytest.fixture
def sample(repo: Repo) -> tuple[Repo, str]:
    """A repository with code and a test file; the second item is the base commit."""
    base = repo.commit({"src/shop/cart.py": "def total(items):\n    return sum(items)\n",
                        "tests/test_cart.py": SAMPLE_TEST,
                        "aidlc.yaml": "version: 1\nverify:\n  - {name: tests, run: ./scripts/check.sh}\n"
                                      "policy:\n  max_repairs: 3\n",
                        "scripts/check.sh": "#!/bin/sh\npytest -q\n",
                        "README.md": "# shop\n"})
    return repo, base


def test_an_honest_edit_raises_no_flag(sample: tuple[Repo, str]) -> None:
    repo, base = sample
    head = repo.commit({"src/shop/cart.py": "def total(items):\n    return sum(items) if items else 0\n",
                        "tests/test_cart.py": SAMPLE_TEST + "\n\ndef test_one():\n    assert total([5]) == 5\n",
                        "README.md": "# shop\n\nExample: `it.skip(` is how jest skips; assert nothing.\n"})
    assert repo.flags(base, head) == []


def test_a_deleted_test_file_is_flagged(sample: tuple[Repo, str]) -> None:
    repo, base = sample
    head = repo.commit({"tests/test_cart.py": None})
    assert repo.flags(base, head) == ["tests/test_cart.py: test file deleted"]


def test_a_rename_out_of_the_collected_names_is_flagged_a_plain_rename_is_not(sample: tuple[Repo, str]) -> None:
    repo, base = sample
    repo.git("mv", "tests/test_cart.py", "tests/test_basket.py")
    moved = repo.commit({})
    assert repo.flags(base, moved) == []
    repo.git("mv", "tests/test_basket.py", "cart_checks.py")
    hidden = repo.commit({})
    assert repo.flags(moved, hidden) == ["tests/test_basket.py: test file renamed to cart_checks.py, a name test "
                                         "runners do not collect"]


def test_a_skip_marker_added_is_flagged_with_its_line(sample: tuple[Repo, str]) -> None:
    repo, base = sample
    text = SAMPLE_TEST.replace("def test_two_items", "@pytest.mark.skip(reason='flaky')\ndef test_two_items")
    head = repo.commit({"tests/test_cart.py": "import pytest\n" + text})
    assert repo.flags(base, head) == ["tests/test_cart.py:9: a test is skipped: `@pytest.mark.skip(reason='flaky')`"]


@pytest.mark.parametrize(("rel", "before", "after", "flag"), [
    ("tests/test_x.py", "def test_a():\n    assert f()\n", "def test_a():\n    pytest.xfail('later')\n    assert f()\n",
     "tests/test_x.py:2: a test is skipped: `pytest.xfail('later')`"),
    ("tests/test_x.py", "class T:\n    def test_a(self):\n        self.assertTrue(f())\n",
     "class T:\n    @unittest.skip('no')\n    def test_a(self):\n        self.assertTrue(f())\n",
     "tests/test_x.py:2: a test is skipped: `@unittest.skip('no')`"),
    ("web/cart.test.ts", "it('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\n",
     "it.skip('adds', () => {\n  expect(add(1, 2)).toBe(3);\n});\n",
     "web/cart.test.ts:1: a test is skipped: `it.skip('adds', () => {`"),
    ("web/cart.spec.js", "describe('cart', () => {\n  it('adds', () => {});\n});\n",
     "describe('cart', () => {\n  xit('adds', () => {});\n});\n", "web/cart.spec.js:2: a test is skipped: "
     "`xit('adds', () => {});`"),
    ("web/cart.spec.js", "describe('cart', () => {\n  it('adds', () => {});\n});\n",
     "describe.only('cart', () => {\n  it('adds', () => {});\n});\n",
     "web/cart.spec.js:1: a test is focused, so the others stop running: `describe.only('cart', () => {`"),
    ("src/test/java/CartTest.java", "class CartTest {\n  @Test\n  void adds() {}\n}\n",
     "class CartTest {\n  @Disabled\n  @Test\n  void adds() {}\n}\n",
     "src/test/java/CartTest.java:2: a test is disabled: `@Disabled`"),
    ("cart_test.go", "func TestAdd(t *testing.T) {\n\tif add(1, 2) != 3 {\n\t\tt.Fatal(\"no\")\n\t}\n}\n",
     "func TestAdd(t *testing.T) {\n\tt.Skip(\"later\")\n\tif add(1, 2) != 3 {\n\t\tt.Fatal(\"no\")\n\t}\n}\n",
     "cart_test.go:2: a test is skipped: `t.Skip(\"later\")`"),
    ("tests/cart.rs", "#[test]\nfn adds() {}\n", "#[test]\n#[ignore]\nfn adds() {}\n",
     "tests/cart.rs:2: a test is ignored: `#[ignore]`"),
    ("tests/conftest.py", "import pytest\n", "import pytest\ncollect_ignore = ['test_cart.py']\n",
     "tests/conftest.py:2: tests are excluded from the run: `collect_ignore = ['test_cart.py']`"),
    ("tests/test_x.py", "import pytest\n", "import pytest\n\npytestmark = pytest.mark.skip(reason='later')\n",
     "tests/test_x.py:3: a test is skipped: `pytestmark = pytest.mark.skip(reason='later')`"),
    ("tests/test_x.py", "class T:\n    pass\n", "class T:\n    __unittest_skip__ = True\n",
     "tests/test_x.py:2: a test is skipped: `__unittest_skip__ = True`"),
    ("web/cart.spec.js", "it('adds', function () {\n});\n", "it('adds', function () {\n  this.skip();\n});\n",
     "web/cart.spec.js:2: a test is skipped: `this.skip();`"),
    ("web/cart.test.ts", "test('adds', () => {});\n", "test.skipIf(true)('adds', () => {});\n",
     "web/cart.test.ts:1: a test is skipped: `test.skipIf(true)('adds', () => {});`"),
    ("tests/CartTest.php", "<?php\nfunction testAdds() {\n}\n", "<?php\nfunction testAdds() {\n"
     "    $this->markTestSkipped('later');\n}\n", "tests/CartTest.php:3: a test is skipped: "
     "`$this->markTestSkipped('later');`"),
    ("src/test/java/CartTest.java", "class CartTest {\n  @Test\n  void adds() {}\n}\n",
     "class CartTest {\n  @DisabledOnOs(OS.LINUX)\n  @Test\n  void adds() {}\n}\n",
     "src/test/java/CartTest.java:2: a test is disabled: `@DisabledOnOs(OS.LINUX)`"),
    ("pytest.ini", "[pytest]\naddopts = -q\n", "[pytest]\naddopts = -q -k 'not test_total'\n",
     "pytest.ini:2: tests are excluded from the run: `addopts = -q -k 'not test_total'`"),
    ("pom.xml", "<project>\n</project>\n", "<project>\n<excludes><exclude>**/PaymentTest.java</exclude></excludes>\n"
     "</project>\n", "pom.xml:2: tests are excluded from the run: `<excludes><exclude>**/PaymentTest.java</exclude>"
     "</excludes>`"),
    ("pom.xml", "<properties>\n</properties>\n", "<properties>\n<skipTests>true</skipTests>\n</properties>\n",
     "pom.xml:2: the tests are skipped: `<skipTests>true</skipTests>`"),
    ("build.gradle.kts", "tasks.test {\n}\n", "tasks.test {\n    ignoreFailures = true\n}\n",
     "build.gradle.kts:2: a failing test no longer fails the run: `ignoreFailures = true`"),
    ("build.gradle", "test {\n}\n", "test {\n    filter { excludeTestsMatching '*Payment*' }\n}\n",
     "build.gradle:2: tests are excluded from the run: `filter { excludeTestsMatching '*Payment*' }`"),
    ("pyproject.toml", "[tool.pytest.ini_options]\naddopts = \"-q\"\n",
     "[tool.pytest.ini_options]\naddopts = \"-q --deselect tests/test_cart.py::test_two_items\"\n",
     "pyproject.toml:2: tests are excluded from the run: `addopts = \"-q --deselect tests/test_cart.py::"
     "test_two_items\"`"),
])
def test_skips_focus_and_exclusions_in_many_languages(repo: Repo, rel: str, before: str, after: str,
                                                      flag: str) -> None:
    base = repo.commit({rel: before})
    head = repo.commit({rel: after})
    assert repo.flags(base, head) == [flag]


def test_a_skip_in_a_new_test_file_is_flagged(sample: tuple[Repo, str]) -> None:
    repo, base = sample
    head = repo.commit({"tests/test_new.py": "import pytest\n\n\n@pytest.mark.skip\ndef test_new():\n    pass\n"})
    assert repo.flags(base, head) == ["tests/test_new.py:4: a test is skipped: `@pytest.mark.skip`"]


def test_removed_and_commented_out_assertions_are_flagged_with_their_old_lines(sample: tuple[Repo, str]) -> None:
    repo, base = sample
    text = SAMPLE_TEST.replace("    assert total(items) == 3\n", "    # assert total(items) == 3\n") \
                      .replace("    assert items == [1, 2]\n", "")
    head = repo.commit({"tests/test_cart.py": text})
    short = base[:12]
    assert repo.flags(base, head) == [f"tests/test_cart.py: assertion removed (line 10 at {short}): "
                                      "`assert total(items) == 3`",
                                      f"tests/test_cart.py: assertion removed (line 11 at {short}): "
                                      "`assert items == [1, 2]`"]


def test_moved_reindented_or_rewritten_assertions_are_not_removals(sample: tuple[Repo, str]) -> None:
    repo, base = sample
    text = textwrap.dedent("""\
        from shop.cart import total


        class TestCart:
            def test_two_items(self):
                items = [1, 2]
                assert items == [1, 2]
                assert total(items) == 3, "the sum of the items"

            def test_empty(self):
                assert total([]) == 0
    """)
    head = repo.commit({"tests/test_cart.py": text})
    assert repo.flags(base, head) == []


def test_a_removed_test_function_is_flagged(sample: tuple[Repo, str]) -> None:
    repo, base = sample
    head = repo.commit({"tests/test_cart.py": SAMPLE_TEST.split("\n\ndef test_two_items")[0] + "\n"})
    short = base[:12]
    assert repo.flags(base, head) == [
        f"tests/test_cart.py: assertion removed (line 10 at {short}): `assert total(items) == 3`",
        f"tests/test_cart.py: assertion removed (line 11 at {short}): `assert items == [1, 2]`",
        f"tests/test_cart.py: test removed (line 8 at {short}): `def test_two_items():`"]


def test_many_removals_are_counted_beyond_the_first_ten(repo: Repo) -> None:
    base = repo.commit({"test_big.py": "def test_all():\n" + "".join(f"    assert f({n})\n" for n in range(25))})
    head = repo.commit({"test_big.py": "def test_all():\n    pass\n"})
    flags = repo.flags(base, head)
    assert len(flags) == 11 and flags[0].endswith("(line 2 at " + base[:12] + "): `assert f(0)`")
    assert flags[-1] == "test_big.py: 15 more assertion lines removed"


def test_a_real_assertion_replaced_by_one_that_cannot_fail_is_flagged_twice(sample: tuple[Repo, str]) -> None:
    repo, base = sample
    head = repo.commit({"tests/test_cart.py": SAMPLE_TEST.replace("assert total(items) == 3", "assert True")})
    assert repo.flags(base, head) == [
        "tests/test_cart.py:10: an assertion that cannot fail: `assert True`",
        f"tests/test_cart.py: assertion removed (line 10 at {base[:12]}): `assert total(items) == 3`"]


@pytest.mark.parametrize(("rel", "line"), [
    ("tests/test_x.py", "    assert True"),
    ("tests/test_x.py", "    assert 1, 'always'"),
    ("tests/test_x.py", "    assert not False"),
    ("tests/test_x.py", "    assert items == items"),
    ("tests/test_x.py", "    assert self.cart.total is self.cart.total"),
    ("tests/test_x.py", "    self.assertTrue(True)"),
    ("tests/test_x.py", "    self.assertEqual(5, 5)"),
    ("tests/test_x.py", "    self.assertIs(None, None)"),
    ("tests/test_x.py", "    self.assertFalse(False)"),
    ("web/cart.test.ts", "  expect(true).toBe(true);"),
    ("web/cart.test.ts", "  await expect(total).toEqual(total);"),
    ("web/cart.test.ts", "  expect(true).toBeTruthy();"),
    ("web/cart.spec.js", "  expect(cart).to.equal(cart);"),
    ("web/cart.spec.js", "  expect(true).to.be.true;"),
    ("web/cart.spec.js", "  assert.ok(true);"),
    ("web/cart.spec.js", "  assert.strictEqual(a, a);"),
    ("src/test/java/CartTest.java", "    assertEquals(5, 5);"),
    ("src/test/java/CartTest.java", "    assertThat(total).isEqualTo(total);"),
    ("cart_test.go", "\tassert.Equal(t, 5, 5)"),
    ("tests/cart.rs", "    assert!(true);"),
    ("tests/cart.rs", "    assert_eq!(v, v);"),
])
def test_an_added_assertion_that_cannot_fail_is_flagged_in_any_language(repo: Repo, rel: str, line: str) -> None:
    base = repo.commit({rel: "// start\n"})
    head = repo.commit({rel: f"// start\n{line}\n"})
    assert repo.flags(base, head) == [f"{rel}:2: an assertion that cannot fail: `{line.strip()}`"]


@pytest.mark.parametrize("line", [
    "assert total([1]) == 1", "assert x == y", "assert next(it) == next(it)", "assert x != x", "assert False",
    "self.assertEqual(total([1, 2]), 3)", "self.assertTrue(cart.empty)", "expect(total(1)).toBe(1);",
    "expect(f()).toBe(f());", "assert.ok(value);", "assert_eq!(a, b);", "assert.Equal(t, want, got)",
    "self.assertEqual(", "with pytest.raises(ValueError):",
])
def test_assertions_that_can_fail_are_not_taken_for_tautologies(line: str) -> None:
    assert not is_tautology(line)


def test_always_true_assertions_are_counted_beyond_the_first_ten(repo: Repo) -> None:
    base = repo.commit({"test_big.py": "def test_all():\n    pass\n"})
    head = repo.commit({"test_big.py": "def test_all():\n" + "    assert True\n" * 12})
    flags = repo.flags(base, head)
    assert len(flags) == 11 and flags[-1] == "test_big.py: 2 more assertions that cannot fail added"


def test_changed_verify_commands_and_the_scripts_they_run_are_flagged(sample: tuple[Repo, str]) -> None:
    repo, base = sample
    script = repo.commit({"scripts/check.sh": "#!/bin/sh\nexit 0\n"})
    assert repo.flags(base, script) == ["scripts/check.sh: changed, and the verify command 'tests' names it"]
    policy_only = repo.commit({"aidlc.yaml": "version: 1\nverify:\n  - {name: tests, run: ./scripts/check.sh}\n"
                                             "policy:\n  max_repairs: 5\n"})
    assert repo.flags(script, policy_only) == []
    emptied = repo.commit({"aidlc.yaml": "version: 1\npolicy:\n  max_repairs: 5\nverify:\n  - {name: tests, run: "
                                         "'true'}\n"})
    assert repo.flags(policy_only, emptied) == ["aidlc.yaml:4: the verify commands changed, and they decide "
                                                "whether the edit passes"]
    gone = repo.commit({"aidlc.yaml": None})
    assert repo.flags(emptied, gone) == ["aidlc.yaml: the verify commands changed, and they decide whether the "
                                         "edit passes"]


def test_verify_commands_the_caller_holds_give_the_same_findings(sample: tuple[Repo, str]) -> None:
    """A run passes its aidlc.yaml's verify commands (as of the base commit): the same findings, without reading
    history unless the edit changed aidlc.yaml or a test file."""
    repo, base = sample
    verify = [{"name": "tests", "run": "./scripts/check.sh"}]
    script = repo.commit({"scripts/check.sh": "#!/bin/sh\nexit 0\n"})
    assert weakened_tests(repo.root, base, script, None, None, verify=verify) == repo.flags(base, script) == \
        ["scripts/check.sh: changed, and the verify command 'tests' names it"]
    code = repo.commit({"src/shop/cart.py": "def total(items):\n    return 0\n"})
    assert weakened_tests(repo.root, script, code, None, None, verify=verify) == []
    emptied = repo.commit({"aidlc.yaml": "version: 1\nverify:\n  - {name: tests, run: 'true'}\n"})
    assert weakened_tests(repo.root, code, emptied, None, None, verify=verify) == repo.flags(code, emptied)
    assert "the verify commands changed" in repo.flags(code, emptied)[0]


def test_fewer_tests_collected_or_more_skipped_is_flagged(sample: tuple[Repo, str]) -> None:
    repo, base = sample
    head = repo.commit({"src/shop/cart.py": "def total(items):\n    return sum(items)  # same\n"})
    twelve = TestCounts(total=12, failures=1, errors=0, skipped=0)
    assert repo.flags(base, head, twelve, TestCounts(total=10, failures=0, errors=0, skipped=2)) == [
        "fewer tests ran: the test report counts 10, 12 before the edit",
        "more tests were skipped: the test report counts 2, 0 before the edit"]
    assert repo.flags(base, head, twelve, TestCounts(total=13, failures=0, errors=0, skipped=0)) == []
    assert repo.flags(base, head, None, twelve) == []


def test_unusual_names_are_reported_as_they_are(repo: Repo) -> None:
    base = repo.commit({"tests/test cart ü.py": "def test_a():\n    assert True\n"})
    head = repo.commit({"tests/test cart ü.py": None})
    assert repo.flags(base, head) == ["tests/test cart ü.py: test file deleted"]


def test_control_characters_in_a_test_line_do_not_reach_the_flag(repo: Repo) -> None:
    base = repo.commit({"test_x.py": "def test_a():\n    assert f()\n"})
    head = repo.commit({"test_x.py": "def test_a():\n    pytest.skip('\x1b[2Jgone')\n    assert f()\n"})
    assert repo.flags(base, head) == ["test_x.py:2: a test is skipped: `pytest.skip('[2Jgone')`"]


def test_an_unknown_commit_is_a_usage_error(sample: tuple[Repo, str]) -> None:
    repo, base = sample
    with pytest.raises(UsageError, match="git diff failed"):
        repo.flags(base, "0" * 40)


@pytest.mark.parametrize(("rel", "test"), [
    ("tests/test_cart.py", True), ("test_cart.py", True), ("cart_test.py", True), ("tests/helpers.py", True),
    ("tests/conftest.py", True), ("web/cart.test.tsx", True), ("web/cart.spec.js", True), ("cart_test.go", True),
    ("src/test/java/shop/CartTest.java", True), ("spec/cart_spec.rb", True), ("src/__tests__/cart.js", True),
    ("src/shop/cart.py", False), ("tests/data/cart.json", False), ("docs/testing.md", False),
    ("src/contest.py", False), ("src/latest_prices.py", False),
])
def test_which_files_are_tests(rel: str, test: bool) -> None:
    assert is_test_file(rel) is test


@pytest.mark.parametrize(("run", "named"), [
    ("make -s test", ["Makefile"]), ("gmake -C web test", ["web/Makefile"]), ("just test", ["justfile"]),
    ("task test", ["Taskfile.yml"]), ("make -f ci.mk test", ["ci.mk"]), ("make --file=ci.mk test", ["ci.mk"]),
    ("python scripts/check.py", ["scripts/check.py"]),
    ("pytest -q tests", []),
])
def test_a_task_runners_recipe_file_is_what_its_command_runs(run: str, named: list[str]) -> None:
    changed = {"Makefile", "web/Makefile", "justfile", "Taskfile.yml", "ci.mk", "scripts/check.py", "pyproject.toml"}
    assert [path for path, _ in named_by_verify([{"name": "tests", "run": run}], changed)] == named


@pytest.mark.parametrize(("run", "recipe", "included"), [
    ("make -s test", ("Makefile", "include mk/test.mk\n"), "mk/test.mk"),
    ("make -C web test", ("web/Makefile", "-include mk/*.mk\n"), "web/mk/test.mk"),
    ("just test", ("justfile", "import 'just/test.just'\n"), "just/test.just"),
    ("task py:test", ("Taskfile.yml", "version: '3'\nincludes:\n  py: ./py\n"), "py/Taskfile.yml"),
    ("make -s test", ("Makefile", "test:\n\t./scripts/test.sh\n"), "scripts/test.sh"),  # a script a recipe runs
    ("npm test", ("package.json", '{"scripts": {"test": "bash ci/test"}}\n'), "ci/test"),
    ("make -s test", ("Makefile", "test:\n\tpython3 ci/test.py\n"), "ci/test.py"),
    ("./scripts/check.sh", ("scripts/check.sh", "set -e\n. scripts/env.sh\n"), "scripts/env.sh"),
])
@pytest.mark.parametrize("held", [True, False])  # the run's commands, or the head's aidlc.yaml read from history
def test_a_file_a_checks_recipe_file_includes_is_flagged_when_the_edit_changes_it(
        repo: Repo, run: str, recipe: tuple[str, str], included: str, held: bool) -> None:
    """`make test` whose Makefile includes mk/test.mk, where the `test` rule is (or whose `test` rule runs
    scripts/test.sh; or a script the check's own script sources): an edit making that rule run nothing passed the
    unchanged check. Before: no flag."""
    rule = "test:\n\tpytest -q\n" if "ake" in run else "version: '3'\ntasks:\n  test: pytest -q\n" \
        if "task" in run else "test:\n    pytest -q\n"
    base = repo.commit({"aidlc.yaml": f"verify:\n  - name: tests\n    run: {run}\n", recipe[0]: recipe[1],
                        included: rule, "src/app.py": "x = 1\n"})
    head = repo.commit({included: rule.replace("pytest -q", "true"), "src/app.py": "x = 2\n"})
    verify = [{"name": "tests", "run": run}] if held else None
    assert weakened_tests(repo.root, base, head, None, None, verify=verify) == \
        [f"{included}: changed, and the verify command 'tests' names it"]
    code = repo.commit({"src/app.py": "x = 3\n"})
    assert weakened_tests(repo.root, head, code, None, None, verify=verify) == []


@pytest.mark.parametrize("held", [True, False])  # the run's commands, or the head's aidlc.yaml read from history
def test_a_hook_dropped_from_the_pre_commit_configuration_a_check_runs_is_flagged(repo: Repo, held: bool) -> None:
    """`pre-commit run --all-files` runs the hooks the configuration lists; an edit dropping the type checker's hook
    (or adding `exclude: ^src/`) passed the unchanged check, as did one turning a rule off in the settings of a tool
    a hook runs. Before: no flag."""
    hooks = "repos:\n  - repo: local\n    hooks:\n      - {id: types, entry: mypy src, language: system}\n"
    base = repo.commit({"aidlc.yaml": "verify:\n  - name: hooks\n    run: pre-commit run --all-files\n",
                        ".pre-commit-config.yaml": hooks, "src/app.py": "x = 1\n"})
    verify = [{"name": "hooks", "run": "pre-commit run --all-files"}] if held else None
    dropped = repo.commit({".pre-commit-config.yaml": "repos: []\n", "src/app.py": "x = 2\n"})
    assert weakened_tests(repo.root, base, dropped, None, None, verify=verify) == [
        ".pre-commit-config.yaml: the settings of pre-commit, which the verify command(s) 'hooks' run; the edit "
        "changed them"]
    restored = repo.commit({".pre-commit-config.yaml": hooks})
    quiet = repo.commit({"mypy.ini": "[mypy]\nignore_errors = True\n"})
    assert weakened_tests(repo.root, restored, quiet, None, None, verify=verify) == [
        "mypy.ini: the settings of mypy, which the verify command(s) 'hooks' run; the edit changed them"]


def test_a_tox_toml_the_check_runs_is_flagged_when_the_edit_changes_it(repo: Repo) -> None:
    """`tox -e lint` runs tox.toml's `[env.lint]` commands: an edit making them `true` passed (tox.ini was tox's
    only file). Before: no flag."""
    verify = [{"name": "lint", "run": "tox -e lint"}]
    base = repo.commit({"tox.toml": "[env.lint]\ncommands = [['ruff', 'check']]\n", "src/app.py": "x = 1\n"})
    head = repo.commit({"tox.toml": "[env.lint]\ncommands = [['true']]\n"})
    assert weakened_tests(repo.root, base, head, None, None, verify=verify) == [
        "tox.toml: the settings of tox, which the verify command(s) 'lint' run; the edit changed them"]


@pytest.mark.parametrize(("run", "table", "part"), [
    ("pdm run test", "pdm.scripts", "pdm.scripts"), ("poe test", "poe.tasks", "poe"),
    ("hatch run test", "hatch.envs.default.scripts", "hatch.envs"),
])
def test_the_task_a_python_task_runner_runs_is_flagged_when_the_edit_changes_it(repo: Repo, run: str, table: str,
                                                                                  part: str) -> None:
    """`pdm run test` runs pyproject.toml's [tool.pdm.scripts] `test` (poe's tasks, hatch's environment scripts): an
    edit making it `true` passed the unchanged check; a version bumped beside it is no change of it. Before: no
    flag."""
    def pyproject(version: str, test: str) -> str:
        return f"[project]\nname = 'shop'\nversion = '{version}'\n\n[tool.{table}]\ntest = '{test}'\n"

    verify = [{"name": "tests", "run": run}]
    base = repo.commit({"pyproject.toml": pyproject("1", "pytest -q"), "src/app.py": "x = 1\n"})
    bumped = repo.commit({"pyproject.toml": pyproject("2", "pytest -q"), "src/app.py": "x = 2\n"})
    assert weakened_tests(repo.root, base, bumped, None, None, verify=verify) == []
    emptied = repo.commit({"pyproject.toml": pyproject("2", "true")})
    assert weakened_tests(repo.root, bumped, emptied, None, None, verify=verify) == [
        f"pyproject.toml ([tool.{part}]): the settings of {run.split()[0]}, which the verify command(s) 'tests' run; "
        "the edit changed them"]


@pytest.mark.parametrize("held", [True, False])  # the run's commands, or the head's aidlc.yaml read from history
def test_the_settings_of_a_tool_a_check_runs_are_flagged_when_the_edit_changes_them(repo: Repo, held: bool) -> None:
    verify = [{"name": "lint", "run": "ruff check src"}, {"name": "tests", "run": "npm test"}]
    config = "verify:\n  - name: lint\n    run: ruff check src\n  - name: tests\n    run: npm test\n"
    base = repo.commit({"aidlc.yaml": config, "pyproject.toml": "[project]\nname = 'shop'\n\n[tool.ruff.lint]\n"
                        "select = ['F']\n", "package.json": '{"scripts": {"test": "jest"}}\n', "src/app.py": "x = 1\n"})
    bumped = repo.commit({"pyproject.toml": "[project]\nname = 'shop'\nversion = '2'\n\n[tool.ruff.lint]\n"
                          "select = ['F']\n", "src/app.py": "x = 2\n"})
    quiet = repo.commit({"pyproject.toml": "[project]\nname = 'shop'\nversion = '2'\n\n[tool.ruff.lint]\n"
                         "select = ['F']\nignore = ['F401']\n", "package.json": '{"scripts": {"test": "true"}}\n'})
    flags = [f for f in weakened_tests(repo.root, base, quiet, None, None, verify=verify if held else None)]
    assert flags == ["package.json (scripts.test): the settings of npm, which the verify command(s) 'tests' run; the "
                     "edit changed them",
                     "pyproject.toml ([tool.ruff]): the settings of ruff, which the verify command(s) 'lint' run; the "
                     "edit changed them"]
    assert weakened_tests(repo.root, base, bumped, None, None, verify=verify if held else None) == []


def test_the_settings_of_a_tool_an_npm_script_calls_are_flagged(repo: Repo) -> None:
    base = repo.commit({"package.json": '{"scripts": {"lint": "eslint src"}}\n', "src/app.js": "let x = 1;\n"})
    head = repo.commit({"eslint.config.js": "export default [{rules: {'no-unused-vars': 'off'}}];\n"})
    flags = weakened_tests(repo.root, base, head, None, None, verify=[{"name": "lint", "run": "npm run lint"}])
    assert flags == ["eslint.config.js: the settings of eslint, which the verify command(s) 'lint' run; the edit "
                     "changed them"]


@pytest.mark.parametrize("held", [True, False])  # the run's commands, or the head's aidlc.yaml read from history
def test_the_settings_a_tools_settings_extend_are_flagged_when_the_edit_changes_them(repo: Repo, held: bool) -> None:
    """pyproject.toml's `[tool.ruff] extend = "config/lint.toml"`, and tsconfig.json extending `./config/strict`
    (with comments): an edit turning a rule off in the file extended passed the unchanged check and settings. A
    file nothing extends is no settings. Before: no flag."""
    verify = [{"name": "lint", "run": "ruff check src"}, {"name": "types", "run": "tsc --noEmit"}]
    config = "verify:\n  - name: lint\n    run: ruff check src\n  - name: types\n    run: tsc --noEmit\n"
    base = repo.commit({"aidlc.yaml": config, "pyproject.toml": "[project]\nname = 'shop'\n\n[tool.ruff]\n"
                        "extend = 'config/lint.toml'\n", "config/lint.toml": "[lint]\nselect = ['F']\n",
                        "tsconfig.json": '{\n  /* shared */ "extends": "./config/strict",\n}\n',
                        "config/strict.json": '{"compilerOptions": {"strict": true}}\n',
                        "config/app.json": '{"port": 80}\n', "src/app.py": "x = 1\n"})
    other = repo.commit({"config/app.json": '{"port": 8080}\n', "src/app.py": "x = 2\n"})
    assert weakened_tests(repo.root, base, other, None, None, verify=verify if held else None) == []
    quiet = repo.commit({"config/lint.toml": "[lint]\nselect = ['F']\nignore = ['F401']\n",
                         "config/strict.json": '{"compilerOptions": {"strict": false}}\n'})
    assert weakened_tests(repo.root, other, quiet, None, None, verify=verify if held else None) == [
        "config/lint.toml: the settings of ruff, which the verify command(s) 'lint' run; the edit changed them",
        "config/strict.json: the settings of tsc, which the verify command(s) 'types' run; the edit changed them"]


def test_the_settings_of_a_tool_every_workspaces_script_calls_are_flagged(repo: Repo) -> None:
    """`pnpm -r lint` runs packages/web's `eslint src`: an edit turning a rule off in packages/web/eslint.config.js
    passed the unchanged check (the root's scripts alone were read). Before: no flag."""
    base = repo.commit({"package.json": '{"private": true}\n', "pnpm-workspace.yaml": "packages: ['packages/*']\n",
                        "packages/web/package.json": '{"name": "web", "scripts": {"lint": "eslint src"}}\n',
                        "packages/web/src/app.js": "let x = 1;\n"})
    head = repo.commit({"packages/web/eslint.config.js": "export default [{rules: {'no-unused-vars': 'off'}}];\n"})
    flags = weakened_tests(repo.root, base, head, None, None, verify=[{"name": "lint", "run": "pnpm -r lint"}])
    assert flags == ["packages/web/eslint.config.js: the settings of eslint, which the verify command(s) 'lint' run; "
                     "the edit changed them"]


def test_workspaces_an_edit_adds_do_not_crowd_out_the_one_whose_settings_it_changed(repo: Repo) -> None:
    """Fifty workspaces are followed: an edit adding sixty script-less ones that sort before packages/web pushed it
    out of them, and its lint settings turned off passed. Before: no flag."""
    base = repo.commit({"package.json": '{"private": true}\n', "pnpm-workspace.yaml": "packages: ['packages/*']\n",
                        "packages/web/package.json": '{"name": "web", "scripts": {"lint": "eslint src"}}\n'})
    head = repo.commit({**{f"packages/a{n:02}/package.json": f'{{"name": "a{n}"}}\n' for n in range(60)},
                        "packages/web/eslint.config.js": "export default [{rules: {'no-unused-vars': 'off'}}];\n"})
    flags = weakened_tests(repo.root, base, head, None, None, verify=[{"name": "lint", "run": "pnpm -r lint"}])
    assert flags == ["packages/web/eslint.config.js: the settings of eslint, which the verify command(s) 'lint' run; "
                     "the edit changed them"]


@pytest.mark.parametrize(("run", "files", "edit", "flag"), [
    ("pnpm -r lint", {"pnpm-workspace.yaml": "packages: ['packages/*']\n"},
     {"pnpm-workspace.yaml": "packages: ['packages/*', '!packages/web']\n"},
     "pnpm-workspace.yaml (packages): the settings of pnpm"),
    ("npm run lint --workspaces", {"package.json": '{"private": true, "workspaces": ["packages/*"]}\n'},
     {"package.json": '{"private": true, "workspaces": ["packages/api"]}\n'},
     "package.json (workspaces): the settings of npm"),
    ("pnpm -r lint", {"pnpm-workspace.yaml": "packages: ['packages/*']\n"},  # moved out of the workspaces' folders
     {"packages/web/package.json": None, "legacy/web/package.json": '{"name": "web", "scripts": {"lint": "eslint"}}\n'},
     "packages/web/package.json (scripts.lint): the settings of pnpm"),
    ("npx turbo run lint", {"package.json": '{"private": true, "workspaces": ["packages/*"]}\n',
                            "turbo.json": '{"tasks": {"lint": {}}}\n'},
     {"turbo.json": '{"tasks": {"lint": {"inputs": ["README.md"]}}}\n'}, "turbo.json: the settings of turbo"),
])
def test_the_workspaces_a_check_runs_every_workspace_of_are_its_settings(repo: Repo, run: str, files: dict[str, str],
                                                                      edit: dict[str, str | None], flag: str) -> None:
    """`pnpm -r lint` lints the workspaces pnpm-workspace.yaml lists: an edit adding `!packages/web` there (or dropping
    it from the root's `workspaces`, or telling turbo that lint's inputs are README.md alone, so that a cached pass is
    replayed, or moving packages/web out of the folders listed) stops packages/web being linted, the check unchanged.
    Before: no flag (but for the move, whose script's removal was read already)."""
    base = repo.commit({**files, "packages/web/package.json": '{"name": "web", "scripts": {"lint": "eslint src"}}\n',
                        "packages/api/package.json": '{"name": "api", "scripts": {"lint": "eslint src"}}\n'})
    head = repo.commit(edit)
    flags = weakened_tests(repo.root, base, head, None, None, verify=[{"name": "lint", "run": run}])
    assert [f for f in flags if f.startswith(flag)], flags



def test_a_dependency_catalog_or_version_beside_the_workspace_list_is_no_change_of_it(repo: Repo) -> None:
    """pnpm-workspace.yaml's `catalog` and lerna.json's `version` change with every dependency bump and release: only
    their `packages` are what `pnpm -r lint` and `lerna run lint` run in."""
    base = repo.commit({"package.json": '{"private": true}\n',
                        "lerna.json": '{"version": "1.0.0", "packages": ["p/*"]}',
                        "pnpm-workspace.yaml": "packages: ['p/*']\ncatalog:\n  react: ^18.0.0\n",
                        "p/web/package.json": '{"name": "web", "scripts": {"lint": "eslint src"}}\n'})
    head = repo.commit({"lerna.json": '{"version": "1.1.0", "packages": ["p/*"]}',
                        "pnpm-workspace.yaml": "packages: ['p/*']\ncatalog:\n  react: ^19.0.0\n"})
    for run in ("pnpm -r lint", "npx lerna run lint"):
        assert weakened_tests(repo.root, base, head, None, None, verify=[{"name": "lint", "run": run}]) == []
