import { defineResource } from "../endpoint.ts";
import {
  ExperimentList,
  ExperimentPath,
  ExperimentRecord,
  ExperimentResults,
  NoExperimentInput,
  StartExperimentRequest,
  StopExperimentRequest,
} from "../experiments.ts";

// The peer service's paths and shapes, so its client's experiment methods work unchanged.
export const experimentsEndpoints = defineResource("experiments", {
  list: {
    method: "GET",
    path: "/api/retrieval_experiments",
    summary: "The project's retrieval experiments: the running one and every one that ran, newest first",
    input: NoExperimentInput,
    output: ExperimentList,
  },
  start: {
    method: "POST",
    path: "/api/retrieval_experiments",
    summary: "Start the project's retrieval experiment (one at a time; ids are never reused: 409)",
    input: StartExperimentRequest,
    output: ExperimentList,
    errors: ["conflict"],
  },
  get: {
    method: "GET",
    path: "/api/retrieval_experiments/:experiment_id",
    summary: "One retrieval experiment of the project (404 when unknown)",
    input: ExperimentPath,
    output: ExperimentRecord,
  },
  stop: {
    method: "POST",
    path: "/api/retrieval_experiments/stop",
    summary: "Stop the running retrieval experiment, keeping its history (409 unless it is the one running)",
    input: StopExperimentRequest,
    output: ExperimentList,
    errors: ["conflict"],
  },
  results: {
    method: "GET",
    path: "/api/retrieval_experiments/:experiment_id/results",
    summary:
      "Per arm: users, sessions, sessions with a reported outcome and their success rate with its 95% interval; the lift with its interval and a verdict",
    input: ExperimentPath,
    output: ExperimentResults,
  },
});
