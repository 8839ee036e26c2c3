/**
 * The parts of the services that are loaded when first needed: model
 * providers (OpenAI client, WebLLM glue), researchers, the agent and the
 * episode runner. The page's first load does not carry them; the services
 * import this module on the first review, connection test or agent run.
 */
export { createAgent } from "../core/agent";
export { profileSeatSampling } from "../core/protocol";
export { checkModelSpec } from "../core/providers";
export { createLlmResearcher, createRulesResearcher } from "../core/researchers";
export { samplingText, withSampling } from "../core/sampling";
export { runTaskEpisodes } from "../core/task-episodes";
export { restoreTrajectory } from "../core/trajectory";
export { repositoryEpisodeStore } from "../store/episode-store";
export { trajectoryKey } from "../store/trajectory-records";
export { buildModel, describeCheck, optionsOf, ROLE_NAMES, samplingOf, specOf } from "./models";
