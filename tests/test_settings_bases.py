"""The files a tool's settings extend (aidlc/bolt/settings_bases.py), read from files given by path."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from aidlc.bolt import settings_bases
from aidlc.bolt.check_settings import TOOLS, Tool, changed_parts, may_hold_settings


class Files:
    """A repository's files at the head, and the batches read from them."""

    def __init__(self, files: dict[str, str | bytes]) -> None:
        self.files = {path: text.encode() if isinstance(text, str) else text for path, text in files.items()}
        self.batches: list[list[str]] = []

    def read(self, paths: Iterable[str]) -> dict[str, bytes | None]:
        self.batches.append(list(paths))
        return {path: self.files.get(path) for path in self.batches[-1]}

    def bases(self, *names: str) -> dict[str, tuple[str, ...]]:
        runs = settings_bases.with_bases({TOOLS[name]: ["lint"] for name in names}, list(self.files), self.read)
        return {tool.name: tool.bases for tool in runs}


@pytest.mark.parametrize(("name", "files", "bases"), [
    ("ruff", {"pyproject.toml": "[tool.ruff]\nextend = 'config/lint.toml'\n", "config/lint.toml": ""},
     ("config/lint.toml",)),
    ("ruff", {"web/ruff.toml": "extend = '../config/lint.toml'\n", "config/lint.toml": ""}, ("config/lint.toml",)),
    ("tsc", {"tsconfig.json": '{// the base\n"extends": ["./base", "@tsconfig/node20/tsconfig.json"],}',
             "base.json": "{}"}, ("base.json",)),
    ("pyright", {"pyrightconfig.json": '{"extends": "../shared/pyright.json"}', "shared/pyright.json": "{}"}, ()),
    ("basedpyright", {"pyproject.toml": "[tool.basedpyright]\nextends = 'config/types.json'\n",
                      "config/types.json": "{}"}, ("config/types.json",)),
    ("eslint", {".eslintrc": "extends:\n  - ./config/eslint.yml\n  - plugin:react/recommended\n",
                "config/eslint.yml": ""}, ("config/eslint.yml",)),
    ("eslint", {"package.json": '{"eslintConfig": {"extends": "./config/eslint.json"}}', "config/eslint.json": "{}"},
     ("config/eslint.json",)),
    ("eslint", {"eslint.config.mjs": "import base from './config/base';\nconst x = await import(\"../up.js\");\n"
                                     "import js from '@eslint/js';\n", "config/base.mjs": "", "up.js": ""},
     ("config/base.mjs",)),
    ("prettier", {"package.json": '{"prettier": "./config/prettier.json"}', "config/prettier.json": "{}"},
     ("config/prettier.json",)),
    ("rubocop", {".rubocop.yml": "inherit_from: .rubocop-base.yml\n", ".rubocop-base.yml": ""},
     (".rubocop-base.yml",)),
    ("phpstan", {"phpstan.neon": "includes:\n\t- phpstan-baseline.neon\n", "phpstan-baseline.neon": ""},
     ("phpstan-baseline.neon",)),
    ("yamllint", {".yamllint": "extends: ci/yamllint.yaml\n", "ci/yamllint.yaml": ""}, ("ci/yamllint.yaml",)),
    ("yamllint", {".yamllint": "extends: relaxed\n"}, ()),  # one of yamllint's own
    ("biome", {"biome.json": '{"extends": ["./shared/biome.json"]}', "shared/biome.json": "{}"},
     ("shared/biome.json",)),
    # a workspace's own package, as a Turborepo shares its settings: by its `exports`, a file in it, its `main`
    ("eslint", {"apps/web/eslint.config.js": 'import { nextJsConfig } from "@repo/eslint-config/next-js";\n'
                                             'import js from "@eslint/js";\n',
                "packages/eslint-config/package.json": '{"name": "@repo/eslint-config", "exports": {"./next-js": '
                                                       '{"default": "./next.js"}, "./base": "./base.js"}}',
                "packages/eslint-config/next.js": "", "next.js": ""}, ("packages/eslint-config/next.js",)),
    ("tsc", {"apps/web/tsconfig.json": '{"extends": "@repo/typescript-config/nextjs.json"}',
             "packages/typescript-config/package.json": '{"name": "@repo/typescript-config"}',
             "packages/typescript-config/nextjs.json": "{}"}, ("packages/typescript-config/nextjs.json",)),
    ("prettier", {"package.json": '{"prettier": "prettier-config-shop"}',
                  "tools/prettier/package.json": '{"name": "prettier-config-shop", "main": "config.json"}',
                  "tools/prettier/config.json": "{}"}, ("tools/prettier/config.json",)),
    ("eslint", {"eslint.config.js": "import x from 'lib';\n", "lib.js": "", "node_modules/lib/package.json":
                '{"name": "lib"}', "node_modules/lib/index.js": ""}, ()),  # installed, not the repository's own
    # a value leading out of the repository, absolute, a URL, a shared file, not there: nothing
    ("ruff", {"ruff.toml": "extend = '../../outside.toml'\n"}, ()),
    ("ruff", {"ruff.toml": "extend = '/etc/ruff.toml'\n", "etc/ruff.toml": ""}, ()),
    ("tsc", {"tsconfig.json": '{"extends": "https://example.org/tsconfig.json"}'}, ()),
    ("ruff", {"ruff.toml": "extend = 'pyproject.toml'\n", "pyproject.toml": "[tool.ruff]\n"}, ()),
    ("ruff", {"ruff.toml": "extend = 'missing.toml'\n"}, ()),
    # what does not parse names nothing, and breaks nothing
    ("ruff", {"ruff.toml": "extend = [\n", "x.toml": ""}, ()),
    ("tsc", {"tsconfig.json": b'{"extends": "\xff./base"}', "base.json": ""}, ()),
    ("eslint", {".eslintrc.json": "[" * 100_000 + "]" * 100_000}, ()),
    ("rubocop", {".rubocop.yml": "inherit_from: {a: 1}\n"}, ()),
    ("eslint", {".eslintrc.yml": "extends: [\n"}, ()),
])
def test_the_files_a_tools_settings_name_are_its_bases(name: str, files: dict[str, str | bytes],
                                                       bases: tuple[str, ...]) -> None:
    assert Files(files).bases(name) == {name: bases}


def test_a_base_of_a_base_is_followed_and_a_cycle_ends() -> None:
    files = Files({"ruff.toml": "extend = 'a.toml'\n", "a.toml": "extend = 'b.toml'\n", "b.toml": "extend = 'a.toml'\n",
                   "src/app.py": ""})
    assert files.bases("ruff") == {"ruff": ("a.toml", "b.toml")}
    assert files.batches == [["ruff.toml"], ["a.toml"], ["b.toml"]]


def test_a_chain_is_followed_five_deep_and_the_files_read_are_bounded() -> None:
    chain = {f"c{n}.toml": f"extend = 'c{n + 1}.toml'\n" for n in range(10)}
    files = Files({"ruff.toml": "extend = 'c0.toml'\n", **chain})
    assert files.bases("ruff") == {"ruff": tuple(f"c{n}.toml" for n in range(5))}
    many = Files({f"p{n:04}/package.json": '{"eslintConfig": {"extends": "../base.json"}}' for n in range(1000)}
                 | {"base.json": "{}"})
    assert many.bases("eslint") == {"eslint": ("base.json",)}
    assert len(many.batches[0]) == settings_bases.MAX_FILES


def test_a_base_is_read_whole_as_the_tools_settings() -> None:
    ruff = Tool("ruff", ("ruff.toml",), ("ruff",), bases=("config/lint.toml",))
    assert may_hold_settings("config/lint.toml", [ruff]) and not may_hold_settings("config/app.toml", [ruff])
    assert changed_parts("config/lint.toml", b"[lint]\n", b"[lint]\nignore = ['F401']\n", [ruff]) == [""]


@pytest.mark.parametrize(("path", "may"), [
    ("config/lint.toml", True), ("tsconfig.base.json", True), (".rubocop-base", True), ("eslint/base.mjs", True),
    ("phpstan-baseline.neon", True), ("src/app.py", False), ("README.md", False), ("Makefile", False),
])
def test_which_files_may_be_bases(path: str, may: bool) -> None:
    assert settings_bases.may_be_base(path) is may


def test_many_package_files_added_do_not_crowd_out_a_tools_own_settings() -> None:
    """A bolt adds 300 package.json files that sort before apps/web (none holds eslint's settings, so none is a
    change of them), then turns a rule off in the base apps/web's eslint.config.js imports: the own file is read
    first, and its base found."""
    crowd = {f"a{n:03}/package.json": '{"name": "x"}' for n in range(300)}
    files = Files({**crowd, "apps/web/eslint.config.js": "import base from './base.js';\n", "apps/web/base.js": ""})
    assert files.bases("eslint") == {"eslint": ("apps/web/base.js",)}
