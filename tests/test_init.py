"""aidlc init: scaffolds in a real Git repo, is idempotent, never clobbers a person's edits."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.helpers import corpus_dir, in_process

STANDARDS = ["coding-standards.md", "tech-stack.md", "glossary.md", "definition-of-done.md"]
CORPUS = corpus_dir()


def aidlc(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return in_process(list(args), {"PATH": "/usr/bin:/bin", "CI": "true", "HOME": str(cwd)}, cwd=cwd)


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(root).parts}


def test_init_scaffolds_a_new_git_repo(tmp_path: Path) -> None:
    proc = aidlc("init", "--git", "shop", "--name", "Shop", "--type", "web-app", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    root = tmp_path / "shop"
    assert (root / ".git").is_dir()
    files = snapshot(root)
    for name in ["aidlc.yaml", "memory-bank/project.yaml", "memory-bank/story-index.md",
                 ".github/workflows/aidlc.yml", ".gitignore"] + [f"memory-bank/standards/{s}" for s in STANDARDS]:
        assert name in files, name
    for folder in ["intents", "bolts", "operations", "decisions"]:
        assert (root / "memory-bank" / folder).is_dir()
    assert b"project_type: web-app" in files["memory-bank/project.yaml"]
    assert b'name: "Shop"' in files["memory-bank/project.yaml"]
    assert b".aidlc/" in files[".gitignore"]
    assert b"aidlc ci" in files[".github/workflows/aidlc.yml"]
    assert aidlc("validate", cwd=root).returncode == 0


def test_init_refuses_a_folder_that_is_not_a_git_repo(tmp_path: Path) -> None:
    proc = aidlc("init", str(tmp_path), cwd=tmp_path)
    assert proc.returncode == 2
    assert "not inside a Git repository" in proc.stderr
    assert "aidlc init --git" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "aidlc.yaml").exists()


def test_second_run_changes_nothing_and_says_what_it_kept(tmp_path: Path) -> None:
    assert aidlc("init", "--git", "p", cwd=tmp_path).returncode == 0
    root = tmp_path / "p"
    before = snapshot(root)
    proc = aidlc("--format", "json", "init", cwd=root)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    actions = {f["path"]: f["action"] for f in report["files"]}
    assert set(actions.values()) <= {"kept", "unchanged"}
    assert actions["aidlc.yaml"] == "kept"
    assert actions["memory-bank/story-index.md"] == "unchanged"
    assert snapshot(root) == before


def test_person_edits_survive_even_force(tmp_path: Path) -> None:
    assert aidlc("init", "--git", "p", cwd=tmp_path).returncode == 0
    root = tmp_path / "p"
    (root / "aidlc.yaml").write_text("version: 1\nmemory_bank: memory-bank\n# mine\n")
    (root / "memory-bank/standards/tech-stack.md").write_text("# Our stack\nRust.\n")
    (root / ".github/workflows/aidlc.yml").write_text("name: custom\n")
    proc = aidlc("init", cwd=root)
    assert proc.returncode == 0
    assert "--force replaces it" in proc.stdout
    assert (root / ".github/workflows/aidlc.yml").read_text() == "name: custom\n"
    proc = aidlc("init", "--force", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert (root / "aidlc.yaml").read_text().endswith("# mine\n")
    assert (root / "memory-bank/standards/tech-stack.md").read_text() == "# Our stack\nRust.\n"
    assert "aidlc ci" in (root / ".github/workflows/aidlc.yml").read_text()
    backups = list((root / ".github/workflows").glob("aidlc.yml.bak-*"))
    assert len(backups) == 1 and backups[0].read_text() == "name: custom\n"


def test_gitignore_keeps_existing_lines(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("node_modules")  # no trailing newline
    assert aidlc("init", cwd=tmp_path).returncode == 0
    assert (tmp_path / ".gitignore").read_text() == "node_modules\n.aidlc/\n"


def test_init_on_an_existing_specsmd_bank_touches_none_of_its_files(tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "repo"
    shutil.copytree(CORPUS, root)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    before = snapshot(root)
    proc = aidlc("init", cwd=root)
    assert proc.returncode == 0, proc.stderr
    after = snapshot(root)
    for path, data in before.items():
        assert after[path] == data, path
    added = set(after) - set(before)
    assert "aidlc.yaml" in added
    assert not any(p.startswith("memory-bank/standards/") for p in added)  # the bank has its own standards
    assert "memory-bank/story-index.md" not in added  # kept: the team wrote its own


def test_bad_aidlc_yaml_is_a_configuration_error(tmp_path: Path) -> None:
    assert aidlc("init", "--git", "p", cwd=tmp_path).returncode == 0
    root = tmp_path / "p"
    (root / "aidlc.yaml").write_text("version: 1\npolicy:\n  max_steps: many\n")
    proc = aidlc("validate", cwd=root)
    assert proc.returncode == 2
    assert "aidlc.yaml:3" in proc.stderr and "max_steps" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_questions_only_at_a_terminal(tmp_path: Path) -> None:
    """At a TTY (and CI unset) init asks for name, type and the CI action; the answers land in project.yaml,
    aidlc.yaml and the workflow."""
    import os
    import pty
    import select
    import sys
    import time

    master, slave = pty.openpty()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "aidlc", "init", "--git", "tty"], cwd=tmp_path, env=env,
                            stdin=slave, stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    output = b""
    deadline = time.monotonic() + 60

    def read_until(text: bytes, start: int) -> int:
        """Read until `text` appears after `start`; where it ends. A child that died, hangs or talks
        forever fails the test instead of blocking it."""
        nonlocal output
        while text not in output[start:]:
            ready, _, _ = select.select([master], [], [], max(deadline - time.monotonic(), 0))
            assert ready, f"no {text!r} from aidlc init in time; so far: {output!r}"
            output += os.read(master, 1024)
        return output.index(text, start) + len(text)

    answered = 0  # the output up to here holds the prompts already answered and the echoes of the answers
    for prompt, answer in ((b"]: ", b"Tea Shop"), (b"]: ", b"web-app"), (b"later): ", b"acme/aidlc@v0.1.0")):
        read_until(prompt, answered)
        os.write(master, answer + b"\n")
        answered = read_until(answer, len(output))  # its echo: the next prompt comes after it
    assert proc.wait(timeout=60) == 0
    os.close(master)
    project = (tmp_path / "tty/memory-bank/project.yaml").read_text()
    assert 'name: "Tea Shop"' in project and "project_type: web-app" in project
    assert "action: acme/aidlc@v0.1.0" in (tmp_path / "tty/aidlc.yaml").read_text()
    assert "uses: acme/aidlc@v0.1.0" in (tmp_path / "tty/.github/workflows/aidlc.yml").read_text()


def test_rerunning_init_updates_an_older_ledger_attribute_line(tmp_path: Path) -> None:
    assert aidlc("init", "--git", "p", cwd=tmp_path).returncode == 0
    root = tmp_path / "p"
    attributes = root / ".gitattributes"
    assert attributes.read_text() == "memory-bank/events.jsonl merge=aidlc-ledger -text\n"
    attributes.write_text("*.png binary\nmemory-bank/events.jsonl merge=aidlc-ledger\n")  # an older aidlc wrote this
    assert aidlc("init", cwd=root).returncode == 0
    assert attributes.read_text() == "*.png binary\nmemory-bank/events.jsonl merge=aidlc-ledger -text\n"
    check = subprocess.run(["git", "check-attr", "merge", "text", "--", "memory-bank/events.jsonl"], cwd=root,
                           capture_output=True, text=True, check=True).stdout
    assert "merge: aidlc-ledger" in check and "text: unset" in check


def test_a_project_in_a_subfolder_gets_a_workflow_at_the_repository_top(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    project = tmp_path / "services" / "pay"
    project.mkdir(parents=True)
    (project / "aidlc.yaml").write_text('version: 1\nci: {install: "git+https://example.org/OWNER/aidlc@v0.1.0"}\n')
    assert aidlc("init", cwd=project).returncode == 0
    workflow = tmp_path / ".github/workflows/aidlc-services-pay.yml"
    assert 'PROJECT: "services/pay"' in workflow.read_text()
    assert not (project / ".github").exists()  # GitHub would never read it there
    again = aidlc("--format", "json", "init", cwd=project)
    actions = {f["path"]: f["action"] for f in json.loads(again.stdout)["files"]}
    assert actions[".github/workflows/aidlc-services-pay.yml"] == "unchanged"


def test_init_inside_another_project_is_refused_without_force(tmp_path: Path) -> None:
    """A sub-folder of a project (or a repository nested in its tree) would get a second bank, apart from the
    project's ledger: init names the project it found and asks for --force."""
    assert aidlc("init", "--git", "shop", cwd=tmp_path).returncode == 0
    root = tmp_path / "shop"
    inner = root / "src" / "pay"
    inner.mkdir(parents=True)
    before = snapshot(root)
    for args in (("init",), ("init", "--git", "nested")):
        proc = aidlc(*args, cwd=inner)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert f"is inside the aidlc project at {root} (aidlc.yaml there)" in proc.stderr
        assert f"cd {root} && aidlc status" in proc.stderr and "aidlc init --force" in proc.stderr
        assert snapshot(root) == before and not (inner / "nested").exists()
    assert aidlc("init", cwd=root).returncode == 0  # the project itself: rerunning init is safe as ever
    proc = aidlc("init", "--force", cwd=inner)
    assert proc.returncode == 0, proc.stderr
    assert (inner / "aidlc.yaml").is_file() and (inner / "memory-bank").is_dir()


CLINE = ("projectbrief.md", "productContext.md", "activeContext.md", "systemPatterns.md", "techContext.md",
         "progress.md")


def cline_repo(root: Path) -> Path:
    """A repository whose memory-bank/ is Cline's: the notes Cline reads at the start of every task."""
    (root / "memory-bank").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for name in CLINE:
        (root / "memory-bank" / name).write_text(f"# {name}\n\nWhat Cline keeps.\n")
    return root


def test_init_in_a_cline_memory_bank_writes_nothing_until_aidlc_yaml_says_where(tmp_path: Path) -> None:
    """Before: init filled Cline's folder with aidlc's project file, standards and ledger, which Cline would then
    read at every task. Now it names the notes and how to choose; the first step taken keeps the two apart."""
    root = cline_repo(tmp_path / "shop")
    before = snapshot(root)
    proc = aidlc("init", cwd=root)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.startswith("error: memory-bank/ keeps another tool's memory bank (projectbrief.md, "
                                  "productContext.md, activeContext.md, systemPatterns.md, techContext.md: Cline's")
    assert snapshot(root) == before
    step = next(line.strip() for line in proc.stderr.splitlines() if "memory_bank: aidlc-bank" in line)
    subprocess.run(["bash", "-c", step.partition("&&")[0]], cwd=root, check=True)
    assert aidlc("init", cwd=root).returncode == 0
    assert (root / "aidlc-bank" / "events.jsonl").is_file() and (root / "aidlc-bank" / "intents").is_dir()
    assert sorted(path.name for path in (root / "memory-bank").iterdir()) == sorted(CLINE)
    assert aidlc("validate", cwd=root).returncode == 0
    assert aidlc("init", cwd=root / "memory-bank").returncode == 2  # inside the project now: refused as ever


def test_a_cline_memory_bank_above_is_no_aidlc_project(tmp_path: Path) -> None:
    """A project in a sub-folder of a repository whose top keeps Cline's memory bank: before, init said it was
    inside the aidlc project at the top."""
    root = cline_repo(tmp_path / "mono")
    service = root / "service"
    service.mkdir()
    proc = aidlc("init", cwd=service)
    assert proc.returncode == 0, proc.stderr
    assert (service / "memory-bank" / "events.jsonl").is_file()


def test_new_in_a_cline_memory_bank_writes_nothing_until_aidlc_yaml_says_where(tmp_path: Path) -> None:
    """`aidlc new intent` before `aidlc init` wrote the intent among Cline's notes."""
    root = cline_repo(tmp_path / "shop")
    before = snapshot(root)
    proc = aidlc("new", "intent", "Checkout", cwd=root)
    assert proc.returncode == 2 and "keeps another tool's memory bank" in proc.stderr, proc.stderr
    assert "# their own folder, then run the command again" in proc.stderr and snapshot(root) == before
    (root / "aidlc.yaml").write_text("memory_bank: memory-bank\n")  # the person's choice: beside the notes
    assert aidlc("new", "intent", "Checkout", cwd=root).returncode == 0
    assert (root / "memory-bank" / "intents" / "001-checkout" / "requirements.md").is_file()
