/**
 * A bot that plays one game to the end with random legal moves: `node dist/bot.js <server>
 * <game> [seed]`. It prints one JSON line: the game, its final status, the types of the moves
 * it made, of the events it read and the view fields it saw. The narrowing below type-checks
 * only because each game's answers carry that game's own types (tsc --strict).
 */
import { ApiError, Tabletop, type GameName, type LegalMoves, type Schemas } from "./client.js";

/** A game's legal moves as its own command types: a compile-time check of the typing. */
function ownMoves(legal: LegalMoves): Schemas["MoveRequest"]["move"][] {
  switch (legal.game) {
    case "puerto-rico": {
      const moves: Schemas["PuertoRicoCommand"][] = legal.moves;
      return moves;
    }
    case "caylus": {
      const moves: Schemas["CaylusCommand"][] = legal.moves;
      return moves;
    }
    case "plus-ultra": {
      const moves: Schemas["PlusUltraCommand"][] = legal.moves;
      return moves;
    }
    case "santa-maria": {
      const moves: Schemas["SantaMariaCommand"][] = legal.moves;
      return moves;
    }
  }
}

function random(seed: number): () => number {
  let state = seed >>> 0 || 1; // xorshift32: a repeatable choice of moves
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

async function main(): Promise<void> {
  const [server, name, seedText] = process.argv.slice(2);
  if (!server || !name) throw new Error("usage: bot.js <server> <game> [seed]");
  const game = name as GameName;
  const next = random(Number(seedText ?? "1"));
  const api = new Tabletop(server);
  await api.register(`ts-bot-${game}`);
  const types = await api.http.GET("/v1/game-types");
  const kind = types.data?.find((t) => t.name === game);
  if (!kind) throw new Error(`no game ${game}`);
  const bots: Record<string, string> = {};
  for (let seat = 1; seat < kind.min_players; seat++) bots[String(seat)] = "random";
  let state = await api.createGame({ game, seats: kind.min_players, seat: 0, bots });
  const moves = new Set<string>();
  const views = new Set<string>();
  while (state.status === "active") {
    if (state.view) for (const field of Object.keys(state.view)) views.add(field);
    if (!state.awaiting.includes(0)) {
      state = await api.wait(state.id, state.version);
      continue;
    }
    const legal = await api.legalMoves(state.id);
    const options = ownMoves(legal);
    const move = options[Math.floor(next() * options.length)];
    if (move === undefined) throw new Error("an awaited seat with no legal move");
    try {
      await api.move(state.id, legal.version, move);
      moves.add(move.type);
    } catch (error: unknown) {
      // Another seat (a bot, in a game of simultaneous decisions) moved first: read again.
      if (!(error instanceof ApiError && error.code === "version_conflict")) throw error;
    }
    state = await api.game(state.id);
  }
  const page = await api.events(state.id);
  const events = [...new Set(page.events.map((e) => e.data.type))];
  const out = {
    game: state.game,
    pageGame: page.game,
    status: state.status,
    moves: [...moves],
    events,
    views: [...views],
  };
  process.stdout.write(JSON.stringify(out) + "\n");
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
