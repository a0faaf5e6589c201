#!/usr/bin/env python3
"""Runs the GitHub Actions jobs of docs/ci.md as written, the way Actions does.

Every `run:` step of every workflow in the page is executed with the shell
Actions would use (`bash -e` by default, `bash --noprofile --norc -eo
pipefail` for `shell: bash`), in a fresh folder per job, with Actions'
rules for `if: always()` and job results. What cannot run here is stubbed,
and each stub says why:

- installing packages (`apt-get`): the test machine has them already;
- `actions/checkout`: the job folder gets a copy of `baselines/` (the only
  part of the checkout the jobs read besides the build);
- the build (`cmake ...`): `build/trnbench` is the binary under test;
- `actions/upload-artifact` / `download-artifact`: folder copies;
- `secrets.TRNBENCH_HISTORY_URL`: an SQLite file shared by the jobs, made
  once with `history ingest` (the setup docs/ci.md asks for).

The page's `--repeat 100` becomes `--repeat REPEAT` to keep the test fast
(every other flag is kept). The test asserts that each job passes on a
clean run and fails on an injected regression: a baseline folder saved
under a faster device profile (`--set`), which the gate must call a
regression (the single job, the merge job's suite-wide gate and the
shards that hold an eager workload fail). It also asserts that every install step installs the README's
packages. Exit 0 when every assertion holds.
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import yaml

# Small enough to be quick, large enough for the gate to call a 10%
# regression of the whole suite after Holm's correction.
REPEAT = 20
# The injected regression: the baselines are saved with every eager op's
# fixed overhead about 10% cheaper than the shipped profile, so the current
# run is slower than its baseline by the same amount.
FASTER_PROFILE = "op_exec_overhead_us=350"


@dataclass
class StepResult:
    name: str
    ran: bool
    code: int


@dataclass
class JobResult:
    name: str
    steps: list[StepResult] = field(default_factory=list)

    summary: str = ""  # what the job appended to $GITHUB_STEP_SUMMARY

    @property
    def failed(self) -> bool:
        return any(s.ran and s.code != 0 for s in self.steps)


def workflows(doc: str) -> list[dict]:
    """Every ```yaml block of the page that is a workflow (has jobs)."""
    out = []
    for block in re.findall(r"```yaml\n(.*?)```", doc, re.S):
        data = yaml.safe_load(block)
        if isinstance(data, dict) and "jobs" in data:
            out.append(data)
    return out


# Packages of the README's install line that only the test suite uses
# (Google Benchmark's compare.py and the scipy it imports, for the
# gbench_compare_geomean test): a job that builds and gates does not need
# them.
TEST_ONLY_PACKAGES = {"libbenchmark-tools", "python3-scipy"}


def readme_packages(readme: str) -> list[str]:
    """The README's packages a job that builds trnbench must install."""
    m = re.search(r"apt-get install -y --no-install-recommends ([^&]*)&&",
                  readme)
    if not m:
        raise SystemExit("README.md: no apt-get install line found")
    return [p for p in m.group(1).split() if p not in TEST_ONLY_PACKAGES]


def expand(text: str, context: dict[str, str]) -> str:
    """Replaces ${{ expr }} with the value the stub context gives it."""

    def one(m: re.Match) -> str:
        expr = m.group(1).strip()
        if expr not in context:
            raise SystemExit(f"docs/ci.md: no stub for ${{{{ {expr} }}}}")
        return context[expr]

    return re.sub(r"\$\{\{(.*?)\}\}", one, text)


def matrix_of(job: dict) -> list[dict[str, str]]:
    matrix = (job.get("strategy") or {}).get("matrix") or {}
    if not matrix:
        return [{}]
    keys = sorted(matrix)
    return [dict(zip(keys, map(str, values)))
            for values in itertools.product(*(matrix[k] for k in keys))]


def job_order(jobs: dict) -> list[str]:
    done: list[str] = []
    while len(done) < len(jobs):
        for name, job in jobs.items():
            needs = job.get("needs") or []
            needs = [needs] if isinstance(needs, str) else needs
            if name not in done and all(n in done for n in needs):
                done.append(name)
    return done


class Runner:
    def __init__(self, root: Path, binary: Path, source: Path,
                 baselines: Path) -> None:
        self.root = root
        self.binary = binary
        self.source = source
        self.baselines = baselines
        self.artifacts = root / "artifacts"
        self.artifacts.mkdir()
        self.history = root / "history.sqlite"
        self.log: list[str] = []

    def context(self, matrix: dict[str, str]) -> dict[str, str]:
        ctx = {"github.run_number": "7", "github.run_id": "4242",
               "secrets.TRNBENCH_HISTORY_URL": str(self.history)}
        for k, v in matrix.items():
            ctx[f"matrix.{k}"] = v
        return ctx

    def environment(self, workflow: dict, job_dir: Path,
                    ctx: dict[str, str]) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if k in ("PATH", "HOME", "LANG", "TMPDIR", "TEST_TMPDIR")}
        env.update({"CI": "true", "GITHUB_ACTIONS": "true",
                    "GITHUB_RUN_NUMBER": ctx["github.run_number"],
                    "GITHUB_RUN_ID": ctx["github.run_id"],
                    "GITHUB_RUN_ATTEMPT": "1", "GITHUB_SHA": "0" * 40,
                    "GITHUB_REF_NAME": "main",
                    "GITHUB_WORKSPACE": str(job_dir),
                    "GITHUB_STEP_SUMMARY": str(job_dir / "step_summary.md")})
        for k, v in (workflow.get("env") or {}).items():
            env[k] = expand(str(v), ctx)
        return env

    def stub(self, step: dict, job_dir: Path) -> str | None:
        """Does a step that cannot run here; returns why, or None."""
        uses = step.get("uses", "")
        run = step.get("run", "")
        if uses.startswith("actions/checkout"):
            shutil.copytree(self.baselines, job_dir / "baselines")
            return "checkout: a copy of baselines/ (all the jobs read)"
        if uses.startswith("actions/upload-artifact"):
            name = step["with"]["name"]
            dest = self.artifacts / name
            for line in str(step["with"]["path"]).split():
                src = job_dir / line
                if src.is_dir():
                    shutil.copytree(src, dest / line, dirs_exist_ok=True)
                elif src.exists():
                    (dest / line).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(src, dest / line)
            return "upload-artifact: a folder copy"
        if uses.startswith("actions/download-artifact"):
            w = step["with"]
            dest = job_dir / w["path"]
            dest.mkdir(parents=True, exist_ok=True)
            for art in sorted(self.artifacts.glob(w.get("pattern", "*"))):
                for f in art.rglob("*"):
                    if f.is_file():
                        shutil.copy2(f, dest / f.name)
            return "download-artifact: a folder copy (merge-multiple)"
        if uses:
            raise SystemExit(f"docs/ci.md: no stub for uses: {uses}")
        if "apt-get" in run:
            return "install: the packages are on this machine already"
        if run.lstrip().startswith("cmake "):
            (job_dir / "build").mkdir(exist_ok=True)
            os.symlink(self.binary, job_dir / "build" / "trnbench")
            return "build: build/trnbench is the binary under test"
        return None

    def run_job(self, workflow: dict, name: str, job: dict,
                matrix: dict[str, str]) -> JobResult:
        label = name + ("" if not matrix else
                        " " + ",".join(f"{k}={v}" for k, v in matrix.items()))
        job_dir = self.root / re.sub(r"[^A-Za-z0-9]+", "_", label)
        job_dir.mkdir()
        ctx = self.context(matrix)
        env = self.environment(workflow, job_dir, ctx)
        result = JobResult(label)
        for i, step in enumerate(job["steps"]):
            step_name = step.get("name") or step.get("uses") or f"step {i}"
            condition = str(step.get("if", "success()")).strip()
            if condition not in ("success()", "always()"):
                raise SystemExit(f"docs/ci.md: no stub for if: {condition}")
            if condition == "success()" and result.failed:
                result.steps.append(StepResult(step_name, False, 0))
                continue
            why = self.stub(step, job_dir)
            if why is not None:
                self.log.append(f"  [{label}] {step_name}: stubbed ({why})")
                result.steps.append(StepResult(step_name, True, 0))
                continue
            script = expand(step["run"], ctx)
            script = re.sub(r"--repeat 100\b", f"--repeat {REPEAT}", script)
            shell = step.get("shell", "")
            if shell == "bash":
                argv = ["bash", "--noprofile", "--norc", "-eo", "pipefail"]
            elif shell in ("", None):
                argv = ["bash", "-e"]  # Actions' default where bash exists
            else:
                raise SystemExit(f"docs/ci.md: no stub for shell: {shell}")
            path = job_dir / f".step{i}.sh"
            path.write_text(script)
            proc = subprocess.run(argv + [str(path)], cwd=job_dir, env=env,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True,
                                  timeout=600)
            tail = "\n".join(proc.stdout.splitlines()[-3:])
            self.log.append(f"  [{label}] {step_name}: exit "
                            f"{proc.returncode}\n      " +
                            tail.replace("\n", "\n      "))
            result.steps.append(StepResult(step_name, True, proc.returncode))
        summary = job_dir / "step_summary.md"
        result.summary = summary.read_text() if summary.exists() else ""
        return result

    def run_workflow(self, workflow: dict) -> list[JobResult]:
        results: dict[str, list[JobResult]] = {}
        out: list[JobResult] = []
        for name in job_order(workflow["jobs"]):
            job = workflow["jobs"][name]
            needs = job.get("needs") or []
            needs = [needs] if isinstance(needs, str) else needs
            upstream_failed = any(j.failed for n in needs for j in results[n])
            if upstream_failed and str(job.get("if", "")).strip() != \
                    "always()":
                continue
            results[name] = [self.run_job(workflow, name, job, m)
                             for m in matrix_of(job)]
            out.extend(results[name])
        return out


def trnbench(binary: Path, args: list[str], cwd: Path) -> None:
    proc = subprocess.run([str(binary)] + args, cwd=cwd, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if proc.returncode != 0:
        raise SystemExit(f"setup: trnbench {' '.join(args)}: exit "
                         f"{proc.returncode}\n{proc.stdout}")


def scenario(name: str, binary: Path, source: Path, flows: list[dict],
             injected: bool) -> list[JobResult]:
    root = Path(tempfile.mkdtemp(prefix=f"trnbench_ci_doc_{name}_",
                                 dir=os.environ.get("TEST_TMPDIR")))
    baselines = root / "checkout_baselines"
    shutil.copytree(source / "baselines", baselines)
    if injected:
        # The doctored baseline: the shipped suite saved under a faster
        # profile, at the shipped baselines' repeat count.
        shutil.rmtree(baselines / "trn1")
        trnbench(binary, ["--workload", "all", "--repeat", "100", "--set",
                          FASTER_PROFILE, "--save-baseline",
                          str(baselines / "trn1")], root)
    runner = Runner(root, binary, source, baselines)
    # The history the sharded jobs read exists before the first night
    # (docs/ci.md: create it once).
    trnbench(binary, ["--workload", "all", "--repeat", str(REPEAT), "--seed",
                      "1", "--output", str(root / "first.json")], root)
    trnbench(binary, ["history", "ingest", str(root / "first.json"), "--db",
                      str(runner.history), "--night", "2026-01-01",
                      "--run-id", "setup"], root)
    jobs: list[JobResult] = []
    for flow in flows:
        jobs.extend(runner.run_workflow(flow))
    print(f"== {name} run ({root})")
    print("\n".join(runner.log))
    for j in jobs:
        print(f"  job {j.name}: {'FAILED' if j.failed else 'passed'}")
    shutil.rmtree(root, ignore_errors=True)
    return jobs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", type=Path, required=True)
    parser.add_argument("--source", type=Path, required=True)
    parser.add_argument("--doc", type=Path, help="default: docs/ci.md")
    args = parser.parse_args()
    doc_path = args.doc or args.source / "docs" / "ci.md"
    flows = workflows(doc_path.read_text())
    problems: list[str] = []
    if len(flows) < 2:
        problems.append(f"{doc_path}: expected two workflows, found "
                        f"{len(flows)}")
    packages = readme_packages((args.source / "README.md").read_text())
    for flow in flows:
        for job_name, job in flow["jobs"].items():
            for step in job["steps"]:
                run = step.get("run", "")
                if "apt-get install" in run:
                    missing = [p for p in packages if p not in run.split()]
                    if missing:
                        problems.append(
                            f"job {job_name}: the install step lacks the "
                            f"README's {' '.join(missing)}")
    clean = scenario("clean", args.binary.resolve(), args.source, flows,
                     injected=False)
    for j in clean:
        if j.failed:
            problems.append(f"clean run: job {j.name} failed")
    bad = scenario("regressed", args.binary.resolve(), args.source, flows,
                   injected=True)
    gating = {j.name.split()[0] for j in bad}
    for expected in ("gate", "shard", "merge"):
        if expected not in gating:
            problems.append(f"regressed run: job {expected} did not run")
    # The single-job gate and the suite-wide gate of the merge job judge
    # every workload; a shard judges its own, so only the shards holding
    # an eager workload (the ones the slower op overhead touches) fail.
    for j in bad:
        if j.name in ("gate", "merge") and not j.failed:
            problems.append(f"regressed run: job {j.name} passed although "
                            "the baseline was doctored")
    # The job page says what changed, compactly.
    for j in bad:
        if j.name == "gate" and (
                "### trnbench gate: " not in j.summary or
                "regression" not in j.summary or len(j.summary) > 8192):
            problems.append("regressed run: the gate job's step summary "
                            f"is not the compact summary ({len(j.summary)} "
                            "bytes)")
    if not any(j.failed for j in bad if j.name.startswith("shard")):
        problems.append("regressed run: every shard job passed")
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
