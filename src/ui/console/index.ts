/**
 * Registers the Console tab of the task view (a scratch console that runs a
 * snippet against the current draft and the task's repository). Import once,
 * before the app renders. The panel's code is loaded when the tab is first opened.
 */
import { createElement } from "react";
import { lazyComponent, registerTaskPanel, type TaskWorkspace } from "../tasks/panels";

const ConsolePanel = lazyComponent<{ ws: TaskWorkspace }>(async () => (await import("./ConsolePanel")).ConsolePanel, "the console");

registerTaskPanel({ id: "console", title: "Console", render: (ws) => createElement(ConsolePanel, { ws }) });
