/**
 * A typed client of Tabletop's API v1 for TypeScript: the types are generated from the
 * server's OpenAPI document by openapi-typescript (`src/schema.ts`, `npm run generate`), the
 * calls made by openapi-fetch. A game's answers are unions told apart by `game`: narrow on it
 * (`if (legal.game === "puerto-rico")`) and its moves are Puerto Rico's commands, its view
 * Puerto Rico's view. Every write carries a fresh Idempotency-Key; a refusal throws an
 * `ApiError` with the problem's stable `code`.
 */
import createClient, { type Middleware } from "openapi-fetch";
import { randomUUID } from "node:crypto";
import type { components, paths } from "./schema.js";

export type Schemas = components["schemas"];
export type GameOut = Schemas["GameOut"];
export type LegalMoves = Schemas["LegalMoves"];
export type MoveResult = Schemas["MoveResult"];
export type EventPage = Schemas["EventPage"];
export type Command = Schemas["MoveRequest"]["move"];
export type GameName = GameOut["game"];

/** A refusal of the API (application/problem+json), with its stable `code`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
  ) {
    super(`${status} ${code}: ${detail}`);
  }
}

type Answer<T> = { data?: T; error?: unknown; response: Response };

function answered<T>(answer: Answer<T>): T {
  if (answer.data !== undefined) return answer.data;
  const problem = (answer.error ?? {}) as Partial<Schemas["ProblemBody"]>;
  throw new ApiError(
    answer.response.status,
    problem.code ?? "error",
    problem.detail ?? answer.response.statusText,
  );
}

/** One player's connection to a Tabletop server. */
export class Tabletop {
  readonly http: ReturnType<typeof createClient<paths>>;
  key: string | undefined;

  constructor(baseUrl: string, key?: string) {
    this.key = key;
    this.http = createClient<paths>({ baseUrl });
    const auth: Middleware = {
      onRequest: ({ request }) => {
        if (this.key) request.headers.set("Authorization", `Bearer ${this.key}`);
        return request;
      },
    };
    this.http.use(auth);
  }

  /** A new player; the client then acts as it (its key is shown only here). */
  async register(name: string): Promise<Schemas["PlayerCreated"]> {
    const created = answered(await this.http.POST("/v1/players", { body: { name } }));
    this.key = created.api_key;
    return created;
  }

  async createGame(body: Schemas["NewGame"]): Promise<GameOut> {
    const headers = { "Idempotency-Key": randomUUID() };
    return answered(await this.http.POST("/v1/games", { body, params: { header: headers } }));
  }

  async game(id: string): Promise<GameOut> {
    return answered(await this.http.GET("/v1/games/{game_id}", { params: { path: { game_id: id } } }));
  }

  /** The game once it is past `version` (the long poll: how to wait for other seats). */
  async wait(id: string, version: number, timeoutS = 30): Promise<GameOut> {
    const query = { wait_for_version: version, timeout_s: timeoutS };
    const params = { path: { game_id: id }, query };
    return answered(await this.http.GET("/v1/games/{game_id}", { params }));
  }

  async legalMoves(id: string): Promise<LegalMoves> {
    const params = { path: { game_id: id }, query: { limit: 10_000 } };
    return answered(await this.http.GET("/v1/games/{game_id}/legal-moves", { params }));
  }

  async move(id: string, expectedVersion: number, move: Command): Promise<MoveResult> {
    const params = { path: { game_id: id }, header: { "Idempotency-Key": randomUUID() } };
    const body = { expected_version: expectedVersion, move };
    return answered(await this.http.POST("/v1/games/{game_id}/moves", { params, body }));
  }

  async events(id: string, after = 0): Promise<EventPage> {
    const params = { path: { game_id: id }, query: { after, limit: 10_000 } };
    const page = answered(await this.http.GET("/v1/games/{game_id}/events", { params }));
    if (typeof page === "string") throw new Error("an NDJSON body where a page was asked for");
    return page;
  }
}
