/**
 * Registers the Feedback tab of the task view. Import once, before the app
 * renders. The panel's code is loaded when the tab is first opened.
 */
import { createElement } from "react";
import { lazyComponent, registerTaskPanel, type TaskWorkspace } from "../tasks/panels";

const FeedbackPanel = lazyComponent<{ ws: TaskWorkspace }>(async () => (await import("./FeedbackPanel")).FeedbackPanel, "the feedback");

registerTaskPanel({ id: "feedback", title: "Feedback", render: (ws) => createElement(FeedbackPanel, { ws }) });
