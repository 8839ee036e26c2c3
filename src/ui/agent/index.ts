/** Registers the Agent and Results tabs of the task view. Import once, before the app renders. */
import { createElement } from "react";
import { registerTaskPanel } from "../tasks/panels";
import { AgentPanel } from "./AgentPanel";
import { ResultsView } from "./ResultsView";

registerTaskPanel({ id: "agent", title: "Agent", render: (ws) => createElement(AgentPanel, { ws }) });
registerTaskPanel({ id: "results", title: "Results", render: () => createElement(ResultsView) });
