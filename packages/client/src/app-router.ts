import type { Endpoint, Endpoints } from "@als/contract";
import type { TRPCBuiltRouter, TRPCDefaultErrorShape, TRPCMutationProcedure, TRPCQueryProcedure } from "@trpc/server";
import type { z } from "zod";
import type { ErrorResponseBody } from "./client-error.ts";

/** The server's tRPC error shape: tRPC's own, with the REST error body of the failure in `data.appError`. */
export interface AppErrorShape extends TRPCDefaultErrorShape {
  data: TRPCDefaultErrorShape["data"] & { appError?: ErrorResponseBody };
}

type ProcedureDef<E extends Endpoint> = { meta: object; input: z.input<E["input"]>; output: z.output<E["output"]>; errorShape: AppErrorShape };

/** As the server builds it: a GET is a query, every other method a mutation. */
type ProcedureOf<E extends Endpoint> = E["method"] extends "GET" ? TRPCQueryProcedure<ProcedureDef<E>> : TRPCMutationProcedure<ProcedureDef<E>>;

/**
 * The static type of the server's tRPC router (apps/server/src/trpc.ts), derived from the same
 * declarations, so `createTRPCClient<AppRouter>` is typed without importing the server's code.
 */
export type AppRouter = TRPCBuiltRouter<
  { ctx: object; meta: object; errorShape: AppErrorShape; transformer: false },
  { [R in keyof Endpoints]: { [A in keyof Endpoints[R]]: Endpoints[R][A] extends Endpoint ? ProcedureOf<Endpoints[R][A]> : never } }
>;
