/**
 * docs/scale.md and its files (docs/scale/): the Slurm scripts and the
 * Kubernetes manifest are shown in the doc as they are, are valid shell and
 * YAML, run `recode run --shard` as documented, and run a tiny grid (a
 * scripted model, two shards at the same time, then the merge) here, with the
 * variables Slurm and Kubernetes would set.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { buildProgram } from "../../src/cli/main";
import { cleanEnv, type ProcessResult, recodeCli, runProcess, solverScriptText } from "../helpers/cli-process";

const DOC = readFileSync("docs/scale.md", "utf8");
const SBATCH = "docs/scale/slurm.sbatch";
const MERGE_SBATCH = "docs/scale/slurm-merge.sbatch";
const MANIFEST = "docs/scale/recode-job.yaml";
const SHOWN = [SBATCH, MERGE_SBATCH, MANIFEST, "docs/scale/Dockerfile"];

/** The `recode run` line of the Kubernetes pods, as docs/scale.md shows it on its own. */
const K8S_RUN_LINE =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansions, not a template
  'node bin/recode.mjs run --model "$model" ${RECODE_BASE_URL:+--base-url "$RECODE_BASE_URL"} --researcher "$RECODE_RESEARCHER" --setting "$RECODE_SETTING" --protocol "$RECODE_PROTOCOL" ${RECODE_SAMPLING:+--sampling "$RECODE_SAMPLING"} --levels "$RECODE_LEVELS" --turns "$RECODE_TURNS" --workers "$RECODE_WORKERS" --sandbox none --shard "$JOB_COMPLETION_INDEX/$RECODE_SHARDS" --out "$RECODE_RUNS/shards/$slug/shard-$JOB_COMPLETION_INDEX" ${RECODE_PACKAGE_SOURCE:+--package-source "$RECODE_PACKAGE_SOURCE"} ${RECODE_TASKS:+--tasks $RECODE_TASKS}';
/** The `recode run` line of a Slurm array element. */
const SLURM_RUN_LINE =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansions, not a template
  'node bin/recode.mjs run --model "$model" ${RECODE_BASE_URL:+--base-url "$RECODE_BASE_URL"} --researcher "$RECODE_RESEARCHER" --setting "$RECODE_SETTING" --protocol "$RECODE_PROTOCOL" ${RECODE_SAMPLING:+--sampling "$RECODE_SAMPLING"} --levels "$RECODE_LEVELS" --turns "$RECODE_TURNS" --workers "$RECODE_WORKERS" --sandbox "$RECODE_SANDBOX" --shard "$SLURM_ARRAY_TASK_ID/$RECODE_SHARDS" --out "$RECODE_RUNS/shards/$slug/shard-$SLURM_ARRAY_TASK_ID" ${RECODE_PACKAGE_SOURCE:+--package-source "$RECODE_PACKAGE_SOURCE"} ${RECODE_TASKS:+--tasks $RECODE_TASKS} || rc=$?';

const work = mkdtempSync(join(tmpdir(), "recode-scale-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The bodies of the fenced code blocks of a Markdown text. */
function fencedBlocks(md: string): string[] {
  return [...md.matchAll(/^```[^\n]*\n([\s\S]*?)^```$/gm)].map((m) => (m[1] as string).replace(/\n$/, ""));
}

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: unknown;
}
interface Container {
  name: string;
  image: string;
  workingDir?: string;
  command: string[];
  args: string[];
  env: EnvVar[];
  volumeMounts: { name: string; mountPath: string }[];
}
interface PodSpec {
  restartPolicy: string;
  containers: Container[];
  volumes: { name: string; persistentVolumeClaim?: { claimName: string }; emptyDir?: object }[];
}
interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels: Record<string, string> };
  // biome-ignore lint/suspicious/noExplicitAny: manifest fields are checked one by one below
  spec: any;
}

function manifest(): K8sObject[] {
  const docs = parseAllDocuments(readFileSync(MANIFEST, "utf8"));
  if (!Array.isArray(docs)) throw new Error("the manifest is not a YAML stream");
  for (const d of docs) {
    expect(d.errors, String(d.errors[0])).toEqual([]);
    expect(d.warnings).toEqual([]);
  }
  return docs.map((d) => d.toJS() as K8sObject);
}

function find(objs: K8sObject[], kind: string, name?: string): K8sObject {
  const o = objs.find((x) => x.kind === kind && (name === undefined || x.metadata.name === name));
  if (!o) throw new Error(`no ${kind} ${name ?? ""} in ${MANIFEST}`);
  return o;
}

const pod = (job: K8sObject): PodSpec => job.spec.template.spec as PodSpec;
const container = (job: K8sObject): Container => pod(job).containers[0] as Container;
const envOf = (c: Container): Record<string, string> =>
  Object.fromEntries(c.env.filter((e) => e.value !== undefined).map((e) => [e.name, e.value as string]));

/** Which objects `kubectl apply -l <key>=<value>` / `-l <key>!=<value>` selects. */
function selected(objs: K8sObject[], selector: string): string[] {
  const m = /^([\w.-]+)(!?=)([\w.-]+)$/.exec(selector);
  if (!m) throw new Error(`selector ${selector}`);
  const [, key, op, value] = m;
  return objs
    .filter((o) => (op === "=" ? o.metadata.labels[key as string] === value : o.metadata.labels[key as string] !== value))
    .map((o) => `${o.kind}/${o.metadata.name}`);
}

/** Options of `recode run` a command line uses, each checked against the real command. */
function checkRunOptions(line: string): void {
  const run = buildProgram(
    () => {},
    () => {},
  ).commands.find((c) => c.name() === "run");
  const known = new Set(run?.options.map((o) => o.long));
  const used = [...line.matchAll(/(?:^|[\s+])(--[a-z-]+)/g)].map((m) => m[1]);
  expect(used.length).toBeGreaterThan(8);
  for (const o of used) expect(known, `${o} is not an option of recode run`).toContain(o);
}

describe("docs/scale.md and docs/scale/", () => {
  it("shows every file as it is in the repository", () => {
    const blocks = fencedBlocks(DOC);
    for (const f of SHOWN) expect(blocks, `${f} differs from its copy in docs/scale.md`).toContain(readFileSync(f, "utf8").trimEnd());
    expect(existsSync("docs/scale/Dockerfile.dockerignore")).toBe(true);
  });

  it("the sbatch scripts are valid bash and agree on the grid's shape", () => {
    for (const f of [SBATCH, MERGE_SBATCH]) {
      const r = spawnSync("bash", ["-n", f], { encoding: "utf8" });
      expect(r.status, `${f}: ${r.stderr}`).toBe(0);
    }
    const text = readFileSync(SBATCH, "utf8");
    const lines = text.split("\n").map((l) => l.trim());
    expect(lines).toContain(SLURM_RUN_LINE);
    checkRunOptions(SLURM_RUN_LINE);
    // The array covers the default number of shards, and the merge expects as many.
    const array = /^#SBATCH --array=0-(\d+)$/m.exec(text);
    const shards = /RECODE_SHARDS:=(\d+)/.exec(text);
    expect(Number(array?.[1]) + 1).toBe(Number(shards?.[1]));
    expect(/RECODE_SHARDS:=(\d+)/.exec(readFileSync(MERGE_SBATCH, "utf8"))?.[1]).toBe(shards?.[1]);
    // #SBATCH lines are read only before the first command.
    const firstCommand = lines.findIndex((l) => l !== "" && !l.startsWith("#"));
    const directives = lines.flatMap((l, i) => (l.startsWith("#SBATCH") ? [i] : []));
    expect(directives.length).toBeGreaterThan(3);
    for (const i of directives) expect(i).toBeLessThan(firstCommand);
  });

  it("the manifest is an Indexed Job whose pods run the documented recode run --shard line, and a merge Job", () => {
    const objs = manifest();
    expect(objs.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      "PersistentVolumeClaim/recode-runs",
      "NetworkPolicy/recode-grid",
      "Job/recode-shards",
      "Job/recode-merge",
    ]);
    const pvc = find(objs, "PersistentVolumeClaim");
    const shards = find(objs, "Job", "recode-shards");
    const merge = find(objs, "Job", "recode-merge");
    const sc = container(shards);
    const mc = container(merge);
    const senv = envOf(sc);

    // One pod per shard, each index retried on its own, never two pods of one index at once.
    expect(shards.spec.completionMode).toBe("Indexed");
    expect(shards.spec.completions).toBe(Number(senv.RECODE_SHARDS));
    expect(shards.spec.parallelism).toBeLessThanOrEqual(shards.spec.completions);
    expect(shards.spec.backoffLimitPerIndex).toBeGreaterThan(0);
    expect(shards.spec.podReplacementPolicy).toBe("Failed");
    expect(shards.spec.podFailurePolicy.rules).toContainEqual({
      action: "FailIndex",
      onExitCodes: { containerName: sc.name, operator: "In", values: [2] },
    });
    for (const job of [shards, merge]) expect(pod(job).restartPolicy).toBe("Never");

    // The shard's command: a shell that runs the documented line for each model.
    expect(sc.command).toEqual(["/bin/sh", "-c"]);
    expect(sc.args).toHaveLength(1);
    const script = sc.args[0] as string;
    const runLines = script
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l.includes("recode.mjs run"));
    expect(runLines).toEqual([`${K8S_RUN_LINE} || rc=$?`]);
    expect(fencedBlocks(DOC)).toContain(K8S_RUN_LINE);
    checkRunOptions(K8S_RUN_LINE);
    expect(sc.workingDir).toBe("/app");
    expect(mc.workingDir).toBe("/app");
    expect(mc.image).toBe(sc.image);
    expect(/^WORKDIR \/app$/m.test(readFileSync("docs/scale/Dockerfile", "utf8"))).toBe(true);

    // Both Jobs mount the shared claim where RECODE_RUNS points; the claim can be mounted by every pod.
    expect(pvc.spec.accessModes).toEqual(["ReadWriteMany"]);
    for (const [job, c] of [
      [shards, sc],
      [merge, mc],
    ] as const) {
      const vol = pod(job).volumes.find((v) => v.persistentVolumeClaim?.claimName === pvc.metadata.name);
      expect(vol).toBeDefined();
      expect(c.volumeMounts).toContainEqual({ name: vol?.name, mountPath: envOf(c).RECODE_RUNS });
      // A read-only root file system leaves /tmp to an emptyDir.
      const tmp = c.volumeMounts.find((m) => m.mountPath === "/tmp");
      expect(pod(job).volumes.find((v) => v.name === tmp?.name)?.emptyDir).toBeDefined();
    }
    expect(envOf(mc).RECODE_SHARDS).toBe(senv.RECODE_SHARDS);
    expect(envOf(mc).RECODE_RUNS).toBe(senv.RECODE_RUNS);

    // The two apply steps of the doc select the right objects.
    expect(selected(objs, "recode-step!=merge")).toEqual([
      "PersistentVolumeClaim/recode-runs",
      "NetworkPolicy/recode-grid",
      "Job/recode-shards",
    ]);
    expect(selected(objs, "recode-step=merge")).toEqual(["Job/recode-merge"]);
    for (const sel of ["recode-step!=merge", "recode-step=merge"])
      expect(DOC).toContain(`kubectl apply -f docs/scale/recode-job.yaml -l ${sel}`);
    // The NetworkPolicy covers both Jobs' pods.
    const np = find(objs, "NetworkPolicy");
    for (const job of [shards, merge]) {
      for (const [k, v] of Object.entries(np.spec.podSelector.matchLabels)) expect(job.spec.template.metadata.labels[k]).toBe(v);
    }

    for (const c of [sc, mc]) {
      const text = c.args[0] as string;
      // Kubernetes expands $(NAME) of the container's variables and turns $$ into $ in args:
      // neither may occur, so what runs is the script as written.
      const names = [...c.env.map((e) => e.name), "JOB_COMPLETION_INDEX"];
      for (const n of names) expect(text).not.toContain(`$(${n})`);
      expect(text).not.toContain("$$");
      const r = spawnSync("dash", ["-n", "-c", text], { encoding: "utf8" });
      expect(r.status, r.stderr).toBe(0);
    }
  });
});

/** A scripted model that solves min-p-sampling and pass-at-k at turn 1. */
function scriptFile(name: string): string {
  const file = join(work, name);
  writeFileSync(file, solverScriptText(["min-p-sampling", "pass-at-k"]));
  return file;
}

/** The grid every run below uses: two tasks, L0 and L4, three turns, two shards, one worker. */
const GRID = {
  RECODE_HOME: resolve("."),
  RECODE_TASKS: "min-p-sampling pass-at-k",
  RECODE_LEVELS: "0,4",
  RECODE_TURNS: "3",
  RECODE_SHARDS: "2",
  RECODE_WORKERS: "1",
};

interface ReportJson {
  rows: { model: string; level: number; taskCount: number; solvedCount: number; recallAtN: number }[];
  missing: string[];
  unfinished: unknown[];
  errored: unknown[];
}

/** Check the grid's report: every model at L0 and L4, both tasks solved (a scripted model is named by its file's name). */
function expectSolvedGrid(runs: string, models: string[]): void {
  const report = JSON.parse(readFileSync(join(runs, "report.json"), "utf8")) as ReportJson;
  expect(report.rows.map((r) => [r.model, r.level, r.taskCount, r.solvedCount])).toEqual(
    models.flatMap((spec) => {
      const m = spec.startsWith("scripted:") ? `scripted:${basename(spec.slice("scripted:".length))}` : spec;
      return [
        [m, 0, 2, 2],
        [m, 4, 2, 2],
      ];
    }),
  );
  expect([report.missing, report.unfinished, report.errored]).toEqual([[], [], []]);
  expect(readFileSync(join(runs, "report.md"), "utf8")).toContain("| L0 | L1 | L2 | L3 | L4 |");
  expect(readFileSync(join(runs, "report.csv"), "utf8").split("\n")[0]).toContain("recall_at_n");
}

const slug = (model: string) => model.replace(/[^A-Za-z0-9._-]/g, "_");

describe("the scale files run a tiny grid here", () => {
  it("Slurm: two array elements at the same time, then the merge job", async () => {
    const runs = join(work, "slurm");
    const models = [`scripted:${scriptFile("model-a.json")}`, `scripted:${scriptFile("model-b.json")}`];
    const env = (extra: NodeJS.ProcessEnv) =>
      cleanEnv({
        ...GRID,
        RECODE_RUNS: runs,
        RECODE_MODELS: models.join(" "),
        // Where bubblewrap cannot box Pyodide here, run in a worker thread rather than fail.
        RECODE_SANDBOX: "auto",
        SLURM_ARRAY_JOB_ID: "4242",
        SLURM_ARRAY_TASK_COUNT: "2",
        SLURM_ARRAY_TASK_MIN: "0",
        SLURM_ARRAY_TASK_MAX: "1",
        SLURM_CPUS_PER_TASK: "1",
        SLURM_SUBMIT_DIR: resolve("."),
        ...extra,
      });
    const elements = await Promise.all(["0", "1"].map((i) => runProcess("bash", [SBATCH], env({ SLURM_ARRAY_TASK_ID: i }))));
    for (const e of elements) expect(e.code, e.out).toBe(0);
    expect(elements[0]?.out).toContain("1 task ->");
    for (const m of models) for (const i of [0, 1]) expect(existsSync(join(runs, "shards", slug(m), `shard-${i}`, "run.json"))).toBe(true);
    // An index past the shards is refused.
    const outside = await runProcess("bash", [SBATCH], env({ SLURM_ARRAY_TASK_ID: "2" }));
    expect(outside.code).toBe(2);
    expect(outside.out).toContain("outside 0..1");

    const merged = await runProcess("bash", [MERGE_SBATCH], env({}));
    expect(merged.code, merged.out).toBe(0);
    expectSolvedGrid(runs, models);
    expect(merged.out).toContain("## Results");

    // A shard without its run folder stops the merge, saying which one to run again.
    const partial = join(work, "slurm-partial");
    cpSync(runs, partial, { recursive: true });
    rmSync(join(partial, "shards", slug(models[1] as string), "shard-1"), { recursive: true });
    const refused = await runProcess("bash", [MERGE_SBATCH], env({ RECODE_RUNS: partial }));
    expect(refused.code).toBe(1);
    expect(refused.out).toContain("shard 1 has no run folder yet; run it again: sbatch --array=1");
  }, 300_000);

  it("Kubernetes: the shard pods' script for two indexes at the same time, then the merge pod's script", async () => {
    const objs = manifest();
    const sc = container(find(objs, "Job", "recode-shards"));
    const mc = container(find(objs, "Job", "recode-merge"));
    const runs = join(work, "k8s");
    const model = `scripted:${scriptFile("model-k.json")}`;
    // The pods' variables as the manifest sets them, with the tiny grid and a local folder for the volume.
    const podEnv = (c: Container, extra: NodeJS.ProcessEnv) =>
      cleanEnv({ ...envOf(c), ...GRID, RECODE_MODELS: model, RECODE_RUNS: runs, ...extra });
    const shell = (c: Container, extra: NodeJS.ProcessEnv): Promise<ProcessResult> =>
      runProcess(c.command[0] as string, [...c.command.slice(1), c.args[0] as string], podEnv(c, extra));
    const pods = await Promise.all(["0", "1"].map((i) => shell(sc, { JOB_COMPLETION_INDEX: i })));
    for (const p of pods) expect(p.code, p.out).toBe(0);
    // The two pods ran at the same time.
    expect(Math.max(...pods.map((p) => p.startedAt))).toBeLessThan(Math.min(...pods.map((p) => p.endedAt)));
    const merged = await shell(mc, {});
    expect(merged.code, merged.out).toBe(0);
    expectSolvedGrid(runs, [model]);
    // What the merge wrote is a run folder recode reads like any other.
    const again = await recodeCli(["report", join(runs, "merged", slug(model)), "--format", "json"]);
    expect(again.code, again.out).toBe(0);
  }, 300_000);
});
