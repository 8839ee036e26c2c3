/**
 * Registers the Agent tab of the task view. Import once, before the app
 * renders. Its code is loaded when the tab is first opened. (Stored runs are
 * read on the results page, src/ui/results/ResultsPage.tsx.)
 */
import { createElement } from "react";
import { lazyComponent, registerTaskPanel, type TaskWorkspace } from "../tasks/panels";

const AgentPanel = lazyComponent<{ ws: TaskWorkspace }>(async () => (await import("./AgentPanel")).AgentPanel, "the agent");

registerTaskPanel({ id: "agent", title: "Agent", render: (ws) => createElement(AgentPanel, { ws }) });
