export { HttpProblem, PROBLEM_KINDS, invalidRequest, problem, problemTypeUri } from './problem.js';
export type { ErrorCode, InvalidParam, Problem, ProblemKind } from './problem.js';
export { PROBLEM_CONTENT_TYPE, sendProblem } from './send.js';
export { toProblem, type MappedProblem } from './to-problem.js';
export { methodNotAllowed, notFoundProblem, problemErrorHandler, type ProblemLogger } from './error-handler.js';
