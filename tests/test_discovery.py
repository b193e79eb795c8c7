"""Finding the tasks: `python -m cpsd_tasks path`, `cpsd-eval`, and `task_manager()` from any directory."""

import os
import subprocess
import sys

import pytest

import cpsd_tasks

CLF = ["cpsd_sentiment", "cpsd_rumor", "cpsd_fraud_detection", "cpsd_incident_classification"]


@pytest.mark.e2e
def test_module_path_command(tmp_path):
    out = subprocess.run([sys.executable, "-m", "cpsd_tasks", "path"], capture_output=True, text=True,
                         cwd=tmp_path, check=True)
    assert out.stdout.strip() == str(cpsd_tasks.YAML_DIR)
    assert (cpsd_tasks.YAML_DIR / "cpsd_sentiment.yaml").is_file()
    bad = subprocess.run([sys.executable, "-m", "cpsd_tasks", "nope"], capture_output=True, text=True)
    assert bad.returncode == 2 and "usage" in bad.stderr


def test_task_manager_knows_tasks_and_groups():
    tm = cpsd_tasks.task_manager()
    for name in CLF + ["cpsd_clf", "cpsd"]:
        assert name in tm.all_tasks, name


@pytest.mark.e2e
def test_tasks_load_from_unrelated_directory(tmp_path):
    code = ("import cpsd_tasks\n"
            "from lm_eval.tasks import get_task_dict\n"
            "d = get_task_dict(['cpsd_clf'], cpsd_tasks.task_manager())\n"
            "def walk(x):\n"
            "    for k, v in x.items():\n"
            "        yield from (walk(v) if isinstance(v, dict) else [(k, v)])\n"
            "for name, task in sorted(walk(d)):\n"
            "    print(name, len(task.test_docs()), task.test_docs()[0]['data_source'])\n")
    env = dict(os.environ, HF_HOME=str(tmp_path / "hf"), HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1")
    env.pop("CPSD_DATA_DIR", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = sorted(out.stdout.split("\n")[:-1])
    assert lines == ["cpsd_fraud_detection 20 demo", "cpsd_incident_classification 40 demo",
                     "cpsd_rumor 20 demo", "cpsd_sentiment 30 demo"]
