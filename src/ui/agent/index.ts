/**
 * Registers the Agent and Results tabs of the task view. Import once, before
 * the app renders. Each tab's code is loaded when the tab is first opened.
 */
import { createElement } from "react";
import { lazyComponent, registerTaskPanel, type TaskWorkspace } from "../tasks/panels";

const AgentPanel = lazyComponent<{ ws: TaskWorkspace }>(async () => (await import("./AgentPanel")).AgentPanel, "the agent");
const ResultsView = lazyComponent<object>(async () => (await import("./ResultsView")).ResultsView, "the results");

registerTaskPanel({ id: "agent", title: "Agent", render: (ws) => createElement(AgentPanel, { ws }) });
registerTaskPanel({ id: "results", title: "Results", render: () => createElement(ResultsView) });
