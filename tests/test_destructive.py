"""Which commands deja calls destructive: the Shell pre-hook marks their past runs, and neither the failure hook nor
``deja fix`` offers one as what fixed an error.

Before, ``terraform plan -destroy`` (a plan) and ``kubectl auth can-i delete`` (a question) were called destructive,
and deleting a remote branch, dropping a stash, removing a compose project's volumes, pruning every image and
uninstalling a Helm release were not.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_layers import _imports_without_site, _installed_as_pip_does

from deja.core.destructive import is_destructive

DESTRUCTIVE = [
    "git push origin --delete feature",
    "git push -d origin feature",
    "git push origin :feature",
    "git push --force-with-lease",
    "git push -uf origin main",
    "docker image prune -a",
    "docker image prune --all --force",
    "docker compose down -v",
    "docker-compose -f dev.yml down --volumes",
    "docker compose down --rmi all -v",
    "helm uninstall web",
    "helm -n prod uninstall web",
    "helm delete web",
    "git stash drop",
    "git stash drop stash@{1}",
    "git stash clear",
    "git clean -fdx",
    "git clean -d -f",
    "git reset --hard HEAD~1",
    "terraform destroy -auto-approve",
    "terraform -chdir=infra destroy",
    "terraform apply -destroy",
    "kubectl delete namespace prod",
    "kubectl -n prod delete pod web-1",
    "kubectl --context staging delete -f app.yaml",
    "npm run db -- --force-reset",  # no push, no git: its own word (review42a M1)
]
DESTRUCTIVE += [  # a force-push read past a redirection or a command substitution (review8d)
    "git push 2>&1 --force",
    "git push origin $(git branch --show-current | tr -d ' ') -f",
]

NOT_DESTRUCTIVE = [
    "terraform plan -destroy",
    "terraform plan -destroy -out=destroy.plan",
    "kubectl auth can-i delete pods",
    "kubectl -n prod auth can-i delete deployments",
    "kubectl get pods",
    "git push origin feature",
    "git push -u origin main",
    "git push --dry-run",
    "docker image prune",
    "docker image prune -f",
    "docker compose down",
    "docker compose down --remove-orphans",
    "docker compose up -d",
    "helm upgrade --install web ./chart",
    "helm list",
    "git stash",
    "git stash pop",
    "git stash list",
    "git clean -n",
    "git reset HEAD~1",
    # another program's option after a separator is not the push's, the branch's or the prune's (review8c)
    "git push origin main && docker run -d nginx",
    "git push && ls -lhd build",
    "git branch -a | grep -D",
    "docker image prune | tee log -a",
    "rm build.log && ls --recursive",
    "dd if=a bs=1 | pv | cat -of=x",
]


@pytest.mark.parametrize("command", DESTRUCTIVE)
def test_these_commands_are_destructive(command: str) -> None:
    assert is_destructive(command)


@pytest.mark.parametrize("command", NOT_DESTRUCTIVE)
def test_these_commands_are_not(command: str) -> None:
    assert not is_destructive(command)


#: Steps "What followed" names after most failures: none asks the pattern (``re``, 2.5-4 ms of a failure hook).
EVERYDAY = [
    "git push origin main",
    "git push",
    "git checkout main",
    "git branch",
    "git reset HEAD~1",
    "docker image prune",
]


def test_everyday_git_and_docker_commands_are_told_apart_without_loading_re(tmp_path: Path) -> None:
    site = _installed_as_pip_does(tmp_path / "site-packages").parents[2]
    probe = f"import sys; sys.path.insert(0, {str(site)!r}); from deja.core.destructive import is_destructive; "
    loaded, printed = _imports_without_site(["-c", f"{probe}print(any(map(is_destructive, {EVERYDAY!r})))"], b"", {})
    assert printed.split() == [b"False"] and "re" not in loaded
