import type { z } from "zod";
import type { RequestContext } from "./context.ts";

export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE" | "PATCH";

/**
 * One endpoint of the contract, declared once and served both over REST (at `path`) and over tRPC
 * (as `procedure`). GET operations read their input from the query string, the others from the
 * JSON body.
 */
export interface Operation<In extends z.ZodType = z.ZodType, Out extends z.ZodType = z.ZodType> {
  /** tRPC procedure path, `resource.action`. */
  procedure: string;
  method: HttpMethod;
  path: string;
  summary: string;
  input: In;
  /** Input fields a REST client of a body-carrying method may send in the query string instead. */
  queryFields?: string[];
  output: Out;
  /** The REST status of a success when it is not 200 (202 for work accepted to run later). */
  successStatus?: number;
  /** A longer backstop than the server's, for an operation the contract lets run longer (publish's wait). */
  backstopMs?: number;
  handle(ctx: RequestContext, input: z.output<In>): Promise<z.input<Out>>;
}

export function defineOperation<In extends z.ZodType, Out extends z.ZodType>(operation: Operation<In, Out>): Operation<In, Out> {
  return operation;
}
