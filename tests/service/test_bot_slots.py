"""The bot runner's thinking slots: at most `size` bots think at once, and a waiting bot
whose clock runs goes first, earliest deadline first; a waiter given up passes its turn on."""

from __future__ import annotations

import asyncio

from service.bot_runner import Slots


async def _order(deadlines: list[int | None]) -> list[int | None]:
    slots = Slots(1)
    release = asyncio.Event()
    began: list[int | None] = []
    thinking: list[int] = []

    async def bot(deadline: int | None) -> None:
        async with slots.taken(deadline):
            thinking.append(1)
            assert len(thinking) == 1, "two bots thinking in one slot"
            began.append(deadline)
            await release.wait()
            thinking.pop()

    holder = asyncio.ensure_future(bot(-1))  # takes the slot; the others queue behind it
    await asyncio.sleep(0)
    waiters = [asyncio.ensure_future(bot(d)) for d in deadlines]
    while len(slots._waiting) < len(deadlines):  # every waiter queued
        await asyncio.sleep(0)
    release.set()
    await asyncio.gather(holder, *waiters)
    return began[1:]


def test_bots_with_clocks_think_first_earliest_deadline_first() -> None:
    order = asyncio.run(_order([None, 30, 10, None, 20]))
    assert order == [10, 20, 30, None, None]


def test_a_waiter_given_up_passes_its_turn_on_and_the_slots_are_all_given_back() -> None:
    async def scenario() -> None:
        slots = Slots(2)
        release = asyncio.Event()
        ran: list[str] = []

        async def bot(name: str, deadline: int | None) -> None:
            async with slots.taken(deadline):
                ran.append(name)
                await release.wait()

        first = [asyncio.ensure_future(bot(n, None)) for n in ("a", "b")]
        await asyncio.sleep(0)
        given_up = asyncio.ensure_future(bot("late", 1))
        waiting = asyncio.ensure_future(bot("c", 5))
        while len(slots._waiting) < 2:
            await asyncio.sleep(0)
        given_up.cancel()
        release.set()
        await asyncio.gather(*first, waiting)
        assert given_up.cancelled() and ran == ["a", "b", "c"]
        assert slots._free == 2 and not slots._waiting

    asyncio.run(scenario())
