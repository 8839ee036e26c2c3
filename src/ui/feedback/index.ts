/** Registers the Feedback tab of the task view. Import once, before the app renders. */
import { createElement } from "react";
import { registerTaskPanel } from "../tasks/panels";
import { FeedbackPanel } from "./FeedbackPanel";

registerTaskPanel({ id: "feedback", title: "Feedback", render: (ws) => createElement(FeedbackPanel, { ws }) });
