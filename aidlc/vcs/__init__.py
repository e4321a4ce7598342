"""The only package that talks to git (docs/design.md, The layers).

This module is the package's single facade: callers write `from aidlc import vcs`, then `vcs.name(...)`, and import
nothing from its modules. It names exactly what the rest of aidlc calls, grouped by the module that holds it.
`process.py` (running git, its environment and errors, GitPython) stays inside: every git process starts there.
Importing the package imports neither GitPython nor subprocess; the functions that need them import them when they
run, which keeps start-up fast.
"""

# changes.py: what a change did to files, between two commits
from aidlc.vcs.changes import FileChange as FileChange
from aidlc.vcs.changes import LineCounts as LineCounts
from aidlc.vcs.changes import changed_files_between as changed_files_between
from aidlc.vcs.changes import changed_since_fork as changed_since_fork
from aidlc.vcs.changes import commit_diff as commit_diff
from aidlc.vcs.changes import diff_text as diff_text
from aidlc.vcs.changes import is_outside as is_outside
from aidlc.vcs.changes import line_counts as line_counts
from aidlc.vcs.changes import same_code as same_code

# gitattributes.py: what .gitattributes give a file
from aidlc.vcs.gitattributes import attributes as attributes

# log.py: commits as git log tells them, with their trailers
from aidlc.vcs.log import EMPTY_TREE as EMPTY_TREE
from aidlc.vcs.log import Commit as Commit
from aidlc.vcs.log import changed_by as changed_by
from aidlc.vcs.log import commit_with_trailers as commit_with_trailers
from aidlc.vcs.log import commits_between as commits_between
from aidlc.vcs.log import commits_in as commits_in
from aidlc.vcs.log import commits_with_trailer as commits_with_trailer
from aidlc.vcs.log import last_commit_of as last_commit_of
from aidlc.vcs.log import parents as parents

# object_store.py: files at a revision, raw objects, missing and unsigned commits
from aidlc.vcs.object_store import committed as committed
from aidlc.vcs.object_store import files_at as files_at
from aidlc.vcs.object_store import missing_commits as missing_commits
from aidlc.vcs.object_store import objects as objects
from aidlc.vcs.object_store import show_file as show_file
from aidlc.vcs.object_store import unsigned as unsigned

# project_history.py: HEAD's history as the project names its paths (the rules' evidence)
from aidlc.vcs.project_history import History as History
from aidlc.vcs.project_history import Revision as Revision
from aidlc.vcs.project_history import history as history

# repository.py: the repository, its config and its refs
from aidlc.vcs.repository import branch_commit as branch_commit
from aidlc.vcs.repository import current_branch as current_branch
from aidlc.vcs.repository import default_branch as default_branch
from aidlc.vcs.repository import file_digest as file_digest
from aidlc.vcs.repository import head_commit as head_commit
from aidlc.vcs.repository import identity as identity
from aidlc.vcs.repository import is_shallow as is_shallow
from aidlc.vcs.repository import reading_changes as reading_changes
from aidlc.vcs.repository import reading_state as reading_state
from aidlc.vcs.repository import repo_root as repo_root
from aidlc.vcs.repository import resolve_commit as resolve_commit
from aidlc.vcs.repository import root_commit as root_commit
from aidlc.vcs.repository import signing_config as signing_config

# status.py: the work tree as git status sees it
from aidlc.vcs.status import WorkTree as WorkTree
from aidlc.vcs.status import changed_paths as changed_paths
from aidlc.vcs.status import project_prefix as project_prefix
from aidlc.vcs.status import tracked_files as tracked_files
from aidlc.vcs.status import work_tree as work_tree

# writes.py: the commands that change a repository (init, config, a bolt run's branch and commits)
from aidlc.vcs.writes import checkout as checkout
from aidlc.vcs.writes import commit_step as commit_step
from aidlc.vcs.writes import create_branch as create_branch
from aidlc.vcs.writes import init_repo as init_repo
from aidlc.vcs.writes import restore_paths as restore_paths
from aidlc.vcs.writes import set_config as set_config
